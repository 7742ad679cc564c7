// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the multipath hash model, without a kernel: published
 * SipHash answers, the kernel's upper bound arithmetic, and the properties
 * every policy documents. Prints one line per check that fails and a
 * closing "N passed, N failed".
 */
#include <stdio.h>
#include <string.h>

#include "mphash.h"

static int passed, failed;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		printf("FAIL %s:%d: ", __func__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/* The SipHash-2-4 paper's test key 00..0f; answers from its vectors.h. */
static void test_siphash_reference(void)
{
	static const uint64_t key[2] = { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL };
	uint8_t msg[15];
	int i;

	for (i = 0; i < 15; i++)
		msg[i] = i;
	CHECK(mph_siphash(msg, 0, key) == 0x726fdb47dd0e0e31ULL, "empty message");
	CHECK(mph_siphash(msg, 8, key) == 0x93f5f5799a932462ULL, "8 bytes");
	CHECK(mph_siphash(msg, 15, key) == 0xa129ca6149be45e5ULL, "15 bytes");
}

static void test_jhash_2words(void)
{
	CHECK(mph_jhash_2words(1, 2, 0) != mph_jhash_2words(2, 1, 0), "order matters");
	CHECK(mph_jhash_2words(1, 2, 0) == mph_jhash_2words(1, 2, 0), "deterministic");
	CHECK(mph_jhash_2words(1, 2, 0) != mph_jhash_2words(1, 2, 1), "initval matters");
}

/* fib_rebalance(): DIV_ROUND_CLOSEST_ULL((u64)w << 31, total) - 1 */
static void test_upper_bounds(void)
{
	static const unsigned int even[] = { 1, 1 }, uneven[] = { 1, 2 };

	CHECK(mph_upper_bound(even, 2, 0) == (1 << 30) - 1, "1,1 first");
	CHECK(mph_upper_bound(even, 2, 1) == 0x7fffffff, "1,1 last");
	CHECK(mph_upper_bound(uneven, 2, 0) == 715827882, "1,2 first: round(2^31 / 3) - 1");
	CHECK(mph_select((1 << 30) - 1, even, 2) == 0, "hash on the bound stays");
	CHECK(mph_select(1 << 30, even, 2) == 1, "hash past the bound moves on");
	CHECK(mph_select(0x7fffffff, uneven, 2) == 1, "largest hash takes the last");
}

static struct mph_packet packet(int family, enum mph_encap encap)
{
	struct mph_packet p = { .encap = encap, .proto = 17, .sport = 4000, .dport = 53 };

	p.outer.family = family;
	mph_parse_addr(family == 4 ? "198.51.100.1" : "2001:db8:1::1", family, p.outer.saddr);
	mph_parse_addr(family == 4 ? "203.0.113.2" : "2001:db8:2::2", family, p.outer.daddr);
	p.outer.flowlabel = family == 6 ? 0x12345 : 0;
	if (encap != MPH_PLAIN) {
		p.inner.family = family;
		mph_parse_addr(family == 4 ? "192.0.2.3" : "2001:db8:3::3", family, p.inner.saddr);
		mph_parse_addr(family == 4 ? "10.0.0.4" : "2001:db8:4::4", family, p.inner.daddr);
		p.inner.flowlabel = family == 6 ? 0xabcde : 0;
	}
	return p;
}

static void reverse(struct mph_packet *p)
{
	uint8_t t[16];
	uint16_t port = p->sport;

	memcpy(t, p->outer.saddr, 16);
	memcpy(p->outer.saddr, p->outer.daddr, 16);
	memcpy(p->outer.daddr, t, 16);
	p->sport = p->dport;
	p->dport = port;
}

/* Both directions of a flow hash alike (__flow_hash_consistentify()),
 * on either kind of machine.
 */
static void test_symmetric(void)
{
	int family, policy, big_endian;

	for (big_endian = 0; big_endian <= 1; big_endian++) {
		for (family = 4; family <= 6; family += 2) {
			for (policy = 0; policy <= 3; policy++) {
				struct mph_config cfg = { policy, 0x0037, 7, big_endian };
				struct mph_packet p = packet(family, MPH_PLAIN), r = p;

				reverse(&r);
				CHECK(mph_hash(&cfg, &p) == mph_hash(&cfg, &r),
				      "IPv%d policy %d big-endian %d", family,
				      policy, big_endian);
			}
		}
	}
}

static int endian_differs(struct mph_config cfg, const struct mph_packet *p)
{
	uint32_t le;

	cfg.big_endian = 0;
	le = mph_hash(&cfg, p);
	cfg.big_endian = 1;
	return mph_hash(&cfg, p) != le;
}

/*
 * A little- and a big-endian kernel hash alike unless a host-order field
 * is hashed (the dissected flow label) or the two directions of the flow
 * sort differently (network-order values compared as host integers).
 */
static void test_byte_order(void)
{
	struct mph_config dst_only = { 3, 0x0002, 1, 0 }, label = { 3, 0x0008, 1, 0 };
	struct mph_config addrs = { 3, 0x0003, 1, 0 };
	struct mph_packet v6 = packet(6, MPH_PLAIN), v4 = packet(4, MPH_PLAIN);

	CHECK(!endian_differs(dst_only, &v6), "IPv6 destination only: same hash");
	CHECK(endian_differs(label, &v6), "IPv6 flow label: hashes differ");
	/* 198.51.100.1 < 203.0.113.2 read either way: the same order */
	CHECK(!endian_differs(addrs, &v4), "IPv4 addresses in one order: same hash");
	/* 10.0.0.2 vs 9.0.0.3: big-endian sorts 9.0.0.3 first, little-endian
	 * reads 0x0200000a < 0x03000009 and sorts 10.0.0.2 first
	 */
	mph_parse_addr("10.0.0.2", 4, v4.outer.saddr);
	mph_parse_addr("9.0.0.3", 4, v4.outer.daddr);
	CHECK(endian_differs(addrs, &v4), "IPv4 addresses sorted apart: hashes differ");
}

static int moves(const struct mph_config *cfg, struct mph_packet p,
		 void (*change)(struct mph_packet *))
{
	uint32_t before = mph_hash(cfg, &p);

	change(&p);
	return mph_hash(cfg, &p) != before;
}

static void change_sport(struct mph_packet *p) { p->sport++; }
static void change_src(struct mph_packet *p) { p->outer.saddr[3]++; }
static void change_inner_src(struct mph_packet *p) { p->inner.saddr[3]++; }
static void change_label(struct mph_packet *p) { p->outer.flowlabel++; }

static void test_policies(void)
{
	struct mph_config l3 = { 0, 0, 1, 0 }, l4 = { 1, 0, 1, 0 }, l3_inner = { 2, 0, 1, 0 };
	struct mph_config ports = { 3, 0x0030, 1, 0 }, inner = { 3, 0x0fc0, 1, 0 };
	struct mph_packet p4 = packet(4, MPH_PLAIN), p6 = packet(6, MPH_PLAIN);
	struct mph_packet gre = packet(4, MPH_GRE), err = packet(6, MPH_ICMP_ERR);

	CHECK(!moves(&l3, p4, change_sport), "policy 0 ignores ports");
	CHECK(moves(&l3, p6, change_label), "policy 0 uses the IPv6 flow label");
	CHECK(moves(&l4, p4, change_sport), "policy 1 uses ports");
	CHECK(!moves(&l4, p6, change_label), "policy 1 ignores the flow label");
	CHECK(!moves(&l4, gre, change_inner_src), "policy 1 stops at the tunnel");
	CHECK(!moves(&l3_inner, gre, change_src), "policy 2 ignores outer addresses");
	CHECK(moves(&l3_inner, gre, change_inner_src), "policy 2 uses inner addresses");
	CHECK(!moves(&l3, err, change_src), "policy 0 ignores an ICMP error's own source");
	CHECK(moves(&l3, err, change_inner_src), "policy 0 follows the quoted packet");
	CHECK(!moves(&ports, p4, change_src), "ports mask ignores addresses");
	CHECK(moves(&ports, p4, change_sport), "ports mask uses ports");
	CHECK(mph_hash(&inner, &p4) == mph_jhash_2words(0, 0, 0) >> 1,
	      "inner fields on a packet without encapsulation hash nothing");
	CHECK(moves(&inner, gre, change_inner_src), "inner mask uses inner addresses");
}

static void change_inner_label(struct mph_packet *p) { p->inner.flowlabel++; }

/*
 * Policy 3 with outer fields and 0x1000 hashes an ICMP error like the flow
 * whose packet it quotes, which travelled the other way; policy 1, and
 * policy 3 without 0x1000, hash it by its own headers.
 */
static void test_icmp_error_follows_flow(void)
{
	static const struct {
		struct mph_config cfg;
		int follows;
	} cases[] = {
		{ { 1, 0, 7, 0 }, 0 },
		{ { 3, 0x0037, 7, 0 }, 0 },
		{ { 3, 0x0fff, 7, 0 }, 0 },
		{ { 3, 0x1037, 7, 0 }, 1 },
		{ { 3, 0x1fff, 7, 0 }, 1 },
	};
	int family, i;

	for (family = 4; family <= 6; family += 2) {
		struct mph_packet err = packet(family, MPH_ICMP_ERR), flow = err;

		flow.encap = MPH_PLAIN;
		flow.outer = err.inner;
		reverse(&flow);
		for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
			const struct mph_config *cfg = &cases[i].cfg;

			CHECK((mph_hash(cfg, &err) == mph_hash(cfg, &flow)) ==
			      cases[i].follows,
			      "IPv%d policy %d fields 0x%04x: error %s the flow",
			      family, cfg->policy, cfg->fields,
			      cases[i].follows ? "follows" : "does not follow");
			CHECK(moves(cfg, err, change_src) != cases[i].follows,
			      "IPv%d policy %d fields 0x%04x: error's own source %s",
			      family, cfg->policy, cfg->fields,
			      cases[i].follows ? "ignored" : "hashed");
		}
	}
}

/*
 * An inner IPv6 header's label of 0 is the inner label for field 0x0200:
 * the outer label must not stand in for it. Policy 2 hashes the label the
 * dissector leaves, the outer one when the inner is 0, which spreads
 * inner flows whose encapsulating host derives the outer label from them.
 */
static void test_zero_inner_label(void)
{
	struct mph_config field = { 3, 0x0200, 1, 0 }, l3_inner = { 2, 0, 1, 0 };
	struct mph_packet p = packet(6, MPH_GRE);

	p.inner.flowlabel = 0;
	CHECK(!moves(&field, p, change_label), "field 0x0200 ignores the outer label");
	CHECK(moves(&field, p, change_inner_label), "field 0x0200 uses a zero inner label");
	CHECK(moves(&l3_inner, p, change_label), "policy 2 hashes the outer label for a zero inner one");
	CHECK(moves(&l3_inner, p, change_inner_label), "policy 2 hashes a non-zero inner label");
}

int main(void)
{
	test_siphash_reference();
	test_jhash_2words();
	test_upper_bounds();
	test_symmetric();
	test_byte_order();
	test_policies();
	test_zero_inner_label();
	test_icmp_error_follows_flow();
	printf("mphash model: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
