#!/usr/bin/env bash
# Run the branch's suites for one architecture, count them case by case,
# and fail when the kernel log holds a warning, an oops or a sanitizer
# report, even if every case passed.
#
#   tools/kunit/kunit_checked.sh LABEL ARCH FRAGMENT|- [kunit.py exec arguments...]
#
# FRAGMENT is a config fragment layered on .kunitconfig (the sanitizers'),
# or - for tools/kunit/kunit.sh's own config (.kunitconfig, or $KUNITCONFIG).
# The build folder is build/kunit-LABEL, the results
# build/results/LABEL.json, unless $KUNIT_BUILD_DIR and $KUNIT_RESULTS say
# otherwise: with "-" and LABEL the arch, tools/kunit/kunit.sh's, so "make kunit"
# (which is this with LABEL the arch and "-") and a bare tools/kunit/kunit.sh make
# each other's builds incremental.
# Prints "LABEL: N passed, N failed, N skipped" (tools/kunit/kunit_counts.py) and
# "LABEL reports: N passed, N failed" (one case: the clean kernel log).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

label=${1:?usage: tools/kunit/kunit_checked.sh LABEL ARCH FRAGMENT|- [kunit.py args...]}
arch=${2:?usage: tools/kunit/kunit_checked.sh LABEL ARCH FRAGMENT|- [kunit.py args...]}
fragment=${3:?usage: tools/kunit/kunit_checked.sh LABEL ARCH FRAGMENT|- [kunit.py args...]}
shift 3

export KUNIT_BUILD_DIR=${KUNIT_BUILD_DIR:-$TOP/build/kunit-$label}
export KUNIT_RESULTS=${KUNIT_RESULTS:-$TOP/build/results/$label.json}
build_dir=$KUNIT_BUILD_DIR json=$KUNIT_RESULTS
if [ "$fragment" != - ]; then
	[ -r "$fragment" ] || die "no config fragment $fragment"
	export KUNITCONFIG="$TOP/build/$label.kunitconfig"
	layered_kunitconfig "$KUNITCONFIG" "$fragment"
fi
mkdir -p "$(dirname "$json")"

KUNIT_TIMEOUT="${KUNIT_TIMEOUT:-1800}" "$TOP/tools/kunit/kunit.sh" "$arch" "$@"
"$TOP/tools/kunit/kunit_counts.py" "$label=$json"
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
