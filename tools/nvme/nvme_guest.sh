#!/bin/bash
# The NVMe/TCP offload end-to-end check, inside a guest of tools/guest/vm.sh
# (never on the host: it needs the in-kernel NVMe target and configfs of
# its own).
#
# The target (tools/nvme/nvme_target.sh): nvmet over TCP on 127.0.0.1:4420, one
# namespace on a memory-backed null_blk device of 512-byte blocks made
# through configfs. The host: the "tcp_offload" transport through the
# software offload device on lo, and for comparison "tcp", each without
# and with header and data digests. For each of the four:
#   connect      nvme-cli's "nvme connect -t TRANSPORT" without digests;
#                with them, the option string written to /dev/nvme-fabrics
#                (nvme-cli adds digest options for "tcp" only); the new
#                controller is live on its transport, with its namespace
#   data BS      a random pattern written with O_DIRECT in BS-byte
#                requests (512 B to 1 MiB) reads back equal
#   disconnect   delete_controller removes the controller and its
#                namespace's block device
# Then, on each transport, a controller connected with nr_write_queues=1
# has a write queue besides a default queue a CPU, and carries data.
# Then faults under a reader of a tcp_offload controller:
#   the user resets the controller (reset_controller): it connects again;
#   the target drops the connections and offers the subsystem again before
#   the first reconnect; the target stops listening for three seconds
#   (reconnects refused, then one succeeds): the controller is live again
#   within ten seconds, the reader read all, data written after reads back;
#   the target stops listening with ctrl_loss_tmo=2, or refuses the
#   subsystem (DNR): the controller is removed within ten seconds and the
#   reader ends;
#   faults the software device injects (debugfs): a dropped connection, an
#   admin queue error, a lost completion (io_timeout 2 s), a header digest
#   the target finds corrupt: the controller recovers as above; a
#   completion delayed 1.5 s: the read takes that long and nothing fails.
# One case per check; ends with "nvme-e2e: N passed, N failed".
set -uo pipefail
[ -z "${NVME_E2E_TRACE:-}" ] || set -x

. "$(dirname "$0")/nvme_target.sh"
SIZES="512 4096 65536 1048576"

die() { echo "nvme-e2e: $*" >&2; echo "nvme-e2e: $passed passed, $((failed + 1)) failed"; exit 1; }

connect() {
	if [ "$2" = none ]; then
		nvme_connect "$1"
	else
		nvme_connect "$1" ,hdr_digest,data_digest
	fi
}

# The controller is live again within ten seconds, the reader's requests
# were retried and it read all, and data written after reads back.
recovered() {
	local ok=1
	wait_for 10 ctrl_live || ok=0
	wait $reader || ok=0
	[ "$ok" = 1 ] && data 65536
}

# The target drops the connections and offers the subsystem again before
# the first reconnect (reconnect_delay=2).
target_drops_briefly() {
	start_reader
	nvme_port_withdraw || return
	wait_for 5 ctrl_down || return
	nvme_port_offer || return
	recovered
}

# The user resets the controller: it connects again at once, which the
# kernel log says (the state may pass through connecting too fast to see).
reconnects_logged() { dmesg | grep -c "nvme $ctrl: reconnected"; }
user_reset() {
	local before
	before=$(reconnects_logged)
	start_reader
	echo 1 >/sys/class/nvme/$ctrl/reset_controller || return
	recovered && [ "$(reconnects_logged)" -gt "$before" ]
}

# The target stops listening for three seconds: reconnects are refused,
# retried every second (reconnect_delay=1), then one succeeds.
target_away_3s() {
	start_reader
	nvme_port_down || return
	wait_for 5 ctrl_down || return
	sleep 3
	nvme_port_up || return
	recovered
}

# The controller is removed within ten seconds and the reader ends.
removed() {
	local ok=1
	wait_for 10 ctrl_gone || ok=0
	wait $reader
	[ $? -ne 124 ] || ok=0
	[ "$ok" = 1 ]
}

# The target stops listening for good: ctrl_loss_tmo=2 runs out.
target_away_loss() {
	start_reader
	nvme_port_down || return
	removed
}

