#!/usr/bin/env bash
# The tools never change or delete a tree they did not make. A scratch git
# repository stands for a developer's own kernel tree (commits, an
# uncommitted change, an untracked file); each target that could write to a
# tree is pointed at it, and each case passes when the target refused with
# the tools' line and the repository, and the kernel-patches/ of the
# checkout it ran from, are byte for byte as they were. The targets run
# from a scratch copy of this checkout's files as they are (committed or
# not), so that a target that failed to refuse cannot reach this
# checkout's own. Ends with "tree-safety: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"

work="$TOP/build/tree-safety"
mine="$work/my-linux"
checkout="$work/checkout"
passed=0 failed=0

rm -rf "$work"
mkdir -p "$mine" "$checkout"
copy_checkout "$checkout" || die "cannot copy $TOP"
git -C "$mine" init -q -b master
echo "my work" >"$mine/README"
# The one line hash-diff looks for at GOOD before it starts.
mkdir -p "$mine/include/net/netns"
echo "struct sysctl_fib_multipath_hash_seed sysctl_fib_multipath_hash_seed;" >"$mine/include/net/netns/ipv4.h"
git -C "$mine" add README include
git -C "$mine" -c user.name=me -c user.email=me@example.invalid commit -q -m one
echo "more of my work" >>"$mine/README"
git -C "$mine" -c user.name=me -c user.email=me@example.invalid commit -q -am two
echo "not committed yet" >>"$mine/README"
echo "untracked" >"$mine/notes.txt"
# A folder beside it, named as prepare names its scratch unpack.
mkdir -p "$work/new-tree.partial"
echo "also mine" >"$work/new-tree.partial/keep"

# snapshot: every file of the repository, the folder beside it and the
# clone's kernel-patches/, with its contents.
snapshot() {
	(cd "$work" && find my-linux new-tree.partial checkout/kernel-patches -type f -print0 |
		sort -z | xargs -0 sha256sum)
}
before=$(snapshot)

# pass NAME WHAT / fail NAME WHY [OUTPUT]
pass() { echo "ok $1: $2"; passed=$((passed + 1)); }
fail() {
	echo "FAIL $1: $2"
	[ -z "${3:-}" ] || tail -n 5 <<<"$3" | sed 's/^/    /'
	failed=$((failed + 1))
}

# refused NAME COMMAND...: COMMAND, run in the scratch clone, must fail,
# print the tools' refusal line, and leave every file as it was.
REFUSAL="was not made by this project's tools"
refused() {
	local name=$1 out rc
	shift
	out=$(cd "$checkout" && "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		fail "$name" "exited 0" "$out"
	elif ! grep -q "$REFUSAL" <<<"$out"; then
		fail "$name" "no refusal line" "$out"
	elif [ "$(snapshot)" != "$before" ]; then
		fail "$name" "a file changed" "$(diff <(echo "$before") <(snapshot))"
	else
		pass "$name" "refused"
	fi
}

refused "make prepare TREE=mine" make -s prepare TREE="$mine"
refused "make kunit ARCH=um TREE=mine" make -s kunit ARCH=um TREE="$mine"
refused "make export TREE=mine" make -s export TREE="$mine"
refused "make reset-tree TREE=mine" make -s reset-tree TREE="$mine"
refused "make vectors TREE=mine" make -s vectors TREE="$mine"
refused "make percommit TREE=mine" make -s percommit TREE="$mine"
refused "tools/tree/export.sh with TREE=mine" env TREE="$mine" tools/tree/export.sh
refused "tools/hash/vectors.sh --write with TREE=mine" env TREE="$mine" tools/hash/vectors.sh --write
refused "make prepare TREE=new-tree (new-tree.partial is mine)" make -s prepare TREE="$work/new-tree"

out=$(cd "$checkout" && make -s hash-diff 2>&1)
if [ $? -ne 0 ] && grep -q "usage: make hash-diff" <<<"$out" && ! grep -q "Needed a single revision" <<<"$out"; then
	pass "make hash-diff, no variables" "its usage line"
else
	fail "make hash-diff, no variables" "no usage line" "$out"
fi

# Comparing a tree of the developer's runs in a clone sharing its objects:
# the clone holds the scratch history, and the repository is untouched.
# GOOD has no kernel to build, so the run ends there: this case is about
# where it ran.
out=$(cd "$checkout" && make -s hash-diff TREE_UNDER_TEST="$mine" GOOD=HEAD~1 BAD=HEAD 2>&1)
clone_head=$(git -C "$checkout/build/hash-diff/tree" rev-parse -q --verify HEAD 2>/dev/null)
if [ "$(snapshot)" != "$before" ]; then
	fail "make hash-diff TREE_UNDER_TEST=mine" "a file changed" "$out"
elif ! git -C "$mine" cat-file -e "${clone_head:-none}^{commit}" 2>/dev/null ||
	! grep -q "is not changed" <<<"$out" || ! grep -q "GOOD=HEAD~1 does not build or run the probe" <<<"$out"; then
	fail "make hash-diff TREE_UNDER_TEST=mine" "it did not run in build/hash-diff/tree, a clone of mine, up to GOOD's probe" "$out"
else
	pass "make hash-diff TREE_UNDER_TEST=mine" "ran in a clone, the repository unchanged"
fi

echo "tree-safety: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
