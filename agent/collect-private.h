/* collect-private.h — the calls between the files of one profiling
 * session (collect.h's struct pla_collector is their shared state), for
 * those files only.
 *
 * Calls go one way: collect.c (the orchestration) calls events.c,
 * proc-snapshot.c, records.c and spawn.c (spawn.h); events.c calls
 * syscalls.c to prepare the slow-call event it opens; records.c calls
 * proc-snapshot.c for the held vDSO image and syscalls.c for the
 * slow-call samples; none calls back into collect.c, and syscalls.c
 * calls none of them.  Errors are -errno, as in collect.h; every function that
 * builds a message overwrites c->msg.
 */
#ifndef PLA_COLLECT_PRIVATE_H
#define PLA_COLLECT_PRIVATE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect.h"

#define MAX_THREADS 32768 /* threads of one target (servers run thousands) */

/* ─── events.c ─────────────────────────────────────────────────────────── */

/* Opens the sampled events of c->cfg (the first one also carries the
 * side-band records), the off-CPU sampler and the creation sampler on
 * tids (-1 alone: every process), with indices from c->nevents on.
 * Returns 0, or -errno with a sentence in err. */
int pla_open_sampled(struct pla_collector *c, const pid_t *tids, int ntids, char *err,
		     size_t errlen);
int pla_open_counters(struct pla_collector *c, const pid_t *tids, int ntids, char *err,
		      size_t errlen);
/* EVENT_DESC frames for the events from index `from` on. */
int pla_send_event_descs(struct pla_collector *c, struct pla_stream *out, uint32_t from);

/* ─── proc-snapshot.c ──────────────────────────────────────────────────── */

/* What a long send lets run between its chunks (collect.c's drain). */
typedef int pla_between_fn(struct pla_collector *c, struct pla_stream *out);

/* tids: scratch room for MAX_THREADS. */
void pla_snapshot_before(struct pla_collector *c, const struct pla_collect_config *cfg,
			 struct pla_stream *out, pid_t *tids, pla_between_fn *between);
int pla_send_vdso(struct pla_collector *c, struct pla_stream *out, pid_t pid, uint64_t addr);
/* /tmp/perf-PID.map of the target, when there is one. */
int pla_send_perf_map(struct pla_collector *c, struct pla_stream *out);
/* /proc/interrupts and /proc/softirqs, each stamped with its read's time,
 * when an event is an irq tracepoint; else nothing.  Returns 0 or the
 * stream's -errno. */
int pla_send_irq_counts(struct pla_collector *c, struct pla_stream *out);

/* ─── records.c ────────────────────────────────────────────────────────── */

/* One kernel record from a ring → its message, sent to out.  Returns
 * pla_stream_msg's, 0 for a record the viewer does not use, -EBADMSG for a
 * malformed one, which is sent as a LOST of kind PL_LOST_MALFORMED
 * (count 1) instead. */
int pla_on_record(struct pla_collector *c, struct pla_stream *out,
		  const struct perf_event_header *h);

/* ─── syscalls.c ───────────────────────────────────────────────────────── */

#define PLA_SYS_FRAMES 64 /* call-chain entries kept per waiting entry */
/* The slow-call state of a session; its slot table follows it. */
struct pla_sys {
	uint32_t event; /* the "slow-syscalls" event index: enters and exits */
	uint64_t threshold, enter_id;
	unsigned id_off, args_off, ret_off, word;
	int mono; /* the records are stamped with CLOCK_MONOTONIC (collect.c's drain) */
	uint64_t timed, slow, full, unfinished, unmatched;
};

/* Room for the kernel filter of a --syscalls list ("id == N || ..."). */
#define PLA_SYS_FILTER (PLA_SYS_LIST * 4 + 16)
/* Prepares the slow-call state of event c->nevents (c->sys) for s:
 * where the tracepoints' fields lie, the kernel filter on the numbers of
 * s->target (into filter: "" for every call), and attr a, the session's,
 * rewritten for raw_syscalls:sys_enter (s->config).  events.c opens it.
 * Returns 0 or -ENOMEM. */
int pla_sys_prepare(struct pla_collector *c, const struct pla_event_spec *s,
		    struct perf_event_attr *a, char *filter, size_t len);
/* Rewrites a, as pla_sys_prepare left it, for raw_syscalls:sys_exit
 * (s->config1). */
void pla_sys_exit_attr(const struct pla_collector *c, const struct pla_event_spec *s,
		       struct perf_event_attr *a);
/* The sample_type of a raw_syscalls record, from its raw payload (an exit
 * carries the registers and the stack copy, msg.h PL_EVENT_STACK). */
uint64_t pla_sys_record_type(const struct pla_collector *c, const uint8_t *raw, uint32_t size);
/* The user stack copy of events (msg.h, PL_EVENT_STACK). */
static inline uint32_t pla_event_stack(const struct pla_collector *c)
{
	return c->cfg.callgraph == PL_CG_DWARF && c->cfg.stack_size ? c->cfg.stack_size
								     : PL_EVENT_STACK;
}
/* A raw_syscalls sample parsed into c->msg: an entry is kept, an exit
 * pairs with it and, when the call took the threshold or more, c->msg
 * becomes the slow call's SAMPLE and is sent.  Returns pla_stream_msg's
 * or 0. */
int pla_sys_sample(struct pla_collector *c, struct pla_stream *out);
/* A thread exited: its waiting entry (an exit() call) is dropped. */
void pla_sys_thread_gone(struct pla_collector *c, uint32_t tid);
/* The LOG with the counts (msg.h, PL_SLOW_SYSCALLS_NOTE). */
int pla_sys_note(struct pla_collector *c, struct pla_stream *out);

#endif
