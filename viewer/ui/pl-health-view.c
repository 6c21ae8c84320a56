/* pl-health-view.c — health over time (see the header).
 *
 * Series are computed once per set_profile() into (seconds, value) points
 * and drawn by one GtkDrawingArea: a label column (name, now, peak) whose
 * width matches the thread timeline's, so the time axes line up, then the
 * chart with its value axis (0 and the scale top) and a time axis.
 */
#include "pl-health-view.h"
#include "pl-chart.h"
#include "pl-lazy-page.h"
#include "pl-ui-util.h"

#include <math.h>
#include <string.h>

#define CHART_H 62.0
#define AXIS_H 16.0 /* time labels under each chart */
#define ROW_GAP 10.0
#define NAME_W 230.0 /* as the thread timeline's label column */
#define VAXIS_W 66.0 /* value labels left of the chart */
#define PAD 8.0

typedef struct {
	PlChartSeries c;  /* points: seconds from t_start, value; max is the peak */
	const char *unit; /* shown after values */
	double fixed_top; /* > 0: the axis top (100 for %) */
	int digits;
	/* bars with a second series stacked (c.pts2): what each colour is */
	const char *legend1, *legend2;
} Series;

struct _PlHealthView {
	GtkWidget parent_instance;
	PlProfileSession *session; /* weak: followed, read when shown */
	GtkWidget *box;
	GtkLabel *note;
	GtkWidget *area;
	GPtrArray *series; /* Series* */
	guint64 t_start;   /* ns, the x axis origin */
	double span_s;
	guint64 t0, t1;    /* selected range, ns (0, 0: none) */
};

G_DEFINE_FINAL_TYPE(PlHealthView, pl_health_view, GTK_TYPE_WIDGET)

static void series_free(gpointer p)
{
	Series *s = p;
	pl_chart_series_clear(&s->c);
	g_free(s);
}

static Series *series_new(const char *name, const char *unit, int digits)
{
	Series *s = g_new0(Series, 1);
	pl_chart_series_init(&s->c, name);
	s->unit = unit;
	s->digits = digits;
	return s;
}

static void add_point(Series *s, double t, double v)
{
	pl_chart_series_add(&s->c, t, v);
}

static double secs(PlHealthView *self, guint64 t)
{
	return t > self->t_start ? (double)(t - self->t_start) / 1e9 : 0;
}

/* ─── building the series ────────────────────────────────────────────── */

static void health_series(PlHealthView *self, const struct pl_msg_health *h, guint n)
{
	Series *cpu = series_new("Board CPU busy", "%", 1);
	cpu->fixed_top = 100;
	Series *load = series_new("Board load (1 min)", "", 2);
	Series *mem = series_new("Board memory available", "MB", 0);
	Series *acpu = series_new("Agent CPU (% of one CPU)", "%", 2);
	Series *rss = series_new("Agent memory (RSS)", "MB", 1);
	Series *net = series_new("Agent sending", "KB/s", 1);
	for (guint i = 0; i < n; i++) {
		double t = secs(self, h[i].time);
		/* the first report has no previous reading to measure busy from */
		if (i > 0)
			add_point(cpu, t, h[i].cpu_busy_permille / 10.0);
		add_point(load, t, h[i].load1_x100 / 100.0);
		add_point(mem, t, h[i].mem_available_kb / 1024.0);
		add_point(rss, t, h[i].agent_rss_kb / 1024.0);
		if (i > 0 && h[i].time > h[i - 1].time) {
			double dt = (double)(h[i].time - h[i - 1].time) / 1e9;
			double dc = h[i].agent_cpu_ns > h[i - 1].agent_cpu_ns
					    ? (double)(h[i].agent_cpu_ns - h[i - 1].agent_cpu_ns)
					    : 0;
			double db = h[i].bytes_sent > h[i - 1].bytes_sent
					    ? (double)(h[i].bytes_sent - h[i - 1].bytes_sent)
					    : 0;
			add_point(acpu, t, 100.0 * dc / 1e9 / dt);
			add_point(net, t, db / 1024.0 / dt);
		}
	}
	/* memory's scale is the board's total: a flat line near the top
	 * reads "plenty left", not "full" */
	if (n && h[n - 1].mem_total_kb)
		mem->fixed_top = h[n - 1].mem_total_kb / 1024.0;
	Series *all[] = { cpu, load, mem, acpu, rss, net };
	for (guint i = 0; i < G_N_ELEMENTS(all); i++)
		g_ptr_array_add(self->series, all[i]);
}

