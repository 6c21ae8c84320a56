/* pl-thread-timeline-lanes.c — where things are on the thread timeline
 * (time ↔ x, the lane at y or of a thread) and the sample density of the
 * lanes without switch intervals; what the timeline's other files share
 * (pl-thread-timeline-private.h). */
#include "pl-thread-timeline-private.h"

#include <string.h>

/* What the lanes show changed: drawn again at the next frame. */
void pl_thread_timeline_invalidate(PlThreadTimeline *self)
{
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* ─── the lanes' contents ───────────────────────────────────────────── */

Lane *pl_thread_timeline_lane_of_tid(PlThreadTimeline *self, guint32 tid)
{
	guint i = GPOINTER_TO_UINT(g_hash_table_lookup(self->lane_of_tid, GUINT_TO_POINTER(tid)));
	return i ? &g_array_index(self->lanes, Lane, i - 1) : NULL;
}

gboolean pl_thread_timeline_kept(PlThreadTimeline *self, const PlSample *s)
{
	const PlAggregate *a = self->agg;
	if (!a || !a->node_map)
		return TRUE;
	guint32 n = pl_profile_get_stack_node(self->profile, s->stack);
	return n < a->n_nodes && a->node_map[n] != PL_NO_ID;
}

void pl_thread_timeline_fill_hist(PlThreadTimeline *self)
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
	/* every lane draws its switches (a session with them): no sample to
	 * walk (10 M of them took a thread pick ~30 ms more) */
	if (!g_hash_table_size(index))
		return;
	guint n;
	const PlSample *s = pl_profile_get_samples(self->profile, &n);
	const PlSampleCtx *s_cx = pl_profile_get_sample_ctx(self->profile);
	double span = (double)(self->t_end - self->t_start);
	/* samples come in runs of one thread, or of two taking turns on two
	 * CPUs: one lookup a run, the two last threads' lanes kept */
	guint32 last_tid = 0, prev_tid = 0;
	guint li = 0, prev_li = 0;
	gboolean have_prev = FALSE; /* prev_tid is a thread seen */
	for (guint i = 0; i < n; i++) {
		guint32 tid = pl_sample_tid(s_cx, &s[i]);
		if (i == 0 || tid != last_tid) {
			guint32 t = last_tid;
			guint tl = li;
			if (have_prev && tid == prev_tid)
				li = prev_li;
			else
				li = GPOINTER_TO_UINT(
					g_hash_table_lookup(index, GUINT_TO_POINTER(tid)));
			if (i > 0) {
				prev_tid = t;
				prev_li = tl;
				have_prev = TRUE;
			}
			last_tid = tid;
		}
		if (!li)
			continue;
		Lane *l = &g_array_index(self->lanes, Lane, li - 1);
		if (!l->hist || s[i].time < self->t_start || !pl_thread_timeline_kept(self, &s[i]))
			continue;
		guint b = (guint)((double)(s[i].time - self->t_start) / span * (BUCKETS - 1));
		if (b < BUCKETS && ++l->hist[b] > l->hist_max)
			l->hist_max = l->hist[b];
	}
}

/* ─── geometry ───────────────────────────────────────────────────────── */

double pl_thread_timeline_time_to_x(PlThreadTimeline *self, guint64 t, double w)
{
	double span = (double)(self->t_end - self->t_start);
	if (t < self->t_start)
		t = self->t_start;
	return LABEL_W + (double)(t - self->t_start) / span * (w - LABEL_W - 8);
}

guint64 pl_thread_timeline_x_to_time(PlThreadTimeline *self, double x, double w)
{
	double f = (x - LABEL_W) / (w - LABEL_W - 8);
	f = CLAMP(f, 0, 1);
	return self->t_start + (guint64)(f * (double)(self->t_end - self->t_start));
}

PlTimelineScale pl_thread_timeline_scale_of(PlThreadTimeline *self, double w)
{
	return (PlTimelineScale){ self->t_start, self->t_end, LABEL_W, w - 8 };
}

Lane *pl_thread_timeline_lane_at(PlThreadTimeline *self, double y)
{
	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		double h = l->is_process ? PROC_H : LANE_H;
		if (y >= l->y && y < l->y + h)
			return l;
	}
	return NULL;
}
