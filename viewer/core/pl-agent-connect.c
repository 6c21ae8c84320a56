/* pl-agent-connect.c — connecting to an agent in a worker thread, and the
 * connect errors and the board's facts in the app's words (see
 * pl-agent-connect.h).
 */
#include "pl-agent-connect.h"

#include <string.h>

#include "pl-ssh.h"

typedef struct {
	char *target, *token;
	gboolean listen;
	guint timeout_ms;
} ConnectJob;

static void connect_job_free(gpointer p)
{
	ConnectJob *j = p;
	g_free(j->target);
	g_free(j->token);
	g_free(j);
}

/* Connects and authenticates (blocking); the client, or NULL with *error. */
static PlClient *connect_client(const ConnectJob *j, GError **error)
{
	PlClient *client = j->listen		      ? pl_client_accept(j->target, 120000, error)
			   : pl_ssh_is_url(j->target) ? pl_ssh_connect(j->target, NULL, j->timeout_ms, error)
						      : pl_client_connect(j->target, j->timeout_ms, error);
	if (client && !pl_client_authenticate(client, j->token && *j->token ? j->token : NULL,
					      j->timeout_ms, error))
		g_clear_pointer(&client, pl_client_free);
	return client;
}

static void connect_thread(GTask *task, gpointer src, gpointer data, GCancellable *c)
{
	GError *error = NULL;
	PlClient *client = connect_client(data, &error);
	if (!client)
		g_task_return_error(task, error);
	else
		g_task_return_pointer(task, client, (GDestroyNotify)pl_client_free);
}

/* The core's errors name the command line's options and say what failed;
 * here each case gets a headline and what to do in the app's window.  The
 * cases are told apart by GIO code (pl-client.h), then by the agent's
 * words where one code covers several. */
static char *gui_connect_error(const GError *e, const ConnectJob *j)
{
	g_autofree char *host = g_strdup(j->target);
	const char *port = NULL;
	char *colon = strrchr(host, ':');
	if (colon && host[0] != '[' && strchr(host, ':') == colon) {
		*colon = 0;
		port = colon + 1;
	}
	const char *m = e->message;
	double secs = j->timeout_ms / 1000.0;
	if (!j->listen && pl_ssh_is_url(j->target))
		/* pl-ssh.c's words already say what failed and what to do */
		return g_strdup_printf("Cannot connect over SSH.\n%c%s", g_ascii_toupper(m[0]),
				       m + 1);
	if (j->listen)
		return g_strdup_printf("No agent dialled in on port %s: %s\nStart the agent on the "
				       "board with --server THIS-HOST:%s, and check that no firewall "
				       "blocks the port here.",
				       j->target, m, j->target);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)) {
		if (j->token && *j->token)
			return g_strdup_printf(
				"Wrong token: the agent at %s did not accept it.\nCopy the agent's "
				"token into Token and connect again: its --token, or the file it "
				"named at start (perflens-agent-PORT.token). A generated token "
				"changes each time the agent starts; start it with --token-file to "
				"keep one.",
				j->target);
		return g_strdup_printf("The agent at %s needs a token.\nCopy its token into "
				       "Token, then connect: its --token, or the file it named at "
				       "start (perflens-agent-PORT.token).",
				       j->target);
	}
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_BUSY)) {
		/* "…busy: another viewer (PEER) controls this agent" */
		g_autofree char *who = NULL;
		const char *a = strstr(m, "viewer (");
		const char *b = a ? strchr(a, ')') : NULL;
		if (a && b)
			who = g_strndup(a + 8, (gsize)(b - a - 8));
		return g_strdup_printf(
			"Agent busy: another viewer%s%s%s is connected to the agent at %s.\nAn agent "
			"serves one viewer at a time: close that viewer (or stop its perflens record) "
			"and connect again.",
			who ? " (" : "", who ? who : "", who ? ")" : "", j->target);
	}
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED)) {
		/* "the agent at X speaks protocol N, this viewer M to N: use matching …" */
		g_autofree char *what = g_strdup(m);
		char *cut = strstr(what, ": use ");
		if (cut)
			*cut = 0;
		return g_strdup_printf("Protocol version mismatch: %s.\nInstall the agent and the "
				       "viewer from the same PerfLens release (perflens-agent "
				       "--version shows the agent's).",
				       what);
	}
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED))
		return g_strdup_printf("Nothing answers on port %s of %s (connection refused, "
				       "retried for %.0f s).\nStart perflens-agent --listen on the "
				       "board%s%s, or check the host and port.",
				       port ? port : "?", host, secs, port ? " --port " : "",
				       port ? port : "");
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_HOST_NOT_FOUND))
		return g_strdup_printf("Unknown host “%s”.\nCheck the spelling, or type the "
				       "board's IP address.",
				       host);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) && strstr(m, "HELLO"))
		return g_strdup_printf("Something answers at %s, but it is not a PerfLens agent (no "
				       "greeting within %.0f s).\nCheck the port: it is the agent's "
				       "--port (default %d).",
				       j->target, secs, PL_DEFAULT_PORT);
	if (g_error_matches(e, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ||
	    g_error_matches(e, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE) ||
	    g_error_matches(e, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE))
		return g_strdup_printf("%s is unreachable (%s).\nCheck that the board is on and on "
				       "this network (ping %s), that the address is right, and that "
				       "no firewall drops port %s.",
				       host,
				       g_error_matches(e, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)
					       ? "no answer"
					       : "no route",
				       host, port ? port : "?");
	return g_strdup_printf("Cannot connect to %s: %s", j->target, m);
}

