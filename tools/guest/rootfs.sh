#!/usr/bin/env bash
# Build the root filesystem of guests whose architecture is not the host's
# (arm64 on an x86_64 host): Debian bookworm's minbase variant and the
# packages tools/packages marks "guest", for that architecture, from the archive
# apt is configured to use, in build/rootfs-ARCH.
#
#   tools/guest/rootfs.sh ARCH
#
# debootstrap's first stage (download and unpack; nothing of ARCH runs)
# runs on the host. Its second stage (the maintainer scripts, ARCH
# programs) runs inside an ARCH guest that tools/guest/vm.sh boots on the new
# root, exported writable for that one boot: no qemu-user, no binfmt_misc,
# nothing of the host's kernel. Later guests get the root read-only.
#
# The build happens in build/rootfs-ARCH.new, renamed when complete, with
# .rootfs-id holding a hash of the suite, the package list and the second
# stage's script. A root with another id (a package was added) is rebuilt;
# a build interrupted before it completes is deleted by the next run, a
# complete one whose rename was cut short is taken. One build at a time: a
# second run waits for the lock.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

arch=${1:?usage: tools/guest/rootfs.sh ARCH}
case "$arch" in
arm64) debian_arch=arm64 ;;
x86_64) debian_arch=amd64 ;;
*) die "unknown arch '$arch' (x86_64 or arm64)" ;;
esac
[ "$arch" != "$(host_arch)" ] ||
	die "$arch guests boot on the host's root filesystem: nothing to build"
SUITE=bookworm
root="$TOP/build/rootfs-$arch"
new="$root.new"
# One build at a time, and none while a guest runs on the root: tools/guest/vm.sh
# holds this lock (ROOTFS_LOCKED=1) for as long as its guest runs.
if [ -z "${ROOTFS_LOCKED:-}" ]; then
	mkdir -p "$TOP/build"
	exec 9>>"$root.lock"
	flock 9
fi
STAGE2=/sbin/rootfs-second-stage

# PID 1 of the second-stage guest. QEMU's 9p server refuses to open device
# nodes, so /dev is the guest's devtmpfs, and debootstrap is told it runs in
# an LXC container, the one case in which it skips its check that the
# target can hold working device nodes. debootstrap unmounts /proc when it
# ends, so it is mounted again for the power-off; the marker line is the
# one tools/guest/vm.sh reads its exit status from. Should the power-off fail,
# PID 1 exits: the kernel panics, and with panic=-1 and QEMU's -no-reboot
# the guest ends.
STAGE2_SCRIPT=$(cat <<'EOF'
#!/bin/sh
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t devtmpfs devtmpfs /dev
container=lxc /debootstrap/debootstrap --second-stage
status=$?
rm -rf /var/cache/apt/archives/*.deb /var/lib/apt/lists/*
sync
echo "vm-init: exit status $status"
[ -e /proc/sysrq-trigger ] || mount -t proc proc /proc
echo o >/proc/sysrq-trigger
exit "$status"
EOF
)

# A complete build (its .rootfs-id is written last) whose rename was cut
# short is taken as it is.
[ -d "$root" ] || [ ! -f "$new/.rootfs-id" ] || mv "$new" "$root"

# What the root is made of: a change to any of it rebuilds the root.
packages=$(sed -e 's/#.*//' "$TOP/tools/packages" | awk '$2 == "guest" { print $1 }' | xargs | tr ' ' ',')
id=$(printf '%s\n' "$SUITE $debian_arch minbase $packages" "$STAGE2_SCRIPT" | sha256sum | cut -c1-16)
if [ "$(cat "$root/.rootfs-id" 2>/dev/null)" = "$id" ]; then
	rm -rf --one-file-system "$new" "$root.old"
	info "build/rootfs-$arch is up to date ($id)"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "debootstrap needs root"
command -v debootstrap >/dev/null || die "no debootstrap: run 'make setup'"

# The archive apt takes the suite from (deb822 sources or sources.list).
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' |
	awk -v suite="$SUITE" '$2 == suite && !uri { uri = $1 } END { print uri }')
[ -n "$mirror" ] || die "apt knows no archive for $SUITE (none in its sources, or no 'apt-get update' yet)"

start=$(date +%s)
rm -rf --one-file-system "$new" "$root.old"
[ ! -d "$root" ] || info "build/rootfs-$arch is out of date (its packages in tools/packages or the second stage changed): rebuilding"
info "first stage: $SUITE $debian_arch from $mirror into build/rootfs-$arch.new"
debootstrap --foreign --arch="$debian_arch" --variant=minbase \
	--include="$packages" "$SUITE" "$new" "$mirror" >"$TOP/build/rootfs-$arch.log" 2>&1 || {
	tail -n 20 "$TOP/build/rootfs-$arch.log" >&2
	die "debootstrap's first stage failed (build/rootfs-$arch.log)"
}
# Where debootstrap finds /.dockerenv, as on the build machine, it makes
# the new root's /proc a symlink to the host's; the guest mounts its own.
if [ -L "$new/proc" ]; then
	rm "$new/proc"
	mkdir -m 555 "$new/proc"
fi
printf '%s\n' "$STAGE2_SCRIPT" >"$new$STAGE2"
chmod 755 "$new$STAGE2"

info "second stage: in an $arch guest (build/rootfs-$arch.log)"
"$TOP/tools/guest/vm.sh" --arch "$arch" --root "$new" --writable-root --init "$STAGE2" \
	>>"$TOP/build/rootfs-$arch.log" 2>&1 8>&- 9>&- || {
	tail -n 20 "$TOP/build/rootfs-$arch.log" >&2
	die "debootstrap's second stage failed (build/rootfs-$arch.log)"
}
rm -f "$new$STAGE2"
echo "$id" >"$new/.rootfs-id"
# Interrupted between the two renames, the next run takes .new as the root
# (see above).
[ ! -d "$root" ] || mv "$root" "$root.old"
mv "$new" "$root"
rm -rf --one-file-system "$root.old"
info "build/rootfs-$arch ready in $(($(date +%s) - start)) s ($(du -sh "$root" | cut -f1))"
