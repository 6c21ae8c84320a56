/* pl-counters-view.c — counters and health (see the header). */
#include "pl-counters-view.h"
#include "pl-chart.h"
#include "pl-lazy-page.h"
#include "pl-ui-util.h"

#include <math.h>
#include <string.h>

#define CHART_H 70.0
#define NAME_W 230.0 /* as the timeline's label column: the time axes line up */
#define PAD 8.0
#define AXIS_H 16.0  /* time labels under each chart */
#define VAXIS_W 66.0 /* the scale top left of each chart */

/* Series are rates: (seconds from the start, value per second). */
typedef PlChartSeries Series;

struct _PlCountersView {
	GtkWidget parent_instance;
	PlProfileSession *session; /* weak: followed, read when shown */
	GtkWidget *box;
	GtkWidget *area;
	GtkLabel *stats;
	GPtrArray *series; /* Series* */
	double span_s;
};

G_DEFINE_FINAL_TYPE(PlCountersView, pl_counters_view, GTK_TYPE_WIDGET)

/* Scaled count at a reading: perf's estimate when the event was
 * multiplexed (ran only part of the time it was enabled). */
static double scaled(const PlCounterPoint *p)
{
	if (p->running_ns && p->enabled_ns > p->running_ns)
		return (double)p->value * (double)p->enabled_ns / (double)p->running_ns;
	return (double)p->value;
}

static Series *rate_series(PlProfile *p, guint32 ev, guint64 t0)
{
	GArray *pts = pl_profile_get_counter(p, ev);
	const PlEvent *e = pl_profile_lookup_event(p, ev);
	Series *s = pl_chart_series_new(e && e->name ? e->name : "?");
	for (guint i = 1; pts && i < pts->len; i++) {
		const PlCounterPoint *a = &g_array_index(pts, PlCounterPoint, i - 1);
		const PlCounterPoint *b = &g_array_index(pts, PlCounterPoint, i);
		if (b->time <= a->time)
			continue;
		double dv = scaled(b) - scaled(a);
		double dt = (double)(b->time - a->time) / 1e9;
		pl_chart_series_add(s, (double)(b->time > t0 ? b->time - t0 : 0) / 1e9, dv > 0 ? dv / dt : 0);
	}
	return s;
}

/* Context switches per second from the switch records themselves: every
 * session with off-CPU data has them, counted events or not. */
static Series *switch_series(PlProfile *p, guint64 t0, double span_s)
{
	guint32 ev = PL_NO_ID;
	GPtrArray *evs = pl_profile_get_events(p);
	for (guint i = 0; evs && i < evs->len; i++) {
		const PlEvent *e = evs->pdata[i];
		if (e->role == PL_ROLE_SWITCH && e->samples)
			ev = e->index;
	}
	if (ev == PL_NO_ID || span_s <= 0)
		return NULL;
	/* a bin a second, finer for short recordings */
	double bw = span_s >= 20 ? 1.0 : span_s >= 4 ? 0.25 : 0.1;
	guint nb = (guint)ceil(span_s / bw);
	if (nb == 0 || nb > 1000000)
		return NULL;
	g_autofree double *bins = g_new0(double, nb);
	guint n = 0;
	const PlSample *smp = pl_profile_get_samples(p, &n);
	for (guint i = 0; i < n; i++) {
		if (pl_profile_get_stack_event(p, smp[i].stack) != ev)
			continue;
		double t = smp[i].time > t0 ? (double)(smp[i].time - t0) / 1e9 : 0;
		bins[MIN((guint)(t / bw), nb - 1)] += 1;
	}
	Series *s = pl_chart_series_new("context switches");
	for (guint b = 0; b < nb; b++) {
		/* a trailing bin cut short by the end would read as a drop */
		double w = MIN(bw, span_s - b * bw);
		if (w < bw / 2 && b > 0)
			break;
		pl_chart_series_add(s, b * bw + w, bins[b] / w);
	}
	return s;
}

/* a / b per reading, for IPC and miss rates */
static Series *ratio_series(const char *name, Series *a, Series *b, double scale)
{
	Series *s = pl_chart_series_new(name);
	guint n = MIN(a->pts->len, b->pts->len);
	for (guint i = 0; i < n; i++) {
		const double *pa = pl_chart_series_point(a, i);
		const double *pb = pl_chart_series_point(b, i);
		pl_chart_series_add(s, pa[0], pb[1] > 0 ? scale * pa[1] / pb[1] : 0);
	}
	return s;
}

