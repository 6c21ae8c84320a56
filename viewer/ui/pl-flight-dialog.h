/* pl-flight-dialog.h — "Save now" for a flight recorder: where it is
 * (host:port, token), where the snapshot goes (the saved sessions by
 * default), the button, and what happened.
 *
 * Connects and fetches with pl-flight-save.h (viewer/core), off the main
 * loop; the dialog never holds the connection.  Signals: "saved" (const char *path): the snapshot is
 * saved there (mode 0600), for the window to open; "connecting" (const
 * char *target, returns gboolean): about to connect to target — a handler
 * that closes the app's own connection to that agent returns TRUE (a
 * flight recorder serves one viewer at a time: "busy" answers are then
 * retried for a few seconds).  Main thread only.
 */
#ifndef PL_FLIGHT_DIALOG_H
#define PL_FLIGHT_DIALOG_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PL_TYPE_FLIGHT_DIALOG (pl_flight_dialog_get_type())
G_DECLARE_FINAL_TYPE(PlFlightDialog, pl_flight_dialog, PL, FLIGHT_DIALOG, GtkWindow)

PlFlightDialog *pl_flight_dialog_new(GtkWindow *parent);
/* Fills the form (NULL leaves a field as it is). */
void pl_flight_dialog_set_target(PlFlightDialog *self, const char *target, const char *token);
void pl_flight_dialog_set_folder(PlFlightDialog *self, const char *dir);
/* What the Save now button does: FALSE (nothing started) while a save is
 * under way or without a target. */
gboolean pl_flight_dialog_save(PlFlightDialog *self);
/* A snapshot was saved from this dialog's target before (Save now again
 * needs no form). */
gboolean pl_flight_dialog_has_saved(PlFlightDialog *self);

/* State, for the UI tests. */
gboolean pl_flight_dialog_is_busy(PlFlightDialog *self);
const char *pl_flight_dialog_get_error(PlFlightDialog *self);
const char *pl_flight_dialog_get_saved_path(PlFlightDialog *self);
GtkWidget *pl_flight_dialog_get_save_button(PlFlightDialog *self);

G_END_DECLS

#endif
