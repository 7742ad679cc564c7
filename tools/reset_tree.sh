#!/usr/bin/env bash
# Delete the prepared tree ($TREE, build/linux by default), so that the next
# "make prepare" unpacks it anew. Refuses a folder the tools did not make
# and a tree holding work that is not exported (tools/status.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

if [ ! -e "$TREE" ]; then
	info "no tree at $TREE: nothing to delete"
	exit 0
fi
require_tools_tree "$TREE"
"$TOP/tools/status.sh" >/dev/null || {
	"$TOP/tools/status.sh"
	die "the tree holds work not in kernel-patches/: 'make export' it, or discard it in the tree, first"
}
rm -rf "$TREE"
info "deleted $TREE"
