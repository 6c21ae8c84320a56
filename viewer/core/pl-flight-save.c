/* pl-flight-save.c — "Save now" off the main loop (see the header). */
#include "pl-flight-save.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-agent-connect.h"
#include "pl-flight-snapshot.h"
#include "pl-sessions-index.h"

/* How long connecting may take, retries of a refused connection included;
 * and how often an agent still busy with the viewer that let it go is
 * asked again, 250 ms apart */
#define CONNECT_TIMEOUT_MS 10000
#define BUSY_RETRIES 20

typedef struct {
	char *target, *token;
	gboolean retry_busy;
	PlFlightSaveConnected connected;
	char *dir, *peer;
	guint timeout_ms;
	/* the outcome */
	char *path, *board_path, *message;
	guint64 size;
} Save;

static void save_free(gpointer p)
{
	Save *s = p;
	g_free(s->target);
	g_free(s->token);
	g_free(s->dir);
	g_free(s->peer);
	g_free(s->path);
	g_free(s->board_path);
	g_free(s->message);
	g_free(s);
}

/* The fetch's error, with what to do in the app. */
static char *explain(const GError *e, const Save *s)
{
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
		return g_strdup_printf(
			"The agent at %s is not a flight recorder: it records when a viewer asks "
			"(Board… records from it).\nTo keep the last seconds in a ring you can "
			"save at any moment, start it with --flight SECONDS --port N.",
			s->peer);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
		return g_strdup_printf("The flight recorder at %s has not started recording yet.\n"
				       "Save now again in a moment.",
				       s->peer);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_BUSY))
		return g_strdup_printf("The flight recorder at %s is saving a snapshot for this "
				       "viewer already.\nWait for it, then Save now again.",
				       s->peer);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
		return g_strdup_printf(
			"The flight recorder at %s sent no snapshot within %u s.\nThe board may be "
			"slow to write it: its copy is in the agent's --snapshot-dir; Save now "
			"again, or fetch it with perflens snapshot.",
			s->peer, s->timeout_ms / 1000);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_CLOSED) ||
	    g_error_matches(e, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) ||
	    g_error_matches(e, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
		return g_strdup_printf("The connection to %s was lost while the snapshot came (%s)."
				       "\nThe board keeps its copy in the agent's --snapshot-dir: "
				       "Save now again.",
				       s->peer, e->message);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
		return g_strdup_printf("The snapshot from %s is damaged: %s.\nSave now again; the "
				       "board keeps its copy in the agent's --snapshot-dir.",
				       s->peer, e->message);
	/* the local file, or the board's refusal in its own words (its disk's
	 * reserve, the directory's caps) */
	return g_strdup_printf("No snapshot from %s: %s.\nIf it is this computer's folder, "
			       "choose another one in “Save in”.",
			       s->peer, e->message);
}

char *pl_flight_save_place(const char *tmp, const char *dir, const char *board_path,
			   GError **error)
{
	g_autofree char *base = g_path_get_basename(board_path && *board_path ? board_path
									 : "flight.plens");
	g_autofree char *stem = g_str_has_suffix(base, ".plens")
					? g_strndup(base, strlen(base) - strlen(".plens"))
					: g_strdup(base);
	for (guint i = 1; i < 1000; i++) {
		g_autofree char *name = i == 1 ? g_strdup_printf("%s.plens", stem)
					       : g_strdup_printf("%s-%u.plens", stem, i);
		g_autofree char *path = g_build_filename(dir, name, NULL);
		if (link(tmp, path) == 0) {
			g_unlink(tmp);
			return g_steal_pointer(&path);
		}
		if (errno != EEXIST) {
			int e = errno;
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
				    "cannot name the snapshot %s: %s (it is in %s)", path,
				    g_strerror(e), tmp);
			return NULL;
		}
	}
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS,
		    "a thousand snapshots named %s are in %s already (it is in %s)", base, dir, tmp);
	return NULL;
}

typedef struct {
	PlFlightSaveConnected fn;
	GObject *source;
	char *peer;
} Connected;

static gboolean say_connected(gpointer data)
{
	Connected *c = data;
	c->fn(c->source, c->peer);
	return G_SOURCE_REMOVE;
}

