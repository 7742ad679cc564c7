# Shared settings for the tools/ scripts. Sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PATCH_DIR="$TOP/kernel-patches"
SERIES="$PATCH_DIR/series"
BASE_FILE="$PATCH_DIR/BASE"
TREE="${TREE:-$TOP/build/linux}"
BASE_TAG=base

# One role identity for every commit of the series, so that commits made
# by prepare are reproducible on any machine.
BRANCH_NAME="Multipath and ioprio branch maintainers"
BRANCH_EMAIL="branch-maintainers@mphash-ioprio.invalid"

die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
info() { printf '%s: %s\n' "${0##*/}" "$*"; }

# base_field KEY: a value from kernel-patches/BASE ("key=value" lines).
base_field() { sed -n "s/^$1=//p" "$BASE_FILE"; }

# tree_git ARGS...: git in the prepared tree with the branch identity and
# commit dates pinned to author dates, so re-applying gives the same ids.
tree_git() {
	GIT_AUTHOR_NAME="$BRANCH_NAME" GIT_AUTHOR_EMAIL="$BRANCH_EMAIL" \
	GIT_COMMITTER_NAME="$BRANCH_NAME" GIT_COMMITTER_EMAIL="$BRANCH_EMAIL" \
		git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c diff.renames=false \
		-c format.signature= -c commit.gpgsign=false "$@"
}

# series_patches: the patch file names listed in series, in order.
series_patches() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}

# export_to DIR: format the tree's commits since the base into DIR, with a
# series file. Output depends only on the commits, not on local git config.
export_to() {
	local out=$1 f
	mkdir -p "$out"
	tree_git format-patch --quiet --zero-commit --no-signature \
		--no-numbered --diff-algorithm=myers \
		-o "$out" "$BASE_TAG..HEAD" >/dev/null
	: >"$out/series"
	for f in "$out"/*.patch; do
		if [ -e "$f" ]; then printf '%s\n' "${f##*/}" >>"$out/series"; fi
	done
}

# series_digest DIR: one hash over the patch names a series file lists
# (comments aside) and the patches' contents.
series_digest() {
	local dir=$1 p
	SERIES="$dir/series" series_patches | while read -r p; do
		printf '%s\n' "$p"
		cat "$dir/$p"
	done | sha256sum | cut -d' ' -f1
}

SYNC_STAMP_NAME=patchq-synced
sync_stamp() { printf '%s/.git/%s' "$TREE" "$SYNC_STAMP_NAME"; }

# counts LINE: "P F" from a "... P passed, F failed ..." line; "0 1" (one
# failure) when the line has no counts, e.g. a tool that died early.
counts() {
	local pf
	pf=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' <<<"$1")
	echo "${pf:-0 1}"
}
