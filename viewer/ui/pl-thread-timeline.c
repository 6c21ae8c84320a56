/* pl-thread-timeline.c — thread lanes (see the header). */
#include "pl-thread-timeline.h"
#include "pl-timeline-triggers.h"

#include <math.h>
#include <string.h>

#include "pl-locks.h"
#include "pl-syscalls.h"
#include "pl-tracepoint.h"
#include "pl-ui-util.h"

#define LABEL_W 230.0
#define AXIS_H 24.0
#define LANE_H 22.0
#define PROC_H 22.0
#define BUCKETS 1024

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
	/* The lanes as last drawn, for cache_w × cache_h: a frame that only
	 * moves the selection (a drag) draws this node again instead of every
	 * lane's intervals. */
	GskRenderNode *cache;
	int cache_w, cache_h;
	gboolean cache_dark;
};

G_DEFINE_FINAL_TYPE(PlThreadTimeline, pl_thread_timeline, GTK_TYPE_WIDGET)

enum { SIG_RANGE, SIG_THREAD, N_SIGNALS };
static guint signals[N_SIGNALS];

static void lanes_clear(PlThreadTimeline *self)
{
	for (guint i = 0; i < self->lanes->len; i++)
		g_free(g_array_index(self->lanes, Lane, i).hist);
	g_array_set_size(self->lanes, 0);
}

static gint by_pid_tid(gconstpointer a, gconstpointer b)
{
	const PlThread *x = *(PlThread *const *)a, *y = *(PlThread *const *)b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	/* the main thread first, then by tid */
	gboolean xm = x->tid == x->pid, ym = y->tid == y->pid;
	if (xm != ym)
		return xm ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void fill_hist(PlThreadTimeline *self);

/* What the lanes show changed: drawn again at the next frame. */
static void invalidate(PlThreadTimeline *self)
{
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* Markers, and the slow system calls and lock waits as intervals (bars in
 * their own colours; their entry ticks are not drawn: the bar says it
 * all). */
static PlMarkers *markers_new(PlProfile *p)
{
	PlMarkers *m = pl_markers_new(p);
	pl_markers_add_slow_calls(m, p);
	pl_markers_add_lock_waits(m, p);
	return m;
}

static gboolean is_bar_event(PlProfile *p, const PlTraceEvent *e)
{
	const PlEvent *ev = pl_profile_lookup_event(p, e->event);
	if (!ev)
		return FALSE;
	for (const char *const *l = pl_locks_events(); *l; l++)
		if (!g_strcmp0(ev->name, *l))
			return TRUE;
	return !g_strcmp0(ev->name, PL_SLOW_SYSCALLS_EVENT);
}

/* The user's pairs as intervals (their specs were checked when set). */
static void add_pairs(PlThreadTimeline *self)
{
	for (guint i = 0; self->markers && i < self->pairs->len; i++) {
		GRegex *b, *e;
		if (!pl_markers_parse_pair(self->pairs->pdata[i], &b, &e, NULL))
			continue;
		pl_markers_add_pairs(self->markers, self->profile, b, e, self->pairs->pdata[i]);
		g_regex_unref(b);
		g_regex_unref(e);
	}
}

static void build_lanes(PlThreadTimeline *self)
{
	lanes_clear(self);
	g_clear_pointer(&self->markers, pl_markers_free);
	g_hash_table_remove_all(self->lane_of_tid);
	self->t_start = self->t_end = 0;
	if (!self->profile)
		return;
	const PlProfileStats *st = pl_profile_get_stats(self->profile);
	self->t_start = st->first_time;
	self->t_end = st->last_time > st->first_time ? st->last_time : st->first_time + 1;
	GPtrArray *threads = pl_profile_get_threads(self->profile);
	g_autoptr(GPtrArray) sorted = g_ptr_array_new();
	for (guint i = 0; i < threads->len; i++) {
		PlThread *t = threads->pdata[i];
		/* threads that never ran while we watched only add noise */
		if (t->samples == 0 && (!t->intervals || t->intervals->len == 0))
			continue;
		g_ptr_array_add(sorted, t);
	}
	g_ptr_array_sort(sorted, by_pid_tid);
	GPtrArray *procs = pl_profile_get_processes(self->profile);
	double y = AXIS_H;
	guint32 pid = G_MAXUINT32;
	for (guint i = 0; i < sorted->len; i++) {
		PlThread *t = sorted->pdata[i];
		if (t->pid != pid) {
			pid = t->pid;
			Lane pl = { TRUE, pid, 0, NULL, NULL, y, NULL, 0 };
			for (guint k = 0; k < procs->len; k++)
				if (((PlProcess *)procs->pdata[k])->pid == pid)
					pl.process = procs->pdata[k];
			g_array_append_val(self->lanes, pl);
			y += PROC_H;
		}
		Lane l = { FALSE, t->pid, t->tid, t, NULL, y, NULL, 0 };
		if (!t->intervals || t->intervals->len == 0)
			l.hist = g_new0(guint32, BUCKETS);
		g_array_append_val(self->lanes, l);
		g_hash_table_insert(self->lane_of_tid, GUINT_TO_POINTER(t->tid),
				    GUINT_TO_POINTER(self->lanes->len));
		y += LANE_H;
	}
	self->markers = markers_new(self->profile);
	add_pairs(self);
	self->hist_dirty = TRUE; /* the aggregate that says which samples count comes next */
}

static Lane *lane_of_tid(PlThreadTimeline *self, guint32 tid)
{
	guint i = GPOINTER_TO_UINT(g_hash_table_lookup(self->lane_of_tid, GUINT_TO_POINTER(tid)));
	return i ? &g_array_index(self->lanes, Lane, i - 1) : NULL;
}

/* A sample the call-tree transforms keep (agg->node_map). */
static gboolean kept(PlThreadTimeline *self, const PlSample *s)
{
	const PlAggregate *a = self->agg;
	if (!a || !a->node_map)
		return TRUE;
	guint32 n = pl_profile_get_stack_node(self->profile, s->stack);
	return n < a->n_nodes && a->node_map[n] != PL_NO_ID;
}

/* Sample density for lanes without switch intervals. */
static void fill_hist(PlThreadTimeline *self)
{
	self->hist_dirty = FALSE;
	if (!self->profile)
		return;
	g_autoptr(GHashTable) index = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		if (!l->hist)
			continue;
		memset(l->hist, 0, BUCKETS * sizeof(guint32));
		l->hist_max = 0;
		g_hash_table_insert(index, GUINT_TO_POINTER(l->tid), GUINT_TO_POINTER(i + 1));
	}
	guint n;
	const PlSample *s = pl_profile_get_samples(self->profile, &n);
	double span = (double)(self->t_end - self->t_start);
	/* samples come in runs of one thread: one lookup a run */
	guint32 last_tid = 0;
	guint li = 0;
	for (guint i = 0; i < n; i++) {
		if (i == 0 || s[i].tid != last_tid) {
			last_tid = s[i].tid;
			li = GPOINTER_TO_UINT(g_hash_table_lookup(index, GUINT_TO_POINTER(last_tid)));
		}
		if (!li)
			continue;
		Lane *l = &g_array_index(self->lanes, Lane, li - 1);
		if (!l->hist || s[i].time < self->t_start || !kept(self, &s[i]))
			continue;
		guint b = (guint)((double)(s[i].time - self->t_start) / span * (BUCKETS - 1));
		if (b < BUCKETS && ++l->hist[b] > l->hist_max)
			l->hist_max = l->hist[b];
	}
}

/* ─── geometry ───────────────────────────────────────────────────────── */

static double time_to_x(PlThreadTimeline *self, guint64 t, double w)
{
	double span = (double)(self->t_end - self->t_start);
	if (t < self->t_start)
		t = self->t_start;
	return LABEL_W + (double)(t - self->t_start) / span * (w - LABEL_W - 8);
}

static guint64 x_to_time(PlThreadTimeline *self, double x, double w)
{
	double f = (x - LABEL_W) / (w - LABEL_W - 8);
	f = CLAMP(f, 0, 1);
	return self->t_start + (guint64)(f * (double)(self->t_end - self->t_start));
}

static PlTimelineScale scale_of(PlThreadTimeline *self, double w)
{
	return (PlTimelineScale){ self->t_start, self->t_end, LABEL_W, w - 8 };
}

static Lane *lane_at(PlThreadTimeline *self, double y)
{
	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		double h = l->is_process ? PROC_H : LANE_H;
		if (y >= l->y && y < l->y + h)
			return l;
	}
	return NULL;
}

