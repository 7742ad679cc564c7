#!/usr/bin/env bash
# The full gate ("make test"): install what is missing, check that every
# script is executable in git, run the hash model's
# unit tests, prepare the tree, check the export round trip, check that the
# tools leave a tree they did not make alone (tree-safety), that a
# newcomer's first mistakes each give one clear line, check the golden
# vectors against the model, check every commit of the series on its own
# (built and tested natively as User Mode Linux, a warning in its kernel log
# failing it, its patch checkpatched), and in a User Mode Linux guest (the
# per-commit check's kernel of the last commit) the FP register check, the
# plain forwarding selftest of the custom hash and the one counting which
# nexthop packets leave by, the ioprio end-to-end check (also from copies
# of the checkout under /tmp and /root) and the NVMe/TCP offload end-to-end
# check; prove make hash-diff on a synthetic history on the stock
# base, follow the README's daily workflow on a scratch clone
# (daily-loop), in an x86_64 QEMU guest run the NVMe/TCP offload load
# check (nvme-load) and blktests' nvme group over tcp_offload,
# and run the KUnit suites under QEMU on x86_64, on arm64 and on s390x
# (big-endian) with KASAN and UBSAN, and run the README's recipes that
# no other stage runs. Prints how long each stage took, as it ends and
# again at the end, and ends with one line "N passed, N failed" summing the
# script-mode check, the model's checks, the round trip, every tree-safety case, every newcomer case, the vectors
# check, every commit checked, every FP register case, every selftest TEST
# line, every ioprio end-to-end row, each checkout copy, every NVMe end-to-end case, every hash-diff demonstration check, every daily-loop
# step, every load case, every blktests test that ran, and every KUnit
# case of the x86_64, arm64 and s390x runs and each one's clean kernel log,
# and every recipe.
# Exits non-zero when anything failed.
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"
LOGS="$TOP/build/logs"
mkdir -p "$LOGS"

passed=0 failed=0
timings=()
failed_stages=()

# make_target TARGET [VAR=value...]: a stage's command is, where one
# exists, the make target a developer runs, so the gate and the Makefile
# cannot drift apart.
make_target() { make -s -C "$TOP" "$@"; }

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
	# As it ends too, so that a run stopped from outside shows where the
	# time went.
	echo "   ${timings[-1]}"
	if [ "$rc" -ne 0 ]; then
		failed_stages+=("$name")
		tail -n 30 "$LOGS/$name.log" | sed 's/^/    /'
	fi
	return "$rc"
}

# what_failed: the failing cases of each failed stage, a few lines each,
# printed again just before the count, where a short tail of the output
# (all CI shows of a run) still holds them.
what_failed() {
	local name lines
	[ "${#failed_stages[@]}" -gt 0 ] || return 0
	echo "== what failed"
	for name in "${failed_stages[@]}"; do
		echo "    $name:"
		lines=$(grep -aE -A3 '^(FAIL|not ok|[0-9]{2} .*FAIL)|\[failed\]|TEST: .*\[ *FAIL *\]' \
			"$LOGS/$name.log" | head -n 8)
		[ -n "$lines" ] || lines=$(tail -n 3 "$LOGS/$name.log")
		printf '%s\n' "$lines" | cut -c1-160 | sed 's/^/      /'
	done
}

# add_counts LINE: add a "... N passed, N failed ..." line to the totals.
add_counts() {
	local p f
	read -r p f <<<"$(counts "$1")"
	passed=$((passed + p))
	failed=$((failed + f))
}

# check_script_modes: name each tracked file that starts with "#!" but is
# not mode 100755 in the index; fail if there is one.
check_script_modes() {
	local mode path bad=0
	while read -r mode _ _ path; do
		[ "$mode" = 100755 ] && continue
		[ "$(head -c 2 "$TOP/$path")" = '#!' ] || continue
		echo "FAIL $path: starts with #! but is mode $mode in git (git update-index --chmod=+x)"
		bad=1
	done < <(git -C "$TOP" ls-files -s)
	return "$bad"
}

