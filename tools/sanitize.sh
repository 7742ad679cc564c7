#!/usr/bin/env bash
# Run every suite of the branch under KASAN (generic) and UBSAN for one
# architecture (kunit/sanitizers.config layered on .kunitconfig), in its own
# build folder, and fail when the kernel log holds any KASAN, UBSAN, WARNING
# or BUG report, even if every test case passed.
#
#   tools/sanitize.sh x86_64|arm64
set -uo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: tools/sanitize.sh x86_64|arm64}
build_dir="$TOP/build/kunit-$arch-sanitizers"
config="$TOP/build/sanitizers.kunitconfig"
json="$TOP/build/results/$arch-sanitizers.json"
mkdir -p "$TOP/build/results"
cat "$TOP/.kunitconfig" "$TOP/kunit/sanitizers.config" >"$config"

KUNITCONFIG=$config KUNIT_BUILD_DIR=$build_dir KUNIT_RESULTS=$json \
	KUNIT_TIMEOUT=1800 "$TOP/tools/kunit.sh" "$arch"
"$TOP/tools/kunit_counts.py" "$arch-sanitizers=$json"
cases=$?

# Reports start with these words (mm/kasan/report.c, lib/ubsan.c,
# kernel/panic.c __warn(), and the BUG: headers of oopses).
reports=$(grep -E '^(BUG|WARNING|UBSAN|KASAN)[: ]|^ *(BUG: KASAN|UBSAN:)' \
	"$build_dir/test.log" || true)
if [ -n "$reports" ]; then
	echo "kernel log reports ($build_dir/test.log):"
	printf '%s\n' "$reports" | head -n 20 | sed 's/^/    /'
	echo "$arch-sanitizers reports: 0 passed, 1 failed"
	exit 1
fi
echo "$arch-sanitizers reports: 1 passed, 0 failed"
exit "$cases"
