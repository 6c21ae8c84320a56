/* pl-live-session.h — one live connection to an agent and the recording
 * made through it, with no widgets: what the app's connect form and
 * `perflens record` both drive, and what a collector holds one of per
 * board.
 *
 * It holds the connected PlClient (handed over by whoever connected it:
 * pl-agent-connect.h in the app, pl_cli_connect for the command line), the
 * board's facts from HELLO, the ids of the requests in flight, the
 * recording's state and its PlSessionWriter (where the bytes go is decided
 * by the writer it is handed), and reads the socket from a source in the
 * thread-default GMainContext of the thread that made it.  Nothing global:
 * any number of sessions may live side by side in one context.
 *
 * Listeners are GObject signals, emitted in that context:
 *   "message" (gconstpointer struct pl_msg *): every message received,
 *       before the session acts on it (borrowed for the call);
 *   "recorded" (gconstpointer struct pl_msg *): the messages of a
 *       recording, from its start until END (included) — what a model
 *       ingests;
 *   "process" (gconstpointer struct pl_msg_proc *): a process of the list
 *       asked for with pl_live_session_list; "listed" (guint count) when
 *       that list is complete;
 *   "starting": a recording's file is made and START is about to go;
 *   "started" (const char *path): the agent accepted START;
 *   "ended" (const char *why, NULL or "" when it simply ended): the
 *       recording is over (END, START refused, the connection lost); the
 *       file is closed by then (deleted when START was refused);
 *   "problem" (const char *message): something failed that the user should
 *       read (a request refused, a failed send, a file that could not be
 *       closed), the session going on;
 *   "disconnected" (const char *why, NULL when asked for; const char
 *       *saved, the file of a recording the disconnect cut short, or NULL):
 *       the client is gone; emitted once per connection.
 * Not thread-safe: use it from the thread (context) that made it.
 */
#ifndef PL_LIVE_SESSION_H
#define PL_LIVE_SESSION_H

#include <glib-object.h>

#include "pl-client.h"
#include "pl-session-writer.h"

G_BEGIN_DECLS

#define PL_TYPE_LIVE_SESSION (pl_live_session_get_type())
G_DECLARE_FINAL_TYPE(PlLiveSession, pl_live_session, PL, LIVE_SESSION, GObject)

PlLiveSession *pl_live_session_new(void);

/* Takes client (connected and authenticated) and starts reading it; a
 * client held before is disconnected first. */
void pl_live_session_set_client(PlLiveSession *self, PlClient *client);
/* Says BYE, closes a recording's file (what arrived stays saved), drops
 * the client and emits "ended" (when recording) and "disconnected" with
 * why. */
void pl_live_session_disconnect(PlLiveSession *self, const char *why);

gboolean pl_live_session_is_connected(PlLiveSession *self);
/* Over SSH as a user perf_event_paranoid refuses, what to do about
 * perf_errno (HELLO's, or a START refused with -EACCES) for one target or
 * (all) the whole board, in one line (pl_ssh_perf_advice); NULL when not
 * connected, not over SSH, or not that case.  Owned by the caller. */
char *pl_live_session_dup_perf_advice(PlLiveSession *self, int perf_errno, gboolean all);
/* The board's HELLO (strings owned by the session), NULL when not
 * connected. */
const PlAgentInfo *pl_live_session_get_agent(PlLiveSession *self);
/* The agent's address, kept after a disconnect (NULL before a client). */
const char *pl_live_session_get_peer(PlLiveSession *self);

/* Sends a command (m's request id is set); its id, or 0: not connected,
 * or the send failed ("problem" says why). */
guint32 pl_live_session_send(PlLiveSession *self, struct pl_msg *m);
/* Asks for the board's processes ("process", then "listed"); FALSE when a
 * list is already being received or the send failed. */
gboolean pl_live_session_list(PlLiveSession *self);

/* Starts recording: writer (taken, whatever happens) gets every block from
 * now on (HELLO first), start is sent (its request id set).  FALSE with
 * *error when the writer could not be attached (its file is closed) or
 * START could not be sent (then the session has disconnected with that
 * error).  The agent's answer comes as "started" or "ended". */
gboolean pl_live_session_start(PlLiveSession *self, struct pl_msg *start,
			       PlSessionWriter *writer, GError **error);
/* Iterates the session's context until the agent answered START; FALSE
 * with *error as pl_client_request says it (refused: the errno's
 * G_IO_ERROR code; no answer in timeout_ms: G_IO_ERROR_TIMED_OUT; the
 * connection lost). */
gboolean pl_live_session_wait_started(PlLiveSession *self, guint timeout_ms, GError **error);
/* The agent's words accepting the last START (borrowed), or NULL. */
const char *pl_live_session_get_start_reply(PlLiveSession *self);
/* Pause or resume the recording (FALSE when not recording or the send
 * failed). */
gboolean pl_live_session_pause(PlLiveSession *self, gboolean pause);
/* Asks the agent to end the recording; it ends when END arrives.  FALSE
 * with *error when not recording or the send failed. */
gboolean pl_live_session_stop(PlLiveSession *self, GError **error);
/* Iterates the session's context until the recording ended.  TRUE when
 * the agent ended it (END); FALSE with *error when the connection was
 * lost first (G_IO_ERROR_CLOSED: the agent closed it) or cancellable was
 * cancelled (G_IO_ERROR_CANCELLED). */
gboolean pl_live_session_wait(PlLiveSession *self, GCancellable *cancellable, GError **error);

/* A recording is being made: from pl_live_session_start until it ended. */
gboolean pl_live_session_is_recording(PlLiveSession *self);
/* START was sent and not answered yet. */
gboolean pl_live_session_is_starting(PlLiveSession *self);
/* The agent sent END for the last recording. */
gboolean pl_live_session_got_end(PlLiveSession *self);
/* The last recording's file (kept after it ended; NULL before one, or
 * after a refused START deleted it). */
const char *pl_live_session_get_path(PlLiveSession *self);
/* Its bytes written so far (kept after it ended). */
guint64 pl_live_session_get_bytes(PlLiveSession *self);
/* Why closing it failed (fsync, close: the file may miss its end), or
 * NULL. */
const char *pl_live_session_get_save_error(PlLiveSession *self);
/* SAMPLEs received and samples the agent reported lost (LOST), since the
 * last start. */
guint64 pl_live_session_get_samples(PlLiveSession *self);
guint64 pl_live_session_get_lost(PlLiveSession *self);

G_END_DECLS

#endif
