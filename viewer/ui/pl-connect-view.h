/* pl-connect-view.h — connect to a board, choose what to record, control
 * the live session.
 *
 * The form binds to a PlLiveSession (viewer/core/pl-live-session.h), which
 * holds the connection, the requests and the recording with its file: the
 * view connects in a worker thread (pl-agent-connect.h, so the window never
 * waits on the network), hands the client to the session, and shows what
 * the session says.  The window's PlProfileSession follows the same live
 * session: it makes the recording's profile and ingests its messages.
 * Layout in pl-connect-view.ui.
 *
 * Signals: "connected", "disconnected" (string: why, or NULL),
 * "session-starting" (just before START is sent), "session-started"
 * (string: the file it is saved to), "session-ended" (string: the agent's
 * reason), "edit-symbols" (string: the board's hostname, the key of its
 * symbol settings).
 */
#ifndef PL_CONNECT_VIEW_H
#define PL_CONNECT_VIEW_H

#include <gtk/gtk.h>

#include "pl-capture.h"
#include "pl-live-session.h"

G_BEGIN_DECLS

#define PL_TYPE_CONNECT_VIEW (pl_connect_view_get_type())
G_DECLARE_FINAL_TYPE(PlConnectView, pl_connect_view, PL, CONNECT_VIEW, GtkWidget)

GtkWidget *pl_connect_view_new(void);
/* The live session the view binds to (borrowed; one for the view's life). */
PlLiveSession *pl_connect_view_get_session(PlConnectView *self);

/* How long a connect may take, retries of a refused connection included
 * (default 8 s; 0 restores it). */
void pl_connect_view_set_timeout(PlConnectView *self, guint ms);
/* Starts connecting (as the Connect button does); target "host[:port]".
 * A failure shows an error that says what to do: wrong or missing token,
 * agent busy with another viewer, protocol version mismatch, nothing
 * listening, host unknown or unreachable (pl_connect_view_get_error()). */
void pl_connect_view_connect(PlConnectView *self, const char *target, const char *token);
gboolean pl_connect_view_is_connected(PlConnectView *self);
gboolean pl_connect_view_is_recording(PlConnectView *self);
/* The last error shown to the user, or NULL. */
const char *pl_connect_view_get_error(PlConnectView *self);
/* The status line under the buttons ("Connected to … — listing
 * processes…"), for test reports. */
const char *pl_connect_view_get_status(PlConnectView *self);
const PlAgentInfo *pl_connect_view_get_agent(PlConnectView *self);
/* "host:port" of the connected agent, or NULL. */
const char *pl_connect_view_get_peer(PlConnectView *self);

/* The line about symbols before recording: the coverage of the last
 * session from this board (filled shortly after connecting). */
const char *pl_connect_view_get_symbols_note(PlConnectView *self);
/* The probe's notes on the board page (what is not available and why,
 * the LBR caveat), filled when the probe's messages arrive. */
const char *pl_connect_view_get_probe_notes(PlConnectView *self);
/* The board's facts shown after connecting (machine, kernel, agent, perf;
 * over SSH as a refused user, what to do), as text. */
const char *pl_connect_view_get_facts(PlConnectView *self);

/* Process list (after LIST's reply): rows shown under the current filter. */
void pl_connect_view_set_filter(PlConnectView *self, const char *text);
guint pl_connect_view_get_n_processes(PlConnectView *self);
/* Selects the first shown process whose name is comm (and whose pid is
 * pid, unless 0); FALSE when none. */
gboolean pl_connect_view_select_process(PlConnectView *self, const char *comm, guint32 pid);
void pl_connect_view_set_frequency(PlConnectView *self, guint hz);
/* "Or start a command": the agent spawns it and records it (wins over the
 * selected process; "" clears). */
void pl_connect_view_set_command(PlConnectView *self, const char *command);

/* "Slow system calls" and "slower than" (list "" or NULL: off). */
void pl_connect_view_set_syscalls(PlConnectView *self, const char *list, const char *slower_than);

/* The session buttons. */
void pl_connect_view_start(PlConnectView *self);
void pl_connect_view_pause(PlConnectView *self, gboolean pause);
void pl_connect_view_stop(PlConnectView *self);
void pl_connect_view_refresh(PlConnectView *self);
const char *pl_connect_view_get_session_path(PlConnectView *self);
guint64 pl_connect_view_get_samples(PlConnectView *self);

G_END_DECLS

#endif
