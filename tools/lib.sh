# Shared settings for the tools/ scripts. Sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PATCH_DIR="$TOP/kernel-patches"
SERIES="$PATCH_DIR/series"
BASE_FILE="$PATCH_DIR/BASE"
TREE="${TREE:-$TOP/build/linux}"
BASE_TAG=base

# The tools change and delete only folders they made: those under this
# checkout's build/ folder (which they create and git ignores), and trees
# prepare made elsewhere (TREE=dir), which it marks with this file in their
# .git folder. Any other folder, such as a developer's own kernel tree named
# in TREE, is refused before anything is written. Paths are compared with
# symbolic links resolved, so a link under build/ to a tree of yours is not
# taken for the tools' own.
MADE_BY_NAME=patchq-made-by
SYNC_STAMP_NAME=patchq-synced
physical_path() {
	if [ -d "$1" ]; then
		(cd "$1" && pwd -P)
	else
		echo "$(cd "$(dirname "$1")" 2>/dev/null && pwd -P)/$(basename "$1")"
	fi
}
made_by_tools() {
	[ -f "$1/.git/$MADE_BY_NAME" ] && return 0
	case "$(physical_path "$1")/" in
	"$(cd "$TOP" && pwd -P)/build/"*) return 0 ;;
	esac
	return 1
}
mark_made_by_tools() { echo "made by $TOP/tools/tree/prepare.sh" >"$1/.git/$MADE_BY_NAME"; }

# require_tools_tree DIR: die unless DIR is absent or a tree the tools made.
require_tools_tree() {
	[ ! -e "$1" ] || made_by_tools "$1" ||
		die "$1 was not made by this project's tools (it has no .git/$MADE_BY_NAME), so they will not change or delete it; leave TREE unset for build/linux or name a new folder (to find which commit of a tree of yours moved flows: make hash-diff TREE_UNDER_TEST=$1 GOOD=rev BAD=rev)"
}

# Kernel builds go through ccache with paths under the checkout made
# relative, so that a clone in another folder (CI's) hits the same cache.
export CCACHE_BASEDIR="$TOP"
# s390's Makefile passes the assembler an absolute include path
# (-Wa,-I$(srctree)/arch/s390/include), which base_dir does not rewrite, so
# an s390x object compiled in a clone in another folder misses (the s390x
# build took 292 s in a warm gate, 287 s cold). Left out of the hash, the
# same object compiled by hand in a third folder hit; without it, it
# missed. A whole s390x build in a second clone still missed 812 of 1010
# compiles with it: a cause not found yet. ccache does not hash the files
# the assembler includes in any case.
# (Scripts source this file from one another: add the option once.)
case " ${CCACHE_IGNOREOPTIONS:-} " in
*" -Wa,-I* "*) ;;
*) export CCACHE_IGNOREOPTIONS="${CCACHE_IGNOREOPTIONS:+$CCACHE_IGNOREOPTIONS }-Wa,-I*" ;;
esac
# Depend mode takes a compile's headers from the dependency file the
# kernel's build already asks gcc for, instead of running the preprocessor
# a second time to hash its output: net/ipv4 and net/core of the x86_64
# guest kernel built in 80 s with an empty cache this way, 129 s in
# ccache's default mode, 80 s without ccache (one run each; reruns of one
# setting varied by up to 20 s on this shared machine). Warm hits are the
# same (an entry made in either mode hits in the other).
export CCACHE_DEPEND="${CCACHE_DEPEND:-1}"

# One role identity for every commit of the series, so that commits made
# by prepare are reproducible on any machine.
BRANCH_NAME="Multipath and ioprio branch maintainers"
BRANCH_EMAIL="branch-maintainers@mphash-ioprio.invalid"

# copy_checkout DEST: this checkout's files as they are (committed or not,
# untracked ones too, ignored ones such as build/ left out) copied to DEST,
# for checks that must not reach the checkout itself.
copy_checkout() {
	mkdir -p "$1" &&
		git -C "$TOP" ls-files -z --cached --others --exclude-standard |
		tar -C "$TOP" --null -T - -cf - | tar -C "$1" -xf -
}

# cat_if_changed OUT FILE...: OUT becomes the FILEs one after the other,
# touched only when that changes it (builds compare its time).
cat_if_changed() {
	local out=$1
	shift
	cat "$@" >"$out.new" || { rm -f "$out.new"; return 1; }
	if cmp -s "$out.new" "$out"; then rm -f "$out.new"; else mv "$out.new" "$out"; fi
}

# layered_kunitconfig OUT FRAGMENT...: the config of a run that adds
# options to the suites' (sanitizers, the guests', the benchmark): the
# fragments after .kunitconfig, written to OUT when that changes it.
layered_kunitconfig() {
	local out=$1
	shift
	cat_if_changed "$out" "$TOP/.kunitconfig" "$@"
}

# The User Mode Linux guest's kernel is also the one the per-commit check
# builds (the same config, so that the gate's guests boot that check's
# build of the last commit): .kunitconfig with these fragments.
# um_guest_kunitconfig OUT writes it.
UM_GUEST_FRAGMENTS=("$TOP/kunit/vm.config" "$TOP/kunit/vm-um.config")
um_guest_kunitconfig() { layered_kunitconfig "$1" "${UM_GUEST_FRAGMENTS[@]}"; }

