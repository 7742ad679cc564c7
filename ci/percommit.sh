#!/usr/bin/env bash
# Check every commit of the series on its own, in order: build it
# incrementally, run the KUnit suites present at that commit (a commit
# before the first suite only has to build; its "pass" column shows "-"),
# run checkpatch on its patch and kernel-doc on the files it touches (new
# warnings fail, tools/tree/kerneldoc.sh), and compile the .c files it touches
# that its config builds again with W=1 and sparse (C=2) before and after
# it (tools/tree/compile_warnings.sh; a warning the parent did not have fails,
# line numbers left out: the W=1 column for gcc's, the sparse column for
# sparse's; the first commit's parent is built first for this). Prints a
# table and fails naming the first bad commit.
#
# The kernel is User Mode Linux (PERCOMMIT_ARCH=um, the default): the same
# x86_64 code as under QEMU, run natively, so the whole series' suites run
# in about a second instead of eight under QEMU TCG; the builds take the
# rest. Its config also holds the options of the UML guest (tools/lib.sh,
# UM_GUEST_FRAGMENTS): every commit builds them, and the gate's guests
# boot the last commit's build (ci/test.sh). PERCOMMIT_ARCH=x86_64 (or any
# arch tools/kunit/kunit.sh knows) walks the series under QEMU instead. A warning or oops in a commit's kernel log
# fails it even when every case passed, as does a compiler warning (build
# column WARN). PERCOMMIT_SANITIZE=1 builds every commit with KASAN and
# UBSAN (kunit/sanitizers.config), whose reports then fail it too; the gate
# leaves that to its s390x run of the whole series, as each commit's build
# would cost about a quarter more (cold UML builds: 601 s plain, 755 s with
# them). The build folder is build/kunit-ARCH, or with
# sanitizers the one "make sanitize" uses (build/kunit-ARCH-sanitizers).
#
# Works in the prepared tree itself (checking out each commit detached and
# returning to the branch at the end) and in the arch's build folder, so
# each step rebuilds only what the commit touched. Needs a tree in step
# with kernel-patches/ (make prepare; make status). PERCOMMIT_LAST=N checks
# only the last N commits (tools/kunit/bench.sh uses it).
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"
require_tools_tree "$TREE"

LOGS="$TOP/build/logs/percommit"
ARCH=${PERCOMMIT_ARCH:-um}
fragments=()
if [ "$ARCH" = um ]; then
	# The User Mode Linux guest's options too (tools/lib.sh): every commit
	# builds them, and the last commit's build is the guest's kernel.
	fragments+=("${UM_GUEST_FRAGMENTS[@]}")
fi
if [ "${PERCOMMIT_SANITIZE:-0}" = 1 ]; then
	fragments+=("$TOP/kunit/sanitizers.config")
	build_dir="$TOP/build/kunit-$ARCH-sanitizers"
else
	build_dir="$TOP/build/kunit-$ARCH"
fi
mkdir -p "$LOGS"
"$TOP/tools/tree/status.sh" >/dev/null || die "the tree is not in step with kernel-patches/ (make status)"
branch=$(git -C "$TREE" symbolic-ref -q --short HEAD) || die "the tree is not on a branch"
trap 'git -C "$TREE" checkout -q "$branch"' EXIT

# kunitconfig_at COMMIT OUT: the lines of .kunitconfig and the fragments
# whose options the tree defines at COMMIT, so that each commit runs the
# suites it has. One git grep per commit for every option (one per option
# cost about 0.15 s each, 12 s a commit for the UML guest's 80 options).
kunitconfig_at() {
	local commit=$1 out=$2 names defined
	names=$(cat "$TOP/.kunitconfig" "${fragments[@]}" |
		sed -nE -e 's/^CONFIG_([A-Za-z0-9_]+)=.*/\1/p' \
			-e 's/^# CONFIG_([A-Za-z0-9_]+) is not set$/\1/p' | paste -sd '|')
	defined=$(git -C "$TREE" grep -hE "^(menu)?config ($names)\$" "$commit" -- '*Kconfig*' |
		awk '{ print $2 }' | sort -u)
	cat "$TOP/.kunitconfig" "${fragments[@]}" |
		awk 'NR == FNR { defined[$1] = 1; next }
			match($0, /^CONFIG_[A-Za-z0-9_]+=/) {
				if (substr($0, 8, RLENGTH - 8) in defined) print; next }
			match($0, /^# CONFIG_[A-Za-z0-9_]+ is not set$/) {
				name = $2; sub(/^CONFIG_/, "", name)
				if (name in defined) print }' <(printf '%s\n' "$defined") - >"$out"
}

