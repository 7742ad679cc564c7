#!/bin/bash
# The NVMe benchmark, inside a guest of tools/vm.sh (tools/bench.sh nvme):
# fio 4 KiB random reads and writes, direct, queue depth 32, for
# $NVME_BENCH_SECONDS (10) seconds each, to the target of
# tools/nvme_target.sh through tcp_offload (the software offload device on
# lo) and through tcp, no digests, in the same boot.
#
# For each transport and pattern it prints a line
#   nvme-bench: TRANSPORT RW IOPS CPU_US_PER_IO
# IOPS as fio reports them; CPU time per I/O from /proc/stat: the time all
# CPUs spent outside idle and iowait during the run (fio, the target and
# the transport alike, since all of them run in this guest), divided by the
# I/Os fio completed. Figures only: nothing passes or fails on them.
set -uo pipefail
. "$(dirname "$0")/nvme_target.sh"
SECONDS_EACH=${NVME_BENCH_SECONDS:-10}

# Busy CPU time so far, in clock ticks: user, nice, system, irq, softirq,
# steal.
busy_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

run_fio() {
	local blk=$1 rw=$2 dir
	[ "$rw" = randread ] && dir=read || dir=write
	fio --name=bench --filename="/dev/$blk" --rw="$rw" --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=32 --runtime="$SECONDS_EACH" --time_based \
		--output-format=json |
		jq -r ".jobs[0].$dir | \"\(.iops) \(.total_ios)\""
}

nvme_target_setup || { echo "nvme-bench: cannot set up the target" >&2; exit 1; }
hz=$(getconf CLK_TCK)
for transport in tcp_offload tcp; do
	nvme_connect "$transport" ||
		{ echo "nvme-bench: no $transport controller" >&2; exit 1; }
	for rw in randread randwrite; do
		before=$(busy_ticks)
		read -r iops ios <<<"$(run_fio "$blk" "$rw")"
		after=$(busy_ticks)
		[ "${ios:-0}" -gt 0 ] || { echo "nvme-bench: fio did no I/O" >&2; exit 1; }
		awk -v t="$transport" -v rw="$rw" -v iops="$iops" -v ios="$ios" \
			-v ticks=$((after - before)) -v hz="$hz" \
			'BEGIN { printf "nvme-bench: %s %s %.0f %.1f\n", t, rw, iops, ticks * 1e6 / hz / ios }'
	done
	echo 1 >"/sys/class/nvme/$ctrl/delete_controller"
	sleep 1
done
