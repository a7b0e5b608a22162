#!/bin/bash
# Build an apt repository of ours with reprepro, signed, from our .debs: the
# node kernel (make node-kernel), crun and podman for a node (make repo,
# docs/install.md); crun and podman alone for the e2e image (make image-repo).
# Usage: scripts/repo-build.sh OUT_DIR DEB...
# OUT_DIR gets, besides dists/ and pool/ (and reprepro's conf/ and db/):
#   burst-cfs-archive-keyring.gpg  the public key the Release file is signed with
#   burst-cfs.sources              the apt source for a node (URIs: file:/srv/burst-cfs)
#   burst-packages.pref            the pin for a node (mkosi.extra's, the image's own)
#   PACKAGES                       what main holds: name, version, sha256
#   PACKAGES.previous              the same for the component previous
# A package given in several versions (the node kernel's builds: make repo
# passes all of $BURST_CACHE/node-kernel-builds) goes into the component
# main at its newest version, which apt upgrades to, and into the component
# previous at the one before, which a node rolls back to (apt-get install
# NAME=VERSION); older ones are left out, and said so. reprepro keeps one
# version of a name per component.
# The signing key is made once and kept in $BURST_CACHE/repo-gnupg, outside
# the clone (it is never committed); a new machine makes a new one.
set -euo pipefail

