/* procfs.h — what the agent learns from /proc and /sys, and from ELF
 * notes of mapped files.  All readers are bounded; none allocate on the
 * heap (callers own buffers).  Errors are -errno.
 */
#ifndef PLA_PROCFS_H
#define PLA_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "msg.h"

/* Calls fn for each process in /proc; stops early if fn returns non-zero.
 * Strings in *p borrow the callee's stack buffers. */
int pla_proc_each(int (*fn)(const struct pl_msg_proc *p, void *user), void *user);
/* Fills tids (up to max); returns the count or -errno. */
int pla_proc_threads(pid_t pid, pid_t *tids, int max);
/* comm of pid/tid into buf (NUL-terminated).  Returns 0 or -errno. */
int pla_proc_comm(pid_t pid, pid_t tid, char *buf, size_t len);

struct pla_map {
	uint64_t start, end, pgoff;
	uint32_t prot, flags; /* PROT_*, MAP_PRIVATE/MAP_SHARED */
	uint32_t maj, min;
	uint64_t ino;
	const char *path; /* "" for anonymous */
};
int pla_proc_maps_each(pid_t pid, int (*fn)(const struct pla_map *m, void *user), void *user);

/* Build-id from the ELF notes of a file (PT_NOTE, else SHT_NOTE), any
 * class and byte order.  Returns the length (≤ 20) or -errno (-ENOENT: no
 * build-id note). */
int pla_elf_build_id(const char *path, uint8_t id[PL_MAX_BUILD_ID]);

/* The vDSO image of this process (identical in every process on the
 * board, at a different address).  Returns its size, 0 when none. */
size_t pla_vdso_image(const uint8_t **image);

struct pla_health_state {
	uint64_t prev_busy, prev_total; /* /proc/stat jiffies at the last read */
};
void pla_health_read(struct pla_health_state *st, struct pl_msg_health *h);
/* The agent's own CPU time (ns) and RSS (kB). */
void pla_self_usage(uint64_t *cpu_ns, uint64_t *rss_kb);
/* CPU time (user + system, all threads) of process pid so far, in ns.
 * Returns 0 or -errno. */
int pla_proc_cpu_ns(pid_t pid, uint64_t *ns);

/* A number in a /proc or /sys file (/proc/sys/kernel/perf_event_*, a
 * PMU caps file; a PMU format file's "config:N": the number after the
 * colon).  Returns 0, or -1 when unreadable. */
int pla_read_int_file(const char *path, long *out);

#endif
