#!/bin/bash
# The ICMP path checks, inside a guest of tools/vm.sh (never on the host:
# they create network namespaces and set their multipath hash policy).
#
# In a namespace of its own: a route with two equal nexthops, one on each of
# two dummy devices, and net.ipv{4,6}.fib_multipath_hash_policy=1.
#
# Pings: for each of 64 destinations per family, "ip route get <dst> from
# <src> ipproto 1" (58, ICMPv6, for IPv6) names a device; then one real ping
# from <src> is sent and a tc flower filter per device and destination
# counts the echo request where it leaves. The ping must leave by the device
# "ip route get" named, exactly once.
#
# Forwarded errors, under net.ipv{4,6}.fib_multipath_hash_policy=3 and
# fib_multipath_hash_fields=0x1037 (the 5-tuple, and errors hashed by the
# packet they quote): a client namespace behind a veth sends, for each of 64
# UDP flows per family to one address behind the two nexthops, a packet of
# the flow and an ICMP error about it (Fragmentation Needed, or Packet Too
# Big for IPv6) quoting the reply direction of the flow, as a router further
# on would send it to the server; each error has a source address of its
# own so that filters tell them apart. The error must leave by the device
# the flow's packet left by.
#
# One case per destination and per flow; ends with
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

# load_counts: the packets every filter of d0 and d1 has counted, from one
# dump per device (a tc and jq call per filter and row took minutes in a
# TCG guest), into count_d0[PREF] and count_d1[PREF].
declare -A count_d0 count_d1
load_counts() {
	local dev pref pkts
	for dev in d0 d1; do
		local -n counts="count_$dev"
		counts=()
		# A here-string, not a process substitution: the guest has no
		# /dev/fd.
		while read -r pref pkts; do
			[ -n "$pref" ] && counts[$pref]=$pkts
		done <<<"$(in_ns tc -s -j filter show dev "$dev" egress |
			jq -r '.[] | select(.options.actions) |
				"\(.pref) \(.options.actions[0].stats.packets)"')"
	done
}

# left_by PREF: the nexthop device whose filter PREF counted one packet, as
# load_counts last read them.
left_by() {
	local c0=${count_d0[$1]:-0} c1=${count_d1[$1]:-0}
	case "$c0/$c1" in
	1/0) echo d0 ;;
	0/1) echo d1 ;;
	*) echo "d0:$c0,d1:$c1" ;;
	esac
}

check_family() {
	local family=$1 src=$2 dprefix=$3 ipproto=$4 proto=$5 ethertype=$6 type=$7
	local n dst got want=()
	count_filters "$family" "$dprefix" "$proto" "$ethertype" "$type"
	# No echo reply ever comes back from a dummy nexthop: the pings run
	# side by side, each waiting its one second at the same time.
	for n in $(seq 1 $DESTS); do
		dst=$dprefix$n
		want[n]=$(in_ns ip -"$family" route get "$dst" from "$src" ipproto "$ipproto" |
			sed -n 's/.* dev \([^ ]*\).*/\1/p')
		in_ns ping -"$family" -c 1 -W 1 -I "$src" "$dst" >/dev/null 2>&1 &
	done
	wait
	load_counts
	for n in $(seq 1 $DESTS); do
		dst=$dprefix$n
		got=$(left_by $((family * 1000 + n)))
		if [ -n "${want[n]}" ] && [ "$got" = "${want[n]}" ]; then
			verdict=ok passed=$((passed + 1))
		else
			verdict=MISMATCH failed=$((failed + 1))
		fi
		printf 'ipv%s %-22s %-6s %-12s %s\n' "$family" "$dst" "${want[n]:-none}" "$got" "$verdict"
	done
}

# --- Forwarded ICMP errors follow their flow ----------------------------------

CLIENT=icmp-paths-client
FLOWS=64
SPORT=40000
# family, client address, router address on the client side, the server
# address behind the two nexthops, prefix of the errors' source addresses
# (one per flow; none of the router's own, which it would drop as martian),
# flower's names of the ethertype and of the ICMP protocol.
ERR_FAMILIES=(
	"4 198.18.0.2 198.18.0.1 203.0.113.200 100.64.0. ip icmp"
	"6 2001:db8:c::2 2001:db8:c::1 2001:db8:100::200 2001:db8:e:: ipv6 icmpv6"
)

setup_client() {
	ip netns add "$CLIENT" || die "cannot create namespace $CLIENT"
	ip link add c0 netns "$CLIENT" type veth peer name r0 netns "$NS" ||
		die "no veth"
	in_ns sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	# Errors follow their flow only where asked to (field 0x1000).
	in_ns sysctl -qw net.ipv4.fib_multipath_hash_policy=3 \
		net.ipv6.fib_multipath_hash_policy=3 \
		net.ipv4.fib_multipath_hash_fields=0x1037 \
		net.ipv6.fib_multipath_hash_fields=0x1037 ||
		die "no multipath hash field 0x1000 (ICMP errors by their quote)"
	in_ns ip link set r0 up
	in_ns ip addr add 198.18.0.1/24 dev r0
	in_ns ip -6 addr add 2001:db8:c::1/64 dev r0 nodad
	ip -n "$CLIENT" link set lo up
	ip -n "$CLIENT" link set c0 up
	ip -n "$CLIENT" addr add 198.18.0.2/24 dev c0
	ip -n "$CLIENT" -6 addr add 2001:db8:c::2/64 dev c0 nodad
	ip -n "$CLIENT" route add default via 198.18.0.1
	ip -n "$CLIENT" -6 route add default via 2001:db8:c::1
}

