/* viewer-client-sessions-test.c — two session files on one connection to
 * the real agent (perflens-agent --listen on loopback): the agent sends
 * HELLO once per connection, and pl-client starts every session file with
 * it (the first with the blocks kept from before, a later one with HELLO
 * re-encoded), so each file names the board (the app's target settings
 * and the report's header come from it). */
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "viewer-test-util.h"

#include "pl-capture.h"
#include "pl-client.h"

typedef struct {
	guint hellos;
	guint messages;
	gboolean hello_first;
	char *hostname;
} Seen;

static gboolean see(const struct pl_msg *m, gpointer data)
{
	Seen *s = data;
	if (m->type == PL_MSG_HELLO) {
		if (s->messages == 0)
			s->hello_first = TRUE;
		s->hellos++;
		g_free(s->hostname);
		s->hostname = g_strndup(m->u.hello.hostname.p, m->u.hello.hostname.len);
	}
	s->messages++;
	return TRUE;
}

static GPid agent_pid;
static void stop_agent(void)
{
	if (agent_pid > 0) {
		kill(agent_pid, SIGTERM);
		waitpid(agent_pid, NULL, 0);
		g_spawn_close_pid(agent_pid);
		agent_pid = 0;
	}
}

static void check_file(const char *path, const char *host)
{
	Seen s = { 0 };
	g_autoptr(GError) error = NULL;
	PlCaptureInfo info;
	gboolean ok = pl_capture_load(path, see, &s, &info, &error);
	g_autofree char *name = s.hostname;
	PL_CHECKF(ok, "%s: %s", path, error ? error->message : "?");
	PL_CHECKF(s.hellos == 1 && s.hello_first, "%s: %u HELLO, first message HELLO: %d", path,
		  s.hellos, s.hello_first);
	PL_CHECKF(name && !strcmp(name, host), "%s names %s, expected %s", path,
		  name ? name : "(none)", host);
}

static void test_every_session_file_has_hello(void)
{
	g_autofree char *agent = vt_agent();
	PL_CHECKF(g_file_test(agent, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", agent);
	int port = vt_free_port();
	PL_CHECK(port > 0);
	g_autofree char *port_s = g_strdup_printf("%d", port);
	char *argv[] = { agent, (char *)"--listen", (char *)"--bind", (char *)"127.0.0.1",
			 (char *)"--port", port_s, (char *)"--token", (char *)"t0ken", NULL };
	g_autoptr(GError) error = NULL;
	PL_CHECKF(g_spawn_async(NULL, argv, NULL,
				G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
					G_SPAWN_STDERR_TO_DEV_NULL,
				NULL, NULL, &agent_pid, &error),
		  "%s", error->message);
	pl_test_after_case = stop_agent;
	g_autofree char *addr = g_strdup_printf("127.0.0.1:%d", port);
	PL_CHECKF(vt_wait_listening(port), "the agent does not listen on %d", port);
	g_autoptr(PlClient) cl = pl_client_connect(addr, 5000, &error);
	PL_CHECKF(cl, "%s", error->message);
	PL_CHECKF(pl_client_authenticate(cl, "t0ken", 5000, &error), "%s", error->message);

	g_autofree char *p1 = vt_tmp("first.plens"), *p2 = vt_tmp("second.plens");
	g_autoptr(PlSessionWriter) w1 = pl_session_writer_new(p1, &error);
	PL_CHECKF(w1, "%s", error->message);
	PL_CHECKF(pl_client_set_writer(cl, w1, &error), "%s", error->message);
	PL_CHECK(pl_client_set_writer(cl, NULL, NULL));
	g_clear_pointer(&w1, pl_session_writer_free);
	g_autoptr(PlSessionWriter) w2 = pl_session_writer_new(p2, &error);
	PL_CHECKF(w2, "%s", error->message);
	PL_CHECKF(pl_client_set_writer(cl, w2, &error), "%s", error->message);
	PL_CHECK(pl_client_set_writer(cl, NULL, NULL));
	g_clear_pointer(&w2, pl_session_writer_free);

	struct utsname u;
	uname(&u);
	check_file(p1, u.nodename);
	check_file(p2, u.nodename);
	stop_agent();
}

PL_TEST_MAIN({ "client_every_session_file_has_hello", test_every_session_file_has_hello })
