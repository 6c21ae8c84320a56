/* perflens-marker.h — application markers for PerfLens, header only.
 *
 * Copy this file into your program (C99 or later, Linux); nothing to link.
 *
 *   pl_mark("frame %d", n);      a marker: one line, shown at that time on
 *                                the calling thread's lane, with its stack
 *   pl_mark_begin("decode");     an interval, closed by the innermost
 *   ...                          pl_mark_end of the same name on the same
 *   pl_mark_end("decode");       thread; report --markers gives durations
 *
 * Each call writes one line to tracefs's trace_marker, so ftrace readers
 * (trace-cmd, Perfetto) see it as usual; the kernel never hands those
 * lines to perf_event_open, so the line goes out as writev(fd, iov, 3):
 * iov[0] the text, iov[1] and iov[2] empty, their base addresses a
 * signature (the kernel reads nothing of an empty iovec).  `perflens-agent
 * --markers` records that system call (filtered on vlen == 3) with the
 * writing thread's registers and stack, and the viewer reads the text from
 * the stack copy: so the buffer must be on the caller's stack, as here.
 * Begin and end lines follow the systrace convention ("B|PID|NAME",
 * "E|PID|NAME"), so other tools read them as well.
 *
 * No allocation, no library, no lock: the file is opened once (O_WRONLY |
 * O_CLOEXEC; /sys/kernel/tracing/trace_marker, else the debugfs path) by
 * whichever thread marks first — a race only opens it twice, and one
 * descriptor is closed — and each line is formatted with vsnprintf into a
 * PL_MARK_MAX-byte buffer on the caller's stack (longer lines are cut).
 * When tracefs cannot be opened (not mounted, not root and not granted)
 * every call returns at once with nothing written; it costs one failed
 * open per call until then, at most every PL_MARK_RETRY calls.
 *
 * Async-signal-safety: vsnprintf is not guaranteed safe; do not mark from
 * signal handlers.  Define PL_MARK_DISABLE to compile every call away. */
#ifndef PERFLENS_MARKER_H
#define PERFLENS_MARKER_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef PL_MARK_MAX
#define PL_MARK_MAX 256 /* bytes a line may have, newline included */
#endif
#ifndef PL_MARK_RETRY
#define PL_MARK_RETRY 1024 /* calls between attempts to open a missing trace_marker */
#endif

#if defined(__GNUC__)
#define PL_MARK_FMT(a, b) __attribute__((format(printf, a, b)))
#define PL_MARK_UNUSED __attribute__((unused))
#else
#define PL_MARK_FMT(a, b)
#define PL_MARK_UNUSED
#endif

#ifdef PL_MARK_DISABLE
static inline PL_MARK_FMT(1, 2) void pl_mark(const char *fmt, ...) { (void)fmt; }
static inline void pl_mark_begin(const char *name) { (void)name; }
static inline void pl_mark_end(const char *name) { (void)name; }
#else

/* The trace_marker descriptor: -1 before the first open, -2 - n after n
 * failed calls.  __atomic builtins: GCC and clang, any architecture. */
static int pl_mark_fd_ PL_MARK_UNUSED = -1;

static inline int pl_mark_fd(void)
{
	int fd = __atomic_load_n(&pl_mark_fd_, __ATOMIC_ACQUIRE);
	if (fd >= 0)
		return fd;
	if (fd < -1 && (-2 - fd) % PL_MARK_RETRY != 0) {
		__atomic_store_n(&pl_mark_fd_, fd - 1, __ATOMIC_RELAXED);
		return -1;
	}
	int nfd = open("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	if (nfd < 0)
		nfd = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	if (nfd < 0) {
		__atomic_store_n(&pl_mark_fd_, fd < -1 ? fd - 1 : -3, __ATOMIC_RELAXED);
		return -1;
	}
	int expected = fd;
	if (!__atomic_compare_exchange_n(&pl_mark_fd_, &expected, nfd, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		close(nfd); /* another thread opened it first */
		return expected >= 0 ? expected : -1;
	}
	return nfd;
}

/* Formats into buf (PL_MARK_MAX bytes) and writes it in one write(2). */
static inline void pl_mark_v(const char *prefix, const char *fmt, va_list ap)
{
	int fd = pl_mark_fd();
	if (fd < 0)
		return;
	char buf[PL_MARK_MAX];
	int n = prefix ? snprintf(buf, sizeof(buf), "%s", prefix) : 0;
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
		if (m < 0)
			return;
		n += m;
	}
	if ((size_t)n >= sizeof(buf))
		n = (int)sizeof(buf) - 1; /* cut: vsnprintf kept the NUL */
	/* the signature PerfLens looks for (common/msg.h, PL_MARKER_SIG*) */
	struct iovec iov[3] = {
		{ buf, (size_t)n },
		{ (void *)(uintptr_t)0x504c4d4bu, 0 },
		{ (void *)(uintptr_t)0x4d41524bu, 0 },
	};
	ssize_t w = writev(fd, iov, 3);
	(void)w; /* a marker that cannot be written is dropped, never retried */
}

static inline PL_MARK_FMT(1, 2) void pl_mark(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pl_mark_v(NULL, fmt, ap);
	va_end(ap);
}

static inline PL_MARK_FMT(2, 3) void pl_mark_be_(char kind, const char *fmt, ...)
{
	char prefix[24];
	snprintf(prefix, sizeof(prefix), "%c|%ld|", kind, (long)getpid());
	va_list ap;
	va_start(ap, fmt);
	pl_mark_v(prefix, fmt, ap);
	va_end(ap);
}

static inline void pl_mark_begin(const char *name)
{
	pl_mark_be_('B', "%s", name);
}

static inline void pl_mark_end(const char *name)
{
	pl_mark_be_('E', "%s", name);
}
#endif

#endif
