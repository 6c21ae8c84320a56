/* printf.c — stand-ins for musl's snprintf, vsnprintf, fprintf, vfprintf
 * and printf in the static agent, on pla_vformat (fmt.h says which
 * conversions it knows and why it exists).
 *
 * Linked before libc.a by ci/agents.sh only, like zstd-fast-only.c: these
 * definitions keep musl's vfprintf.o (printf_core, and on aarch64 the
 * binary128 soft-float it needs for long double) out of the link.  musl's
 * own users of the family are served by them too: inet_ntop's snprintf
 * ("%d.%d.%d.%d", "%x:...") is within what pla_vformat knows; sprintf,
 * vprintf, dprintf and friends are unused and, if ever needed, musl's
 * versions call vsnprintf or vfprintf and land here.
 *
 * The FILE functions format into a stack buffer and fwrite() it to the
 * stream, so they share stdout's and stderr's FILE (and their order) with
 * the agent's fputc, puts and the fputs/fwrite that the compiler makes of
 * constant fprintfs.  Output longer than the buffer goes out in several
 * fwrites; the agent is single-threaded, so nothing else can write to the
 * stream between them (musl's vfprintf holds the FILE lock instead).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

/* ===== C99 return value: the length, or -1 (EOVERFLOW) past INT_MAX ===== */

static int printf_result(size_t n)
{
	if (n > INT_MAX) {
		errno = EOVERFLOW;
		return -1;
	}
	return (int)n;
}

/* ===== into a bounded buffer ===== */

struct mem_sink {
	char *at;
	size_t room; /* bytes left before the terminating NUL */
};

static void to_mem(void *ctx, const char *s, size_t n)
{
	struct mem_sink *m = ctx;
	if (n > m->room)
		n = m->room;
	if (n) {
		memcpy(m->at, s, n);
		m->at += n;
		m->room -= n;
	}
}

int vsnprintf(char *restrict buf, size_t size, const char *restrict fmt, va_list ap)
{
	struct mem_sink m = { buf, size ? size - 1 : 0 };
	size_t n = pla_vformat(to_mem, &m, fmt, ap);
	if (size)
		*m.at = 0;
	return printf_result(n);
}

int snprintf(char *restrict buf, size_t size, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* ===== into a FILE ===== */

struct file_sink {
	FILE *f;
	size_t used;
	int failed;
	/* one message in one piece: stderr is unbuffered, so this is one
	 * write(2) per fprintf, and the agent's lines stay whole */
	char buf[512];
};

static void file_flush(struct file_sink *o, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, o->f) != n)
		o->failed = 1;
}

static void to_file(void *ctx, const char *s, size_t n)
{
	struct file_sink *o = ctx;
	if (n > sizeof(o->buf) - o->used) {
		file_flush(o, o->buf, o->used);
		o->used = 0;
		if (n >= sizeof(o->buf)) { /* a long piece (--help) goes out as is */
			file_flush(o, s, n);
			return;
		}
	}
	memcpy(o->buf + o->used, s, n);
	o->used += n;
}

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	struct file_sink o;
	o.f = f;
	o.used = 0;
	o.failed = 0;
	size_t n = pla_vformat(to_file, &o, fmt, ap);
	file_flush(&o, o.buf, o.used);
	return o.failed ? -1 : printf_result(n);
}

int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(f, fmt, ap);
	va_end(ap);
	return n;
}

int printf(const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return n;
}
