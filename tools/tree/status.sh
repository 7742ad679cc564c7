#!/usr/bin/env bash
# Say whether the prepared tree holds work that kernel-patches/ does not:
# uncommitted changes, files git ignores, an unfinished "git am", or
# commits not exported. Exits 1 when it does, so nothing is lost with the
# machine; 0 when the tree is in step (or behind, or absent).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

if [ ! -d "$TREE/.git" ]; then
	info "no prepared tree at $TREE; nothing to export"
	exit 0
fi

dirty=0
if [ -d "$TREE/.git/rebase-apply" ]; then
	info "a 'git am' is in progress in the tree"
	dirty=1
fi
changes=$(git -C "$TREE" status --porcelain --ignored)
if [ -n "$changes" ]; then
	info "uncommitted changes in the tree ('!!' = ignored by git, needs git add -f):"
	printf '%s\n' "$changes" | head -n 20
	dirty=1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export_to "$tmp"
mine=$(series_digest "$tmp")
if [ "$mine" != "$(series_digest "$PATCH_DIR")" ]; then
	if [ "$mine" = "$(cat "$(sync_stamp)" 2>/dev/null)" ]; then
		info "kernel-patches/ changed since the tree was synced: run 'make prepare'"
	else
		info "commits not exported to kernel-patches/ (run 'make export'):"
		diff <(series_patches) <(SERIES=$tmp/series series_patches) |
			sed -n 's/^> /  new or changed: /p; s/^< /  only in kernel-patches: /p'
		for p in $(SERIES=$tmp/series series_patches); do
			if [ -f "$PATCH_DIR/$p" ] && ! cmp -s "$tmp/$p" "$PATCH_DIR/$p"; then
				echo "  differs: $p"
			fi
		done
		dirty=1
	fi
fi

[ "$dirty" -eq 0 ] && info "tree in step with kernel-patches/ ($(series_patches | wc -l) patches)"
exit "$dirty"
