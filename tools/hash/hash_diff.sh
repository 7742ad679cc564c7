#!/usr/bin/env bash
# Did a range of kernel commits move multipath flows, and which commit did?
#
#   tools/hash/hash_diff.sh [--each] TREE_UNDER_TEST GOOD BAD
#   make hash-diff TREE_UNDER_TEST=dir GOOD=rev BAD=rev [EACH=1]
#
# Records the multipath hashes of a fixed set of flows at GOOD with the
# probe (tools/hash/mphash_probe.c: seed fixed; IPv4 and IPv6; policies 0-2
# and the custom policy with each field, the 5-tuple and all fields; plain
# UDP, TCP and ICMP echo, GRE- and IP-in-IP-encapsulated UDP and ICMP
# errors as forwarded packets, hashed without and with fib rules (which
# dissect them early); the plain kinds also as flow keys of local
# sockets). Then bisects GOOD..BAD for the first commit whose hashes
# differ from GOOD's and prints, for that commit, which policies and
# fields moved and what share of the flows. With --each
# (EACH=1), probes instead every commit of the range (first parents only),
# each against the one probed before it, and prints one row per commit;
# HASH_DIFF_PATHS="net include" probes only the commits touching those
# paths and says so on the others' rows.
#
# The tree is any kernel git tree from Linux 6.11 on (the seed sysctl the
# probe fixes). It is never changed: the steps run in a clone sharing its
# objects, build/hash-diff/tree, with the probe copied in for each step.
# Each step builds for HASH_DIFF_ARCH (x86_64 under QEMU, the default, or
# um: natively as User Mode Linux, which boots on an AVX-512 host only with
# this series' um group) with tools/hash/probe.kunitconfig, in
# build/hash-diff/kunit-ARCH (kept, so steps rebuild only what changed).
# Commits that do not build are skipped. Logs and hashes:
# build/hash-diff/results/.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

HERE="$TOP/tools/hash"
WORK="$TOP/build/hash-diff"
RESULTS="$WORK/results"
CLONE="$WORK/tree"
ARCH=${HASH_DIFF_ARCH:-x86_64}
BUILD_DIR=${HASH_DIFF_BUILD_DIR:-$WORK/kunit-$ARCH}
KCONFIG=${HASH_DIFF_KUNITCONFIG:-$HERE/probe.kunitconfig}
PROBE_DEST=net/ipv4/mphash_probe.c
PROBE_RULE='obj-$(CONFIG_KUNIT) += mphash_probe.o'

# probe COMMIT: build and boot COMMIT of the clone with the probe; its
# lines, sorted, in $RESULTS/COMMIT.hashes. Fails when it gives none.
probe() {
	local c=${1:0:12} rc=0
	git -C "$CLONE" checkout -q -f --detach "$1" || return 1
	# Keep the probe's time, so that an unchanged commit does not rebuild it.
	cp -p "$HERE/mphash_probe.c" "$CLONE/$PROBE_DEST"
	# A step that does not build must not read the last step's log.
	rm -f "$BUILD_DIR/test.log"
	echo "$PROBE_RULE" >>"$CLONE/net/ipv4/Makefile"
	TREE=$CLONE KUNIT_ALLOW_WARNINGS=1 KUNIT_BUILD_DIR="$BUILD_DIR" \
		KUNITCONFIG="$KCONFIG" KUNIT_RESULTS="$RESULTS/$c.json" \
		"$TOP/tools/kunit/kunit.sh" "$ARCH" mphash_probe >"$RESULTS/$c.log" 2>&1 || rc=$?
	git -C "$CLONE" checkout -q -- net/ipv4/Makefile
	rm -f "$CLONE/$PROBE_DEST"
	grep -ao 'mphash: .*' "$BUILD_DIR/test.log" 2>/dev/null | tr -d '\r' |
		sed 's/^mphash: //' | sort >"$RESULTS/$c.hashes" || true
	if [ ! -s "$RESULTS/$c.hashes" ]; then
		echo "probe ${c}: no hashes (build or boot failed, rc $rc; see build/hash-diff/results/$c.log)"
		return 1
	fi
}

# moved OLD NEW: one line per config whose hashes differ, "v6 p2/0x0000
# pkt: 16 of 48 flows moved", then how many lines only one of them has
# (a field bit one kernel lacks: its configs cannot be compared). Nothing
# when they hash alike.
moved() {
	awk '
	FNR == NR { old[$1 " " $2 " " $3 " " $4] = $5; next }
	{
		key = $1 " " $2 " " $3 " " $4
		if (!(key in old)) { new++; next }
		seen[key] = 1
		how = $3; sub(/-.*/, "", how)
		group = $1 " " $2 " " how
		total[group]++
		if (old[key] != $5) changed[group]++
	}
	END {
		for (g in changed)
			printf "    %s: %d of %d flows moved\n", g, changed[g], total[g] | "sort"
		close("sort")
		for (key in old)
			if (!(key in seen))
				gone++
		if (new)
			printf "    (%d lines of configs the older kernel lacks, not compared)\n", new
		if (gone)
			printf "    (%d lines of configs this kernel lacks, not compared)\n", gone
	}' "$1" "$2"
}