run_gate() {
	if ! stage setup make_target setup; then
		failed=$((failed + 1))
		return
	fi

	# Every tracked script with a #! line is executable in git, as a
	# fresh clone checks it out: a stage started by its path fails
	# otherwise (one case).
	if stage script-modes check_script_modes; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi

	# The hash model's own unit tests need no kernel.
	stage model make_target model
	add_counts "$(tail -n 1 "$LOGS/model.log")"

	if ! stage prepare make_target prepare; then
		failed=$((failed + 1))
		return
	fi

	# Import then export without edits must give the patches back byte for
	# byte: the freshly prepared tree must be in step with kernel-patches/.
	if stage roundtrip make_target status; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi

	# The tools change and delete no tree they did not make: a scratch
	# repository pointed at by every target that writes a tree survives
	# byte for byte (one case per target).
	stage tree-safety "$TOP/ci/tree_safety.sh"
	grep -E '^(FAIL|tree-safety:)' "$LOGS/tree-safety.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/tree-safety.log")"

	# The five first mistakes of a newcomer (not root, not bookworm, no
	# tarball, no tree, a dirty tree) each give one clear error line (one
	# case each).
	stage newcomer "$TOP/ci/newcomer.sh"
	grep -E '^(FAIL|newcomer:)' "$LOGS/newcomer.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/newcomer.log")"

	# The golden table in the series is what the model generates.
	stage vectors make_target vectors-check
	add_counts "$(tail -n 1 "$LOGS/vectors.log")"

	# Every commit on its own (bisectability), as User Mode Linux: one
	# case per commit, which passes when the commit builds without a
	# warning, every suite it has passes, its kernel log holds no warning
	# or oops, and checkpatch --strict finds nothing in its patch. The last
	# commit's run is the whole series' suites, natively.
	stage percommit make_target percommit
	sed -n '/^# group/,$p' "$LOGS/percommit.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/percommit.log")"

	# The branch kernel in a User Mode Linux guest on the host's root: the
	# plain forwarding selftest of the custom hash and the one counting
	# which nexthop pings, local and forwarded UDP flows, forwarded ICMP
	# errors, keyed ip6gre tunnels and IPv6-in-IPv6 flows leave by (one
	# case per TEST line), and the ioprio
	# end-to-end check (one case per policy and input). The GRE variants
	# run in "make selftests". The guest's kernel is the
	# per-commit check's build of the last commit, in its folder (the
	# config is the same: tools/lib.sh, UM_GUEST_FRAGMENTS), so these
	# stages build nothing, where the x86_64 QEMU guest's own kernel cost
	# about twelve minutes from nothing. The QEMU guests (make
	# selftests ARCH=x86_64 or arm64) are the developers'.
	export VM_BUILD_DIR="$TOP/build/kunit-um"
	# The guest's processes keep their FP and vector registers across
	# thread switches, fork and signal handlers (one case per register
	# class and event; a class the CPU lacks is skipped, not counted).
	# First of the guest stages: if User Mode Linux cannot start a
	# process on this host, its line says why.
	stage um-fp make_target um-fp
	grep -aE '^(FAIL|SKIP|um-fp:|Host FP)|vm.sh:' "$LOGS/um-fp.log" | sed 's/^/    /'
	add_counts "$(grep -aE '^um-fp: ' "$LOGS/um-fp.log" || echo "no counts")"
	# The same on an AMX host's ptrace, imitated by a library preloaded
	# into UML (tools/guest/um_amx_shim.c): stock 6.12 UML must die as it
	# does on such a host, the branch boot at 11008 bytes and pass um-fp,
	# and stop at boot when its first read of the area fails. The stock
	# kernel is built once a machine, outside the checkout (minutes the
	# first time, then kept: tools/guest/um_fp_amx.sh).
	stage um-fp-amx make_target um-fp-amx
	grep -aE '^(ok|FAIL|  |um-fp-amx:)' "$LOGS/um-fp-amx.log" | sed 's/^/    /'
	add_counts "$(grep -aE '^um-fp-amx: ' "$LOGS/um-fp-amx.log" || echo "no counts")"
	stage selftest "$TOP/tools/guest/selftests.sh" --arch um custom_multipath_hash.sh \
		multipath_hash_paths.sh
	grep -E '^(==|    TEST: .*FAIL|selftests:)' "$LOGS/selftest.log" | sed 's/^/    /'
	add_counts "$(grep -E '^selftests: ' "$LOGS/selftest.log" || echo "no counts")"
	stage ioprio-e2e make_target ioprio-e2e ARCH=um
	grep -E 'MISMATCH|^ioprio-e2e:' "$LOGS/ioprio-e2e.log" | sed 's/^/    /'
	add_counts "$(grep -E '^ioprio-e2e: ' "$LOGS/ioprio-e2e.log" || echo "no counts")"
	# The ioprio check from copies of this checkout under /tmp and /root,
	# which the guest covers with tmpfs: guests work from any checkout.
	stage guest-paths "$TOP/ci/guest_paths.sh" --arch um
	grep -E '^(==|    |guest-paths:)' "$LOGS/guest-paths.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/guest-paths.log")"
	# I/O through the tcp_offload transport and the software offload
	# device to the in-kernel target, and through tcp for comparison:
	# one case per connect, data size and disconnect.
	stage nvme-e2e make_target nvme-e2e ARCH=um
	grep -E '^(FAIL|nvme-e2e:)' "$LOGS/nvme-e2e.log" | sed 's/^/    /'
	add_counts "$(grep -E '^nvme-e2e: ' "$LOGS/nvme-e2e.log" || echo "no counts")"
	unset VM_BUILD_DIR

	# make hash-diff on a history that is not this series' (the stock base,
	# the um group, two harmless commits and two that move flows of one
	# policy and family each): it names the first mover and what moved,
	# and its per-commit table blames each commit for its own moves (one
	# case per check). Steps as User Mode Linux in build/hash-diff.
	stage hash-diff-demo make_target hash-diff-demo
	grep -E '^(step |first commit|    v[46] |ok|FAILED|hash-diff-demo)' "$LOGS/hash-diff-demo.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/hash-diff-demo.log")"

	# The README's daily workflow, as written, on a scratch clone: a KUnit
	# case added and committed, run before export, exported, status clean
	# (one case per step).
	stage daily-loop "$TOP/ci/daily_loop.sh"
	grep -E '^(ok|FAIL|daily-loop:)' "$LOGS/daily-loop.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/daily-loop.log")"

	# The NVMe/TCP offload transport under load, in the x86_64 QEMU guest
	# (two CPUs: two I/O queues a controller), whose kernel (build/vm-x86_64)
	# is the one stage here that builds one: verified concurrent fio
	# through tcp_offload and tcp, with faults mid-stream (one case per
	# workload and fault); then blktests' nvme group with the host on
	# tcp_offload, each test of it that ran a case (the tcp round, a
	# control of code the series does not change, runs in "make blktests"
	# and for two tests in the recipes stage).
	stage nvme-load make_target nvme-load
	grep -aE '^(ok|FAIL|  |nvme-load:)' "$LOGS/nvme-load.log" | sed 's/^/    /'
	add_counts "$(grep -aE '^nvme-load: [0-9]+ passed' "$LOGS/nvme-load.log" || echo "no counts")"
	BLKTESTS_ROUNDS=tcp_offload stage blktests make_target blktests
	grep -aE '^(blktests|nvme/[0-9]+ .*\[failed\])' "$LOGS/blktests.log" | sed 's/^/    /'
	add_counts "$(grep -aE '^blktests: [0-9]+ passed' "$LOGS/blktests.log" || echo "no counts")"

	# The suites as "make kunit" runs them under QEMU on the two arches
	# developers use, and on s390x with KASAN and UBSAN: big-endian,
	# the golden vectors' other column, and the sanitizers' run of the
	# whole series. One case per KUnit case, and one for each kernel log
	# free of warnings, oopses and sanitizer reports.
	kunit_stage kunit-x86_64 x86_64 make_target kunit ARCH=x86_64
	kunit_stage kunit-arm64 arm64 make_target kunit ARCH=arm64
	kunit_stage kunit-s390 s390-sanitizers make_target sanitize ARCH=s390

	# The README's recipes no stage above runs, as written (one case
	# each): one suite with a kernel argument on the x86_64 build above,
	# make sendable, make vectors (the tree stays in step), two chosen
	# blktests in the x86_64 guest.
	stage recipes "$TOP/ci/recipes.sh"
	grep -E '^(ok|FAIL|recipes:)' "$LOGS/recipes.log" | sed 's/^/    /'
	add_counts "$(tail -n 1 "$LOGS/recipes.log")"
}

# kunit_stage NAME LABEL COMMAND...: COMMAND (a tools/kunit/kunit_checked.sh
# run) as stage NAME, the counts of its LABEL added.
kunit_stage() {
	local name=$1 label=$2
	stage "$name" "${@:3}"
	grep -E "Built in|Testing complete|^$label" "$LOGS/$name.log" | sed 's/^/    /'
	while read -r line; do
		add_counts "$line"
	done < <(grep -E "^$label(:| reports:) " "$LOGS/$name.log" || echo "no counts")
}

start=$(date +%s)
run_gate
echo "== stage times"
printf '    %s\n' "${timings[@]}"
echo "    total            $(($(date +%s) - start))s"
what_failed
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
