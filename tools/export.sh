#!/usr/bin/env bash
# Write the prepared tree's commits since the base back to kernel-patches/
# (one "git format-patch" file per commit, plus the series file).
#
# The output depends only on the commits: a tree made by prepare and
# exported without edits gives byte-identical patches.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "no prepared tree at $TREE: run 'make prepare'"
if [ -n "$(git -C "$TREE" status --porcelain --ignored)" ]; then
	git -C "$TREE" status --short --ignored | head -n 20 >&2
	die "the tree has uncommitted or ignored files; commit them (git add -f for ignored ones) first"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_to "$tmp"

rm -f "$PATCH_DIR"/*.patch
cp "$tmp"/*.patch "$PATCH_DIR"/ 2>/dev/null || true
{
	echo "# Applied in this order on top of the base named in BASE."
	cat "$tmp/series"
} >"$SERIES"
series_digest "$tmp" >"$(sync_stamp)"
info "exported $(wc -l <"$tmp/series") patches to kernel-patches/"
git -C "$TOP" status --short -- kernel-patches
