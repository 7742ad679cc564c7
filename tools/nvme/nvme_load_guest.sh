#!/bin/bash
# Verified concurrent I/O through the NVMe/TCP offload transport, inside
# an x86_64 guest of tools/guest/vm.sh with two CPUs, so that a controller has
# two I/O queues ("make nvme-load"; never on the host).
#
# The target is tools/nvme/nvme_target.sh's (nvmet-tcp on 127.0.0.1, a
# memory-backed null_blk namespace). The load is fio: $JOBS jobs, each on
# its own $JOB_MB MiB of the namespace, libaio at queue depth 32 with
# O_DIRECT, random writes of mixed sizes from 512 B to 1 MiB, each block
# carrying a crc32c checksum and its offset that fio reads back and checks
# while it writes (verify_backlog) and all over again once it has written
# (verify). A case passes when fio ends with no I/O or verify error.
#   load TRANSPORT digests=D   tcp_offload and, for comparison, tcp,
#                              without and with header and data digests
# Then the same load on tcp_offload with a fault injected two seconds in
# (the software device's debugfs on every I/O queue, or the user): a
# dropped connection, a queue error the device reports, a lost completion
# (io_timeout 2 s), a corrupt header digest, a controller reset; then
# three passes of the load with dropped connections, queue errors and a
# reset one after the other. It passes when fio saw no error, the
# controller reconnected and is live, and a last fio pass reads
# everything written and checks each block's checksum and offset.
# Then overwrites (tools/nvme/generations.py): the same blocks written
# again and again, each write stamped with a new generation, while
# readers check that what they read is neither older than the last
# acknowledged write nor newer than the last one sent; afterwards every
# block must hold its last acknowledged generation, so that a write that
# lands late (an older copy after a newer one) is seen, as fio's verify
# cannot see it. Once on one controller with the faults above one after
# the other, once over two paths to the subsystem (two tcp_offload
# controllers, native multipath, I/O on both in turn) while path A
# stalls and its connections drop, then path B reports queue errors: no
# I/O error, nothing lost, writes failed over. Then the proof that the
# check can fail: an older generation written straight to the target's
# disk must be found.
# Last, the kernel log holds no warning, lockdep report or hung task
# (the x86_64 guest has PROVE_LOCKING and DETECT_HUNG_TASK).
# One case per line; ends with "nvme-load: N passed, N failed",
# "nvme-load: N MiB written, N MiB read back and checked" and
# "nvme-load: N runs of N blocks x N generations, every block checked
# against its last".
set -uo pipefail

NVME_NS_MB=${NVME_NS_MB:-160}
. "$(dirname "$0")/nvme_target.sh"
GENERATIONS_PY=$(cd "$(dirname "$0")" && pwd)/generations.py
generations() { python3 "$GENERATIONS_PY" "$@"; }
JOBS=4 JOB_MB=32
# fio keeps files in its working folder; the checkout is read-only here.
cd /tmp || exit 1

written_mb=0 verified_mb=0

# fio_run NAME [FIO OPTIONS]: the load on $blk, its JSON report in
# /tmp/NAME.json; fails on any I/O or verify error (fio stops at the
# first one and exits non-zero).
fio_run() {
	local name=$1
	shift
	fio --name=load --filename="/dev/$blk" --direct=1 --ioengine=libaio \
		--iodepth=32 --numjobs=$JOBS --size=${JOB_MB}m \
		--offset_increment=${JOB_MB}m --rw=randwrite \
		--bssplit=512/15:4k/35:16k/15:64k/15:256k/10:1m/10 \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 \
		--randrepeat=1 --group_reporting --eta=never ${FIO_EXTRA:-} "$@" \
		--output-format=json --output="/tmp/$name.json" || {
		echo "  fio failed:"
		grep -E '"error"|err=' "/tmp/$name.json" | sort | uniq -c | head -n 5
		return 1
	}
}

# fio_load NAME [FIO OPTIONS]: fio_run, then its bytes counted.
fio_load() { fio_run "$@" && count_bytes "/tmp/$1.json"; }

