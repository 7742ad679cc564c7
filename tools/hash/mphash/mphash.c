// SPDX-License-Identifier: GPL-2.0
/*
 * mphash: a model of the Linux 6.12 multipath hash, written from its code.
 *
 * The kernel hashes a zeroed struct flow_keys in which the policy copied a
 * few dissected fields. The model lays those bytes out the way gcc does on
 * the 64-bit machines the branch is tested on, little-endian (x86_64,
 * arm64) or big-endian (s390x), so its hash is the kernel's bit for bit.
 * The two differ in the fields kept in host byte order (the dissected flow
 * label) and in the order __flow_hash_consistentify() gives a flow's two
 * directions, which compares network-order addresses and ports as host
 * integers; siphash() reads its input little-endian on every machine.
 */
#include <arpa/inet.h>
#include <string.h>

#include "mphash.h"

/* struct flow_keys: 8 bytes of control, then the hashed part. */
#define FK_SIZE		80	/* sizeof(struct flow_keys), 8-aligned */
#define FK_HASH_START	8	/* offsetof(struct flow_keys, basic) */
#define FK_ADDR_TYPE	2	/* control.addr_type (u16) */
#define FK_IP_PROTO	10	/* basic.ip_proto */
#define FK_FLOW_LABEL	12	/* tags.flow_label (u32) */
#define FK_PORT_SRC	36	/* ports.src (__be16) */
#define FK_PORT_DST	38	/* ports.dst (__be16) */
#define FK_ADDRS	44	/* addrs: v4 src, dst or v6 src, dst */
#define FK_ADDRS_SIZE	32	/* sizeof(struct flow_dissector_key_addrs) */

/* enum flow_dissector_key_id values of FLOW_DISSECTOR_KEY_IPV{4,6}_ADDRS */
#define KEY_IPV4_ADDRS	2
#define KEY_IPV6_ADDRS	3

/* include/uapi/linux/in.h */
#define PROTO_ICMP	1
#define PROTO_IPIP	4
#define PROTO_IPV6	41
#define PROTO_GRE	47
#define PROTO_ICMPV6	58

/* fib_multipath_hash_fields bits */
#define F_SRC_IP		0x0001
#define F_DST_IP		0x0002
#define F_IP_PROTO		0x0004
#define F_FLOWLABEL		0x0008
#define F_SRC_PORT		0x0010
#define F_DST_PORT		0x0020
#define F_INNER_SRC_IP		0x0040
#define F_INNER_DST_IP		0x0080
#define F_INNER_IP_PROTO	0x0100
#define F_INNER_FLOWLABEL	0x0200
#define F_INNER_SRC_PORT	0x0400
#define F_INNER_DST_PORT	0x0800
#define F_OUTER_MASK		0x003f
#define F_INNER_MASK		0x0fc0
#define F_ICMP_ERR_QUOTED	0x1000

static uint64_t rol64(uint64_t w, int s) { return w << s | w >> (64 - s); }
static uint32_t rol32(uint32_t w, int s) { return w << s | w >> (32 - s); }

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = rol64(v1, 13); v1 ^= v0; v0 = rol64(v0, 32);	\
	v2 += v3; v3 = rol64(v3, 16); v3 ^= v2;				\
	v0 += v3; v3 = rol64(v3, 21); v3 ^= v0;				\
	v2 += v1; v1 = rol64(v1, 17); v1 ^= v2; v2 = rol64(v2, 32);	\
} while (0)

