#!/usr/bin/env bash
# Do the processes of a User Mode Linux guest keep their FP and vector
# registers across thread switches, fork and signal handlers? UML moves
# them through the host's ptrace, in the host's XSAVE format. Builds
# tools/guest/um_fp_guest.c on the host (x86_64 code) and runs it in a UML guest
# of the branch kernel (VM_BUILD_DIR as tools/guest/vm.sh takes it). Ends with
# the program's "um-fp: N passed, N failed, N skipped" line.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

[ "$(uname -m)" = x86_64 ] || die "the check is x86_64 code; this host is $(uname -m)"

bin=$TOP/build/um-fp/um_fp_guest
mkdir -p "${bin%/*}"
gcc -O2 -Wall -Wextra -Werror -pthread -o "$bin" "$TOP/tools/guest/um_fp_guest.c"
exec "$TOP/tools/guest/vm.sh" --arch um -- "$bin"
