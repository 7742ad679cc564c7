// SPDX-License-Identifier: GPL-2.0
/*
 * Do a guest's processes keep their FP and vector registers? Runs inside a
 * User Mode Linux guest of the branch kernel, natively on the host's CPU
 * (tools/guest/um_fp.sh builds it on the host and boots the guest); on the host
 * itself it passes as well, which checks the check.
 *
 * Each case loads a pattern into every register of one class (the SSE
 * registers, the AVX ones, the AVX-512 ones with the opmask registers),
 * makes a system call while they hold it, stores them and compares:
 *
 *   switch  two threads of one process, so one host process, each with
 *           its own pattern, hand a token to each other through pipes
 *           2000 times: each blocks in read() while the other runs with
 *           its own values, and UML must give each its own back;
 *   fork    the child and the parent each find the pattern after fork:
 *           the child's registers are a copy of the parent's task;
 *   signal  a handler that loads other values into the same registers
 *           runs on the way back from kill(): the interrupted code gets
 *           its own back from the signal frame.
 *
 * A class the CPU lacks is skipped, never counted as passed. Two more
 * cases, altstack and altstack-autodisarm, deliver a signal on an
 * alternate stack smaller than a frame with the host's FP state, the
 * second set with SS_AUTODISARM: the frame must not be written below that
 * stack (the host's answer is to kill the process with SIGSEGV). Ends with
 * "um-fp: N passed, N failed, N skipped".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SWITCH_ROUNDS 2000

/* Room for the largest class: 32 ZMM registers and 8 opmask registers. */
struct regs {
	uint8_t vec[32 * 64];
	uint16_t mask[8];
};

/* One register class: its name, the CPU feature it needs, and a function
 * that loads @in, makes system call @nr with @a1, @a2, @a3, stores into
 * @out and returns the call's result.
 */
struct fp_class {
	const char *name;
	const char *feature;
	const char *reg_prefix;
	size_t nr_regs, reg_bytes;
	int has_mask;
	long (*around)(const struct regs *in, struct regs *out,
		       long nr, long a1, long a2, long a3);
};

#define CLOBBER16(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", \
	p "7", p "8", p "9", p "10", p "11", p "12", p "13", p "14", p "15"
#define CLOBBER16_HI(p) p "16", p "17", p "18", p "19", p "20", p "21", \
	p "22", p "23", p "24", p "25", p "26", p "27", p "28", p "29", \
	p "30", p "31"
#define EACH16(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) \
	M(11) M(12) M(13) M(14) M(15)
#define EACH16_HI(M) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) \
	M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#define EACH8(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)

#define SSE_LD(n) "movdqu " #n "*16(%[in]), %%xmm" #n "\n\t"
#define SSE_ST(n) "movdqu %%xmm" #n ", " #n "*16(%[out])\n\t"
#define AVX_LD(n) "vmovdqu " #n "*32(%[in]), %%ymm" #n "\n\t"
#define AVX_ST(n) "vmovdqu %%ymm" #n ", " #n "*32(%[out])\n\t"
#define ZMM_LD(n) "vmovdqu64 " #n "*64(%[in]), %%zmm" #n "\n\t"
#define ZMM_ST(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%[out])\n\t"
#define K_LD(n) "kmovw " #n "*2+2048(%[in]), %%k" #n "\n\t"
#define K_ST(n) "kmovw %%k" #n ", " #n "*2+2048(%[out])\n\t"

/* The system call sits between the loads and the stores, in one asm
 * statement, so that the compiler cannot use the registers in between.
 */
static long around_sse(const struct regs *in, struct regs *out,
		       long nr, long a1, long a2, long a3)
{
	long ret = nr;

	asm volatile(EACH16(SSE_LD) "syscall\n\t" EACH16(SSE_ST)
		     : "+a"(ret)
		     : [in] "r"(in), [out] "r"(out), "D"(a1), "S"(a2), "d"(a3)
		     : "rcx", "r11", "memory", CLOBBER16("xmm"));
	return ret;
}

__attribute__((target("avx")))
static long around_avx(const struct regs *in, struct regs *out,
		       long nr, long a1, long a2, long a3)
{
	long ret = nr;

	asm volatile(EACH16(AVX_LD) "syscall\n\t" EACH16(AVX_ST) "vzeroupper\n\t"
		     : "+a"(ret)
		     : [in] "r"(in), [out] "r"(out), "D"(a1), "S"(a2), "d"(a3)
		     : "rcx", "r11", "memory", CLOBBER16("xmm"));
	return ret;
}

