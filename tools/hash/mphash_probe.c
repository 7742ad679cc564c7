// SPDX-License-Identifier: GPL-2.0
/*
 * mphash probe: print the multipath hash of a fixed set of flows under
 * every policy and custom field of this kernel, for tools/hash/hash_diff.sh.
 *
 * Not part of the series: hash_diff.sh copies this file into the kernel it
 * compares (any tree from Linux 6.11 on, which has the seed sysctl), builds
 * it in next to net/ipv4/route.c and removes it after. It uses only what
 * such a tree declares: fib_multipath_hash(), rt6_multipath_hash(), the
 * per-netns policy, fields and seed, and FIB_MULTIPATH_HASH_FIELD_ALL_MASK.
 *
 * Each line printed is
 *
 *	mphash: <family> p<policy>/<fields> <how>-<kind> <flow> <hash>
 *
 * where <how> is "pkt" for a forwarded packet (the hash of its headers),
 * "rul" for the same packet where fib rules make the receive path dissect
 * it before the lookup, and "key" for a flow key with no packet (a locally
 * generated flow), and <flow>
 * numbers the variants of one kind. The hash is the value the route lookup
 * compares with the nexthops' upper bounds; the seed is fixed, so the lines
 * of one kernel are the same on every boot and every machine.
 */

#include <kunit/test.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/flow_dissector.h>
#include <net/gre.h>
#include <net/ip6_route.h>
#include <net/ip_fib.h>
#include <net/net_namespace.h>

#ifndef CONFIG_IP_ROUTE_MULTIPATH
#error "the mphash probe needs CONFIG_IP_ROUTE_MULTIPATH=y"
#endif

#define PROBE_SEED	0x5eed
#define PROBE_FLOWS	8

enum probe_kind { PROBE_UDP, PROBE_TCP, PROBE_ECHO, PROBE_GRE, PROBE_IPIP,
		  PROBE_ERR, PROBE_NR_KINDS };

static const char * const probe_kind_names[PROBE_NR_KINDS] = {
	"udp", "tcp", "echo", "gre", "ipip", "err",
};

/* What varies between the flows of one kind. */
struct probe_flow {
	u8 src, dst;		/* host parts of the addresses */
	u16 sport, dport;
	u32 label;		/* IPv6 flow label; flow 0 has none */
};

static struct probe_flow probe_flow(unsigned int i)
{
	return (struct probe_flow) {
		.src = 1 + i,
		.dst = 1 + (i * 7) % 16,
		.sport = 1024 + 17 * i,
		.dport = 2048 + 31 * i,
		.label = (i * 0x9e37) & 0xfffff,
	};
}

/* 198.51.100.<host> to 203.0.113.<host>; outer headers 192.0.2.<host>. */
static __be32 probe_addr4(bool outer, bool dst, u8 host)
{
	if (outer)
		return htonl((dst ? 0xc0000280 : 0xc0000200) | host);
	return htonl((dst ? 0xcb007100 : 0xc6336400) | host);
}

/* 2001:db8:1::<host> to 2001:db8:2::<host>; outer headers 2001:db8:3/4::. */
static void probe_addr6(struct in6_addr *addr, bool outer, bool dst, u8 host)
{
	u32 net = 1 + (outer ? 2 : 0) + dst;

	ipv6_addr_set(addr, htonl(0x20010db8), htonl(net << 16), 0, htonl(host));
}

static void probe_put_ip(struct sk_buff *skb, int family, bool outer,
			 const struct probe_flow *f, u8 next)
{
	if (family == AF_INET) {
		struct iphdr *iph = skb_put_zero(skb, sizeof(*iph));

		iph->version = 4;
		iph->ihl = 5;
		iph->ttl = 64;
		iph->protocol = next;
		iph->saddr = probe_addr4(outer, false, outer ? f->src / 2 : f->src);
		iph->daddr = probe_addr4(outer, true, outer ? 1 : f->dst);
	} else {
		struct ipv6hdr *ip6h = skb_put_zero(skb, sizeof(*ip6h));

		/* A tunnel's outer label is derived from its inner flow. */
		ip6_flow_hdr(ip6h, 0, htonl(outer ? 0xa0000 + f->src : f->label));
		ip6h->hop_limit = 64;
		ip6h->nexthdr = next;
		probe_addr6(&ip6h->saddr, outer, false, outer ? f->src / 2 : f->src);
		probe_addr6(&ip6h->daddr, outer, true, outer ? 1 : f->dst);
	}
}

