// SPDX-License-Identifier: GPL-2.0
/*
 * mphash: which nexthop does this flow take?
 *
 * Answers an operator's question from the model in mphash.c: with this
 * seed, policy and fields mask, what multipath hash does Linux 6.12 (with
 * this branch) compute for a forwarded packet, and which of these weighted
 * nexthops does it pick.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mphash.h"

#define MAX_NEXTHOPS 64

static const char usage[] =
"usage: mphash --src ADDR --dst ADDR [options]\n"
"\n"
"Compute the Linux 6.12 multipath hash of a forwarded packet and the\n"
"nexthop it takes, like fib_multipath_hash() / rt6_multipath_hash() and\n"
"fib_select_multipath(). IPv4 or IPv6 follows from the addresses.\n"
"\n"
"  --policy N          fib_multipath_hash_policy, 0-3 (default 0)\n"
"  --fields MASK       fib_multipath_hash_fields for policy 3 (default 0x0007)\n"
"  --seed N            fib_multipath_hash_seed (default 0; a kernel with\n"
"                      seed 0 uses a random one: set it to predict paths)\n"
"  --src, --dst ADDR   outer addresses\n"
"  --flowlabel N       outer IPv6 flow label\n"
"  --proto tcp|udp|N   layer 4 protocol of the innermost header (default udp)\n"
"  --sport, --dport N  its ports (default 0)\n"
"  --encap KIND        none, gre, ipip (any IP in IP) or icmp-error\n"
"  --inner-src, --inner-dst ADDR\n"
"                      the encapsulated (or, for icmp-error, quoted) header\n"
"  --inner-flowlabel N its IPv6 flow label\n"
"  --weights W,W,...   nexthop weights (default 1,1)\n"
"  --big-endian        the router is a big-endian machine (s390x): some\n"
"                      flows hash differently there (default: little-endian)\n"
"  --json              print one JSON object instead of text\n"
"  --help              this text\n"
"\n"
"Example: mphash --policy 3 --fields 0x0037 --seed 42 --src 198.51.100.1 \\\n"
"           --dst 203.0.113.2 --proto tcp --sport 40000 --dport 443 --weights 1,1,2\n";

static void fail(const char *what, const char *arg)
{
	fprintf(stderr, "mphash: %s: %s\n%s", what, arg ? arg : "", "try 'mphash --help'\n");
	exit(2);
}

static unsigned long parse_number(const char *arg, unsigned long max, const char *what)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 0);

	if (!*arg || *end || v > max)
		fail(what, arg);
	return v;
}

static int family_of(const char *addr)
{
	return strchr(addr, ':') ? 6 : 4;
}

static void parse_ip(struct mph_ip *ip, const char *src, const char *dst, const char *what)
{
	if (!src || !dst)
		fail(what, "needs both a source and a destination");
	ip->family = family_of(src);
	if (family_of(dst) != ip->family)
		fail(what, "source and destination families differ");
	if (mph_parse_addr(src, ip->family, ip->saddr))
		fail("bad address", src);
	if (mph_parse_addr(dst, ip->family, ip->daddr))
		fail("bad address", dst);
}

static int parse_weights(const char *arg, unsigned int *weights)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_NEXTHOPS)
			fail("too many nexthops", arg);
		weights[n++] = parse_number(tok, 256, "bad weight (1-256)");
		if (!weights[n - 1])
			fail("bad weight (1-256)", tok);
	}
	free(copy);
	if (!n)
		fail("no weights", arg);
	return n;
}

static enum mph_encap parse_encap(const char *arg)
{
	if (!strcmp(arg, "none"))
		return MPH_PLAIN;
	if (!strcmp(arg, "gre"))
		return MPH_GRE;
	if (!strcmp(arg, "ipip"))
		return MPH_IPIP;
	if (!strcmp(arg, "icmp-error"))
		return MPH_ICMP_ERR;
	fail("unknown encapsulation", arg);
	return MPH_PLAIN;
}

static const char *const encap_names[] = { "none", "gre", "ipip", "icmp-error" };

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "policy", 1, 0, 'p' }, { "fields", 1, 0, 'f' },
		{ "seed", 1, 0, 's' }, { "src", 1, 0, 'S' }, { "dst", 1, 0, 'D' },
		{ "flowlabel", 1, 0, 'l' }, { "proto", 1, 0, 'P' },
		{ "sport", 1, 0, 'a' }, { "dport", 1, 0, 'b' },
		{ "encap", 1, 0, 'e' }, { "inner-src", 1, 0, 'i' },
		{ "inner-dst", 1, 0, 'j' }, { "inner-flowlabel", 1, 0, 'L' },
		{ "weights", 1, 0, 'w' }, { "big-endian", 0, 0, 'B' },
		{ "json", 0, 0, 'J' },
		{ "help", 0, 0, 'h' }, { 0 },
	};
	struct mph_config cfg = { .policy = 0, .fields = 0x0007, .seed = 0 };
	struct mph_packet pkt = { .proto = 17 };
	const char *src = NULL, *dst = NULL, *isrc = NULL, *idst = NULL;
	unsigned int weights[MAX_NEXTHOPS] = { 1, 1 };
	int n = 2, json = 0, c, i, nh;
	uint32_t label = 0, inner_label = 0, hash;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p': cfg.policy = parse_number(optarg, 3, "bad policy (0-3)"); break;
		case 'f': cfg.fields = parse_number(optarg, 0x1fff, "bad fields (1-0x1fff)"); break;
		case 's': cfg.seed = parse_number(optarg, 0xffffffffUL, "bad seed"); break;
		case 'S': src = optarg; break;
		case 'D': dst = optarg; break;
		case 'l': label = parse_number(optarg, 0xfffff, "bad flow label"); break;
		case 'P':
			pkt.proto = !strcmp(optarg, "tcp") ? 6 : !strcmp(optarg, "udp") ? 17 :
				    parse_number(optarg, 255, "bad protocol");
			break;
		case 'a': pkt.sport = parse_number(optarg, 65535, "bad port"); break;
		case 'b': pkt.dport = parse_number(optarg, 65535, "bad port"); break;
		case 'e': pkt.encap = parse_encap(optarg); break;
		case 'i': isrc = optarg; break;
		case 'j': idst = optarg; break;
		case 'L': inner_label = parse_number(optarg, 0xfffff, "bad flow label"); break;
		case 'w': n = parse_weights(optarg, weights); break;
		case 'B': cfg.big_endian = 1; break;
		case 'J': json = 1; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fail("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		fail("unexpected argument", argv[optind]);
	if (cfg.policy == 3 && !cfg.fields)
		fail("bad fields (1-0x0fff)", "0");
	parse_ip(&pkt.outer, src, dst, "--src/--dst");
	pkt.outer.flowlabel = label;
	if (pkt.encap != MPH_PLAIN) {
		parse_ip(&pkt.inner, isrc, idst, "--inner-src/--inner-dst");
		pkt.inner.flowlabel = inner_label;
		if (pkt.encap == MPH_ICMP_ERR && pkt.inner.family != pkt.outer.family)
			fail("an ICMP error quotes a packet of its own family", NULL);
	}

	hash = mph_hash(&cfg, &pkt);
	nh = mph_select(hash, weights, n);
	if (json) {
		printf("{\"family\": %d, \"policy\": %d, \"fields\": %u, \"seed\": %u, "
		       "\"encap\": \"%s\", \"hash\": %u, \"nexthop\": %d, \"weights\": [",
		       pkt.outer.family, cfg.policy, cfg.fields, cfg.seed,
		       encap_names[pkt.encap], hash, nh);
		for (i = 0; i < n; i++)
			printf("%s%u", i ? ", " : "", weights[i]);
		printf("], \"upper_bounds\": [");
		for (i = 0; i < n; i++)
			printf("%s%d", i ? ", " : "", mph_upper_bound(weights, n, i));
		printf("]}\n");
		return 0;
	}
	printf("IPv%d, policy %d", pkt.outer.family, cfg.policy);
	if (cfg.policy == 3)
		printf(", fields 0x%04x", cfg.fields);
	printf(", seed %u, encapsulation %s\n", cfg.seed, encap_names[pkt.encap]);
	printf("hash %u (0x%08x)\n", hash, hash);
	for (i = 0; i < n; i++)
		printf("  nexthop %d  weight %3u  upper bound %10d%s\n", i, weights[i],
		       mph_upper_bound(weights, n, i), i == nh ? "  <- taken" : "");
	return 0;
}
