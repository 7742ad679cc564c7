#!/usr/bin/env bash
# Write each group of the series as a set ready for git send-email, in
# build/send/GROUP/: a cover letter (0000-cover-letter.patch, its subject
# and text from kernel-patches/GROUP/cover-letter) and the group's patches,
# numbered within the group, with the group's subject prefix
# ("[PATCH net 1/6]"). The tree must be in step with kernel-patches/.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
require_tools_tree "$TREE"

OUT="$TOP/build/send"
"$TOP/tools/tree/status.sh" >/dev/null || die "the tree is not in step with kernel-patches/ (make status)"
rm -rf "$OUT"

# fill_cover FILE LETTER: put the letter's subject (first line) and body
# (after the blank line) in place of git's placeholders.
fill_cover() {
	local file=$1 letter=$2 subject
	subject=$(head -n 1 "$letter")
	tail -n +3 "$letter" >"$file.body"
	awk -v subject="$subject" -v body="$file.body" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline line < body) > 0) print line; next }
		{ print }
	' "$file" >"$file.new"
	mv "$file.new" "$file"
	rm -f "$file.body"
}

while read -r g from to; do
	letter="$PATCH_DIR/$g/cover-letter"
	[ -f "$letter" ] || die "no cover letter for group $g ($letter)"
	[ "$from" != "$to" ] || continue
	tree_git format-patch --quiet --cover-letter --thread=shallow \
		--subject-prefix="$(group_prefix "$g")" --no-signature \
		--diff-algorithm=myers -o "$OUT/$g" "$from..$to" >/dev/null
	fill_cover "$OUT/$g/0000-cover-letter.patch" "$letter"
	info "$g: $(find "$OUT/$g" -name '*.patch' | wc -l) files in build/send/$g/"
done < <(group_ranges)