static Series *find_series(PlCountersView *self, const char *name)
{
	for (guint i = 0; i < self->series->len; i++)
		if (!strcmp(((Series *)self->series->pdata[i])->name, name))
			return self->series->pdata[i];
	return NULL;
}

/* Clocks count ns per second: that is CPUs busy.  Others: per second. */
static char *format_rate(const char *name, double v)
{
	if (strstr(name, "clock"))
		return g_strdup_printf("%.2f CPUs", v / 1e9);
	if (v >= 1e9)
		return g_strdup_printf("%.2f G/s", v / 1e9);
	if (v >= 1e6)
		return g_strdup_printf("%.2f M/s", v / 1e6);
	if (v >= 1e4)
		return g_strdup_printf("%.1f k/s", v / 1e3);
	return g_strdup_printf("%.0f/s", v);
}

static void draw_charts(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
	PlCountersView *self = data;
	PlChartStyle st;
	pl_chart_style_init(&st, GTK_WIDGET(area));
	const GdkRGBA *fg = &st.fg;
	if (self->series->len == 0) {
		cairo_set_source_rgba(cr, fg->red, fg->green, fg->blue, 0.6);
		pl_ui_show_text(cr, st.text, "No counters in this session (record with counters on)",
				PAD, PAD, 0);
		pl_chart_style_clear(&st);
		return;
	}
	double x0 = NAME_W + VAXIS_W, cw = w - x0 - PAD;
	for (guint i = 0; i < self->series->len && cw > 40; i++) {
		Series *s = self->series->pdata[i];
		double y = PAD + i * (CHART_H + AXIS_H + PAD);
		char buf[160];
		gboolean ratio = strchr(s->name, '/') != NULL || !strcmp(s->name, "IPC");
		g_autofree char *last = format_rate(s->name, s->last);
		g_autofree char *max = format_rate(s->name, s->max);
		if (ratio)
			g_snprintf(buf, sizeof buf, "%s\nlast %.3g   peak %.3g", s->name, s->last, s->max);
		else
			g_snprintf(buf, sizeof buf, "%s\nlast %s   peak %s", s->name, last, max);
		cairo_set_source_rgba(cr, fg->red, fg->green, fg->blue, 0.9);
		pl_ui_show_text(cr, st.text, buf, PAD, y, 0);
		g_autofree char *top = ratio ? g_strdup_printf("%.3g", s->max) : g_strdup(max);
		/* the scale is the peak, a little below the chart's top */
		PlChartArea a = { .x = x0, .y = y, .w = cw, .h = CHART_H, .span_s = self->span_s,
				  .top = s->max, .headroom = 4, .top_label = s->max > 0 ? top : "" };
		pl_chart_draw(cr, &st, &a, s);
	}
	pl_chart_style_clear(&st);
}