# The target refuses the subsystem for good: no reconnect after DNR. A
# second subsystem keeps the port listening (nvmet stops listening on a
# port that offers none), so that connects reach it and are refused.
OTHER_SUBSYS=/sys/kernel/config/nvmet/subsystems/$NVME_NQN-other
target_refuses() {
	local ok
	mkdir $OTHER_SUBSYS && ln -s $OTHER_SUBSYS $NVMET_PORT/subsystems/ || return
	start_reader
	nvme_port_withdraw && removed
	ok=$?
	rm $NVMET_PORT/subsystems/${OTHER_SUBSYS##*/} && rmdir $OTHER_SUBSYS
	return $ok
}

# The software device's fault injection (tcp-offload-sw-fault.c):
# inject QUEUE FILE VALUE writes VALUE to FILE of queue QUEUE of $ctrl:
# 0 for the admin queue, "io" for every I/O queue (a guest of several
# CPUs has several, and the reader's requests go to its CPU's).
FAULTS=/sys/kernel/debug/nvme_tcp_offload_sw
inject() {
	local q
	if [ "$1" = io ]; then
		for q in "$FAULTS/$ctrl"/q[1-9]*; do
			echo "$3" >"$q/$2" || return
		done
	else
		echo "$3" >"$FAULTS/$ctrl/q$1/$2"
	fi
}

# An injected fault the controller recovers from by reconnecting: it
# leaves live within ten seconds, then recovered.
injected_recovers() {
	start_reader
	inject "$@" || return
	wait_for 10 ctrl_down || return
	recovered
}

# A lost completion: the request times out (io_timeout 2 s), error
# recovery reconnects, the request is retried.
lost_completion() {
	echo 2000 >/sys/block/$blk/queue/io_timeout || return
	injected_recovers io lose_completions 1
}

# A completion delayed by 1.5 s: the read takes that long, nothing fails,
# the controller stays live.
delayed_completion() {
	local start ms
	inject io delay_completion_ms 1500 || return
	start=$(date +%s%N)
	dd if=/dev/$blk of=/dev/null bs=4k count=1 iflag=direct status=none || return
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -ge 1400 ] && ctrl_live && data 65536
}

# write_queues TRANSPORT: connected with nr_write_queues=1, a controller
# has the admin queue, a default queue an online CPU and one write queue,
# as nvme-tcp sizes them, and carries data.
write_queues() {
	local want=$((1 + $(getconf _NPROCESSORS_ONLN) + 1)) got
	nvme_connect "$1" ,nr_write_queues=1 || return
	got=$(cat /sys/class/nvme/$ctrl/queue_count) || return
	[ "$got" = "$want" ] || { echo "  queue_count $got, want $want"; return 1; }
	data 65536
}

# fault NAME OPTIONS FUNCTION [ARGS]: FUNCTION ARGS on a tcp_offload
# controller connected with OPTIONS (",opt=value..."); after it, the
# target offers the subsystem again and the controller is deleted if it
# is still there.
fault() {
	ctrl= blk=
	if nvme_connect tcp_offload "$2"; then
		check "tcp_offload: $1" "${@:3}"
	else
		check "tcp_offload: $1" false
	fi
	if [ ! -d $NVMET_PORT ]; then
		nvme_port_up
	elif [ ! -e "$NVMET_PORT_LINK" ]; then
		nvme_port_offer
	fi
	[ -z "$ctrl" ] || ctrl_gone || echo 1 >/sys/class/nvme/$ctrl/delete_controller
	wait_for 5 ctrl_gone
}

nvme_target_setup || die "cannot set up the target (nvmet, nvmet-tcp, null_blk and configfs built in?)"
for transport in tcp_offload tcp; do
	for digests in none hdr+data; do
		name="$transport digests=$digests"
		ctrl= blk=
		check "$name: connect" connect "$transport" "$digests"
		if [ -z "$blk" ]; then
			for bs in $SIZES; do check "$name: data bs=$bs" false; done
			check "$name: disconnect" false
			[ -z "$ctrl" ] || echo 1 >/sys/class/nvme/$ctrl/delete_controller
			continue
		fi
		for bs in $SIZES; do check "$name: data bs=$bs" data "$bs"; done
		check "$name: disconnect" disconnect
	done
done
for transport in tcp_offload tcp; do
	ctrl= blk=
	check "$transport: nr_write_queues=1: a write queue" write_queues $transport
	[ -z "$ctrl" ] || ctrl_gone || echo 1 >/sys/class/nvme/$ctrl/delete_controller
	wait_for 5 ctrl_gone
done
fault "user reset: reconnects" "" user_reset
fault "target drops the connections briefly: reconnects" \
	,reconnect_delay=2 target_drops_briefly
fault "target away for 3 s: reconnects" \
	,reconnect_delay=1 target_away_3s
fault "target away, ctrl_loss_tmo=2: removed" \
	,reconnect_delay=1,ctrl_loss_tmo=2 target_away_loss
fault "target refuses the subsystem: removed" ,reconnect_delay=1 \
	target_refuses
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
fault "injected: connection dropped: reconnects" ,reconnect_delay=1 \
	injected_recovers io drop_connection 1
fault "injected: admin queue error: reconnects" ,reconnect_delay=1 \
	injected_recovers 0 report_error 1
fault "injected: lost completion: timeout, reconnects" ,reconnect_delay=1 \
	lost_completion
fault "injected: delayed completion: completes" ,reconnect_delay=1 \
	delayed_completion
fault "injected: corrupt header digest: target drops, reconnects" \
	,hdr_digest,reconnect_delay=1 injected_recovers io corrupt_hdr_digests 1
echo "nvme-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
