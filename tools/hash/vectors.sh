#!/usr/bin/env bash
# The golden multipath hash vectors of the kernel's golden KUnit suite.
#
#   tools/hash/vectors.sh --check   the table in the prepared tree equals what
#                              the model (tools/hash/mphash) generates now
#   tools/hash/vectors.sh --write   regenerate the table in the prepared tree
#                              (then commit there and "make export")
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
require_tools_tree "$TREE"

FILE="$TREE/net/ipv4/tests/multipath_hash_golden_kunit.c"
BEGIN='/* BEGIN GOLDEN VECTORS */'
END='/* END GOLDEN VECTORS */'

[ -f "$FILE" ] || die "$FILE is missing: run 'make prepare'"
make -s -C "$TOP/tools/hash/mphash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/tools/hash/mphash/mphash-vectors" >"$tmp/model"
awk -v b="$BEGIN" -v e="$END" '$0 == e { inside = 0 } inside { print } $0 == b { inside = 1 }' \
	"$FILE" >"$tmp/tree"

case "${1:-}" in
--check)
	if diff -u "$tmp/tree" "$tmp/model" >"$tmp/diff"; then
		info "the golden table ($(grep -c 'GV(' "$tmp/model") vectors) equals the model's output"
		echo "vectors: 1 passed, 0 failed"
	else
		head -n 40 "$tmp/diff"
		info "the golden table differs from the model's output (tools/hash/vectors.sh --write)"
		echo "vectors: 0 passed, 1 failed"
		exit 1
	fi
	;;
--write)
	awk -v b="$BEGIN" -v e="$END" -v gen="$tmp/model" '
		$0 == e { inside = 0 }
		!inside { print }
		$0 == b { inside = 1; while ((getline line < gen) > 0) print line }
	' "$FILE" >"$tmp/new"
	cp "$tmp/new" "$FILE"
	info "wrote $(grep -c 'GV(' "$tmp/model") vectors into ${FILE#"$TOP"/}"
	;;
*)
	die "usage: tools/hash/vectors.sh --check | --write"
	;;
esac
