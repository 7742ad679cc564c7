#!/usr/bin/env bash
# Write the prepared tree's commits since the base back to kernel-patches/
# (one "git format-patch" file per commit in the folder of its group, plus
# the series file). Cover letters are written by hand and left alone.
#
# The output depends only on the commits: a tree made by prepare and
# exported without edits gives byte-identical patches.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ -d "$TREE/.git" ] || die "no prepared tree at $TREE: run 'make prepare'"
require_tools_tree "$TREE"
if [ -n "$(git -C "$TREE" status --porcelain --ignored)" ]; then
	git -C "$TREE" status --short --ignored | head -n 20 >&2
	die "the tree has uncommitted or ignored files; commit them (git add -f for ignored ones) first"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_to "$tmp"

rm -f "$PATCH_DIR"/*.patch
for g in $(group_names); do
	mkdir -p "$PATCH_DIR/$g"
	rm -f "$PATCH_DIR/$g"/*.patch
	cp "$tmp/$g"/*.patch "$PATCH_DIR/$g"/ 2>/dev/null || true
done
{
	echo "# Applied in this order on top of the base named in BASE; the groups"
	echo "# (the folders) are listed in kernel-patches/groups."
	cat "$tmp/series"
} >"$SERIES"
series_digest "$tmp" >"$(sync_stamp)"
info "exported $(wc -l <"$tmp/series") patches to kernel-patches/"
git -C "$TOP" status --short -- kernel-patches
