#!/bin/bash
# Run the kernel's checkpatch.pl --strict on every patch of our series.
# Usage: scripts/checkpatch.sh KERNEL_SRC PATCH...
set -euo pipefail
src=$1
shift
failed=0
for patch in "$@"; do
	# The cover letter has no diff to check.
	grep -q '^diff --git' "$patch" || continue
	# Fed on stdin: checkpatch treats a file that git tracks (ours are) as
	# source code rather than as a patch. "Originally-by:" credits a design
	# someone else wrote first, as the scheduler's own history does; this
	# checkpatch.pl does not list that tag and would call it non-standard,
	# so those lines alone are left out of what it reads.
	# UNKNOWN_COMMIT_ID: checkpatch looks the commit of a "Fixes:" tag up
	# in a git repository (ours, or the kernel tree made from a tarball),
	# neither of which has mainline's history, so it would call every id
	# unknown (with no repository at all it does too). The ids of the
	# series' Fixes: tags were checked against mainline when written; the
	# tag's form (GIT_COMMIT_ID) is still checked.
	if out=$(grep -v '^Originally-by: ' "$patch" |
		"$src/scripts/checkpatch.pl" --strict --no-tree --quiet --no-summary \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID - 2>&1); then
		echo "checkpatch: ok   ${patch#kernel/}"
	else
		echo "checkpatch: FAIL ${patch#kernel/}"
		echo "$out" | sed 's/^/    /'
		failed=1
	fi
done
exit $failed
