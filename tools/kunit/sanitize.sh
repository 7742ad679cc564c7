#!/usr/bin/env bash
# Run the branch's suites for one architecture under a sanitizer, in its own
# build folder (build/kunit-ARCH-sanitizers or -kcsan), and fail when the
# kernel log holds any report, even if every test case passed
# (tools/kunit/kunit_checked.sh).
#
#   tools/kunit/sanitize.sh ARCH [kasan|kcsan] [kunit.py run arguments...]
#
# ARCH is x86_64, arm64, s390 or um (User Mode Linux, on an x86_64 host).
#
# kasan (the default): generic KASAN and UBSAN, kunit/sanitizers.config.
# kcsan: the concurrency sanitizer, kunit/kcsan.config. Either fragment is
# layered on .kunitconfig.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

arch=${1:?usage: tools/kunit/sanitize.sh ARCH [kasan|kcsan] [kunit.py args...]}
kind=${2:-kasan}
shift $(($# < 2 ? $# : 2))
case "$kind" in
kasan) name=sanitizers fragment="$TOP/kunit/sanitizers.config" ;;
kcsan) name=kcsan fragment="$TOP/kunit/kcsan.config" ;;
*) die "unknown sanitizer '$kind' (kasan or kcsan)" ;;
esac

exec "$TOP/tools/kunit/kunit_checked.sh" "$arch-$name" "$arch" "$fragment" "$@"
