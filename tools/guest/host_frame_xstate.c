// SPDX-License-Identifier: GPL-2.0
/*
 * Print the size of the XSAVE state this host's kernel puts in a signal
 * frame of a process that never asked for AMX permission (the
 * xstate_size of the frame's software bytes, fpstate->user_size on the
 * host), or 0 when its frames carry no XSAVE state (no FP_XSTATE_MAGIC1).
 * tools/guest/um_fp_amx.sh expects User Mode Linux's frames to carry the
 * same: it is the host kernel's own figure, not UML's computation.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static unsigned int frame_xstate_size;

static void handler(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	struct _fpx_sw_bytes sw;

	(void)sig;
	(void)info;
	memcpy(&sw, (char *)uc->uc_mcontext.fpregs + 464, sizeof(sw));
	if (sw.magic1 == FP_XSTATE_MAGIC1)
		frame_xstate_size = sw.xstate_size;
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGUSR1, &sa, NULL) || raise(SIGUSR1))
		return 1;
	printf("%u\n", frame_xstate_size);
	return 0;
}
