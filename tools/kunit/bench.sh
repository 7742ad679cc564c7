#!/usr/bin/env bash
# Benchmarks. They print figures; nothing here passes or fails on a time.
#
#   tools/kunit/bench.sh hash        cost of the multipath hash per policy: the
#                              suite net_multipath_hash_bench on x86_64
#                              under QEMU, or BENCH_ARCH=um: natively, as
#                              User Mode Linux (any arch tools/kunit/kunit.sh runs)
#   tools/kunit/bench.sh turnaround  this project's commands next to raw kunit.py
#                              doing the same work, timed in the same run
#   tools/kunit/bench.sh nvme        fio 4 KiB random reads and writes through
#                              tcp_offload (the software offload device)
#                              and through tcp, in one x86_64 QEMU guest
#                              with two CPUs: median and spread of
#                              NVME_BENCH_RUNS=N (5) runs of
#                              NVME_BENCH_SECONDS=N (10) each
#   tools/kunit/bench.sh             hash and turnaround
#
# Turnaround compares, each as ours / raw: cold build + run per arch (fresh
# build folders; ours goes through ccache, raw kunit.py does not), build +
# run after touching net/ipv4/route.c, the per-commit check per patch
# (build, run, checkpatch) against a kunit.py run per commit. Same .kunitconfig and
# QEMU settings on both sides. BENCH_COLD=0 skips the cold rows; the raw
# folders are then built once, untimed, if missing. BENCH_COMMITS=N (4) is
# how many of the last commits the per-commit rows walk. Logs and folders:
# build/logs/bench/, build/bench/.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
require_tools_tree "$TREE"

LOGS="$TOP/build/logs/bench"
DIRS="$TOP/build/bench"
mkdir -p "$LOGS" "$DIRS"
rows=()
log=bench.log

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# timed VAR CMD...: run CMD, its output appended to $LOGS/$log, and store
# how many milliseconds it took in VAR.
timed() {
	local -n elapsed=$1
	shift
	local t0
	t0=$(now_ms)
	if ! "$@" >>"$LOGS/$log" 2>&1; then
		die "'$*' failed: see $LOGS/$log"
	fi
	elapsed=$(($(now_ms) - t0))
}

# row WHAT OURS_MS RAW_MS
row() {
	rows+=("$(awk -v w="$1" -v o="$2" -v r="$3" \
		'BEGIN { printf "%-44s %8.1f s %8.1f s %6.2fx", w, o / 1000, r / 1000, o / r }')")
	echo "${rows[-1]}"
}

# ours ARCH BUILD_DIR [kunit.py args...]: this project's run.
ours() {
	local arch=$1 dir=$2
	shift 2
	KUNIT_BUILD_DIR=$dir KUNIT_RESULTS="$LOGS/ours-$arch.json" \
		"$TOP/tools/kunit/kunit.sh" "$arch" "$@"
}

# raw ARCH BUILD_DIR KUNITCONFIG [kunit.py args...]: kunit.py as a developer
# types it in the tree, with the same config and QEMU settings.
raw() {
	local arch=$1 dir=$2 config=$3
	shift 3
	local args=(run --arch="$arch" --build_dir="$dir" --kunitconfig="$config"
		--qemu_config="$TOP/kunit/qemu-$arch.py" --jobs="$(nproc)")
	local cross
	cross=$(cross_compile "$arch") || exit
	[ -z "$cross" ] || args+=(--cross_compile="$cross")
	(cd "$TREE" && PYTHONDONTWRITEBYTECODE=1 python3 tools/testing/kunit/kunit.py \
		"${args[@]}" "$@")
}

# built DIR: does DIR hold a kernel build?
built() { [ -f "$1/vmlinux" ]; }

cold_rows() {
	local arch o r
	for arch in x86_64 arm64; do
		log=cold-$arch.log
		rm -rf "$DIRS/ours-$arch" "$DIRS/raw-$arch"
		timed o ours "$arch" "$DIRS/ours-$arch"
		timed r raw "$arch" "$DIRS/raw-$arch" "$TOP/.kunitconfig"
		row "cold build + run, $arch" "$o" "$r"
	done
}

incremental_row() {
	local o r
	log=incremental.log
	built "$DIRS/ours-x86_64" || ours x86_64 "$DIRS/ours-x86_64" >>"$LOGS/$log" 2>&1
	built "$DIRS/raw-x86_64" ||
		raw x86_64 "$DIRS/raw-x86_64" "$TOP/.kunitconfig" >>"$LOGS/$log" 2>&1
	touch "$TREE/net/ipv4/route.c"
	timed o ours x86_64 "$DIRS/ours-x86_64"
	touch "$TREE/net/ipv4/route.c"
	timed r raw x86_64 "$DIRS/raw-x86_64" "$TOP/.kunitconfig"
	row "touch route.c, build + run, x86_64" "$o" "$r"
}

