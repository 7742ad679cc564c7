#!/usr/bin/env bash
# Run the branch's KUnit suites for one architecture under QEMU, with the
# tree's own tools/testing/kunit/kunit.py.
#
#   tools/kunit/kunit.sh ARCH [kunit.py exec arguments: filter globs...]
#
# ARCH is x86_64, arm64 or s390 (s390x, the big-endian one), each under
# QEMU, or um: User Mode Linux, the kernel as a host process running the
# same code natively (no emulation). Builds go to build/kunit-ARCH, or $KUNIT_BUILD_DIR
# (kept between runs, so rebuilds are incremental), through ccache. The tree
# is build/linux, or $TREE; the config .kunitconfig (for um with the guests'
# fragments: see below), or $KUNITCONFIG. The raw kernel log is kept as
# build/kunit-ARCH/test.log (kunit.py writes it; for um, the kernel itself:
# see kunit_run_um) and the parsed results as
# build/results/ARCH.json, or as $KUNIT_RESULTS when that is set.
# KUNIT_BUILD_ONLY=1 configures and builds the kernel without running it
# (for a config that selects no suite); no results are written.
#
# The compiler's messages are shown. The kernel builds this config without
# warnings, so a compiler warning fails the run, tests passing or not, unless
# KUNIT_ALLOW_WARNINGS=1 (bisecting history the series does not control).
# The base tree's own warnings listed in kunit/known-warnings are let
# through.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

arch=${1:?usage: tools/kunit/kunit.sh x86_64|arm64|s390|um [kunit.py exec args...]}
shift
cross=$(cross_compile "$arch") || exit

[ -e "$TREE/.git" ] || die "no kernel git tree at $TREE: run 'make prepare'"
build_dir=${KUNIT_BUILD_DIR:-$TOP/build/kunit-$arch}
json=${KUNIT_RESULTS:-$TOP/build/results/$arch.json}
mkdir -p "$build_dir" "$(dirname "$json")"
rm -f "$json"
# User Mode Linux has one config, .kunitconfig with the guests' fragments
# (tools/lib.sh, UM_GUEST_FRAGMENTS): the per-commit check, the gate's
# guests and this run build the same kernel, so build/kunit-um serves all
# three and ccache entries made by one hit for the others.
if [ "$arch" = um ] && [ -z "${KUNITCONFIG:-}" ]; then
	um_guest_kunitconfig "$build_dir/um.kunitconfig"
	KUNITCONFIG="$build_dir/um.kunitconfig"
fi

cc="ccache ${cross}gcc"
common=(--arch="$arch" --build_dir="$build_dir"
	--kunitconfig="${KUNITCONFIG:-$TOP/.kunitconfig}"
	--make_options "CC=$cc" --make_options "HOSTCC=ccache gcc")
[ -n "$cross" ] && common+=(--cross_compile="$cross")
[ "$arch" = um ] || common+=(--qemu_config="$TOP/kunit/qemu-$arch.py")

cd "$TREE"
# Keep the tree free of __pycache__ folders, so "make status" stays quiet.
export PYTHONDONTWRITEBYTECODE=1
out="$build_dir/kunit.out"
# kunit.py configures and runs; the build in between is ours, the one
# "kunit.py build" would do without its compile_commands.json target and
# its second olddefconfig (about 6 s a build, every build of the
# per-commit walk). Like kunit.py, it shows the compiler's messages and
# hides the rest.
kunit_build() {
	python3 tools/testing/kunit/kunit.py config "${common[@]}" || return
	local start=$SECONDS
	echo "Building with make all in $build_dir"
	make -C "$TREE" O="$build_dir" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="$cc" HOSTCC="ccache gcc" --jobs="$(nproc)" all 2>&1 >/dev/null || return
	echo "Built in $((SECONDS - start)) s"
}
# User Mode Linux writes its console to its standard output without
# waiting: what a full pipe does not take is lost. kunit.py reads that
# output through a pipe, and a reader slower than a burst of results (two
# cores, a build beside it) lost lines, which failed the parse. So UML runs
# here with its console on a regular file, with the kernel parameters
# kunit.py exec gives it, and kunit.py parses the file. Takes what the
# branch's callers pass: a filter glob and --kernel_args.
kunit_run_um() {
	local params=() log="$build_dir/test.log" status=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--kernel_args) params+=("$2"); shift 2 ;;
		--kernel_args=*) params+=("${1#*=}"); shift ;;
		-*) die "tools/kunit/kunit.sh um: kunit.py exec option $1 not supported" ;;
		*) params+=("kunit.filter_glob=$1"); shift ;;
		esac
	done
	params+=(kunit.enable=1 mem=1G console=tty kunit_shutdown=halt)
	echo "Running $build_dir/linux ${params[*]}"
	timeout "${KUNIT_TIMEOUT:-600}" "$build_dir/linux" "${params[@]}" \
		</dev/null >"$log" 2>&1 || status=$?
	[ "$status" -ne 124 ] || { echo "tools/kunit/kunit.sh: the kernel timed out"; return 1; }
	python3 tools/testing/kunit/kunit.py parse --json="$json" "$log"
}
kunit_run() {
	if [ "$arch" = um ]; then
		kunit_run_um "$@"
	else
		python3 tools/testing/kunit/kunit.py exec "${common[@]}" \
			--timeout="${KUNIT_TIMEOUT:-600}" --json="$json" "$@"
	fi
}
rc=0
{
	kunit_build &&
		if [ "${KUNIT_BUILD_ONLY:-0}" != 1 ]; then
			kunit_run "$@"
		fi
} 2>&1 | tee "$out" || rc=${PIPESTATUS[0]}
if [ "${KUNIT_ALLOW_WARNINGS:-0}" != 1 ]; then
	warnings=$(grep ': warning: ' "$out" |
		grep -vE -f <(grep -vE '^(#|$)' "$TOP/kunit/known-warnings") || true)
	if [ -n "$warnings" ]; then
		printf '%s\n' "$warnings" >&2
		die "compiler warnings (listed above): the series must build without any"
	fi
fi
exit "$rc"