static void probe_put_ports(struct sk_buff *skb, u8 proto,
			    const struct probe_flow *f)
{
	if (proto == IPPROTO_TCP) {
		struct tcphdr *th = skb_put_zero(skb, sizeof(*th));

		th->source = htons(f->sport);
		th->dest = htons(f->dport);
		th->doff = sizeof(*th) / 4;
	} else {
		struct udphdr *uh = skb_put_zero(skb, sizeof(*uh));

		uh->source = htons(f->sport);
		uh->dest = htons(f->dport);
		uh->len = htons(sizeof(*uh));
	}
}

static void probe_put_icmp(struct sk_buff *skb, int family, bool echo,
			   const struct probe_flow *f)
{
	if (family == AF_INET) {
		struct icmphdr *icmph = skb_put_zero(skb, sizeof(*icmph));

		icmph->type = echo ? ICMP_ECHO : ICMP_DEST_UNREACH;
		icmph->code = echo ? 0 : ICMP_FRAG_NEEDED;
		if (echo) {
			icmph->un.echo.id = htons(f->sport);
			icmph->un.echo.sequence = htons(f->dport);
		}
	} else {
		struct icmp6hdr *icmp6h = skb_put_zero(skb, sizeof(*icmp6h));

		icmp6h->icmp6_type = echo ? ICMPV6_ECHO_REQUEST : ICMPV6_PKT_TOOBIG;
		if (echo) {
			icmp6h->icmp6_identifier = htons(f->sport);
			icmp6h->icmp6_sequence = htons(f->dport);
		}
	}
}

/* Set the IP lengths once the packet is whole. */
static void probe_fix_lengths(struct sk_buff *skb, int family)
{
	if (family == AF_INET) {
		struct iphdr *iph = ip_hdr(skb);

		iph->tot_len = htons(skb->len);
	} else {
		ipv6_hdr(skb)->payload_len = htons(skb->len - sizeof(struct ipv6hdr));
	}
}

/*
 * One packet of @kind, IP header first (as the route lookup of a forwarded
 * packet sees it). Encapsulated kinds carry a UDP flow of the same family.
 */
static void probe_fill(struct sk_buff *skb, int family, enum probe_kind kind,
		       const struct probe_flow *f)
{
	u8 icmp = family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
	u8 ipip = family == AF_INET ? IPPROTO_IPIP : IPPROTO_IPV6;
	struct gre_base_hdr *gre;

	skb_reset_network_header(skb);
	skb->protocol = family == AF_INET ? htons(ETH_P_IP) : htons(ETH_P_IPV6);
	switch (kind) {
	case PROBE_UDP:
	case PROBE_TCP:
		probe_put_ip(skb, family, false, f,
			     kind == PROBE_TCP ? IPPROTO_TCP : IPPROTO_UDP);
		probe_put_ports(skb, kind == PROBE_TCP ? IPPROTO_TCP : IPPROTO_UDP, f);
		break;
	case PROBE_ECHO:
		probe_put_ip(skb, family, false, f, icmp);
		probe_put_icmp(skb, family, true, f);
		break;
	case PROBE_GRE:
		probe_put_ip(skb, family, true, f, IPPROTO_GRE);
		gre = skb_put_zero(skb, sizeof(*gre));
		gre->protocol = skb->protocol;
		probe_put_ip(skb, family, false, f, IPPROTO_UDP);
		probe_put_ports(skb, IPPROTO_UDP, f);
		break;
	case PROBE_IPIP:
		probe_put_ip(skb, family, true, f, ipip);
		probe_put_ip(skb, family, false, f, IPPROTO_UDP);
		probe_put_ports(skb, IPPROTO_UDP, f);
		break;
	default:
		/* A router's error quoting the flow's packet. */
		probe_put_ip(skb, family, true, f, icmp);
		probe_put_icmp(skb, family, false, f);
		probe_put_ip(skb, family, false, f, IPPROTO_UDP);
		probe_put_ports(skb, IPPROTO_UDP, f);
		break;
	}
	probe_fix_lengths(skb, family);
	/* Where ip_rcv() and ipv6_rcv() leave it: after the outer header. */
	skb_set_transport_header(skb, family == AF_INET ? sizeof(struct iphdr) :
						       sizeof(struct ipv6hdr));
}