__attribute__((target("avx512f")))
static long around_avx512(const struct regs *in, struct regs *out,
			  long nr, long a1, long a2, long a3)
{
	long ret = nr;

	asm volatile(EACH16(ZMM_LD) EACH16_HI(ZMM_LD) EACH8(K_LD)
		     "syscall\n\t"
		     EACH16(ZMM_ST) EACH16_HI(ZMM_ST) EACH8(K_ST) "vzeroupper\n\t"
		     : "+a"(ret)
		     : [in] "r"(in), [out] "r"(out), "D"(a1), "S"(a2), "d"(a3)
		     : "rcx", "r11", "memory", CLOBBER16("xmm"),
		       CLOBBER16_HI("xmm"), "k0", "k1", "k2", "k3", "k4", "k5",
		       "k6", "k7");
	return ret;
}

static const struct fp_class classes[] = {
	{ "sse", "sse2", "xmm", 16, 16, 0, around_sse },
	{ "avx", "avx", "ymm", 16, 32, 0, around_avx },
	{ "avx512", "avx512f", "zmm", 32, 64, 1, around_avx512 },
};

static int cpu_has(const char *feature)
{
	__builtin_cpu_init();
	if (!strcmp(feature, "sse2"))
		return __builtin_cpu_supports("sse2");
	if (!strcmp(feature, "avx"))
		return __builtin_cpu_supports("avx");
	return __builtin_cpu_supports("avx512f");
}

static void fill(struct regs *r, unsigned int seed)
{
	size_t i;

	for (i = 0; i < sizeof(r->vec); i++)
		r->vec[i] = (uint8_t)(seed * 131 + i * 7 + 1);
	for (i = 0; i < 8; i++)
		r->mask[i] = (uint16_t)(seed * 4099 + i * 257 + 1);
}

/* The first register of @c whose value in @got is not the one in @want,
 * as "ymm3" or "k5"; NULL when all match.
 */
static const char *first_difference(const struct fp_class *c,
				    const struct regs *want,
				    const struct regs *got, char *name, size_t len)
{
	size_t i, w = c->reg_bytes;

	for (i = 0; i < c->nr_regs; i++) {
		if (memcmp(want->vec + i * w, got->vec + i * w, w)) {
			snprintf(name, len, "%s%zu", c->reg_prefix, i);
			return name;
		}
	}
	for (i = 0; c->has_mask && i < 8; i++) {
		if (want->mask[i] != got->mask[i]) {
			snprintf(name, len, "k%zu", i);
			return name;
		}
	}
	return NULL;
}

struct switcher {
	const struct fp_class *c;
	unsigned int seed;
	int token_in, token_out;	/* read and write ends of two pipes */
	char bad[64];
	int round;
};

static void *switch_rounds(void *arg)
{
	struct switcher *t = arg;
	struct regs in, out;
	char name[32], token = 0;
	const char *bad;
	long n;

	fill(&in, t->seed);
	for (t->round = 0; t->round < SWITCH_ROUNDS; t->round++) {
		memset(&out, 0, sizeof(out));
		/* Blocks until the other thread, with its own values, passes the token */
		n = t->c->around(&in, &out, SYS_read, t->token_in, (long)&token, 1);
		if (n != 1) {
			snprintf(t->bad, sizeof(t->bad), "read gave %ld", n);
			break;
		}
		bad = first_difference(t->c, &in, &out, name, sizeof(name));
		if (bad) {
			snprintf(t->bad, sizeof(t->bad), "%s", bad);
			break;
		}
		if (write(t->token_out, &token, 1) != 1) {
			snprintf(t->bad, sizeof(t->bad), "write failed");
			break;
		}
	}
	/* Let the other thread end its rounds too */
	close(t->token_out);
	return NULL;
}

static int case_switch(const struct fp_class *c, char *why, size_t len)
{
	struct switcher t[2] = { { .c = c, .seed = 1 }, { .c = c, .seed = 2 } };
	int to0[2], to1[2], i, ret = 0;
	pthread_t id[2];

	if (pipe(to0) || pipe(to1)) {
		snprintf(why, len, "pipe failed");
		return -1;
	}
	t[0].token_in = to0[0];
	t[0].token_out = to1[1];
	t[1].token_in = to1[0];
	t[1].token_out = to0[1];
	/* Thread 0 starts with the token */
	if (write(to0[1], "", 1) != 1) {
		snprintf(why, len, "write failed");
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (pthread_create(&id[i], NULL, switch_rounds, &t[i])) {
			snprintf(why, len, "pthread_create failed");
			return -1;
		}
	}
	for (i = 0; i < 2; i++)
		pthread_join(id[i], NULL);
	for (i = 0; i < 2 && !ret; i++) {
		if (t[i].bad[0]) {
			snprintf(why, len, "thread %d: %s in round %d of %d", i,
				 t[i].bad, t[i].round + 1, SWITCH_ROUNDS);
			ret = -1;
		}
	}
	close(to0[0]);
	close(to1[0]);
	return ret;
}

