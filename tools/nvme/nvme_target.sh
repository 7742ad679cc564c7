# Shared by tools/nvme/nvme_guest.sh, tools/nvme/nvme_kmemleak_guest.sh and
# tools/nvme/nvme_bench_guest.sh, sourced in a guest of tools/guest/vm.sh: the
# in-kernel NVMe target, the controllers of its subsystem, and the cases
# of the checks.
#
# nvme_target_setup: nvmet over TCP on 127.0.0.1:$NVME_PORT, subsystem
# $NVME_NQN, open to any host, one namespace on a memory-backed null_blk
# device of 512-byte blocks and $NVME_NS_MB MiB made through configfs.

NVME_NQN=nqn.2026-12.org.example:offload-e2e
NVME_PORT=4420
NVME_NS_MB=${NVME_NS_MB:-64}

nvme_target_setup() {
	local cfg=/sys/kernel/config nvmet=/sys/kernel/config/nvmet
	local nullb=/sys/kernel/config/nullb/nvme_ns
	mountpoint -q $cfg || mount -t configfs none $cfg || return
	ip link set lo up || return
	mkdir $nullb || return
	echo 1 >$nullb/memory_backed && echo 512 >$nullb/blocksize &&
		echo "$NVME_NS_MB" >$nullb/size && echo 1 >$nullb/power || return
	# null_blk names a configfs device after its folder.
	local disk=/dev/${nullb##*/}
	[ -b "$disk" ] || return

	local subsys=$nvmet/subsystems/$NVME_NQN
	mkdir $subsys && echo 1 >$subsys/attr_allow_any_host || return
	mkdir $subsys/namespaces/1 && echo "$disk" >$subsys/namespaces/1/device_path &&
		echo 1 >$subsys/namespaces/1/enable || return
	nvme_port_up
}

# nvme_port_up: the target listens on 127.0.0.1:$NVME_PORT and offers the
# subsystem there. nvme_port_down: it no longer listens, which closes the
# connections of the subsystem's controllers; connects are refused.
# nvme_port_withdraw / nvme_port_offer: the port stops / starts offering
# the subsystem (the first closes its controllers' connections).
NVMET_PORT=/sys/kernel/config/nvmet/ports/1
NVMET_PORT_LINK=$NVMET_PORT/subsystems/$NVME_NQN
nvme_port_up() { nvmet_tcp_port $NVMET_PORT $NVME_PORT && nvme_port_offer; }
# nvmet_tcp_port DIR TRSVCID [TRADDR]: an nvmet port folder DIR listening
# on TRADDR (127.0.0.1 if not given):TRSVCID over TCP, offering nothing
# yet.
nvmet_tcp_port() {
	mkdir "$1" && echo tcp >"$1/addr_trtype" && echo ipv4 >"$1/addr_adrfam" &&
		echo "${3:-127.0.0.1}" >"$1/addr_traddr" && echo "$2" >"$1/addr_trsvcid"
}
nvme_port_down() { nvme_port_withdraw && rmdir $NVMET_PORT; }
# nvme_second_port_up: the subsystem offered on 127.0.0.1:$NVME_PORT2 as
# well, a second path to it (make nvme-load's multipath cases).
NVME_PORT2=4421
nvme_second_port_up() {
	local port=/sys/kernel/config/nvmet/ports/2
	nvmet_tcp_port $port $NVME_PORT2 &&
		ln -s /sys/kernel/config/nvmet/subsystems/$NVME_NQN $port/subsystems/
}
# The target behind a net_device that can go (nvme_guest.sh's unplug
# cases): a veth pair, nvd0 here (10.77.0.1/24) and nvd1 (10.77.0.3/24) in
# network namespace $NIC_NS, where a third port listens on $NIC_TARGET,
# an address of that namespace's lo (so that it outlives the pair, which
# deleting nvd0 deletes whole), so that the route to the target leaves by
# nvd0. The software offload device
# attaches to nvd0 only if the guest's command line names it:
# nvme_tcp_offload_sw.ifnames=lo,nvd0 (make nvme-e2e gives it).
NIC_NS=nvme-tgt
NIC_TARGET=10.77.0.2
NIC_PORT=4422
NVMET_NIC_PORT=/sys/kernel/config/nvmet/ports/3
# nic_up: nvd0 and nvd1 made, addressed and up.
nic_up() {
	ip link add nvd0 type veth peer name nvd1 netns $NIC_NS &&
		ip addr add 10.77.0.1/24 dev nvd0 && ip link set nvd0 up &&
		ip -n $NIC_NS addr add 10.77.0.3/24 dev nvd1 &&
		ip -n $NIC_NS link set nvd1 up
}
# nic_target_setup: the namespace and its port (nvd0 not made yet).
nic_target_setup() {
	ip netns add $NIC_NS && ip -n $NIC_NS link set lo up &&
		ip -n $NIC_NS addr add $NIC_TARGET/32 dev lo &&
		nvmet_tcp_port $NVMET_NIC_PORT $NIC_PORT $NIC_TARGET && nic_port_offer
}
# nic_port_offer / nic_port_withdraw: the port starts / stops offering
# the subsystem, and so listening. nvmet-tcp makes its listening socket
# in the network namespace of the process that enables the port: the
# link is made from inside $NIC_NS.
nic_port_offer() {
	nsenter --net=/run/netns/$NIC_NS \
		ln -s /sys/kernel/config/nvmet/subsystems/$NVME_NQN $NVMET_NIC_PORT/subsystems/
}
nic_port_withdraw() { rm $NVMET_NIC_PORT/subsystems/$NVME_NQN; }

nvme_port_offer() {
	ln -s /sys/kernel/config/nvmet/subsystems/$NVME_NQN "$NVMET_PORT_LINK"
}
nvme_port_withdraw() { rm "$NVMET_PORT_LINK"; }

# nvme_find_ctrl TRANSPORT: the controller of $NVME_NQN on TRANSPORT, as
# "nvmeN", if there is one.
nvme_find_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$NVME_NQN" ] &&
			[ "$(cat "$c/transport")" = "$1" ] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

# nvme_connect TRANSPORT [OPTIONS]: a controller of $NVME_NQN through
# TRANSPORT, live, with its namespace, as $ctrl and $blk. Without OPTIONS
# through nvme-cli; with them (",hdr_digest,data_digest") by writing the
# option string to /dev/nvme-fabrics, since nvme-cli adds digest options
# for "tcp" only.
nvme_connect() {
	local transport=$1 options=${2:-}
	if [ -z "$options" ]; then
		nvme connect -t "$transport" -a 127.0.0.1 -s $NVME_PORT -n "$NVME_NQN" >/dev/null
	else
		echo "transport=$transport,traddr=127.0.0.1,trsvcid=$NVME_PORT,nqn=$NVME_NQN$options" \
			>/dev/nvme-fabrics
	fi || return
	ctrl=$(nvme_find_ctrl "$transport") || return
	[ "$(cat /sys/class/nvme/$ctrl/state)" = live ] || return
	blk=$(nvme_ns_of "$ctrl")
}

# nvme_ns_of CTRL: its namespace's block device, as "nvmeNn1", once the
# scan has made it (up to five seconds). With native multipath (a kernel
# with NVME_MULTIPATH, as the QEMU guests' and distributions') the
# controller holds the hidden path device "nvmeNcMn1", and the block
# device users open is the subsystem's "nvmeNn1".
nvme_ns_of() {
	local i blk
	for i in $(seq 50); do
		blk=$(ls "/sys/class/nvme/$1/" | grep -m 1 -E '^nvme[0-9]+(c[0-9]+)?n1$') &&
			blk=$(echo "$blk" | sed -E 's/c[0-9]+n/n/') &&
			[ -b "/dev/$blk" ] && { echo "$blk"; return 0; }
		sleep 0.1
	done
	return 1
}

# check NAME COMMAND...: one case (tools/cases.sh).
. "$(dirname "${BASH_SOURCE[0]}")/../cases.sh"

# wait_for SECONDS COMMAND...: whether COMMAND succeeds within SECONDS.
wait_for() {
	local i
	for i in $(seq $(($1 * 10))); do
		"${@:2}" && return 0
		sleep 0.1
	done
	return 1
}

# The state of controller $ctrl and its namespace's block device $blk.
ctrl_live() { [ "$(cat /sys/class/nvme/$ctrl/state 2>/dev/null)" = live ]; }
ctrl_down() { ! ctrl_live; }
ctrl_gone() { [ ! -e /sys/class/nvme/$ctrl ]; }
ctrl_and_ns_gone() { ctrl_gone && [ ! -e /dev/$blk ]; }

# data BS: a random pattern written to $blk with O_DIRECT in BS-byte
# requests reads back equal (4 MiB, 1 MiB below 4 KiB requests).
data() {
	local bs=$1 total=$((4 << 20))
	[ "$bs" -lt 4096 ] && total=$((1 << 20))
	head -c $total /dev/urandom >/tmp/pattern || return
	dd if=/tmp/pattern of=/dev/$blk bs="$bs" count=$((total / bs)) oflag=direct status=none &&
		dd if=/dev/$blk of=/tmp/back bs="$bs" count=$((total / bs)) iflag=direct status=none &&
		cmp -s /tmp/pattern /tmp/back
}

# disconnect: delete_controller removes $ctrl and $blk.
disconnect() {
	echo 1 >/sys/class/nvme/$ctrl/delete_controller &&
		wait_for 5 ctrl_and_ns_gone
}

# A reader of the whole namespace in the background, as $reader; it ends
# with the data or an I/O error, and hanging, it is killed.
start_reader() {
	timeout 60 dd if=/dev/$blk of=/dev/null bs=4k iflag=direct status=none &
	reader=$!
}
