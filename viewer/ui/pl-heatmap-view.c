/* pl-heatmap-view.c — the sub-second heatmap page (see the header).
 *
 * One GtkDrawingArea in a scrolled window: a row-label column (ms within
 * the second), a column-label row (seconds), then the cells.  Cells are at
 * least MIN_CELL_W wide, so a long session scrolls sideways instead of
 * shrinking to lines; the height follows the page, never under MIN_CELL_H
 * a row.
 */
#include "pl-heatmap-view.h"

#include <math.h>

#include "pl-lazy-page.h"
#include "pl-ui-timing.h"
#include "pl-ui-util.h"

#define LEFT_W 54.0  /* row labels */
#define TOP_H 20.0   /* column labels */
#define MIN_CELL_W 14.0
#define MIN_CELL_H 7.0
#define PAD 6.0

struct _PlHeatmapView {
	GtkWidget parent_instance;
	GtkWidget *box;
	GtkLabel *note;
	GtkWidget *area;
	PlHeatmap *map;
	/* what map was counted from: recounted only when one changes */
	PlProfile *p;
	guint32 tid, event;
	guint n_samples;
	gboolean mapped; /* counted under transforms: recounted every time */
	guint64 t0, t1;        /* the window's range (0, 0: none) */
	PlProfileSession *session; /* weak: followed, read when shown */
	gboolean dragging;
	guint drag_col, drag_row, cur_col, cur_row;
};

G_DEFINE_FINAL_TYPE(PlHeatmapView, pl_heatmap_view, GTK_TYPE_WIDGET)