/* ─── drawing ────────────────────────────────────────────────────────── */

static void set_rgba(cairo_t *cr, const GdkRGBA *c, double alpha)
{
	cairo_set_source_rgba(cr, c->red, c->green, c->blue, c->alpha * alpha);
}

static void draw_text(cairo_t *cr, PangoLayout *pl, const char *text, double x, double y,
		      double h, double maxw)
{
	pango_layout_set_text(pl, text, -1);
	pango_layout_set_width(pl, (int)(maxw * PANGO_SCALE));
	int th;
	pango_layout_get_pixel_size(pl, NULL, &th);
	cairo_move_to(cr, x, y + (h - th) / 2);
	pango_cairo_show_layout(cr, pl);
}

/* ─── markers and tracepoints ─────────────────────────────────────────── */

#define TICK_SLACK_PX 4.0

static const GdkRGBA marker_rgba = { 0.95, 0.50, 0.05, 1 };
static const GdkRGBA trace_rgba = { 0.05, 0.60, 0.70, 1 };
static const GdkRGBA bar_rgba = { 0.60, 0.30, 0.85, 0.85 };
static const GdkRGBA slow_call_rgba = { 0.85, 0.10, 0.10, 0.9 }; /* a thread blocked */
static const GdkRGBA lock_wait_rgba = { 0.55, 0.20, 0.75, 0.9 }; /* waiting for a lock */

#define BAR_H 2.5

/* The top of an interval's bar: along the lane's bottom, one row up per
 * nesting level (four at most). */
static double bar_y(const Lane *l, guint depth)
{
	return l->y + LANE_H - 4 - 3.0 * MIN(depth, 4);
}

/* The interval whose bar is under (x, y): on that lane, within a few
 * pixels of its ends (a 1 ms interval is a sliver), the bar row nearest y,
 * the innermost on a tie; NULL when none. */
static const PlMarkerInterval *interval_at(PlThreadTimeline *self, double x, double y, double w)
{
	Lane *l = lane_at(self, y);
	if (!l || l->is_process || !self->markers)
		return NULL;
	const PlMarkerInterval *best = NULL;
	double best_d = 0;
	for (guint i = 0; i < self->markers->intervals->len; i++) {
		const PlMarkerInterval *v =
			&g_array_index(self->markers->intervals, PlMarkerInterval, i);
		if (v->tid != l->tid)
			continue;
		double x0 = time_to_x(self, v->start, w), x1 = MAX(time_to_x(self, v->end, w), x0 + 1);
		if (x < x0 - 2 || x > x1 + 2)
			continue;
		double d = fabs(y - (bar_y(l, v->depth) + BAR_H / 2));
		if (d > 2.5)
			continue;
		if (!best || d < best_d || (d == best_d && v->depth > best->depth)) {
			best = v;
			best_d = d;
		}
	}
	return best;
}

