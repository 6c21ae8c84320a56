/* pl-chart.c — small time charts (see the header). */
#include "pl-chart.h"
#include "pl-ui-util.h"

#include <math.h>
#include <string.h>

/* ─── series ─────────────────────────────────────────────────────────── */

void pl_chart_series_init(PlChartSeries *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = g_strdup(name);
	s->pts = g_array_new(FALSE, FALSE, sizeof(double) * 2);
}

void pl_chart_series_clear(PlChartSeries *s)
{
	g_clear_pointer(&s->name, g_free);
	g_clear_pointer(&s->pts, g_array_unref);
	g_clear_pointer(&s->pts2, g_array_unref);
}

PlChartSeries *pl_chart_series_new(const char *name)
{
	PlChartSeries *s = g_new(PlChartSeries, 1);
	pl_chart_series_init(s, name);
	return s;
}

void pl_chart_series_free(gpointer p)
{
	pl_chart_series_clear(p);
	g_free(p);
}

void pl_chart_series_add(PlChartSeries *s, double t, double v)
{
	double p[2] = { t, v };
	g_array_append_vals(s->pts, p, 1);
	s->max = MAX(s->max, v);
	s->last = v;
}

void pl_chart_series_add_stacked(PlChartSeries *s, double t, double v, double v2)
{
	if (!s->pts2)
		s->pts2 = g_array_new(FALSE, FALSE, sizeof(double) * 2);
	double p[2] = { t, v }, q[2] = { t, v2 };
	g_array_append_vals(s->pts, p, 1);
	g_array_append_vals(s->pts2, q, 1);
	s->max = MAX(s->max, v + v2);
	s->last = v + v2;
}

const double *pl_chart_series_point(const PlChartSeries *s, guint i)
{
	return &g_array_index(s->pts, double, 2 * i);
}

double pl_chart_nice_top(double v)
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

/* ─── style ──────────────────────────────────────────────────────────── */

void pl_chart_style_init(PlChartStyle *st, GtkWidget *widget)
{
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &st->fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	st->dark = st->fg.red + st->fg.green + st->fg.blue > 1.5;
	/* series colours readable on both backgrounds */
	st->line = st->dark ? (GdkRGBA){ 0.45, 0.72, 1.0, 1 } : (GdkRGBA){ 0.10, 0.42, 0.80, 1 };
	st->alt = st->dark ? (GdkRGBA){ 1.0, 0.55, 0.35, 1 } : (GdkRGBA){ 0.85, 0.33, 0.10, 1 };
	st->text = gtk_widget_create_pango_layout(widget, NULL);
	st->small = gtk_widget_create_pango_layout(widget, NULL);
	PangoFontDescription *fd = pango_font_description_new();
	pango_font_description_set_size(fd, 8 * PANGO_SCALE);
	pango_layout_set_font_description(st->small, fd);
	pango_font_description_free(fd);
}

void pl_chart_style_clear(PlChartStyle *st)
{
	g_clear_object(&st->text);
	g_clear_object(&st->small);
}

/* ─── drawing ────────────────────────────────────────────────────────── */

static void set_rgba(cairo_t *cr, const GdkRGBA *c, double alpha)
{
	cairo_set_source_rgba(cr, c->red, c->green, c->blue, alpha);
}

/* Bars are one second wide (the views bin by the second). */
static void draw_bars(cairo_t *cr, const PlChartStyle *st, const PlChartArea *a,
		      const PlChartSeries *s)
{
	double bw = MAX(a->w / MAX(a->span_s, 1) - 1, 1);
	for (guint k = 0; k < s->pts->len; k++) {
		const double *p = pl_chart_series_point(s, k);
		double v2 = s->pts2 ? g_array_index(s->pts2, double, 2 * k + 1) : 0;
		double px = a->x + p[0] / a->span_s * a->w + 0.5;
		double bwk = MIN(bw, a->x + a->w - px);
		if (bwk <= 0)
			continue;
		double h1 = p[1] / a->top * (a->h - a->headroom);
		double h2 = v2 / a->top * (a->h - a->headroom);
		set_rgba(cr, &st->line, 0.75);
		cairo_rectangle(cr, px, a->y + a->h - h1, bwk, h1);
		cairo_fill(cr);
		set_rgba(cr, &st->alt, 0.8);
		cairo_rectangle(cr, px, a->y + a->h - h1 - h2, bwk, h2);
		cairo_fill(cr);
	}
}

