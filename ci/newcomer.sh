#!/usr/bin/env bash
# The six mistakes a newcomer makes first each give one clear line: set-up
# run by a user who is not root, or on a release that is not Debian
# bookworm, while packages are missing; prepare without the kernel
# tarball; a run script before any tree was prepared (make's run targets
# prepare first); prepare on a tree with uncommitted changes; blktests
# with a guest kernel build folder under /tmp, which the guest cannot
# see. Each but the last runs in a scratch copy of this checkout
# (a package that does not exist added to its list, its BASE naming a
# tarball that does not exist, a tree of its own) and passes when the
# command failed, printed the expected line as its one error line, and
# installed, unpacked or changed nothing. Ends with "newcomer: N passed, N
# failed".
set -uo pipefail
. "$(dirname "$0")/../tools/lib.sh"

work="$TOP/build/newcomer"
passed=0 failed=0

# scratch NAME: a fresh copy of this checkout in $work/NAME.
scratch() {
	rm -rf "${work:?}/$1"
	copy_checkout "$work/$1" || die "cannot copy $TOP to $work/$1"
	echo "$work/$1"
}

# expect NAME PATTERN COMMAND...: COMMAND must fail with exactly one error
# line ("tool: error: ...") on its standard error, which matches PATTERN
# (an extended regexp).
expect() {
	local name=$1 pattern=$2 out err rc
	shift 2
	err=$(mktemp)
	out=$("$@" 2>"$err")
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$(grep -c ': error: ' "$err")" -eq 1 ] &&
		grep ': error: ' "$err" | grep -qE "$pattern"; then
		echo "ok $name: $(grep ': error: ' "$err")"
		passed=$((passed + 1))
	else
		echo "FAIL $name: exit status $rc, standard error:"
		sed 's/^/    /' "$err"
		tail -n 5 <<<"$out" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
	rm -f "$err"
}

mkdir -p "$work"
missing_package=mphash-ioprio-no-such-package

# The user nobody must reach the copy: under /tmp, not under this
# checkout, whose parent folders it may not be allowed to enter.
nobody_dir=$(mktemp -d /tmp/newcomer-not-root.XXXXXX) || die "cannot make a folder in /tmp"
trap 'rm -rf "$nobody_dir"' EXIT
copy_checkout "$nobody_dir" || die "cannot copy $TOP to $nobody_dir"
chmod -R a+rX "$nobody_dir"
echo "$missing_package" >>"$nobody_dir/tools/packages"
expect "not root" "missing packages \($missing_package\); run as root$" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody_dir/tools/setup.sh"

dir=$(scratch not-bookworm)
echo "$missing_package" >>"$dir/tools/packages"
printf 'ID=ubuntu\nVERSION_CODENAME=noble\n' >"$work/os-release"
expect "not bookworm" "this is 'ubuntu noble', not Debian bookworm" \
	env SETUP_OS_RELEASE="$work/os-release" "$dir/tools/setup.sh"

dir=$(scratch no-tarball)
sed -i 's|^tarball=.*|tarball=/nonexistent/linux-source-6.12.tar.xz|' "$dir/kernel-patches/BASE"
expect "tarball missing" "/nonexistent/linux-source-6.12.tar.xz is missing: run 'make setup'$" \
	env -u TREE "$dir/tools/tree/prepare.sh"
[ ! -e "$dir/build/linux" ] || { echo "FAIL tarball missing: a tree was made"; failed=$((failed + 1)); }

dir=$(scratch not-prepared)
expect "run before prepare" "no kernel git tree at $dir/build/linux: run 'make prepare'$" \
	env -u TREE "$dir/tools/kunit/kunit.sh" um

# A tree as prepare leaves it (its base tag and marker), then edited.
dir=$(scratch dirty-tree)
tree="$dir/build/linux"
git init -q -b master "$tree"
echo "int x;" >"$tree/file.c"
git -C "$tree" add file.c
git -C "$tree" -c user.name=me -c user.email=me@example.invalid commit -q -m base
git -C "$tree" tag "$BASE_TAG"
echo "made by ci/newcomer.sh" >"$tree/.git/$MADE_BY_NAME"
echo "int y;" >>"$tree/file.c"
expect "dirty tree" "$tree: it has uncommitted changes.*prepare leaves it alone" \
	env -u TREE "$dir/tools/tree/prepare.sh"
grep -q "int y;" "$tree/file.c" || { echo "FAIL dirty tree: the edit is gone"; failed=$((failed + 1)); }

hidden=/tmp/newcomer-hidden-vm-build.$$
expect "build folder hidden in the guest" \
	"VM_BUILD_DIR $hidden is under /tmp, hidden in the guest by its own tmpfs" \
	env VM_BUILD_DIR="$hidden" "$TOP/tools/nvme/blktests.sh" tcp_offload
[ ! -e "$hidden" ] || { echo "FAIL build folder hidden in the guest: $hidden was made"; failed=$((failed + 1)); }

echo "newcomer: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