# touched_c COMMIT: the .c files COMMIT changes or adds.
touched_c() {
	git -C "$TREE" diff-tree --no-commit-id --name-only --diff-filter=AM -r "$1" -- '*.c'
}

# compile_check COMMIT OUT: the W=1 and sparse warnings of the .c files
# COMMIT touches, as the tree and the build folder are now (at COMMIT's
# parent or at COMMIT itself), into OUT. Status 2: none of them is built
# in this config.
compile_check() {
	local files
	mapfile -t files < <(touched_c "$1")
	"$TOP/tools/tree/compile_warnings.sh" "$ARCH" "$build_dir" "${files[@]}" >"$2"
}

# new_warnings BEFORE AFTER KIND: the lines of AFTER that BEFORE lacks (as
# many times as AFTER has them more), of one KIND: gcc's (W=1: they name
# their -W option) or sparse's (the others).
new_warnings() {
	local pattern='\[-W[^]]*\]$'
	comm -13 <(sort "$1") <(sort "$2") | if [ "$3" = gcc ]; then grep -E "$pattern"; else grep -vE "$pattern"; fi
}

mapfile -t commits < <(git -C "$TREE" rev-list --reverse "$BASE_TAG..$branch")
mapfile -t patches < <(series_patches)
[ "${#commits[@]}" -eq "${#patches[@]}" ] || die "the tree has ${#commits[@]} commits, the series ${#patches[@]} patches"

