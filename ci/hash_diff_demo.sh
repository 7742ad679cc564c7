#!/usr/bin/env bash
# Prove tools/hash/hash_diff.sh on a history that is not this series'.
#
# In a repository of its own (build/hash-diff-demo/repo, a clone of the
# prepared tree sharing its objects), on the stock base with only the um
# group (so that User Mode Linux boots on any x86_64 host), four commits:
# a documentation change, one that moves IPv6 policy 2 flows only (the
# inner IPv6 flow label left out of the policy 2 keys), a comment change,
# and one that moves IPv4 policy 1 locally generated flows only (the
# source port left out of the policy 1 flow key). Then:
#  - hash_diff.sh GOOD=base+um BAD=tip must name the IPv6 commit and report
#    moves under "v6 p2/" and nowhere else;
#  - hash_diff.sh --each over the same range must report no move for the
#    two harmless commits, "v6 p2/" only for the first hash change and
#    "v4 p1/0x0000 key" only for the second.
# Steps run as User Mode Linux (HASH_DIFF_ARCH=um). Ends with
# "hash-diff-demo: N passed, N failed" (one per check).
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"

DATE="2001-01-01T00:00:00Z"
DEMO="$TOP/build/hash-diff-demo"
REPO="$DEMO/repo"

[ -d "$TREE/.git" ] || die "no prepared tree: run 'make prepare'"
um_end=$(git -C "$TREE" rev-parse -q --verify "$(group_ref um)") ||
	die "the prepared tree has no group/um branch"
rm -rf "$DEMO"
mkdir -p "$DEMO"
git clone -q --shared --no-checkout "$TREE" "$REPO"
git -C "$REPO" checkout -q -b demo "$um_end"

# demo_commit FILE SED-EXPRESSION SUBJECT: one deterministic commit; prints its id.
demo_commit() {
	sed -i "$2" "$REPO/$1"
	! git -C "$REPO" diff --quiet || die "demo edit to $1 changed nothing"
	GIT_AUTHOR_DATE=$DATE GIT_COMMITTER_DATE=$DATE TREE=$REPO \
		tree_git commit -q -a -m "$3"
	git -C "$REPO" rev-parse HEAD
}

harmless1=$(demo_commit Documentation/networking/ip-sysctl.rst \
	'0,/^fib_multipath_hash_seed - UNSIGNED INTEGER/s//fib_multipath_hash_seed - UNSIGNED INTEGER /' \
	"demo: harmless documentation change")
v6p2=$(demo_commit net/ipv6/route.c \
	'/^u32 rt6_multipath_hash(/,/^}/s/^\(\t*\)hash_keys.tags.flow_label = flkeys->tags.flow_label;/\1hash_keys.tags.flow_label = 0;/' \
	"demo: leave the inner flow label out of the IPv6 policy 2 hash")
harmless2=$(demo_commit net/ipv4/route.c \
	's|^/\* To make ICMP packets follow the right flow, the multipath hash is$|/* To make ICMP packets follow the right flow, the multipath hash is  |' \
	"demo: harmless comment change in route.c")
v4p1=$(demo_commit net/ipv4/route.c \
	'/^int fib_multipath_hash(/,/^}/s/^\(\t*\)hash_keys.ports.src = fl4->fl4_sport;/\1hash_keys.ports.src = 0;/' \
	"demo: leave the source port out of the IPv4 policy 1 flow key")

passed=0 failed=0
check() {
	if eval "$2"; then
		echo "ok: $1"
		passed=$((passed + 1))
	else
		echo "FAILED: $1"
		failed=$((failed + 1))
	fi
}

# As the README gives the command.
export HASH_DIFF_ARCH=um
bisect=$(make -s -C "$TOP" hash-diff TREE_UNDER_TEST="$REPO" GOOD="$um_end" BAD=demo 2>&1) || true
printf '%s\n' "$bisect"
found=$(sed -n 's/^first commit that moves flows: \([0-9a-f]*\) .*/\1/p' <<<"$bisect")
moves=$(grep -E '^    v[46] ' <<<"$bisect" || true)
check "bisect names the IPv6 policy 2 commit" '[ "$found" = "$v6p2" ]'
check "its moves are all IPv6 policy 2 forwarded packets" \
	'[ -n "$moves" ] && ! grep -qvE "^    v6 p2/0x0000 (pkt|rul): " <<<"$moves"'

each=$(make -s -C "$TOP" hash-diff TREE_UNDER_TEST="$REPO" GOOD="$um_end" BAD=demo EACH=1 2>&1) || true
printf '%s\n' "$each"
# rows COMMIT: the row of COMMIT and the move lines under it.
rows() { awk -v c="${1:0:12}" '/^[0-9a-f]{12} / { on = ($1 == c) } on' <<<"$each"; }
check "the documentation change moves nothing" 'rows "$harmless1" | grep -q ": no flow moved$"'
check "the comment change moves nothing" 'rows "$harmless2" | grep -q ": no flow moved$"'
check "the IPv6 commit moves IPv6 policy 2 only" \
	'[ "$(rows "$v6p2" | grep -c "^    ")" -gt 0 ] && ! rows "$v6p2" | grep "^    " | grep -qv "^    v6 p2/"'
check "the IPv4 commit moves IPv4 policy 1 flow keys only" \
	'[ "$(rows "$v4p1" | grep -c "^    ")" -gt 0 ] && ! rows "$v4p1" | grep "^    " | grep -qv "^    v4 p1/0x0000 key: "'

echo "hash-diff-demo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
