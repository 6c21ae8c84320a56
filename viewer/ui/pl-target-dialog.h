/* pl-target-dialog.h — edit one board's symbol settings.
 *
 * A modal window over parent with every field of PlTargetSettings: the
 * toolchain prefix, sysroot, binaries, debug dirs, source dirs and path
 * maps (one per line), the map file, and inline frames on/off.  "Save"
 * validates (a path map must be FROM=TO, a map file must parse), stores
 * the settings (pl_target_settings_save) and emits "saved" (string: the
 * target key) so the window re-symbolizes; errors are shown in the dialog.
 * Main thread only.
 */
#ifndef PL_TARGET_DIALOG_H
#define PL_TARGET_DIALOG_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PL_TYPE_TARGET_DIALOG (pl_target_dialog_get_type())
G_DECLARE_FINAL_TYPE(PlTargetDialog, pl_target_dialog, PL, TARGET_DIALOG, GtkWindow)

/* note: a line under the title (e.g. that a live recording picks the
 * settings up when it ends); may be NULL. */
PlTargetDialog *pl_target_dialog_new(GtkWindow *parent, const char *key, const char *note);
/* What the Save button does; FALSE with the error shown (and in *error). */
gboolean pl_target_dialog_save(PlTargetDialog *self, GError **error);

G_END_DECLS

#endif
