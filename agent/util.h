/* util.h — the few libc pieces the agent reimplements because musl's
 * general versions cost kilobytes of a 192 KiB static binary: number
 * parsing (musl's strto* share a 1.6 KiB scanner), substring search (its
 * two-way strstr is 1.1 KiB) and sysconf (a 1 KiB table for three
 * values).  Each does only what the agent's callers need; the comments
 * say where it differs from the libc function. */
#ifndef PLA_UTIL_H
#define PLA_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* strtoull's subset: leading blanks, an optional sign ('-' negates, as
 * strtoull does: cast to int64_t for strtol), base 10, 16 (optional 0x) or
 * 0 (0x → 16, leading 0 → 8, else 10).  *end (if end) is the first byte
 * not used, s when there are no digits; overflow sets errno to ERANGE and
 * returns UINT64_MAX.  errno is left alone otherwise. */
uint64_t pla_strtou64(const char *s, char **end, int base);

/* strstr for the short needles and /proc texts the agent searches. */
char *pla_strfind(const char *hay, const char *needle);

/* sysconf(_SC_PAGESIZE), and sysconf(_SC_NPROCESSORS_ONLN) as musl
 * computes it (the CPUs of the agent's affinity mask). */
long pla_page_size(void);
int pla_ncpus(void);
/* How many CPU ids events are opened on: the last possible CPU + 1 (from
 * /sys/devices/system/cpu/possible, "0-3"), so that CPUs outside the
 * agent's affinity (taskset) or offline ones are not forgotten; else
 * pla_ncpus(). */
int pla_cpu_ids(void);

/* fopen + fgets for the /proc and sysfs texts the agent reads line by
 * line (musl's FILE reading, fopen/fgets/fclose and their helpers, is
 * ~1.3 KiB of the static agent).  The caller owns the state.  Lines come
 * as fgets gives them: with their '\n', a line longer than the buffer in
 * several pieces. */
struct pla_lines {
	int fd;
	unsigned at, have;
	char buf[1024];
};
/* 0, or -errno (errno set) */
int pla_lines_open(struct pla_lines *l, const char *path);
/* The next line into line[len] (len >= 2), NUL-terminated; NULL at the
 * end of the file or on a read error. */
char *pla_lines_next(struct pla_lines *l, char *line, size_t len);
void pla_lines_close(struct pla_lines *l);

/* fork() for the agent, which has one thread: _Fork (POSIX 2024; musl
 * 1.2.3, glibc 2.34) skips fork()'s atfork handlers and locks, which
 * nothing here holds, and whose pthread rwlocks cost ~1.2 KiB of the
 * static agent. */
#define pla_fork() _Fork()

/* A line to stderr, "perflens-agent: " before it: the agent's log (the
 * session's events; never a token). */
void pla_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
