# The node kernel's package version and its series stamp, from this
# repository (sourced by scripts/lib/node-kernel.sh; tests/host tests it on
# a repository of its own). Functions take the repository's top directory:
#   node_series_files TOP     what the node kernel runs of ours, in order:
#                             kernel/series, its patches, kernel/config/node.config
#   node_recipe_files         the scripts that build and package it
#   node_series_revision TOP  N: how many commits changed those files or the
#                             recipe, on HEAD's history; it grows with every
#                             change to what a node runs (and to how its
#                             packages are made: the repository keeps earlier
#                             builds, and one version must name one content),
#                             so the package version
#                             LINUX_SOURCE_VERSION+burstN sorts above every
#                             earlier build on the same linux-source, above
#                             Debian's LINUX_SOURCE_VERSION and below any
#                             later Debian version (tests/host/test-node-version.sh)
#   node_series_hash TOP      12 hex digits of their content: two builds
#                             that say the same N run the same series
#                             (uname -v: "#3+burst27 SMP PREEMPT_DYNAMIC series HASH")
# A tree with uncommitted changes to those files counts as the next commit
# (N + 1) and says so on stderr: its hash tells it from whatever becomes
# that commit.
# shellcheck shell=bash

node_series_files() {
	local top=$1 p
	echo kernel/series
	while read -r p _; do
		[[ -z $p || $p == \#* ]] || echo "kernel/$p"
	done <"$top/kernel/series"
	echo kernel/config/node.config
}

node_recipe_files() {
	printf '%s\n' scripts/node-kernel.sh scripts/node-kernel-config.sh scripts/node-kernel-meta.sh \
		scripts/lib/node-kernel.sh scripts/lib/node-version.sh
}

node_series_revision() {
	local top=$1 n files
	mapfile -t files < <(node_series_files "$top"; node_recipe_files)
	[[ $(git -C "$top" rev-parse --is-shallow-repository) == false ]] ||
		{ echo "node-kernel: $top is a shallow clone: the series' revision counts its commits (git fetch --unshallow)" >&2; return 1; }
	n=$(git -C "$top" rev-list --count HEAD -- "${files[@]}")
	if [[ -n $(git -C "$top" status --porcelain --untracked-files=no -- "${files[@]}") ]]; then
		n=$((n + 1))
		echo "node-kernel: uncommitted changes to the series, node.config or the packaging: revision $n, as the next commit will be" >&2
	fi
	echo "$n"
}

node_series_hash() {
	local top=$1 f
	while read -r f; do
		echo "== $f"
		cat "$top/$f"
	done < <(node_series_files "$top") | sha256sum | cut -c1-12
}
