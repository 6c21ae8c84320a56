/* pl-agent-connect.h — reaching an agent without blocking the caller's main
 * loop: connect (or wait for an agent that dials in) and authenticate in a
 * worker thread, and say what went wrong, and what the board is, in words
 * for a window.
 *
 * No widgets: the app's connect view starts it, shows the result and hands
 * the client to its PlLiveSession (pl-live-session.h).  The socket and the
 * protocol are PlClient's (viewer/io/pl-client.h); what is here is the
 * worker and the user-facing reading of its errors.  Call from the thread
 * whose main context gets the result.
 */
#ifndef PL_AGENT_CONNECT_H
#define PL_AGENT_CONNECT_H

#include <gio/gio.h>

#include "pl-client.h"

G_BEGIN_DECLS

/* Connects to target "host[:port]" (listen FALSE, retrying a refused
 * connection for up to timeout_ms) or accepts an agent dialling in on port
 * target (listen TRUE, for up to 2 minutes), then authenticates with token
 * (NULL or "": none).  callback runs in the main context with source_object
 * (held until then). */
void pl_agent_connect_async(const char *target, const char *token, gboolean listen,
				   guint timeout_ms, gpointer source_object,
				   GAsyncReadyCallback callback, gpointer user_data);
/* The connected client (owned), or NULL with *message set to what failed
 * and what to do in this window: wrong or missing token, agent busy with
 * another viewer, protocol version mismatch, nothing listening, host
 * unknown or unreachable (g_free it). */
PlClient *pl_agent_connect_finish(GAsyncResult *res, char **message);
/* What the connect was asked to do. */
const char *pl_agent_connect_get_target(GAsyncResult *res);
gboolean pl_agent_connect_is_listen(GAsyncResult *res);

/* The board's facts from its HELLO as Pango markup (owned): host and peer,
 * machine, kernel, CPUs, word size and byte order, agent and protocol, why
 * perf_event_open fails there, the call graphs that gave stacks, hardware
 * events, then probe_summary (NULL: none) as plain text. */
char *pl_agent_describe(const PlAgentInfo *a, const char *peer, const char *probe_summary);

G_END_DECLS

#endif
