#!/usr/bin/env bash
# Run the branch's suites for one architecture under a sanitizer, in its own
# build folder, and fail when the kernel log holds any report, even if every
# test case passed.
#
#   tools/sanitize.sh ARCH [kasan|kcsan] [kunit.py run arguments...]
#
# ARCH is x86_64, arm64, s390 or um (User Mode Linux, on an x86_64 host).
#
# kasan (the default): generic KASAN and UBSAN, kunit/sanitizers.config.
# kcsan: the concurrency sanitizer, kunit/kcsan.config. Either fragment is
# layered on .kunitconfig.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: tools/sanitize.sh ARCH [kasan|kcsan] [kunit.py args...]}
kind=${2:-kasan}
shift $(($# < 2 ? $# : 2))
case "$kind" in
kasan) name=sanitizers fragment="$TOP/kunit/sanitizers.config" ;;
kcsan) name=kcsan fragment="$TOP/kunit/kcsan.config" ;;
*) die "unknown sanitizer '$kind' (kasan or kcsan)" ;;
esac

label="$arch-$name"
build_dir="$TOP/build/kunit-$label"
config="$TOP/build/$name.kunitconfig"
json="$TOP/build/results/$label.json"
mkdir -p "$TOP/build/results"
cat "$TOP/.kunitconfig" "$fragment" >"$config"

KUNITCONFIG=$config KUNIT_BUILD_DIR=$build_dir KUNIT_RESULTS=$json \
	KUNIT_TIMEOUT=1800 "$TOP/tools/kunit.sh" "$arch" "$@"
"$TOP/tools/kunit_counts.py" "$label=$json"
cases=$?

if [ ! -s "$build_dir/test.log" ]; then
	echo "$label reports: no kernel log ($build_dir/test.log): 0 passed, 1 failed"
	exit 1
fi
reports=$(kernel_reports "$build_dir/test.log")
if [ -n "$reports" ]; then
	echo "kernel log reports ($build_dir/test.log):"
	printf '%s\n' "$reports" | head -n 20 | sed 's/^/    /'
	echo "$label reports: 0 passed, 1 failed"
	exit 1
fi
echo "$label reports: 1 passed, 0 failed"
exit "$cases"
