#!/bin/sh
# PID 1 of the guests tools/guest/vm.sh boots: the root filesystem (the host's
# "/", or build/rootfs-ARCH with this file copied to /sbin/vm-init) is
# read-only, over virtio-9p or UML's hostfs. Mount what a test needs (proc,
# sys, dev, cgroup2, tracefs, tmpfs wherever it writes), mount the checkout
# (and tree) exports named by vm_shares= at their host paths, over those
# tmpfs mounts where they lie under one, run the command tools/guest/vm.sh left
# in the file named by vm_cmd= (the kernel hands unknown parameters to init
# as environment variables), print its exit status on a marker line, and
# power off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/root
export PATH HOME

mount -t proc proc /proc || echo "vm-init: cannot mount /proc"
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# What udev makes on a full system; bash's process substitution needs it.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
for dir in /tmp /run /var/tmp /root; do
	mount -t tmpfs tmpfs "$dir"
done
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
ip link set lo up

# Under QEMU (vm_sharefs=9p) share0 is mounted at the first path of
# vm_shares, share1 at the second...; under User Mode Linux
# (vm_sharefs=hostfs) each path is the host's own folder.
i=0
for dir in $(echo "${vm_shares:-}" | tr ':' ' '); do
	if [ "${vm_sharefs:-9p}" = hostfs ]; then
		mkdir -p "$dir" && mount -t hostfs -o "ro,$dir" hostfs "$dir"
	else
		mkdir -p "$dir" &&
			mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=262144,cache=loose \
				"share$i" "$dir"
	fi || echo "vm-init: cannot mount the host's $dir in the guest"
	i=$((i + 1))
done

echo "vm-init: running $vm_cmd"
cd /tmp
if [ -r "$vm_cmd" ]; then
	/bin/bash "$vm_cmd"
	status=$?
else
	echo "vm-init: cannot read the command file $vm_cmd in the guest"
	status=126
fi
echo "vm-init: exit status $status"
echo o >/proc/sysrq-trigger
# The root filesystem goes with the power: nothing more to run.
while :; do :; done
