/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mphash: a model of the Linux 6.12 multipath hash, written from its code.
 *
 * Computes, bit for bit, what fib_multipath_hash() (IPv4) and
 * rt6_multipath_hash() (IPv6) return for a forwarded packet (the skb
 * path, as patched by this branch), for every hash policy and fields
 * mask, and which of N weighted nexthops fib_select_multipath() picks.
 * Plain C99 and libc only, so it can check the kernel from outside.
 */
#ifndef MPHASH_H
#define MPHASH_H

#include <stddef.h>
#include <stdint.h>

enum mph_encap {
	MPH_PLAIN,	/* no encapsulation */
	MPH_GRE,	/* GRE version 0 without options */
	MPH_IPIP,	/* IP directly in IP: IPIP, SIT, 4in6, 6in6 */
	MPH_ICMP_ERR,	/* ICMP(v6) destination unreachable quoting "inner" */
};

/* One IP header. Addresses in network byte order; IPv4 uses bytes 0-3. */
struct mph_ip {
	int family;		/* 4 or 6 */
	uint8_t saddr[16];
	uint8_t daddr[16];
	uint32_t flowlabel;	/* IPv6 only, 20 bits */
};

struct mph_packet {
	struct mph_ip outer;
	enum mph_encap encap;
	struct mph_ip inner;	/* when encap != MPH_PLAIN */
	uint8_t proto;		/* innermost layer 4: 6 (TCP) or 17 (UDP) */
	uint16_t sport;
	uint16_t dport;
};

struct mph_config {
	int policy;		/* fib_multipath_hash_policy, 0-3 */
	uint32_t fields;	/* fib_multipath_hash_fields, for policy 3 */
	uint32_t seed;		/* fib_multipath_hash_seed (the mp_seed) */
	int big_endian;		/* the kernel runs on a big-endian machine
				 * (s390x): its host-order key fields
				 * are stored and compared big-endian
				 */
};

/* SipHash-2-4 as lib/siphash.c computes siphash(data, len, key). */
uint64_t mph_siphash(const void *data, size_t len, const uint64_t key[2]);
/* jhash_2words() of include/linux/jhash.h. */
uint32_t mph_jhash_2words(uint32_t a, uint32_t b, uint32_t initval);

/* The kernel's multipath hash of the packet (already shifted right by 1). */
uint32_t mph_hash(const struct mph_config *cfg, const struct mph_packet *pkt);

/* The upper bound fib_rebalance() gives nexthop @i of @n with @weights. */
int32_t mph_upper_bound(const unsigned int *weights, int n, int i);
/* The nexthop fib_select_multipath() picks for @hash. */
int mph_select(uint32_t hash, const unsigned int *weights, int n);

/* Parse "192.0.2.1" or "2001:db8::1" into @ip; 0 on success. */
int mph_parse_addr(const char *text, int family, uint8_t out[16]);

#endif
