// SPDX-License-Identifier: GPL-2.0
/*
 * An AMX host's XSAVE regset on any x86_64 host: an LD_PRELOAD library for
 * the User Mode Linux binary (tools/guest/um_fp_amx.sh). It intercepts
 * only PTRACE_GETREGSET and PTRACE_SETREGSET of NT_X86_XSTATE and makes
 * them behave as a 6.12 host kernel does on a CPU whose XSAVE area is
 * $UM_AMX_XSTATE_SIZE bytes (default 11008: Sapphire Rapids with AMX,
 * XCR0 0x602e7), for a process without AMX permission, which every UML
 * process is. What it imitates, in the 6.12 tree:
 *
 *   kernel/ptrace.c:905-910, ptrace_regset(): an iov_len that is not a
 *     multiple of 8 (the regset's unit) fails with EINVAL; a longer one is
 *     cut to the regset's size, fpu_user_cfg.max_size, and written back.
 *   arch/x86/kernel/fpu/regset.c:156-157, xstateregs_set(): a write of
 *     any other size than fpu_user_cfg.max_size fails with EFAULT, which
 *     after the cut above means a shorter one (stock 6.12 UML's "ptrace
 *     set fp regs failed, errno = 14" on such a host).
 *   kernel/ptrace.c:1236, ptrace_request(): the length taken is written
 *     back to the caller's iovec after a read or a write.
 *   arch/x86/kernel/fpu/xstate.c:410-411, validate_user_xstate_header():
 *     an xfeatures bit outside the process's user_xfeatures fails with
 *     EINVAL: tile data (bit 18) for a process without permission.
 *     Tile configuration (bit 17) is a default feature, taken.
 *   arch/x86/kernel/fpu/xstate.c:1139 and ptrace.c:1373: bytes 464..471
 *     of what GETREGSET returns hold XCR0; components not in use, and all
 *     of the tile data, read as zeros.
 *
 * The real host's own area (R bytes, this CPU's) is what moves: a read
 * gets the real area followed by zeros up to the AMX size, with the AMX
 * bits (17, 18) added to the XCR0 word; a write sends the first R bytes
 * on, bit 17 cleared (this CPU has no tile configuration to load). A write
 * whose bytes past R are not all zero means UML changed the part of the
 * area the host never gave it state for: said once on standard error,
 * "um-amx-shim: ...", which the stage looks for. Every other ptrace
 * request goes to glibc's ptrace() unchanged.
 *
 * With UM_AMX_FAIL_FIRST_READ=1 in its environment, the first read of
 * the whole area (iov_len the AMX size) fails with EIO, as a host that
 * cannot read the child's state: UML reads the state every new process
 * starts with so. UML's probes of the size read powers of two, so the
 * size must not be one for that read to be the one failed.
 *
 * UML calls ptrace() from one host thread; the buffers are static, not
 * on the stack, because the calls come from UML's kernel stacks.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <elf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#define SHIM_MAX_AREA		16384
#define SHIM_DEFAULT_AREA	11008
#define SHIM_XCR0_OFFSET	464
#define SHIM_XFEATURES_OFFSET	512
#define SHIM_AMX_TILECFG	(1ULL << 17)
#define SHIM_AMX_TILEDATA	(1ULL << 18)

typedef long (*ptrace_fn)(enum __ptrace_request, pid_t, void *, void *);

static ptrace_fn real_ptrace;
static size_t fake_size = SHIM_DEFAULT_AREA;
static size_t real_size;	/* this host's area; 0 until first read */
static unsigned char area[SHIM_MAX_AREA];
static int tail_reported;
static int fail_first_read;

__attribute__((constructor)) static void shim_init(void)
{
	const char *size = getenv("UM_AMX_XSTATE_SIZE");

	real_ptrace = (ptrace_fn)dlsym(RTLD_NEXT, "ptrace");
	fail_first_read = getenv("UM_AMX_FAIL_FIRST_READ") != NULL;
	if (size)
		fake_size = strtoul(size, NULL, 0);
	if (!real_ptrace || fake_size % 8 || fake_size > SHIM_MAX_AREA) {
		fprintf(stderr, "um-amx-shim: cannot start (ptrace %p, size %zu)\n",
			(void *)real_ptrace, fake_size);
		abort();
	}
}

