/* pl-thread-timeline-private.h — what the files of the thread timeline
 * share (pl-thread-timeline.h is its interface):
 *   pl-thread-timeline.c          the widget: its lanes built and laid out,
 *                                 input, the public calls, the session
 *   pl-thread-timeline-lanes.c    time and x, the lane at y, sample density
 *   pl-thread-timeline-draw.c     the axis, the lanes, the selection
 *   pl-thread-timeline-events.c   markers and tracepoint ticks, begin/end
 *                                 bars (slow calls, lock waits, pairs)
 *   pl-thread-timeline-details.c  a thread's right-click details
 *   pl-timeline-irq.c             the per-CPU interrupt lanes (its own header)
 * The widget's file uses the others and none of them uses it (objects
 * never call each other in a circle: test/integration/include-cycles.sh).
 * Main thread only, as every widget. */
#ifndef PL_THREAD_TIMELINE_PRIVATE_H
#define PL_THREAD_TIMELINE_PRIVATE_H

#include "pl-thread-timeline.h"
#include "pl-tracepoint.h"
#include "pl-timeline-irq.h"
#include "pl-timeline-triggers.h"

G_BEGIN_DECLS

#define LABEL_W 230.0
#define AXIS_H 24.0
#define LANE_H 22.0
#define PROC_H 22.0
#define BUCKETS 1024
#define TICK_SLACK_PX 4.0
#define BAR_H 2.5

typedef struct {
	gboolean is_process;
	guint32 pid, tid;
	PlThread *thread;   /* NULL for a process header */
	PlProcess *process; /* may be NULL */
	double y;
	guint32 *hist;      /* BUCKETS sample counts, when no intervals */
	guint32 hist_max;
} Lane;

struct _PlThreadTimeline {
	GtkWidget parent_instance;
	PlProfile *profile;
	const PlAggregate *agg; /* borrowed: its node map says which samples count */
	GArray *lanes; /* Lane */
	guint64 t_start, t_end;
	guint32 sel_tid;
	guint64 sel_t0, sel_t1;
	gboolean dragging;
	double drag_x0, drag_x1;
	GtkWidget *popover;
	/* markers and tracepoint hits as ticks on their thread's
	 * lane, begin/end intervals as bars under them */
	PlMarkers *markers;
	GPtrArray *pairs;        /* "BEGIN_RE;END_RE" the user paired (char *) */
	GHashTable *lane_of_tid; /* tid → lane index + 1 */
	guint n_ticks, n_bars;   /* drawn at the last snapshot (tests) */
	gboolean hist_dirty;     /* the lanes' densities are counted at the next draw */
	/* the per-CPU interrupt lanes above the threads (NULL: the profile
	 * has none); irq_open: expanded or collapsed as the user last chose
	 * for irq_profile, -1 not chosen (the default then) */
	PlTimelineIrq *irq;
	int irq_open;
	PlProfile *irq_profile;
	/* The lanes as last drawn, for cache_w × cache_h: a frame that only
	 * moves the selection (a drag) draws this node again instead of every
	 * lane's intervals. */
	GskRenderNode *cache;
	int cache_w, cache_h;
	gboolean cache_dark;
};

/* ─── pl-thread-timeline-lanes.c ───────────────────────────────────────── */

/* What the lanes show changed: drawn again at the next frame. */
void pl_thread_timeline_invalidate(PlThreadTimeline *self);
double pl_thread_timeline_time_to_x(PlThreadTimeline *self, guint64 t, double w);
guint64 pl_thread_timeline_x_to_time(PlThreadTimeline *self, double x, double w);
PlTimelineScale pl_thread_timeline_scale_of(PlThreadTimeline *self, double w);
/* The thread lane or process header at y, NULL elsewhere. */
Lane *pl_thread_timeline_lane_at(PlThreadTimeline *self, double y);
Lane *pl_thread_timeline_lane_of_tid(PlThreadTimeline *self, guint32 tid);
/* A sample the call-tree transforms keep (agg->node_map). */
gboolean pl_thread_timeline_kept(PlThreadTimeline *self, const PlSample *s);
/* Sample density for lanes without switch intervals. */
void pl_thread_timeline_fill_hist(PlThreadTimeline *self);

/* ─── pl-thread-timeline-draw.c ────────────────────────────────────────── */

void pl_thread_timeline_snapshot(GtkWidget *widget, GtkSnapshot *snapshot);
void pl_thread_timeline_measure(GtkWidget *widget, GtkOrientation o, int for_size, int *min,
				int *nat, int *min_base, int *nat_base);

static inline void pl_timeline_set_rgba(cairo_t *cr, const GdkRGBA *c, double alpha)
{
	cairo_set_source_rgba(cr, c->red, c->green, c->blue, c->alpha * alpha);
}

/* text at x, centred in the band [y, y + h], cut to maxw */
void pl_timeline_draw_text(cairo_t *cr, PangoLayout *pl, const char *text, double x, double y,
			   double h, double maxw);

/* ─── pl-thread-timeline-events.c ──────────────────────────────────────── */

/* The markers, slow calls, lock waits and the user's pairs of the profile
 * again (none without a profile). */
void pl_thread_timeline_rebuild_markers(PlThreadTimeline *self);
/* Ticks and bars on the lanes; counts them in n_ticks, n_bars. */
void pl_thread_timeline_draw_events(PlThreadTimeline *self, cairo_t *cr, double w);
/* The interval whose bar is under (x, y), NULL when none. */
const PlMarkerInterval *pl_thread_timeline_interval_at(PlThreadTimeline *self, double x,
						       double y, double w);

/* ─── pl-thread-timeline-details.c ─────────────────────────────────────── */

void pl_thread_timeline_on_right_click(GtkGestureClick *g, int n, double x, double y,
				       PlThreadTimeline *self);

G_END_DECLS

#endif
