/* pl-thread-timeline-events.c — what happened on a thread, on its lane:
 * markers and tracepoint hits as ticks, begin/end intervals as bars (slow
 * system calls, lock waits, the pairs the user chose), their hover text,
 * and the interval a click selects (pl-thread-timeline-private.h). */
#include "pl-thread-timeline-private.h"

#include <math.h>

#include "pl-locks.h"
#include "pl-syscalls.h"
#include "pl-tracepoint.h"

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

void pl_thread_timeline_rebuild_markers(PlThreadTimeline *self)
{
	g_clear_pointer(&self->markers, pl_markers_free);
	if (!self->profile)
		return;
	self->markers = markers_new(self->profile);
	add_pairs(self);
}

/* ─── markers and tracepoints ─────────────────────────────────────────── */

static const GdkRGBA marker_rgba = { 0.95, 0.50, 0.05, 1 };
static const GdkRGBA trace_rgba = { 0.05, 0.60, 0.70, 1 };
static const GdkRGBA bar_rgba = { 0.60, 0.30, 0.85, 0.85 };
static const GdkRGBA slow_call_rgba = { 0.85, 0.10, 0.10, 0.9 }; /* a thread blocked */
static const GdkRGBA lock_wait_rgba = { 0.55, 0.20, 0.75, 0.9 }; /* waiting for a lock */

/* The top of an interval's bar: along the lane's bottom, one row up per
 * nesting level (four at most). */
static double bar_y(const Lane *l, guint depth)
{
	return l->y + LANE_H - 4 - 3.0 * MIN(depth, 4);
}

/* The interval whose bar is under (x, y): on that lane, within a few
 * pixels of its ends (a 1 ms interval is a sliver), the bar row nearest y,
 * the innermost on a tie; NULL when none. */
const PlMarkerInterval *pl_thread_timeline_interval_at(PlThreadTimeline *self, double x, double y,
						       double w)
{
	Lane *l = pl_thread_timeline_lane_at(self, y);
	if (!l || l->is_process || !self->markers)
		return NULL;
	const PlMarkerInterval *best = NULL;
	double best_d = 0;
	for (guint i = 0; i < self->markers->intervals->len; i++) {
		const PlMarkerInterval *v =
			&g_array_index(self->markers->intervals, PlMarkerInterval, i);
		if (v->tid != l->tid)
			continue;
		double x0 = pl_thread_timeline_time_to_x(self, v->start, w),
		       x1 = MAX(pl_thread_timeline_time_to_x(self, v->end, w), x0 + 1);
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
void pl_thread_timeline_draw_events(PlThreadTimeline *self, cairo_t *cr, double w)
{
	self->n_ticks = self->n_bars = 0;
	if (!self->profile)
		return;
	for (guint i = 0; self->markers && i < self->markers->intervals->len; i++) {
		const PlMarkerInterval *v =
			&g_array_index(self->markers->intervals, PlMarkerInterval, i);
		Lane *l = pl_thread_timeline_lane_of_tid(self, v->tid);
		if (!l)
			continue;
		double x0 = pl_thread_timeline_time_to_x(self, v->start, w),
		       x1 = pl_thread_timeline_time_to_x(self, v->end, w);
		double y = bar_y(l, v->depth);
		const GdkRGBA *c = g_str_has_suffix(v->name, PL_SLOW_CALL_SUFFIX) ? &slow_call_rgba
				   : g_str_has_suffix(v->name, PL_LOCK_WAIT_SUFFIX)
					   ? &lock_wait_rgba
					   : &bar_rgba;
		pl_timeline_set_rgba(cr, c, c->alpha);
		cairo_rectangle(cr, x0, y, MAX(x1 - x0, 1), BAR_H);
		cairo_fill(cr);
		self->n_bars++;
	}
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(self->profile, &n);
	for (guint i = 0; i < n; i++) {
		Lane *l = pl_thread_timeline_lane_of_tid(self, ev[i].tid);
		if (!l || is_bar_event(self->profile, &ev[i]))
			continue;
		double x = pl_thread_timeline_time_to_x(self, ev[i].time, w);
		pl_timeline_set_rgba(cr, ev[i].marker ? &marker_rgba : &trace_rgba, 1);
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
	g_autofree char *fields =
		f ? pl_trace_format_dup_fields(f, raw, e->raw_len,
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
	pl_thread_timeline_invalidate(self);
	return TRUE;
}

void pl_thread_timeline_clear_pairs(PlThreadTimeline *self)
{
	g_ptr_array_set_size(self->pairs, 0);
	if (self->markers) {
		g_clear_pointer(&self->markers, pl_markers_free);
		self->markers = markers_new(self->profile);
	}
	pl_thread_timeline_invalidate(self);
}

guint pl_thread_timeline_get_n_pair_intervals(PlThreadTimeline *self)
{
	guint n = 0;
	for (guint i = 0; self->markers && i < self->markers->intervals->len; i++) {
		const char *name =
			g_array_index(self->markers->intervals, PlMarkerInterval, i).name;
		for (guint k = 0; k < self->pairs->len; k++)
			if (!g_strcmp0(name, self->pairs->pdata[k])) {
				n++;
				break;
			}
	}
	return n;
}

gboolean pl_thread_timeline_get_bar_center(PlThreadTimeline *self, guint32 tid, guint64 start,
					   guint64 end, guint depth, double *x, double *y)
{
	Lane *l = pl_thread_timeline_lane_of_tid(self, tid);
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	if (!l || w <= LABEL_W)
		return FALSE;
	*x = (pl_thread_timeline_time_to_x(self, start, w) +
	      pl_thread_timeline_time_to_x(self, end, w)) /
	     2;
	*y = bar_y(l, depth) + BAR_H / 2;
	return TRUE;
}
