#!/bin/bash
# The NVMe benchmark, inside an x86_64 guest of tools/guest/vm.sh, two CPUs
# (tools/kunit/bench.sh nvme): fio 4 KiB random reads and writes, direct, libaio,
# two jobs at queue depth 32 each, $NVME_BENCH_SECONDS (10) seconds a run,
# to the target of tools/nvme/nvme_target.sh through tcp_offload (the software
# offload device on lo) and through tcp, no digests, in the same boot.
# $NVME_BENCH_RUNS (5) runs of each, the transports taking turns, so
# that a slow spell of the host falls on both.
#
# For each run it prints a line
#   nvme-bench: TRANSPORT RW RUN IOPS CPU_US_PER_IO
# IOPS as fio reports them for the two jobs together; CPU time per I/O from
# /proc/stat: the time all CPUs spent outside idle and iowait during the
# run (fio, the target and the transport alike, since all of them run in
# this guest), divided by the I/Os fio completed. Figures only: nothing
# passes or fails on them.
set -uo pipefail
. "$(dirname "$0")/nvme_target.sh"
SECONDS_EACH=${NVME_BENCH_SECONDS:-10}
RUNS=${NVME_BENCH_RUNS:-5}

# Busy CPU time so far, in clock ticks: user, nice, system, irq, softirq,
# steal.
busy_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

run_fio() {
	local blk=$1 rw=$2 dir
	[ "$rw" = randread ] && dir=read || dir=write
	fio --name=bench --filename="/dev/$blk" --rw="$rw" --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=32 --numjobs=2 --group_reporting \
		--runtime="$SECONDS_EACH" --time_based --output-format=json |
		jq -r ".jobs[0].$dir | \"\(.iops) \(.total_ios)\""
}

# One run of @rw through @transport, its line printed.
bench_run() {
	local transport=$1 rw=$2 run=$3 before after iops ios
	nvme_connect "$transport" ||
		{ echo "nvme-bench: no $transport controller" >&2; return 1; }
	before=$(busy_ticks)
	read -r iops ios <<<"$(run_fio "$blk" "$rw")"
	after=$(busy_ticks)
	echo 1 >"/sys/class/nvme/$ctrl/delete_controller"
	sleep 1
	[ "${ios:-0}" -gt 0 ] || { echo "nvme-bench: fio did no I/O" >&2; return 1; }
	awk -v t="$transport" -v rw="$rw" -v run="$run" -v iops="$iops" -v ios="$ios" \
		-v ticks=$((after - before)) -v hz="$hz" \
		'BEGIN { printf "nvme-bench: %s %s %d %.0f %.1f\n", t, rw, run, iops, ticks * 1e6 / hz / ios }'
}

nvme_target_setup || { echo "nvme-bench: cannot set up the target" >&2; exit 1; }
hz=$(getconf CLK_TCK)
echo "nvme-bench: $(nproc) CPUs, $RUNS runs of $SECONDS_EACH s"
for run in $(seq "$RUNS"); do
	for rw in randread randwrite; do
		for transport in tcp_offload tcp; do
			bench_run "$transport" "$rw" "$run" || exit 1
		done
	done
done