# count_bytes JSON: add fio's bytes written and read (the verify reads)
# to the totals. fio puts its warnings (several jobs verifying one
# device) before the report.
count_bytes() {
	local w r
	w=$(sed -n '/^{/,$p' "$1" | jq '[.jobs[].write.io_bytes] | add') &&
		r=$(sed -n '/^{/,$p' "$1" | jq '[.jobs[].read.io_bytes] | add') || return
	echo "  $((w >> 20)) MiB written, $((r >> 20)) MiB read back and checked"
	written_mb=$((written_mb + (w >> 20)))
	verified_mb=$((verified_mb + (r >> 20)))
	# Nothing checked is no check.
	[ "$r" -gt 0 ] && [ "$w" -gt 0 ]
}

# load TRANSPORT DIGESTS: connect, the load, disconnect.
load() {
	local transport=$1 digests=$2 ok=0
	ctrl= blk=
	if [ "$digests" = none ]; then
		nvme_connect "$transport"
	else
		nvme_connect "$transport" ,hdr_digest,data_digest
	fi || return
	fio_load "load-$transport-$digests" || ok=1
	echo 1 >/sys/class/nvme/$ctrl/delete_controller
	wait_for 5 ctrl_gone || ok=1
	return $ok
}

FAULTS=/sys/kernel/debug/nvme_tcp_offload_sw
reconnects_logged() { dmesg | grep -c "nvme $ctrl: reconnected"; }

# fault_load NAME OPTIONS INJECT...: connect tcp_offload with OPTIONS,
# start the load, run INJECT two seconds in, then the checks above.
fault_load() {
	local name=$1 options=$2 before ok=0
	shift 2
	ctrl= blk=
	nvme_connect tcp_offload ",reconnect_delay=1$options" || return
	before=$(reconnects_logged)
	# In the background: counted here, in this shell, once it ends.
	fio_run "fault-$name" &
	during $! "$@" || ok=1
	count_bytes "/tmp/fault-$name.json" || ok=1
	wait_for 10 ctrl_live || { echo "  controller not live"; ok=1; }
	[ "$(reconnects_logged)" -gt "$before" ] ||
		{ echo "  no reconnect logged"; ok=1; }
	# Everything as last written, read once more after the recovery.
	fio_load "fault-$name-final" --verify_only || ok=1
	echo 1 >/sys/class/nvme/$ctrl/delete_controller
	wait_for 5 ctrl_gone || ok=1
	return $ok
}

# during PID INJECT...: INJECT two seconds into the load PID (a job of
# this shell), then wait for that load; fails when either failed, or when
# the load had ended before the fault, which then tested nothing of it.
during() {
	local pid=$1 ok=0
	shift
	sleep 2
	"$@" || { echo "  the fault failed, or no recovery from it"; ok=1; }
	kill -0 "$pid" 2>/dev/null ||
		{ echo "  the load ended before the fault was injected"; ok=1; }
	wait "$pid" || ok=1
	return $ok
}

# inject FILE VALUE: the fault on every I/O queue (q1 is the first; a
# guest of two CPUs has two), each of which carries part of the load. A
# fault on one queue can start error recovery before the next queue's
# turn, and recovery takes that queue down with its folder: a queue whose
# file is gone by then is counted as hit, one whose file refuses the
# write is not.
inject() {
	local q n=0
	for q in "$FAULTS/$ctrl"/q[1-9]*; do
		if { echo "$2" >"$q/$1"; } 2>/dev/null; then
			n=$((n + 1))
		elif [ -e "$q/$1" ]; then
			echo "  $q/$1 refused the fault"
			return 1
		fi
	done
	[ "$n" -gt 0 ]
}

# Several faults in one run, each once the controller is live again from
# the last: connections dropped, then queue errors reported, then a
# reset. fio makes three passes over its blocks meanwhile, so that the
# faults land while it writes.
several_faults() {
	recovered_from inject drop_connection 1 &&
		recovered_from inject report_error 1 && reset_ctrl
}
# recovered_from INJECT...: INJECT, then wait until controller $ctrl has
# reconnected since (a fault takes effect later: live right after it
# says nothing).
recovered_from() {
	local before
	before=$(reconnects_logged)
	"$@" && wait_for 10 eval '[ "$(reconnects_logged)" -gt "$before" ] && ctrl_live'
}
# The request timeout is the controller's path device's (nvmeNcMn1 under
# native multipath; $blk itself without).
lose_completion() {
	local q
	for q in /sys/class/nvme/$ctrl/nvme*n1/queue /sys/block/$blk/queue; do
		[ -w "$q/io_timeout" ] && break
	done
	echo 2000 >"$q/io_timeout" && inject lose_completions 1
}
reset_ctrl() { echo 1 >/sys/class/nvme/$ctrl/reset_controller; }