void pl_counters_view_set_profile(PlCountersView *self, PlProfile *p)
{
	g_ptr_array_set_size(self->series, 0);
	self->span_s = 0;
	if (!p) {
		gtk_label_set_text(self->stats, "");
		gtk_widget_queue_draw(self->area);
		return;
	}
	const PlProfileStats *st = pl_profile_get_stats(p);
	guint64 t0 = st->first_time;
	self->span_s = st->last_time > t0 ? (double)(st->last_time - t0) / 1e9 : 0;
	g_autoptr(GArray) evs = pl_profile_dup_counter_events(p);
	for (guint i = 0; evs && i < evs->len; i++)
		g_ptr_array_add(self->series, rate_series(p, g_array_index(evs, guint32, i), t0));
	Series *ins = find_series(self, "instructions"), *cyc = find_series(self, "cycles");
	Series *cm = find_series(self, "cache-misses"), *cr = find_series(self, "cache-references");
	Series *bm = find_series(self, "branch-misses"), *bi = find_series(self, "branch-instructions");
	/* derived series only when the board really counted them */
	if (ins && cyc && cyc->max > 0)
		g_ptr_array_add(self->series, ratio_series("IPC", ins, cyc, 1));
	if (cm && cr && cr->max > 0)
		g_ptr_array_add(self->series, ratio_series("cache misses / reference", cm, cr, 1));
	if (bm && bi && bi->max > 0)
		g_ptr_array_add(self->series, ratio_series("branch misses / branch", bm, bi, 1));
	/* hardware events that never counted are noise on boards without a PMU */
	for (guint i = 0; i < self->series->len; i++) {
		Series *s = self->series->pdata[i];
		if (s->max <= 0 && s->pts->len > 0)
			g_ptr_array_remove_index(self->series, i--);
	}
	/* switches over time from the records when no counter shows them */
	if (!find_series(self, "context-switches") && !find_series(self, "cs")) {
		Series *sw = switch_series(p, t0, self->span_s);
		if (sw)
			g_ptr_array_add(self->series, sw);
	}
	gtk_widget_set_size_request(self->area, -1,
				    (int)(PAD + self->series->len * (CHART_H + AXIS_H + PAD)));

	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "<b>Session</b>  %s %s, %u Hz, %.2f s\n",
			       st->hostname ? st->hostname : "?", st->machine ? st->machine : "",
			       st->frequency, self->span_s);
	g_string_append_printf(s, "Samples %" G_GUINT64_FORMAT " (no stack %" G_GUINT64_FORMAT
				  ", DWARF %" G_GUINT64_FORMAT ", truncated %" G_GUINT64_FORMAT
				  ")   Context switches %" G_GUINT64_FORMAT "\n",
			       st->samples, st->samples_no_stack, st->dwarf_samples,
			       st->dwarf_truncated, st->switches);
	guint64 lost = 0;
	for (guint i = 0; i < 5; i++)
		lost += st->lost[i];
	g_string_append_printf(s,
			       "Lost %" G_GUINT64_FORMAT " (kernel ring %" G_GUINT64_FORMAT
			       ", network backpressure %" G_GUINT64_FORMAT ")   Throttled %" G_GUINT64_FORMAT,
			       lost, st->lost[1], st->lost[3], st->throttled);
	if (st->have_health) {
		const struct pl_msg_health *h = &st->health;
		g_string_append_printf(
			s,
			"\n<b>Board</b>  CPU busy %.1f%%, load %.2f, memory available %.0f of %.0f MB"
			"\n<b>Agent</b>  CPU %.2f s, RSS %.1f MB, sent %.1f MB (%.1f MB before compression)",
			h->cpu_busy_permille / 10.0, h->load1_x100 / 100.0,
			h->mem_available_kb / 1024.0, h->mem_total_kb / 1024.0, h->agent_cpu_ns / 1e9,
			h->agent_rss_kb / 1024.0, h->bytes_sent / 1048576.0, h->bytes_raw / 1048576.0);
	}
	g_autofree char *text = g_string_free(s, FALSE);
	gtk_label_set_markup(self->stats, text);
	gtk_widget_queue_draw(self->area);
}

guint pl_counters_view_get_n_series(PlCountersView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->series->len;
}

const char *pl_counters_view_get_series_name(PlCountersView *self, guint i)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return i < self->series->len ? ((Series *)self->series->pdata[i])->name : NULL;
}

GtkWidget *pl_counters_view_new(void)
{
	return g_object_new(PL_TYPE_COUNTERS_VIEW, NULL);
}

static void pl_counters_view_dispose(GObject *obj)
{
	PlCountersView *self = PL_COUNTERS_VIEW(obj);
	if (self->session)
		g_object_remove_weak_pointer(G_OBJECT(self->session), (gpointer *)&self->session);
	self->session = NULL;
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_COUNTERS_VIEW);
	g_clear_pointer(&self->series, g_ptr_array_unref);
	G_OBJECT_CLASS(pl_counters_view_parent_class)->dispose(obj);
}

static void pl_counters_view_class_init(PlCountersViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_counters_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-counters-view.ui");
	gtk_widget_class_bind_template_child(wc, PlCountersView, box);
	gtk_widget_class_bind_template_child(wc, PlCountersView, stats);
	gtk_widget_class_bind_template_child(wc, PlCountersView, area);
}

static void pl_counters_view_init(PlCountersView *self)
{
	self->series = g_ptr_array_new_with_free_func(pl_chart_series_free);
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->area), draw_charts, self, NULL);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

/* every sample or record is read: only while the page is shown */
static void update_from_session(GtkWidget *w)
{
	PlCountersView *self = PL_COUNTERS_VIEW(w);
	if (self->session)
		pl_counters_view_set_profile(self, pl_profile_session_get_profile(self->session));
}

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlCountersView *self)
{
	pl_lazy_page_update(GTK_WIDGET(self), update_from_session);
}

static void on_session_updated(PlProfileSession *s, PlCountersView *self)
{
	on_session_profile(s, NULL, self);
}

void pl_counters_view_set_session(PlCountersView *self, PlProfileSession *session)
{
	self->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&self->session);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
}
