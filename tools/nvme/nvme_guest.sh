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
# Then the software device's net_device goes (a veth pair whose far end
# is in a network namespace with a target port of its own, see
# nvme_target.sh): deleted as a connect starts, 20 rounds; under a
# reader; while the controller reconnects to a target that stopped
# listening; while the target is unreachable and a read outstanding
# ("ip link del" within 10 s, not the read's 30 s timeout). Each time
# "ip link del" returns within 30 s (it waits for the
# device's unregistration, which deletes its controllers and waits for
# them), the connect ends, and no controller is left within ten seconds.
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

# The controller of $NVME_NQN at $NIC_TARGET, as "nvmeN", if there is one.
nic_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/address" ] && grep -q "traddr=$NIC_TARGET," "$c/address" &&
			{ echo "${c##*/}"; return 0; }
	done
	return 1
}
nic_no_ctrl() { ! nic_ctrl >/dev/null; }
proc_gone() { ! kill -0 "$1" 2>/dev/null; }

# nic_connect [OPTIONS]: a live tcp_offload controller through nvd0, as
# $ctrl and $blk.
nic_connect() {
	echo "transport=tcp_offload,traddr=$NIC_TARGET,trsvcid=$NIC_PORT,nqn=$NVME_NQN${1:-}" \
		>/dev/nvme-fabrics || return
	ctrl=$(nic_ctrl) && ctrl_live || return
	blk=$(nvme_ns_of "$ctrl")
}

# nic_unplug: nvd0 deleted; "ip link del" returns once the device's
# unregistration has deleted its controllers and they let go of it.
nic_unplug() {
	local start=$(date +%s%N) rc
	timeout 30 ip link del nvd0
	rc=$?
	echo "  ip link del: $((($(date +%s%N) - start) / 1000000)) ms"
	[ $rc -eq 0 ] || { echo "  ip link del nvd0 did not return in 30 s"; return 1; }
}

# pause MS: a wait of MS milliseconds inside the shell (an exec of sleep
# takes over 100 ms in a User Mode Linux guest): a read that times out on
# a FIFO of our own that nothing writes.
pause() {
	[ -p /tmp/pause.fifo ] || mkfifo /tmp/pause.fifo || return
	read -rt "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))" <>/tmp/pause.fifo
	return 0
}

# connect_nic_bg: a connect through nvd0 in the background, as $conn; its
# error, if any, in /tmp/nic-connect.err.
connect_nic_bg() {
	(echo "transport=tcp_offload,traddr=$NIC_TARGET,trsvcid=$NIC_PORT,nqn=$NVME_NQN" \
		>/dev/nvme-fabrics) 2>/tmp/nic-connect.err &
	conn=$!
}

# A connect through nvd0 and "ip link del nvd0" at nearly the same time,
# 20 times: in odd rounds the connect first, the delete 0-60 ms (at
# random) after; in even rounds the delete first, the connect 0-120 ms
# after. Each time both end, and no controller is left. How the rounds
# fell is printed, from the connect's result: the device gone before the
# connect claimed it (ENODEV), the connect failed on its way (any other
# error), or it connected and the unregistration removed the controller.
unplug_during_connect() {
	local round conn unplug gone=0 failed_on_way=0 removed=0
	for round in $(seq 20); do
		nic_up || return
		if [ $((round % 2)) = 1 ]; then
			connect_nic_bg
			pause $((RANDOM % 61))
			nic_unplug >/dev/null &
			unplug=$!
		else
			nic_unplug >/dev/null &
			unplug=$!
			pause $((RANDOM % 121))
			connect_nic_bg
		fi
		wait_for 30 proc_gone $conn || { echo "  round $round: connect stuck"; return 1; }
		if wait $conn; then
			removed=$((removed + 1))
		elif grep -q "No such device" /tmp/nic-connect.err; then
			gone=$((gone + 1))
		else
			failed_on_way=$((failed_on_way + 1))
		fi
		wait_for 30 proc_gone $unplug && wait $unplug ||
			{ echo "  round $round: ip link del stuck or failed"; return 1; }
		wait_for 10 nic_no_ctrl || { echo "  round $round: $(nic_ctrl) left"; return 1; }
	done
	echo "  device gone before the connect $gone, connect failed on its way $failed_on_way, connected and removed $removed"
}

# nvd0 deleted under a reader: the controller is removed, the reader ends.
unplug_under_io() {
	nic_up && nic_connect || return
	start_reader
	sleep 0.5
	nic_unplug && removed
}

# The target becomes unreachable (its end of the pair goes down, so what
# the device sends is dropped and nothing answers), a read is sent, and
# nvd0 is deleted half a second later: the read cannot complete, yet
# "ip link del" returns within ten seconds (the read's timeout is 30 s)
# and the controller is removed.
unplug_unreachable() {
	local start ms
	nic_up && nic_connect || return
	ip -n $NIC_NS link set nvd1 down || return
	start_reader
	pause 500
	start=$(date +%s%N)
	nic_unplug || return
	ms=$((($(date +%s%N) - start) / 1000000))
	[ "$ms" -lt 10000 ] || { echo "  ip link del waited $ms ms"; return 1; }
	removed
}

# The target stops listening, the controller reconnects every second and
# is refused; nvd0 deleted 0-2 s later: removed. The port listens again
# after.
unplug_while_reconnecting() {
	local ok=1
	nic_up && nic_connect ,reconnect_delay=1 || return
	start_reader
	nic_port_withdraw || return
	wait_for 5 ctrl_down || ok=0
	sleep "$(printf '%d.%03d' $((RANDOM % 2)) $((RANDOM % 1000)))"
	nic_unplug && removed || ok=0
	nic_port_offer || ok=0
	[ "$ok" = 1 ]
}

# unplug NAME FUNCTION: one unplug case; nvd0 and any controller left by
# a failure are cleared after it.
unplug() {
	ctrl= blk=
	check "tcp_offload: $1" "$2"
	[ ! -e /sys/class/net/nvd0 ] || timeout 30 ip link del nvd0
	ctrl=$(nic_ctrl) && echo 1 >/sys/class/nvme/$ctrl/delete_controller
	wait_for 5 nic_no_ctrl
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
if grep -qw nvd0 /sys/module/nvme_tcp_offload_sw/parameters/ifnames &&
	nic_target_setup; then
	unplug "net_device deleted during a connect, 20 rounds" unplug_during_connect
	unplug "net_device deleted under a reader: removed" unplug_under_io
	unplug "net_device deleted while reconnecting: removed" \
		unplug_while_reconnecting
	unplug "net_device deleted, target unreachable, a read outstanding: removed at once" \
		unplug_unreachable
else
	echo "nvme-e2e: no software device on nvd0 (the guest's command line needs nvme_tcp_offload_sw.ifnames=lo,nvd0) or no target behind it" >&2
	check "tcp_offload: net_device unplug cases" false
fi
echo "nvme-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
