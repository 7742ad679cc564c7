#!/bin/bash
# The NVMe/TCP offload leak check, inside a QEMU guest whose kernel has
# kmemleak and builds the transport and the software device as modules
# (kunit/kmemleak.config, make nvme-kmemleak):
#
#   tools/nvme/nvme_kmemleak_guest.sh BUILD_DIR
#
# What was allocated before is set aside, and the two modules are loaded
# from BUILD_DIR, the guest kernel's build folder. tools/nvme/nvme_guest.sh runs
# its cases (connects, data, disconnects, the target's faults and the
# software device's injected ones). Then the modules: the software
# device's refuses to unload while a controller uses one of its devices
# (the controller holds its driver's module), and once it is deleted,
# unloads, the transport's after it; both load again, carry a
# controller's data and unload again. Last, kmemleak scans. Any
# object it reports whose allocation went through the NVMe host or target
# (a backtrace frame nvme_*, nvmf_* or nvmet_*) or through code no longer
# loaded (a frame printed as a bare address) fails the check; other
# reports are counted only.
# Ends with "nvme-kmemleak: N passed, N failed", nvme_guest.sh's cases and
# its own.
set -uo pipefail
. "$(dirname "$0")/nvme_target.sh"
KMEMLEAK=/sys/kernel/debug/kmemleak
build=${1:?usage: nvme_kmemleak_guest.sh BUILD_DIR}
MODULES=(nvme-tcp-offload nvme-tcp-offload-sw)

die() { echo "nvme-kmemleak: $*" >&2; echo "nvme-kmemleak: $passed passed, $((failed + 1)) failed"; exit 1; }

# The software device on lo and on nvd0, which nvme_guest.sh's unplug
# cases make and delete (the built-in device takes the same from the
# guest's command line).
load_modules() {
	local m params
	for m in "${MODULES[@]}"; do
		params=
		[ "$m" != nvme-tcp-offload-sw ] || params=ifnames=lo,nvd0
		insmod "$build/drivers/nvme/host/$m.ko" $params || return
	done
}

loaded() { grep -q "^$1 " /proc/modules; }

# delete_left STATUS: a case's controller deleted if the case left it, so
# that the next case does not fail for it; returns STATUS.
delete_left() {
	[ -z "$ctrl" ] || ctrl_gone || disconnect
	return "$1"
}

# The software device's module stays while a controller uses it, and the
# controller stays live; deleted, it lets the module go.
unload_refused_in_use() {
	ctrl= blk=
	nvme_connect tcp_offload &&
		! rmmod nvme_tcp_offload_sw 2>/dev/null && loaded nvme_tcp_offload_sw &&
		ctrl_live && disconnect
	delete_left $?
}

# Last loaded first: the device's module uses the transport's.
unload_modules() {
	local i m
	for ((i = ${#MODULES[@]} - 1; i >= 0; i--)); do
		m=${MODULES[i]//-/_}
		rmmod "$m" && ! loaded "$m" || return
	done
}

# Both modules load again, a controller writes and reads back, both unload.
reload() {
	load_modules || return
	ctrl= blk=
	nvme_connect tcp_offload && data 65536 && disconnect
	delete_left $? && unload_modules
}

# A report of an object allocated through the NVMe host or target, or
# through a module since unloaded, whose frames kmemleak prints as bare
# addresses.
nvme_leaks() {
	awk -v RS='unreferenced object' \
		'NR > 1 && (/(nvme|nvmf|nvmet)_/ || /\n +0x[0-9a-f]+\n/) { print "unreferenced object" $0 }' "$1"
}

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -w $KMEMLEAK ] || die "no kmemleak in this kernel"
echo scan >$KMEMLEAK && echo clear >$KMEMLEAK || die "kmemleak refuses scan or clear"
load_modules || die "cannot load ${MODULES[*]} from $build"

"$(dirname "$0")/nvme_guest.sh" | tee /tmp/e2e.log
counts=$(sed -n 's/^nvme-e2e: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' /tmp/e2e.log)
read -r passed failed <<<"${counts:-0 1}"

check "unload: device module refused while a controller uses it" \
	unload_refused_in_use
check "unload: device module, then the transport's" unload_modules
check "reload: modules load, carry data, unload" reload

# kmemleak reports an object only once it is five seconds old and found
# unreferenced by a scan.
sleep 6
echo scan >$KMEMLEAK && echo scan >$KMEMLEAK || die "kmemleak refuses scan"
cat $KMEMLEAK >/tmp/leaks
nvme_leaks /tmp/leaks >/tmp/nvme-leaks
all=$(grep -c '^unreferenced object' /tmp/leaks)
ours=$(grep -c '^unreferenced object' /tmp/nvme-leaks)
cat /tmp/nvme-leaks
echo "kmemleak: $all objects reported, $ours allocated through the NVMe host or target or unloaded code"
check "kmemleak: nothing of the NVMe host or target or of unloaded code left" \
	[ "$ours" -eq 0 ]
echo "nvme-kmemleak: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
