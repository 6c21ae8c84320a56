/* pl-coverage-view.h — symbol coverage of a session: one row per module.
 *
 * For every module the recording mapped (and the kernel): the board path,
 * the file used here (or "not found"), whether it has symbols, line info
 * and CFI (or EHABI), whether its build-id matches the board's, how many
 * addresses resolved in it, and the core's one-line advice
 * (PlModuleReport.problem, what `perflens report` prints under "Symbol
 * coverage"); and how many stacks stop short in it, with why
 * (pl_profile_dup_unwind_stops, the report's "Where stacks stop short").
 * The summary gives the share of stacks rooted at a start.  A header says how many modules need attention and offers
 * the target's symbol settings ("edit-settings" signal, string: the target
 * key, i.e. the board's hostname).
 *
 * set_profile() recomputes the rows (call it again as a live profile
 * grows); the profile is borrowed only during the call.  Main thread only.
 */
#ifndef PL_COVERAGE_VIEW_H
#define PL_COVERAGE_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_COVERAGE_VIEW (pl_coverage_view_get_type())
G_DECLARE_FINAL_TYPE(PlCoverageView, pl_coverage_view, PL, COVERAGE_VIEW, GtkWidget)

GtkWidget *pl_coverage_view_new(void);
void pl_coverage_view_set_profile(PlCoverageView *self, PlProfile *p);

guint pl_coverage_view_get_n_modules(PlCoverageView *self);
/* Modules without symbols, with a build-id mismatch or with advice. */
guint pl_coverage_view_get_n_problems(PlCoverageView *self);
/* The first advice shown (of the first module needing attention), or NULL;
 * owned by the view. */
const char *pl_coverage_view_get_first_advice(PlCoverageView *self);
/* The row whose board path ends with name: its advice (NULL: none) and
 * whether it was found with symbols and a matching build-id.  FALSE when
 * there is no such row. */
gboolean pl_coverage_view_lookup(PlCoverageView *self, const char *name, gboolean *good,
				 const char **advice);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile or one that grew. */
void pl_coverage_view_set_session(PlCoverageView *self, PlProfileSession *session);

G_END_DECLS

#endif