rows=() first_bad="" passed=0 failed=0
first=$(( ${#commits[@]} - ${PERCOMMIT_LAST:-${#commits[@]}} ))
[ "$first" -ge 0 ] || first=0

# The first commit checked is compared, as the others are, with its
# parent's warnings: the parent is built first (no suites run), which
# leaves the first commit's own build incremental.
parent=$(git -C "$TREE" rev-parse "${commits[$first]}^")
git -C "$TREE" checkout -q --detach "$parent"
kunitconfig_at "$parent" "$LOGS/parent.kunitconfig"
KUNITCONFIG="$LOGS/parent.kunitconfig" KUNIT_BUILD_ONLY=1 KUNIT_BUILD_DIR=$build_dir \
	KUNIT_ALLOW_WARNINGS=1 "$TOP/tools/kunit/kunit.sh" "$ARCH" >"$LOGS/parent.kunit.log" 2>&1 ||
	die "the first checked commit's parent ${parent:0:12} does not build ($LOGS/parent.kunit.log)"
for i in "${!commits[@]}"; do
	[ "$i" -ge "$first" ] || continue
	c=${commits[$i]} n=$(printf '%02d' $((i + 1)))
	subject=$(git -C "$TREE" log -1 --format=%s "$c")
	rm -f "$LOGS/$n.w1.new" "$LOGS/$n.sparse.new" "$LOGS/$n.warnings"
	# The tree and the build folder are at the parent here. When the
	# parent was checked too and touched the same files, its own list is
	# this one (same sources, same config).
	if [ "$i" -gt "$first" ] && [ -f "$LOGS/$prev.warnings" ] &&
		[ "$(touched_c "$c")" = "$(touched_c "${commits[$((i - 1))]}")" ]; then
		cp "$LOGS/$prev.warnings" "$LOGS/$n.warnings.parent"
	else
		compile_check "$c" "$LOGS/$n.warnings.parent"
	fi
	git -C "$TREE" checkout -q --detach "$c"
	kunitconfig_at "$c" "$LOGS/$n.kunitconfig"

	start=$(date +%s)
	# checkpatch reads the tree at this commit, as the build does: it runs
	# beside the build, on the core the build leaves idle while linking.
	"$TOP/tools/tree/checkpatch.sh" "$PATCH_DIR/${patches[$i]}" >"$LOGS/$n.checkpatch.log" 2>&1 &
	checkpatch_pid=$!
	"$TOP/tools/tree/kerneldoc.sh" "$c" >"$LOGS/$n.kerneldoc.log" 2>&1 &
	kerneldoc_pid=$!
	rm -f "$build_dir/test.log"
	log=-
	if grep -q '_KUNIT_TEST=' "$LOGS/$n.kunitconfig"; then
		KUNITCONFIG="$LOGS/$n.kunitconfig" KUNIT_RESULTS="$LOGS/$n.json" \
			KUNIT_BUILD_DIR=$build_dir KUNIT_TIMEOUT=1800 \
			"$TOP/tools/kunit/kunit.sh" "$ARCH" >"$LOGS/$n.kunit.log" 2>&1
		if [ -f "$LOGS/$n.json" ]; then
			# tools/kunit/kunit.sh writes the results, then fails a build
			# that warned.
			build=ok
			! grep -q 'compiler warnings (listed above)' "$LOGS/$n.kunit.log" || build=WARN
			counts=$("$TOP/tools/kunit/kunit_counts.py" "x=$LOGS/$n.json" | head -n 1)
			read -r p f <<<"$(counts "$counts")"
			# A sanitizer report or a warning fails the commit even
			# when every case passed.
			kernel_reports "$build_dir/test.log" >"$LOGS/$n.reports"
			if ! cp "$build_dir/test.log" "$LOGS/$n.test.log"; then
				log=NOLOG f=$((f + 1))
			elif [ -s "$LOGS/$n.reports" ]; then
				log=REPORT f=$((f + 1))
			else
				log=clean
			fi
		else
			build=FAIL p=0 f=1
		fi
	elif KUNITCONFIG="$LOGS/$n.kunitconfig" KUNIT_BUILD_ONLY=1 \
		KUNIT_BUILD_DIR=$build_dir \
		"$TOP/tools/kunit/kunit.sh" "$ARCH" >"$LOGS/$n.kunit.log" 2>&1; then
		# No suite of the branch exists at this commit: it must build.
		build=ok p=- f=0
	else
		build=FAIL p=0 f=1
	fi
	if wait "$checkpatch_pid"; then
		cp=ok
	else
		cp=FAIL
	fi
	if wait "$kerneldoc_pid"; then
		kdoc=ok
	else
		kdoc=FAIL
	fi
	# W=1 and sparse: what the build left in place was built at this
	# commit (a commit that does not build has nothing to compare).
	w1=- sparse=-
	if [ "$build" != FAIL ]; then
		compile_check "$c" "$LOGS/$n.warnings"
		case $? in
		0)
			new_warnings "$LOGS/$n.warnings.parent" "$LOGS/$n.warnings" gcc >"$LOGS/$n.w1.new"
			new_warnings "$LOGS/$n.warnings.parent" "$LOGS/$n.warnings" sparse >"$LOGS/$n.sparse.new"
			w1=ok sparse=ok
			[ ! -s "$LOGS/$n.w1.new" ] || w1=FAIL
			[ ! -s "$LOGS/$n.sparse.new" ] || sparse=FAIL
			;;
		2) ;;
		*) w1=FAIL sparse=FAIL ;;
		esac
	fi
	secs=$(($(date +%s) - start))

	group=${patches[$i]%%/*}
	rows+=("$(printf '%s %-8s %.12s %-5s %5s %4s %-6s %4ss %-5s %-4s %-4s %-6s %.40s' "$n" "$group" "$c" "$build" "$p" "$f" "$log" "$secs" "$cp" "$kdoc" "$w1" "$sparse" "$subject")")
	if [ "$build" = ok ] && [ "$f" -eq 0 ] && [ "$cp" = ok ] && [ "$kdoc" = ok ] &&
		[ "$w1" != FAIL ] && [ "$sparse" != FAIL ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		[ -n "$first_bad" ] || first_bad="$n ${c:0:12} $subject"
	fi
	echo "${rows[-1]}"
	prev=$n
	for kind in w1 sparse; do
		[ -s "$LOGS/$n.$kind.new" ] || continue
		echo "    new $kind warnings ($LOGS/$n.warnings):"
		sed 's/^/      /' "$LOGS/$n.$kind.new"
	done
done

echo
printf '%s %-8s %-12s %-5s %5s %4s %-6s %5s %-5s %-4s %-4s %-6s %s\n' "#" group commit build pass fail log time cpatch kdoc W=1 sparse subject
printf '%s\n' "${rows[@]}"
echo "logs: build/logs/percommit/"
if [ -n "$first_bad" ]; then
	echo "first bad commit: $first_bad"
fi
echo "percommit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
