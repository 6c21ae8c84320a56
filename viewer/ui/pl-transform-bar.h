/* pl-transform-bar.h — the call-tree transforms as breadcrumbs above the
 * views: one crumb per transform of a PlViewState, in order, each with
 * its label (pl_transforms_dup_label) and an × that removes it (the rest
 * are applied again in their order), and "Reset" to clear them all.
 * Hidden while the stack is empty.  It follows the state's "changed" and
 * acts on the state only; the window re-aggregates on that signal.
 */
#ifndef PL_TRANSFORM_BAR_H
#define PL_TRANSFORM_BAR_H

#include <gtk/gtk.h>

#include "pl-view-state.h"

G_BEGIN_DECLS

#define PL_TYPE_TRANSFORM_BAR (pl_transform_bar_get_type())
G_DECLARE_FINAL_TYPE(PlTransformBar, pl_transform_bar, PL, TRANSFORM_BAR, GtkWidget)

/* state is referenced. */
GtkWidget *pl_transform_bar_new(PlViewState *state);
guint pl_transform_bar_get_n_crumbs(PlTransformBar *self);
/* What crumb i says (NULL past the end). */
char *pl_transform_bar_dup_crumb_label(PlTransformBar *self, guint i);
/* Crumb i's × and the Reset button, as a user clicks them (NULL when
 * absent). */
GtkButton *pl_transform_bar_get_remove_button(PlTransformBar *self, guint i);
GtkButton *pl_transform_bar_get_reset_button(PlTransformBar *self);

G_END_DECLS

#endif