/* Ticks: a marker or tracepoint hit on its thread's lane (the marker's
 * tick taller); begin/end intervals: bars along the lane's bottom, one row
 * up per nesting level. */
static void draw_events(PlThreadTimeline *self, cairo_t *cr, double w)
{
	self->n_ticks = self->n_bars = 0;
	if (!self->profile)
		return;
	for (guint i = 0; self->markers && i < self->markers->intervals->len; i++) {
		const PlMarkerInterval *v =
			&g_array_index(self->markers->intervals, PlMarkerInterval, i);
		Lane *l = lane_of_tid(self, v->tid);
		if (!l)
			continue;
		double x0 = time_to_x(self, v->start, w), x1 = time_to_x(self, v->end, w);
		double y = bar_y(l, v->depth);
		const GdkRGBA *c = g_str_has_suffix(v->name, PL_SLOW_CALL_SUFFIX)    ? &slow_call_rgba
				   : g_str_has_suffix(v->name, PL_LOCK_WAIT_SUFFIX) ? &lock_wait_rgba
										    : &bar_rgba;
		set_rgba(cr, c, c->alpha);
		cairo_rectangle(cr, x0, y, MAX(x1 - x0, 1), BAR_H);
		cairo_fill(cr);
		self->n_bars++;
	}
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(self->profile, &n);
	for (guint i = 0; i < n; i++) {
		Lane *l = lane_of_tid(self, ev[i].tid);
		if (!l || is_bar_event(self->profile, &ev[i]))
			continue;
		double x = time_to_x(self, ev[i].time, w);
		set_rgba(cr, ev[i].marker ? &marker_rgba : &trace_rgba, 1);
		if (ev[i].marker)
			cairo_rectangle(cr, x - 0.5, l->y + 1, 1.5, LANE_H - 2);
		else
			cairo_rectangle(cr, x - 0.5, l->y + 1, 1, LANE_H / 2);
		cairo_fill(cr);
		self->n_ticks++;
	}
}

/* What a tick says: its time, and the marker's text or the tracepoint's
 * name and decoded fields. */
static char *describe_event(PlThreadTimeline *self, const PlTraceEvent *e)
{
	double ms = (double)(e->time - self->t_start) / 1e6;
	const guint8 *raw = pl_profile_get_trace_raw(self->profile, e);
	if (e->marker)
		return g_strdup_printf("+%.3f ms  marker: %.*s", ms, (int)e->raw_len,
				       (const char *)raw);
	const PlEvent *ev = pl_profile_lookup_event(self->profile, e->event);
	const PlTraceFormat *f = pl_profile_get_trace_format(self->profile, e->event);
	g_autofree char *fields = f ? pl_trace_format_dup_fields(f, raw, e->raw_len,
								  pl_profile_is_big_endian(self->profile))
				    : g_strdup("(no format)");
	return g_strdup_printf("+%.3f ms  %s  %s", ms, ev ? ev->name : "?", fields);
}

char *pl_thread_timeline_dup_event_at(PlThreadTimeline *self, guint32 tid, guint64 time,
				      guint64 slack)
{
	if (!self->profile)
		return NULL;
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(self->profile, &n);
	const PlTraceEvent *best = NULL;
	guint64 best_d = slack + 1;
	for (guint i = 0; i < n; i++) {
		if (ev[i].tid != tid || is_bar_event(self->profile, &ev[i]))
			continue;
		guint64 d = ev[i].time > time ? ev[i].time - time : time - ev[i].time;
		if (d < best_d) {
			best_d = d;
			best = &ev[i];
		}
	}
	if (best)
		return describe_event(self, best);
	/* else the innermost interval around that time */
	const PlMarkerInterval *in = NULL;
	for (guint i = 0; self->markers && i < self->markers->intervals->len; i++) {
		const PlMarkerInterval *v =
			&g_array_index(self->markers->intervals, PlMarkerInterval, i);
		if (v->tid == tid && v->start <= time && time <= v->end &&
		    (!in || v->depth > in->depth))
			in = v;
	}
	return in ? g_strdup_printf("%s: %.3f ms (+%.3f ms) · click its bar to select it", in->name,
				    (double)(in->end - in->start) / 1e6,
				    (double)(in->start - self->t_start) / 1e6)
		  : NULL;
}

guint pl_thread_timeline_get_n_ticks(PlThreadTimeline *self, guint *n_bars)
{
	if (n_bars)
		*n_bars = self->n_bars;
	return self->n_ticks;
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
				 GtkTooltip *tip, PlThreadTimeline *self)
{
	double w = gtk_widget_get_width(widget);
	/* a flight recorder's trigger: its line crosses every lane */
	PlTimelineScale sc = scale_of(self, w);
	g_autofree char *trigger = keyboard || x < LABEL_W ? NULL
				   : pl_timeline_triggers_dup_at(self->profile, &sc, x, TICK_SLACK_PX);
	if (trigger) {
		gtk_tooltip_set_text(tip, trigger);
		return TRUE;
	}
	Lane *l = lane_at(self, y);
	if (keyboard || !l || l->is_process || x < LABEL_W)
		return FALSE;
	guint64 t = x_to_time(self, x, w);
	guint64 slack = x_to_time(self, LABEL_W + TICK_SLACK_PX, w) - self->t_start;
	g_autofree char *text = pl_thread_timeline_dup_event_at(self, l->tid, t, slack);
	if (!text)
		return FALSE;
	gtk_tooltip_set_text(tip, text);
	return TRUE;
}

