/* fmt.h — the static agent's printf formatter (fmt.c) and the stand-ins
 * for musl's printf family built on it (printf.c).
 *
 * musl's vfprintf supports every conversion C has, long double included,
 * which on aarch64 drags in the soft-float binary128 routines: with them
 * it is ~11 KB of a 192 KiB agent that formats strings and integers only.
 * pla_vformat knows exactly what the agent's and common/'s format strings
 * use (test/unit/fmt-test.c scans them and fails on anything else):
 *
 *   %%  %c  %s  %d %u %x  with length l, ll or z on d/u/x
 *   flags '-' (left-justify) and '0' (zero-pad d/u/x), width N or *,
 *   precision .N or .* on %s only (reads at most that many bytes, so
 *   "%.*s" may point at text without a NUL)
 *
 * A NULL %s prints "(null)" (cut by the precision, as musl does).  Any
 * other conversion (%f, %p, %hd, %+d, %.3d, ...) prints "%?" followed by
 * the rest of the format verbatim, unexpanded: visibly wrong on a board
 * rather than garbage, and no later argument is read with a wrong type.
 *
 * Host builds use glibc's printf; only ci/agents.sh links fmt.c and
 * printf.c, and the unit test links fmt.c under its own name.
 */
#ifndef PLA_FMT_H
#define PLA_FMT_H

#include <stdarg.h>
#include <stddef.h>

/* Receives the output in order, piece by piece (n > 0). */
typedef void pla_fmt_sink(void *ctx, const char *s, size_t n);

/* Formats fmt with ap into sink; returns the number of bytes produced.
 * Never fails; the sink decides what to keep. */
size_t pla_vformat(pla_fmt_sink *sink, void *ctx, const char *fmt, va_list ap);

#endif
