#!/usr/bin/env bash
# Run the tree's scripts/checkpatch.pl --strict on every patch of the series
# (or on the patches named as arguments) and check each Fixes: tag against
# kernel-patches/upstream-ids. Prints one line per patch and a count.
#
# Two checks are answered here instead of by checkpatch.pl: UNKNOWN_COMMIT_ID,
# because the Debian tree has no upstream history to look ids up in (the
# ids are checked against kernel-patches/upstream-ids), and
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?"), which it asks of
# every patch that adds a file: every added file must have a maintainer in
# the tree's MAINTAINERS (scripts/get_maintainer.pl), so no entry is
# needed.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ -x "$TREE/scripts/checkpatch.pl" ] || die "no prepared tree at $TREE: run 'make prepare'"
IDS="$PATCH_DIR/upstream-ids"
# checkpatch.pl runs scripts/spdxcheck.py with "env python3"; it needs the
# python3-ply and python3-git that setup installs for Debian's python3.
export PATH="/usr/bin:$PATH"

# check_fixes PATCH: every "Fixes: <id> ("<subject>")" names a known commit.
check_fixes() {
	local line id subject known ok=0
	while IFS= read -r line; do
		id=$(sed -E 's/^Fixes: ([0-9a-f]+) .*/\1/' <<<"$line")
		subject=$(sed -E 's/^Fixes: [0-9a-f]+ \("(.*)"\)$/\1/' <<<"$line")
		known=$(sed -n "s/^$id //p" "$IDS")
		if [ "${#id}" -ne 12 ] || [ -z "$known" ] || [ "$known" != "$subject" ]; then
			echo "    bad tag (unknown id, wrong length or subject): $line"
			ok=1
		fi
	done < <(grep '^Fixes: ' "$1" || true)
	return "$ok"
}

# check_new_files PATCH: every file PATCH adds has a maintainer (not only
# THE REST's list) in the prepared tree's MAINTAINERS.
check_new_files() {
	local file ok=0
	while read -r file; do
		if ! (cd "$TREE" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
			--no-rolestats -f "$file" 2>/dev/null) | grep -qv '^linux-kernel@vger.kernel.org$'; then
			echo "    no maintainer in MAINTAINERS for new file $file"
			ok=1
		fi
	done < <(awk '/^diff --git / { path = $4; sub(/^b\//, "", path) }
		/^new file mode / { print path }' "$1")
	return "$ok"
}

if [ "$#" -gt 0 ]; then
	# checkpatch.pl runs in the tree: a relative path is made absolute.
	patches=()
	for p in "$@"; do
		[ -f "$p" ] || die "no patch file $p"
		patches+=("$(cd "$(dirname "$p")" && pwd)/$(basename "$p")")
	done
else
	mapfile -t patches < <(series_patches | sed "s|^|$PATCH_DIR/|")
fi

passed=0 failed=0
for p in "${patches[@]}"; do
	out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --no-color \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$p" 2>&1) && cp_ok=1 || cp_ok=0
	fixes=$(check_fixes "$p") && fx_ok=1 || fx_ok=0
	files=$(check_new_files "$p") && nf_ok=1 || nf_ok=0
	if [ "$cp_ok" = 1 ] && [ "$fx_ok" = 1 ] && [ "$nf_ok" = 1 ] &&
		! grep -qE '^(WARNING|CHECK|ERROR)|^Traceback' <<<"$out"; then
		echo "ok   ${p#"$PATCH_DIR"/}"
		passed=$((passed + 1))
	else
		echo "FAIL ${p#"$PATCH_DIR"/}"
		grep -E -A3 '^(WARNING|CHECK|ERROR)|^Traceback' <<<"$out" | sed 's/^/    /' || true
		[ -n "$fixes" ] && echo "$fixes"
		[ -n "$files" ] && echo "$files"
		failed=$((failed + 1))
	fi
done
echo "checkpatch: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
