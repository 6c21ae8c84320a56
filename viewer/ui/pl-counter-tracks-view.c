/* pl-counter-tracks-view.c — counter tracks under the timeline; see the
 * header.  The geometry follows pl-thread-timeline.c: a label column of
 * LABEL_W, the time axis from there to the right edge less 8 px. */
#include "pl-counter-tracks-view.h"
#include "pl-ui-util.h"

#include <math.h>

#define LABEL_W 230.0 /* the timeline's label column */
#define ROW_H 30.0
#define ROW_GAP 4.0
#define RIGHT_PAD 8.0

struct _PlCounterTracksView {
	GtkWidget parent_instance;
	PlProfile *profile; /* borrowed */
	guint64 t_start, t_end;
	guint64 sel0, sel1; /* the window's range (0, 0: none) */
};

G_DEFINE_FINAL_TYPE(PlCounterTracksView, pl_counter_tracks_view, GTK_TYPE_WIDGET)

static PlCounterTracks *tracks_of(PlCounterTracksView *self)
{
	return self->profile ? pl_profile_get_counter_tracks(self->profile) : NULL;
}

/* the rows: tracks with at least one value */
static const PlCounterTrack *row_track(PlCounterTracksView *self, guint row)
{
	PlCounterTracks *ct = tracks_of(self);
	for (guint i = 0, r = 0; ct && i < pl_counter_tracks_len(ct); i++) {
		const PlCounterTrack *t = pl_counter_tracks_get(ct, i);
		if (t->points->len && r++ == row)
			return t;
	}
	return NULL;
}

guint pl_counter_tracks_view_get_n_rows(PlCounterTracksView *self)
{
	guint n = 0;
	while (row_track(self, n))
		n++;
	return n;
}

static char *format_value(const PlCounterTrack *t, double v)
{
	double div;
	const char *unit = pl_counter_track_display(t, &div);
	double x = v / div;
	int digits = fabs(x) >= 100 ? 0 : fabs(x) >= 10 ? 1 : 2;
	return g_strdup_printf("%.*f %s", digits, x, unit);
}

/* the point at or before t (the first when t is before it) */
static const PlTrackPoint *point_at(const PlCounterTrack *t, guint64 time)
{
	const PlTrackPoint *p = (const PlTrackPoint *)(void *)t->points->data;
	guint lo = 0, hi = t->points->len;
	if (!hi)
		return NULL;
	if (!time)
		return &p[hi - 1];
	while (hi - lo > 1) {
		guint mid = (lo + hi) / 2;
		if (p[mid].time <= time)
			lo = mid;
		else
			hi = mid;
	}
	return &p[lo];
}

char *pl_counter_tracks_view_dup_row_text(PlCounterTracksView *self, guint i, guint64 t)
{
	const PlCounterTrack *tr = row_track(self, i);
	if (!tr)
		return NULL;
	PlCounterSummary s;
	pl_counter_track_summary(tr, 0, 0, &s);
	const PlTrackPoint *p = point_at(tr, t);
	g_autofree char *now = format_value(tr, p->value);
	g_autofree char *lo = format_value(tr, s.min);
	g_autofree char *mean = format_value(tr, s.mean);
	g_autofree char *hi = format_value(tr, s.max);
	return g_strdup_printf("%s: %s at %.3f s\nmin %s, mean %s, max %s over %" G_GUINT64_FORMAT
			       " polls every %u ms\nsource: %s (unit %s)%s",
			       tr->name, now,
			       p->time > self->t_start ? (double)(p->time - self->t_start) / 1e9 : 0.0,
			       lo, mean, hi, s.samples, tr->interval_ms, tr->source, tr->unit,
			       pl_counter_track_from_sysfs(tr)
				       ? "\n" PL_COUNTER_NOT_SEEN ": read as the kernel documents "
					 "the file, tested on fixture trees only"
				       : "");
}

