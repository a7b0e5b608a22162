#!/bin/bash
# Every shell script in the tree parses. A script that does not is not
# always run where it would fail loudly: the e2e suite sources its case
# files inside the guest image, and a syntax error there once dropped three
# cases from the plan with no other sign.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"

n=0
while IFS= read -r f; do
	[[ -f $f && ! -L $f ]] || continue
	first=$(head -c 64 "$f" | tr -d '\0' | head -1)
	case $first in
	'#!/bin/sh'*) shell=sh ;;
	'#!/bin/bash'* | '#!/usr/bin/env bash'*) shell=bash ;;
	*) [[ $f == *.sh ]] && shell=bash || continue ;;
	esac
	n=$((n + 1))
	if err=$("$shell" -n "$f" 2>&1); then
		echo "ok - $f parses ($shell -n)"
	else
		echo "not ok - $f does not parse ($shell -n): $(tr '\n' ' ' <<<"$err")"
	fi
done < <(git ls-files | grep -v '\.patch$')
((n > 50)) && echo "ok - $n shell scripts checked" || echo "not ok - only $n shell scripts found"
