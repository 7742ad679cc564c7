#!/usr/bin/env bash
# Run the custom multipath hash forwarding selftests of the prepared tree,
# as the series leaves them, each in its own guest (tools/guest/vm.sh).
#
#   tools/guest/selftests.sh [--arch x86_64|arm64|um] [SCRIPT...]
#
# SCRIPT names files in tools/testing/selftests/net/forwarding/; the default
# is the three custom multipath hash scripts and multipath_hash_paths.sh. Prints every TEST line and the
# packets-per-path INFO lines with each script's time, keeps the full logs
# in build/logs/selftests/ARCH/, and ends with "selftests: N passed, N failed"
# counting TEST lines. A script that prints no TEST line, or exits non-zero
# with every TEST line OK, counts as one failure.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

arch=x86_64
if [ "${1:-}" = --arch ]; then
	arch=${2:?usage: tools/guest/selftests.sh [--arch ARCH] [SCRIPT...]}
	shift 2
fi
DIR=tools/testing/selftests/net/forwarding
LOGS="$TOP/build/logs/selftests/$arch"
mkdir -p "$LOGS"
[ $# -gt 0 ] || set -- custom_multipath_hash.sh gre_custom_multipath_hash.sh \
	ip6gre_custom_multipath_hash.sh multipath_hash_paths.sh

"$TOP/tools/guest/vm.sh" --arch "$arch" --build-only || die "cannot build the guest kernel"
# The guest's multipath hash seed is otherwise random at every boot, and a
# balanced check fails when its 252 addresses split more than 20% apart:
# one boot of six split them 99 / 153. A fixed seed (HASH_SEED) gives every
# boot the same split, so a kernel change that moves flows still shows.
HASH_SEED=${HASH_SEED:-1}
passed=0 failed=0
for script in "$@"; do
	[ -x "$TREE/$DIR/$script" ] || die "no $DIR/$script in the tree"
	log="$LOGS/${script%.sh}.log"
	start=$(date +%s)
	"$TOP/tools/guest/vm.sh" --arch "$arch" -- bash -c \
		"sysctl -qw net.ipv4.fib_multipath_hash_seed=$HASH_SEED && cd $TREE/$DIR && ./$script" \
		>"$log" 2>&1
	status=$?
	secs=$(($(date +%s) - start))
	echo "== $script (${secs}s, exit $status)"
	grep -E '^(TEST|INFO: Packets sent)' "$log" | tr -d '\r' | sed 's/^/    /'
	ok=$(grep -cE '^TEST: .*\[ *OK *\]' "$log")
	bad=$(grep -E '^TEST: ' "$log" | grep -cvE '\[ *OK *\]')
	if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
		echo "    no TEST line (see $log)"
		bad=1
	elif [ "$status" -ne 0 ] && [ "$bad" -eq 0 ]; then
		# Every TEST line OK, and yet the script or the guest failed.
		echo "    exit status $status with every TEST OK (see $log)"
		bad=1
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
done
echo "selftests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