static const GdkRGBA sel_rgba = { 0.25, 0.55, 0.95, 0.22 };

/* A thread's switch intervals: on CPU as full bars, off CPU as thin ones.
 * A long recording has far more intervals than the lane has pixels: on-CPU
 * bars that touch within half a pixel are drawn as one, and each colour
 * is filled once for the lane. */
static void draw_intervals(PlThreadTimeline *self, cairo_t *cr, const PlThread *t, double w,
			   double y0, double lh, const GdkRGBA *on, const GdkRGBA *off)
{
	double run0 = 0, run1 = -1; /* the on-CPU bar being extended */
	gboolean any_off = FALSE;
	set_rgba(cr, off, 1);
	for (guint k = 0; k < t->intervals->len; k++) {
		const PlInterval *iv = &g_array_index(t->intervals, PlInterval, k);
		double x0 = time_to_x(self, iv->start, w), x1 = time_to_x(self, iv->end, w);
		if (iv->on_cpu || x1 - x0 < 0.5)
			continue;
		cairo_rectangle(cr, x0, y0 + lh * 0.3, x1 - x0, lh * 0.4);
		any_off = TRUE;
	}
	if (any_off)
		cairo_fill(cr);
	set_rgba(cr, on, 1);
	gboolean any_on = FALSE;
	for (guint k = 0; k < t->intervals->len; k++) {
		const PlInterval *iv = &g_array_index(t->intervals, PlInterval, k);
		if (!iv->on_cpu)
			continue;
		double x0 = time_to_x(self, iv->start, w), x1 = time_to_x(self, iv->end, w);
		double e = x0 + MAX(x1 - x0, 1);
		if (run1 >= run0 && x0 <= run1 + 0.5) {
			run1 = MAX(run1, e);
			continue;
		}
		if (run1 >= run0)
			cairo_rectangle(cr, run0, y0, run1 - run0, lh);
		run0 = x0;
		run1 = e;
		any_on = TRUE;
	}
	if (any_on) {
		cairo_rectangle(cr, run0, y0, run1 - run0, lh);
		cairo_fill(cr);
	}
}

/* Everything but the selected time range: the axis, the lanes, their
 * events and the triggers. */
static void draw_lanes(PlThreadTimeline *self, GtkWidget *widget, cairo_t *cr, double w, double h)
{
	GdkRGBA fg;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	gboolean dark = fg.red + fg.green + fg.blue > 1.5;
	GdkRGBA on = dark ? (GdkRGBA){ 0.35, 0.80, 0.45, 1 } : (GdkRGBA){ 0.13, 0.60, 0.25, 1 };
	GdkRGBA off = dark ? (GdkRGBA){ 0.40, 0.50, 0.75, 0.55 } : (GdkRGBA){ 0.62, 0.70, 0.90, 0.8 };
	GdkRGBA sel = sel_rgba;

	PangoLayout *pl = gtk_widget_create_pango_layout(widget, NULL);
	pango_layout_set_ellipsize(pl, PANGO_ELLIPSIZE_END);

	if (!self->profile || self->lanes->len == 0) {
		set_rgba(cr, &fg, 0.6);
		draw_text(cr, pl, self->profile ? "No thread activity recorded yet"
						: "Open a session or connect to a board",
			  16, 16, 24, w - 32);
		g_object_unref(pl);
		return;
	}
	if (self->hist_dirty)
		fill_hist(self);

	/* axis: ticks at a round step, labelled in seconds from the start */
	double span_s = (double)(self->t_end - self->t_start) / 1e9;
	double step = pow(10, floor(log10(span_s > 0 ? span_s : 1)));
	if (span_s / step < 4)
		step /= 2;
	if (span_s / step < 4)
		step /= 2.5;
	set_rgba(cr, &fg, 0.15);
	cairo_rectangle(cr, 0, AXIS_H - 1, w, 1);
	cairo_fill(cr);
	for (double t = 0; t <= span_s + 1e-9 && step > 0; t += step) {
		double x = time_to_x(self, self->t_start + (guint64)(t * 1e9), w);
		set_rgba(cr, &fg, 0.12);
		cairo_rectangle(cr, x, AXIS_H, 1, h - AXIS_H);
		cairo_fill(cr);
		if (x + 44 > w)
			continue; /* its label would be cut at the edge */
		set_rgba(cr, &fg, 0.75);
		char buf[32];
		g_snprintf(buf, sizeof buf, step < 0.1 ? "%.2f s" : "%.1f s", t);
		draw_text(cr, pl, buf, x + 3, 0, AXIS_H, 80);
	}
	/* legend where the lanes' names are: the axis keeps its labels */
	set_rgba(cr, &on, 1);
	cairo_rectangle(cr, 8, 8, 12, 10);
	cairo_fill(cr);
	set_rgba(cr, &fg, 0.8);
	draw_text(cr, pl, "on CPU", 24, 0, AXIS_H, 70);
	set_rgba(cr, &off, 1);
	cairo_rectangle(cr, 100, 10, 12, 5);
	cairo_fill(cr);
	set_rgba(cr, &fg, 0.8);
	draw_text(cr, pl, "off CPU", 116, 0, AXIS_H, 100);

	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		char buf[300];
		if (l->is_process) {
			set_rgba(cr, &fg, 0.07);
			cairo_rectangle(cr, 0, l->y, w, PROC_H);
			cairo_fill(cr);
			g_snprintf(buf, sizeof buf, "%s  (pid %u)",
				   l->process && l->process->name ? l->process->name : "process",
				   l->pid);
			PangoFontDescription *bold = pango_font_description_new();
			pango_font_description_set_weight(bold, PANGO_WEIGHT_BOLD);
			pango_layout_set_font_description(pl, bold);
			set_rgba(cr, &fg, 0.95);
			draw_text(cr, pl, buf, 6, l->y, PROC_H, w - 12);
			pango_layout_set_font_description(pl, NULL);
			pango_font_description_free(bold);
			continue;
		}
		PlThread *t = l->thread;
		if (self->sel_tid == t->tid) {
			cairo_set_source_rgba(cr, sel.red, sel.green, sel.blue, 0.35);
			cairo_rectangle(cr, 0, l->y, w, LANE_H);
			cairo_fill(cr);
		}
		g_snprintf(buf, sizeof buf, "%s", t->name ? t->name : "?");
		set_rgba(cr, &fg, 0.9);
		draw_text(cr, pl, buf, 18, l->y, LANE_H, LABEL_W - 90);
		g_snprintf(buf, sizeof buf, "%u", t->tid);
		set_rgba(cr, &fg, 0.55);
		draw_text(cr, pl, buf, LABEL_W - 70, l->y, LANE_H, 62);
		double y0 = l->y + 3, lh = LANE_H - 6;
		if (l->hist) {
			/* no switch data: sample density as on-CPU evidence */
			double bw = (w - LABEL_W - 8) / BUCKETS;
			for (guint b = 0; b < BUCKETS; b++) {
				if (!l->hist[b])
					continue;
				double f = (double)l->hist[b] / (double)l->hist_max;
				set_rgba(cr, &on, 0.35 + 0.65 * f);
				cairo_rectangle(cr, LABEL_W + b * bw, y0, MAX(bw, 1), lh);
				cairo_fill(cr);
			}
		} else {
			draw_intervals(self, cr, t, w, y0, lh, &on, &off);
		}
		set_rgba(cr, &fg, 0.06);
		cairo_rectangle(cr, LABEL_W, l->y + LANE_H - 1, w - LABEL_W, 1);
		cairo_fill(cr);
	}

	draw_events(self, cr, w);
	PlTimelineScale sc = scale_of(self, w);
	pl_timeline_triggers_draw(self->profile, &sc, cr, pl, 0, AXIS_H, h);
	g_object_unref(pl);
}

