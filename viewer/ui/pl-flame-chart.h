/* pl-flame-chart.h — the time-ordered flame chart of one thread.
 *
 * x is time, y the stack depth (root at the top): consecutive samples that
 * share a frame at a depth merge into one span, so calls read left to
 * right as they happened.  Shows the filtered thread, or the busiest one
 * when no thread is selected; the time range is the filter's.
 *
 * With the window's aggregate (agg, may be NULL) the chart shows the
 * call tree as the call-tree transforms made it: each sample's stack is
 * the path of the node its leaf maps to (agg->node_map), and a sample
 * mapped to none is not drawn.  "frame-menu" (guint node, guint func,
 * double x, double y): a right click on a span, as PlFlameGraph's.
 *
 * Drawn once per width and data, into a cached render node: the spans
 * narrower than a pixel that start in one pixel column of a depth are one
 * box a pixel wide, coloured as the longest of them (millions of spans
 * make thousands of boxes); hit-testing still finds the span itself.
 *
 * The profile is borrowed (see PlFlameGraph); agg only during the call.
 */
#ifndef PL_FLAME_CHART_H
#define PL_FLAME_CHART_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_FLAME_CHART (pl_flame_chart_get_type())
G_DECLARE_FINAL_TYPE(PlFlameChart, pl_flame_chart, PL, FLAME_CHART, GtkWidget)

GtkWidget *pl_flame_chart_new(void);
void pl_flame_chart_set_data(PlFlameChart *self, PlProfile *profile, const PlFilter *filter,
			     const PlAggregate *agg);
/* Spans of function func drawn (for scripts and tests). */
guint pl_flame_chart_count_spans(PlFlameChart *self, guint32 func);
/* The span's node at (x, y), PL_NO_ID when none. */
guint32 pl_flame_chart_node_at(PlFlameChart *self, double x, double y);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile, and every new aggregate (the filter, the transforms).
 * Read while the widget is shown: a change meanwhile is read at its next
 * map, or by a getter first (pl-lazy-page.h). */
void pl_flame_chart_set_session(PlFlameChart *self, PlProfileSession *session);

G_END_DECLS

#endif