uint64_t mph_siphash(const void *data, size_t len, const uint64_t key[2])
{
	const uint8_t *p = data;
	uint64_t v0 = 0x736f6d6570736575ULL ^ key[0];
	uint64_t v1 = 0x646f72616e646f6dULL ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ULL ^ key[0];
	uint64_t v3 = 0x7465646279746573ULL ^ key[1];
	uint64_t b = (uint64_t)len << 56, m;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		m = load_le64(p + i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	for (; i < len; i++)
		b |= (uint64_t)p[i] << (8 * (i % 8));
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return (v0 ^ v1) ^ (v2 ^ v3);
}

uint32_t mph_jhash_2words(uint32_t a, uint32_t b, uint32_t initval)
{
	uint32_t c = 0;

	initval += 0xdeadbeef + (2 << 2);
	a += initval;
	b += initval;
	c += initval;
	c ^= b; c -= rol32(b, 14);
	a ^= c; a -= rol32(c, 11);
	b ^= a; b -= rol32(a, 25);
	c ^= b; c -= rol32(b, 16);
	a ^= c; a -= rol32(c, 4);
	b ^= a; b -= rol32(a, 14);
	c ^= b; c -= rol32(b, 24);
	return c;
}

/* What skb_flow_dissect_flow_keys() leaves in the fields the hash uses. */
struct dissected {
	int family;		/* of the addresses: 4 or 6 */
	const uint8_t *saddr, *daddr;
	uint8_t ip_proto;
	uint32_t flowlabel;	/* host order, as the dissector stores it */
	uint16_t sport, dport;	/* host order values of the __be16 ports */
	int encapsulation;	/* FLOW_DIS_ENCAPSULATION */
};

static uint8_t outer_next_proto(const struct mph_packet *pkt)
{
	switch (pkt->encap) {
	case MPH_GRE:
		return PROTO_GRE;
	case MPH_IPIP:
		return pkt->inner.family == 4 ? PROTO_IPIP : PROTO_IPV6;
	case MPH_ICMP_ERR:
		return pkt->outer.family == 4 ? PROTO_ICMP : PROTO_ICMPV6;
	default:
		return pkt->proto;
	}
}

/*
 * An IPv6 header stores its label when it is not 0, or, with
 * @zero_label_too (FLOW_DISSECTOR_F_INNER_FLOW_LABEL), always: without
 * it an inner label of 0 leaves the outer one in place. An IPv4 header
 * leaves the label in place.
 */
static void dissect_ip(struct dissected *d, const struct mph_ip *ip,
		       int zero_label_too)
{
	d->family = ip->family;
	d->saddr = ip->saddr;
	d->daddr = ip->daddr;
	if (ip->family == 6 && (ip->flowlabel || zero_label_too))
		d->flowlabel = ip->flowlabel;
}

/*
 * The flow dissector on the packet: with @stop_at_encap
 * (FLOW_DISSECTOR_F_STOP_AT_ENCAP) it stops at GRE and IP-in-IP, otherwise
 * it dissects the inner header, whose label of 0 is stored only with
 * @zero_label_too (FLOW_DISSECTOR_F_INNER_FLOW_LABEL, which only the custom
 * policy's inner hash passes). It never looks into an ICMP error.
 */
static struct dissected dissect(const struct mph_packet *pkt, int stop_at_encap,
				int zero_label_too)
{
	struct dissected d = { 0 };

	dissect_ip(&d, &pkt->outer, 0);
	d.ip_proto = outer_next_proto(pkt);
	if (pkt->encap == MPH_ICMP_ERR)
		return d;
	if (pkt->encap == MPH_GRE || pkt->encap == MPH_IPIP) {
		d.encapsulation = 1;
		if (stop_at_encap)
			return d;
		dissect_ip(&d, &pkt->inner, zero_label_too);
		d.ip_proto = pkt->proto;
	}
	d.sport = pkt->sport;
	d.dport = pkt->dport;
	return d;
}

/*
 * Policy 3 with field 0x1000 hashes an ICMP error quoting a whole header of
 * its own family (the model's quotes are whole, ports included) by the
 * quoted packet, dissected up to an encapsulation: what the dissector gives
 * for that packet as if it were the outer one.
 */
static int dissect_quoted(const struct mph_packet *pkt, struct dissected *d)
{
	if (pkt->encap != MPH_ICMP_ERR || pkt->inner.family != pkt->outer.family)
		return 0;
	memset(d, 0, sizeof(*d));
	dissect_ip(d, &pkt->inner, 0);
	d->ip_proto = pkt->proto;
	d->sport = pkt->sport;
	d->dport = pkt->dport;
	return 1;
}

/* A zeroed struct flow_keys, filled field by field like hash_keys. */
struct keys {
	uint8_t b[FK_SIZE];
	int big_endian;		/* how the machine stores host integers */
};


/* Zeroed keys of @family's addresses (control.addr_type set) for the
 * machine @cfg describes.
 */
static void keys_init(struct keys *k, const struct mph_config *cfg, int family)
{
	uint16_t type = family == 4 ? KEY_IPV4_ADDRS :
			family == 6 ? KEY_IPV6_ADDRS : 0;

	memset(k, 0, sizeof(*k));
	k->big_endian = cfg->big_endian;
	/* Before the hashed part: its byte order does not matter. */
	memcpy(&k->b[FK_ADDR_TYPE], &type, 2);
}

static int keys_family(const struct keys *k)
{
	uint16_t type;

	memcpy(&type, &k->b[FK_ADDR_TYPE], 2);
	return type == KEY_IPV4_ADDRS ? 4 : type == KEY_IPV6_ADDRS ? 6 : 0;
}

static void keys_set_src(struct keys *k, int family, const uint8_t *addr)
{
	memcpy(&k->b[FK_ADDRS], addr, family == 4 ? 4 : 16);
}

static void keys_set_dst(struct keys *k, int family, const uint8_t *addr)
{
	memcpy(&k->b[FK_ADDRS + (family == 4 ? 4 : 16)], addr,
	       family == 4 ? 4 : 16);
}

/* A flow label as the dissector stores it: a host-order u32. */
static void keys_set_label_host(struct keys *k, uint32_t label)
{
	int i;

	for (i = 0; i < 4; i++)
		k->b[FK_FLOW_LABEL + i] =
			label >> (8 * (k->big_endian ? 3 - i : i));
}

/* A flow label as ip6_flowlabel() returns it: the header's __be32. */
static void keys_set_label_net(struct keys *k, uint32_t label)
{
	int i;

	for (i = 0; i < 4; i++)
		k->b[FK_FLOW_LABEL + i] = label >> (8 * (3 - i));
}

static void keys_set_port(struct keys *k, int offset, uint16_t port)
{
	k->b[offset] = port >> 8;
	k->b[offset + 1] = port;
}

/* (__force u32) or (__force u16) of @n network-order bytes: the value the
 * machine reads from them.
 */
static uint32_t load_host(const struct keys *k, const uint8_t *p, int n)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[k->big_endian ? i : n - 1 - i];
	return v;
}

