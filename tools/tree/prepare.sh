#!/usr/bin/env bash
# Unpack the Debian kernel tarball into build/linux, make it a git repo with
# the base tagged, and apply kernel-patches/series one commit per patch,
# marking the end of each group of the series with a branch group/NAME.
#
# Safe to re-run: a tree already in step with the series is left alone (so
# incremental builds stay incremental); a tree behind the series gets the
# missing patches; an interrupted unpack or "git am" is cleaned up. A tree
# holding work that is not exported is never touched: prepare stops with
# an error, or, with --keep-work (what the targets that build and run the
# tree use), says so and leaves it as it is, to be built as it is. A
# folder the tools did not make (tools/lib.sh, require_tools_tree) is
# refused either way.
#
#   tools/tree/prepare.sh [--keep-work]
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

keep_work=0
case "${1:-}" in
"") ;;
--keep-work) keep_work=1 ;;
*) die "usage: tools/tree/prepare.sh [--keep-work]" ;;
esac

TARBALL=$(base_field tarball)
BASE_DATE="2000-01-01T00:00:00Z"

check_base_version() {
	local want have
	want=$(base_field version)
	have=$(dpkg-query -W -f='${Version}' "$(base_field package)" 2>/dev/null || true)
	[ -f "$TARBALL" ] || die "$TARBALL is missing: run 'make setup'"
	if [ "$have" != "$want" ]; then
		warn "installed $(base_field package) is '${have:-unknown}'," \
			"the series was recorded against '$want' (kernel-patches/BASE)"
	fi
}

# Debian's top-level .gitignore ends with a packaging stanza ("/*") that
# ignores every top-level path, which would hide new files from "git add".
drop_debian_ignore_stanza() {
	sed -i '/^# Debian packaging: ignore everything/,$d' "$1/.gitignore"
	sed -i '${/^#$/d}' "$1/.gitignore"
}

# Unpack into a scratch folder and rename it into place only when the base
# commit exists, so an interrupted unpack never leaves a half tree behind.
create_base_tree() {
	local tmp="$TREE.partial"
	# A tree that exists without its base tag is not one prepare left
	# half made (it unpacks into $tmp and renames it only when complete).
	[ ! -e "$TREE" ] ||
		die "$TREE exists but has no '$BASE_TAG' tag, so it is not a tree prepare made; move it away (or delete it yourself) and run 'make prepare' again"
	require_tools_tree "$tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	git -C "$tmp" init -q -b master
	mark_made_by_tools "$tmp"
	info "unpacking $TARBALL"
	tar -xJf "$TARBALL" -C "$tmp" --strip-components=1
	drop_debian_ignore_stanza "$tmp"
	TREE=$tmp tree_git add -A -f
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE TREE=$tmp \
		tree_git commit -q -m "$(base_field package) $(base_field version)" \
		-m "Pristine Debian source, minus the packaging stanza of the
top-level .gitignore that ignores every top-level path."
	TREE=$tmp tree_git tag "$BASE_TAG"
	mv "$tmp" "$TREE"
	record_sync
}

tree_is_complete() {
	[ -d "$TREE/.git" ] && git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null
}

record_sync() {
	local tmp
	tmp=$(mktemp -d)
	export_to "$tmp"
	series_digest "$tmp" >"$(sync_stamp)"
	rm -rf "$tmp"
}

# is_prefix_of_series DIR: the patches in DIR are the first patches of the
# series, byte for byte.
is_prefix_of_series() {
	local dir=$1 i=0 p mine
	mapfile -t mine < "$dir/series"
	while read -r p; do
		[ "$i" -lt "${#mine[@]}" ] || break
		[ "$p" = "${mine[$i]}" ] && cmp -s "$dir/$p" "$PATCH_DIR/$p" || return 1
		i=$((i + 1))
	done < <(series_patches)
	[ "$i" -eq "${#mine[@]}" ]
}

# A "git am" of prepare's own is marked, so that only that one is ever
# aborted when a run was interrupted.
AM_MARK_NAME=patchq-am
am_mark() { printf '%s/.git/%s' "$TREE" "$AM_MARK_NAME"; }

apply_patch() {
	local p=$1
	: >"$(am_mark)"
	if ! tree_git am -q --committer-date-is-author-date "$PATCH_DIR/$p"; then
		tree_git am --abort || true
		rm -f "$(am_mark)"
		die "patch $p does not apply; the tree is left at the last good commit: $(git -C "$TREE" log -1 --format='%h %s')"
	fi
	rm -f "$(am_mark)"
	record_sync
}

