/* pl-health-view.c — health over time (see the header).
 *
 * Series are computed once per set_profile() into (seconds, value) points
 * and drawn by one GtkDrawingArea: a label column (name, now, peak) whose
 * width matches the thread timeline's, so the time axes line up, then the
 * chart with its value axis (0 and the scale top) and a time axis.
 */
#include "pl-health-view.h"
#include "pl-ui-util.h"

#include <math.h>
#include <string.h>

#define CHART_H 62.0
#define AXIS_H 16.0 /* time labels under each chart */
#define ROW_GAP 10.0
#define NAME_W 230.0 /* as the thread timeline's label column */
#define VAXIS_W 66.0 /* value labels left of the chart */
#define PAD 8.0

typedef enum { KIND_LINE, KIND_BARS } Kind;

typedef struct {
	char *name;
	const char *unit; /* shown after values */
	Kind kind;
	GArray *pts; /* double pairs: seconds from t_start, value */
	double max, last, peak;
	double fixed_top; /* > 0: the axis top (100 for %) */
	int digits;
	/* KIND_BARS: a second series drawn stacked in another colour */
	GArray *pts2;
	const char *legend1, *legend2;
} Series;

struct _PlHealthView {
	GtkWidget parent_instance;
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
	g_free(s->name);
	g_array_unref(s->pts);
	if (s->pts2)
		g_array_unref(s->pts2);
	g_free(s);
}

static Series *series_new(const char *name, const char *unit, int digits)
{
	Series *s = g_new0(Series, 1);
	s->name = g_strdup(name);
	s->unit = unit;
	s->digits = digits;
	s->pts = g_array_new(FALSE, FALSE, sizeof(double) * 2);
	return s;
}

