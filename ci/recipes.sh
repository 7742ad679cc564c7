#!/usr/bin/env bash
# The README's recipes that no other stage runs, as the README writes them,
# each one case: one suite with a kernel argument (x86_64 under QEMU, on
# the build the kunit-x86_64 stage left), "make sendable" (every group's
# cover letter and patches, as many as kernel-patches/ holds), "make
# vectors" (regenerated from the model, they are the series' own: the
# tree stays in step), and two
# chosen blktests (only those two run, over tcp and tcp_offload). Ends with
# "recipes: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"

LOGS="$TOP/build/logs/recipes"
mkdir -p "$LOGS"
passed=0 failed=0
pass() { echo "ok $1"; passed=$((passed + 1)); }
fail() {
	echo "FAIL $1: $2"
	[ -z "${3:-}" ] || tail -n 8 "$3" | sed 's/^/    /'
	failed=$((failed + 1))
}

# suites_in JSON: the names of the suites a kunit.py result file holds.
suites_in() {
	python3 -c 'import json, sys
print("\n".join(g["name"] for g in json.load(open(sys.argv[1]))["sub_groups"]))' "$1"
}

name="run one suite with a kernel argument"
log="$LOGS/one-suite.log"
if (cd "$TOP" && tools/kunit/kunit.sh x86_64 net_multipath_hash_malformed \
	--kernel_args multipath_hash_kunit.mutation_seed=1) >"$log" 2>&1; then
	suites=$(suites_in "$TOP/build/results/x86_64.json" 2>&1 | paste -sd ' ')
	counts=$("$TOP/tools/kunit/kunit_counts.py" "x86_64=$TOP/build/results/x86_64.json" | head -n 1)
	if [ "$suites" != net_multipath_hash_malformed ]; then
		fail "$name" "the run held suites '$suites', not net_multipath_hash_malformed alone"
	elif ! grep -q 'mutation_seed=1' "$TOP/build/kunit-x86_64/test.log"; then
		fail "$name" "the kernel was not given mutation_seed=1" "$log"
	elif [[ "$counts" != *" 0 failed, 0 skipped" ]]; then
		fail "$name" "$counts"
	else
		pass "$name ($counts)"
	fi
else
	fail "$name" "tools/kunit/kunit.sh failed" "$log"
fi

name="make sendable"
log="$LOGS/sendable.log"
if make -s -C "$TOP" sendable >"$log" 2>&1; then
	bad=""
	for g in $(group_names); do
		want=$(find "$PATCH_DIR/$g" -name '*.patch' | wc -l)
		have=$(find "$TOP/build/send/$g" -name '[0-9]*.patch' ! -name '0000-*' 2>/dev/null | wc -l)
		subject=$(head -n 1 "$PATCH_DIR/$g/cover-letter")
		[ "$want" -eq "$have" ] || bad+=" $g: $have patches, kernel-patches/ has $want;"
		grep -qF "$subject" "$TOP/build/send/$g/0000-cover-letter.patch" 2>/dev/null ||
			bad+=" $g: the cover letter lacks its subject;"
	done
	if [ -n "$bad" ]; then fail "$name" "$bad"; else pass "$name ($(group_names | wc -l) groups)"; fi
else
	fail "$name" "make sendable failed" "$log"
fi

name="make vectors on the series leaves the tree in step"
log="$LOGS/vectors.log"
if make -s -C "$TOP" vectors >"$log" 2>&1; then
	if make -s -C "$TOP" status >>"$log" 2>&1; then
		pass "$name"
	else
		fail "$name" "the regenerated vectors differ from the series' (make status)" "$log"
	fi
else
	fail "$name" "make vectors failed" "$log"
fi

name='BLKTESTS_TESTS="nvme/004 nvme/010" make blktests'
log="$LOGS/blktests-two.log"
if (cd "$TOP" && BLKTESTS_TESTS="nvme/004 nvme/010" make -s blktests) >"$log" 2>&1; then
	# The host transport is the round's (the lines name the target's).
	ran=$(grep -aE '^nvme/[0-9]+ .*\[passed\]' "$log" | grep -oE '^nvme/[0-9]+' | sort -u | paste -sd ' ')
	rounds=$(grep -acE '^blktests (tcp|tcp_offload): 2 passed, 0 failed, 0 not run' "$log")
	if [ "$ran" = "nvme/004 nvme/010" ] && [ "$rounds" -eq 2 ]; then
		pass "$name ($(grep -aE '^blktests: ' "$log"))"
	else
		fail "$name" "passed '$ran' in $rounds of 2 rounds, not nvme/004 and nvme/010 in both" "$log"
	fi
else
	fail "$name" "make blktests failed" "$log"
fi

echo "recipes: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
