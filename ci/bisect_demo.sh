#!/usr/bin/env bash
# Prove tools/bisect.sh finds the commit that changes the multipath hash.
#
# Builds a small synthetic history on a branch "patchq-bisect-demo" of the
# prepared tree, on top of the end of the net-next group (the last commit
# that changes hashes: earlier ones differ from the golden vectors) with
# the golden suite patch of the branch group picked onto it. Two harmless
# commits, one that changes the custom policy's hash (the initval of the
# jhash_2words() that combines the outer and inner hashes when only outer
# fields are selected), two more harmless ones. Bisects start..tip and
# checks the tool names exactly the hash-changing commit, then returns the
# tree to its branch.
#
# The steps run as User Mode Linux in the folder and with the config of
# the per-commit check (ci/percommit.sh: build/kunit-um, .kunitconfig and
# the UML guest's fragments), so that each step rebuilds only what the demo
# history changed since that check's last commit.
set -euo pipefail
. "$(dirname "$0")/../tools/lib.sh"
require_tools_tree "$TREE"

DATE="2001-01-01T00:00:00Z"
# A name of the tools' own, so that no branch of a developer's is reused.
DEMO_BRANCH=patchq-bisect-demo

[ -d "$TREE/.git" ] || die "no prepared tree: run 'make prepare'"
"$TOP/tools/status.sh" >/dev/null || die "the tree is not in step with kernel-patches/ (make status)"
branch=$(git -C "$TREE" symbolic-ref -q --short HEAD) || die "the tree is not on a branch"
trap 'git -C "$TREE" checkout -q -f "$branch" && git -C "$TREE" branch -q -D "$DEMO_BRANCH"' EXIT

START=$(git -C "$TREE" rev-parse "$(group_ref net-next)")
GOLDEN=$(git -C "$TREE" log --format='%H %s' "$START..HEAD" |
	sed -n 's/^\([0-9a-f]*\) net: Add golden vectors for the multipath hash$/\1/p')
[ -n "$GOLDEN" ] || die "no golden vectors commit after the net-next group"
cd "$TREE"
git checkout -q -f -B "$DEMO_BRANCH" "$START"
GIT_COMMITTER_DATE=$DATE tree_git cherry-pick "$GOLDEN" >/dev/null
START=$(git rev-parse HEAD)

# demo_commit FILE SED-EXPRESSION SUBJECT: one deterministic commit.
demo_commit() {
	sed -i "$2" "$1"
	git diff --quiet && die "demo edit to $1 changed nothing"
	GIT_AUTHOR_DATE=$DATE GIT_COMMITTER_DATE=$DATE \
		tree_git commit -q -a -m "$3"
}

demo_commit Documentation/networking/ip-sysctl.rst \
	'0,/^fib_multipath_hash_seed - UNSIGNED INTEGER/s//fib_multipath_hash_seed - UNSIGNED INTEGER /' \
	"demo: harmless documentation change"
demo_commit net/ipv4/route.c \
	's|^/\* To make ICMP packets follow the right flow, the multipath hash is$|/* To make ICMP packets follow the right flow, the multipath hash is  |' \
	"demo: harmless comment change in route.c"
demo_commit net/ipv4/route.c \
	'/^static u32 fib_multipath_custom_hash_two_pass/,/^}/s/jhash_2words(mhash, mhash_inner, 0)/jhash_2words(mhash, mhash_inner, 1)/' \
	"demo: change the custom multipath hash"
culprit=$(git rev-parse HEAD)
demo_commit net/ipv6/route.c \
	'0,/Linux INET6 implementation/s//Linux INET6 implementation /' \
	"demo: harmless comment change in ipv6 route.c"
demo_commit Documentation/networking/ip-sysctl.rst \
	'0,/^fib_multipath_hash_fields - UNSIGNED INTEGER/s//fib_multipath_hash_fields - UNSIGNED INTEGER /' \
	"demo: another harmless documentation change"

um_guest_kunitconfig "$TOP/build/bisect-demo.kunitconfig"
out=$(BISECT_ARCH=um BISECT_BUILD_DIR="$TOP/build/kunit-um" \
	BISECT_KUNITCONFIG="$TOP/build/bisect-demo.kunitconfig" \
	"$TOP/tools/bisect.sh" "$TREE" "$START" "$DEMO_BRANCH")
printf '%s\n' "$out"
found=$(sed -n 's/^first bad commit: \([0-9a-f]*\) .*/\1/p' <<<"$out")
changed=$(grep -c '^    ipv4 .* p3 ' <<<"$out" || true)
if [ "$found" = "$culprit" ] && [ "$changed" -gt 0 ]; then
	echo "bisect-demo: named the culprit ${culprit:0:12} with $changed IPv4 policy 3 vectors changed"
	echo "bisect-demo: 1 passed, 0 failed"
else
	echo "bisect-demo: expected ${culprit:0:12}, got '${found:-nothing}'"
	echo "bisect-demo: 0 passed, 1 failed"
	exit 1
fi