static double time_to_x(PlCounterTracksView *self, guint64 t, double w)
{
	double span = (double)(self->t_end - self->t_start);
	t = CLAMP(t, self->t_start, self->t_end);
	return LABEL_W + (double)(t - self->t_start) / span * (w - LABEL_W - RIGHT_PAD);
}

static guint64 x_to_time(PlCounterTracksView *self, double x, double w)
{
	double f = (x - LABEL_W) / (w - LABEL_W - RIGHT_PAD);
	f = CLAMP(f, 0.0, 1.0);
	return self->t_start + (guint64)(f * (double)(self->t_end - self->t_start));
}

static void draw_row(PlCounterTracksView *self, cairo_t *cr, PangoLayout *pl,
		     const PlCounterTrack *t, double y, double w, const GdkRGBA *fg,
		     const GdkRGBA *line)
{
	PlCounterSummary s;
	pl_counter_track_summary(t, 0, 0, &s);
	/* levels and shares from 0; a temperature or a voltage in its band */
	double lo = s.min >= 0 && (t->kind == PL_TRACK_RSS || t->kind == PL_TRACK_CPU_BUSY ||
				   t->kind == PL_TRACK_CPU_IDLE || t->kind == PL_TRACK_POWER ||
				   t->kind == PL_TRACK_CURRENT)
			    ? 0
			    : s.min;
	double hi = s.max > lo ? s.max : lo + 1;
	const PlTrackPoint *last = point_at(t, 0);
	g_autofree char *now = format_value(t, last->value);
	g_autofree char *label = g_strdup_printf("%s  %s", t->name, now);
	gdk_cairo_set_source_rgba(cr, fg);
	pango_layout_set_width(pl, (int)((LABEL_W - 12) * PANGO_SCALE));
	pango_layout_set_ellipsize(pl, PANGO_ELLIPSIZE_MIDDLE);
	pl_ui_show_text(cr, pl, label, 6, y + (ROW_H - 14) / 2, 0);
	pango_layout_set_width(pl, -1);
	/* the band */
	double x0 = LABEL_W, x1 = w - RIGHT_PAD;
	cairo_set_source_rgba(cr, fg->red, fg->green, fg->blue, 0.06);
	cairo_rectangle(cr, x0, y, x1 - x0, ROW_H);
	cairo_fill(cr);
	/* the values: a step line, each value held until the next poll */
	cairo_save(cr);
	cairo_rectangle(cr, x0, y, x1 - x0, ROW_H);
	cairo_clip(cr);
	gdk_cairo_set_source_rgba(cr, line);
	cairo_set_line_width(cr, 1.2);
	const PlTrackPoint *p = (const PlTrackPoint *)(void *)t->points->data;
	for (guint i = 0; i < t->points->len; i++) {
		double x = time_to_x(self, p[i].time, w);
		double yv = y + ROW_H - 2 - (p[i].value - lo) / (hi - lo) * (ROW_H - 4);
		/* a value stands for the interval before it (a share over it, a
		 * level read at its end): across, then to the next value */
		if (i == 0)
			cairo_move_to(cr, x, yv);
		else
			cairo_line_to(cr, x, yv);
		if (i + 1 < t->points->len)
			cairo_line_to(cr, time_to_x(self, p[i + 1].time, w), yv);
	}
	cairo_stroke(cr);
	cairo_restore(cr);
}