/* The flow key of a locally generated flow of @kind (no packet yet). */
static u32 probe_hash_key(struct net *net, int family, enum probe_kind kind,
			  const struct probe_flow *f)
{
	u8 proto = kind == PROBE_TCP ? IPPROTO_TCP : IPPROTO_UDP;

	if (family == AF_INET) {
		struct flowi4 fl4 = {
			.saddr = probe_addr4(false, false, f->src),
			.daddr = probe_addr4(false, true, f->dst),
		};

		if (kind == PROBE_ECHO) {
			fl4.flowi4_proto = IPPROTO_ICMP;
			fl4.fl4_icmp_type = ICMP_ECHO;
		} else {
			fl4.flowi4_proto = proto;
			fl4.fl4_sport = htons(f->sport);
			fl4.fl4_dport = htons(f->dport);
		}
		return fib_multipath_hash(net, &fl4, NULL, NULL);
	}
#if IS_BUILTIN(CONFIG_IPV6)
	{
		struct flowi6 fl6 = { .flowlabel = htonl(f->label) };

		probe_addr6(&fl6.saddr, false, false, f->src);
		probe_addr6(&fl6.daddr, false, true, f->dst);
		if (kind == PROBE_ECHO) {
			fl6.flowi6_proto = IPPROTO_ICMPV6;
			fl6.fl6_icmp_type = ICMPV6_ECHO_REQUEST;
		} else {
			fl6.flowi6_proto = proto;
			fl6.fl6_sport = htons(f->sport);
			fl6.fl6_dport = htons(f->dport);
		}
		return rt6_multipath_hash(net, &fl6, NULL, NULL);
	}
#else
	return 0;
#endif
}

/*
 * A forwarded packet's hash. With @early, as in a netns with fib rules
 * that match on ports or protocol: the receive path then dissects the
 * packet before the lookup (fib4/fib6_rules_early_flow_dissect()). IPv4
 * hands those keys to the hash for every packet (ip_mkroute_input());
 * IPv6 only for ICMPv6 (ip6_route_input()), the others being hashed later
 * without them.
 */
static u32 probe_hash_skb(struct net *net, int family, struct sk_buff *skb,
			  bool early)
{
	struct flow_keys keys, *flkeys = NULL;
	u32 hash = 0;

	if (early && family == AF_INET6 &&
	    ipv6_hdr(skb)->nexthdr != IPPROTO_ICMPV6)
		early = false;
	if (early) {
		skb_flow_dissect_flow_keys(skb, &keys, FLOW_DISSECTOR_F_STOP_AT_ENCAP);
		flkeys = &keys;
	}
	rcu_read_lock();
	if (family == AF_INET)
		hash = fib_multipath_hash(net, NULL, skb, flkeys);
#if IS_BUILTIN(CONFIG_IPV6)
	else
		hash = rt6_multipath_hash(net, NULL, skb, flkeys);
#endif
	rcu_read_unlock();
	return hash;
}

static void probe_set(struct net *net, int family, u8 policy, u32 fields)
{
	if (family == AF_INET) {
		WRITE_ONCE(net->ipv4.sysctl_fib_multipath_hash_policy, policy);
		WRITE_ONCE(net->ipv4.sysctl_fib_multipath_hash_fields, fields);
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6) {
		WRITE_ONCE(net->ipv6.sysctl.multipath_hash_policy, policy);
		WRITE_ONCE(net->ipv6.sysctl.multipath_hash_fields, fields);
	}
#endif
}

