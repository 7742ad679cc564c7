#!/usr/bin/env bash
# One step of tools/bisect.sh, run by "git bisect run" in $TREE: build the
# checked-out commit for x86_64 and run the golden multipath hash suite
# under QEMU. Exit 0 when every vector passes, 1 when one fails, 125 (skip)
# when the commit does not build or the kernel gives no results. Builds go
# to build/kunit-bisect, or $BISECT_BUILD_DIR. BISECT_ARCH picks another
# arch of tools/kunit.sh (um: natively, as User Mode Linux), and
# BISECT_KUNITCONFIG another config than kunit/golden.kunitconfig (one every
# commit of the range defines, such as the one a build folder already
# holds, so that the steps stay incremental).
#
# A commit without the golden suite gets it for the step, from the branch's
# prepared tree ($BRANCH_TREE, build/linux by default): the suite's files,
# a Makefile with only them, and the branch's changes to net/ipv4/Kconfig,
# net/ipv4/Makefile and fib_semantics.c / fib_lookup.h (which make
# fib_rebalance() visible to it). They are removed after the step.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

RESULTS=${BISECT_RESULTS:?}
BRANCH_TREE=${BRANCH_TREE:-$TOP/build/linux}
TESTS=net/ipv4/tests
KIT_FILES=(multipath_hash_kunit.h multipath_hash_util.c multipath_hash_golden_kunit.c)
KIT_CHANGES=(net/ipv4/Kconfig net/ipv4/Makefile net/ipv4/fib_lookup.h net/ipv4/fib_semantics.c)
commit=$(git -C "$TREE" rev-parse HEAD)

restore_tree() {
	git -C "$TREE" reset -q --hard
	git -C "$TREE" clean -fdqx -- "$TESTS"
}

# branch_git ARGS...: git in the branch's tree. "git bisect run" exports
# GIT_DIR for the bisected tree, which would win over -C.
branch_git() { git --git-dir="$BRANCH_TREE/.git" "$@"; }

# add_golden_kit: put the golden suite into the work tree; fails when the
# branch's changes do not apply to this commit.
add_golden_kit() {
	local f rev
	rev=$(branch_git rev-parse HEAD) || return 1
	branch_git diff "$BASE_TAG" "$rev" -- "${KIT_CHANGES[@]}" |
		git -C "$TREE" apply || return 1
	mkdir -p "$TREE/$TESTS"
	for f in "${KIT_FILES[@]}"; do
		branch_git show "$rev:$TESTS/$f" >"$TREE/$TESTS/$f" || return 1
	done
	printf '%s\n' \
		'obj-$(CONFIG_IP_MULTIPATH_HASH_KUNIT_TEST) += multipath_hash_kunit.o' \
		'multipath_hash_kunit-y := multipath_hash_util.o multipath_hash_golden_kunit.o' \
		>"$TREE/$TESTS/Makefile"
}

if ! grep -qs net_multipath_hash_golden "$TREE/$TESTS/multipath_hash_golden_kunit.c"; then
	trap restore_tree EXIT
	if ! add_golden_kit; then
		echo "bisect step ${commit:0:12}: cannot add the golden suite: skip"
		exit 125
	fi
	echo "bisect step ${commit:0:12}: golden suite added for this step"
fi

json="$RESULTS/${commit:0:12}.json"
KUNIT_ALLOW_WARNINGS=1 KUNIT_BUILD_DIR="${BISECT_BUILD_DIR:-$TOP/build/kunit-bisect}" \
	KUNITCONFIG="${BISECT_KUNITCONFIG:-$TOP/kunit/golden.kunitconfig}" KUNIT_RESULTS="$json" \
	"$TOP/tools/kunit.sh" "${BISECT_ARCH:-x86_64}" net_multipath_hash_golden \
	>"$RESULTS/${commit:0:12}.log" 2>&1
if [ ! -s "$json" ]; then
	echo "bisect step ${commit:0:12}: no results (build or boot failed): skip"
	exit 125
fi
if "$TOP/tools/kunit_counts.py" "golden=$json" >"$RESULTS/${commit:0:12}.counts"; then
	echo "bisect step ${commit:0:12}: good ($(head -n 1 "$RESULTS/${commit:0:12}.counts"))"
	exit 0
fi
echo "bisect step ${commit:0:12}: bad ($(head -n 1 "$RESULTS/${commit:0:12}.counts"))"
exit 1
