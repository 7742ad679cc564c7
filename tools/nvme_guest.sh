#!/bin/bash
# The NVMe/TCP offload end-to-end check, inside a guest of tools/vm.sh
# (never on the host: it needs the in-kernel NVMe target and configfs of
# its own).
#
# The target (tools/nvme_target.sh): nvmet over TCP on 127.0.0.1:4420, one
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
# Then one fault, through tcp_offload only (tcp would reconnect, tcp_offload
# does not yet): the target drops the connections (its port stops offering
# the subsystem) under a reader; the controller is removed within ten
# seconds and the reader ends.
# One case per check; ends with "nvme-e2e: N passed, N failed".
set -uo pipefail
[ -z "${NVME_E2E_TRACE:-}" ] || set -x

. "$(dirname "$0")/nvme_target.sh"
SIZES="512 4096 65536 1048576"

passed=0 failed=0
die() { echo "nvme-e2e: $*" >&2; echo "nvme-e2e: $passed passed, $((failed + 1)) failed"; exit 1; }

# check NAME COMMAND...: one case, passed when COMMAND succeeds.
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok    $name"
		passed=$((passed + 1))
	else
		echo "FAIL  $name"
		failed=$((failed + 1))
	fi
}

connect() {
	if [ "$2" = none ]; then
		nvme_connect "$1"
	else
		nvme_connect "$1" ,hdr_digest,data_digest
	fi
}

data() {
	local bs=$1 total=$((4 << 20))
	[ "$bs" -lt 4096 ] && total=$((1 << 20))
	head -c $total /dev/urandom >/tmp/pattern || return
	dd if=/tmp/pattern of=/dev/$blk bs="$bs" count=$((total / bs)) oflag=direct status=none &&
		dd if=/dev/$blk of=/tmp/back bs="$bs" count=$((total / bs)) iflag=direct status=none &&
		cmp -s /tmp/pattern /tmp/back
}

disconnect() {
	local i
	echo 1 >/sys/class/nvme/$ctrl/delete_controller || return
	for i in $(seq 50); do
		[ ! -e /sys/class/nvme/$ctrl ] && [ ! -e /dev/$blk ] && return 0
		sleep 0.1
	done
	return 1
}

# The target unlinks the subsystem from its port, which closes the
# connections; linked again after, for what follows.
target_drops() {
	local port=/sys/kernel/config/nvmet/ports/1 i reader ok=1
	# It ends with the data or an I/O error; hanging, it is killed.
	timeout 30 dd if=/dev/$blk of=/dev/null bs=4k iflag=direct status=none &
	reader=$!
	rm $port/subsystems/$NVME_NQN || return
	for i in $(seq 100); do
		[ -e /sys/class/nvme/$ctrl ] || break
		sleep 0.1
	done
	[ ! -e /sys/class/nvme/$ctrl ] || ok=0
	wait $reader
	[ $? -ne 124 ] || ok=0
	ln -s /sys/kernel/config/nvmet/subsystems/$NVME_NQN $port/subsystems/$NVME_NQN
	[ "$ok" = 1 ]
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
ctrl= blk=
if connect tcp_offload none; then
	check "tcp_offload: target drops the connection: controller removed" target_drops
else
	check "tcp_offload: target drops the connection: controller removed" false
fi
echo "nvme-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
