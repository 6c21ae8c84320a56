/* pl-diff-view.h — two recordings compared.
 *
 * A table of functions with each side's self and total share (each side
 * normalised by its own total weight, pl-diff.c), the change in self share
 * (other − base) coloured red where the other recording spends more
 * (slower) and blue where it spends less (faster), sorted by |Δ|; and a
 * differential flame graph: the other recording's call tree, each frame
 * coloured by how its stack's share changed against the base.
 *
 * Both profiles are borrowed: the caller keeps them alive while they are
 * shown, or calls set_profiles(NULL, NULL) first.  Main thread only.
 */
#ifndef PL_DIFF_VIEW_H
#define PL_DIFF_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile.h"
#include "pl-stack-filter.h"

G_BEGIN_DECLS

#define PL_TYPE_DIFF_VIEW (pl_diff_view_get_type())
G_DECLARE_FINAL_TYPE(PlDiffView, pl_diff_view, PL, DIFF_VIEW, GtkWidget)

GtkWidget *pl_diff_view_new(void);
/* Compares every sample of each (main event), both shaped by sf (the
 * window's stack filter and call-tree transforms, borrowed for the call;
 * NULL: none), so that a merge or a focus changes the diff as it changes
 * every other view.  Either profile NULL clears. */
void pl_diff_view_set_profiles(PlDiffView *self, PlProfile *base, PlProfile *other,
			       const PlStackFilter *sf);

/* For tests and scripts: rows shown (functions), and row i's label and
 * self-share change (other − base, in percentage points).  NULL / 0 past
 * the end.  The returned string is owned by the view. */
guint pl_diff_view_get_n_rows(PlDiffView *self);
const char *pl_diff_view_get_row_label(PlDiffView *self, guint row);
double pl_diff_view_get_row_delta(PlDiffView *self, guint row);

/* Selects a table row (G_MAXUINT clears) and highlights its function's
 * frames in the flame graph, as a click on the row does; the number of
 * frames highlighted. */
void pl_diff_view_select_row(PlDiffView *self, guint row);
guint pl_diff_view_get_selected_row(PlDiffView *self);
guint pl_diff_view_get_n_highlighted(PlDiffView *self);

G_END_DECLS

#endif