# A step of "git bisect run": 0 when the commit hashes as GOOD, 1 when not,
# 125 (skip) when it gives no hashes.
if [ "${1:-}" = --bisect-step ]; then
	c=$(git -C "$CLONE" rev-parse HEAD)
	probe "$c" || exit 125
	if [ -z "$(moved "$RESULTS/good.hashes" "$RESULTS/${c:0:12}.hashes" | grep -v '^    (')" ]; then
		echo "step ${c:0:12}: hashes as GOOD"
		exit 0
	fi
	echo "step ${c:0:12}: flows moved"
	exit 1
fi

each=0
if [ "${1:-}" = --each ]; then
	each=1
	shift
fi
usage="usage: make hash-diff TREE_UNDER_TEST=dir GOOD=rev BAD=rev [EACH=1]"
[ "$#" -eq 3 ] && [ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] || die "$usage"
git -C "$1" rev-parse --git-dir >/dev/null 2>&1 || die "TREE_UNDER_TEST=$1 is not a git tree; $usage"
src=$(cd "$1" && pwd)
good=$(git -C "$src" rev-parse -q --verify "$2^{commit}") || die "GOOD=$2 is not a commit of $src"
bad=$(git -C "$src" rev-parse -q --verify "$3^{commit}") || die "BAD=$3 is not a commit of $src"
[ "$good" != "$bad" ] || die "GOOD and BAD are the same commit"
git -C "$src" merge-base --is-ancestor "$good" "$bad" || die "GOOD=$2 is not an ancestor of BAD=$3"
git -C "$src" show "$good:include/net/netns/ipv4.h" 2>/dev/null | grep -q sysctl_fib_multipath_hash_seed ||
	die "GOOD=$2 has no fib_multipath_hash_seed (Linux 6.11): its hashes change at every boot, so there is nothing to compare"
case "$ARCH" in x86_64 | arm64 | s390 | um) ;; *) die "HASH_DIFF_ARCH=$ARCH: x86_64, arm64, s390 or um" ;; esac

# build/hash-diff is this script's: the results are made afresh, and so
# is the clone unless it is one of the same tree (then only the files that
# differ between commits change, and builds stay incremental).
mkdir -p "$WORK"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"
if [ "$(git -C "$CLONE" config remote.origin.url 2>/dev/null)" != "$src" ]; then
	rm -rf "$CLONE"
	git clone -q --shared --no-checkout "$src" "$CLONE" || die "cannot clone $src"
fi
git -C "$CLONE" bisect reset >/dev/null 2>&1 || true
info "comparing in $CLONE (a clone of $src sharing its objects; $src is not changed), $ARCH"
trap 'git -C "$CLONE" bisect reset >/dev/null 2>&1 || true' EXIT

probe "$good" || die "GOOD=$2 does not build or run the probe (build/hash-diff/results/${good:0:12}.log)"
cp "$RESULTS/${good:0:12}.hashes" "$RESULTS/good.hashes"
info "GOOD ${good:0:12}: $(wc -l <"$RESULTS/good.hashes") hashes recorded"

if [ "$each" = 1 ]; then
	prev=$good
	read -ra paths <<<"${HASH_DIFF_PATHS:-}"
	echo "commits of GOOD..BAD, each against the one probed before it:"
	for c in $(git -C "$src" rev-list --reverse --first-parent "$good..$bad"); do
		subject=$(git -C "$src" log -1 --format=%s "$c")
		if [ "${#paths[@]}" -gt 0 ] && git -C "$src" diff --quiet "$c^" "$c" -- "${paths[@]}"; then
			echo "${c:0:12} $subject: not probed (touches none of ${paths[*]})"
			continue
		fi
		if ! probe "$c" >/dev/null; then
			echo "${c:0:12} $subject: no hashes (does not build or boot), compared with the next"
			continue
		fi
		out=$(moved "$RESULTS/${prev:0:12}.hashes" "$RESULTS/${c:0:12}.hashes")
		if [ -z "$(grep -v '^    (' <<<"$out")" ]; then
			echo "${c:0:12} $subject: no flow moved"
		else
			echo "${c:0:12} $subject: flows moved"
		fi
		[ -z "$out" ] || printf '%s\n' "$out"
		prev=$c
	done
	exit 0
fi

probe "$bad" || die "BAD=$3 does not build or run the probe (build/hash-diff/results/${bad:0:12}.log)"
if [ -z "$(moved "$RESULTS/good.hashes" "$RESULTS/${bad:0:12}.hashes" | grep -v '^    (')" ]; then
	echo "no flow moved: BAD ${bad:0:12} hashes every flow as GOOD ${good:0:12}"
	exit 0
fi

git -C "$CLONE" bisect start "$bad" "$good" >/dev/null
git -C "$CLONE" bisect run "$HERE/hash_diff.sh" --bisect-step >"$RESULTS/bisect-run.log" 2>&1 || true
grep '^step ' "$RESULTS/bisect-run.log" || true
first=$(git -C "$CLONE" rev-parse -q --verify refs/bisect/bad || true)
if ! grep -q "is the first bad commit" "$RESULTS/bisect-run.log" || [ -z "$first" ]; then
	tail -n 20 "$RESULTS/bisect-run.log"
	die "bisect found no single first commit that moves flows (build/hash-diff/results/)"
fi
echo "first commit that moves flows: $(git -C "$CLONE" log -1 --format='%H %s' "$first")"
moved "$RESULTS/good.hashes" "$RESULTS/${first:0:12}.hashes"
