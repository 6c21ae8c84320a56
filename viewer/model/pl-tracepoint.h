/* pl-tracepoint.h — tracepoint events: the profile's hits, and the
 * application markers (ftrace:print, written to trace_marker) with their
 * begin/end intervals.  A tracepoint's tracefs `format` file and the
 * decoding of a raw payload with it are pl-trace-format.h's.
 *
 * The agent sends each tracepoint's format once (msg.h,
 * PL_CHUNK_TRACE_FORMAT) and every hit as a SAMPLE of role TRACEPOINT with
 * its raw payload; the profile keeps them as PlTraceEvents (time, thread,
 * stack, a copy of the payload), apart from CPU samples.  Decoding happens
 * when asked, so a format that comes late or not at all costs nothing but
 * the decoded fields. */
#ifndef PL_TRACEPOINT_H
#define PL_TRACEPOINT_H

#include <glib.h>

#include "pl-profile.h"
#include "pl-trace-format.h"

G_BEGIN_DECLS

/* ─── the profile's tracepoint events ───────────────────────────────── */

#define PL_MAX_TRACE_EVENTS (16u << 20) /* kept per profile; past it, counted as dropped */

typedef struct {
	guint64 time;
	guint32 pid, tid;
	guint32 event;  /* PlEvent index */
	guint32 stack;  /* address-trie leaf, as PlSample.stack */
	guint32 raw_off, raw_len; /* into the profile's payload store */
	gboolean marker; /* a "markers" event: the payload is the line's text */
	guint32 cpu;     /* where it fired (per-CPU pairing: interrupts) */
} PlTraceEvent;

/* In ingestion order (time order, past the reorder window). */
const PlTraceEvent *pl_profile_get_trace_events(PlProfile *self, guint *n);
const guint8 *pl_profile_get_trace_raw(PlProfile *self, const PlTraceEvent *e);
/* The format the agent sent for that event, or NULL. */
const PlTraceFormat *pl_profile_get_trace_format(PlProfile *self, guint32 event);
gboolean pl_profile_is_big_endian(PlProfile *self);
/* The board's ELF machine (EM_*) from HELLO, 0 when unknown. */
guint pl_profile_get_e_machine(PlProfile *self);

/* ─── markers ────────────────────────────────────────────────────────── */

/* The markers (event "markers", msg.h PL_MARKER_TRACEPOINT) and lines of
 * ftrace:print (no kernel sends those to perf, but a format may say so). */
/* What perflens-marker.h writes for pl_mark_begin / pl_mark_end (the
 * systrace convention, so other tools read them too): "B|PID|NAME",
 * "E|PID|NAME". */
typedef struct {
	guint64 time;
	guint32 pid, tid;
	guint32 stack;
	char *text; /* the line written, without its trailing newline */
} PlMarker;

typedef struct {
	guint64 start, end;
	guint32 pid, tid;
	guint depth; /* open intervals of that thread around it */
	char *name;
} PlMarkerInterval;

typedef struct {
	GArray *markers;   /* PlMarker, time order */
	GArray *intervals; /* PlMarkerInterval, by start */
	guint unmatched;   /* begins never ended, ends never begun */
} PlMarkers;

/* The ftrace:print events of the profile.  Empty when none. */
PlMarkers *pl_markers_new(PlProfile *profile);
void pl_markers_free(PlMarkers *m);

/* Intervals between any two kinds of event, paired by the user (hotspot
 * #326, #346): on each thread, an event matching begin opens an interval
 * that the next one matching end closes (the innermost open one, so pairs
 * nest).  Markers are matched on their text, tracepoint hits on "EVENT
 * fields" as `report --tracepoints` prints them (e.g. "sched:sched_wakeup
 * comm=… pid=…").  An event matching end with nothing open may open one
 * when it matches begin too.  The intervals are added to m->intervals
 * (named name, depth counted among these pairs) and unmatched ones counted
 * in m->unmatched; returns how many were added. */
guint pl_markers_add_pairs(PlMarkers *m, PlProfile *profile, const GRegex *begin,
			   const GRegex *end, const char *name);
/* "BEGIN_RE;END_RE" (split at the first ';') into two regexes; FALSE with
 * error set for a missing half or a bad regex. */
gboolean pl_markers_parse_pair(const char *spec, GRegex **begin, GRegex **end, GError **error);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlMarkers, pl_markers_free)

G_END_DECLS

#endif
