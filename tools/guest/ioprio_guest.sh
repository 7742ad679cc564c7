#!/bin/bash
# The ioprio end-to-end check, inside a guest of tools/guest/vm.sh (never on the
# host: it needs null_blk, a cgroup v2 hierarchy and tracefs of its own).
#
# null_blk's nullb0 runs mq-deadline; one child cgroup per io.prio.class
# policy; from each, a direct 4 KiB read with each input priority (ionice
# class and level, or no class under a given nice value or real-time
# scheduling). The priority of the request, as the block_rq_insert
# tracepoint records it (class,hint,level), must be the one the mapping
# documented in Documentation/admin-guide/cgroup-v2.rst gives.
#
# IOPRIO_E2E_STRICT=0 only reports mismatches (exit 0); used to show the
# check itself. Ends with "ioprio-e2e: N passed, N failed".
set -uo pipefail

CG=/sys/fs/cgroup
TRACE=/sys/kernel/tracing
DEV=nullb0
POLICIES="no-change promote-to-rt restrict-to-be idle none-to-rt"
# Input: "class level nice sched": class none/rt/be/idle as ionice takes it.
INPUTS=(
	"none - 0 other" "none - 10 other" "none - -20 other" "none - 0 fifo"
	"rt 0 0 other" "rt 4 0 other" "rt 7 0 other"
	"be 0 0 other" "be 4 0 other" "be 7 0 other"
	"idle - 0 other"
)

die() { echo "ioprio-e2e: $*" >&2; echo "ioprio-e2e: 0 passed, 1 failed"; exit 1; }

# The class and level a request starts with before its cgroup's policy:
# ionice's (which gives the idle class level 7, whatever -n says), or
# without a class the one bio_set_ioprio() derives from the task:
# real-time scheduling gives rt, otherwise be, level (nice + 20) / 5.
effective() {
	local class=$1 level=$2 nice=$3 sched=$4
	case "$class" in
	none) [ "$sched" = fifo ] && class=rt || class=be
		level=$(((nice + 20) / 5)) ;;
	idle) level=7 ;;
	esac
	echo "$class $level"
}

# The documented mapping: promote-to-rt (and its old name none-to-rt) moves
# every non-rt request to rt at level 4; restrict-to-be moves rt requests
# to be, keeping the level; idle moves rt and be requests to idle level 0.
mapped() {
	local policy=$1 class=$2 level=$3
	case "$policy" in
	promote-to-rt | none-to-rt)
		[ "$class" = rt ] || { class=rt level=4; } ;;
	restrict-to-be)
		[ "$class" = rt ] && class=be ;;
	idle)
		[ "$class" = idle ] || { class=idle level=0; } ;;
	esac
	echo "$class,0,$level"
}

# Read one block from cgroup $1 with input $2; print the request's
# class,hint,level from the trace.
observe() {
	local policy=$1 class level nice sched
	read -r class level nice sched <<<"$2"
	local cmd=(dd if=/dev/$DEV of=/dev/null bs=4096 count=1 iflag=direct status=none)
	case "$class" in
	none) cmd=(ionice -c 0 "${cmd[@]}") ;;
	idle) cmd=(ionice -c 3 "${cmd[@]}") ;;
	*) cmd=(ionice -c "$([ "$class" = rt ] && echo 1 || echo 2)" -n "$level" "${cmd[@]}") ;;
	esac
	[ "$sched" = fifo ] && cmd=(chrt -f 10 "${cmd[@]}")
	cmd=(nice -n "$nice" "${cmd[@]}")
	echo >"$TRACE/trace"
	(echo "$BASHPID" >"$CG/$policy/cgroup.procs" && exec "${cmd[@]}") ||
		return 1
	sed -n 's/.*block_rq_insert:.* \([a-z]*,[0-9]*,[0-9]*\) \[dd\].*/\1/p' \
		"$TRACE/trace" | tail -n 1
}

[ -b /dev/$DEV ] || die "no /dev/$DEV (null_blk built in, nr_devices=1)"
echo mq-deadline >/sys/block/$DEV/queue/scheduler || die "no mq-deadline"
grep -q '\[mq-deadline\]' /sys/block/$DEV/queue/scheduler || die "mq-deadline not selected"
echo +io >"$CG/cgroup.subtree_control" || die "cannot enable the io controller"
echo 1 >"$TRACE/events/block/block_rq_insert/enable" || die "no block_rq_insert tracepoint"

passed=0 failed=0
printf '%-15s %-22s %-10s %-10s\n' policy "input (class level nice sched)" want got
for policy in $POLICIES; do
	mkdir -p "$CG/$policy"
	echo "$policy" >"$CG/$policy/io.prio.class" || die "io.prio.class rejects $policy"
	for input in "${INPUTS[@]}"; do
		want=$(mapped "$policy" $(effective $input))
		got=$(observe "$policy" "$input")
		if [ "$got" = "$want" ]; then
			verdict=ok passed=$((passed + 1))
		else
			verdict=MISMATCH failed=$((failed + 1))
		fi
		printf '%-15s %-22s %-10s %-10s %s\n' "$policy" "$input" "$want" "${got:-none}" "$verdict"
	done
done
echo "ioprio-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || [ "${IOPRIO_E2E_STRICT:-1}" = 0 ]