void pl_agent_connect_async(const char *target, const char *token, gboolean listen,
				   guint timeout_ms, gpointer source_object,
				   GAsyncReadyCallback callback, gpointer user_data)
{
	ConnectJob *j = g_new0(ConnectJob, 1);
	j->target = g_strdup(target);
	j->token = g_strdup(token);
	j->listen = listen;
	j->timeout_ms = timeout_ms;
	GTask *task = g_task_new(source_object, NULL, callback, user_data);
	g_task_set_task_data(task, j, connect_job_free);
	g_task_run_in_thread(task, connect_thread);
	g_object_unref(task);
}

gboolean pl_agent_connect_finish(GAsyncResult *res, PlLiveSession *session, char **message)
{
	GTask *task = G_TASK(res);
	g_autoptr(GError) error = NULL;
	PlClient *client = g_task_propagate_pointer(task, &error);
	*message = client ? NULL : gui_connect_error(error, g_task_get_task_data(task));
	if (client)
		pl_live_session_set_client(session, client);
	return client != NULL;
}

PlClient *pl_agent_connect_sync(const char *target, const char *token, guint timeout_ms,
				GError **error, char **message)
{
	ConnectJob j = { .target = (char *)target, .token = (char *)token, .timeout_ms = timeout_ms };
	GError *e = NULL;
	PlClient *client = connect_client(&j, &e);
	*message = client ? NULL : gui_connect_error(e, &j);
	if (e)
		g_propagate_error(error, e);
	return client;
}

const char *pl_agent_connect_get_target(GAsyncResult *res)
{
	return ((const ConnectJob *)g_task_get_task_data(G_TASK(res)))->target;
}

gboolean pl_agent_connect_is_listen(GAsyncResult *res)
{
	return ((const ConnectJob *)g_task_get_task_data(G_TASK(res)))->listen;
}

/* ─── the board's facts ──────────────────────────────────────────────── */

char *pl_agent_describe(const PlAgentInfo *a, const char *peer, const char *probe_summary)
{
	GString *s = g_string_new(NULL);
	g_autofree char *host = g_markup_escape_text(a->hostname ? a->hostname : "?", -1);
	g_string_append_printf(s, "<b>%s</b>  (%s)\n", host, peer ? peer : "");
	g_string_append_printf(s, "Machine: %s   Linux %s   %u CPUs   %u-bit %s-endian\n",
			       a->machine ? a->machine : "?",
			       a->kernel_release ? a->kernel_release : "?", a->ncpus,
			       a->word_size * 8, a->byte_order == PL_BIG_ENDIAN ? "big" : "little");
	g_string_append_printf(s, "Agent %s, protocol %u",
			       a->agent_version ? a->agent_version : "?", a->protocol_version);
	if (!(a->flags & PL_HELLO_PERF_AVAILABLE))
		g_string_append_printf(s, "\n<b>perf_event_open fails there: %s</b>",
				       a->perf_errno ? g_strerror(ABS(a->perf_errno)) : "unknown reason");
	g_string_append(s, "\nCall graphs that gave stacks: ");
	gboolean any = FALSE;
	if (a->flags & PL_HELLO_CG_FP)
		g_string_append(s, "frame pointers"), any = TRUE;
	if (a->flags & PL_HELLO_CG_DWARF)
		g_string_append_printf(s, "%sDWARF", any ? ", " : ""), any = TRUE;
	if (a->flags & PL_HELLO_CG_LBR)
		g_string_append_printf(s, "%sLBR (a test sample had an LBR call stack; not verified "
					  "on Intel hardware)",
				       any ? ", " : ""),
			any = TRUE;
	if (!any)
		g_string_append(s, "none reported yet");
	g_string_append_printf(s, "   Hardware events: %s",
			       a->flags & PL_HELLO_HW_EVENTS ? "yes" : "no (software events only)");
	if (probe_summary) {
		g_autofree char *e = g_markup_escape_text(probe_summary, -1);
		g_string_append_printf(s, "\n%s", e);
	}
	return g_string_free(s, FALSE);
}

/* ─── targets ────────────────────────────────────────────────────────── */

char *pl_agent_target_join(const char *host, guint port)
{
	if (!host || !*host)
		host = "127.0.0.1";
	if (pl_ssh_is_url(host))
		return g_strdup(host); /* ssh://[user@]host[:port]: the port field is TCP's */
	if (strchr(host, ':') && host[0] != '[')
		return g_strdup(host); /* already host:port */
	return g_strdup_printf("%s:%u", host, port);
}

char *pl_agent_target_split(const char *target, guint *port)
{
	const char *colon = pl_ssh_is_url(target) ? NULL : strrchr(target, ':');
	if (!colon || target[0] == '[')
		return g_strdup(target);
	double v = g_ascii_strtod(colon + 1, NULL);
	*port = v <= 0 ? 0 : v >= G_MAXUINT16 ? G_MAXUINT16 : (guint)v;
	return g_strndup(target, (gsize)(colon - target));
}