static void pl_thread_timeline_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	PlThreadTimeline *self = PL_THREAD_TIMELINE(widget);
	int iw = gtk_widget_get_width(widget), ih = gtk_widget_get_height(widget);
	double w = iw, h = ih;
	if (iw <= 0 || ih <= 0)
		return;
	gboolean dark = pl_ui_is_dark(widget);
	if (!self->cache || self->cache_w != iw || self->cache_h != ih || self->cache_dark != dark) {
		g_clear_pointer(&self->cache, gsk_render_node_unref);
		GtkSnapshot *s = gtk_snapshot_new();
		cairo_t *cr = gtk_snapshot_append_cairo(s, &GRAPHENE_RECT_INIT(0, 0, w, h));
		draw_lanes(self, widget, cr, w, h);
		cairo_destroy(cr);
		self->cache = gtk_snapshot_free_to_node(s);
		self->cache_w = iw;
		self->cache_h = ih;
		self->cache_dark = dark;
	}
	if (self->cache)
		gtk_snapshot_append_node(snapshot, self->cache);
	if (!self->profile || self->lanes->len == 0)
		return;

	/* the selected range, or the one being dragged */
	GdkRGBA sel = sel_rgba;
	double sx0 = -1, sx1 = -1;
	if (self->dragging) {
		sx0 = MIN(self->drag_x0, self->drag_x1);
		sx1 = MAX(self->drag_x0, self->drag_x1);
	} else if (self->sel_t1 > self->sel_t0) {
		sx0 = time_to_x(self, self->sel_t0, w);
		sx1 = time_to_x(self, self->sel_t1, w);
	}
	if (sx1 > sx0) {
		sx0 = MAX(sx0, LABEL_W);
		gtk_snapshot_append_color(snapshot, &sel,
					  &GRAPHENE_RECT_INIT(sx0, AXIS_H, sx1 - sx0, h - AXIS_H));
		GdkRGBA edge = sel;
		edge.alpha = 0.9;
		gtk_snapshot_append_color(snapshot, &edge, &GRAPHENE_RECT_INIT(sx0, AXIS_H, 1, h - AXIS_H));
		gtk_snapshot_append_color(snapshot, &edge,
					  &GRAPHENE_RECT_INIT(sx1 - 1, AXIS_H, 1, h - AXIS_H));
	}
}

static void pl_thread_timeline_measure(GtkWidget *widget, GtkOrientation o, int for_size,
				       int *min, int *nat, int *min_base, int *nat_base)
{
	PlThreadTimeline *self = PL_THREAD_TIMELINE(widget);
	if (o == GTK_ORIENTATION_HORIZONTAL) {
		*min = (int)LABEL_W + 200;
		*nat = 1000;
		return;
	}
	double hgt = AXIS_H + 40;
	if (self->lanes->len) {
		Lane *l = &g_array_index(self->lanes, Lane, self->lanes->len - 1);
		hgt = l->y + LANE_H + 8;
	}
	*min = *nat = (int)hgt;
}

