/* pl-irq.h — interrupt time: hardirq handlers and softirqs, from the
 * tracepoints irq:irq_handler_entry/exit and irq:softirq_entry/exit that
 * `perflens record --irq` records (pl_irq_tracepoints).
 *
 * Each CPU runs at most one hardirq handler and one softirq at a time, and
 * a hardirq may interrupt a softirq (never the reverse); so the pairing is
 * per CPU, in time order: an entry opens, the next exit of the same IRQ
 * number (or vector) on that CPU closes.  A softirq's time is its own:
 * the hardirqs that interrupted it are taken out of it (and counted as
 * nested).  What cannot be paired is counted, never guessed:
 *   - at the start: an exit whose entry came before the recording began,
 *     or an entry before that CPU's first exit of its kind (the agent
 *     turns the tracepoints on one after the other);
 *   - at the end: an entry still open when the recording ended, or whose
 *     exit would have come after that CPU's last exit of its kind (they
 *     are turned off one after the other too);
 *   - in between, an exit of another IRQ than the one open on that CPU, or
 *     an entry while one is open: events were lost (the recording's lost
 *     count says how many), the open one is dropped unpaired.
 * Counts are entries (as /proc/interrupts and /proc/softirqs count them:
 * a shared IRQ line runs one handler per device, each with its own entry
 * and name), times are paired entries only.
 *
 * A session that is not --all records the tracepoints per thread of the
 * target (agent/events.c): then only the interrupts that hit those
 * threads are seen, and PlIrqStats.per_task says so.
 *
 * No GTK; pure over the profile's tracepoint events (pl-tracepoint.h).
 * The result owns its strings; the profile may go after it is built. */
#ifndef PL_IRQ_H
#define PL_IRQ_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

/* What `record --irq` (and the app's "Interrupts" box) adds to --event. */
extern const char *const pl_irq_tracepoints[]; /* NULL-terminated */

/* The kernel's softirq vectors (include/linux/interrupt.h), as
 * /proc/softirqs names them: "HI", "TIMER", … "RCU"; NULL past them. */
#define PL_SOFTIRQ_VECTORS 10u
const char *pl_softirq_name(guint vec);

typedef enum { PL_IRQ_HARD, PL_IRQ_SOFT } PlIrqKind;

typedef struct {
	guint64 count; /* entries */
	guint64 time_ns;
} PlIrqCpu;

/* One handler (IRQ number and name) or one softirq vector. */
typedef struct {
	PlIrqKind kind;
	guint32 number; /* the IRQ number, or the vector */
	char *name;     /* the handler's ("virtio1-req.0"), or the vector's ("NET_RX") */
	guint64 count;  /* entries */
	guint64 paired; /* entries with their exit */
	guint64 time_ns; /* over the paired ones (a softirq's less its nested hardirqs) */
	guint64 max_ns;
	GArray *cpus;   /* PlIrqCpu, indexed by CPU (PlIrqStats.ncpus long) */
} PlIrqSource;

/* One paired handler run, for the timeline's per-CPU lanes. */
typedef struct {
	guint64 start, end;
	guint32 cpu;
	guint32 source; /* index into PlIrqStats.sources */
	guint32 stack;  /* at entry: what was interrupted (address-trie leaf) */
	guint32 depth;  /* 1: a hardirq that interrupted a softirq */
} PlIrqSpan;

#define PL_MAX_IRQ_SPANS (4u << 20) /* kept for the timeline; past it counted */

typedef struct {
	GPtrArray *sources; /* PlIrqSource*, hardirqs then softirqs, most time first */
	GArray *spans;      /* PlIrqSpan, by start */
	guint64 spans_dropped;
	guint ncpus;        /* highest CPU seen + 1 */
	guint64 t0, t1;     /* the recording's first and last event */
	gboolean have_hard, have_soft; /* the recording holds those tracepoints */
	gboolean per_task;  /* not an --all session: only the target's threads' interrupts */
	guint64 exit_before_start; /* unpaired at the recording's start (above) */
	guint64 open_at_end;       /* unpaired at its end */
	guint64 mismatched;        /* dropped unpaired: events were lost */
	guint64 undecoded;         /* no format, or a payload it does not fit */
	guint64 nested;            /* hardirqs that interrupted a softirq */
	guint64 lost;              /* the recording's lost samples, all events */
	guint64 hard_count, soft_count, hard_ns, soft_ns;
} PlIrqStats;

/* The interrupts of profile; empty (have_hard and have_soft FALSE) when
 * it has none of the tracepoints. */
PlIrqStats *pl_irq_stats_new(PlProfile *profile);
/* Only the runs whose entry is the filter's (its event is ignored): in its
 * time range, on its thread (the one interrupted: --tid); pairing still
 * reads every event, so a run the range cuts keeps its whole time, and
 * t0/t1 (the shares' time) are the range's. */
PlIrqStats *pl_irq_stats_new_filtered(PlProfile *profile, const PlFilter *filter);
void pl_irq_stats_free(PlIrqStats *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlIrqStats, pl_irq_stats_free)

/* Counts of every handler of IRQ number irq (shared lines: all of them),
 * or of softirq vector vec; cpu G_MAXUINT: all CPUs. */
guint64 pl_irq_stats_count(const PlIrqStats *s, PlIrqKind kind, guint32 number, guint cpu);
/* The recording's seconds (t1 - t0), 0 when it has one event or none. */
double pl_irq_stats_seconds(const PlIrqStats *s);

G_END_DECLS

#endif