nvme_target_setup && nvme_second_port_up ||
	{ echo "nvme-load: no target"; echo "nvme-load: 0 passed, 1 failed"; exit 1; }
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
echo "nvme-load: $(nproc) CPUs, $JOBS jobs x $JOB_MB MiB, queue depth 32, 512 B-1 MiB"
for transport in tcp_offload tcp; do
	for digests in none hdr+data; do
		check "load $transport digests=$digests" load "$transport" "$digests"
	done
done
check "fault: connection dropped" fault_load dropped "" inject drop_connection 1
check "fault: queue error reported" fault_load queue-error "" inject report_error 1
check "fault: lost completion" fault_load lost "" lose_completion
check "fault: corrupt header digest" fault_load hdgst ",hdr_digest" \
	inject corrupt_hdr_digests 1
check "fault: controller reset" fault_load reset "" reset_ctrl
FIO_EXTRA=--loops=3 check "fault: several in one run, every I/O queue" \
	fault_load several "" several_faults
# Overwrites: $GEN_BLOCKS blocks of 4 KiB (16 MiB), $GEN_PASSES generations
# each run; the runs counted.
GEN_BLOCKS=4096 GEN_PASSES=8 gen_runs=0

# generations_load NAME INJECT...: the overwrites on $blk, INJECT two
# seconds in, then every block checked against its last acknowledged
# generation (the state in /tmp/NAME.gen).
generations_load() {
	local name=$1 ok=0
	shift
	generations write "/dev/$blk" "/tmp/$name.gen" --blocks $GEN_BLOCKS \
		--passes $GEN_PASSES >"/tmp/$name.out" &
	during $! "$@" || ok=1
	cat "/tmp/$name.out"
	generations check "/dev/$blk" "/tmp/$name.gen" || return 1
	gen_runs=$((gen_runs + 1))
	return $ok
}

# overwrites_one_path: generations_load on one tcp_offload controller
# with several_faults; the controller recovers.
overwrites_one_path() {
	local before ok=0
	ctrl= blk=
	nvme_connect tcp_offload ",reconnect_delay=1" || return
	before=$(reconnects_logged)
	generations_load one-path several_faults || ok=1
	wait_for 10 ctrl_live || { echo "  controller not live"; ok=1; }
	[ "$(reconnects_logged)" -gt "$before" ] ||
		{ echo "  no reconnect logged"; ok=1; }
	disconnect || ok=1
	return $ok
}

