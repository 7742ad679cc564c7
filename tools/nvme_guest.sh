#!/bin/bash
# The NVMe/TCP offload end-to-end check, inside a guest of tools/vm.sh
# (never on the host: it needs the in-kernel NVMe target and configfs of
# its own).
#
# The target: nvmet over TCP on 127.0.0.1:4420, subsystem $NQN, one
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
# One case per check; ends with "nvme-e2e: N passed, N failed".
set -uo pipefail
[ -z "${NVME_E2E_TRACE:-}" ] || set -x

NQN=nqn.2026-12.org.example:offload-e2e
CFG=/sys/kernel/config
NVMET=$CFG/nvmet
NULLB=$CFG/nullb/nvme_e2e
PORT=4420
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

setup_target() {
	mountpoint -q $CFG || mount -t configfs none $CFG || return
	ip link set lo up || return
	mkdir $NULLB || return
	echo 1 >$NULLB/memory_backed && echo 512 >$NULLB/blocksize &&
		echo 64 >$NULLB/size && echo 1 >$NULLB/power || return
	# null_blk names a configfs device after its folder.
	local disk=/dev/${NULLB##*/}
	[ -b "$disk" ] || return

	local subsys=$NVMET/subsystems/$NQN port=$NVMET/ports/1
	mkdir $subsys && echo 1 >$subsys/attr_allow_any_host || return
	mkdir $subsys/namespaces/1 && echo "$disk" >$subsys/namespaces/1/device_path &&
		echo 1 >$subsys/namespaces/1/enable || return
	mkdir $port && echo tcp >$port/addr_trtype && echo ipv4 >$port/addr_adrfam &&
		echo 127.0.0.1 >$port/addr_traddr && echo $PORT >$port/addr_trsvcid || return
	ln -s $subsys $port/subsystems/$NQN
}

# The controller of $NQN on transport $1, as "nvmeN", if there is one.
find_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$NQN" ] &&
			[ "$(cat "$c/transport")" = "$1" ] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

connect() {
	local transport=$1 digests=$2
	if [ "$digests" = none ]; then
		nvme connect -t "$transport" -a 127.0.0.1 -s $PORT -n "$NQN" >/dev/null
	else
		echo "transport=$transport,traddr=127.0.0.1,trsvcid=$PORT,nqn=$NQN,hdr_digest,data_digest" \
			>/dev/nvme-fabrics
	fi || return
	ctrl=$(find_ctrl "$transport") || return
	[ "$(cat /sys/class/nvme/$ctrl/state)" = live ] || return
	# The namespace's block device shows up once the scan is done.
	local i
	for i in $(seq 50); do
		blk=$(ls /sys/class/nvme/$ctrl/ | grep -m 1 -E "^nvme[0-9]+n1$") &&
			[ -b /dev/$blk ] && return 0
		sleep 0.1
	done
	return 1
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

setup_target || die "cannot set up the target (nvmet, nvmet-tcp, null_blk and configfs built in?)"
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
echo "nvme-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
