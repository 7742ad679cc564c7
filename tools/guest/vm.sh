#!/usr/bin/env bash
# Boot the branch kernel in a guest, run one command in it and pass back
# its output and exit status.
#
#   tools/guest/vm.sh [--arch x86_64|arm64|um] [--build-only] [--] COMMAND [ARG...]
#   tools/guest/vm.sh [--arch x86_64|arm64|um] --interactive
#
# --build-only builds what the guest boots: the kernel, and the root
# filesystem of a guest of another architecture. --interactive ("make
# shell") gives the guest this terminal and runs a shell in it instead of
# a command; leaving the shell powers the guest off.
#
# x86_64 and arm64 guests run under QEMU. Their root filesystem is exported
# read-only over virtio-9p. A guest of the host's architecture boots on the
# host's "/" and runs the host's programs; one of another architecture
# (arm64 on an x86_64 host) boots on build/rootfs-ARCH, Debian of its own
# architecture that tools/guest/rootfs.sh builds on first use and rebuilds when
# its package list changes.
#
# um is User Mode Linux: the kernel runs as a process of the host, natively,
# on the host's "/" through hostfs, mounted read-only. Unlike QEMU's
# read-only export, nothing on the host enforces that: the guest's root
# could remount it writable and write as the user who runs this script.
# Nothing this branch runs in a guest does. Its config is the one the
# per-commit check builds at every commit (.kunitconfig, kunit/vm.config
# and kunit/vm-um.config, built through tools/kunit/kunit.sh), so the gate
# boots that check's own build of the last commit (VM_BUILD_DIR). KUnit's
# suites are built in and stay idle (kunit.enable=0).
#
# The guest writes only to the tmpfs tools/guest/vm-init.sh mounts (/tmp, /run,
# /var/tmp, /root), its scratch space, gone at power-off. Those tmpfs mounts
# would hide a checkout under one of them, so this checkout (and the kernel
# tree, when $TREE lies outside it) is exported again, read-only, and
# mounted by tools/guest/vm-init.sh at its host path after the tmpfs mounts: the
# guest sees it at the same path wherever it is. The guest has no network
# device of its own. Nothing runs on the host's kernel.
#
# The kernel is built from the prepared tree (build/linux, or $TREE) into
# build/vm-ARCH (or $VM_BUILD_DIR) with kunit/vm.config, the machine's
# kunit/vm-qemu.config or kunit/vm-um.config and kunit/vm-ARCH.config where
# it exists, incrementally through ccache. The console (with the guest
# process's standard error) goes to stdout and to build/vm-ARCH/console.log;
# the command's exit status becomes ours (125 when the guest gives none,
# with a line saying why). VM_TIMEOUT (seconds, 3600) bounds a run;
# VM_MEMORY (MiB, 2048) is the guest's memory;
# VM_APPEND adds kernel parameters; VM_CONFIG_EXTRA names one more config
# fragment for a QEMU guest (give it a VM_BUILD_DIR of its own);
# VM_UM_PRELOAD names a library the User Mode Linux process is started
# with (LD_PRELOAD: tools/guest/um_amx_shim.c), and nothing else is.
#
# tools/guest/rootfs.sh boots its second stage with
#   tools/guest/vm.sh --arch ARCH --root DIR --writable-root --init PATH
# DIR exported writable, PATH (in DIR) as PID 1, no command.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

arch=x86_64 build_only=0 root= writable=0 init= root_lock= interactive=0
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) arch=$2; shift 2 ;;
	--build-only) build_only=1; shift ;;
	--interactive) interactive=1; shift ;;
	--root) root=$2; shift 2 ;;
	--writable-root) writable=1; shift ;;
	--init) init=$2; shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
if [ "$interactive" = 1 ]; then
	[ $# -eq 0 ] || die "--interactive runs a shell, not a command"
	[ -t 0 ] || die "make shell needs a terminal on its standard input"
	# The console as the shell's controlling terminal: Ctrl-C and job control.
	set -- setsid -c env PS1="(guest $arch) \w# " bash --norc -i
fi
[ "$build_only" = 1 ] || [ -n "$init" ] || [ $# -gt 0 ] || die "usage: tools/guest/vm.sh [--arch ARCH] [--build-only] -- COMMAND..."

case "$arch" in
x86_64) image=arch/x86/boot/bzImage console=ttyS0
	qemu=(qemu-system-x86_64 -bios qboot.rom) ;;
arm64) image=arch/arm64/boot/Image console=ttyAMA0
	qemu=(qemu-system-aarch64 -machine virt -cpu cortex-a57) ;;
um) [ -z "${VM_CONFIG_EXTRA:-}" ] ||
	die "VM_CONFIG_EXTRA is for QEMU guests: the um guest's config is the per-commit check's" ;;