enum { SIG_RANGE, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ─── geometry ───────────────────────────────────────────────────────── */

static double cell_w(PlHeatmapView *self)
{
	double avail = gtk_widget_get_width(self->area) - LEFT_W - PAD;
	return self->map ? MAX(MIN_CELL_W, floor(avail / self->map->n_cols)) : MIN_CELL_W;
}

static double cell_h(PlHeatmapView *self)
{
	double avail = gtk_widget_get_height(self->area) - TOP_H - PAD;
	return self->map ? MAX(MIN_CELL_H, floor(avail / self->map->n_rows)) : MIN_CELL_H;
}

/* The cell under (x, y), clamped to the map when clamp; FALSE outside. */
static gboolean cell_at(PlHeatmapView *self, double x, double y, gboolean clamp, guint *col,
			guint *row)
{
	if (!self->map)
		return FALSE;
	double c = floor((x - LEFT_W) / cell_w(self)), r = floor((y - TOP_H) / cell_h(self));
	if (!clamp && (c < 0 || r < 0 || c >= self->map->n_cols || r >= self->map->n_rows))
		return FALSE;
	*col = (guint)CLAMP(c, 0, self->map->n_cols - 1);
	*row = (guint)CLAMP(r, 0, self->map->n_rows - 1);
	return TRUE;
}

/* The reading-order index of a cell. */
static guint64 idx(const PlHeatmap *m, guint col, guint row)
{
	return (guint64)col * m->n_rows + row;
}

/* ─── drawing ────────────────────────────────────────────────────────── */

static void draw(GtkDrawingArea *a, cairo_t *cr, int width, int height, gpointer data)
{
	PlHeatmapView *self = data;
	const PlHeatmap *m = self->map;
	pl_ui_timing_drew("heatmap");
	if (!m || !m->total)
		return;
	gboolean dark = pl_ui_is_dark(GTK_WIDGET(a));
	double cw = cell_w(self), ch = cell_h(self);
	PangoLayout *pl = gtk_widget_create_pango_layout(GTK_WIDGET(a), NULL);
	double fg = dark ? 0.85 : 0.2;

	/* labels: every second that fits, every 100 ms of the rows */
	cairo_set_source_rgb(cr, fg, fg, fg);
	guint every = (guint)MAX(1.0, ceil(36.0 / cw));
	for (guint c = 0; c < m->n_cols; c += every) {
		char buf[32];
		g_snprintf(buf, sizeof buf, "%us", c);
		pl_ui_show_text(cr, pl, buf, LEFT_W + c * cw + 1, 2, 0);
	}
	guint rows_per_label = (guint)MAX(1.0, ceil(16.0 / ch));
	guint step = (guint)(100000000ull / m->row_ns); /* rows in 100 ms */
	if (step < rows_per_label)
		step = rows_per_label;
	for (guint r = 0; r < m->n_rows; r += step) {
		char buf[32];
		g_snprintf(buf, sizeof buf, "%u ms", (guint)(r * m->row_ns / 1000000));
		pl_ui_show_text(cr, pl, buf, LEFT_W - 6, TOP_H + r * ch - 2, 1);
	}

	/* cells: empty ones in a faint grey, the others by their share of
	 * the busiest (the heat scale's sqrt keeps quiet cells visible) */
	for (guint c = 0; c < m->n_cols; c++)
		for (guint r = 0; r < m->n_rows; r++) {
			guint64 n = pl_heatmap_get(m, c, r);
			double x = LEFT_W + c * cw, y = TOP_H + r * ch;
			if (!n) {
				cairo_set_source_rgba(cr, fg, fg, fg, 0.06);
			} else {
				GdkRGBA rgba;
				pl_ui_heat_rgba((double)n / (double)m->max, dark, &rgba);
				rgba.alpha = MAX(rgba.alpha, 0.2f);
				gdk_cairo_set_source_rgba(cr, &rgba);
			}
			cairo_rectangle(cr, x, y, cw - 1, ch - 1);
			cairo_fill(cr);
		}

	/* the selection: a drag in progress, else the window's range */
	guint64 a0 = 0, a1 = 0;
	gboolean any = FALSE;
	if (self->dragging) {
		a0 = idx(m, self->drag_col, self->drag_row);
		a1 = idx(m, self->cur_col, self->cur_row);
		any = TRUE;
	} else if (self->t1 > self->t0) {
		guint c0, r0, c1, r1;
		if (!pl_heatmap_cell_at(m, self->t0, &c0, &r0))
			c0 = 0, r0 = 0;
		if (!pl_heatmap_cell_at(m, self->t1 - 1, &c1, &r1))
			c1 = m->n_cols - 1, r1 = m->n_rows - 1;
		a0 = idx(m, c0, r0);
		a1 = idx(m, c1, r1);
		any = TRUE;
	}
	if (any) {
		if (a1 < a0) {
			guint64 t = a0;
			a0 = a1;
			a1 = t;
		}
		cairo_set_source_rgba(cr, 0.15, 0.45, 0.95, 0.35);
		for (guint64 k = a0; k <= a1; k++) {
			guint c = (guint)(k / m->n_rows), r = (guint)(k % m->n_rows);
			cairo_rectangle(cr, LEFT_W + c * cw, TOP_H + r * ch, cw - 1, ch - 1);
		}
		cairo_fill(cr);
	}
	g_object_unref(pl);
}

static gboolean on_tooltip(GtkWidget *w, int x, int y, gboolean kb, GtkTooltip *tip,
			   gpointer data)
{
	PlHeatmapView *self = data;
	guint c, r;
	if (!cell_at(self, x, y, FALSE, &c, &r))
		return FALSE;
	guint64 t0, t1;
	pl_heatmap_range(self->map, c, r, c, r, &t0, &t1);
	double a = (double)(t0 - self->map->t0) / 1e9, b = (double)(t1 - self->map->t0) / 1e9;
	g_autofree char *s = g_strdup_printf("%.3f s – %.3f s: %" G_GUINT64_FORMAT " samples",
					     a, b, pl_heatmap_get(self->map, c, r));
	gtk_tooltip_set_text(tip, s);
	return TRUE;
}

/* ─── selecting ──────────────────────────────────────────────────────── */

void pl_heatmap_view_select(PlHeatmapView *self, guint col_a, guint row_a, guint col_b,
			    guint row_b)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	if (!self->map)
		return;
	guint64 t0, t1;
	pl_heatmap_range(self->map, MIN(col_a, self->map->n_cols - 1),
			 MIN(row_a, self->map->n_rows - 1), MIN(col_b, self->map->n_cols - 1),
			 MIN(row_b, self->map->n_rows - 1), &t0, &t1);
	g_signal_emit(self, signals[SIG_RANGE], 0, t0, t1);
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, PlHeatmapView *self)
{
	guint c, r;
	if (!cell_at(self, x, y, FALSE, &c, &r)) {
		gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_DENIED);
		return;
	}
	self->dragging = TRUE;
	self->drag_col = self->cur_col = c;
	self->drag_row = self->cur_row = r;
	gtk_widget_queue_draw(self->area);
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, PlHeatmapView *self)
{
	double x, y;
	if (!self->dragging || !gtk_gesture_drag_get_start_point(g, &x, &y))
		return;
	guint c, r;
	if (cell_at(self, x + dx, y + dy, TRUE, &c, &r) && (c != self->cur_col || r != self->cur_row)) {
		self->cur_col = c;
		self->cur_row = r;
		gtk_widget_queue_draw(self->area);
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, PlHeatmapView *self)
{
	if (!self->dragging)
		return;
	self->dragging = FALSE;
	pl_heatmap_view_select(self, self->drag_col, self->drag_row, self->cur_col, self->cur_row);
	gtk_widget_queue_draw(self->area);
}

/* ─── public ─────────────────────────────────────────────────────────── */

GtkWidget *pl_heatmap_view_new(void)
{
	return g_object_new(PL_TYPE_HEATMAP_VIEW, NULL);
}

void pl_heatmap_view_set_profile(PlHeatmapView *self, PlProfile *p, guint32 tid, guint32 event,
				 const guint32 *node_map)
{
	guint n = 0;
	if (p)
		pl_profile_get_samples(p, &n);
	if (p && p == self->p && tid == self->tid && event == self->event && n == self->n_samples &&
	    !node_map && !self->mapped)
		return; /* a range change: the cells stay */
	self->mapped = node_map != NULL;
	self->p = p;
	self->tid = tid;
	self->event = event;
	self->n_samples = n;
	g_clear_pointer(&self->map, pl_heatmap_free);
	if (p)
		self->map = pl_heatmap_new_mapped(p, tid, event, 0, node_map);
	const PlHeatmap *m = self->map;
	if (!m || !m->total) {
		gtk_label_set_text(self->note, "No samples to map yet.");
	} else {
		g_autofree char *s = g_strdup_printf(
			"%" G_GUINT64_FORMAT " samples%s: one column per second, %u ms a row, the "
			"busiest cell %" G_GUINT64_FORMAT ". Drag from one cell to another to "
			"select that time in every view; click a cell for its %u ms.",
			m->total, tid ? " of the selected thread" : "",
			(guint)(m->row_ns / 1000000), m->max, (guint)(m->row_ns / 1000000));
		gtk_label_set_text(self->note, s);
	}
	int w = m ? (int)(LEFT_W + m->n_cols * MIN_CELL_W + PAD) : 0;
	int h = m ? (int)(TOP_H + m->n_rows * MIN_CELL_H + PAD) : 0;
	gtk_widget_set_size_request(self->area, w, h);
	gtk_widget_queue_draw(self->area);
}

void pl_heatmap_view_set_range(PlHeatmapView *self, guint64 t0, guint64 t1)
{
	self->t0 = t0;
	self->t1 = t1;
	gtk_widget_queue_draw(self->area);
}

const PlHeatmap *pl_heatmap_view_get_heatmap(PlHeatmapView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->map;
}

static void pl_heatmap_view_dispose(GObject *obj)
{
	PlHeatmapView *self = PL_HEATMAP_VIEW(obj);
	if (self->session)
		g_object_remove_weak_pointer(G_OBJECT(self->session), (gpointer *)&self->session);
	self->session = NULL;
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_HEATMAP_VIEW);
	g_clear_pointer(&self->map, pl_heatmap_free);
	G_OBJECT_CLASS(pl_heatmap_view_parent_class)->dispose(obj);
}