/* ─── input ──────────────────────────────────────────────────────────── */

static void on_drag_begin(GtkGestureDrag *g, double x, double y, PlThreadTimeline *self)
{
	self->drag_x0 = self->drag_x1 = x;
	self->dragging = x >= LABEL_W && self->profile != NULL;
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, PlThreadTimeline *self)
{
	if (!self->dragging)
		return;
	self->drag_x1 = self->drag_x0 + dx;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, PlThreadTimeline *self)
{
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	double start_x, start_y;
	gtk_gesture_drag_get_start_point(g, &start_x, &start_y);
	if (!self->dragging) {
		/* a click on a thread's name: filter by it (again: clear) */
		if (fabs(dx) < 3 && fabs(dy) < 3 && start_x < LABEL_W) {
			Lane *l = lane_at(self, start_y);
			if (l && !l->is_process) {
				guint32 tid = self->sel_tid == l->tid ? 0 : l->tid;
				g_signal_emit(self, signals[SIG_THREAD], 0, tid);
			}
		}
		return;
	}
	self->dragging = FALSE;
	if (fabs(dx) < 3) {
		pl_thread_timeline_click(self, start_x, start_y);
		return;
	}
	double a = MIN(self->drag_x0, self->drag_x0 + dx), b = MAX(self->drag_x0, self->drag_x0 + dx);
	guint64 t0 = x_to_time(self, a, w), t1 = x_to_time(self, b, w);
	g_signal_emit(self, signals[SIG_RANGE], 0, t0, t1 > t0 ? t1 : t0 + 1);
}

gboolean pl_thread_timeline_add_pair(PlThreadTimeline *self, const char *spec, GError **error)
{
	GRegex *b, *e;
	if (!pl_markers_parse_pair(spec, &b, &e, error))
		return FALSE;
	g_regex_unref(b);
	g_regex_unref(e);
	g_ptr_array_add(self->pairs, g_strdup(spec));
	if (self->markers) {
		g_clear_pointer(&self->markers, pl_markers_free);
		self->markers = markers_new(self->profile);
		add_pairs(self);
	}
	invalidate(self);
	return TRUE;
}

void pl_thread_timeline_clear_pairs(PlThreadTimeline *self)
{
	g_ptr_array_set_size(self->pairs, 0);
	if (self->markers) {
		g_clear_pointer(&self->markers, pl_markers_free);
		self->markers = markers_new(self->profile);
	}
	invalidate(self);
}

guint pl_thread_timeline_get_n_pair_intervals(PlThreadTimeline *self)
{
	guint n = 0;
	for (guint i = 0; self->markers && i < self->markers->intervals->len; i++) {
		const char *name = g_array_index(self->markers->intervals, PlMarkerInterval, i).name;
		for (guint k = 0; k < self->pairs->len; k++)
			if (!g_strcmp0(name, self->pairs->pdata[k])) {
				n++;
				break;
			}
	}
	return n;
}

void pl_thread_timeline_click(PlThreadTimeline *self, double x, double y)
{
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	const PlMarkerInterval *v = w > LABEL_W ? interval_at(self, x, y, w) : NULL;
	if (v)
		g_signal_emit(self, signals[SIG_RANGE], 0, v->start, v->end > v->start ? v->end : v->start + 1);
	else
		g_signal_emit(self, signals[SIG_RANGE], 0, (guint64)0, (guint64)0);
}

gboolean pl_thread_timeline_get_bar_center(PlThreadTimeline *self, guint32 tid, guint64 start,
					   guint64 end, guint depth, double *x, double *y)
{
	Lane *l = lane_of_tid(self, tid);
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	if (!l || w <= LABEL_W)
		return FALSE;
	*x = (time_to_x(self, start, w) + time_to_x(self, end, w)) / 2;
	*y = bar_y(l, depth) + BAR_H / 2;
	return TRUE;
}

/* The stack that created the thread (the agent samples the parent at
 * clone()), innermost first, or why there is none. */
#define CREATION_MAX_FRAMES 10
static void append_creation(GString *s, PlProfile *p, const PlThread *t)
{
	const char *why = NULL;
	guint32 stack = pl_profile_thread_creation_stack(p, t->tid, &why);
	if (stack == PL_NO_ID) {
		g_autofree char *w = g_markup_escape_text(why ? why : "", -1);
		if (why)
			g_string_append_printf(s, "\nCreated by: <span alpha='70%%'>not recorded: %s</span>",
					       w);
		else
			g_string_append(s, "\nCreated by: <span alpha='70%'>created before the session "
					   "started</span>");
		return;
	}
	g_autoptr(GArray) funcs = pl_profile_dup_stack_functions(p, stack, 0);
	g_string_append(s, "\nCreated by: ");
	for (guint i = 0; i < funcs->len && i < CREATION_MAX_FRAMES; i++) {
		g_autofree char *f = g_markup_escape_text(
			pl_function_names_label(p, g_array_index(funcs, guint32, i)), -1);
		g_string_append_printf(s, "%s%s", i ? " \u2190 " : "", f);
	}
	if (funcs->len > CREATION_MAX_FRAMES)
		g_string_append_printf(s, " \u2190 <span alpha='70%%'>%u more</span>",
				       funcs->len - CREATION_MAX_FRAMES);
	if (!funcs->len)
		g_string_append(s, "<span alpha='70%'>(no frames)</span>");
}