*) die "unknown arch '$arch' (x86_64, arm64 or um)" ;;
esac
[ -e "$TREE/.git" ] || die "no kernel git tree at $TREE: run 'make prepare'"
cross=$(cross_compile "$arch") || exit

out=${VM_BUILD_DIR:-$TOP/build/vm-$arch}
mkdir -p "$out"
kmake() {
	make -C "$TREE" O="$out" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" HOSTCC="ccache gcc" -j"$(nproc)" "$@"
}

# last_settings FRAGMENT: the last line that sets or unsets each option,
# which is the one kconfig keeps (a later fragment overrides an earlier).
last_settings() {
	awk '{ sub(/[ \t\r]+$/, "") }
	/^CONFIG_|^# CONFIG_[A-Za-z0-9_]* is not set$/ {
		name = $0; sub(/^# /, "", name); sub(/[= ].*/, "", name)
		if (!(name in last)) order[++n] = name
		last[name] = $0
	} END { for (i = 1; i <= n; i++) print last[order[i]] }' "$1"
}

# Every option of the fragment must come out as asked, as kunit.py checks:
# those it sets, and those it leaves out ("# CONFIG_X is not set"), which
# another option may select.
configure() {
	local fragment=$1 settings missing
	if [ ! -f "$out/.config" ] || [ "$fragment" -nt "$out/.config" ]; then
		cp "$fragment" "$out/.config"
		kmake olddefconfig >/dev/null
	fi
	settings=$(last_settings "$fragment")
	missing=$(grep -E '^CONFIG_' <<<"$settings" | grep -vxF -f "$out/.config" || true)
	missing+=$(sed -n 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/^\1=/p' <<<"$settings" |
		grep -f - "$out/.config" || true)
	[ -z "$missing" ] || die "kunit/vm*.config options not as asked in the kernel config: $missing"
}

# build_qemu_kernel: kunit/vm.config, kunit/vm-qemu.config,
# kunit/vm-ARCH.config where the machine needs more, and $VM_CONFIG_EXTRA;
# its modules too when that config enables modules (the guest loads them
# by path from the build folder).
build_qemu_kernel() {
	local fragment="$out/vm.config"
	cat_if_changed "$fragment" "$TOP/kunit/vm.config" "$TOP/kunit/vm-qemu.config" \
		$([ -f "$TOP/kunit/vm-$arch.config" ] && echo "$TOP/kunit/vm-$arch.config") \
		${VM_CONFIG_EXTRA:-} ||
		return
	configure "$fragment"
	kmake "${image##*/}" || return
	! grep -q '^CONFIG_MODULES=y' "$out/.config" || kmake modules
}

# build_um_kernel: through tools/kunit/kunit.sh, as the per-commit check builds
# (kunit.py checks the options come out as asked).
build_um_kernel() {
	um_guest_kunitconfig "$out/vm.kunitconfig" || return
	KUNIT_BUILD_ONLY=1 KUNITCONFIG="$out/vm.kunitconfig" KUNIT_BUILD_DIR="$out" \
		"$TOP/tools/kunit/kunit.sh" um
}

info "building the $arch guest kernel in ${out#"$TOP"/}"
if [ "$arch" = um ]; then
	build=build_um_kernel
else
	build=build_qemu_kernel
