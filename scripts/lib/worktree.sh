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