static void add_point(Series *s, double t, double v)
{
	double p[2] = { t, v };
	g_array_append_vals(s->pts, p, 1);
	s->max = MAX(s->max, v);
	s->peak = MAX(s->peak, v);
	s->last = v;
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
	r->kind = KIND_BARS;
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
	s->kind = KIND_BARS;
	s->pts2 = g_array_new(FALSE, FALSE, sizeof(double) * 2);
	s->legend1 = "lost";
	s->legend2 = "throttled";
	for (guint b = 0; b < nb; b++) {
		add_point(s, b, lost[b]);
		double q[2] = { b, thr[b] };
		g_array_append_vals(s->pts2, q, 1);
		s->max = MAX(s->max, lost[b] + thr[b]);
		s->peak = MAX(s->peak, lost[b] + thr[b]);
	}
	s->last = nb ? lost[nb - 1] + thr[nb - 1] : 0;
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

/* A "nice" axis top at or above v: 1, 2, 2.5, 5 × 10^k. */
static double nice_top(double v)
{
	if (v <= 0)
		return 1;
	double e = pow(10, floor(log10(v)));
	const double steps[] = { 1, 2, 2.5, 5, 10 };
	for (guint i = 0; i < G_N_ELEMENTS(steps); i++)
		if (steps[i] * e >= v * 0.9999)
			return steps[i] * e;
	return 10 * e;
}

static void draw(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
	PlHealthView *self = data;
	GdkRGBA fg;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(GTK_WIDGET(area)), &fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	gboolean dark = fg.red + fg.green + fg.blue > 1.5;
	PangoLayout *pl = gtk_widget_create_pango_layout(GTK_WIDGET(area), NULL);
	PangoLayout *small = gtk_widget_create_pango_layout(GTK_WIDGET(area), NULL);
	PangoFontDescription *fd = pango_font_description_new();
	pango_font_description_set_size(fd, 8 * PANGO_SCALE);
	pango_layout_set_font_description(small, fd);
	pango_font_description_free(fd);
	double x0 = NAME_W + VAXIS_W, cw = w - x0 - PAD;
	if (cw < 40 || self->series->len == 0 || self->span_s <= 0) {
		g_object_unref(pl);
		g_object_unref(small);
		return;
	}
	/* line colour readable on both backgrounds */
	GdkRGBA line = dark ? (GdkRGBA){ 0.45, 0.72, 1.0, 1 } : (GdkRGBA){ 0.10, 0.42, 0.80, 1 };
	GdkRGBA alt = dark ? (GdkRGBA){ 1.0, 0.55, 0.35, 1 } : (GdkRGBA){ 0.85, 0.33, 0.10, 1 };
	double tstep = pl_ui_nice_step(self->span_s);
	for (guint i = 0; i < self->series->len; i++) {
		Series *s = self->series->pdata[i];
		double y = PAD + i * (CHART_H + AXIS_H + ROW_GAP);
		/* label column: name, now, peak */
		g_autofree char *now = format_value(s, s->last);
		g_autofree char *peak = format_value(s, s->peak);
		g_autofree char *text = g_strdup_printf("%s\nnow %s   peak %s", s->name, now, peak);
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.92);
		pango_layout_set_width(pl, (int)((NAME_W - 2 * PAD) * PANGO_SCALE));
		pango_layout_set_ellipsize(pl, PANGO_ELLIPSIZE_END);
		pl_ui_show_text(cr, pl, text, PAD, y, 0);
		pango_layout_set_width(pl, -1);
		if (s->legend1) {
			double ly = y + CHART_H - 14;
			cairo_set_source_rgba(cr, line.red, line.green, line.blue, 0.85);
			cairo_rectangle(cr, PAD, ly + 3, 10, 8);
			cairo_fill(cr);
			cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.8);
			pl_ui_show_text(cr, small, s->legend1, PAD + 14, ly, 0);
			cairo_set_source_rgba(cr, alt.red, alt.green, alt.blue, 0.85);
			cairo_rectangle(cr, PAD + 60, ly + 3, 10, 8);
			cairo_fill(cr);
			cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.8);
			pl_ui_show_text(cr, small, s->legend2, PAD + 74, ly, 0);
		}
		/* chart background, grid, selection */
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.05);
		cairo_rectangle(cr, x0, y, cw, CHART_H);
		cairo_fill(cr);
		if (self->t0 || self->t1) {
			double a = secs(self, self->t0), b = self->t1 ? secs(self, self->t1) : self->span_s;
			double sx0 = x0 + CLAMP(a / self->span_s, 0, 1) * cw;
			double sx1 = x0 + CLAMP(b / self->span_s, 0, 1) * cw;
			cairo_set_source_rgba(cr, 0.95, 0.75, 0.20, dark ? 0.22 : 0.28);
			cairo_rectangle(cr, sx0, y, MAX(sx1 - sx0, 1), CHART_H);
			cairo_fill(cr);
		}
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.12);
		cairo_set_line_width(cr, 1);
		for (double t = 0; t <= self->span_s + 1e-9; t += tstep) {
			double px = floor(x0 + t / self->span_s * cw) + 0.5;
			cairo_move_to(cr, px, y);
			cairo_line_to(cr, px, y + CHART_H);
		}
		cairo_move_to(cr, x0, floor(y + CHART_H / 2) + 0.5);
		cairo_line_to(cr, x0 + cw, floor(y + CHART_H / 2) + 0.5);
		cairo_stroke(cr);
		/* axes */
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.5);
		cairo_move_to(cr, x0 + 0.5, y);
		cairo_line_to(cr, x0 + 0.5, y + CHART_H + 0.5);
		cairo_line_to(cr, x0 + cw, y + CHART_H + 0.5);
		cairo_stroke(cr);
		double top = s->fixed_top > 0 ? MAX(s->fixed_top, s->max) : nice_top(s->max);
		g_autofree char *ttop = format_value(s, top);
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.7);
		/* the value axis names the scale top; the unit is in it */
		pl_ui_show_text(cr, small, ttop, x0 - 4, y - 2, 1);
		pl_ui_show_text(cr, small, "0", x0 - 4, y + CHART_H - 12, 1);
		for (double t = 0; t <= self->span_s + 1e-9; t += tstep) {
			char b[32];
			g_snprintf(b, sizeof b, tstep < 1 ? "%.1f s" : "%.0f s", t);
			double px = x0 + t / self->span_s * cw;
			pl_ui_show_text(cr, small, b, MIN(px, x0 + cw - 14), y + CHART_H + 2,
				  t == 0 ? 0 : 0.5);
		}
		if (!s->pts->len)
			continue;
		/* data */
		if (s->kind == KIND_BARS) {
			double bw = MAX(cw / MAX(self->span_s, 1) - 1, 1);
			for (guint k = 0; k < s->pts->len; k++) {
				double *p = &g_array_index(s->pts, double, 2 * k);
				double v2 = s->pts2 ? g_array_index(s->pts2, double, 2 * k + 1) : 0;
				double px = x0 + p[0] / self->span_s * cw + 0.5;
				double bwk = MIN(bw, x0 + cw - px);
				if (bwk <= 0)
					continue;
				double h1 = p[1] / top * (CHART_H - 2), h2 = v2 / top * (CHART_H - 2);
				cairo_set_source_rgba(cr, line.red, line.green, line.blue, 0.75);
				cairo_rectangle(cr, px, y + CHART_H - h1, bwk, h1);
				cairo_fill(cr);
				cairo_set_source_rgba(cr, alt.red, alt.green, alt.blue, 0.8);
				cairo_rectangle(cr, px, y + CHART_H - h1 - h2, bwk, h2);
				cairo_fill(cr);
			}
			continue;
		}
		cairo_set_source_rgba(cr, line.red, line.green, line.blue, 1);
		cairo_set_line_width(cr, 1.6);
		cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
		for (guint k = 0; k < s->pts->len; k++) {
			double *p = &g_array_index(s->pts, double, 2 * k);
			double px = x0 + MIN(p[0] / self->span_s, 1) * cw;
			double py = y + CHART_H - p[1] / top * (CHART_H - 2);
			if (k == 0)
				cairo_move_to(cr, px, py);
			else
				cairo_line_to(cr, px, py);
		}
		if (s->pts->len == 1)
			cairo_rel_line_to(cr, 2, 0);
		cairo_stroke(cr);
		/* the latest reading as a dot */
		double *p = &g_array_index(s->pts, double, 2 * (s->pts->len - 1));
		cairo_arc(cr, x0 + MIN(p[0] / self->span_s, 1) * cw,
			  y + CHART_H - p[1] / top * (CHART_H - 2), 2.5, 0, 2 * G_PI);
		cairo_fill(cr);
	}
	g_object_unref(pl);
	g_object_unref(small);
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
	for (guint k = 0; k < s->pts->len; k++) {
		double *p = &g_array_index(s->pts, double, 2 * k);
		/* bars cover [t, t + 1 s) */
		double d = s->kind == KIND_BARS ? (t >= p[0] && t < p[0] + 1 ? 0 : G_MAXDOUBLE)
						: fabs(p[0] - t);
		if (d < bd) {
			bd = d;
			best = (gint)k;
		}
	}
	if (best < 0 || bd == G_MAXDOUBLE)
		return FALSE;
	double *p = &g_array_index(s->pts, double, 2 * best);
	g_autofree char *v = format_value(s, p[1]);
	g_autofree char *name = g_strdup(s->name);
	char *nl = strchr(name, '\n');
	if (nl)
		*nl = 0;
	g_autofree char *text = NULL;
	if (s->pts2)
		text = g_strdup_printf("%s at %.1f s: %.0f lost, %.0f throttled", name, p[0], p[1],
				       g_array_index(s->pts2, double, 2 * best + 1));
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
	return self->series->len;
}

