/* pl-counters-view.h — counters over time and the session's health.
 *
 * One small chart per counted event (rate per second between readings,
 * scaled by enabled/running when multiplexed), IPC and miss rates when the
 * board counted the events they need, context switches per second from the
 * switch records, then sample/loss/throttle totals and
 * the agent's own CPU and memory from its HEALTH reports.
 *
 * The profile is borrowed (see PlFlameGraph).
 */
#ifndef PL_COUNTERS_VIEW_H
#define PL_COUNTERS_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_COUNTERS_VIEW (pl_counters_view_get_type())
G_DECLARE_FINAL_TYPE(PlCountersView, pl_counters_view, PL, COUNTERS_VIEW, GtkWidget)

GtkWidget *pl_counters_view_new(void);
void pl_counters_view_set_profile(PlCountersView *self, PlProfile *profile);
/* Charts drawn and chart i's title (NULL past the end), for tests. */
guint pl_counters_view_get_n_series(PlCountersView *self);
const char *pl_counters_view_get_series_name(PlCountersView *self, guint i);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile or one that grew.
 * Read while the widget is shown: a change meanwhile is read at its next
 * map, or by a getter first (pl-lazy-page.h). */
void pl_counters_view_set_session(PlCountersView *self, PlProfileSession *session);

G_END_DECLS

#endif