static int case_fork(const struct fp_class *c, char *why, size_t len)
{
	struct regs in, out;
	char name[32];
	const char *bad;
	long pid;
	int status;

	fill(&in, 3);
	memset(&out, 0, sizeof(out));
	pid = c->around(&in, &out, SYS_fork, 0, 0, 0);
	if (pid < 0) {
		snprintf(why, len, "fork failed: %ld", pid);
		return -1;
	}
	bad = first_difference(c, &in, &out, name, sizeof(name));
	if (pid == 0)
		_exit(bad ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "waitpid failed");
		return -1;
	}
	if (bad) {
		snprintf(why, len, "parent: %s changed across fork", bad);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(why, len, "child: a register differed from the parent's");
		return -1;
	}
	return 0;
}

static const struct fp_class *signal_class;

static void clobber(int sig)
{
	struct regs junk, ignored;

	(void)sig;
	fill(&junk, 99);
	signal_class->around(&junk, &ignored, SYS_getppid, 0, 0, 0);
}

static int case_signal(const struct fp_class *c, char *why, size_t len)
{
	struct sigaction sa = { .sa_handler = clobber };
	struct regs in, out;
	char name[32];
	const char *bad;

	signal_class = c;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL)) {
		snprintf(why, len, "sigaction failed");
		return -1;
	}
	fill(&in, 4);
	memset(&out, 0, sizeof(out));
	c->around(&in, &out, SYS_kill, getpid(), SIGUSR1, 0);
	bad = first_difference(c, &in, &out, name, sizeof(name));
	if (bad) {
		snprintf(why, len, "%s changed by the signal handler", bad);
		return -1;
	}
	return 0;
}

static const struct {
	const char *name;
	int (*run)(const struct fp_class *c, char *why, size_t len);
} cases[] = {
	{ "switch", case_switch },
	{ "fork", case_fork },
	{ "signal", case_signal },
};

static void empty_handler(int sig)
{
	(void)sig;
}

/* The kernel's smallest alternate signal stack (sigaltstack's MINSIGSTKSZ) */
#define SMALLEST_ALTSTACK 2048
#define GUARD_BYTES 4096

#ifndef SS_AUTODISARM
#define SS_AUTODISARM (1U << 31)
#endif

/* @ss_flags: 0, or SS_AUTODISARM: the stack is disarmed while in use */
static int case_small_altstack(int ss_flags, char *why, size_t len)
{
	unsigned char *m;
	size_t i, hit = 0;
	int status;
	pid_t pid;

	/* Shared, so that the parent sees what the child's frame wrote */
	m = mmap(NULL, GUARD_BYTES + SMALLEST_ALTSTACK, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		snprintf(why, len, "mmap failed");
		return -1;
	}
	memset(m, 0xa5, GUARD_BYTES);
	pid = fork();
	if (pid == 0) {
		stack_t ss = { .ss_sp = m + GUARD_BYTES, .ss_size = SMALLEST_ALTSTACK,
			       .ss_flags = ss_flags };
		struct sigaction sa = { .sa_handler = empty_handler, .sa_flags = SA_ONSTACK };

		sigemptyset(&sa.sa_mask);
		if (sigaltstack(&ss, NULL) || sigaction(SIGUSR2, &sa, NULL))
			_exit(2);
		kill(getpid(), SIGUSR2);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		snprintf(why, len, "fork or waitpid failed");
		return -1;
	}
	for (i = 0; i < GUARD_BYTES; i++)
		hit += m[i] != 0xa5;
	munmap(m, GUARD_BYTES + SMALLEST_ALTSTACK);
	if (hit) {
		snprintf(why, len, "the frame overwrote %zu bytes below the stack", hit);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;	/* the frame fitted */
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV)
		return 0;	/* it did not, and the process was killed */
	snprintf(why, len, "the child ended with status %#x", status);
	return -1;
}

static const struct {
	const char *name;
	int ss_flags;
} altstacks[] = {
	{ "altstack", 0 },
	{ "altstack-autodisarm", SS_AUTODISARM },
};

int main(void)
{
	int passed = 0, failed = 0, skipped = 0;
	size_t i, j;
	char why[128];

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		const struct fp_class *c = &classes[i];

		for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
			if (!cpu_has(c->feature)) {
				printf("SKIP %s/%s: the CPU has no %s\n", c->name,
				       cases[j].name, c->feature);
				skipped++;
				continue;
			}
			why[0] = '\0';
			if (cases[j].run(c, why, sizeof(why))) {
				printf("FAIL %s/%s: %s\n", c->name, cases[j].name, why);
				failed++;
			} else {
				printf("ok %s/%s\n", c->name, cases[j].name);
				passed++;
			}
		}
	}
	for (i = 0; i < sizeof(altstacks) / sizeof(altstacks[0]); i++) {
		why[0] = '\0';
		if (case_small_altstack(altstacks[i].ss_flags, why, sizeof(why))) {
			printf("FAIL %s: %s\n", altstacks[i].name, why);
			failed++;
		} else {
			printf("ok %s\n", altstacks[i].name);
			passed++;
		}
	}
	printf("um-fp: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