/*
 * Every flow of every kind as a forwarded packet, without and with fib
 * rules, and (plain kinds) as a flow key.
 */
static int probe_print_config(struct net *net, int family, u8 policy,
			      u32 fields)
{
	const char *fam = family == AF_INET ? "v4" : "v6";
	enum probe_kind kind;
	struct sk_buff *skb;
	unsigned int i;
	u32 hash;

	probe_set(net, family, policy, fields);
	for (kind = 0; kind < PROBE_NR_KINDS; kind++) {
		for (i = 0; i < PROBE_FLOWS; i++) {
			struct probe_flow f = probe_flow(i);

			skb = alloc_skb(256, GFP_KERNEL);
			if (!skb)
				return -ENOMEM;
			probe_fill(skb, family, kind, &f);
			pr_info("mphash: %s p%u/0x%04x pkt-%s %u %08x\n", fam,
				policy, fields, probe_kind_names[kind], i,
				probe_hash_skb(net, family, skb, false));
			pr_info("mphash: %s p%u/0x%04x rul-%s %u %08x\n", fam,
				policy, fields, probe_kind_names[kind], i,
				probe_hash_skb(net, family, skb, true));
			kfree_skb(skb);
			if (kind > PROBE_ECHO)
				continue;
			rcu_read_lock();
			hash = probe_hash_key(net, family, kind, &f);
			rcu_read_unlock();
			pr_info("mphash: %s p%u/0x%04x key-%s %u %08x\n", fam,
				policy, fields, probe_kind_names[kind], i, hash);
		}
	}
	return 0;
}

/*
 * Policies 0-2, then the custom policy with each field alone, the 5-tuple
 * (0x0037), the twelve fields of Linux 5.14-6.12 (0x0fff, so that kernels
 * with and without a later field compare there) and, where this kernel
 * knows more, every field it knows. A field bit a later kernel adds shows
 * up as new lines, which hash_diff.sh counts apart and does not compare.
 */
static void mphash_probe_print(struct kunit *test)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct net *net;
	unsigned int f;
	u8 policy;
	int bit;

	net = kunit_kzalloc(test, sizeof(*net), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, net);
	net->ipv4.sysctl_fib_multipath_hash_seed.user_seed = PROBE_SEED;
	net->ipv4.sysctl_fib_multipath_hash_seed.mp_seed = PROBE_SEED;

	for (f = 0; f < ARRAY_SIZE(families); f++) {
		if (families[f] == AF_INET6 && !IS_BUILTIN(CONFIG_IPV6))
			continue;
		for (policy = 0; policy < 3; policy++)
			KUNIT_ASSERT_EQ(test, 0, probe_print_config(net, families[f], policy, 0));
		for (bit = 0; bit < 32; bit++) {
			if (!(BIT(bit) & FIB_MULTIPATH_HASH_FIELD_ALL_MASK))
				continue;
			KUNIT_ASSERT_EQ(test, 0,
					probe_print_config(net, families[f], 3, BIT(bit)));
		}
		KUNIT_ASSERT_EQ(test, 0, probe_print_config(net, families[f], 3, 0x0037));
		KUNIT_ASSERT_EQ(test, 0, probe_print_config(net, families[f], 3, 0x0fff));
		if (FIB_MULTIPATH_HASH_FIELD_ALL_MASK == 0x0fff)
			continue;
		KUNIT_ASSERT_EQ(test, 0,
				probe_print_config(net, families[f], 3,
						   FIB_MULTIPATH_HASH_FIELD_ALL_MASK));
	}
}

static struct kunit_case mphash_probe_cases[] = {
	KUNIT_CASE(mphash_probe_print),
	{}
};

static struct kunit_suite mphash_probe_suite = {
	.name = "mphash_probe",
	.test_cases = mphash_probe_cases,
};

kunit_test_suite(mphash_probe_suite);

MODULE_LICENSE("GPL");
