#!/usr/bin/env bash
# The W=1 and sparse warnings of some objects of a configured build folder,
# as netdev's patch checks collect them: each FILE.c whose FILE.o the folder
# holds is compiled again with W=1 and checked with sparse (C=2, which
# checks the named objects whether or not they need rebuilding), through
# ccache.
#
#   tools/compile_warnings.sh ARCH BUILD_DIR FILE.c...
#
# Prints the warnings and errors (sparse's errors do not stop a build),
# sorted, with line and column numbers left out, so that the lists of two
# revisions of the same files compare (ci/percommit.sh compares a commit's
# with its parent's). A file whose object the folder does not hold (not in
# this config, or not yet added) is left out; with none left, nothing is
# compiled and the exit status is 2. A failed compile prints its last
# lines and exits 1. The compiled objects replace the folder's, so the
# next plain build compiles them once more.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: tools/compile_warnings.sh ARCH BUILD_DIR FILE.c...}
build_dir=${2:?usage: tools/compile_warnings.sh ARCH BUILD_DIR FILE.c...}
shift 2
cross=$(cross_compile "$arch") || exit

objects=()
for file in "$@"; do
	object=${file%.c}.o
	[ -f "$build_dir/$object" ] && objects+=("$object")
done
# Nothing to check: exit status 2, so that callers can tell it from a
# clean check.
[ "${#objects[@]}" -gt 0 ] || exit 2

out=$(mktemp)
trap 'rm -f "$out"' EXIT
make -C "$TREE" O="$build_dir" ARCH="$arch" CROSS_COMPILE="$cross" \
	CC="ccache ${cross}gcc" HOSTCC="ccache gcc" W=1 C=2 \
	--jobs="$(nproc)" "${objects[@]}" >/dev/null 2>"$out"
status=$?
{ grep -aE ': (warning|error): ' "$out" || true; } |
	sed -E -e "s|^$TREE/||" -e 's/^([^:]+):[0-9]+(:[0-9]+)?: /\1: /' | sort
if [ "$status" -ne 0 ]; then
	echo "make W=1 C=2 ${objects[*]}: failed (status $status)"
	tail -n 20 "$out"
	exit 1
fi