/* A thread's facts for the right-click popover, as Pango markup. */
static char *thread_details(PlThreadTimeline *self, PlThread *t)
{
	PlProfile *p = self->profile;
	guint64 t0 = self->t_start;
	/* first and last seen: fork/exit when recorded, else its switches and
	 * samples */
	guint64 first = t->start, last = t->exited ? t->end : 0;
	if (t->intervals->len) {
		const PlInterval *a = &g_array_index(t->intervals, PlInterval, 0);
		const PlInterval *b = &g_array_index(t->intervals, PlInterval, t->intervals->len - 1);
		if (!first || a->start < first)
			first = a->start;
		last = MAX(last, b->end);
	}
	guint n = 0;
	const PlSample *smp = pl_profile_get_samples(p, &n);
	guint32 ev = pl_profile_get_main_event(p);
	guint64 weight = 0, count = 0;
	for (guint i = 0; i < n; i++) {
		if (smp[i].tid != t->tid)
			continue;
		if (!first || smp[i].time < first)
			first = smp[i].time;
		last = MAX(last, smp[i].time);
		if ((ev == PL_NO_ID || pl_profile_get_stack_event(p, smp[i].stack) == ev) &&
		    kept(self, &smp[i])) {
			weight += smp[i].weight;
			count++;
		}
	}
	GString *s = g_string_new(NULL);
	g_autofree char *name = g_markup_escape_text(t->name ? t->name : "?", -1);
	g_string_append_printf(s, "<b>%s</b>   tid %u, pid %u%s\n", name, t->tid, t->pid,
			       t->tid == t->pid ? " (main thread)" : "");
	if (first && last >= first)
		g_string_append_printf(s, "Runtime: %.3f s  <span alpha='70%%'>(first to last seen, "
					  "+%.3f s to +%.3f s%s)</span>\n",
				       (last - first) / 1e9, first > t0 ? (first - t0) / 1e9 : 0,
				       last > t0 ? (last - t0) / 1e9 : 0,
				       t->exited ? ", exited" : "");
	if (t->on_cpu_ns || t->off_cpu_ns)
		g_string_append_printf(s, "On CPU: %.3f s   Off CPU: %.3f s  <span alpha='70%%'>"
					  "(context switches)</span>\n",
				       t->on_cpu_ns / 1e9, t->off_cpu_ns / 1e9);
	const PlEvent *e = ev != PL_NO_ID ? pl_profile_lookup_event(p, ev) : NULL;
	if (pl_window_weight_is_time(p))
		g_string_append_printf(s, "Sampled on CPU: %.3f s  <span alpha='70%%'>(%" G_GUINT64_FORMAT
					  " %s samples)</span>\n",
				       weight / 1e9, count, e && e->name ? e->name : "");
	else
		g_string_append_printf(s, "Samples: %" G_GUINT64_FORMAT " %s\n", count,
				       e && e->name ? e->name : "");
	if (t->ptid) {
		PlThread *c = pl_profile_lookup_thread(p, t->ptid);
		g_autofree char *cname = g_markup_escape_text(c && c->name ? c->name : "?", -1);
		g_string_append_printf(s, "Parent: %s (tid %u), forked at +%.3f s", cname, t->ptid,
				       t->start > t0 ? (t->start - t0) / 1e9 : 0);
	} else if (t->tid == t->pid) {
		PlProcess *pr = NULL;
		GPtrArray *procs = pl_profile_get_processes(p);
		for (guint i = 0; procs && i < procs->len; i++)
			if (((PlProcess *)procs->pdata[i])->pid == t->pid)
				pr = procs->pdata[i];
		if (pr && pr->ppid)
			g_string_append_printf(s, "Parent process: pid %u%s", pr->ppid,
					       pr->start ? "" : " (forked before the recording)");
		else
			g_string_append(s, "Parent: not recorded (started before the recording)");
	} else {
		g_string_append(s, "Parent: not recorded (created before the recording)");
	}
	append_creation(s, p, t);
	return g_string_free(s, FALSE);
}

static Lane *lane_of(PlThreadTimeline *self, guint32 tid)
{
	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		if (!l->is_process && l->tid == tid)
			return l;
	}
	return NULL;
}

static void popup_details(PlThreadTimeline *self, PlThread *t, double x, double y)
{
	g_autofree char *text = thread_details(self, t);
	GtkWidget *label = gtk_label_new(NULL);
	gtk_label_set_markup(GTK_LABEL(label), text);
	/* a deep creation stack wraps instead of making the popover screen-wide */
	gtk_label_set_wrap(GTK_LABEL(label), TRUE);
	gtk_label_set_max_width_chars(GTK_LABEL(label), 90);
	gtk_widget_set_margin_start(label, 4);
	gtk_widget_set_margin_end(label, 4);
	if (self->popover)
		gtk_widget_unparent(self->popover);
	self->popover = gtk_popover_new();
	gtk_popover_set_child(GTK_POPOVER(self->popover), label);
	gtk_widget_set_parent(self->popover, GTK_WIDGET(self));
	gtk_popover_set_pointing_to(GTK_POPOVER(self->popover),
				    &(GdkRectangle){ (int)x, (int)y, 1, 1 });
	gtk_popover_popup(GTK_POPOVER(self->popover));
}

static void on_right_click(GtkGestureClick *g, int n, double x, double y, PlThreadTimeline *self)
{
	Lane *l = lane_at(self, y);
	if (!l || l->is_process || !self->profile)
		return;
	popup_details(self, l->thread, x, y);
}

/* ─── public ─────────────────────────────────────────────────────────── */

