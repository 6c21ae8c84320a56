/* pl-flight-save.h — the app's "Save now": a flight recorder's snapshot
 * (pl-flight-snapshot.h) fetched off the main loop into a folder, named as
 * the board named it, and the outcome in words for a window.
 *
 * Headless (GLib, GIO): the window's flight dialog connects with
 * pl-agent-connect.h (whose errors already speak of tokens, ports and busy
 * agents), hands the client here, and opens the file it gets.
 */
#ifndef PL_FLIGHT_SAVE_H
#define PL_FLIGHT_SAVE_H

#include <gio/gio.h>

#include "pl-client.h"

G_BEGIN_DECLS

/* How long a snapshot may take to come (the board writes the whole ring
 * first). */
#define PL_FLIGHT_SAVE_TIMEOUT_MS 60000

/* Takes client (connected and authenticated; freed when done) and, in a
 * worker thread, asks for the snapshot and saves it into dir (made 0700
 * when missing) under the board's file name (NAME-2.plens … when taken),
 * mode 0600.  callback runs in the caller's thread-default main context. */
void pl_flight_save_async(PlClient *client, const char *dir, guint timeout_ms,
			  gpointer source_object, GAsyncReadyCallback callback,
			  gpointer user_data);
/* The saved file (owned), with *board_path (owned, may be NULL: where the
 * board kept its copy) and *size; or NULL with *message (owned) saying
 * what failed and what to do. */
char *pl_flight_save_finish(GAsyncResult *res, char **board_path, guint64 *size,
			    char **message);

G_END_DECLS

#endif
