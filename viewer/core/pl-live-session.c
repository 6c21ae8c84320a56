/* pl-live-session.c — a live connection and its recording (see the
 * header). */
#include "pl-live-session.h"

#include <glib-unix.h>
#include <glib/gstdio.h>

#include "pl-ssh.h"

struct _PlLiveSession {
	GObject parent_instance;

	GMainContext *context; /* where the socket is read and signals come from */
	PlClient *client;
	GSource *watch;
	PlAgentInfo agent; /* copied strings */
	char *peer;
	GError *lost;	   /* why the last connection was lost, NULL: asked for */
	gboolean dispatching; /* inside the client's handler */
	gboolean disconnect_pending;
	char *pending_why;

	guint32 list_req, start_req;
	guint n_listed;
	gint32 start_status; /* the START reply's */
	char *start_message;

	PlSessionWriter *writer; /* while recording */
	char *path;
	guint64 bytes;
	char *save_error;
	gboolean recording, got_end;
	gboolean start_all; /* the pending START is for the whole board */
	guint64 samples, lost_samples;
};

G_DEFINE_FINAL_TYPE(PlLiveSession, pl_live_session, G_TYPE_OBJECT)

enum {
	SIG_MESSAGE,
	SIG_RECORDED,
	SIG_PROCESS,
	SIG_LISTED,
	SIG_STARTING,
	SIG_STARTED,
	SIG_ENDED,
	SIG_PROBLEM,
	SIG_DISCONNECTED,
	N_SIGNALS
};
static guint signals[N_SIGNALS];

static char *pstr(struct pl_str s)
{
	return g_strndup(s.p ? s.p : "", s.len);
}

