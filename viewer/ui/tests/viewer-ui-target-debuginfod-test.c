/* viewer-ui-target-debuginfod-test.c — the board's "Debuginfod URLs"
 * setting reaches the symbols of a file opened in the app
 * (pl_target_load_file, headless), and cancelling the load cancels a
 * fetch waiting on a server that never answers.
 *
 * The agent records a stripped copy of burn (this machine is the board:
 * the settings are saved under its hostname, in a private
 * XDG_CONFIG_HOME); the setting names a socket listening here that nobody
 * answers, DEBUGINFOD_URLS is unset and DEBUGINFOD_TIMEOUT is an hour, so
 * only the cancel can end the fetch: that the loads end at all is the
 * check, with no time asked of them (a watchdog fails the case if one
 * has not ended WATCHDOG_S after its cancel, long before that hour). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pl-load-job.h"
#include "pl-target-settings.h"
#include "pl-test.h"

static char *tmp;

static char *run(char **argv, char **why)
{
	g_autofree char *out = NULL, *err = NULL;
	gint status = 0;
	GError *e = NULL;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err, &status,
			  &e)) {
		*why = g_strdup(e->message);
		g_error_free(e);
		return NULL;
	}
	if (!g_spawn_check_wait_status(status, NULL)) {
		*why = g_strdup_printf("%s failed: %s", argv[0], err ? err : "");
		return NULL;
	}
	return g_steal_pointer(&out);
}

#define WATCHDOG_S 300

/* The Cancel of the synchronous load: pressed once the fetch has
 * connected to the silent server (accepted here), so that the load is
 * cancelled while a fetch waits, however long a loaded machine takes to
 * get there; then a watchdog. */
typedef struct {
	GCancellable *cancel;
	int server, conn; /* the listening socket; the fetch's connection */
	gint done;	  /* the load returned */
} Canceller;

static gpointer cancel_when_connected(gpointer data)
{
	Canceller *c = data;
	struct pollfd p = { .fd = c->server, .events = POLLIN };
	for (int i = 0; i < WATCHDOG_S * 10 && !g_atomic_int_get(&c->done); i++)
		if (poll(&p, 1, 100) == 1 && (c->conn = accept(c->server, NULL, NULL)) >= 0)
			break;
	if (c->conn < 0)
		return NULL; /* no fetch came: the load ended without one */
	g_cancellable_cancel(c->cancel);
	for (int i = 0; i < WATCHDOG_S * 10 && !g_atomic_int_get(&c->done); i++)
		g_usleep(100 * 1000);
	if (!g_atomic_int_get(&c->done)) {
		printf("not ok target_debuginfod: the load did not end %d s after its cancel (the "
		       "fetch waits up to DEBUGINFOD_TIMEOUT, an hour)\n", WATCHDOG_S);
		fflush(stdout);
		_exit(1);
	}
	return NULL;
}

typedef struct {
	const char *url;
	char *status; /* the first fetch status naming url */
	gboolean finished;
	GMainLoop *loop;
	guint ticks;
} Seen;