# cross_compile ARCH: the CROSS_COMPILE prefix for a kernel ARCH on this
# (x86_64) host: empty for x86_64 and um; dies on an arch the branch does
# not build. The arches and their compilers (tools/packages) in one place.
cross_compile() {
	case "$1" in
	x86_64 | um) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	s390) echo s390x-linux-gnu- ;;
	*) die "unknown arch '$1' (x86_64, arm64, s390 or um)" ;;
	esac
}

# host_arch: the host's architecture as the kernel's ARCH names it.
host_arch() { local m; m=$(uname -m); echo "${m/aarch64/arm64}"; }

die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
info() { printf '%s: %s\n' "${0##*/}" "$*"; }

# base_field KEY: a value from kernel-patches/BASE ("key=value" lines).
base_field() { sed -n "s/^$1=//p" "$BASE_FILE"; }

# tree_git ARGS...: git in the prepared tree with the branch identity and
# commit dates pinned to author dates, so re-applying gives the same ids.
tree_git() {
	GIT_AUTHOR_NAME="$BRANCH_NAME" GIT_AUTHOR_EMAIL="$BRANCH_EMAIL" \
	GIT_COMMITTER_NAME="$BRANCH_NAME" GIT_COMMITTER_EMAIL="$BRANCH_EMAIL" \
		git -C "$TREE" -c core.abbrev=12 -c diff.noprefix=false \
		-c diff.mnemonicPrefix=false -c diff.renames=false \
		-c format.signature= -c commit.gpgsign=false "$@"
}

# series_patches: the patch files listed in series, in order, as paths
# relative to kernel-patches/ ("GROUP/NNNN-subject.patch").
series_patches() {
	[ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}

# The series is cut into groups, one per tree the patches would be sent
# to, in the order they apply (kernel-patches/groups: "NAME PREFIX...").
# Each group's patches and cover letter live in kernel-patches/NAME/. In
# the prepared tree, branch group/NAME marks the last commit of every group
# but the last, which ends at HEAD; "git rebase -i --update-refs" (the
# tree's default, set by prepare) moves those branches with the commits.
GROUPS_FILE="$PATCH_DIR/groups"
group_names() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$GROUPS_FILE" | awk '{ print $1 }'; }
group_prefix() { sed -e 's/#.*//' "$GROUPS_FILE" | awk -v g="$1" '$1 == g { $1 = ""; sub(/^ /, ""); print }'; }
group_ref() { printf 'refs/heads/group/%s' "$1"; }

# group_ranges: "NAME FROM TO" for each group, in order: the commits of a
# group are FROM..TO, after the previous group's branch up to its own (the
# last group's, or the first group's without a branch: HEAD, after which
# no group follows).
group_ranges() {
	local from last head to g
	from=$(git -C "$TREE" rev-parse -q --verify "refs/tags/$BASE_TAG") || return 1
	head=$(git -C "$TREE" rev-parse -q --verify HEAD) || return 1
	last=$(group_names | tail -n 1)
	for g in $(group_names); do
		to=$head
		if [ "$g" != "$last" ] &&
			git -C "$TREE" rev-parse -q --verify "$(group_ref "$g")" >/dev/null; then
			to=$(git -C "$TREE" rev-parse "$(group_ref "$g")")
		fi
		git -C "$TREE" merge-base --is-ancestor "$from" "$to" ||
			die "group/$g is not after the groups before it in the tree"
		echo "$g $from $to"
		[ "$to" != "$head" ] || break
		from=$to
	done
}

# export_to DIR: format the tree's commits since the base into DIR/GROUP/,
# with a series file. Output depends only on the commits, not on local git
# config.
export_to() {
	local out=$1 g from to f ranges
	mkdir -p "$out"
	: >"$out/series"
	ranges=$(group_ranges) || die "cannot split $TREE into the series' groups (is it a prepared tree, with a '$BASE_TAG' tag?)"
	while read -r g from to; do
		mkdir -p "$out/$g"
		tree_git format-patch --quiet --zero-commit --no-signature \
			--no-numbered --diff-algorithm=myers \
			-o "$out/$g" "$from..$to" >/dev/null
		for f in "$out/$g"/*.patch; do
			if [ -e "$f" ]; then printf '%s/%s\n' "$g" "${f##*/}" >>"$out/series"; fi
		done
	done <<<"$ranges"
}

# series_digest DIR: one hash over the patch names a series file lists
# (comments aside) and the patches' contents.
series_digest() {
	local dir=$1 p
	SERIES="$dir/series" series_patches | while read -r p; do
		printf '%s\n' "$p"
		cat "$dir/$p"
	done | sha256sum | cut -d' ' -f1
}

sync_stamp() { printf '%s/.git/%s' "$TREE" "$SYNC_STAMP_NAME"; }

# counts LINE: "P F" from a "... P passed, F failed ..." line; "0 1" (one
# failure) when the line has no counts, e.g. a tool that died early.
counts() {
	local pf
	pf=$(sed -nE 's/.* ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' <<<"$1")
	echo "${pf:-0 1}"
}

# kernel_reports LOG: the lines of a raw kernel log that open a sanitizer
# report, a warning or an oops (mm/kasan/report.c, lib/ubsan.c,
# kernel/kcsan/report.c, kernel/panic.c __warn(), the BUG: headers of
# oopses). Prints nothing for a clean log.
kernel_reports() {
	grep -E '^(BUG|WARNING|UBSAN|KASAN)[: ]|^ *(BUG: KASAN|BUG: KCSAN|UBSAN:)' "$1" || true
}
