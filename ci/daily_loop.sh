#!/usr/bin/env bash
# The README's daily workflow, followed as written on a scratch clone of
# this checkout's HEAD, as a newcomer clones it (build/daily-loop), so that
# the README and the tools cannot drift apart: make prepare; a KUnit case
# added in build/linux and committed there; make kunit ARCH=um runs it
# before anything is exported; make status names the unexported commit;
# make export writes it to kernel-patches/; make status is clean; then an
# uncommitted edit, which make kunit ARCH=um builds and make status names;
# then make help, make vm with a script and make shell, booting that build.
# One case per step; ends with "daily-loop: N passed, N failed". The
# clone's UML build has the per-commit check's config, so its compiles
# come from ccache.
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"

clone="$TOP/build/daily-loop"
logs="$TOP/build/logs/daily-loop"
passed=0 failed=0
rm -rf "$clone" "$logs"
mkdir -p "$logs"
git clone -q "$TOP" "$clone" || die "cannot clone $TOP"
cd "$clone" || exit 1
# The clone's own tree and build folders, whatever the caller's are.
unset TREE KUNIT_BUILD_DIR KUNITCONFIG KUNIT_RESULTS VM_BUILD_DIR

# step NAME COMMAND...: one case, its output in build/logs/daily-loop/.
step() {
	local name=$1 log
	shift
	log="$logs/$(tr ' /' '__' <<<"$name").log"
	if "$@" >"$log" 2>&1; then
		echo "ok $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (${log#"$TOP"/})"
		tail -n 15 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

CASE=blk_ioprio_daily_loop
# add_case: a KUnit case in the blk_ioprio suite, as a developer adds one.
add_case() {
	local f=build/linux/block/tests/blk_ioprio_kunit.c
	grep -q '^static struct kunit_case blk_ioprio_cases\[\] = {$' "$f" || return
	python3 - "$f" "$CASE" <<'PY' || return
import sys
path, case = sys.argv[1:]
src = open(path).read()
fn = f"""/* The README's daily workflow, followed by ci/daily_loop.sh */
static void {case}(struct kunit *test)
{{
	KUNIT_EXPECT_EQ(test,
			IOPRIO_PRIO_CLASS(IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)),
			IOPRIO_CLASS_IDLE);
}}

"""
head = "static struct kunit_case blk_ioprio_cases[] = {\n"
i = src.index(head)
j = src.index("\t{}\n};", i)
src = src[:i] + fn + src[i:j] + f"\tKUNIT_CASE({case}),\n" + src[j:]
open(path, "w").write(src)
PY
	git -C build/linux commit -q -a -s -m "blk-ioprio: Check the daily workflow" \
		-m "A case added by ci/daily_loop.sh on a scratch clone."
}

# ran CASE: make kunit ARCH=um ran CASE, and it passed.
ran() {
	make -s kunit ARCH=um || return
	python3 - "build/results/um.json" "$1" <<'PY'
import json, sys
path, case = sys.argv[1:]
def walk(t):
    yield t
    for s in t.get("sub_groups", []) + t.get("test_cases", []):
        yield from walk(s)
found = [t for t in walk(json.load(open(path))) if t.get("name") == case]
print(found[0]["status"] if found else "not run")
sys.exit(0 if found and found[0]["status"] == "PASS" else 1)
PY
}

edit_uncommitted() {
	sed -i "s/\b$CASE\b/${CASE}_edited/g" build/linux/block/tests/blk_ioprio_kunit.c &&
		grep -q "${CASE}_edited" build/linux/block/tests/blk_ioprio_kunit.c
}

status_names_change() {
	local out
	! out=$(make -s status 2>&1) && grep -q 'uncommitted changes' <<<"$out"
}

status_names_commit() {
	local out
	! out=$(make -s status 2>&1) && grep -q 'new or changed: branch/' <<<"$out"
}
exported() { make -s export && git status --short kernel-patches | grep -q '^?? kernel-patches/branch/'; }

# The README's other cheap commands, on the clone's own User Mode Linux
# build (the one make kunit ARCH=um made): make help, the by-hand recipe's
# make vm with a script, and make shell at a terminal.
help_grouped() {
	local out
	out=$(make -s help) && grep -q '^Start here' <<<"$out" &&
		grep -q '^  make hash-diff ' <<<"$out" && grep -q '^  make shell ' <<<"$out"
}

vm_runs_script() {
	local out
	printf '%s\n' '#!/bin/bash' "dmesg | grep 'device on lo registered'" >build/try-offload.sh &&
		chmod +x build/try-offload.sh || return
	# The whole output first: a reader that stops early would cut the
	# guest's console off under it.
	out=$(VM_BUILD_DIR="$PWD/build/kunit-um" make -s vm ARCH=um CMD=build/try-offload.sh) || return
	grep -q 'device on lo registered' <<<"$out"
}

shell_at_terminal() {
	local out release
	release=$(cat build/kunit-um/include/config/kernel.release) || return
	# What the shell prints, not what the terminal echoes of the input.
	out=$(printf 'echo "guest-runs-$(uname -r)"\nexit\n' | VM_BUILD_DIR="$PWD/build/kunit-um" \
		script -qec "make -s shell ARCH=um" /dev/null 2>&1) || return
	grep -q "(guest um)" <<<"$out" && grep -qF "guest-runs-$release" <<<"$out"
}

step "make prepare" make -s prepare
step "a KUnit case added and committed in build/linux" add_case
step "make kunit ARCH=um runs it, unexported" ran "$CASE"
step "make status names the unexported commit" status_names_commit
step "make export writes it to kernel-patches/branch/" exported
step "make status clean after export" make -s status
step "an uncommitted edit (the case renamed)" edit_uncommitted
step "make kunit ARCH=um builds the uncommitted edit" ran "${CASE}_edited"
step "make status names the uncommitted change" status_names_change
step "make help lists the targets by group" help_grouped
step "make vm ARCH=um CMD=script runs it in a guest" vm_runs_script
step "make shell ARCH=um gives a shell at a terminal" shell_at_terminal

echo "daily-loop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