static void pl_heatmap_view_class_init(PlHeatmapViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_heatmap_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-heatmap-view.ui");
	gtk_widget_class_bind_template_child(wc, PlHeatmapView, box);
	gtk_widget_class_bind_template_child(wc, PlHeatmapView, note);
	gtk_widget_class_bind_template_child(wc, PlHeatmapView, area);
	gtk_widget_class_bind_template_callback(wc, on_tooltip);
	gtk_widget_class_bind_template_callback(wc, on_drag_begin);
	gtk_widget_class_bind_template_callback(wc, on_drag_update);
	gtk_widget_class_bind_template_callback(wc, on_drag_end);
	signals[SIG_RANGE] = g_signal_new("range-selected", G_TYPE_FROM_CLASS(klass),
					  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
					  G_TYPE_UINT64, G_TYPE_UINT64);
}

static void pl_heatmap_view_init(PlHeatmapView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->area), draw, self, NULL);
	pl_ui_timing_watch_view(self->area, "heatmap"); /* in its scrolled window */
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlHeatmapView *self)
{
	pl_heatmap_view_set_profile(self, NULL, 0, PL_NO_ID, NULL);
}

/* the cells count every sample: only while the page is shown */
static void update_from_session(GtkWidget *w)
{
	PlHeatmapView *self = PL_HEATMAP_VIEW(w);
	PlProfileSession *s = self->session;
	if (!s)
		return;
	PlFilter f = pl_profile_session_get_filter(s);
	PlAggregate *agg = pl_profile_session_get_aggregate(s);
	pl_heatmap_view_set_profile(self, pl_profile_session_get_profile(s), f.tid, f.event,
				    agg ? agg->node_map : NULL);
	pl_heatmap_view_set_range(self, f.t0, f.t1);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlHeatmapView *self)
{
	pl_lazy_page_update(GTK_WIDGET(self), update_from_session);
}

void pl_heatmap_view_set_session(PlHeatmapView *self, PlProfileSession *session)
{
	self->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&self->session);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