static void connected_free(gpointer data)
{
	Connected *c = data;
	g_clear_object(&c->source);
	g_free(c->peer);
	g_free(c);
}

/* Connected and authenticated, or NULL with s->message set. */
static PlClient *connect_agent(Save *s)
{
	for (guint attempt = 0;; attempt++) {
		g_autoptr(GError) error = NULL;
		g_autofree char *message = NULL;
		PlClient *client = pl_agent_connect_sync(s->target, s->token, CONNECT_TIMEOUT_MS,
							 &error, &message);
		if (client) {
			s->peer = g_strdup(pl_client_get_peer(client));
			return client;
		}
		if (!s->retry_busy || attempt >= BUSY_RETRIES ||
		    !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_BUSY)) {
			s->message = g_steal_pointer(&message);
			return NULL;
		}
		g_usleep(250 * 1000);
	}
}

static void save_thread(GTask *task, gpointer src, gpointer data, GCancellable *c)
{
	Save *s = data;
	GError *error = NULL;
	g_autoptr(PlClient) client = connect_agent(s);
	if (!client) {
		g_task_return_boolean(task, FALSE);
		return;
	}
	if (s->connected) {
		Connected *say = g_new0(Connected, 1);
		say->fn = s->connected;
		say->source = src ? g_object_ref(src) : NULL;
		say->peer = g_strdup(s->peer);
		g_main_context_invoke_full(g_task_get_context(task), G_PRIORITY_DEFAULT,
					   say_connected, say, connected_free);
	}
	if (g_mkdir_with_parents(s->dir, 0700) < 0) {
		int e = errno;
		s->message = g_strdup_printf("Cannot make the folder %s: %s.\nChoose another one in "
					     "“Save in”.",
					     s->dir, g_strerror(e));
		g_task_return_boolean(task, FALSE);
		return;
	}
	static gint counter;
	g_autofree char *tmp = g_strdup_printf("%s/.flight-%d-%d.part", s->dir, (int)getpid(),
					       g_atomic_int_add(&counter, 1));
	if (!pl_flight_snapshot_fetch(client, tmp, s->timeout_ms, &s->board_path, &s->size,
				      &error)) {
		s->message = explain(error, s);
		g_error_free(error);
		g_task_return_boolean(task, FALSE);
		return;
	}
	struct pl_msg bye = { .type = PL_MSG_BYE };
	pl_client_send(client, &bye, NULL);
	g_clear_pointer(&client, pl_client_free);
	s->path = pl_flight_save_place(tmp, s->dir, s->board_path, &error);
	if (!s->path) {
		s->message = explain(error, s);
		g_error_free(error);
	} else {
		/* in the sessions list as a recording is when it ends */
		pl_session_index_add(s->path, s->peer, NULL);
	}
	g_task_return_boolean(task, s->path != NULL);
}

void pl_flight_save_async(const char *target, const char *token, gboolean retry_busy,
			  const char *dir, guint timeout_ms, PlFlightSaveConnected connected,
			  gpointer source_object, GAsyncReadyCallback callback, gpointer user_data)
{
	Save *s = g_new0(Save, 1);
	s->target = g_strdup(target);
	s->token = g_strdup(token);
	s->retry_busy = retry_busy;
	s->connected = connected;
	s->dir = g_strdup(dir);
	s->timeout_ms = timeout_ms;
	GTask *task = g_task_new(source_object, NULL, callback, user_data);
	g_task_set_task_data(task, s, save_free);
	g_task_run_in_thread(task, save_thread);
	g_object_unref(task);
}

char *pl_flight_save_finish(GAsyncResult *res, char **board_path, guint64 *size, char **message)
{
	Save *s = g_task_get_task_data(G_TASK(res));
	gboolean ok = g_task_propagate_boolean(G_TASK(res), NULL);
	*message = ok ? NULL : g_strdup(s->message ? s->message : "No snapshot: unknown failure");
	if (!ok)
		return NULL;
	if (board_path)
		*board_path = g_strdup(s->board_path);
	if (size)
		*size = s->size;
	return g_strdup(s->path);
}
