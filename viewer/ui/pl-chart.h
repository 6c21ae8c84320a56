/* pl-chart.h — small time charts: a series of (seconds, value) points and
 * the drawing of one chart of it, shared by the counters and health views.
 *
 * A chart is a plot area with a faint background, the time range shaded
 * when asked, a vertical grid line at each round time step, the axes, the
 * value axis' top label and 0 left of it, time labels under it, and the
 * series as a line (the latest reading as a dot when asked) or as bars of
 * one second each, optionally with a second series stacked on them in
 * another colour.  The views lay the charts out and draw their own label
 * column; this draws inside the rectangle it is given.
 *
 * Plain data and cairo calls: main thread (GTK's), no state of its own.
 */
#ifndef PL_CHART_H
#define PL_CHART_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum { PL_CHART_LINE, PL_CHART_BARS } PlChartKind;

/* The points are (seconds from the axis origin, value), in time order;
 * max and last follow the values added (for stacked bars: the sums). */
typedef struct {
	char *name;
	PlChartKind kind;
	GArray *pts;  /* double pairs */
	GArray *pts2; /* PL_CHART_BARS: stacked on pts (same times), or NULL */
	double max, last;
} PlChartSeries;

/* init/clear for a series embedded in a larger struct; new/free for one
 * on its own.  The name is copied. */
void pl_chart_series_init(PlChartSeries *s, const char *name);
void pl_chart_series_clear(PlChartSeries *s);
PlChartSeries *pl_chart_series_new(const char *name);
void pl_chart_series_free(gpointer s);
void pl_chart_series_add(PlChartSeries *s, double t, double v);
/* A bar of v with v2 stacked on it (pts2 made on first use). */
void pl_chart_series_add_stacked(PlChartSeries *s, double t, double v, double v2);
/* Point i's time and value (i < pts->len). */
const double *pl_chart_series_point(const PlChartSeries *s, guint i);

/* A "nice" axis top at or above v: 1, 2, 2.5, 5 × 10^k (1 for v ≤ 0). */
double pl_chart_nice_top(double v);

/* The widget's colours (text, the series, the stacked series, readable on
 * light and dark themes) and its text layouts: normal and small (axis
 * labels).  init takes references that clear drops. */
typedef struct {
	GdkRGBA fg, line, alt;
	gboolean dark;
	PangoLayout *text, *small;
} PlChartStyle;

void pl_chart_style_init(PlChartStyle *st, GtkWidget *widget);
void pl_chart_style_clear(PlChartStyle *st);

/* Where and how one chart is drawn. */
typedef struct {
	double x, y, w, h;     /* the plot area, px */
	double span_s;         /* the time axis: 0 to span_s; ≤ 0: no ticks, no data */
	double top;            /* the value drawn at the top (≤ 0: no data) */
	double headroom;       /* px kept free above top */
	const char *top_label; /* the value axis' top label */
	gboolean midline;      /* a grid line at half height */
	gboolean last_dot;     /* lines: the latest reading as a dot */
	gboolean shade;        /* shade the time range shade0..shade1 (seconds) */
	double shade0, shade1;
} PlChartArea;

void pl_chart_draw(cairo_t *cr, const PlChartStyle *st, const PlChartArea *a,
		   const PlChartSeries *s);

G_END_DECLS

#endif
