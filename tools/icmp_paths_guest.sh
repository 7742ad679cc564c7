#!/bin/bash
# The ICMP path check, inside a guest of tools/vm.sh (never on the host: it
# creates a network namespace and sets its multipath hash policy).
#
# In a namespace of its own: a route with two equal nexthops, one on each of
# two dummy devices, and net.ipv{4,6}.fib_multipath_hash_policy=1. For each
# of 64 destinations per family, "ip route get <dst> from <src> ipproto 1"
# (58, ICMPv6, for IPv6) names a device; then one real ping from <src> is sent
# and a tc flower filter per device and destination counts the echo request
# where it leaves. The ping must leave by the device "ip route get" named,
# exactly once. One case per destination; ends with
# "icmp-paths: N passed, N failed".
set -uo pipefail

NS=icmp-paths
DESTS=64

die() { echo "icmp-paths: $*" >&2; echo "icmp-paths: 0 passed, 1 failed"; exit 1; }
in_ns() { ip netns exec "$NS" "$@"; }

# family, source, destination prefix, IP protocol number (for "ip route get",
# numeric so that no /etc/protocols is needed), flower's names of the
# protocol and of the ethertype, echo request type.
FAMILIES=(
	"4 10.255.0.1 203.0.113. 1 icmp ip 8"
	"6 2001:db8:ff::1 2001:db8:100:: 58 icmpv6 ipv6 128"
)

setup() {
	ip netns add "$NS" || die "cannot create namespace $NS"
	in_ns ip link set lo up
	in_ns sysctl -qw net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv6.fib_multipath_hash_policy=1 || die "no multipath hash policy sysctls"
	in_ns ip addr add 10.255.0.1/32 dev lo
	in_ns ip -6 addr add 2001:db8:ff::1/128 dev lo nodad
	local i
	for i in 0 1; do
		in_ns ip link add "d$i" type dummy || die "no dummy device"
		in_ns ip link set "d$i" up
		in_ns ip addr add "192.0.2.$((4 * i + 1))/30" dev "d$i"
		in_ns ip neigh add "192.0.2.$((4 * i + 2))" lladdr "02:00:00:00:00:0$i" \
			dev "d$i" nud permanent
		in_ns ip -6 addr add "2001:db8:$i::1/64" dev "d$i" nodad
		in_ns ip -6 neigh add "2001:db8:$i::2" lladdr "02:00:00:00:00:0$i" \
			dev "d$i" nud permanent
		in_ns tc qdisc add dev "d$i" clsact || die "no clsact qdisc"
	done
	in_ns ip route add 203.0.113.0/24 \
		nexthop via 192.0.2.2 dev d0 nexthop via 192.0.2.6 dev d1 ||
		die "cannot add the IPv4 multipath route"
	in_ns ip -6 route add 2001:db8:100::/64 \
		nexthop via 2001:db8:0::2 dev d0 nexthop via 2001:db8:1::2 dev d1 ||
		die "cannot add the IPv6 multipath route"
}

# count_filters FAMILY DPREFIX IPPROTO ETHERTYPE TYPE: on each device, one
# filter per destination counting the echo requests sent to it.
count_filters() {
	local family=$1 dprefix=$2 proto=$3 ethertype=$4 type=$5 n dev
	for dev in d0 d1; do
		for n in $(seq 1 $DESTS); do
			echo "filter add dev $dev egress pref $((family * 1000 + n))" \
				"protocol $ethertype flower dst_ip $dprefix$n ip_proto $proto" \
				"type $type action pass"
		done
	done | in_ns tc -b - || die "cannot add tc flower filters"
}

# packets DEV PREF: echo requests the filter PREF of DEV has counted.
packets() {
	in_ns tc -s -j filter show dev "$1" egress pref "$2" |
		jq '[.[] | .options.actions[0].stats.packets // empty] | add // 0'
}

check_family() {
	local family=$1 src=$2 dprefix=$3 ipproto=$4 proto=$5 ethertype=$6 type=$7
	local n dst want got c0 c1
	count_filters "$family" "$dprefix" "$proto" "$ethertype" "$type"
	for n in $(seq 1 $DESTS); do
		dst=$dprefix$n
		want=$(in_ns ip -"$family" route get "$dst" from "$src" ipproto "$ipproto" |
			sed -n 's/.* dev \([^ ]*\).*/\1/p')
		in_ns ping -"$family" -c 1 -W 1 -I "$src" "$dst" >/dev/null 2>&1
		c0=$(packets d0 $((family * 1000 + n)))
		c1=$(packets d1 $((family * 1000 + n)))
		case "$c0/$c1" in
		1/0) got=d0 ;;
		0/1) got=d1 ;;
		*) got="d0:$c0,d1:$c1" ;;
		esac
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			verdict=ok passed=$((passed + 1))
		else
			verdict=MISMATCH failed=$((failed + 1))
		fi
		printf 'ipv%s %-22s %-6s %-12s %s\n' "$family" "$dst" "${want:-none}" "$got" "$verdict"
	done
}

setup
passed=0 failed=0
printf '%-4s %-22s %-6s %-12s\n' fam destination "route get" "ping left by"
for family in "${FAMILIES[@]}"; do
	check_family $family
done
ip netns del "$NS"
echo "icmp-paths: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