static void problem(PlLiveSession *self, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void problem(PlLiveSession *self, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_signal_emit(self, signals[SIG_PROBLEM], 0, s);
}

/* ─── the recording's file ───────────────────────────────────────────── */

/* Detaches the writer from the client and closes it (deletes the file
 * when discard: a START refused recorded nothing).  Safe inside the
 * client's handler: a block is saved before its messages are dispatched,
 * so END's block is in the file. */
static void finish_writer(PlLiveSession *self, gboolean discard)
{
	if (!self->writer)
		return;
	if (self->client)
		pl_client_set_writer(self->client, NULL, NULL);
	self->bytes = pl_session_writer_get_bytes(self->writer);
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_session_writer_close(self->writer, &error);
	g_clear_pointer(&self->writer, pl_session_writer_free);
	if (discard) {
		g_unlink(self->path);
		g_clear_pointer(&self->path, g_free);
		return;
	}
	if (!ok) {
		g_free(self->save_error);
		self->save_error = g_strdup(error->message);
		problem(self, "%s", error->message);
	}
}

/* ─── the stream ─────────────────────────────────────────────────────── */

static void on_reply(PlLiveSession *self, const struct pl_msg_reply *r)
{
	g_autofree char *msg = pstr(r->message);
	if (r->request_id && r->request_id == self->list_req) {
		self->list_req = 0;
		g_signal_emit(self, signals[SIG_LISTED], 0, self->n_listed);
	} else if (r->request_id && r->request_id == self->start_req) {
		self->start_req = 0;
		self->start_status = r->status;
		g_free(self->start_message);
		self->start_message = g_strdup(msg);
		if (r->status < 0) {
			self->recording = FALSE;
			g_autofree char *advice =
				pl_ssh_perf_advice(self->client, r->status, self->start_all);
			g_autofree char *e = g_strdup_printf("Start refused: %s", advice ? advice : msg);
			/* nothing was recorded: no empty session in the list */
			finish_writer(self, TRUE);
			g_signal_emit(self, signals[SIG_ENDED], 0, e);
		} else {
			g_signal_emit(self, signals[SIG_STARTED], 0, self->path);
		}
	} else if (r->status < 0) {
		problem(self, "The agent refused: %s", msg);
	}
}

static gboolean on_msg(const struct pl_msg *m, gpointer data)
{
	PlLiveSession *self = data;
	g_signal_emit(self, signals[SIG_MESSAGE], 0, m);
	switch (m->type) {
	case PL_MSG_PROC:
		if (self->list_req && m->u.proc.request_id == self->list_req) {
			self->n_listed++;
			g_signal_emit(self, signals[SIG_PROCESS], 0, &m->u.proc);
		}
		break;
	case PL_MSG_REPLY:
		on_reply(self, &m->u.reply);
		break;
	case PL_MSG_SAMPLE:
		self->samples++;
		break;
	case PL_MSG_LOST:
		self->lost_samples += m->u.lost.count;
		break;
	case PL_MSG_END: {
		if (self->recording)
			g_signal_emit(self, signals[SIG_RECORDED], 0, m);
		self->recording = FALSE;
		self->got_end = TRUE;
		finish_writer(self, FALSE);
		g_autofree char *why = pstr(m->u.end.message);
		g_signal_emit(self, signals[SIG_ENDED], 0, why);
		return TRUE;
	}
	}
	if (self->recording)
		g_signal_emit(self, signals[SIG_RECORDED], 0, m);
	return TRUE;
}

static gboolean on_readable(gint fd, GIOCondition cond, gpointer data)
{
	PlLiveSession *self = g_object_ref(data);
	g_autoptr(GError) error = NULL;
	self->dispatching = TRUE;
	gboolean ok = pl_client_poll(self->client, 0, &error);
	self->dispatching = FALSE;
	gboolean keep = G_SOURCE_CONTINUE;
	if (!ok || self->disconnect_pending) {
		/* the source goes with this return, not with g_source_destroy */
		g_clear_pointer(&self->watch, g_source_unref);
		keep = G_SOURCE_REMOVE;
	}
	if (self->disconnect_pending) {
		g_autofree char *why = g_steal_pointer(&self->pending_why);
		self->disconnect_pending = FALSE;
		pl_live_session_disconnect(self, why);
	} else if (!ok) {
		g_clear_error(&self->lost);
		self->lost = error ? g_error_copy(error)
				   : g_error_new_literal(G_IO_ERROR, G_IO_ERROR_CLOSED,
							 "the agent closed the connection");
		pl_live_session_disconnect(self, self->lost->message);
	}
	g_object_unref(self);
	return keep;
}

/* ─── connection ─────────────────────────────────────────────────────── */

static void agent_info_clear(PlAgentInfo *a)
{
	g_free(a->agent_version);
	g_free(a->machine);
	g_free(a->kernel_release);
	g_free(a->hostname);
	memset(a, 0, sizeof *a);
}

void pl_live_session_set_client(PlLiveSession *self, PlClient *client)
{
	if (self->client)
		pl_live_session_disconnect(self, NULL);
	self->client = client;
	g_clear_error(&self->lost);
	agent_info_clear(&self->agent);
	const PlAgentInfo *a = pl_client_get_agent(client);
	self->agent = *a;
	self->agent.agent_version = g_strdup(a->agent_version);
	self->agent.machine = g_strdup(a->machine);
	self->agent.kernel_release = g_strdup(a->kernel_release);
	self->agent.hostname = g_strdup(a->hostname);
	g_free(self->peer);
	self->peer = g_strdup(pl_client_get_peer(client));
	pl_client_set_handler(client, on_msg, self);
	self->watch = g_unix_fd_source_new(pl_client_get_fd(client), G_IO_IN | G_IO_HUP | G_IO_ERR);
	g_source_set_callback(self->watch, G_SOURCE_FUNC(on_readable), self, NULL);
	g_source_attach(self->watch, self->context);
}

void pl_live_session_disconnect(PlLiveSession *self, const char *why)
{
	if (self->dispatching) {
		/* inside the client's handler: once it returns (on_readable) */
		self->disconnect_pending = TRUE;
		g_free(self->pending_why);
		self->pending_why = g_strdup(why);
		return;
	}
	if (self->watch) {
		g_source_destroy(self->watch);
		g_clear_pointer(&self->watch, g_source_unref);
	}
	gboolean was = self->client != NULL;
	if (self->client) {
		struct pl_msg bye = { .type = PL_MSG_BYE };
		pl_client_send(self->client, &bye, NULL);
	}
	gboolean was_recording = self->recording;
	/* before the client it is attached to; what arrived stays saved */
	if (was_recording)
		finish_writer(self, FALSE);
	g_clear_pointer(&self->client, pl_client_free);
	self->recording = FALSE;
	self->list_req = self->start_req = 0;
	if (was_recording)
		g_signal_emit(self, signals[SIG_ENDED], 0, why);
	if (was)
		g_signal_emit(self, signals[SIG_DISCONNECTED], 0, why,
			      was_recording ? self->path : NULL);
}

gboolean pl_live_session_is_connected(PlLiveSession *self)
{
	return self->client != NULL;
}

char *pl_live_session_dup_perf_advice(PlLiveSession *self, int perf_errno, gboolean all)
{
	return self->client ? pl_ssh_perf_advice(self->client, perf_errno, all) : NULL;
}

const PlAgentInfo *pl_live_session_get_agent(PlLiveSession *self)
{
	return self->client ? &self->agent : NULL;
}

const char *pl_live_session_get_peer(PlLiveSession *self)
{
	return self->peer;
}

/* ─── commands ───────────────────────────────────────────────────────── */

guint32 pl_live_session_send(PlLiveSession *self, struct pl_msg *m)
{
	if (!self->client)
		return 0;
	g_autoptr(GError) error = NULL;
	guint32 id = pl_client_send(self->client, m, &error);
	if (!id)
		problem(self, "%s", error->message);
	return id;
}

gboolean pl_live_session_list(PlLiveSession *self)
{
	if (!self->client || self->list_req)
		return FALSE;
	struct pl_msg m = { .type = PL_MSG_LIST };
	self->n_listed = 0;
	self->list_req = pl_live_session_send(self, &m);
	return self->list_req != 0;
}

gboolean pl_live_session_start(PlLiveSession *self, struct pl_msg *start,
			       PlSessionWriter *writer, GError **error)
{
	if (!self->client || self->recording) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
			    self->client ? "a recording is already being made"
					 : "not connected to an agent");
		pl_session_writer_free(writer);
		return FALSE;
	}
	self->writer = writer;
	g_free(self->path);
	self->path = g_strdup(pl_session_writer_get_path(writer));
	g_clear_pointer(&self->save_error, g_free);
	self->bytes = 0;
	self->samples = self->lost_samples = 0;
	self->got_end = FALSE;
	self->start_status = 0;
	g_signal_emit(self, signals[SIG_STARTING], 0);
	/* every session file of this connection starts with HELLO (pl-client) */
	if (!pl_client_set_writer(self->client, writer, error) ||
	    !pl_ssh_note_session(self->client, writer, error)) {
		finish_writer(self, FALSE);
		return FALSE;
	}
	self->recording = TRUE;
	self->start_all = start->u.start.target == PL_TARGET_ALL;
	self->start_req = pl_client_send(self->client, start, error);
	if (!self->start_req) {
		pl_live_session_disconnect(self, (*error)->message);
		return FALSE;
	}
	return TRUE;
}

