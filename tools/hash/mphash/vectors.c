// SPDX-License-Identifier: GPL-2.0
/*
 * mphash-vectors: print the golden multipath hash vectors, computed by the
 * model in mphash.c, as the C table of the kernel's golden KUnit suite
 * (between the GOLDEN VECTORS markers of
 * net/ipv4/tests/multipath_hash_golden_kunit.c). The output depends on nothing
 * but this file and the model: the same table on every machine.
 *
 * Every vector carries two results: the hash and nexthop of a little-endian
 * kernel and those of a big-endian one (the keys' host-order fields and the
 * order of a flow's two directions differ between them, see mphash.c).
 *
 * The set covers IPv4 and IPv6; no encapsulation, GRE and IP-in-IP with
 * inner IPv4 and IPv6, and ICMP errors; policies 0, 1 and 2; and policy 3
 * with every single field bit and the usual masks. Seeds, addresses,
 * ports, flow labels and nexthop weights vary from row to row, drawn from
 * a fixed pseudo-random sequence.
 */
#include <stdio.h>
#include <string.h>

#include "mphash.h"

static const uint32_t seeds[] = { 0x5eed1234, 1, 0xdeadbeef, 0x80000000 };
static const uint32_t masks[] = {
	0x0001, 0x0002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080,
	0x0100, 0x0200, 0x0400, 0x0800, 0x0037, 0x003f, 0x0fc0, 0x0fff,
};
/* Field 0x1000: an ICMP error hashed by the packet it quotes. */
static const uint32_t quoted_masks[] = { 0x1001, 0x1030, 0x1037, 0x1fff };
static const unsigned int weight_sets[][4] = {
	{ 1, 1 }, { 1, 2 }, { 1, 1, 1 }, { 3, 1, 2, 5 },
};
static const int weight_counts[] = { 2, 2, 3, 4 };

struct shape {
	const char *name;
	enum mph_encap encap;
	int inner_family;	/* 0: none, else 4 or 6 (ICMP: same as outer) */
};

static const struct shape shapes[] = {
	{ "plain", MPH_PLAIN, 0 },
	{ "gre4", MPH_GRE, 4 },
	{ "gre6", MPH_GRE, 6 },
	{ "ipip4", MPH_IPIP, 4 },
	{ "ipip6", MPH_IPIP, 6 },
	{ "icmperr", MPH_ICMP_ERR, -1 },
};

static uint32_t rng_state = 0x2545f491;

static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* A source and a destination; IPv6 ones sometimes share a /64 so that
 * either may sort first.
 */
static void pick_addrs(int family, int inner, char *src, char *dst)
{
	if (family == 4) {
		sprintf(src, "%s.%u", inner ? "192.0.2" : "198.51.100", rng() % 254 + 1);
		sprintf(dst, "%s.%u", inner ? "10.0.0" : "203.0.113", rng() % 254 + 1);
	} else if (rng() % 2) {
		sprintf(src, "2001:db8:%x::%x", 10 + inner, rng() % 0xfffe + 1);
		sprintf(dst, "2001:db8:%x::%x", 10 + inner, rng() % 0xfffe + 1);
	} else {
		sprintf(src, "2001:db8:%x::%x", 1 + 2 * inner, rng() % 0xfffe + 1);
		sprintf(dst, "2001:db8:%x::%x", 2 + 2 * inner, rng() % 0xfffe + 1);
	}
}

static void fill_ip(struct mph_ip *ip, int family, int inner, char *src, char *dst)
{
	pick_addrs(family, inner, src, dst);
	ip->family = family;
	mph_parse_addr(src, family, ip->saddr);
	mph_parse_addr(dst, family, ip->daddr);
	/* Zero now and then: an inner IPv6 header without label keeps the
	 * outer one in the dissected keys.
	 */
	ip->flowlabel = family == 6 && rng() % 4 ? rng() & 0xfffff : 0;
}

static void print_ip(const struct mph_ip *ip, const char *src, const char *dst)
{
	if (!ip->family)
		printf("NOIP");
	else if (ip->family == 4)
		printf("IP4(\"%s\", \"%s\")", src, dst);
	else
		printf("IP6(\"%s\", \"%s\", 0x%05x)", src, dst, ip->flowlabel);
}

static const char *const encap_names[] = {
	"MP_PLAIN", "MP_GRE", "MP_IPIP", "MP_ICMP_ERR",
};

static void vector(int n, int family, const struct shape *shape, int policy,
		   uint32_t fields)
{
	char osrc[64], odst[64], isrc[64] = "", idst[64] = "";
	struct mph_config cfg = { .policy = policy, .fields = fields,
				  .seed = seeds[n % 4] };
	struct mph_packet pkt = { .encap = shape->encap };
	int w = rng() % 4, inner_family = shape->inner_family;
	uint32_t hash_le, hash_be;

	fill_ip(&pkt.outer, family, 0, osrc, odst);
	if (inner_family < 0)
		inner_family = family;
	if (inner_family)
		fill_ip(&pkt.inner, inner_family, 1, isrc, idst);
	pkt.proto = rng() % 2 ? 6 : 17;
	pkt.sport = rng() % 65536;
	pkt.dport = rng() % 65536;
	hash_le = mph_hash(&cfg, &pkt);
	cfg.big_endian = 1;
	hash_be = mph_hash(&cfg, &pkt);

	printf("\tGV(\"ipv%d %s p%d", family, shape->name, policy);
	if (policy == 3)
		printf(" 0x%04x", fields);
	printf(" vec%d\", 0x%08x, %d, 0x%04x,\n\t   ", n, cfg.seed, policy, fields);
	print_ip(&pkt.outer, osrc, odst);
	printf(", %s,\n\t   ", encap_names[pkt.encap]);
	print_ip(&pkt.inner, isrc, idst);
	printf(",\n\t   %s, %u, %u, W(%u, %u, %u, %u), %d,\n",
	       pkt.proto == 6 ? "IPPROTO_TCP" : "IPPROTO_UDP", pkt.sport, pkt.dport,
	       weight_sets[w][0], weight_sets[w][1], weight_sets[w][2],
	       weight_sets[w][3], weight_counts[w]);
	printf("\t   LE(0x%08x, %d), BE(0x%08x, %d)),\n",
	       hash_le, mph_select(hash_le, weight_sets[w], weight_counts[w]),
	       hash_be, mph_select(hash_be, weight_sets[w], weight_counts[w]));
}

int main(void)
{
	int family, s, policy, m, n = 0;

	printf("static const struct mp_golden mp_golden_vectors[] = {\n");
	for (family = 4; family <= 6; family += 2) {
		for (s = 0; s < (int)(sizeof(shapes) / sizeof(shapes[0])); s++) {
			for (policy = 0; policy <= 2; policy++)
				vector(n++, family, &shapes[s], policy, 0x0007);
			for (m = 0; m < (int)(sizeof(masks) / sizeof(masks[0])); m++)
				vector(n++, family, &shapes[s], 3, masks[m]);
		}
	}
	/* ICMP errors under field 0x1000, after the rest so as not to move it. */
	for (family = 4; family <= 6; family += 2) {
		for (s = 0; s < (int)(sizeof(shapes) / sizeof(shapes[0])); s++) {
			if (shapes[s].encap != MPH_ICMP_ERR)
				continue;
			for (m = 0; m < (int)(sizeof(quoted_masks) / sizeof(quoted_masks[0])); m++)
				vector(n++, family, &shapes[s], 3, quoted_masks[m]);
		}
	}
	printf("};\n\n");
	return 0;
}
