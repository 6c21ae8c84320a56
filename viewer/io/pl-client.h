/* pl-client.h — the viewer's side of a live connection to an agent.
 *
 * Connect (or accept an agent that dials in with --server), read HELLO,
 * authenticate, send commands, receive the stream.  Every received message
 * goes to the handler; every received block can be saved verbatim into a
 * PlSessionWriter (blocks that arrived before one was attached, HELLO and
 * the probe, are kept and written when it is).  Saving splits the byte
 * stream into blocks itself (caps and CRC checked), so blocks that yield no
 * message (STACK definitions, unknown frames) are saved too.
 *
 * The socket is blocking with poll() timeouts, so the CLI drives it with
 * pl_client_poll() in a loop and the GTK app can add pl_client_get_fd() to
 * its main loop and call pl_client_poll(…, 0, …) when it is readable.
 * Input from the agent goes through common/reader.h (caps, CRC); a
 * malformed stream is an error for this connection only.
 *
 * One thread at a time.  Errors: G_IO_ERROR codes with a message that
 * says what to do.
 */
#ifndef PL_CLIENT_H
#define PL_CLIENT_H

#include <gio/gio.h>

#include "msg.h"
#include "pl-capture.h"
#include "pl-session-writer.h"

G_BEGIN_DECLS

#define PL_DEFAULT_PORT 9999

/* HELLO, copied (the message itself borrows reader buffers). */
typedef struct {
	guint32 protocol_version;
	char *agent_version;
	char *machine;
	char *kernel_release;
	char *hostname;
	guint32 e_machine;
	guint8 byte_order;
	guint8 word_size;
	guint32 ncpus;
	guint32 flags; /* enum pl_hello_flags */
	gint32 perf_errno;
	/* the board's clocks read together, and this host's monotonic time
	 * (µs) when they arrived: what puts the samples' clock on the wall */
	guint32 clock_id;
	guint64 clock_now_ns;
	guint64 wall_now_ns;
	gint64 hello_at_us;
} PlAgentInfo;

typedef struct _PlClient PlClient;

/* "host", "host:port", "[v6]:port".  Waits up to timeout_ms for the
 * connection and the agent's HELLO. */
PlClient *pl_client_connect(const char *host_port, guint timeout_ms, GError **error);
/* Listens on [addr:]port (default port 9999) and waits up to timeout_ms
 * (0: forever) for one agent started with --server to dial in. */
PlClient *pl_client_accept(const char *listen_addr, guint timeout_ms, GError **error);
/* A connection another transport made (ssh://, pl-ssh.h): fd is a
 * connected stream socket, owned by the client from here on (closed on
 * failure too); peer names the board in messages ("ssh://user@host").
 * transport is the caller's state, freed with free_transport after fd is
 * closed when the client is freed; explain, when the connection is lost
 * (closed, or a read or write failed), returns the message to give
 * instead of the client's own (or NULL to keep it), e.g. worded from
 * ssh's exit status and error output.  Waits up to timeout_ms for HELLO. */
typedef char *(*PlClientExplainFunc)(gpointer transport);
PlClient *pl_client_new_for_fd(int fd, const char *peer, guint timeout_ms, gpointer transport,
			       PlClientExplainFunc explain, GDestroyNotify free_transport,
			       GError **error);
void pl_client_free(PlClient *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlClient, pl_client_free)
/* The transport pl_client_new_for_fd was given, borrowed — only when
 * explain is the one it was given too (the transport's own check that the
 * state is its type); NULL otherwise. */
gpointer pl_client_get_transport(PlClient *self, PlClientExplainFunc explain);

const PlAgentInfo *pl_client_get_agent(PlClient *self);
const char *pl_client_get_peer(PlClient *self); /* "host:port" */
int pl_client_get_fd(PlClient *self);

/* Every message received from now on (including during request()). */
void pl_client_set_handler(PlClient *self, PlMsgFunc func, gpointer user_data);
/* Saves the session: blocks received so far, then each new one.  A later
 * writer on the same connection (a second recording) starts with HELLO
 * (re-encoded from the agent info, dated now), so every session file
 * names its board.  Borrowed: the writer must outlive the client or be
 * detached with NULL. */
gboolean pl_client_set_writer(PlClient *self, PlSessionWriter *writer, GError **error);

/* Sends a command frame; fills its request id.  Returns the id, 0 on error. */
guint32 pl_client_send(PlClient *self, struct pl_msg *m, GError **error);
/* Sends and waits for the REPLY with that id, dispatching whatever else
 * arrives meanwhile (PROC rows of a LIST, the stream) to the handler.  A
 * reply with status < 0 is an error whose message is the agent's. */
gboolean pl_client_request(PlClient *self, struct pl_msg *m, guint timeout_ms,
			   GError **error);
/* AUTH with the token (skipped when HELLO says no auth is needed and
 * token is NULL).  An agent that greeted with a partial HELLO
 * (PL_HELLO_PARTIAL) sends the full one before its answer, so the agent
 * info is complete when this returns TRUE.  Errors: PERMISSION_DENIED
 * (wrong or missing token), BUSY (another viewer controls the agent),
 * TIMED_OUT, CLOSED. */
gboolean pl_client_authenticate(PlClient *self, const char *token, guint timeout_ms,
				GError **error);

/* Waits up to timeout_ms for data and dispatches every complete message.
 * Returns FALSE on error or end of stream (G_IO_ERROR_CLOSED: the agent
 * closed the connection). */
gboolean pl_client_poll(PlClient *self, guint timeout_ms, GError **error);
guint64 pl_client_get_bytes_received(PlClient *self);
gboolean pl_client_got_end(PlClient *self); /* END received */

/* Fleet reporting (an agent started with --label dialling `perflens
 * collect`): the REPORT it sent right after its greeting, copied, or NULL
 * when none came (yet).  The token is the agent's proof, for the
 * collector to check before it answers; the REPORT's block is never saved
 * into a session file. */
typedef struct {
	char *token;
	char **labels; /* "KEY=VALUE", NULL-terminated */
	guint32 session_period_ms;
} PlAgentReport;
const PlAgentReport *pl_client_get_report(PlClient *self);

G_END_DECLS

#endif