static gboolean on_timed_out(gpointer data)
{
	*(gboolean *)data = TRUE;
	return G_SOURCE_REMOVE;
}

/* The connection was lost while waiting: why, as an error. */
static void set_lost(PlLiveSession *self, GError **error)
{
	if (self->lost)
		g_propagate_error(error, g_error_copy(self->lost));
	else
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CLOSED, "disconnected from the agent");
}

gboolean pl_live_session_wait_started(PlLiveSession *self, guint timeout_ms, GError **error)
{
	gboolean timed_out = FALSE;
	GSource *t = g_timeout_source_new(timeout_ms);
	g_source_set_callback(t, on_timed_out, &timed_out, NULL);
	g_source_attach(t, self->context);
	while (self->client && self->start_req && !timed_out)
		g_main_context_iteration(self->context, TRUE);
	g_source_destroy(t);
	g_source_unref(t);
	if (!self->client) {
		set_lost(self, error);
		return FALSE;
	}
	if (self->start_req) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
			    "the agent at %s did not answer START within %u ms", self->peer,
			    timeout_ms);
		return FALSE;
	}
	if (self->start_status < 0) {
		int e = -self->start_status;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "the agent refused START: %s",
			    self->start_message && *self->start_message ? self->start_message
									: g_strerror(e));
		return FALSE;
	}
	return TRUE;
}

const char *pl_live_session_get_start_reply(PlLiveSession *self)
{
	return self->start_status >= 0 ? self->start_message : NULL;
}

gboolean pl_live_session_pause(PlLiveSession *self, gboolean pause)
{
	if (!self->recording)
		return FALSE;
	struct pl_msg m = { .type = pause ? PL_MSG_PAUSE : PL_MSG_RESUME };
	return pl_live_session_send(self, &m) != 0;
}

gboolean pl_live_session_stop(PlLiveSession *self, GError **error)
{
	if (!self->recording || !self->client) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED, "nothing is being recorded");
		return FALSE;
	}
	struct pl_msg m = { .type = PL_MSG_STOP };
	return pl_client_send(self->client, &m, error) != 0;
}