/* Samples of the main event per second, from the samples themselves (so
 * perf.data imports, which have no HEALTH, get it too). */
static void sample_rate_series(PlHealthView *self, PlProfile *p)
{
	guint n = 0;
	const PlSample *s = pl_profile_get_samples(p, &n);
	guint32 ev = pl_profile_get_main_event(p);
	guint nb = (guint)ceil(self->span_s);
	if (!n || nb == 0 || nb > 1000000)
		return;
	g_autofree double *bins = g_new0(double, nb);
	for (guint i = 0; i < n; i++) {
		if (ev != PL_NO_ID && pl_profile_get_stack_event(p, s[i].stack) != ev)
			continue;
		guint b = (guint)secs(self, s[i].time);
		bins[MIN(b, nb - 1)] += 1;
	}
	const PlEvent *e = pl_profile_lookup_event(p, ev);
	g_autofree char *name = g_strdup_printf("Samples (%s)", e && e->name ? e->name : "all");
	Series *r = series_new(name, "/s", 0);
	r->c.kind = PL_CHART_BARS;
	for (guint b = 0; b < nb; b++) {
		/* the last bin may be partial: scaled to a rate, unless it is too
		 * short to say anything (its few samples would read as a drop) */
		double w = b + 1 < nb ? 1.0 : self->span_s - b;
		if (w < 0.5 && b > 0)
			break;
		add_point(r, b, bins[b] / MAX(w, 0.05));
	}
	g_ptr_array_add(self->series, r);
}

static void loss_series(PlHealthView *self, PlProfile *p)
{
	guint n = 0;
	const PlLossMark *lm = pl_profile_get_loss_marks(p, &n);
	guint nb = MAX((guint)ceil(self->span_s), 1);
	if (nb > 1000000)
		return;
	g_autofree double *lost = g_new0(double, nb);
	g_autofree double *thr = g_new0(double, nb);
	double tl = 0, tt = 0;
	for (guint i = 0; i < n; i++) {
		guint b = MIN((guint)secs(self, lm[i].time), nb - 1);
		if (lm[i].kind == PL_LOSS_THROTTLE) {
			thr[b] += (double)lm[i].count;
			tt += (double)lm[i].count;
		} else {
			lost[b] += (double)lm[i].count;
			tl += (double)lm[i].count;
		}
	}
	g_autofree char *name = g_strdup_printf("Lost records and throttles\n%.0f lost, %.0f throttled",
						tl, tt);
	Series *s = series_new(name, "/s", 0);
	s->c.kind = PL_CHART_BARS;
	s->legend1 = "lost";
	s->legend2 = "throttled";
	for (guint b = 0; b < nb; b++)
		pl_chart_series_add_stacked(&s->c, b, lost[b], thr[b]);
	g_ptr_array_add(self->series, s);
}

/* ─── drawing ────────────────────────────────────────────────────────── */

static char *format_value(const Series *s, double v)
{
	if (!strcmp(s->unit, "KB/s") && v >= 1024)
		return g_strdup_printf("%.2f MB/s", v / 1024);
	if (!strcmp(s->unit, "MB") && v >= 10240)
		return g_strdup_printf("%.2f GB", v / 1024);
	return g_strdup_printf("%.*f%s%s", s->digits, v, *s->unit && s->unit[0] != '%' &&
						 s->unit[0] != '/' ? " " : "", s->unit);
}

