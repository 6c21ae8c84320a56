/* pl-findings-view.h — the Findings page: what the findings rules
 * (pl-findings.h) see as unusual, each with a button that selects the view
 * and the thread / time range that show it, and the periodic tasks
 * (pl-periods.h) with their worst activations, each selectable.
 *
 * The profile is borrowed (see PlFlameGraph).  Following a session, a
 * file's findings are the session's (computed by its worker while the
 * views draw: the page says it is looking until they come); a live
 * profile's are computed here when it grows while the page is shown, or
 * when shown next.  Signal "computed": new findings are on the page (the
 * window's badge reads them).  Main thread only. */
#ifndef PL_FINDINGS_VIEW_H
#define PL_FINDINGS_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_FINDINGS_VIEW (pl_findings_view_get_type())
G_DECLARE_FINAL_TYPE(PlFindingsView, pl_findings_view, PL, FINDINGS_VIEW, GtkWidget)

/* Signal "show-target" (const char *view, guint tid, guint64 t0, guint64 t1):
 * a finding's or an activation's button asks for that view (a name of the
 * window's views stack) with that selection (tid 0: every thread; t0 = t1
 * = 0: the whole time). */

GtkWidget *pl_findings_view_new(void);
/* Computes the findings of p now (NULL clears); nothing when p is the
 * profile shown and it did not grow. */
void pl_findings_view_set_profile(PlFindingsView *self, PlProfile *p);
/* Whether a finding of warning severity is shown (the window then opens
 * on this page). */
gboolean pl_findings_view_has_warnings(PlFindingsView *self);
/* TRUE while the profile's findings are not on the page yet. */
gboolean pl_findings_view_is_pending(PlFindingsView *self);
/* Follows session: its profile, and a live profile's growth (the handlers
 * end with the widget). */
void pl_findings_view_set_session(PlFindingsView *self, PlProfileSession *session);

/* For tests: findings shown, finding i's rule id and view, and a click on
 * its button; periodic tasks shown and a click on task i's worst
 * activation.  NULL / FALSE past the end. */
guint pl_findings_view_get_n_findings(PlFindingsView *self);
const char *pl_findings_view_get_rule(PlFindingsView *self, guint i);
gboolean pl_findings_view_click(PlFindingsView *self, guint i);
guint pl_findings_view_get_n_tasks(PlFindingsView *self);
gboolean pl_findings_view_click_worst(PlFindingsView *self, guint task);

G_END_DECLS

#endif
