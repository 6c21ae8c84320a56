/* pl-health-view.h — the board's and the agent's health over time.
 *
 * Small-multiple line graphs, one per quantity the agent reports once a
 * second in HEALTH messages (board CPU busy, load, memory available, the
 * agent's CPU and RSS, bytes sent) and the session's own counts over time
 * (samples per second, lost records, throttles), each with its unit, its
 * current and peak value, and the selected time range shaded.
 *
 * The profile is borrowed (see PlFlameGraph).  Main thread only.
 */
#ifndef PL_HEALTH_VIEW_H
#define PL_HEALTH_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_HEALTH_VIEW (pl_health_view_get_type())
G_DECLARE_FINAL_TYPE(PlHealthView, pl_health_view, PL, HEALTH_VIEW, GtkWidget)

GtkWidget *pl_health_view_new(void);
/* Re-reads the series (call again as a live profile grows).  NULL clears. */
void pl_health_view_set_profile(PlHealthView *self, PlProfile *p);
/* Shades [t0, t1) (profile time, ns; t1 0: to the end; both 0: nothing). */
void pl_health_view_set_range(PlHealthView *self, guint64 t0, guint64 t1);

/* For tests: graphs drawn, and graph i's title, current and peak value
 * (in the unit shown).  NULL / 0 past the end. */
guint pl_health_view_get_n_series(PlHealthView *self);
const char *pl_health_view_get_series_name(PlHealthView *self, guint i);
double pl_health_view_get_series_last(PlHealthView *self, guint i);
double pl_health_view_get_series_peak(PlHealthView *self, guint i);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile or one that grew, and every new aggregate (the filter, the transforms).
 * Read while the widget is shown: a change meanwhile is read at its next
 * map, or by a getter first (pl-lazy-page.h). */
void pl_health_view_set_session(PlHealthView *self, PlProfileSession *session);

G_END_DECLS

#endif