static void draw(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
	PlHealthView *self = data;
	double x0 = NAME_W + VAXIS_W, cw = w - x0 - PAD;
	if (cw < 40 || self->series->len == 0 || self->span_s <= 0)
		return;
	PlChartStyle st;
	pl_chart_style_init(&st, GTK_WIDGET(area));
	const GdkRGBA *fg = &st.fg, *line = &st.line, *alt = &st.alt;
	for (guint i = 0; i < self->series->len; i++) {
		Series *s = self->series->pdata[i];
		double y = PAD + i * (CHART_H + AXIS_H + ROW_GAP);
		/* label column: name, now, peak */
		g_autofree char *now = format_value(s, s->c.last);
		g_autofree char *peak = format_value(s, s->c.max);
		g_autofree char *text = g_strdup_printf("%s\nnow %s   peak %s", s->c.name, now, peak);
		cairo_set_source_rgba(cr, fg->red, fg->green, fg->blue, 0.92);
		pango_layout_set_width(st.text, (int)((NAME_W - 2 * PAD) * PANGO_SCALE));
		pango_layout_set_ellipsize(st.text, PANGO_ELLIPSIZE_END);
		pl_ui_show_text(cr, st.text, text, PAD, y, 0);
		pango_layout_set_width(st.text, -1);
		if (s->legend1) {
			double ly = y + CHART_H - 14;
			cairo_set_source_rgba(cr, line->red, line->green, line->blue, 0.85);
			cairo_rectangle(cr, PAD, ly + 3, 10, 8);
			cairo_fill(cr);
			cairo_set_source_rgba(cr, fg->red, fg->green, fg->blue, 0.8);
			pl_ui_show_text(cr, st.small, s->legend1, PAD + 14, ly, 0);
			cairo_set_source_rgba(cr, alt->red, alt->green, alt->blue, 0.85);
			cairo_rectangle(cr, PAD + 60, ly + 3, 10, 8);
			cairo_fill(cr);
			cairo_set_source_rgba(cr, fg->red, fg->green, fg->blue, 0.8);
			pl_ui_show_text(cr, st.small, s->legend2, PAD + 74, ly, 0);
		}
		/* the value axis names the scale top; the unit is in it */
		double top = s->fixed_top > 0 ? MAX(s->fixed_top, s->c.max) : pl_chart_nice_top(s->c.max);
		g_autofree char *ttop = format_value(s, top);
		PlChartArea a = { .x = x0, .y = y, .w = cw, .h = CHART_H, .span_s = self->span_s,
				  .top = top, .headroom = 2, .top_label = ttop, .midline = TRUE,
				  .last_dot = TRUE, .shade = self->t0 || self->t1,
				  .shade0 = secs(self, self->t0),
				  .shade1 = self->t1 ? secs(self, self->t1) : self->span_s };
		pl_chart_draw(cr, &st, &a, &s->c);
	}
	pl_chart_style_clear(&st);
}

/* The reading nearest the pointer, with its time. */
static gboolean on_tooltip(GtkWidget *w, int x, int y, gboolean kb, GtkTooltip *tip,
			   PlHealthView *self)
{
	double x0 = NAME_W + VAXIS_W, cw = gtk_widget_get_width(w) - x0 - PAD;
	if (x < x0 || cw <= 0 || self->span_s <= 0 || y < PAD)
		return FALSE;
	guint row = (guint)((y - PAD) / (CHART_H + AXIS_H + ROW_GAP));
	if (row >= self->series->len || y - PAD - row * (CHART_H + AXIS_H + ROW_GAP) > CHART_H)
		return FALSE;
	Series *s = self->series->pdata[row];
	double t = (x - x0) / cw * self->span_s;
	gint best = -1;
	double bd = G_MAXDOUBLE;
	for (guint k = 0; k < s->c.pts->len; k++) {
		const double *p = pl_chart_series_point(&s->c, k);
		/* bars cover [t, t + 1 s) */
		double d = s->c.kind == PL_CHART_BARS ? (t >= p[0] && t < p[0] + 1 ? 0 : G_MAXDOUBLE)
						: fabs(p[0] - t);
		if (d < bd) {
			bd = d;
			best = (gint)k;
		}
	}
	if (best < 0 || bd == G_MAXDOUBLE)
		return FALSE;
	const double *p = pl_chart_series_point(&s->c, (guint)best);
	g_autofree char *v = format_value(s, p[1]);
	g_autofree char *name = g_strdup(s->c.name);
	char *nl = strchr(name, '\n');
	if (nl)
		*nl = 0;
	g_autofree char *text = NULL;
	if (s->c.pts2)
		text = g_strdup_printf("%s at %.1f s: %.0f lost, %.0f throttled", name, p[0], p[1],
				       g_array_index(s->c.pts2, double, 2 * best + 1));
	else
		text = g_strdup_printf("%s at %.1f s: %s", name, p[0], v);
	gtk_tooltip_set_text(tip, text);
	return TRUE;
}

/* ─── API ────────────────────────────────────────────────────────────── */