# err_src FAMILY EPREFIX I: the source address of flow I's error (as
# send_flows makes it: the host part is I + 1, hexadecimal for IPv6).
err_src() {
	if [ "$1" = 4 ]; then
		echo "$2$(($3 + 1))"
	else
		echo "$2$(printf '%x' $(($3 + 1)))"
	fi
}

# err_filters FAMILY EPREFIX ETHERTYPE ICMPPROTO: on each nexthop device,
# per flow one filter counting its UDP packets (by source port) and one its
# errors (by source address).
err_filters() {
	local family=$1 eprefix=$2 ethertype=$3 icmp=$4 i dev
	for dev in d0 d1; do
		for i in $(seq 0 $((FLOWS - 1))); do
			echo "filter add dev $dev egress pref $((family * 10000 + i))" \
				"protocol $ethertype flower ip_proto udp src_port $((SPORT + i))" \
				"action pass"
			echo "filter add dev $dev egress pref $((family * 10000 + 1000 + i))" \
				"protocol $ethertype flower src_ip $(err_src "$family" "$eprefix" "$i")" \
				"ip_proto $icmp action pass"
		done
	done | in_ns tc -b - || die "cannot add the flow and error filters"
}

# send_flows FAMILY CLIENT SERVER EPREFIX: from the client, per flow one UDP
# packet to the server and one error quoting the server's reply, sent to
# the server from the flow's error source address.
send_flows() {
	ip netns exec "$CLIENT" python3 - "$@" "$FLOWS" "$SPORT" <<'PY' ||
import socket
import struct
import sys

family, client, server, eprefix, flows, sport0 = sys.argv[1:7]
v4 = family == "4"
af = socket.AF_INET if v4 else socket.AF_INET6


def csum(data):
    data += b"\0" * (len(data) % 2)
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def ip(src, dst, proto, payload):
    if v4:
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0,
                          64, proto, 0, socket.inet_pton(af, src),
                          socket.inet_pton(af, dst))
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        return hdr + payload
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), proto, 64,
                       socket.inet_pton(af, src), socket.inet_pton(af, dst)) + payload


def udp(sport, dport):
    return struct.pack("!HHHH", sport, dport, 16, 0) + b"multpath"


def error(src, quoted):
    # Fragmentation Needed (MTU 1400) or Packet Too Big (MTU 1280), quoting
    # the IP header and the first 8 bytes after it, as routers do at least.
    if v4:
        body = struct.pack("!BBHHH", 3, 4, 0, 0, 1400) + quoted[:28]
        body = body[:2] + struct.pack("!H", csum(body)) + body[4:]
        return ip(src, server, socket.IPPROTO_ICMP, body)
    body = struct.pack("!BBHI", 2, 0, 0, 1280) + quoted[:48]
    return ip(src, server, socket.IPPROTO_ICMPV6, body)


sock = socket.socket(af, socket.SOCK_RAW, socket.IPPROTO_RAW)
for i in range(int(flows)):
    sport = int(sport0) + i
    esrc = eprefix + ("%d" % (i + 1) if v4 else "%x" % (i + 1))
    sock.sendto(ip(client, server, socket.IPPROTO_UDP, udp(sport, 443)), (server, 0))
    reply = ip(server, client, socket.IPPROTO_UDP, udp(443, sport))
    sock.sendto(error(esrc, reply), (server, 0))
PY
		die "cannot send the IPv$1 flows and errors"
}

check_errors() {
	local family=$1 client=$2 server=$4 eprefix=$5 ethertype=$6 icmp=$7
	local i flow err verdict
	err_filters "$family" "$eprefix" "$ethertype" "$icmp"
	send_flows "$family" "$client" "$server" "$eprefix"
	sleep 1
	load_counts
	for i in $(seq 0 $((FLOWS - 1))); do
		flow=$(left_by $((family * 10000 + i)))
		err=$(left_by $((family * 10000 + 1000 + i)))
		if [ "$flow" = "$err" ] && { [ "$flow" = d0 ] || [ "$flow" = d1 ]; }; then
			verdict=ok passed=$((passed + 1))
		else
			verdict=MISMATCH failed=$((failed + 1))
		fi
		printf 'ipv%s udp sport %-6s %-12s %-12s %s\n' "$family" $((SPORT + i)) "$flow" "$err" "$verdict"
	done
}

setup
passed=0 failed=0
printf '%-4s %-22s %-6s %-12s\n' fam destination "route get" "ping left by"
for family in "${FAMILIES[@]}"; do
	check_family $family
done
setup_client
printf '%-4s %-16s %-12s %-12s\n' fam flow "flow left by" "error left by"
for family in "${ERR_FAMILIES[@]}"; do
	check_errors $family
done
ip netns del "$CLIENT"
ip netns del "$NS"
echo "icmp-paths: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
