#!/bin/bash
# blktests' nvme group inside an x86_64 guest of tools/guest/vm.sh (never on the
# host: it makes NVMe targets, loop devices and XFS file systems of its
# own). tools/nvme/blktests.sh boots it.
#
#   tools/nvme/blktests_guest.sh BLKTESTS_TREE KERNEL_BUILD ROUND...
#
# BLKTESTS_TREE is a built, patched copy of blktests (read-only here: the
# results go to the guest's /tmp); KERNEL_BUILD the guest kernel's build
# folder, whose modules.builtin tells modprobe which drivers are built in.
# Each ROUND is one run of "./check nvme" (or of BLKTESTS_TESTS) with the
# target's ports of transport tcp (NVMET_TRTYPES=tcp) on file-backed
# namespaces:
#   tcp           the host connects through nvme-tcp, the kernel's own
#   tcp_offload   the host connects through the tcp_offload transport and
#                 the software offload device (NVME_HOST_TRTYPE)
# A ROUND may name tests to leave out of it: tcp_offload=nvme/047,nvme/0NN.
# Prints blktests' own lines, then per round
# "blktests ROUND: N passed, N failed, N not run" and, last,
# "blktests: N passed, N failed" over all rounds (not run counts in
# neither). Exit status 0 when nothing failed.
set -uo pipefail
IFS=$' \t\n,'
tree=$1 kbuild=$2
shift 2
# BLKTESTS_TESTS: what to run, as ./check takes it ("nvme/004 nvme/010").
tests=${BLKTESTS_TESTS:-nvme}

# blktests loads drivers with modprobe and skips a test whose driver
# modprobe does not know. This kernel has them built in: modprobe gets the
# kernel's list of built-in modules from a module root in /tmp (the guest's
# root is the host's, read-only, and may have no /lib/modules), through a
# wrapper first in PATH.
release=$(uname -r)
modroot=/tmp/modroot
mkdir -p "$modroot/lib/modules/$release" /tmp/bin &&
	cp "$kbuild/modules.builtin" "$kbuild/modules.builtin.modinfo" \
		"$modroot/lib/modules/$release/" &&
	: >"$modroot/lib/modules/$release/modules.order" &&
	depmod -b "$modroot" "$release" &&
	printf '#!/bin/sh\nexec %s -d %s "$@"\n' "$(command -v modprobe)" "$modroot" \
		>/tmp/bin/modprobe && chmod +x /tmp/bin/modprobe ||
	{ echo "blktests: cannot list the built-in modules"; exit 1; }
export PATH=/tmp/bin:$PATH
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# XFS tests mount at /mnt/blktests.
mount -t tmpfs tmpfs /mnt

total_passed=0 total_failed=0
cd "$tree" || exit 1
for arg in "$@"; do
	round=${arg%%=*}
	config=/tmp/blktests-$round.config
	{
		echo 'NVMET_TRTYPES=tcp'
		echo 'NVMET_BLKDEV_TYPES=file'
		echo 'NVME_IMG_SIZE=350m'
		[ "$round" = tcp ] || echo "NVME_HOST_TRTYPE=$round"
	} >"$config"
	excludes=()
	[ "$arg" = "$round" ] || for t in ${arg#*=}; do excludes+=(-x "$t"); done
	echo "== blktests nvme, host transport $round (target tcp)"
	./check -c "$config" -o "/tmp/results-$round" "${excludes[@]}" $tests 2>&1 |
		tee "/tmp/blktests-$round.log"
	# Each test's last line: "nvme/NNN (...) [passed|failed|not run]".
	passed=$(grep -c '\[passed\]' "/tmp/blktests-$round.log")
	failed=$(grep -c '\[failed\]' "/tmp/blktests-$round.log")
	notrun=$(grep -c '\[not run\]' "/tmp/blktests-$round.log")
	for f in "/tmp/results-$round"/nodev*/nvme/*.out.bad; do
		[ -e "$f" ] || continue
		echo "-- ${f#/tmp/}"
		diff -u "${f%.bad}" "$f" 2>/dev/null | head -n 40 ||
			head -n 40 "$f"
		# What the test's commands printed, and the kernel meanwhile.
		for extra in full dmesg; do
			[ -s "${f%.out.bad}.$extra" ] || continue
			echo "-- ${f#/tmp/} ($extra)"
			tail -n 40 "${f%.out.bad}.$extra"
		done
	done
	echo "blktests $round: $passed passed, $failed failed, $notrun not run"
	[ "$passed" -gt 0 ] || failed=$((failed + 1))
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
done
echo "blktests: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
