#!/usr/bin/env bash
# Delete the prepared tree ($TREE, build/linux by default), so that the next
# "make prepare" unpacks it anew. Refuses a folder the tools did not make,
# a tree holding work that is not exported (tools/tree/status.sh), and one with
# work that status.sh does not look at: stashes, branches other than
# master and the group branches, linked worktrees.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

if [ ! -e "$TREE" ]; then
	info "no tree at $TREE: nothing to delete"
	exit 0
fi
require_tools_tree "$TREE"
"$TOP/tools/tree/status.sh" >/dev/null || {
	"$TOP/tools/tree/status.sh"
	die "the tree holds work not in kernel-patches/: 'make export' it, or discard it in the tree, first"
}
[ -z "$(git -C "$TREE" stash list)" ] || die "the tree has stashes ('git stash list'); drop them first"
others=$(git -C "$TREE" for-each-ref --format='%(refname:short)' refs/heads |
	grep -vxE 'master|group/.*' || true)
[ -z "$others" ] || die "the tree has branches of yours ($(echo $others)); delete them first"
[ "$(git -C "$TREE" worktree list --porcelain | grep -c '^worktree ')" -le 1 ] ||
	die "the tree has linked worktrees ('git worktree list'); remove them first"
rm -rf "$TREE"
info "deleted $TREE"
