/* pl-periods.h — periodic tasks: the threads (or marker intervals) that run
 * once per period, each activation measured from its wake-up to its sleep.
 *
 * What an activation is:
 *   - from the switch records (the default): a thread blocked (switched
 *     out voluntarily, not preempted) and then switched in; the activation
 *     runs from that switch-in, through any preemptions, to its next
 *     voluntary switch-out (the sleep).  Its wake-up is the last
 *     sched:sched_wakeup or sched:sched_waking hit naming the thread while
 *     it was blocked, when the recording holds those tracepoints (the
 *     kernel records a hit in the waker's context: a timer firing while
 *     another process runs is not seen by a per-process recording);
 *   - from markers: each pl_mark_begin/pl_mark_end interval of one name on
 *     one thread (perflens-marker.h) is an activation, begin to end.
 *
 * The period, per thread (or marker name):
 *   - given (--period): that period;
 *   - else detected: the median of the intervals between consecutive
 *     activations' releases (wake-up, else switch-in, or the begin marker)
 *     when at least PL_PERIOD_MIN_ACTIVATIONS activations exist and at
 *     least half of those intervals lie within ±10 % of the median (the
 *     regularity test: a task kept from its CPU on a busy machine still
 *     passes, random wake-ups do not); a given period asks 30 % of them.
 *     A task also passes when at least half of its activations start
 *     within 10 % of a period at one phase of the (refined) period: a busy
 *     machine scatters the intervals of a task that keeps its grid, not
 *     the phase of its starts on time.
 * The release grid: slots are counted from one activation to the next
 * (the interval over the period, rounded, at least 1); a least-squares
 * line through (slot, release) over the activations within 10 % of a
 * period of it (up to three passes, while at least half are) gives the
 * exact period (a detected one) and the phase; with slots counted from one
 * activation to the next (a task that keeps no grid, as one that sleeps a
 * relative time: a delay shifts every later start, and a line through
 * such steps is steeper than any interval kept) the period is the median
 * of the intervals, each over the slots it spans, and the line gives the
 * phase only.  Slots are also tried from
 * the grid itself: the period refined from pairs of activations whole
 * periods apart, the phase where most activations start, each activation
 * in the last slot at or before its start (a busy machine may start one
 * more than half a period late); of the two, the slots giving the smaller
 * 90th percentile of jitter are kept.  When every inlier lies
 * within half a period above the earliest activation (a task that keeps
 * its grid), each activation's slot is then the last release at or
 * before its start (a start is never before its release).  Each
 * activation's release
 * is then that line moved to the earliest of the activations within 8
 * either side of it: release jitter is ≥ 0, counted from the earliest the
 * thread woke in its slot around then.  (A thread that sleeps a relative
 * time drifts like a random walk from any straight line; nearby
 * activations still share a phase.)
 * The deadline of an activation is its grid release plus one period; it
 * misses when it ends (sleeps) after that.
 *
 * No GTK; pure functions of the profile.  Times are the profile's (ns). */
#ifndef PL_PERIODS_H
#define PL_PERIODS_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_PERIOD_MIN_ACTIVATIONS 8
#define PL_PERIOD_MIN_NS 100000ull /* 100 µs: shorter intervals are not a period */

typedef struct {
	guint64 release;      /* the grid's release of its slot */
	guint64 wake;         /* the wake-up seen, 0 when none was recorded */
	guint64 start, end;   /* switch-in (or begin marker) to sleep (or end marker) */
	guint64 exec_ns;      /* on-CPU time within [start, end] */
	guint64 preempted_ns; /* runnable but preempted within it */
	guint preemptions;
	guint64 jitter_ns;   /* (wake, else start) − release */
	guint64 response_ns; /* start − wake; 0 when no wake-up was seen */
	gint64 lateness_ns;  /* end − deadline: > 0 is a miss */
	gboolean miss;
} PlActivation;

typedef enum {
	PL_PERIOD_DETECTED,
	PL_PERIOD_GIVEN,
} PlPeriodSource;

typedef struct {
	guint32 tid, pid;
	const char *thread;  /* the thread's name (owned by the profile) */
	char *marker;        /* marker intervals' name, NULL for switch activations */
	PlPeriodSource source;
	guint64 period_ns;
	double median_ns;      /* of the intervals between releases */
	double regular;        /* share (0..100) of those intervals within ±10 % of the period */
	GArray *acts;          /* PlActivation, in time order */
	guint misses, with_wake, preempted_acts;
	/* nearest-rank percentiles over the activations */
	guint64 exec_p50, exec_p99, exec_max;
	guint64 jitter_p50, jitter_p99, jitter_max;
	guint64 resp_p50, resp_p99, resp_max; /* over those with a wake-up */
} PlPeriodicTask;

/* The periodic tasks of the recording: every thread whose activations pass
 * the regularity test, then every marker name per thread that does.
 * period_ns 0: detect each one's period.  New GPtrArray (frees its
 * tasks), threads by tid then markers. */
GPtrArray *pl_periods_find(PlProfile *p, guint64 period_ns);
void pl_periodic_task_free(PlPeriodicTask *t);

/* "10ms", "250us", "1.5ms", "0.01s" or plain ns → ns; FALSE with error. */
gboolean pl_periods_parse_duration(const char *text, guint64 *ns, GError **error);

G_END_DECLS

#endif
