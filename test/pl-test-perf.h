/* pl-test-perf.h — whether the kernel itself refuses perf events here.
 *
 * A test that needs perf_event_open asks the kernel directly (a cpu-clock
 * sampling event on this process), never the agent under test: the case is
 * skipped (test/skip-reasons.txt) only when the kernel refuses, and an
 * agent that fails where the kernel allows perf is a failure.
 * Header-only, for pl-test.h programs. */
#ifndef PL_TEST_PERF_H
#define PL_TEST_PERF_H

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pl-test.h"

/* Skips the case, with the reason, when the kernel refuses a cpu-clock
 * sampling event with call chains; returns when it allows one. */
static inline void pl_need_kernel_perf(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return;
	}
	int e = errno;
	if ((e == EACCES || e == EPERM) && geteuid() != 0)
		PL_SKIP("[not-root] the kernel refuses perf events to this user: perf_event_open: %s "
			"(see /proc/sys/kernel/perf_event_paranoid)",
			strerror(e));
	PL_SKIP("[no-kernel-feature:perf_event_open] the kernel refuses a cpu-clock sampling "
		"event: %s",
		strerror(e));
}

#endif
