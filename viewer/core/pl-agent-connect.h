/* pl-agent-connect.h — reaching an agent without blocking the caller's main
 * loop: connect (or wait for an agent that dials in) and authenticate in a
 * worker thread, and say what went wrong, and what the board is, in words
 * for a window.
 *
 * No widgets: the app's connect view starts it and the client goes
 * straight to its PlLiveSession (pl-live-session.h); the view never holds
 * the client.  The socket and the protocol are PlClient's
 * (viewer/io/pl-client.h); what is here is the worker, the user-facing
 * reading of its errors, and the spelling of a target.  Call from the
 * thread whose main context gets the result.
 */
#ifndef PL_AGENT_CONNECT_H
#define PL_AGENT_CONNECT_H

#include <gio/gio.h>

#include "pl-client.h"
#include "pl-live-session.h"

G_BEGIN_DECLS

/* Connects to target "host[:port]" (listen FALSE, retrying a refused
 * connection for up to timeout_ms) or accepts an agent dialling in on port
 * target (listen TRUE, for up to 2 minutes), then authenticates with token
 * (NULL or "": none).  callback runs in the main context with source_object
 * (held until then). */
void pl_agent_connect_async(const char *target, const char *token, gboolean listen,
				   guint timeout_ms, gpointer source_object,
				   GAsyncReadyCallback callback, gpointer user_data);
/* TRUE when connected: the client is handed to session
 * (pl_live_session_set_client).  FALSE with *message set to what failed
 * and what to do in this window: wrong or missing token, agent busy with
 * another viewer, protocol version mismatch, nothing listening, host
 * unknown or unreachable (g_free it); session untouched then. */
gboolean pl_agent_connect_finish(GAsyncResult *res, PlLiveSession *session, char **message);
/* The same connect (not listening), blocking, for a worker thread of the
 * core (pl-flight-save.c): the client (owned), or NULL with *error (the
 * client's, its GIO code telling the cases apart) and *message (the
 * window's words, as pl_agent_connect_finish says them; owned). */
PlClient *pl_agent_connect_sync(const char *target, const char *token, guint timeout_ms,
				GError **error, char **message);
/* What the connect was asked to do. */
const char *pl_agent_connect_get_target(GAsyncResult *res);
gboolean pl_agent_connect_is_listen(GAsyncResult *res);

/* The target "host:port" a form's fields name: host (NULL or "":
 * 127.0.0.1) with port, or host alone when it is an ssh:// URL (its port
 * field is TCP's) or already carries a port.  Owned. */
char *pl_agent_target_join(const char *host, guint port);
/* The host of target (owned) and, when target names one, its port in
 * *port (0 to 65535; left alone otherwise: an ssh:// URL, a bracketed
 * address, a host alone). */
char *pl_agent_target_split(const char *target, guint *port);

/* The board's facts from its HELLO as Pango markup (owned): host and peer,
 * machine, kernel, CPUs, word size and byte order, agent and protocol, why
 * perf_event_open fails there, the call graphs that gave stacks, hardware
 * events, then probe_summary (NULL: none) as plain text. */
char *pl_agent_describe(const PlAgentInfo *a, const char *peer, const char *probe_summary);

G_END_DECLS

#endif