# The two tcp_offload controllers of two_paths, one a port.
path_a= path_b=
connect_path() {
	echo "transport=tcp_offload,traddr=127.0.0.1,trsvcid=$1,nqn=$NVME_NQN,reconnect_delay=1" \
		>/dev/nvme-fabrics
}
# path_writes CTRL: writes its path device (nvmeNcMn1) has completed. A
# write failed over from a path counts there too (nvme_failover_req()
# ends the request on that path before the head sends its bios again).
path_writes() { awk '{ print $5 }' /sys/class/nvme/$1/nvme*c*n1/stat; }
# lose_each_path: path A stalls (its queues' next completion waits 1 s,
# and all their traffic with it), so that the I/O sent to A piles up
# there, then A's connections drop: what was in flight on A must fail
# over to B. Once A has reconnected, queue errors on path B, until B has
# reconnected too.
lose_each_path() {
	ctrl=$path_a && inject delay_completion_ms 1000 && sleep 0.5 &&
		recovered_from inject drop_connection 1 &&
		ctrl=$path_b && recovered_from inject report_error 1
}
# disconnect_all: every controller of $NVME_NQN deleted, and the
# namespace's device gone with the last.
disconnect_all() {
	local c ok=0
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NVME_NQN" ] || continue
		echo 1 >"$c/delete_controller" || ok=1
	done
	wait_for 5 eval '! grep -qsx "$NVME_NQN" /sys/class/nvme/nvme*/subsysnqn' || ok=1
	return $ok
}
# two_paths: the subsystem through both ports, one multipath device
# ($blk) that sends I/O down both paths in turn (iopolicy round-robin);
# generations_load with lose_each_path. Passes when neither the writes
# nor the reads saw an error, every block holds its last generation, both
# controllers reconnected and are live, and writes were failed over: the
# paths completed more writes than were acknowledged.
two_paths() {
	local ok=0
	path_a= path_b=
	if connect_path $NVME_PORT && connect_path $NVME_PORT2; then
		paths_load || ok=1
	else
		ok=1
	fi
	disconnect_all || ok=1
	return $ok
}
paths_load() {
	local c subsys a_before b_before acked moved ok=0
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn")" = "$NVME_NQN" ] || continue
		case $(cat "$c/address") in
		*trsvcid=$NVME_PORT) path_a=${c##*/} ;;
		*trsvcid=$NVME_PORT2) path_b=${c##*/} ;;
		esac
	done
	[ -n "$path_a" ] && [ -n "$path_b" ] || { echo "  no two controllers"; return 1; }
	blk=$(nvme_ns_of "$path_a") && [ "$(nvme_ns_of "$path_b")" = "$blk" ] ||
		{ echo "  the paths do not share one namespace device"; return 1; }
	subsys=$(grep -l . /sys/class/nvme-subsystem/*/"$path_a"/subsysnqn) ||
		{ echo "  no subsystem of $path_a"; return 1; }
	subsys=${subsys%/"$path_a"/subsysnqn}
	echo round-robin >"$subsys/iopolicy" || return
	a_before=$(path_writes $path_a) b_before=$(path_writes $path_b)
	generations_load two-paths lose_each_path || ok=1
	for ctrl in $path_a $path_b; do
		ctrl_live || { echo "  $ctrl not live"; ok=1; }
	done
	a_before=$(($(path_writes $path_a) - a_before))
	b_before=$(($(path_writes $path_b) - b_before))
	acked=$(sed -n 's/.* \([0-9]*\) writes acknowledged.*/\1/p' /tmp/two-paths.out)
	moved=$((a_before + b_before - ${acked:-0}))
	echo "  writes completed: $a_before on $path_a, $b_before on $path_b;" \
		"$moved failed over"
	[ "$a_before" -gt 0 ] && [ "$b_before" -gt 0 ] ||
		{ echo "  writes did not go down both paths"; ok=1; }
	[ "$moved" -gt 0 ] || { echo "  no write failed over"; ok=1; }
	return $ok
}

# replayed_write_found: block 100 of the last overwrites written again,
# with its previous generation, straight to the target's disk (as a late
# write would land), then the check through a controller must find one
# stale block and nothing else.
replayed_write_found() {
	local out ok=0
	ctrl= blk=
	nvme_connect tcp_offload || return
	generations replay /dev/nvme_ns /tmp/two-paths.gen 100 || ok=1
	out=$(generations check "/dev/$blk" /tmp/two-paths.gen) && ok=1
	echo "$out" | sed 's/^/  /'
	echo "$out" | grep -q ': 1 stale, 0 newer, 0 corrupt$' || ok=1
	disconnect || ok=1
	return $ok
}

check "overwrites: generations through faults on one controller" overwrites_one_path
check "two paths: generations while each path loses its connections" two_paths
check "overwrites: a write replayed late is found" replayed_write_found

# Nothing of the above may have warned, taken locks in an order lockdep
# reports or hung a task (DEBUG_ATOMIC_SLEEP, PROVE_LOCKING and
# DETECT_HUNG_TASK are on).
kernel_log_clean() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|INFO: task .* blocked|circular locking'
}
check "kernel log: no warning, bug or hung task" kernel_log_clean
echo "nvme-load: $written_mb MiB written, $verified_mb MiB read back and checked"
echo "nvme-load: $gen_runs runs of $GEN_BLOCKS blocks x $GEN_PASSES generations, every block checked against its last"
echo "nvme-load: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
