#!/bin/bash
# The node kernel's package version (scripts/lib/node-version.sh): the
# series' revision grows with each commit that changes the series,
# node.config or the packaging, and not with others; uncommitted changes
# count as the next commit; the hash follows the content; a shallow clone
# is refused. Then dpkg --compare-versions on the versions a node meets:
# ours above Debian's same linux-source and above our earlier builds,
# below any later Debian upload (its next revision, a stable update, the
# next upstream release), as apt and the metapackage see them.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib/node-version.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { if "$@"; then echo "ok - $desc"; else echo "not ok - $desc"; fi; }

repo=$tmp/repo
mkdir -p "$repo/kernel/config" "$repo/scripts/lib" "$repo/docs"
printf '# base: linux-source-6.1\n0001-a.patch\t# feature: a\n' >"$repo/kernel/series"
echo one >"$repo/kernel/0001-a.patch"
echo 'CONFIG_X=y' >"$repo/kernel/config/node.config"
echo '#!/bin/bash' >"$repo/scripts/node-kernel.sh"
echo doc >"$repo/docs/x.md"
g() { git -C "$repo" -c user.name=t -c user.email=t@t "$@"; }
g init -q && g add -A && g commit -qm 1
r1=$(node_series_revision "$repo") h1=$(node_series_hash "$repo")
echo doc2 >"$repo/docs/x.md" && g commit -qam docs
r2=$(node_series_revision "$repo")
desc="a commit that changes nothing the node runs keeps the revision ($r1, $r2)"
ok test "$r1" = 1 -a "$r2" = 1
echo two >"$repo/kernel/0001-a.patch" && g commit -qam patch
r3=$(node_series_revision "$repo") h3=$(node_series_hash "$repo")
desc="a commit that changes a patch: revision $r3, the hash changes ($h1 -> $h3)"
ok test "$r3" = 2 -a "$h1" != "$h3" -a ${#h3} = 12
echo 'CONFIG_Y=y' >>"$repo/kernel/config/node.config" && g commit -qam config
echo 'echo' >>"$repo/scripts/node-kernel.sh" && g commit -qam recipe
desc="node.config and the packaging count too: revision $(node_series_revision "$repo")"
ok test "$(node_series_revision "$repo")" = 4
printf '0002-b.patch\n' >>"$repo/kernel/series"
echo b >"$repo/kernel/0002-b.patch"
g add kernel/0002-b.patch
desc="uncommitted changes count as the next commit and say so"
r=$(node_series_revision "$repo" 2>"$tmp/err")
ok test "$r" = 5 -a -n "$(grep 'uncommitted changes' "$tmp/err")"
desc="a patch the series names is part of the hash"
h=$(node_series_hash "$repo")
echo c >"$repo/kernel/0002-b.patch"
ok test "$h" != "$(node_series_hash "$repo")"
g commit -qam b
git clone -q --depth 1 "file://$repo" "$tmp/shallow"
desc="a shallow clone is refused (its count would be wrong)"
ok test -z "$(node_series_revision "$tmp/shallow" 2>"$tmp/err")" -a -n "$(grep shallow "$tmp/err")"

# The ordering table, for the linux-source version of the build root
# (any Debian version works the same; this one is bookworm's today).
src=6.1.192-3
ours=$src+burst9
cmp() { # cmp A OP B WHY
	desc="$(printf '%-22s %-2s %-22s %s' "$1" "$2" "$3" "$4")"
	ok dpkg --compare-versions "$1" "$2" "$3"
}
cmp "$ours" gt "$src" "Debian's linux-image of the same linux-source"
cmp "$ours" gt "$src+burst8" "our earlier build on the same source"
cmp "$src+burst10" gt "$ours" "revision 10 after 9 (numeric, not text)"
cmp "$src+burst100" gt "$src+burst99" "and at 100"
cmp "$ours" lt 6.1.192-4 "Debian's next upload of the same upstream"
cmp "$ours" lt "$src+deb12u1" "a stable update of that upload"
cmp "$ours" lt 6.1.193-1 "Debian's next upstream release"
cmp "$ours" gt "6.1.191-1+burst50" "ours on an older source, any revision"
cmp "$ours" lt "6.1.193-1+burst1" "ours rebuilt on the next source, revision 1"
cmp "$ours" gt "$src~bpo12+1" "a backport of the same source"