static void pl_counter_tracks_view_snapshot(GtkWidget *widget, GtkSnapshot *snap)
{
	PlCounterTracksView *self = PL_COUNTER_TRACKS_VIEW(widget);
	double w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
	guint n = pl_counter_tracks_view_get_n_rows(self);
	if (!n || w <= LABEL_W + RIGHT_PAD + 10)
		return;
	cairo_t *cr = gtk_snapshot_append_cairo(snap, &GRAPHENE_RECT_INIT(0, 0, w, h));
	GdkRGBA fg;
	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	gboolean dark = pl_ui_is_dark(widget);
	GdkRGBA line = dark ? (GdkRGBA){ 0.55, 0.78, 1.0, 1 } : (GdkRGBA){ 0.10, 0.35, 0.75, 1 };
	PangoLayout *pl = gtk_widget_create_pango_layout(widget, NULL);
	if (self->sel1 > self->sel0) {
		double a = time_to_x(self, self->sel0, w), b = time_to_x(self, self->sel1, w);
		cairo_set_source_rgba(cr, line.red, line.green, line.blue, 0.12);
		cairo_rectangle(cr, a, 0, b - a, h);
		cairo_fill(cr);
	}
	for (guint i = 0; i < n; i++)
		draw_row(self, cr, pl, row_track(self, i), ROW_GAP + i * (ROW_H + ROW_GAP), w, &fg,
			 &line);
	g_object_unref(pl);
	cairo_destroy(cr);
}

static void pl_counter_tracks_view_measure(GtkWidget *widget, GtkOrientation o, int for_size,
					   int *min, int *nat, int *min_base, int *nat_base)
{
	PlCounterTracksView *self = PL_COUNTER_TRACKS_VIEW(widget);
	guint n = pl_counter_tracks_view_get_n_rows(self);
	if (o == GTK_ORIENTATION_HORIZONTAL) {
		*min = *nat = (int)LABEL_W + 60;
	} else {
		*min = *nat = n ? (int)(ROW_GAP + n * (ROW_H + ROW_GAP)) : 0;
	}
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean kb,
				 GtkTooltip *tooltip, gpointer data)
{
	PlCounterTracksView *self = PL_COUNTER_TRACKS_VIEW(widget);
	if (y < ROW_GAP)
		return FALSE;
	guint row = (guint)((y - ROW_GAP) / (ROW_H + ROW_GAP));
	double w = gtk_widget_get_width(widget);
	guint64 t = x >= LABEL_W ? x_to_time(self, x, w) : 0;
	g_autofree char *text = pl_counter_tracks_view_dup_row_text(self, row, t);
	if (!text)
		return FALSE;
	gtk_tooltip_set_text(tooltip, text);
	return TRUE;
}

void pl_counter_tracks_view_set_profile(PlCounterTracksView *self, PlProfile *profile)
{
	self->profile = profile;
	self->t_start = self->t_end = 0;
	if (profile) {
		const PlProfileStats *st = pl_profile_get_stats(profile);
		self->t_start = st->first_time;
		self->t_end = st->last_time > st->first_time ? st->last_time : st->first_time + 1;
	}
	gtk_widget_set_visible(GTK_WIDGET(self), pl_counter_tracks_view_get_n_rows(self) > 0);
	gtk_widget_queue_resize(GTK_WIDGET(self));
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlCounterTracksView *self)
{
	pl_counter_tracks_view_set_profile(self, pl_profile_session_get_profile(s));
}

static void on_session_updated(PlProfileSession *s, PlCounterTracksView *self)
{
	on_session_profile(s, NULL, self);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlCounterTracksView *self)
{
	PlFilter f = pl_profile_session_get_filter(s);
	self->sel0 = f.t0;
	self->sel1 = f.t1;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void pl_counter_tracks_view_set_session(PlCounterTracksView *self, PlProfileSession *session)
{
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}

static void pl_counter_tracks_view_class_init(PlCounterTracksViewClass *klass)
{
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	wc->snapshot = pl_counter_tracks_view_snapshot;
	wc->measure = pl_counter_tracks_view_measure;
	gtk_widget_class_set_css_name(wc, "countertracks");
}

static void pl_counter_tracks_view_init(PlCounterTracksView *self)
{
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	g_signal_connect(self, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
	gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
	gtk_widget_set_visible(GTK_WIDGET(self), FALSE);
}

GtkWidget *pl_counter_tracks_view_new(void)
{
	return g_object_new(PL_TYPE_COUNTER_TRACKS_VIEW, NULL);
}
