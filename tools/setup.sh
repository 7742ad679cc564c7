#!/usr/bin/env bash
# Install the Debian packages the branch needs, only those missing.
# Run as root on Debian bookworm; a second run installs nothing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	"$(base_field package)"	# the kernel tarball the series applies to
	gcc make bc flex bison libelf-dev libssl-dev python3 perl git ccache
	python3-ply python3-git	# scripts/spdxcheck.py, run by checkpatch.pl
	qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu
	qemu-system-misc gcc-s390x-linux-gnu	# s390x: the big-endian KUnit run
	debootstrap	# tools/rootfs.sh: the root filesystem of arm64 guests
	xz-utils
	# what tools/selftests.sh, tools/ioprio_guest.sh and
	# tools/nvme_guest.sh run inside the x86_64 and User Mode Linux guests
	netsniff-ng iputils-ping jq iproute2 util-linux coreutils procps
	nvme-cli
	kmod	# insmod and rmmod in the guest of tools/nvme_kmemleak_guest.sh
	fio	# tools/nvme_load_guest.sh, tools/nvme_bench_guest.sh, blktests
	# blktests (tools/blktests.sh): what its check script and its nvme
	# group run in the x86_64 guest, and its helpers' build (gcc, make)
	gawk xfsprogs udev g++
)

missing=()
for p in "${PACKAGES[@]}"; do
	if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	info "all ${#PACKAGES[@]} packages present"
	exit 0
fi
release=$(. /etc/os-release 2>/dev/null && echo "${ID:-unknown} ${VERSION_CODENAME:-}")
[ "$release" = "debian bookworm" ] ||
	die "missing packages (${missing[*]}), and this is '$release', not Debian bookworm, whose package names this list uses: install them by hand"
[ "$(id -u)" -eq 0 ] || die "missing packages (${missing[*]}); run as root"
info "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