# The per-commit check of the last N commits (ci/percommit.sh as x86_64
# under QEMU without sanitizers, in the x86_64 build folder) against a raw
# kunit.py run at each of those commits.
percommit_rows() {
	local n=${BENCH_COMMITS:-4} branch o r c
	log=percommit.log
	branch=$(git -C "$TREE" symbolic-ref -q --short HEAD) || die "the tree is not on a branch"
	timed o env PERCOMMIT_LAST="$n" PERCOMMIT_ARCH=x86_64 \
		"$TOP/ci/percommit.sh"
	r=0
	for c in $(git -C "$TREE" rev-list --reverse "$BASE_TAG..$branch" | tail -n "$n"); do
		local t
		git -C "$TREE" checkout -q --detach "$c"
		timed t raw x86_64 "$DIRS/raw-x86_64" "$TOP/.kunitconfig"
		r=$((r + t))
	done
	git -C "$TREE" checkout -q "$branch"
	row "per-commit check, per patch ($n patches)" $((o / n)) $((r / n))
}

turnaround() {
	"$TOP/tools/tree/status.sh" >/dev/null || die "the tree is not in step with kernel-patches/ (make status)"
	echo "turnaround on $(nproc) cores, ours / raw kunit.py (logs: build/logs/bench/)"
	[ "${BENCH_COLD:-1}" = 0 ] || cold_rows
	incremental_row
	percommit_rows
	echo
	printf '%-44s %10s %10s %7s\n' "what" "ours" "raw" "ratio"
	printf '%s\n' "${rows[@]}"
}

# The hash cost table, from the benchmark suite, which the default runs
# leave out (kunit/bench.config turns it on).
hash_bench() {
	local config="$TOP/build/bench.kunitconfig" arch=${BENCH_ARCH:-x86_64}
	layered_kunitconfig "$config" "$TOP/kunit/bench.config"
	log=hash-$arch.log
	KUNITCONFIG=$config KUNIT_BUILD_DIR="$DIRS/hash-$arch" \
		KUNIT_RESULTS="$LOGS/hash-$arch.json" \
		"$TOP/tools/kunit/kunit.sh" "$arch" net_multipath_hash_bench >"$LOGS/$log" 2>&1 ||
		die "the benchmark suite failed: see $LOGS/$log"
	echo "$arch:"
	sed -n 's/^ *# mp_bench_hash: //p' "$DIRS/hash-$arch/test.log"
}

# IOPS and CPU time per I/O through tcp_offload and tcp, from
# tools/nvme/nvme_bench_guest.sh in one x86_64 QEMU guest with two CPUs (so
# that a controller has two I/O queues, as on a real host): for each
# transport and pattern, the median of the runs, and the spread, (max -
# min) / median, of the IOPS and of the CPU time per I/O.
nvme_bench() {
	local secs=${NVME_BENCH_SECONDS:-10} runs=${NVME_BENCH_RUNS:-5}
	log=nvme-x86_64.log
	# The guest sees none of this environment: pass the settings on. Its
	# kernel is the x86_64 guest's without lockdep, in a folder of its own.
	VM_BUILD_DIR="$TOP/build/vm-x86_64-bench" \
		VM_CONFIG_EXTRA="$TOP/kunit/bench-guest.config" \
		"$TOP/tools/guest/vm.sh" --arch x86_64 -- \
		env NVME_BENCH_SECONDS="$secs" NVME_BENCH_RUNS="$runs" \
		"$TOP/tools/nvme/nvme_bench_guest.sh" \
		>"$LOGS/$log" 2>&1 || die "the NVMe benchmark failed: see $LOGS/$log"
	echo "NVMe/TCP in one x86_64 QEMU guest (TCG, no KVM), 2 vCPUs, on $(nproc) host cores,"
	echo "fio 4 KiB, direct, 2 jobs at queue depth 32, $runs runs of $secs s each:"
	awk '
	function median(v, n,    i, j, t, s) {	# sorts v[1..n]
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	$1 == "nvme-bench:" && NF == 6 {
		k = $2 " " $3; n[k]++
		iops[k, n[k]] = $5; cpu[k, n[k]] = $6
	}
	END {
		printf "%-12s %-10s %5s %12s %8s %14s %8s\n", "transport", "pattern", "runs",
			"median IOPS", "spread", "us CPU per IO", "spread"
		split("tcp_offload tcp", ts, " "); split("randread randwrite", rws, " ")
		for (r = 1; r <= 2; r++)
			for (t = 1; t <= 2; t++) {
				k = ts[t] " " rws[r]
				if (!n[k])
					continue
				for (i = 1; i <= n[k]; i++) { a[i] = iops[k, i]; c[i] = cpu[k, i] }
				mi = median(a, n[k]); mc = median(c, n[k])
				printf "%-12s %-10s %5d %12.0f %7.0f%% %14.1f %7.0f%%\n", ts[t], rws[r], n[k],
					mi, 100 * (a[n[k]] - a[1]) / mi, mc, 100 * (c[n[k]] - c[1]) / mc
			}
	}' "$LOGS/$log"
}

case "${1:-all}" in
hash) hash_bench ;;
turnaround) turnaround ;;
nvme) nvme_bench ;;
all) hash_bench && turnaround ;;
*) die "usage: tools/kunit/bench.sh [hash|turnaround|nvme]" ;;
esac
