/* pl-thread-timeline.c — thread lanes (see the header): the widget, its
 * lanes and their layout, input, the public calls.  The drawing, the
 * events on the lanes and a thread's details are in the files
 * pl-thread-timeline-private.h lists. */
#include "pl-thread-timeline-private.h"

#include <math.h>
#include <string.h>

#include "pl-ui-timing.h"
#include "pl-ui-util.h"

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

static void emit_range(PlThreadTimeline *self, guint64 t0, guint64 t1)
{
	g_signal_emit(self, signals[SIG_RANGE], 0, t0, t1);
}

/* The rows' heights from the top: the axis, the interrupt lanes, then
 * each process's header and its threads. */
static void layout_lanes(PlThreadTimeline *self)
{
	double y = AXIS_H;
	if (self->irq)
		y = pl_timeline_irq_layout(self->irq, y, PROC_H, LANE_H);
	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		l->y = y;
		y += l->is_process ? PROC_H : LANE_H;
	}
}

/* The interrupt lanes of the profile, expanded or collapsed as the user
 * last chose for it (a live recording's profile is read again as it
 * grows: the choice stays). */
static void build_irq(PlThreadTimeline *self)
{
	g_clear_pointer(&self->irq, pl_timeline_irq_free);
	if (self->profile != self->irq_profile) {
		self->irq_profile = self->profile;
		self->irq_open = -1;
	}
	self->irq = pl_timeline_irq_new(self->profile);
	if (self->irq && self->irq_open >= 0)
		pl_timeline_irq_set_expanded(self->irq, self->irq_open);
}

static void build_lanes(PlThreadTimeline *self)
{
	lanes_clear(self);
	g_clear_pointer(&self->markers, pl_markers_free);
	g_hash_table_remove_all(self->lane_of_tid);
	self->t_start = self->t_end = 0;
	build_irq(self);
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
	guint32 pid = G_MAXUINT32;
	for (guint i = 0; i < sorted->len; i++) {
		PlThread *t = sorted->pdata[i];
		if (t->pid != pid) {
			pid = t->pid;
			Lane pl = { TRUE, pid, 0, NULL, NULL, 0, NULL, 0 };
			for (guint k = 0; k < procs->len; k++)
				if (((PlProcess *)procs->pdata[k])->pid == pid)
					pl.process = procs->pdata[k];
			g_array_append_val(self->lanes, pl);
		}
		Lane l = { FALSE, t->pid, t->tid, t, NULL, 0, NULL, 0 };
		if (!t->intervals || t->intervals->len == 0)
			l.hist = g_new0(guint32, BUCKETS);
		g_array_append_val(self->lanes, l);
		g_hash_table_insert(self->lane_of_tid, GUINT_TO_POINTER(t->tid),
				    GUINT_TO_POINTER(self->lanes->len));
	}
	layout_lanes(self);
	pl_thread_timeline_rebuild_markers(self);
	self->hist_dirty = TRUE; /* the aggregate that says which samples count comes next */
}

/* What the pointer at (x, y) shows: a trigger's line, an interrupt run,
 * an event or interval on a thread's lane; NULL when nothing. */