const char *pl_health_view_get_series_name(PlHealthView *self, guint i)
{
	Series *s = nth(self, i);
	return s ? s->name : NULL;
}

double pl_health_view_get_series_last(PlHealthView *self, guint i)
{
	Series *s = nth(self, i);
	return s ? s->last : 0;
}

double pl_health_view_get_series_peak(PlHealthView *self, guint i)
{
	Series *s = nth(self, i);
	return s ? s->peak : 0;
}

GtkWidget *pl_health_view_new(void)
{
	return g_object_new(PL_TYPE_HEALTH_VIEW, NULL);
}

static void pl_health_view_dispose(GObject *obj)
{
	PlHealthView *self = PL_HEALTH_VIEW(obj);
	g_clear_pointer(&self->box, gtk_widget_unparent);
	g_clear_pointer(&self->series, g_ptr_array_unref);
	G_OBJECT_CLASS(pl_health_view_parent_class)->dispose(obj);
}

static void pl_health_view_class_init(PlHealthViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_health_view_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
}

static void pl_health_view_init(PlHealthView *self)
{
	self->series = g_ptr_array_new_with_free_func(series_free);
	self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
	self->note = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->note, 0);
	gtk_label_set_wrap(self->note, TRUE);
	gtk_widget_set_margin_start(GTK_WIDGET(self->note), 8);
	gtk_widget_set_margin_top(GTK_WIDGET(self->note), 6);
	gtk_box_append(GTK_BOX(self->box), GTK_WIDGET(self->note));
	self->area = gtk_drawing_area_new();
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->area), draw, self, NULL);
	gtk_widget_set_hexpand(self->area, TRUE);
	gtk_widget_set_has_tooltip(self->area, TRUE);
	g_signal_connect(self->area, "query-tooltip", G_CALLBACK(on_tooltip), self);
	GtkWidget *sw = gtk_scrolled_window_new();
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(sw), GTK_POLICY_NEVER,
				       GTK_POLICY_AUTOMATIC);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sw), self->area);
	gtk_widget_set_vexpand(sw, TRUE);
	gtk_box_append(GTK_BOX(self->box), sw);
	gtk_widget_set_parent(self->box, GTK_WIDGET(self));
}
