/* pl-flight-save.h — the app's "Save now": a flight recorder's snapshot
 * (pl-flight-snapshot.h) fetched off the main loop into a folder, named as
 * the board named it, entered in the sessions index as a recording is when
 * it ends (pl-sessions-index.h), and the outcome in words for a window.
 *
 * Headless (GLib, GIO): the window's flight dialog gives the target and
 * token; the connect is pl-agent-connect.h's (whose errors already speak of
 * tokens, ports and busy agents), in the same worker; the dialog opens the
 * file it gets and never holds the client.
 */
#ifndef PL_FLIGHT_SAVE_H
#define PL_FLIGHT_SAVE_H

#include <gio/gio.h>

G_BEGIN_DECLS

/* How long a snapshot may take to come (the board writes the whole ring
 * first). */
#define PL_FLIGHT_SAVE_TIMEOUT_MS 60000

/* Called in the caller's main context once the agent accepted the
 * connection (peer: its "host:port"), before the snapshot comes. */
typedef void (*PlFlightSaveConnected)(GObject *source_object, const char *peer);

/* In a worker thread: connects to target "host:port" with token (NULL or
 * "": none), asks for the snapshot and saves it into dir (made 0700 when
 * missing) under the board's file name (NAME-2.plens … when taken), mode
 * 0600, and writes its sidecar (figures, peer).  A recorder serves one
 * viewer: with retry_busy (the caller just let go of its own connection
 * to it, which the board may not have seen yet) an agent busy with another
 * viewer is asked again, 250 ms apart, for about 5 s.  connected (may be
 * NULL) and then callback run in the caller's thread-default main context
 * with source_object (held until then). */
void pl_flight_save_async(const char *target, const char *token, gboolean retry_busy,
			  const char *dir, guint timeout_ms, PlFlightSaveConnected connected,
			  gpointer source_object, GAsyncReadyCallback callback,
			  gpointer user_data);
/* The saved file (owned), with *board_path (owned, may be NULL: where the
 * board kept its copy) and *size; or NULL with *message (owned) saying
 * what failed and what to do. */
char *pl_flight_save_finish(GAsyncResult *res, char **board_path, guint64 *size,
			    char **message);

/* A fetched snapshot at tmp (a file in dir) linked to dir/NAME.plens,
 * NAME-2.plens … after the board's file name (board_path may be NULL:
 * flight.plens), never over another file, and tmp removed; the new path
 * (owned), or NULL with error saying where the file still is. */
char *pl_flight_save_place(const char *tmp, const char *dir, const char *board_path,
			   GError **error);

G_END_DECLS

#endif
