/* pl-diff-controller.h — the diff of the window: the open session as the
 * base, another saved session loaded to compare with it, and the Diff page
 * that shows the two.
 *
 * Drives the PlDiffView it is made for (the window's views stack holds it
 * as the page "diff", which has a tab only while a diff is shown; a
 * reference is kept), owns the other profile
 * and its loader (PlLoadJob, no progress shown).  The base is
 * borrowed: the window sets it whenever its profile changes, and clears
 * the diff before it frees the base.
 *
 * The diff follows the window's stack filter and transforms (PlViewState).
 *
 * Signals: "status" (const char *text), a line for the window's status bar;
 * "shown", the diff is ready (the window brings the Diff page forward).
 * Main thread only.
 */
#ifndef PL_DIFF_CONTROLLER_H
#define PL_DIFF_CONTROLLER_H

#include <gtk/gtk.h>

#include "pl-diff-view.h"
#include "pl-profile.h"
#include "pl-view-state.h"

G_BEGIN_DECLS

#define PL_TYPE_DIFF_CONTROLLER (pl_diff_controller_get_type())
G_DECLARE_FINAL_TYPE(PlDiffController, pl_diff_controller, PL, DIFF_CONTROLLER, GObject)

PlDiffController *pl_diff_controller_new(PlDiffView *view);
/* The Diff page (borrowed). */
PlDiffView *pl_diff_controller_get_view(PlDiffController *self);
/* The base, the window's profile (borrowed; NULL: none open). */
void pl_diff_controller_set_base(PlDiffController *self, PlProfile *base);
/* The window's call-tree transforms (a ref is kept): the diff is shaped by
 * them and made again whenever they change. */
void pl_diff_controller_set_view_state(PlDiffController *self, PlViewState *state);
/* Drops the diff shown (the other profile) and hides the Diff page. */
void pl_diff_controller_clear(PlDiffController *self);
/* Loads the saved session at path in the background and shows the diff of
 * the base against it; FALSE (nothing done) without a base or while one
 * loads. */
gboolean pl_diff_controller_compare(PlDiffController *self, const char *path);
gboolean pl_diff_controller_is_loading(PlDiffController *self);
/* Why the last comparison failed, or NULL. */
const char *pl_diff_controller_get_error(PlDiffController *self);

G_END_DECLS

#endif
