#!/usr/bin/env bash
# The full gate ("make test"): install what is missing, run the hash
# model's unit tests, prepare the tree, check the export round trip and the
# golden vectors against the model, checkpatch every patch, run the KUnit suites
# under QEMU on x86_64 and arm64, again under KASAN and UBSAN on x86_64
# (failing on any report in the kernel log), then build and test every commit of the
# series on its own (x86_64), run the plain forwarding selftest and the
# ioprio end-to-end check in a guest (the latter also from copies of the
# checkout under /tmp and /root) and the ICMP path check, and prove the bisect tool on a
# synthetic history. Prints how long each stage took and ends with one line
# "N passed, N failed" summing every KUnit case of every run, the model's
# checks, every patch checked, the round trip, the vectors check, the
# sanitizer log scans, every commit checked, every selftest TEST line,
# every ioprio end-to-end row, every ICMP path and the bisect demonstration.
# Exits non-zero when anything failed.
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"
LOGS="$TOP/build/logs"
RESULTS="$TOP/build/results"
mkdir -p "$LOGS"

passed=0 failed=0
timings=()

# stage NAME COMMAND...: run COMMAND with its output in build/logs/NAME.log.
stage() {
	local name=$1 start rc
	shift
	start=$(date +%s)
	echo "== $name"
	"$@" >"$LOGS/$name.log" 2>&1
	rc=$?
	timings+=("$(printf '%-16s %5ss  %s' "$name" "$(($(date +%s) - start))" \
		"$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (build/logs/$name.log)")")")
	if [ "$rc" -ne 0 ]; then
		tail -n 30 "$LOGS/$name.log" | sed 's/^/    /'
	fi
	return "$rc"
}

# add_counts LINE: add a "... N passed, N failed ..." line to the totals.
add_counts() {
	local p f
	read -r p f <<<"$(counts "$1")"
	passed=$((passed + p))
	failed=$((failed + f))
}

run_gate() {
	if ! stage setup "$TOP/tools/setup.sh"; then
		failed=$((failed + 1))
		return
	fi

	# The hash model's own unit tests need no kernel.
	stage model make -s -C "$TOP/tools/mphash" check
	add_counts "$(tail -n 1 "$LOGS/model.log")"

	if ! stage prepare "$TOP/tools/prepare.sh"; then
		failed=$((failed + 1))
		return
	fi

	# Import then export without edits must give the patches back byte for
	# byte: the freshly prepared tree must be in step with kernel-patches/.
	if stage roundtrip "$TOP/tools/status.sh"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi

	# The golden table in the series is what the model generates.
	stage vectors "$TOP/tools/vectors.sh" --check
	add_counts "$(tail -n 1 "$LOGS/vectors.log")"

	stage checkpatch "$TOP/tools/checkpatch.sh"
	sed -n '/^FAIL/,$p' "$LOGS/checkpatch.log" | head -n 40
	add_counts "$(tail -n 1 "$LOGS/checkpatch.log")"

	local arch line
	for arch in x86_64 arm64; do
		stage "kunit-$arch" "$TOP/tools/kunit.sh" "$arch"
		grep -E 'Testing complete|Elapsed time' "$LOGS/kunit-$arch.log" | sed 's/^/    /'
		line=$("$TOP/tools/kunit_counts.py" "$arch=$RESULTS/$arch.json")
		printf '%s\n' "$line" | sed 's/^/    /'
		add_counts "$(head -n 1 <<<"$line")"
	done

	# Every suite again under KASAN and UBSAN; any report in the kernel
	# log fails the run even when every case passed. x86_64 only: arm64's
	# cold sanitizer build would take the cold gate near an hour on two
	# cores ("make sanitize ARCH=arm64" runs it).
	stage sanitizers-x86_64 "$TOP/tools/sanitize.sh" x86_64
	grep -E "^x86_64-sanitizers|^kernel log reports|^    (BUG|WARNING|UBSAN|KASAN)" \
		"$LOGS/sanitizers-x86_64.log" | sed 's/^/    /'
	while read -r line; do
		add_counts "$line"
	done < <(grep -E "^x86_64-sanitizers( reports)?: " "$LOGS/sanitizers-x86_64.log" ||
		echo "no counts")

	# Every commit on its own (bisectability): one case per commit.
	stage percommit "$TOP/ci/percommit.sh"
	sed -n '/^# commit/,$p' "$LOGS/percommit.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/percommit.log")"

	# The branch kernel in a guest on the host's root: the plain forwarding
	# selftest of the custom hash (one case per TEST line) and the ioprio
	# end-to-end check (one case per policy and input). The GRE variants
	# run in "make selftests".
	stage selftest "$TOP/tools/selftests.sh" custom_multipath_hash.sh
	grep -E '^(==|    TEST: .*FAIL|selftests:)' "$LOGS/selftest.log" | sed 's/^/    /'
	add_counts "$(grep -E '^selftests: ' "$LOGS/selftest.log" || echo "no counts")"
	stage ioprio-e2e "$TOP/tools/vm.sh" -- "$TOP/tools/ioprio_guest.sh"
	grep -E 'MISMATCH|^ioprio-e2e:' "$LOGS/ioprio-e2e.log" | sed 's/^/    /'
	add_counts "$(grep -E '^ioprio-e2e: ' "$LOGS/ioprio-e2e.log" || echo "no counts")"
	# Pings leave by the nexthop "ip route get" names (policy 1): one case
	# per destination and family.
	stage icmp-paths "$TOP/tools/vm.sh" -- "$TOP/tools/icmp_paths_guest.sh"
	grep -E 'MISMATCH|^icmp-paths:' "$LOGS/icmp-paths.log" | sed 's/^/    /'
	add_counts "$(grep -E '^icmp-paths: ' "$LOGS/icmp-paths.log" || echo "no counts")"
	# The same check from copies of this checkout under /tmp and /root,
	# which the guest covers with tmpfs: guests work from any checkout.
	stage guest-paths "$TOP/ci/guest_paths.sh"
	grep -E '^(==|    |guest-paths:)' "$LOGS/guest-paths.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/guest-paths.log")"

	# The bisect tool names the commit of a synthetic history that moves flows.
	stage bisect-demo "$TOP/ci/bisect_demo.sh"
	grep -E '^(bisect step|first bad|bisect-demo)' "$LOGS/bisect-demo.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/bisect-demo.log")"
}

start=$(date +%s)
run_gate
echo "== stage times"
printf '    %s\n' "${timings[@]}"
echo "    total            $(($(date +%s) - start))s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