GtkWidget *pl_thread_timeline_new(void)
{
	return g_object_new(PL_TYPE_THREAD_TIMELINE, NULL);
}

void pl_thread_timeline_set_profile(PlThreadTimeline *self, PlProfile *profile)
{
	self->profile = profile;
	self->agg = NULL; /* the window hands the new one over next */
	build_lanes(self);
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	gtk_widget_queue_resize(GTK_WIDGET(self));
}

void pl_thread_timeline_set_aggregate(PlThreadTimeline *self, const PlAggregate *agg)
{
	self->agg = agg && agg->profile == self->profile ? agg : NULL;
	self->hist_dirty = TRUE;
	invalidate(self);
}

void pl_thread_timeline_set_filter(PlThreadTimeline *self, guint32 tid, guint64 t0, guint64 t1)
{
	if (tid != self->sel_tid)
		g_clear_pointer(&self->cache, gsk_render_node_unref); /* the lane's highlight */
	self->sel_tid = tid;
	self->sel_t0 = t0;
	self->sel_t1 = t1;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

guint pl_thread_timeline_get_n_lanes(PlThreadTimeline *self)
{
	return self->lanes->len;
}

char *pl_thread_timeline_dup_thread_details(PlThreadTimeline *self, guint32 tid)
{
	Lane *l = self->profile ? lane_of(self, tid) : NULL;
	if (!l)
		return NULL;
	g_autofree char *markup = thread_details(self, l->thread);
	char *text = NULL;
	if (!pango_parse_markup(markup, -1, 0, NULL, &text, NULL, NULL))
		return NULL;
	return text;
}

GtkWidget *pl_thread_timeline_show_thread_details(PlThreadTimeline *self, guint32 tid)
{
	Lane *l = self->profile ? lane_of(self, tid) : NULL;
	if (!l)
		return NULL;
	popup_details(self, l->thread, LABEL_W / 2, l->y + LANE_H / 2);
	return self->popover;
}

char *pl_thread_timeline_dup_lane_label(PlThreadTimeline *self, guint i)
{
	if (i >= self->lanes->len)
		return NULL;
	Lane *l = &g_array_index(self->lanes, Lane, i);
	if (l->is_process)
		return g_strdup_printf("%s (pid %u)",
				       l->process && l->process->name ? l->process->name : "?",
				       l->pid);
	return g_strdup_printf("%s %u", l->thread->name ? l->thread->name : "?", l->tid);
}

static void pl_thread_timeline_dispose(GObject *obj)
{
	PlThreadTimeline *self = PL_THREAD_TIMELINE(obj);
	g_clear_pointer(&self->popover, gtk_widget_unparent);
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	if (self->lanes) {
		lanes_clear(self);
		g_clear_pointer(&self->lanes, g_array_unref);
	}
	g_clear_pointer(&self->markers, pl_markers_free);
	g_clear_pointer(&self->lane_of_tid, g_hash_table_unref);
	g_clear_pointer(&self->pairs, g_ptr_array_unref);
	G_OBJECT_CLASS(pl_thread_timeline_parent_class)->dispose(obj);
}

static void pl_thread_timeline_size_allocate(GtkWidget *widget, int w, int h, int baseline)
{
	PlThreadTimeline *self = PL_THREAD_TIMELINE(widget);
	if (self->popover)
		gtk_popover_present(GTK_POPOVER(self->popover));
	if (w != self->cache_w || h != self->cache_h)
		g_clear_pointer(&self->cache, gsk_render_node_unref);
}

static void pl_thread_timeline_class_init(PlThreadTimelineClass *klass)
{
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	G_OBJECT_CLASS(klass)->dispose = pl_thread_timeline_dispose;
	wc->snapshot = pl_thread_timeline_snapshot;
	wc->measure = pl_thread_timeline_measure;
	wc->size_allocate = pl_thread_timeline_size_allocate;
	signals[SIG_RANGE] = g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass),
					  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
					  G_TYPE_UINT64, G_TYPE_UINT64);
	signals[SIG_THREAD] = g_signal_new("thread-selected", G_TYPE_FROM_CLASS(klass),
					   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
					   G_TYPE_UINT);
	gtk_widget_class_set_css_name(wc, "threadtimeline");
}

static void pl_thread_timeline_init(PlThreadTimeline *self)
{
	self->lanes = g_array_new(FALSE, FALSE, sizeof(Lane));
	self->lane_of_tid = g_hash_table_new(NULL, NULL);
	self->pairs = g_ptr_array_new_with_free_func(g_free);
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	g_signal_connect(self, "query-tooltip", G_CALLBACK(on_query_tooltip), self);
	GtkGesture *drag = gtk_gesture_drag_new();
	g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
	g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
	g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));
	GtkGesture *rc = gtk_gesture_click_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(rc), GDK_BUTTON_SECONDARY);
	g_signal_connect(rc, "pressed", G_CALLBACK(on_right_click), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(rc));
	gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlThreadTimeline *self)
{
	pl_thread_timeline_set_profile(self, pl_profile_session_get_profile(s));
}

static void on_session_updated(PlProfileSession *s, PlThreadTimeline *self)
{
	on_session_profile(s, NULL, self);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlThreadTimeline *self)
{
	PlFilter f = pl_profile_session_get_filter(s);
	pl_thread_timeline_set_aggregate(self, pl_profile_session_get_aggregate(s));
	pl_thread_timeline_set_filter(self, f.tid, f.t0, f.t1);
}

void pl_thread_timeline_set_session(PlThreadTimeline *self, PlProfileSession *session)
{
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