out=$1
shift
debs=("$@")
((${#debs[@]})) || { echo "usage: scripts/repo-build.sh OUT_DIR DEB..." >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${BURST_CACHE:-/var/cache/burst-cfs}
codename=bookworm
pin=$top/mkosi.extra/etc/apt/preferences.d/burst-packages.pref
start=$SECONDS

for tool in reprepro gpg; do
	command -v "$tool" >/dev/null || { echo "repo: $tool missing (make image-deps)" >&2; exit 1; }
done
for deb in "${debs[@]}"; do
	[[ -r $deb ]] || { echo "repo: $deb not found" >&2; exit 1; }
done

# Each name's versions, newest first (dpkg's order): the newest for main,
# the next for previous. One version given twice (the latest build is
# also among the kept ones) is one package.
main=() previous=()
while read -r name; do
	mapfile -t vers < <(for deb in "${debs[@]}"; do
		[[ $(dpkg-deb -f "$deb" Package) == "$name" ]] && printf '%s %s\n' "$(dpkg-deb -f "$deb" Version)" "$deb"
	done | sort -u -k1,1)
	for ((i = 1; i < ${#vers[@]}; i++)); do
		for ((j = i; j > 0; j--)); do
			dpkg --compare-versions "${vers[j]%% *}" gt "${vers[j - 1]%% *}" || break
			t=${vers[j]} vers[j]=${vers[j - 1]} vers[j - 1]=$t
		done
	done
	main+=("${vers[0]#* }")
	((${#vers[@]} < 2)) || previous+=("${vers[1]#* }")
	for ((i = 2; i < ${#vers[@]}; i++)); do
		echo "repo: $name ${vers[i]%% *} left out: the repository keeps the newest two builds of a package"
	done
done < <(for deb in "${debs[@]}"; do dpkg-deb -f "$deb" Package; done | sort -u)

# The signing key: ed25519, no passphrase (it signs a repository on this
# machine only), made once.
export GNUPGHOME=$cache/repo-gnupg
if [[ ! -s $GNUPGHOME/fingerprint ]]; then
	rm -rf "$GNUPGHOME"
	mkdir -p -m 700 "$GNUPGHOME"
	gpg --batch --quiet --passphrase '' --quick-gen-key \
		"burst-cfs local repository <maintainers@users.noreply.a-seed-b38bfef3.example>" ed25519 sign never 2>/dev/null
	gpg --batch --quiet --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }' >"$GNUPGHOME/fingerprint"
	echo "repo: made the signing key $(cat "$GNUPGHOME/fingerprint") in $GNUPGHOME"
fi
fpr=$(cat "$GNUPGHOME/fingerprint")

# From scratch every time: our packages keep their version across rebuilds
# (+burst1), and reprepro refuses a second file under a known version.
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp/conf"
cat >"$tmp/conf/distributions" <<EOF
Origin: burst-cfs
Label: burst-cfs
Suite: $codename
Codename: $codename
Architectures: amd64
Components: main previous
Description: burst-cfs: our kernel, crun and podman with CPU burst, for Debian 12
SignWith: $fpr
EOF
reprepro --silent -b "$tmp" -C main includedeb "$codename" "${main[@]}"
((${#previous[@]} == 0)) || reprepro --silent -b "$tmp" -C previous includedeb "$codename" "${previous[@]}"
gpg --batch --quiet --export "$fpr" 2>/dev/null >"$tmp/burst-cfs-archive-keyring.gpg"
cat >"$tmp/burst-cfs.sources" <<EOF
# burst-cfs: our kernel, crun and podman (docs/install.md). The repository
# copied to /srv/burst-cfs; for one served over HTTP, change URIs. The
# component previous holds the build before each of main's, to roll back to.
Types: deb
URIs: file:/srv/burst-cfs
Suites: $codename
Components: main previous
Signed-By: /usr/share/keyrings/burst-cfs-archive-keyring.gpg
EOF
cp "$pin" "$tmp/burst-packages.pref"
index() {
	local deb
	for deb in "$@"; do
		printf '%s %s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)" "$(sha256sum <"$deb" | cut -d' ' -f1)"
	done | sort
}
index "${main[@]}" >"$tmp/PACKAGES"
index "${previous[@]}" >"$tmp/PACKAGES.previous"

# Read it back as a node would: apt, with only this source and the pin,
# must verify the signature, pick our packages as candidates and hold
# crun and podman at the pin's priority.
apt_root=$(mktemp -d)
trap 'rm -rf "$apt_root"' EXIT
mkdir -p "$apt_root"/{lists/partial,cache/archives/partial,etc/preferences.d,etc/sources.list.d}
sed "s,file:/srv/burst-cfs,file:$(realpath "$tmp"),; s,/usr/share/keyrings/,$(realpath "$tmp")/," \
	"$tmp/burst-cfs.sources" >"$apt_root/etc/sources.list.d/burst-cfs.sources"
cp "$tmp/burst-packages.pref" "$apt_root/etc/preferences.d/"
apt_iso=(-o Dir::Etc="$apt_root/etc" -o Dir::Etc::sourcelist=- -o Dir::State::Lists="$apt_root/lists"
	-o Dir::Cache="$apt_root/cache" -o Dir::State::status=/dev/null -o APT::Sandbox::User=root)
if ! apt-get "${apt_iso[@]}" -q update >"$apt_root/update.log" 2>&1 || grep -qE '^(W|E):' "$apt_root/update.log"; then
	echo "repo: apt cannot read the repository:" >&2
	sed 's/^/    /' "$apt_root/update.log" >&2
	exit 1
fi
# The packages the pin names must be held at its priority: a candidate alone
# proves nothing while ours sort above Debian's anyway.
pinned=" $(sed -n 's/^Package: *//p' "$tmp/burst-packages.pref") "
while read -r name version _; do
	policy=$(apt-cache "${apt_iso[@]}" policy "$name")
	cand=$(sed -n 's/^ *Candidate: //p' <<<"$policy")
	[[ $cand == "$version" ]] || { echo "repo: apt's candidate for $name is '$cand', not $version" >&2; exit 1; }
	[[ $pinned == *" $name "* ]] || continue
	grep -qE "^ *(\*\*\* )?$(sed 's/[.+]/\\&/g' <<<"$version") 1001$" <<<"$policy" ||
		{ echo "repo: $name $version is not pinned at 1001 by burst-packages.pref:" >&2; sed 's/^/    /' <<<"$policy" >&2; exit 1; }
done <"$tmp/PACKAGES"
# And the builds before them, which a rollback names by version.
while read -r name version _; do
	policy=$(apt-cache "${apt_iso[@]}" policy "$name")
	grep -qE "^ *(\*\*\* )?$(sed 's/[.+]/\\&/g' <<<"$version") " <<<"$policy" ||
		{ echo "repo: apt does not see $name $version in the component previous:" >&2; sed 's/^/    /' <<<"$policy" >&2; exit 1; }
done <"$tmp/PACKAGES.previous"

rm -rf "$out"
mv "$tmp" "$out"
echo "repo: $out, signed by $fpr, in $((SECONDS - start)) s (reprepro -b $out list $codename):"
reprepro -b "$out" list "$codename" | sed 's/^/repo:   /'