static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	uint8_t t;

	while (n--) {
		t = a[n];
		a[n] = b[n];
		b[n] = t;
	}
}

/* __flow_hash_consistentify(): one order for both directions of a flow. */
static void keys_consistentify(struct keys *k)
{
	uint8_t *src = &k->b[FK_ADDRS];
	uint8_t *psrc = &k->b[FK_PORT_SRC], *pdst = &k->b[FK_PORT_DST];
	int family = keys_family(k);

	if (family == 4) {
		uint8_t *dst = src + 4;

		if (load_host(k, dst, 4) < load_host(k, src, 4))
			swap_bytes(src, dst, 4);
	} else if (family == 6) {
		uint8_t *dst = src + 16;

		if (memcmp(dst, src, 16) < 0)
			swap_bytes(src, dst, 16);
	} else {
		return;
	}
	if (load_host(k, pdst, 2) < load_host(k, psrc, 2))
		swap_bytes(psrc, pdst, 2);
}

/* flow_keys_hash_length(): the address union counts for its used part. */
static size_t keys_hash_length(const struct keys *k)
{
	size_t diff = FK_HASH_START + FK_ADDRS_SIZE;

	if (keys_family(k) == 4)
		diff -= 8;
	else if (keys_family(k) == 6)
		diff -= 32;
	return FK_SIZE - diff;
}

/* fib_multipath_hash_from_keys(): flow_hash_from_keys_seed() with the
 * key fib_multipath_hash_construct_key() makes of the seed.
 */
static uint32_t keys_hash(struct keys *k, uint32_t seed)
{
	uint64_t key[2];
	uint32_t hash;

	key[0] = (uint64_t)seed << 32 | seed;
	key[1] = key[0];
	keys_consistentify(k);
	hash = (uint32_t)mph_siphash(&k->b[FK_HASH_START], keys_hash_length(k), key);
	return hash ? hash : 1;
}

static void keys_from_dissected(struct keys *k, const struct dissected *d,
				uint32_t fields, int shift, int family)
{
	fields >>= shift;
	if (fields & F_SRC_IP)
		keys_set_src(k, family, d->saddr);
	if (fields & F_DST_IP)
		keys_set_dst(k, family, d->daddr);
	if (fields & F_IP_PROTO)
		k->b[FK_IP_PROTO] = d->ip_proto;
	/* Only IPv6 has a flow label to copy. */
	if ((fields & F_FLOWLABEL) && family == 6)
		keys_set_label_host(k, d->flowlabel);
	if (fields & F_SRC_PORT)
		keys_set_port(k, FK_PORT_SRC, d->sport);
	if (fields & F_DST_PORT)
		keys_set_port(k, FK_PORT_DST, d->dport);
}

/* fib_multipath_custom_hash_outer() / rt6_multipath_custom_hash_outer() */
static uint32_t custom_outer(const struct mph_config *cfg,
			     const struct mph_packet *pkt, int *has_inner)
{
	struct keys k;
	struct dissected d;
	int family = pkt->outer.family;

	if (!(cfg->fields & F_OUTER_MASK))
		return 0;
	if (!(cfg->fields & F_ICMP_ERR_QUOTED) || !dissect_quoted(pkt, &d))
		d = dissect(pkt, 1, 0);
	keys_init(&k, cfg, family);
	keys_from_dissected(&k, &d, cfg->fields, 0, family);
	*has_inner = d.encapsulation;	/* never for an ICMP error */
	return keys_hash(&k, cfg->seed);
}

