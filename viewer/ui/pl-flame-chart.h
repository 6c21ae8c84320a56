/* pl-flame-chart.h — the time-ordered flame chart of one thread.
 *
 * x is time, y the stack depth (root at the top): consecutive samples that
 * share a frame at a depth merge into one span, so calls read left to
 * right as they happened.  Shows the filtered thread, or the busiest one
 * when no thread is selected; the time range is the filter's.
 *
 * The profile is borrowed (see PlFlameGraph).
 */
#ifndef PL_FLAME_CHART_H
#define PL_FLAME_CHART_H

#include <gtk/gtk.h>

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_FLAME_CHART (pl_flame_chart_get_type())
G_DECLARE_FINAL_TYPE(PlFlameChart, pl_flame_chart, PL, FLAME_CHART, GtkWidget)

GtkWidget *pl_flame_chart_new(void);
void pl_flame_chart_set_data(PlFlameChart *self, PlProfile *profile, const PlFilter *filter);

G_END_DECLS

#endif