static void draw_line(cairo_t *cr, const PlChartStyle *st, const PlChartArea *a,
		      const PlChartSeries *s)
{
	set_rgba(cr, &st->line, 1);
	cairo_set_line_width(cr, 1.6);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (guint k = 0; k < s->pts->len; k++) {
		const double *p = pl_chart_series_point(s, k);
		double px = a->x + MIN(p[0] / a->span_s, 1) * a->w;
		double py = a->y + a->h - p[1] / a->top * (a->h - a->headroom);
		if (k == 0)
			cairo_move_to(cr, px, py);
		else
			cairo_line_to(cr, px, py);
	}
	if (s->pts->len == 1)
		cairo_rel_line_to(cr, 2, 0);
	cairo_stroke(cr);
	if (!a->last_dot)
		return;
	const double *p = pl_chart_series_point(s, s->pts->len - 1);
	cairo_arc(cr, a->x + MIN(p[0] / a->span_s, 1) * a->w,
		  a->y + a->h - p[1] / a->top * (a->h - a->headroom), 2.5, 0, 2 * G_PI);
	cairo_fill(cr);
}

/* No cairo_save/restore: the line join set for a series stays for the
 * next chart's axes, as it always has (the pictures stay the same). */
void pl_chart_draw(cairo_t *cr, const PlChartStyle *st, const PlChartArea *a,
		   const PlChartSeries *s)
{
	double x0 = a->x, y = a->y, cw = a->w, ch = a->h, span = a->span_s;
	double tstep = span > 0 ? pl_ui_nice_step(span) : 1;
	/* background, selection, grid */
	set_rgba(cr, &st->fg, 0.05);
	cairo_rectangle(cr, x0, y, cw, ch);
	cairo_fill(cr);
	if (a->shade && span > 0) {
		double sx0 = x0 + CLAMP(a->shade0 / span, 0, 1) * cw;
		double sx1 = x0 + CLAMP(a->shade1 / span, 0, 1) * cw;
		cairo_set_source_rgba(cr, 0.95, 0.75, 0.20, st->dark ? 0.22 : 0.28);
		cairo_rectangle(cr, sx0, y, MAX(sx1 - sx0, 1), ch);
		cairo_fill(cr);
	}
	set_rgba(cr, &st->fg, 0.12);
	cairo_set_line_width(cr, 1);
	for (double t = 0; span > 0 && t <= span + 1e-9; t += tstep) {
		double px = floor(x0 + t / span * cw) + 0.5;
		cairo_move_to(cr, px, y);
		cairo_line_to(cr, px, y + ch);
	}
	if (a->midline) {
		cairo_move_to(cr, x0, floor(y + ch / 2) + 0.5);
		cairo_line_to(cr, x0 + cw, floor(y + ch / 2) + 0.5);
	}
	cairo_stroke(cr);
	/* axes, the value axis' top and 0, time labels */
	set_rgba(cr, &st->fg, 0.5);
	cairo_move_to(cr, x0 + 0.5, y);
	cairo_line_to(cr, x0 + 0.5, y + ch + 0.5);
	cairo_line_to(cr, x0 + cw, y + ch + 0.5);
	cairo_stroke(cr);
	set_rgba(cr, &st->fg, 0.7);
	pl_ui_show_text(cr, st->small, a->top_label, x0 - 4, y - 2, 1);
	pl_ui_show_text(cr, st->small, "0", x0 - 4, y + ch - 12, 1);
	for (double t = 0; span > 0 && t <= span + 1e-9; t += tstep) {
		char b[32];
		g_snprintf(b, sizeof b, tstep < 1 ? "%.1f s" : "%.0f s", t);
		double px = x0 + t / span * cw;
		pl_ui_show_text(cr, st->small, b, MIN(px, x0 + cw - 14), y + ch + 2, t == 0 ? 0 : 0.5);
	}
	if (!s->pts->len || a->top <= 0 || span <= 0)
		return;
	if (s->kind == PL_CHART_BARS)
		draw_bars(cr, st, a, s);
	else
		draw_line(cr, st, a, s);
}