static char *tooltip_at(PlThreadTimeline *self, double x, double y)
{
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	if (!self->profile || x < LABEL_W)
		return NULL;
	/* a flight recorder's trigger: its line crosses every lane */
	PlTimelineScale sc = pl_thread_timeline_scale_of(self, w);
	char *trigger = pl_timeline_triggers_dup_at(self->profile, &sc, x, TICK_SLACK_PX);
	if (trigger)
		return trigger;
	if (self->irq && pl_timeline_irq_row_at(self->irq, y) >= 0) {
		const PlIrqSpan *sp = pl_timeline_irq_span_at(self->irq, &sc, x, y, TICK_SLACK_PX);
		return sp ? pl_timeline_irq_dup_text(self->irq, sp, self->t_start) : NULL;
	}
	Lane *l = pl_thread_timeline_lane_at(self, y);
	if (!l || l->is_process)
		return NULL;
	guint64 t = pl_thread_timeline_x_to_time(self, x, w);
	guint64 slack =
		pl_thread_timeline_x_to_time(self, LABEL_W + TICK_SLACK_PX, w) - self->t_start;
	return pl_thread_timeline_dup_event_at(self, l->tid, t, slack);
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
				 GtkTooltip *tip, PlThreadTimeline *self)
{
	g_autofree char *text = keyboard ? NULL : tooltip_at(self, x, y);
	if (!text)
		return FALSE;
	gtk_tooltip_set_text(tip, text);
	return TRUE;
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
		/* a click on the interrupts' header: expand or collapse them */
		if (fabs(dx) < 3 && fabs(dy) < 3 && start_x < LABEL_W && self->irq &&
		    pl_timeline_irq_row_at(self->irq, start_y) == 0) {
			pl_thread_timeline_set_irq_expanded(
				self, !pl_timeline_irq_get_expanded(self->irq));
			return;
		}
		/* a click on a thread's name: filter by it (again: clear) */
		if (fabs(dx) < 3 && fabs(dy) < 3 && start_x < LABEL_W) {
			Lane *l = pl_thread_timeline_lane_at(self, start_y);
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
	double a = MIN(self->drag_x0, self->drag_x0 + dx),
	       b = MAX(self->drag_x0, self->drag_x0 + dx);
	guint64 t0 = pl_thread_timeline_x_to_time(self, a, w),
		t1 = pl_thread_timeline_x_to_time(self, b, w);
	emit_range(self, t0, t1 > t0 ? t1 : t0 + 1);
}

void pl_thread_timeline_click(PlThreadTimeline *self, double x, double y)
{
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	PlTimelineScale sc = pl_thread_timeline_scale_of(self, w);
	const PlIrqSpan *sp = self->irq && w > LABEL_W
				      ? pl_timeline_irq_span_at(self->irq, &sc, x, y, TICK_SLACK_PX)
				      : NULL;
	if (sp) {
		emit_range(self, sp->start,
					      sp->end > sp->start ? sp->end : sp->start + 1);
		return;
	}
	const PlMarkerInterval *v =
		w > LABEL_W ? pl_thread_timeline_interval_at(self, x, y, w) : NULL;
	if (v)
		emit_range(self, v->start,
					      v->end > v->start ? v->end : v->start + 1);
	else
		emit_range(self, 0, 0);
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
	pl_thread_timeline_invalidate(self);
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

const PlTimelineIrq *pl_thread_timeline_get_irq(PlThreadTimeline *self)
{
	return self->irq;
}

void pl_thread_timeline_set_irq_expanded(PlThreadTimeline *self, gboolean expanded)
{
	if (!self->irq)
		return;
	self->irq_open = expanded;
	pl_timeline_irq_set_expanded(self->irq, expanded);
	layout_lanes(self);
	pl_thread_timeline_invalidate(self);
	gtk_widget_queue_resize(GTK_WIDGET(self));
}

gboolean pl_thread_timeline_get_irq_center(PlThreadTimeline *self, const PlIrqSpan *sp,
					   double *x, double *y)
{
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	if (!self->irq || w <= LABEL_W)
		return FALSE;
	PlTimelineScale sc = pl_thread_timeline_scale_of(self, w);
	pl_timeline_irq_get_center(self->irq, &sc, sp, x, y);
	return TRUE;
}

char *pl_thread_timeline_dup_tooltip_at(PlThreadTimeline *self, double x, double y)
{
	return tooltip_at(self, x, y);
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
	g_clear_pointer(&self->irq, pl_timeline_irq_free);
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
	g_signal_connect(rc, "pressed", G_CALLBACK(pl_thread_timeline_on_right_click), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(rc));
	gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
	pl_ui_timing_watch_view(GTK_WIDGET(self), "timeline");
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
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self,
				0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate),
				self, 0);
}
