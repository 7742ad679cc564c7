#!/usr/bin/env bash
# blktests' nvme group against the branch kernel, in an x86_64 QEMU guest
# (two CPUs), once with the host on nvme-tcp and once on tcp_offload, both
# to the kernel's nvmet-tcp target ("make blktests").
#
#   tools/nvme/blktests.sh [ROUND...]        (default: $BLKTESTS_ROUNDS, or
#                                            tcp tcp_offload)
#
# The tcp round is the control: the series does not change nvme-tcp, so a
# test that fails in both rounds points at the guest, blktests or the
# target, one that fails only over tcp_offload at the transport. The gate
# runs the tcp_offload round (BLKTESTS_ROUNDS=tcp_offload).
#
# BLKTESTS_TESTS="nvme/004 nvme/010" runs those tests instead of the whole
# nvme group (in each round).
#
# blktests is not part of this repository: BLKTESTS names a checkout of
# upstream blktests (git clone https://github.com/linux-blktests/blktests),
# by default ../shared/blktests next to this checkout when it exists. It
# is copied to build/blktests/tree, where tools/nvme/blktests/*.patch (written
# for blktests upstream: the adapter that lets the host connect through
# another transport than the port's, NVME_HOST_TRTYPE, and nvme/060's
# filter taught dash's wording) are applied and its helper programs are
# built. The guest kernel is the x86_64 guest's
# (kunit/vm.config, kunit/vm-qemu.config: the drivers built in, XFS,
# /proc/config.gz and the debug options the nvme tests ask for).
#
# Tests that cannot pass on this kernel are left out, each with its
# reason (below); the README lists them. Ends with "blktests: N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

rounds=("$@")
# shellcheck disable=SC2206 # a list of words, split on purpose
[ ${#rounds[@]} -gt 0 ] || rounds=(${BLKTESTS_ROUNDS:-tcp tcp_offload})
for round in "${rounds[@]}"; do
	case "$round" in
	tcp | tcp_offload) ;;
	*) die "unknown round '$round' (tcp or tcp_offload)" ;;
	esac
done

out=${VM_BUILD_DIR:-$TOP/build/vm-x86_64}
# The guest reads the kernel's modules.builtin from $out. It sees the
# host's root and this checkout, but its own tmpfs covers /tmp, /run,
# /var/tmp and /root (tools/guest/vm-init.sh): a build folder there,
# outside the checkout, is invisible to it.
out=$(realpath -m "$out")
case "$out/" in
"$(realpath -m "$TOP")"/*) ;;
/tmp/* | /run/* | /var/tmp/* | /root/*)
	die "VM_BUILD_DIR $out is under /$(echo "$out" | cut -d/ -f2), hidden in the guest by its own tmpfs: put it inside the checkout ($TOP) or elsewhere on the host's root" ;;
esac

src=${BLKTESTS:-}
if [ -z "$src" ] && [ -x "$TOP/../shared/blktests/check" ]; then
	src=$TOP/../shared/blktests
fi
[ -n "$src" ] || die "no blktests: clone it (git clone https://github.com/linux-blktests/blktests) and run with BLKTESTS=path/to/blktests"
[ -x "$src/check" ] && [ -d "$src/tests/nvme" ] ||
	die "BLKTESTS=$src is not a blktests tree (no check script or tests/nvme)"
src=$(cd "$src" && pwd)

# A fresh copy each run, in a folder this script owns: the user's
# checkout is only read.
work=$TOP/build/blktests
tree=$work/tree
mkdir -p "$work"
[ ! -e "$tree" ] || [ -e "$work/.made-by-blktests.sh" ] ||
	die "$tree exists and was not made by tools/nvme/blktests.sh: move it away"
touch "$work/.made-by-blktests.sh"
rm -rf "$tree"
cp -R "$src" "$tree"
# A copy of what may be a read-only checkout (CI gets shared/ so).
chmod -R u+w "$tree"
for p in "$TOP"/tools/nvme/blktests/*.patch; do
	patch -d "$tree" -p1 --quiet --forward <"$p" >"$work/patch.log" 2>&1 || {
		cat "$work/patch.log" >&2
		die "${p#"$TOP"/} does not apply to $src (a newer blktests that has it, or needs it refreshed)"
	}
done
info "blktests from $src ($(cat "$src/SNAPSHOT" 2>/dev/null | head -c 90 ||
	git -C "$src" describe --always 2>/dev/null || echo 'version unknown'))"
make -C "$tree" -j"$(nproc)" >"$work/build.log" 2>&1 || {
	tail -n 20 "$work/build.log" >&2
	die "blktests' helper programs did not build (build/blktests/build.log)"
}

# Tests left out, each with its reason (the README lists them too):
# nvme/068 tests multipath's delayed removal (delayed_removal_secs),
# which kernels after 6.12 have: it fails on either transport here.
# nvme/047 asks for poll queues, which the software offload device does
# not implement (the transport refuses nr_poll_queues on it): left out of
# the tcp_offload round.
# BLKTESTS_EXCLUDE adds more, "nvme/0NN nvme/0MM".
declare -A exclude=(
	[tcp]="nvme/068 ${BLKTESTS_EXCLUDE:-}"
	[tcp_offload]="nvme/068 nvme/047 ${BLKTESTS_EXCLUDE:-}"
)
args=()
for round in "${rounds[@]}"; do
	args+=("$round=$(echo ${exclude[$round]} | tr ' ' ',')")
done

VM_MEMORY=${VM_MEMORY:-4096} VM_TIMEOUT=${VM_TIMEOUT:-5400} \
	"$TOP/tools/guest/vm.sh" --arch x86_64 -- \
	env BLKTESTS_TESTS="${BLKTESTS_TESTS:-nvme}" \
	"$TOP/tools/nvme/blktests_guest.sh" "$tree" "$out" "${args[@]}"
