#!/usr/bin/env bash
# The tools never change or delete a tree they did not make. A scratch git
# repository stands for a developer's own kernel tree (commits, an
# uncommitted change, an untracked file); every target that could write to
# a tree is pointed at it, and each case passes when the target refused
# with the tools' line and the repository is still byte for byte as it
# was. Ends with "tree-safety: N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"

work="$TOP/build/tree-safety"
mine="$work/my-linux"
passed=0 failed=0

rm -rf "$work"
mkdir -p "$mine"
git -C "$mine" init -q -b master
echo "my work" >"$mine/README"
git -C "$mine" add README
git -C "$mine" -c user.name=me -c user.email=me@example.invalid commit -q -m one
echo "more of my work" >>"$mine/README"
git -C "$mine" -c user.name=me -c user.email=me@example.invalid commit -q -am two
echo "not committed yet" >>"$mine/README"
echo "untracked" >"$mine/notes.txt"
# A folder beside it, named as prepare names its scratch unpack.
mkdir -p "$work/new-tree.partial"
echo "also mine" >"$work/new-tree.partial/keep"

# snapshot: every file under the scratch folder, with its contents.
snapshot() { (cd "$work" && find . -path ./out -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(snapshot)

# case NAME COMMAND...: COMMAND must fail, print the tools' refusal or
# usage line, and leave every file as it was.
case_refused() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "FAIL $name: exited 0"
		failed=$((failed + 1))
	elif ! grep -qE "was not made by this project's tools|usage: make bisect" <<<"$out"; then
		echo "FAIL $name: no refusal line; it printed:"
		tail -n 5 <<<"$out" | sed 's/^/    /'
		failed=$((failed + 1))
	elif [ "$(snapshot)" != "$before" ]; then
		echo "FAIL $name: the scratch repository changed"
		diff <(echo "$before") <(snapshot) | head -n 10 | sed 's/^/    /'
		failed=$((failed + 1))
	else
		echo "ok $name: $(grep -m 1 -oE "(was not made by this project's tools|usage: make bisect).*" <<<"$out" | cut -c 1-80)"
		passed=$((passed + 1))
	fi
}

cd "$TOP"
case_refused "make prepare TREE=mine" make -s prepare TREE="$mine"
case_refused "make kunit ARCH=um TREE=mine" make -s kunit ARCH=um TREE="$mine"
case_refused "make reset-tree TREE=mine" make -s reset-tree TREE="$mine"
case_refused "make um-fp TREE=mine" make -s um-fp TREE="$mine"
case_refused "make prepare TREE=new-tree (its .partial is mine)" make -s prepare TREE="$work/new-tree"
case_refused "make bisect, no variables" make -s bisect
# Bisecting a tree of the developer's runs in a clone: the steps find no
# kernel to build, so no first bad commit, and the repository is untouched.
out=$(make -s bisect TREE_UNDER_TEST="$mine" GOOD=HEAD~1 BAD=HEAD 2>&1)
if [ "$(snapshot)" = "$before" ] && grep -q "is not changed" <<<"$out"; then
	echo "ok make bisect TREE_UNDER_TEST=mine: bisected in a clone, the repository unchanged"
	passed=$((passed + 1))
else
	echo "FAIL make bisect TREE_UNDER_TEST=mine: the repository changed, or no clone was used:"
	tail -n 5 <<<"$out" | sed 's/^/    /'
	failed=$((failed + 1))
fi

echo "tree-safety: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
