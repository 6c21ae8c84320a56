/* pl-thread-timeline-draw.c — the thread timeline's drawing: the axis and
 * its legend, the lanes with their switch intervals or sample density,
 * the events and triggers over them, the selected range; the lanes are
 * kept as a render node until they change (pl-thread-timeline-private.h). */
#include "pl-thread-timeline-private.h"

#include <math.h>

#include "pl-ui-timing.h"
#include "pl-ui-util.h"

void pl_timeline_draw_text(cairo_t *cr, PangoLayout *pl, const char *text, double x, double y,
			   double h, double maxw)
{
	pango_layout_set_text(pl, text, -1);
	pango_layout_set_width(pl, (int)(maxw * PANGO_SCALE));
	int th;
	pango_layout_get_pixel_size(pl, NULL, &th);
	cairo_move_to(cr, x, y + (h - th) / 2);
	pango_cairo_show_layout(cr, pl);
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
	pl_timeline_set_rgba(cr, off, 1);
	for (guint k = 0; k < t->intervals->len; k++) {
		const PlInterval *iv = &g_array_index(t->intervals, PlInterval, k);
		double x0 = pl_thread_timeline_time_to_x(self, iv->start, w),
		       x1 = pl_thread_timeline_time_to_x(self, iv->end, w);
		if (iv->on_cpu || x1 - x0 < 0.5)
			continue;
		cairo_rectangle(cr, x0, y0 + lh * 0.3, x1 - x0, lh * 0.4);
		any_off = TRUE;
	}
	if (any_off)
		cairo_fill(cr);
	pl_timeline_set_rgba(cr, on, 1);
	gboolean any_on = FALSE;
	for (guint k = 0; k < t->intervals->len; k++) {
		const PlInterval *iv = &g_array_index(t->intervals, PlInterval, k);
		if (!iv->on_cpu)
			continue;
		double x0 = pl_thread_timeline_time_to_x(self, iv->start, w),
		       x1 = pl_thread_timeline_time_to_x(self, iv->end, w);
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

	if (!self->profile || (self->lanes->len == 0 && !self->irq)) {
		pl_timeline_set_rgba(cr, &fg, 0.6);
		pl_timeline_draw_text(cr, pl, self->profile ? "No thread activity recorded yet"
						: "Open a session or connect to a board",
			  16, 16, 24, w - 32);
		g_object_unref(pl);
		return;
	}
	if (self->hist_dirty)
		pl_thread_timeline_fill_hist(self);

	/* axis: ticks at a round step, labelled in seconds from the start */
	double span_s = (double)(self->t_end - self->t_start) / 1e9;
	double step = pow(10, floor(log10(span_s > 0 ? span_s : 1)));
	if (span_s / step < 4)
		step /= 2;
	if (span_s / step < 4)
		step /= 2.5;
	pl_timeline_set_rgba(cr, &fg, 0.15);
	cairo_rectangle(cr, 0, AXIS_H - 1, w, 1);
	cairo_fill(cr);
	for (double t = 0; t <= span_s + 1e-9 && step > 0; t += step) {
		double x =
			pl_thread_timeline_time_to_x(self, self->t_start + (guint64)(t * 1e9), w);
		pl_timeline_set_rgba(cr, &fg, 0.12);
		cairo_rectangle(cr, x, AXIS_H, 1, h - AXIS_H);
		cairo_fill(cr);
		if (x + 44 > w)
			continue; /* its label would be cut at the edge */
		pl_timeline_set_rgba(cr, &fg, 0.75);
		char buf[32];
		g_snprintf(buf, sizeof buf, step < 0.1 ? "%.2f s" : "%.1f s", t);
		pl_timeline_draw_text(cr, pl, buf, x + 3, 0, AXIS_H, 80);
	}
	/* legend where the lanes' names are: the axis keeps its labels */
	pl_timeline_set_rgba(cr, &on, 1);
	cairo_rectangle(cr, 8, 8, 12, 10);
	cairo_fill(cr);
	pl_timeline_set_rgba(cr, &fg, 0.8);
	pl_timeline_draw_text(cr, pl, "on CPU", 24, 0, AXIS_H, 70);
	pl_timeline_set_rgba(cr, &off, 1);
	cairo_rectangle(cr, 100, 10, 12, 5);
	cairo_fill(cr);
	pl_timeline_set_rgba(cr, &fg, 0.8);
	pl_timeline_draw_text(cr, pl, "off CPU", 116, 0, AXIS_H, 100);

	for (guint i = 0; i < self->lanes->len; i++) {
		Lane *l = &g_array_index(self->lanes, Lane, i);
		char buf[300];
		if (l->is_process) {
			pl_timeline_set_rgba(cr, &fg, 0.07);
			cairo_rectangle(cr, 0, l->y, w, PROC_H);
			cairo_fill(cr);
			g_snprintf(buf, sizeof buf, "%s  (pid %u)",
				   l->process && l->process->name ? l->process->name : "process",
				   l->pid);
			PangoFontDescription *bold = pango_font_description_new();
			pango_font_description_set_weight(bold, PANGO_WEIGHT_BOLD);
			pango_layout_set_font_description(pl, bold);
			pl_timeline_set_rgba(cr, &fg, 0.95);
			pl_timeline_draw_text(cr, pl, buf, 6, l->y, PROC_H, w - 12);
			pango_layout_set_font_description(pl, NULL);
			pango_font_description_free(bold);
			continue;
		}
		PlThread *t = l->thread;
		if (self->sel_tid && self->sel_tid == t->tid) { /* 0: no thread chosen */
			cairo_set_source_rgba(cr, sel.red, sel.green, sel.blue, 0.35);
			cairo_rectangle(cr, 0, l->y, w, LANE_H);
			cairo_fill(cr);
		}
		g_snprintf(buf, sizeof buf, "%s", t->name ? t->name : "?");
		pl_timeline_set_rgba(cr, &fg, 0.9);
		pl_timeline_draw_text(cr, pl, buf, 18, l->y, LANE_H, LABEL_W - 90);
		g_snprintf(buf, sizeof buf, "%u", t->tid);
		pl_timeline_set_rgba(cr, &fg, 0.55);
		pl_timeline_draw_text(cr, pl, buf, LABEL_W - 70, l->y, LANE_H, 62);
		double y0 = l->y + 3, lh = LANE_H - 6;
		if (l->hist) {
			/* no switch data: sample density as on-CPU evidence */
			double bw = (w - LABEL_W - 8) / BUCKETS;
			for (guint b = 0; b < BUCKETS; b++) {
				if (!l->hist[b])
					continue;
				double f = (double)l->hist[b] / (double)l->hist_max;
				pl_timeline_set_rgba(cr, &on, 0.35 + 0.65 * f);
				cairo_rectangle(cr, LABEL_W + b * bw, y0, MAX(bw, 1), lh);
				cairo_fill(cr);
			}
		} else {
			draw_intervals(self, cr, t, w, y0, lh, &on, &off);
		}
		pl_timeline_set_rgba(cr, &fg, 0.06);
		cairo_rectangle(cr, LABEL_W, l->y + LANE_H - 1, w - LABEL_W, 1);
		cairo_fill(cr);
	}

	PlTimelineScale sc = pl_thread_timeline_scale_of(self, w);
	if (self->irq)
		pl_timeline_irq_draw(self->irq, &sc, cr, pl, w, LABEL_W, &fg, dark);
	pl_thread_timeline_draw_events(self, cr, w);
	pl_timeline_triggers_draw(self->profile, &sc, cr, pl, 0, AXIS_H, h);
	g_object_unref(pl);
}

void pl_thread_timeline_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	/* a plain cast: the checked one calls the widget file's get_type */
	PlThreadTimeline *self = (PlThreadTimeline *)widget;
	int iw = gtk_widget_get_width(widget), ih = gtk_widget_get_height(widget);
	double w = iw, h = ih;
	pl_ui_timing_drew("timeline");
	if (iw <= 0 || ih <= 0)
		return;
	gboolean dark = pl_ui_is_dark(widget);
	if (!self->cache || self->cache_w != iw || self->cache_h != ih ||
	    self->cache_dark != dark) {
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
	if (!self->profile || (self->lanes->len == 0 && !self->irq))
		return;

	/* the selected range, or the one being dragged */
	GdkRGBA sel = sel_rgba;
	double sx0 = -1, sx1 = -1;
	if (self->dragging) {
		sx0 = MIN(self->drag_x0, self->drag_x1);
		sx1 = MAX(self->drag_x0, self->drag_x1);
	} else if (self->sel_t1 > self->sel_t0) {
		sx0 = pl_thread_timeline_time_to_x(self, self->sel_t0, w);
		sx1 = pl_thread_timeline_time_to_x(self, self->sel_t1, w);
	}
	if (sx1 > sx0) {
		sx0 = MAX(sx0, LABEL_W);
		gtk_snapshot_append_color(snapshot, &sel,
					  &GRAPHENE_RECT_INIT(sx0, AXIS_H, sx1 - sx0, h - AXIS_H));
		GdkRGBA edge = sel;
		edge.alpha = 0.9;
		gtk_snapshot_append_color(snapshot, &edge,
					  &GRAPHENE_RECT_INIT(sx0, AXIS_H, 1, h - AXIS_H));
		gtk_snapshot_append_color(snapshot, &edge,
					  &GRAPHENE_RECT_INIT(sx1 - 1, AXIS_H, 1, h - AXIS_H));
	}
}

void pl_thread_timeline_measure(GtkWidget *widget, GtkOrientation o, int for_size,
				       int *min, int *nat, int *min_base, int *nat_base)
{
	/* a plain cast: the checked one calls the widget file's get_type */
	PlThreadTimeline *self = (PlThreadTimeline *)widget;
	if (o == GTK_ORIENTATION_HORIZONTAL) {
		*min = (int)LABEL_W + 200;
		*nat = 1000;
		return;
	}
	double hgt = AXIS_H + 40;
	if (self->lanes->len) {
		Lane *l = &g_array_index(self->lanes, Lane, self->lanes->len - 1);
		hgt = l->y + LANE_H + 8;
	} else if (self->irq) {
		hgt = pl_timeline_irq_layout(self->irq, AXIS_H, PROC_H, LANE_H) + 8;
	}
	*min = *nat = (int)hgt;
}
