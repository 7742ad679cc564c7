#!/bin/bash
# The NVMe/TCP offload leak check, inside a QEMU guest whose kernel has
# kmemleak (make nvme-kmemleak): what was allocated before is set aside,
# tools/nvme_guest.sh runs its cases (connects, data, disconnects, the
# target's faults and the software device's injected ones), then kmemleak
# scans. Any object it reports whose allocation went through the NVMe host
# or target (a backtrace frame nvme_*, nvmf_* or nvmet_*) fails the check;
# other reports are printed and counted only. The transport and the device
# are built in, so module unload is not covered.
# Ends with "nvme-kmemleak: N passed, N failed", nvme_guest.sh's cases and
# one for the leaks.
set -uo pipefail
KMEMLEAK=/sys/kernel/debug/kmemleak

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
[ -w $KMEMLEAK ] || { echo "nvme-kmemleak: no kmemleak in this kernel"; exit 1; }
echo scan >$KMEMLEAK && echo clear >$KMEMLEAK || exit 1

"$(dirname "$0")/nvme_guest.sh" | tee /tmp/e2e.log
counts=$(sed -n 's/^nvme-e2e: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' /tmp/e2e.log)
read -r passed failed <<<"${counts:-0 1}"

# kmemleak reports an object only once it is five seconds old and found
# unreferenced by a scan.
sleep 6
echo scan >$KMEMLEAK && echo scan >$KMEMLEAK || exit 1
cat $KMEMLEAK >/tmp/leaks
awk -v RS='unreferenced object' 'NR > 1 && /(nvme|nvmf|nvmet)_/ { print "unreferenced object" $0 }' \
	/tmp/leaks >/tmp/nvme-leaks
all=$(grep -c '^unreferenced object' /tmp/leaks)
ours=$(grep -c '^unreferenced object' /tmp/nvme-leaks)
cat /tmp/nvme-leaks
echo "kmemleak: $all objects reported, $ours allocated through the NVMe host or target"
if [ "$ours" -eq 0 ]; then
	echo "ok    kmemleak: nothing of the NVMe host or target left"
	passed=$((passed + 1))
else
	echo "FAIL  kmemleak: nothing of the NVMe host or target left"
	failed=$((failed + 1))
fi
echo "nvme-kmemleak: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
