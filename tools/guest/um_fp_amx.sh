#!/usr/bin/env bash
# User Mode Linux on an AMX host's ptrace, on any x86_64 host. A 6.12 host
# kernel on a CPU with AMX moves an 11008-byte XSAVE area through
# PTRACE_GETREGSET/SETREGSET of NT_X86_XSTATE and refuses a write of any
# other size (EFAULT), where stock 6.12 UML dies at boot. That contract is
# imitated by tools/guest/um_amx_shim.c (UM_AMX_XSTATE_SIZE, default
# 11008), preloaded into the UML process only. The checks, one case each:
#   stock, no shim:  stock 6.12 UML (the base, without the series,
#       x86_64_defconfig) starts its first process on this host: init
#       (/bin/true) runs and exits;
#   stock, shim:     the same kernel under the shim dies as on an AMX host:
#       "ptrace set fp regs failed, errno = 14";
#   branch, boot:    the branch's UML (VM_BUILD_DIR, as make um-fp boots it)
#       under the shim prints "Host FP register state: 11008 bytes (XSAVE
#       area), N in signal frames", N the XSAVE size this host kernel puts
#       in its own signal frames (tools/guest/host_frame_xstate.c), and the
#       shim saw no write with bytes past this host's own area;
#   branch, um-fp:   tools/guest/um_fp_guest.c passes in that guest;
#   branch, failed read: the shim fails UML's first read of a whole area
#       (11008 bytes),
#       the state every new process starts with: UML stops at boot with
#       "Failed to initialize default registers" rather than start
#       processes on a buffer it never filled.
# What it cannot show: CPUID and XGETBV stay this CPU's (the guest sees no
# AMX), and XFD is not modelled; the frame size on a real AMX host (2816)
# is the table test's. Ends with "um-fp-amx: N passed, N failed".
#
# The stock kernel is built once per base and kept out of the checkout,
# in $UM_STOCK_DIR (default ~/.cache/mphash-ioprio-branch/um-stock, beside
# ccache's cache), so that a fresh clone, as CI's, does not build it
# again: a few minutes the first time on a machine, nothing after.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

[ "$(uname -m)" = x86_64 ] || die "the check is x86_64 code; this host is $(uname -m)"
[ -e "$TREE/.git" ] || die "no prepared tree at $TREE: run 'make prepare'"

OUT=$TOP/build/um-fp-amx
STOCK=${UM_STOCK_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mphash-ioprio-branch/um-stock}
SIZE=${UM_AMX_XSTATE_SIZE:-11008}
mkdir -p "$OUT"
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$OUT/um_amx_shim.so" \
	"$TOP/tools/guest/um_amx_shim.c" -ldl || die "cannot build the shim"
gcc -O2 -Wall -Wextra -Werror -o "$OUT/host_frame_xstate" \
	"$TOP/tools/guest/host_frame_xstate.c" || die "cannot build host_frame_xstate"

. "$TOP/tools/cases.sh"

# stock_uml: $STOCK/linux, stock UML at the base, built once (its folder
# records the base it was built from); the sources and objects it unpacks
# there for that are removed after.
stock_uml() {
	local base
	base=$(git -C "$TREE" rev-parse "refs/tags/$BASE_TAG") || return
	[ "$(cat "$STOCK/built-from" 2>/dev/null)" != "$base" ] || [ ! -x "$STOCK/linux" ] || return 0
	echo "building stock User Mode Linux at $BASE_TAG (${base:0:12}) into $STOCK"
	mkdir -p "$STOCK" && rm -rf "$STOCK/src" "$STOCK/obj" && mkdir "$STOCK/src" || return
	git -C "$TREE" archive "$base" | tar -x -C "$STOCK/src" || return
	make -s -C "$STOCK/src" O="$STOCK/obj" ARCH=um CC="ccache gcc" HOSTCC="ccache gcc" \
		x86_64_defconfig >/dev/null &&
		make -s -C "$STOCK/src" O="$STOCK/obj" ARCH=um CC="ccache gcc" \
			HOSTCC="ccache gcc" -j"$(nproc)" linux || return
	cp "$STOCK/obj/linux" "$STOCK/linux" && echo "$base" >"$STOCK/built-from" &&
		rm -rf "$STOCK/src" "$STOCK/obj"
}