fi
$build >"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	die "guest kernel build failed (${out#"$TOP"/}/build.log)"
}

if [ -z "$root" ] && { [ "$arch" = "$(host_arch)" ] || [ "$arch" = um ]; }; then
	root=/
elif [ -z "$root" ]; then
	# Held until the guest ends (QEMU inherits it): no rebuild of the root
	# under a running guest. Exclusive while the root is checked and set
	# up, shared while the guest runs.
	root="$TOP/build/rootfs-$arch" root_lock=8
	exec 8>>"$root.lock"
	flock 8
	ROOTFS_LOCKED=1 "$TOP/tools/guest/rootfs.sh" "$arch" 8>&- ||
		die "no root filesystem for the $arch guest"
fi
[ "$build_only" = 0 ] || exit 0

# The host folders the guest sees at their own paths (see above). Kernel
# parameters cannot hold blanks, so neither can these paths.
shares=("$TOP")
case "$(realpath "$TREE")/" in
"$TOP"/*) ;;
*) shares+=("$(realpath "$TREE")") ;;
esac
for dir in "${shares[@]}"; do
	case "$dir" in
	*[[:space:]:]*) die "the guest cannot mount '$dir': blank or ':' in the path" ;;
	esac
done

# The command, as a script in this checkout that the guest reads through
# the checkout's export. It fails with a message naming the folder when the
# guest cannot enter the one the command was given in.
cmd="$TOP/build/guest/command-$arch.sh"
mkdir -p "${cmd%/*}"
{
	printf 'cd %q || { echo "vm-init: no folder %q in the guest" >&2; exit 126; }\n' \
		"$PWD" "$PWD"
	printf '%q ' "$@"
	echo
} >"$cmd"

# PID 1 lives in the checkout; a root of its own gets a copy at /sbin/vm-init
# (it must be there before the checkout's export is mounted), and the
# folders the exports are mounted on.
if [ -z "$init" ] && [ "$root" = / ]; then
	init="$TOP/tools/guest/vm-init.sh"
elif [ -z "$init" ]; then
	init=/sbin/vm-init
	cmp -s "$TOP/tools/guest/vm-init.sh" "$root$init" || install -m 755 "$TOP/tools/guest/vm-init.sh" "$root$init"
	for dir in "${shares[@]}"; do mkdir -p "$root$dir"; done
fi
[ -z "${root_lock:-}" ] || flock -s "$root_lock"
if [ "$writable" = 1 ]; then
	root_mode=rw export_mode=
else
	root_mode=ro export_mode=,readonly=on
fi

# vm_shares= lists the folders vm-init mounts at their paths, vm_sharefs=
# how: 9p (share0, share1... in that order) or hostfs.
shares_param="vm_shares=$(IFS=:; echo "${shares[*]}")"
if [ "$arch" = um ]; then
	# Memory is a file UML maps ($TMPDIR, else /dev/shm); the console is
	# its standard output.
	guest=()
	[ -z "${VM_UM_PRELOAD:-}" ] || guest=(env "LD_PRELOAD=$VM_UM_PRELOAD")
	guest+=("$out/linux" mem="${VM_MEMORY:-2048}M" con0=fd:0,fd:1 root=/dev/root rootfstype=hostfs
		"rootflags=$root" "$root_mode" "init=$init" "vm_cmd=$cmd" panic=-1
		loglevel=4 kunit.enable=0 "$shares_param" vm_sharefs=hostfs)
	read -ra extra <<<"${VM_APPEND:-}"
	guest+=("${extra[@]}")
else
	append="console=$console root=hostroot rootfstype=9p $root_mode"
	append+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
	append+=" init=$init vm_cmd=$cmd panic=-1 loglevel=4 $shares_param vm_sharefs=9p"
	append+=" ${VM_APPEND:-}"
	guest=("${qemu[@]}" -nodefaults -nographic -no-reboot -m "${VM_MEMORY:-2048}" -smp 2 -serial stdio
		-kernel "$out/$image" -append "$append"
		-fsdev "local,id=hostroot,path=$root,security_model=none$export_mode,multidevs=remap"
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
		-device virtio-rng-pci)
	for i in "${!shares[@]}"; do
		guest+=(-fsdev "local,id=share$i,path=${shares[$i]},security_model=none,readonly=on,multidevs=remap"
			-device "virtio-9p-pci,fsdev=share$i,mount_tag=share$i")
	done
fi

# death_cause LOG RC: why a guest whose console is LOG and whose process
# ended with RC gave no exit status, in one line.
death_cause() {
	local log=$1 rc=$2 line size
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "it was stopped after VM_TIMEOUT=${VM_TIMEOUT:-3600} s"
	elif grep -q 'ptrace set fp regs failed' "$log"; then
		size=$(grep -m 1 -o 'Host FP register state: .*' "$log" ||
			echo "no size printed: a kernel without the series' um patch, whose size is fixed at build time")
		echo "User Mode Linux could not start a process: the host's ptrace refused its FP registers ($size)"
	elif line=$(grep -m 1 -E 'Kernel panic|BUG:|Oops|failed, errno' "$log"); then
		echo "it stopped at: $line"
	else
		echo "its console ends: $(tail -n 1 "$log")"
	fi
}

# The console, and what the guest's process writes to its standard error
# (User Mode Linux's boot checks and its last words, QEMU's complaints).
run_guest() {
	if [ "$interactive" = 1 ]; then
		timeout --foreground --kill-after=10 "${VM_TIMEOUT:-3600}" "${guest[@]}" 2>&1
	else
		timeout --kill-after=10 "${VM_TIMEOUT:-3600}" "${guest[@]}" </dev/null 2>&1
	fi
}
{
	run_guest
	echo $? >"$out/guest.rc"
} | tee "$out/console.log" || true
status=$(sed -n 's/^vm-init: exit status \([0-9]*\).*/\1/p' "$out/console.log" | tail -n 1)
if [ -z "$status" ]; then
	echo "vm.sh: the guest gave no exit status: $(death_cause "$out/console.log" \
		"$(cat "$out/guest.rc")") (${out#"$TOP"/}/console.log)" >&2
	exit 125
fi
exit "$status"
