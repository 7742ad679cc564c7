#!/usr/bin/env bash
# One step of tools/bisect.sh, run by "git bisect run" in $TREE: build the
# checked-out commit for x86_64 and run the golden multipath hash suite
# under QEMU. Exit 0 when every vector passes, 1 when one fails, 125 (skip)
# when the commit does not build or the kernel gives no results. Builds go
# to build/kunit-bisect, or $BISECT_BUILD_DIR.
#
# A commit without the golden suite gets it for the step: the series'
# patches that add the suite are applied to the work tree and removed after.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

RESULTS=${BISECT_RESULTS:?}
SUITE_FILE=net/ipv4/tests/multipath_hash_kunit.c
commit=$(git -C "$TREE" rev-parse HEAD)

# The series patches that create the test file and add the golden vectors.
suite_patches() {
	grep -l "^+++ b/$SUITE_FILE" $(series_patches | sed "s|^|$PATCH_DIR/|") |
		while read -r p; do
			if grep -q "^new file mode" "$p" || grep -q "net_multipath_hash_golden" "$p"; then
				echo "$p"
			fi
		done
}

restore_tree() {
	git -C "$TREE" reset -q --hard
	git -C "$TREE" clean -fdqx -- net/ipv4/tests net/ipv4/.kunitconfig
}

if ! grep -qs net_multipath_hash_golden "$TREE/$SUITE_FILE"; then
	trap restore_tree EXIT
	for p in $(suite_patches); do
		if ! git -C "$TREE" apply "$p"; then
			echo "bisect step ${commit:0:12}: cannot apply ${p##*/}: skip"
			exit 125
		fi
	done
	echo "bisect step ${commit:0:12}: golden suite applied for this step"
fi

json="$RESULTS/${commit:0:12}.json"
KUNIT_ALLOW_WARNINGS=1 KUNIT_BUILD_DIR="${BISECT_BUILD_DIR:-$TOP/build/kunit-bisect}" \
	KUNITCONFIG="$TOP/kunit/golden.kunitconfig" KUNIT_RESULTS="$json" \
	"$TOP/tools/kunit.sh" x86_64 net_multipath_hash_golden \
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