/* fib_multipath_custom_hash_inner() / rt6_multipath_custom_hash_inner() */
static uint32_t custom_inner(const struct mph_config *cfg,
			     const struct mph_packet *pkt, int has_inner)
{
	struct keys k;
	struct dissected d;

	if (!has_inner || !(cfg->fields & F_INNER_MASK))
		return 0;
	d = dissect(pkt, 0, 1);
	if (!d.encapsulation)
		return 0;
	keys_init(&k, cfg, d.family);
	keys_from_dissected(&k, &d, cfg->fields, 6, d.family);
	return keys_hash(&k, cfg->seed);
}

static uint32_t custom_hash(const struct mph_config *cfg,
			    const struct mph_packet *pkt)
{
	int has_inner = 1;
	uint32_t outer = custom_outer(cfg, pkt, &has_inner);

	return mph_jhash_2words(outer, custom_inner(cfg, pkt, has_inner), 0);
}

/* Policy 0: ip_multipath_l3_keys() / ip6_multipath_l3_keys(). */
static uint32_t l3_hash(const struct mph_config *cfg, const struct mph_packet *pkt)
{
	const struct mph_ip *ip = &pkt->outer;
	struct keys k;
	uint8_t proto = outer_next_proto(pkt);

	/* ICMP errors hash like the packet they quote. */
	if (pkt->encap == MPH_ICMP_ERR) {
		ip = &pkt->inner;
		proto = pkt->proto;
	}
	keys_init(&k, cfg, ip->family);
	keys_set_src(&k, ip->family, ip->saddr);
	keys_set_dst(&k, ip->family, ip->daddr);
	if (ip->family == 6) {
		keys_set_label_net(&k, ip->flowlabel);
		k.b[FK_IP_PROTO] = proto;
	}
	return keys_hash(&k, cfg->seed);
}

/* Policy 1: the outer 5-tuple. */
static uint32_t l4_hash(const struct mph_config *cfg, const struct mph_packet *pkt)
{
	struct dissected d = dissect(pkt, 1, 0);
	struct keys k;

	keys_init(&k, cfg, pkt->outer.family);
	keys_from_dissected(&k, &d, F_SRC_IP | F_DST_IP | F_IP_PROTO |
			    F_SRC_PORT | F_DST_PORT, 0, pkt->outer.family);
	return keys_hash(&k, cfg->seed);
}

/* Policy 2: layer 3, of the inner header when there is one. */
static uint32_t l3_inner_hash(const struct mph_config *cfg,
			      const struct mph_packet *pkt)
{
	struct dissected d = dissect(pkt, 0, 0);
	struct keys k;
	uint32_t fields = F_SRC_IP | F_DST_IP;

	if (d.family == 6)
		fields |= F_IP_PROTO | F_FLOWLABEL;
	keys_init(&k, cfg, d.family);
	keys_from_dissected(&k, &d, fields, 0, d.family);
	return keys_hash(&k, cfg->seed);
}

uint32_t mph_hash(const struct mph_config *cfg, const struct mph_packet *pkt)
{
	uint32_t hash = 0;

	switch (cfg->policy) {
	case 0:
		hash = l3_hash(cfg, pkt);
		break;
	case 1:
		hash = l4_hash(cfg, pkt);
		break;
	case 2:
		hash = l3_inner_hash(cfg, pkt);
		break;
	case 3:
		hash = custom_hash(cfg, pkt);
		break;
	}
	return hash >> 1;
}

int32_t mph_upper_bound(const unsigned int *weights, int n, int i)
{
	uint64_t total = 0, w = 0;
	int j;

	for (j = 0; j < n; j++)
		total += weights[j];
	if (!total)
		return -1;
	for (j = 0; j <= i; j++)
		w += weights[j];
	/* DIV_ROUND_CLOSEST_ULL((u64)w << 31, total) - 1 */
	return (int32_t)(((w << 31) + total / 2) / total - 1);
}

int mph_select(uint32_t hash, const unsigned int *weights, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if ((int32_t)hash <= mph_upper_bound(weights, n, i))
			return i;
	return 0;	/* fib_select_multipath() keeps the first nexthop */
}

int mph_parse_addr(const char *text, int family, uint8_t out[16])
{
	memset(out, 0, 16);
	return inet_pton(family == 4 ? AF_INET : AF_INET6, text, out) == 1 ? 0 : -1;
}
