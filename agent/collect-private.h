/* collect-private.h — the calls between the files of one profiling
 * session (collect.h's struct pla_collector is their shared state), for
 * those files only.
 *
 * Calls go one way: collect.c (the orchestration) calls events.c,
 * proc-snapshot.c, records.c and spawn.c (spawn.h); records.c calls
 * proc-snapshot.c for the held vDSO image; none calls back into
 * collect.c.  Errors are -errno, as in collect.h; every function that
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

/* tids: scratch room for MAX_THREADS. */
void pla_snapshot_before(struct pla_collector *c, const struct pla_collect_config *cfg,
			 struct pla_stream *out, pid_t *tids);
int pla_send_vdso(struct pla_collector *c, struct pla_stream *out, pid_t pid, uint64_t addr);
/* /tmp/perf-PID.map of the target, when there is one. */
int pla_send_perf_map(struct pla_collector *c, struct pla_stream *out);
int pla_log_msg(struct pla_collector *c, struct pla_stream *out, uint8_t level,
		const char *text);

/* ─── records.c ────────────────────────────────────────────────────────── */

/* One kernel record from a ring → its message, sent to out.  Returns
 * pla_stream_msg's, 0 for a record the viewer does not use, -EBADMSG for a
 * malformed one. */
int pla_on_record(struct pla_collector *c, struct pla_stream *out,
		  const struct perf_event_header *h);

#endif
