#!/usr/bin/env bash
# Find the commit that moved multipath flows: "git bisect run" between a
# good and a bad commit of a kernel git tree, each step judged by the golden
# multipath hash suite built for x86_64 and run under QEMU (tools/bisect_step.sh
# lists the settings that change the arch, config and build folder).
#
#   tools/bisect.sh TREE_UNDER_TEST GOOD BAD
#
# TREE_UNDER_TEST is any kernel git tree (build/linux, an upstream
# clone...). A tree the tools did not make is never changed: the bisection
# runs in a clone of it that shares its objects (git clone --shared), in
# build/bisect-tree; the prepared tree (build/linux) is bisected in place
# and left on the branch it was on. Commits that do not build are skipped.
# Prints the first bad commit and the vectors whose hash or nexthop
# changed there. Step logs and results go to build/bisect/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

usage="usage: make bisect TREE_UNDER_TEST=dir GOOD=rev BAD=rev (tools/bisect.sh DIR GOOD BAD)"
[ "$#" -eq 3 ] && [ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] || die "$usage"
git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	die "TREE_UNDER_TEST=$1 is not a git work tree; $usage"
src=$(cd "$1" && pwd)
good=$(git -C "$src" rev-parse -q --verify "$2^{commit}") || die "GOOD=$2 is not a commit of $src"
bad=$(git -C "$src" rev-parse -q --verify "$3^{commit}") || die "BAD=$3 is not a commit of $src"

results="$TOP/build/bisect"
rm -rf "$results"
mkdir -p "$results"
if made_by_tools "$src"; then
	# The steps check commits out and clean the suite's folder: only a
	# tree with nothing uncommitted, untracked or ignored in its work tree.
	TREE=$src
	[ -z "$(git -C "$TREE" status --porcelain --ignored)" ] ||
		die "$TREE has uncommitted, untracked or ignored files; the steps would touch them"
else
	TREE="$TOP/build/bisect-tree"
	rm -rf "$TREE"
	git clone -q --shared --no-checkout "$src" "$TREE" || die "cannot clone $src"
	git -C "$TREE" checkout -q --detach "$bad" || die "cannot check out $bad in $TREE"
	info "bisecting in $TREE, a clone of $src sharing its objects; $src is not changed"
fi
start=$(git -C "$TREE" symbolic-ref -q --short HEAD || git -C "$TREE" rev-parse HEAD)
trap 'git -C "$TREE" bisect reset "$start" >/dev/null 2>&1 || true' EXIT

git -C "$TREE" bisect start "$bad" "$good" >/dev/null
TREE=$TREE BISECT_RESULTS=$results git -C "$TREE" bisect run "$TOP/tools/bisect_step.sh" \
	>"$results/bisect-run.log" 2>&1 || true
grep '^bisect step' "$results/bisect-run.log" || true

first=$(git -C "$TREE" rev-parse -q --verify refs/bisect/bad || true)
if ! grep -q "is the first bad commit" "$results/bisect-run.log" || [ -z "$first" ]; then
	tail -n 20 "$results/bisect-run.log"
	die "bisect found no single first bad commit (see build/bisect/)"
fi
# git bisect trusts the BAD endpoint without testing it: run it for the list.
if [ ! -f "$results/${first:0:12}.counts" ]; then
	git -C "$TREE" checkout -q "$first"
	TREE=$TREE BISECT_RESULTS=$results "$TOP/tools/bisect_step.sh" || true
fi
echo "first bad commit: $(git -C "$TREE" log -1 --format='%H %s' "$first")"
echo "vectors that changed there:"
sed -n 's|^    FAIL .*mp_golden_vector/|    |p' "$results/${first:0:12}.counts"
