#!/usr/bin/env bash
# The W=1 and sparse warnings of some objects of a build, as netdev's patch
# checks collect them: each FILE.c whose FILE.o the build folder holds is
# compiled again with W=1 and checked with sparse (C=2), through ccache.
#
#   tools/tree/compile_warnings.sh ARCH BUILD_DIR FILE.c...
#
# The compiles happen in a folder of their own beside the build,
# BUILD_DIR-w1, given the build's .config: with W=1 the kernel's own
# generated files (bounds, asm-offsets) are compiled with other flags, and
# in the build folder itself they would be rebuilt by every W=1 run and
# again by the next plain build (one object: 8.8 s right after a plain
# build, 4.1 s when the previous run was W=1 too; measured once each).
#
# Prints the warnings and errors (sparse's errors do not stop a build) and
# sparse's continuation lines, sorted, with line and column numbers left
# out, so that the lists of two revisions of the same files compare
# (ci/percommit.sh compares a commit's with its parent's). A file whose
# object the build does not hold (not in its config, or not yet added) is
# left out; with none left, nothing is compiled and the exit status is 2.
# A failed compile prints its last lines and exits 1.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

arch=${1:?usage: tools/tree/compile_warnings.sh ARCH BUILD_DIR FILE.c...}
build_dir=${2:?usage: tools/tree/compile_warnings.sh ARCH BUILD_DIR FILE.c...}
shift 2
# make runs in the tree: a relative folder would be taken from there.
build_dir=$(cd "$build_dir" && pwd) || die "no build folder $build_dir"
[ -f "$build_dir/.config" ] || die "$build_dir has no .config"
cross=$(cross_compile "$arch") || exit
w1_dir="$build_dir-w1"

# An object of the build folder is left there by an earlier build of
# another commit or config too: its source must exist now as well.
objects=()
for file in "$@"; do
	object=${file%.c}.o
	[ -f "$TREE/$file" ] && [ -f "$build_dir/$object" ] && objects+=("$object")
done
# Nothing to check: exit status 2, so that callers can tell it from a
# clean check.
[ "${#objects[@]}" -gt 0 ] || exit 2

mkdir -p "$w1_dir"
cmp -s "$build_dir/.config" "$w1_dir/.config" || cp "$build_dir/.config" "$w1_dir/.config"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# compile: the objects, each compiled afresh. An object left by an
# earlier run would be up to date: gcc would not run, and its warnings
# would be missing. Removed, it is compiled again (a ccache hit when
# nothing changed, which replays the warnings).
compile() {
	local object
	for object in "${objects[@]}"; do rm -f "$w1_dir/$object"; done
	make -C "$TREE" O="$w1_dir" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" HOSTCC="ccache gcc" W=1 C=2 \
		--jobs="$(nproc)" "${objects[@]}" >/dev/null 2>"$out"
}
compile
status=$?
# An object this config does not build, though an earlier build left it
# (kbuild has no rule for it): left out, and the rest compiled again.
if [ "$status" -ne 0 ]; then
	mapfile -t unbuilt < <(sed -nE "s/.*No rule to make target '([^']+\.o)'.*/\1/p" "$out")
	if [ "${#unbuilt[@]}" -gt 0 ]; then
		mapfile -t objects < <(printf '%s\n' "${objects[@]}" | grep -vxF -f <(printf '%s\n' "${unbuilt[@]}"))
		[ "${#objects[@]}" -gt 0 ] || exit 2
		compile
		status=$?
	fi
fi
# Sparse continues a warning on lines of its own ("    expected ...").
{ grep -aE ':[0-9]+(:[0-9]+)?: (warning|error): |:[0-9]+:[0-9]+:    ' "$out" || true; } |
	sed -E -e "s|^$TREE/||" -e 's/^([^:]+):[0-9]+(:[0-9]+)?: /\1: /' | sort
if [ "$status" -ne 0 ]; then
	echo "make W=1 C=2 ${objects[*]}: failed (status $status)"
	tail -n 20 "$out"
	exit 1
fi