# stock_boot LOG [PRELOAD]: stock UML on the host's "/" (read-only
# hostfs), init /bin/true; its console in LOG. It ends in a panic either
# way: init exits, or cannot start.
stock_boot() {
	local mem
	mem=$(mktemp -d)
	# In a subshell of its own, whose standard error (the shell's word
	# on UML's abort at its panic) goes nowhere.
	(
		TMPDIR=$mem timeout --kill-after=10 120 \
			env ${2:+LD_PRELOAD=$2} "$STOCK/linux" mem=256M con0=fd:0,fd:1 \
			root=/dev/root rootfstype=hostfs rootflags=/ ro init=/bin/true \
			</dev/null >"$1" 2>&1
		true
	) 2>/dev/null
	rm -rf "$mem"
	return 0
}

stock_runs_init() {
	stock_boot "$OUT/stock.log" &&
		grep -q 'Attempted to kill init! exitcode=0x00000000' "$OUT/stock.log" &&
		! grep -q 'ptrace set fp regs failed' "$OUT/stock.log"
}

stock_dies_under_shim() {
	stock_boot "$OUT/stock-shim.log" "$OUT/um_amx_shim.so" &&
		grep -q 'ptrace set fp regs failed, errno = 14' "$OUT/stock-shim.log"
}

# The branch under the shim: um-fp's guest, its output in um-fp.log.
branch_boots() {
	local frame
	frame=$("$OUT/host_frame_xstate") || return
	UM_AMX_XSTATE_SIZE=$SIZE VM_UM_PRELOAD="$OUT/um_amx_shim.so" \
		"$TOP/tools/guest/um_fp.sh" >"$OUT/um-fp.log" 2>&1
	grep -aF "Host FP register state: $SIZE bytes (XSAVE area), $frame in signal frames" \
		"$OUT/um-fp.log" >/dev/null || {
		echo "  want: $SIZE bytes (XSAVE area), $frame in signal frames; got:" \
			"$(grep -a -m 1 -o 'Host FP register state: .*' "$OUT/um-fp.log")"
		return 1
	}
	! grep -a 'um-amx-shim: SETREGSET' "$OUT/um-fp.log"
}

branch_um_fp_passes() {
	grep -aE '^um-fp: [0-9]+ passed, 0 failed' "$OUT/um-fp.log"
}

# The branch, its first read of a whole area failed: stops at boot. At
# 11008 bytes whatever UM_AMX_XSTATE_SIZE says: the shim fails the first
# read of exactly the area's size, and UML's probes of the size read
# 4096, 8192 and 16384 bytes, which a power of two would match.
branch_stops_on_failed_read() {
	UM_AMX_XSTATE_SIZE=11008 UM_AMX_FAIL_FIRST_READ=1 \
		VM_UM_PRELOAD="$OUT/um_amx_shim.so" VM_TIMEOUT=120 \
		"$TOP/tools/guest/vm.sh" --arch um -- /bin/true >"$OUT/failed-read.log" 2>&1
	grep -aq 'Failed to initialize default registers' "$OUT/failed-read.log" &&
		! grep -aq '^vm-init: exit status' "$OUT/failed-read.log"
}

if stock_uml; then
	check "stock UML, this host's ptrace: init runs" stock_runs_init
	check "stock UML, AMX host's ptrace: dies with errno 14" stock_dies_under_shim
else
	check "stock UML built" false
fi
check "branch, AMX host's ptrace: boot line with $SIZE bytes" branch_boots
check "branch, AMX host's ptrace: um-fp" branch_um_fp_passes
check "branch, first read of the area failed: stops at boot" branch_stops_on_failed_read
grep -aE '^(um-amx-shim|Host FP|FAIL|um-fp:)' "$OUT/um-fp.log" | sed 's/^/    /'
echo "um-fp-amx: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
