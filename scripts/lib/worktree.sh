# kernel_worktree SRC TREE: make TREE a git worktree of the kernel tree SRC
# (scripts/kernel-tree.sh: Debian's source at the 'pristine' commit, the
# series on top), detached at pristine, unless TREE already is a working
# one, which is left at its commit. A worktree whose repository was made
# again (a new tarball), or a directory left by an interrupted removal, is
# made again. Shared by the scripts that build the tree at other commits
# than its HEAD: the mainline comparator, every prefix of the series,
# every patch alone.
# Sourced; kept out of scripts/lib/kbuild.sh, whose text keys the kernel
# cache, so that a change here rebuilds no kernel.
# shellcheck shell=bash

kernel_worktree() {
	local src=$1 tree=$2
	git -C "$src" rev-parse -q --verify 'pristine^{commit}' >/dev/null || {
		echo "kernel_worktree: $src has no 'pristine' commit (scripts/kernel-tree.sh makes it)" >&2
		return 1
	}
	# Its own top level, in the repository of src: not merely inside some
	# other repository (build/ is inside the clone's), nor orphaned.
	if [[ -d $tree && $(git -C "$tree" rev-parse --show-toplevel 2>/dev/null) == "$(realpath "$tree")" &&
		$(git -C "$tree" rev-parse --git-common-dir 2>/dev/null) -ef $(git -C "$src" rev-parse --git-common-dir) ]]; then
		return 0
	fi
	rm -rf "$tree"
	git -C "$src" worktree prune
	mkdir -p "$(dirname "$tree")"
	git -C "$src" -c advice.detachedHead=false worktree add -q --detach "$tree" pristine
}

# worktree_at_series_plus SRC TREE DIFF MESSAGE: TREE (a kernel_worktree of
# SRC) at SRC's HEAD, the whole series, with DIFF applied and committed as
# MESSAGE. The commit gets the series' date, so the same diff gives the same
# commit, tree and cached kernel in every clone. Used by the builds of one
# deliberate change on top of the series: the teeth and the slowed kernel.
worktree_at_series_plus() {
	local src=$1 tree=$2 diff=$3 message=$4 date
	local git=(git -C "$tree" -c advice.detachedHead=false -c user.name=burst-cfs-build
		-c user.email=build@localhost)
	date=$(git -C "$src" log -1 --format=%cD HEAD)
	"${git[@]}" reset -q --hard
	"${git[@]}" clean -q -fdx
	"${git[@]}" checkout -q --detach "$(git -C "$src" rev-parse HEAD)"
	"${git[@]}" apply "$diff"
	GIT_COMMITTER_DATE=$date GIT_AUTHOR_DATE=$date "${git[@]}" commit -q -a -m "$message"
}