static void on_cancelled(GCancellable *c, gpointer data)
{
	g_main_context_wakeup(data);
}

gboolean pl_live_session_wait(PlLiveSession *self, GCancellable *cancellable, GError **error)
{
	gulong id = cancellable ? g_cancellable_connect(cancellable, G_CALLBACK(on_cancelled),
							self->context, NULL)
				: 0;
	while (self->recording && self->client && !g_cancellable_is_cancelled(cancellable))
		g_main_context_iteration(self->context, TRUE);
	if (id)
		g_cancellable_disconnect(cancellable, id);
	if (self->got_end && !self->recording)
		return TRUE;
	if (g_cancellable_set_error_if_cancelled(cancellable, error))
		return FALSE;
	set_lost(self, error);
	return FALSE;
}

/* ─── state ──────────────────────────────────────────────────────────── */

gboolean pl_live_session_is_recording(PlLiveSession *self) { return self->recording; }
gboolean pl_live_session_is_starting(PlLiveSession *self) { return self->start_req != 0; }
gboolean pl_live_session_got_end(PlLiveSession *self) { return self->got_end; }
const char *pl_live_session_get_path(PlLiveSession *self) { return self->path; }
const char *pl_live_session_get_save_error(PlLiveSession *self) { return self->save_error; }
guint64 pl_live_session_get_samples(PlLiveSession *self) { return self->samples; }
guint64 pl_live_session_get_lost(PlLiveSession *self) { return self->lost_samples; }

guint64 pl_live_session_get_bytes(PlLiveSession *self)
{
	return self->writer ? pl_session_writer_get_bytes(self->writer) : self->bytes;
}

/* ─── object ─────────────────────────────────────────────────────────── */

PlLiveSession *pl_live_session_new(void)
{
	return g_object_new(PL_TYPE_LIVE_SESSION, NULL);
}

static void pl_live_session_init(PlLiveSession *self)
{
	self->context = g_main_context_ref_thread_default();
}

static void pl_live_session_dispose(GObject *obj)
{
	PlLiveSession *self = PL_LIVE_SESSION(obj);
	if (self->watch) {
		g_source_destroy(self->watch);
		g_clear_pointer(&self->watch, g_source_unref);
	}
	/* no signals from a session going away: close quietly */
	if (self->writer) {
		if (self->client)
			pl_client_set_writer(self->client, NULL, NULL);
		pl_session_writer_close(self->writer, NULL);
		g_clear_pointer(&self->writer, pl_session_writer_free);
	}
	g_clear_pointer(&self->client, pl_client_free);
	G_OBJECT_CLASS(pl_live_session_parent_class)->dispose(obj);
}

static void pl_live_session_finalize(GObject *obj)
{
	PlLiveSession *self = PL_LIVE_SESSION(obj);
	agent_info_clear(&self->agent);
	g_free(self->peer);
	g_clear_error(&self->lost);
	g_free(self->pending_why);
	g_free(self->start_message);
	g_free(self->path);
	g_free(self->save_error);
	g_main_context_unref(self->context);
	G_OBJECT_CLASS(pl_live_session_parent_class)->finalize(obj);
}

static void pl_live_session_class_init(PlLiveSessionClass *klass)
{
	GObjectClass *oc = G_OBJECT_CLASS(klass);
	oc->dispose = pl_live_session_dispose;
	oc->finalize = pl_live_session_finalize;
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_MESSAGE] = g_signal_new("message", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 1, G_TYPE_POINTER);
	signals[SIG_RECORDED] = g_signal_new("recorded", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					     G_TYPE_NONE, 1, G_TYPE_POINTER);
	signals[SIG_PROCESS] = g_signal_new("process", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 1, G_TYPE_POINTER);
	signals[SIG_LISTED] = g_signal_new("listed", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					   G_TYPE_NONE, 1, G_TYPE_UINT);
	signals[SIG_STARTING] = g_signal_new("starting", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					     G_TYPE_NONE, 0);
	signals[SIG_STARTED] = g_signal_new("started", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_ENDED] = g_signal_new("ended", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					  G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_PROBLEM] = g_signal_new("problem", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_DISCONNECTED] = g_signal_new("disconnected", t, G_SIGNAL_RUN_LAST, 0, NULL,
						 NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING,
						 G_TYPE_STRING);
}
