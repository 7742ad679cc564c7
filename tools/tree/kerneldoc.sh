#!/usr/bin/env bash
# kernel-doc on what one commit of the prepared tree touches, as netdev's
# patch checks run it: scripts/kernel-doc -none -Wall on every .c and .h
# file the commit changes, at the commit and at its parent. A warning the
# file did not have at the parent (compared by text, line numbers left
# out) fails; warnings it had before the commit (Debian's tree has some,
# e.g. include/net/flow_dissector.h) are not listed.
#
#   tools/tree/kerneldoc.sh COMMIT
#
# Reads files from git objects only, so it runs beside a build of any
# checkout. Ends with "kernel-doc: N new warnings in N files".
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
require_tools_tree "$TREE"

commit=${1:?usage: tools/tree/kerneldoc.sh COMMIT}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# warnings REV PATH: kernel-doc's warnings for PATH at REV (none when the
# file does not exist there), file names and line numbers left out so
# that the two revisions' lists compare.
warnings() {
	local file="$tmp/$(basename "$2")"
	git -C "$TREE" show "$1:$2" >"$file" 2>/dev/null || return 0
	perl "$TREE/scripts/kernel-doc" -none -Wall "$file" 2>&1 |
		sed -E 's/^[^:]*:[0-9]+: //' | sort
}

new=0 files=0
while read -r path; do
	before=$(warnings "$commit^" "$path")
	after=$(warnings "$commit" "$path")
	added=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed '/^$/d')
	[ -n "$added" ] || continue
	files=$((files + 1))
	new=$((new + $(printf '%s\n' "$added" | wc -l)))
	printf '%s:\n' "$path"
	printf '%s\n' "$added" | sed 's/^/    /'
done < <(git -C "$TREE" diff-tree --no-commit-id --name-only -r "$commit" -- '*.c' '*.h')
echo "kernel-doc: $new new warnings in $files files"
[ "$new" -eq 0 ]