# work_in_progress WHAT: the tree holds work of the developer's that prepare
# must not touch: with --keep-work say so and build it as it is, else stop.
work_in_progress() {
	if [ "$keep_work" = 1 ]; then
		info "using the tree as it is: $1 ('make status' says more; 'make prepare' would stop here)"
		exit 0
	fi
	die "$TREE: $1; prepare leaves it alone ('make status' says more)"
}

# mark_group_end PATCH NEXT: after the last patch of a group (the next patch
# is in another group, or there is none), point the group's branch at HEAD;
# the last group ends at HEAD and has none.
mark_group_end() {
	local group=${1%%/*} next=$2
	[ "${next%%/*}" != "$group" ] || return 0
	[ "$group" != "$(group_names | tail -n 1)" ] || return 0
	git -C "$TREE" update-ref "$(group_ref "$group")" HEAD
}

drop_group_refs() {
	local g
	for g in $(group_names); do
		git -C "$TREE" update-ref -d "$(group_ref "$g")"
	done
}

sync_tree_with_series() {
	local applied n patches
	# Commits inserted with "git rebase -i" move the group branches along.
	git -C "$TREE" config rebase.updateRefs true
	# Commits made by hand in the tree (and their Signed-off-by) carry the
	# branch identity, not whatever the machine's global git config says.
	git -C "$TREE" config user.name "$BRANCH_NAME"
	git -C "$TREE" config user.email "$BRANCH_EMAIL"
	if [ -d "$TREE/.git/rebase-apply" ] && [ -f "$(am_mark)" ]; then
		warn "an interrupted 'git am' of prepare's own was found; aborting it"
		tree_git am --abort
		rm -f "$(am_mark)"
	fi
	if [ -d "$TREE/.git/rebase-apply" ] || [ -d "$TREE/.git/rebase-merge" ]; then
		work_in_progress "a 'git am' or 'git rebase' of yours is in progress"
	fi
	git -C "$TREE" symbolic-ref -q HEAD >/dev/null ||
		work_in_progress "its HEAD is detached (not on a branch)"
	if [ -n "$(git -C "$TREE" status --porcelain)" ]; then
		[ "$keep_work" = 1 ] || git -C "$TREE" status --short | head -n 20 >&2
		work_in_progress "it has uncommitted changes, which the build takes (commit and 'make export' to keep them)"
	fi
	# Global: work_in_progress may end the script before this returns.
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	export_to "$tmp"
	if [ "$(series_digest "$tmp")" = "$(series_digest "$PATCH_DIR")" ]; then
		info "tree is in step with the series ($(series_patches | wc -l) patches)"
		record_sync
		return
	fi
	# Only a tree as prepare left it (the stamp it wrote after its last
	# patch) is brought in step; any other holds work of the developer's.
	[ "$(series_digest "$tmp")" = "$(cat "$(sync_stamp)" 2>/dev/null)" ] ||
		work_in_progress "it holds commits that differ from kernel-patches/ ('make export' writes them there)"
	if is_prefix_of_series "$tmp"; then
		applied=$(wc -l <"$tmp/series")
	else
		[ "$keep_work" = 0 ] ||
			work_in_progress "kernel-patches/ changed since the tree was last in step with it ('make prepare' brings it in step)"
		# Kept under a ref, in case kernel-patches/ lost what the
		# tree had (a checkout of an older kernel-patches/, say).
		git -C "$TREE" update-ref refs/patchq/before-resync HEAD
		info "the series changed since the tree was synced; re-applying from $BASE_TAG" \
			"(the tree's commits before: refs/patchq/before-resync)"
		tree_git reset -q --hard "$BASE_TAG"
		drop_group_refs
		applied=0
	fi
	mapfile -t patches < <(series_patches)
	for n in "${!patches[@]}"; do
		[ "$n" -lt "$applied" ] && continue
		info "applying ${patches[$n]}"
		apply_patch "${patches[$n]}"
		mark_group_end "${patches[$n]}" "${patches[$((n + 1))]:-}"
	done
	info "tree at $(git -C "$TREE" log -1 --format='%h %s')"
}

require_tools_tree "$TREE"
check_base_version
if ! tree_is_complete; then
	create_base_tree
fi
# A tree made before the marker existed is known by its sync stamp.
[ -f "$TREE/.git/$MADE_BY_NAME" ] || mark_made_by_tools "$TREE"
sync_tree_with_series