void pl_health_view_set_profile(PlHealthView *self, PlProfile *p)
{
	g_ptr_array_set_size(self->series, 0);
	self->span_s = 0;
	self->t_start = 0;
	if (!p) {
		gtk_label_set_text(self->note, "");
		gtk_widget_set_size_request(self->area, -1, -1);
		gtk_widget_queue_draw(self->area);
		return;
	}
	const PlProfileStats *st = pl_profile_get_stats(p);
	guint nh = 0;
	const struct pl_msg_health *h = pl_profile_get_health_series(p, &nh);
	/* the axis covers the samples and the health reports (same clock:
	 * the agent's CLOCK_MONOTONIC) */
	guint64 start = st->first_time, end = st->last_time;
	if (nh) {
		start = start ? MIN(start, h[0].time) : h[0].time;
		end = MAX(end, h[nh - 1].time);
	}
	self->t_start = start;
	self->span_s = end > start ? (double)(end - start) / 1e9 : 0;
	if (nh)
		health_series(self, h, nh);
	sample_rate_series(self, p);
	loss_series(self, p);
	if (nh)
		gtk_label_set_markup(self->note,
				     "<b>Device health</b>   reported by the agent once a second; "
				     "<span alpha='70%'>the shaded band is the selected time range</span>");
	else
		gtk_label_set_markup(self->note,
				     "<b>Device health</b>   no health reports in this recording "
				     "(only live agents send them; perf.data has none): samples and "
				     "losses only");
	gtk_widget_set_size_request(
		self->area, -1,
		(int)(2 * PAD + self->series->len * (CHART_H + AXIS_H + ROW_GAP)));
	gtk_widget_queue_draw(self->area);
}

void pl_health_view_set_range(PlHealthView *self, guint64 t0, guint64 t1)
{
	self->t0 = t0;
	self->t1 = t1;
	gtk_widget_queue_draw(self->area);
}

static Series *nth(PlHealthView *self, guint i)
{
	return i < self->series->len ? self->series->pdata[i] : NULL;
}

guint pl_health_view_get_n_series(PlHealthView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->series->len;
}

const char *pl_health_view_get_series_name(PlHealthView *self, guint i)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	Series *s = nth(self, i);
	return s ? s->c.name : NULL;
}

double pl_health_view_get_series_last(PlHealthView *self, guint i)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	Series *s = nth(self, i);
	return s ? s->c.last : 0;
}

double pl_health_view_get_series_peak(PlHealthView *self, guint i)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	Series *s = nth(self, i);
	return s ? s->c.max : 0;
}

GtkWidget *pl_health_view_new(void)
{
	return g_object_new(PL_TYPE_HEALTH_VIEW, NULL);
}

static void pl_health_view_dispose(GObject *obj)
{
	PlHealthView *self = PL_HEALTH_VIEW(obj);
	if (self->session)
		g_object_remove_weak_pointer(G_OBJECT(self->session), (gpointer *)&self->session);
	self->session = NULL;
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_HEALTH_VIEW);
	g_clear_pointer(&self->series, g_ptr_array_unref);
	G_OBJECT_CLASS(pl_health_view_parent_class)->dispose(obj);
}

static void pl_health_view_class_init(PlHealthViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_health_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-health-view.ui");
	gtk_widget_class_bind_template_child(wc, PlHealthView, box);
	gtk_widget_class_bind_template_child(wc, PlHealthView, note);
	gtk_widget_class_bind_template_child(wc, PlHealthView, area);
	gtk_widget_class_bind_template_callback(wc, on_tooltip);
}

static void pl_health_view_init(PlHealthView *self)
{
	self->series = g_ptr_array_new_with_free_func(series_free);
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->area), draw, self, NULL);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

/* every sample or record is read: only while the page is shown */
static void update_from_session(GtkWidget *w)
{
	PlHealthView *self = PL_HEALTH_VIEW(w);
	if (self->session)
		pl_health_view_set_profile(self, pl_profile_session_get_profile(self->session));
}

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlHealthView *self)
{
	pl_lazy_page_update(GTK_WIDGET(self), update_from_session);
}

static void on_session_updated(PlProfileSession *s, PlHealthView *self)
{
	on_session_profile(s, NULL, self);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlHealthView *self)
{
	PlFilter f = pl_profile_session_get_filter(s);
	pl_health_view_set_range(self, f.t0, f.t1);
}

void pl_health_view_set_session(PlHealthView *self, PlProfileSession *session)
{
	self->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&self->session);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
