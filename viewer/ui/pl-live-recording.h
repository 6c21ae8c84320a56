/* pl-live-recording.h — the file a live session is saved to as it streams.
 *
 * No widgets: made when the user starts a session (named after the board and
 * the target, pl_session_default_path, with -2, -3, … when a session of
 * that name exists), handed to the connection's PlClient,
 * which appends every block it receives (a session file starts with HELLO,
 * so it names its board), and closed when the session ends, the start is
 * refused (then deleted: nothing was recorded) or the connection drops (what
 * arrived stays saved).  The PlClient is borrowed: finish or discard the
 * recording before freeing the client.  Main thread only.
 */
#ifndef PL_LIVE_RECORDING_H
#define PL_LIVE_RECORDING_H

#include <glib.h>

#include "pl-client.h"

G_BEGIN_DECLS

typedef struct _PlLiveRecording PlLiveRecording;

/* Creates the session file for label; NULL with *error set (G_FILE_ERROR). */
PlLiveRecording *pl_live_recording_new(const char *label, GError **error);
/* From now on client saves what it receives into the file. */
gboolean pl_live_recording_attach(PlLiveRecording *self, PlClient *client, GError **error);
const char *pl_live_recording_get_path(PlLiveRecording *self);
/* Detaches the file from the client, closes it and frees self; returns the
 * file's path (g_free it), and sets *error when fsync or close failed (the
 * file may miss its end). */
char *pl_live_recording_finish(PlLiveRecording *self, GError **error);
/* As finish, and deletes the file: for a session that never started. */
void pl_live_recording_discard(PlLiveRecording *self);

G_END_DECLS

#endif