static gboolean quit_loop(gpointer loop)
{
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

static void on_progress(PlLoadJob *l, Seen *s)
{
	g_autofree char *st = pl_load_job_dup_fetch_status(l);
	s->ticks++;
	if (!s->status && st && strstr(st, s->url)) {
		s->status = g_strdup(st);
		pl_load_job_cancel(l); /* the loading page's Cancel */
	}
}

static void on_finished(PlLoadJob *l, const char *path, Seen *s)
{
	PlProfile *p = pl_load_job_take_profile(l);
	if (p)
		pl_profile_free(p);
	s->finished = TRUE;
	g_main_loop_quit(s->loop);
}

static void board_setting_and_cancel(void)
{
	const char *b = g_getenv("PL_BUILD") ? g_getenv("PL_BUILD") : "build";
	g_autofree char *agent = g_build_filename(b, "perflens-agent", NULL);
	g_autofree char *burn = g_build_filename(b, "workloads", "burn", NULL);
	g_autofree char *stripped = g_build_filename(tmp, "burn", NULL);
	g_autofree char *rec = g_build_filename(tmp, "rec.plens", NULL);
	char *why = NULL;
	char *a1[] = { (char *)"strip", (char *)"-o", stripped, burn, NULL };
	g_autofree char *o1 = run(a1, &why);
	PL_CHECKF(o1, "%s", why);
	char *a2[] = { agent, (char *)"--output", rec, (char *)"--callgraph", (char *)"dwarf",
		       (char *)"--", stripped, (char *)"1", (char *)"1", NULL };
	g_autofree char *o2 = run(a2, &why);
	PL_CHECKF(o2, "%s", why);

	/* the server: completes connections, never answers */
	int h = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof sa;
	PL_CHECK(h >= 0 && bind(h, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(h, 64) == 0);
	PL_CHECK(getsockname(h, (struct sockaddr *)&sa, &len) == 0);

	g_autoptr(PlTargetSettings) s = pl_target_settings_load(g_get_host_name());
	s->debuginfod_urls = g_strdup_printf("http://127.0.0.1:%u", ntohs(sa.sin_port));
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_target_settings_save(s, &error), "%s", error ? error->message : "");
	g_autoptr(PlTargetSettings) back = pl_target_settings_load(g_get_host_name());
	PL_CHECK(!g_strcmp0(back->debuginfod_urls, s->debuginfod_urls));

	g_autoptr(GCancellable) cancel = g_cancellable_new();
	Canceller cc = { cancel, h, -1, 0 };
	GThread *t = g_thread_new("cancel", cancel_when_connected, &cc);
	gint64 t0 = g_get_monotonic_time();
	PlProfile *p = pl_target_load_file(rec, cancel, NULL, &error);
	double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
	gboolean cancelled = g_cancellable_is_cancelled(cancel);
	g_atomic_int_set(&cc.done, 1);
	g_thread_join(t);
	/* the setting's server was asked (env DEBUGINFOD_URLS is unset) */
	PL_CHECKF(cc.conn >= 0, "nobody connected to the board's debuginfod URL");
	close(cc.conn);
	/* ended by the cancel, pressed while the fetch waited: nothing else
	 * ends that fetch within the hour (a load of this size reads its
	 * messages in one go: the profile may be whole, its burn unnamed) */
	PL_CHECKF(cancelled, "the load ended before the cancel (%.1f s): no fetch waited?", secs);
	PL_CHECKF(p || g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED), "%s",
		  error ? error->message : "");
	printf("# load with a fetch waiting on a silent server ended by its cancel (%.1f s in all)\n",
	       secs);
	if (p)
		pl_profile_free(p);

	/* The app's loader (what the window's loading page shows every 250 ms),
	 * the same file opened again after that cancel: the fetch is asked
	 * again and named, module and server, while it waits, with no bytes
	 * yet; the page's Cancel (pl_load_job_cancel) ends it. */
	g_autofree char *url = g_strdup_printf("127.0.0.1:%u", ntohs(sa.sin_port));
	/* the same cache: the cancelled query above must not be remembered
	 * as "on no server" (libdebuginfod would not ask again for 10 min) */
	g_autoptr(PlLoadJob) loader = pl_load_job_new();
	Seen seen = { url, NULL, FALSE, g_main_loop_new(NULL, FALSE), 0 };
	g_signal_connect(loader, "progress", G_CALLBACK(on_progress), &seen);
	g_signal_connect(loader, "finished", G_CALLBACK(on_finished), &seen);
	guint guard = g_timeout_add_seconds(WATCHDOG_S, quit_loop, seen.loop);
	t0 = g_get_monotonic_time();
	pl_load_job_load(loader, rec);
	g_main_loop_run(seen.loop);
	secs = (double)(g_get_monotonic_time() - t0) / 1e6;
	if (seen.finished)
		g_source_remove(guard);
	/* the fetch waits an hour: only the cancel ends it before the guard */
	PL_CHECKF(seen.finished, "the load neither ended nor was cancelled in %d s", WATCHDOG_S);
	PL_CHECKF(seen.status, "the loader never said a fetch was under way (%u ticks, %.1f s)", seen.ticks, secs);
	PL_CHECKF(strstr(seen.status, "burn") && strstr(seen.status, url) &&
			  strstr(seen.status, "connecting"),
		  "status: %s", seen.status);
	printf("# the app's loader said \"%s\"; cancelled, it ended after %.1f s\n", seen.status,
	       secs);
	g_free(seen.status);
	g_main_loop_unref(seen.loop);
	close(h);
}

static void cleanup(void)
{
	if (tmp && !g_getenv("PL_KEEP_TMP")) {
		char *argv[] = { (char *)"rm", (char *)"-rf", tmp, NULL };
		char *why = NULL;
		g_free(run(argv, &why));
		g_free(why);
	}
}

static void setup(void)
{
	tmp = g_dir_make_tmp("plui-dbgd-XXXXXX", NULL);
	PL_CHECK(tmp);
	atexit(cleanup);
	g_autofree char *config = g_build_filename(tmp, "config", NULL);
	g_autofree char *cache = g_build_filename(tmp, "cache", NULL);
	g_autofree char *dcache = g_build_filename(tmp, "debuginfod", NULL);
	g_setenv("XDG_CONFIG_HOME", config, TRUE);
	g_setenv("XDG_CACHE_HOME", cache, TRUE);
	g_setenv("DEBUGINFOD_CACHE_PATH", dcache, TRUE);
	g_setenv("DEBUGINFOD_TIMEOUT", "3600", TRUE);
	g_unsetenv("DEBUGINFOD_URLS");
}

static void target_debuginfod(void)
{
	setup();
	board_setting_and_cancel();
}

PL_TEST_MAIN(PL_CASE(target_debuginfod))