static long fail(int err)
{
	errno = err;
	return -1;
}

/* The real area of @pid into area[]: its size, or -1 with errno set. */
static long read_real_area(pid_t pid)
{
	struct iovec iov = { .iov_base = area, .iov_len = sizeof(area) };

	if (real_ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov) < 0)
		return -1;
	if (!real_size) {
		fprintf(stderr, "um-amx-shim: NT_X86_XSTATE as an AMX host's, %zu bytes (this host's: %zu)\n",
			fake_size, iov.iov_len);
		if (iov.iov_len > fake_size) {
			fprintf(stderr, "um-amx-shim: this host's area is larger\n");
			abort();
		}
	}
	real_size = iov.iov_len;
	return (long)real_size;
}

static long get_xstate(pid_t pid, struct iovec *iov)
{
	uint64_t xcr0;
	size_t len;

	if (iov->iov_len % 8)
		return fail(EINVAL);
	if (fail_first_read && iov->iov_len == fake_size) {
		fail_first_read = 0;
		fprintf(stderr, "um-amx-shim: failing this read of the area (EIO)\n");
		return fail(EIO);
	}
	if (read_real_area(pid) < 0)
		return -1;
	memset(area + real_size, 0, fake_size - real_size);
	memcpy(&xcr0, area + SHIM_XCR0_OFFSET, sizeof(xcr0));
	xcr0 |= SHIM_AMX_TILECFG | SHIM_AMX_TILEDATA;
	memcpy(area + SHIM_XCR0_OFFSET, &xcr0, sizeof(xcr0));

	len = iov->iov_len < fake_size ? iov->iov_len : fake_size;
	memcpy(iov->iov_base, area, len);
	iov->iov_len = len;
	return 0;
}

static void check_tail(void)
{
	size_t i, nonzero = 0;

	for (i = real_size; i < fake_size; i++)
		nonzero += area[i] != 0;
	if (nonzero && !tail_reported) {
		tail_reported = 1;
		fprintf(stderr, "um-amx-shim: SETREGSET with %zu nonzero bytes past this host's %zu-byte area\n",
			nonzero, real_size);
	}
}

static long set_xstate(pid_t pid, struct iovec *iov)
{
	struct iovec real = { .iov_base = area };
	uint64_t xfeatures;
	size_t len;

	if (iov->iov_len % 8)
		return fail(EINVAL);
	len = iov->iov_len < fake_size ? iov->iov_len : fake_size;
	if (len != fake_size)
		return fail(EFAULT);
	if (!real_size && read_real_area(pid) < 0)
		return -1;

	memcpy(area, iov->iov_base, len);
	memcpy(&xfeatures, area + SHIM_XFEATURES_OFFSET, sizeof(xfeatures));
	if (xfeatures & SHIM_AMX_TILEDATA)
		return fail(EINVAL);
	xfeatures &= ~SHIM_AMX_TILECFG;
	memcpy(area + SHIM_XFEATURES_OFFSET, &xfeatures, sizeof(xfeatures));
	check_tail();

	real.iov_len = real_size;
	if (real_ptrace(PTRACE_SETREGSET, pid, (void *)NT_X86_XSTATE, &real) < 0)
		return -1;
	/* As ptrace_request() writes back the length it took (:1236). */
	iov->iov_len = len;
	return 0;
}

long ptrace(enum __ptrace_request request, ...)
{
	va_list ap;
	pid_t pid;
	void *addr, *data;

	va_start(ap, request);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);

	if ((uintptr_t)addr == NT_X86_XSTATE && request == PTRACE_GETREGSET)
		return get_xstate(pid, data);
	if ((uintptr_t)addr == NT_X86_XSTATE && request == PTRACE_SETREGSET)
		return set_xstate(pid, data);
	return real_ptrace(request, pid, addr, data);
}
