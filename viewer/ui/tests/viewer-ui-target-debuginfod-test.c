/* viewer-ui-target-debuginfod-test.c — the board's "Debuginfod URLs"
 * setting reaches the symbols of a file opened in the app
 * (pl_target_load_file, headless), and cancelling the load cancels a
 * fetch waiting on a server that never answers.
 *
 * The agent records a stripped copy of burn (this machine is the board:
 * the settings are saved under its hostname, in a private
 * XDG_CONFIG_HOME); the setting names a socket listening here that nobody
 * accepts from, DEBUGINFOD_URLS is unset and DEBUGINFOD_TIMEOUT is 30 s,
 * so only the cancel can end the fetch early. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
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

static gpointer cancel_later(gpointer c)
{
	g_usleep(1500 * 1000);
	g_cancellable_cancel(c);
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
	GThread *t = g_thread_new("cancel", cancel_later, cancel);
	gint64 t0 = g_get_monotonic_time();
	PlProfile *p = pl_target_load_file(rec, cancel, NULL, &error);
	double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
	g_thread_join(t);
	/* cancelled while the fetch waited (a load of this size reads its
	 * messages in one go: the profile may be whole, its burn unnamed) */
	PL_CHECKF(secs < 10, "the load took %.1f s (the fetch alone would take 90)", secs);
	PL_CHECKF(secs > 1.2, "the load ended in %.1f s, before the cancel: no fetch waited?",
		  secs);
	PL_CHECKF(p || g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED), "%s",
		  error ? error->message : "");
	/* the setting's server was asked (env DEBUGINFOD_URLS is unset) */
	fcntl(h, F_SETFL, O_NONBLOCK);
	int c = accept(h, NULL, NULL);
	PL_CHECKF(c >= 0, "nobody connected to the board's debuginfod URL");
	close(c);
	printf("# load with a fetch waiting on a silent server cancelled after %.1f s\n", secs);
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
	guint guard = g_timeout_add_seconds(20, quit_loop, seen.loop);
	t0 = g_get_monotonic_time();
	pl_load_job_load(loader, rec);
	g_main_loop_run(seen.loop);
	secs = (double)(g_get_monotonic_time() - t0) / 1e6;
	if (seen.finished)
		g_source_remove(guard);
	PL_CHECKF(seen.finished, "the load neither ended nor was cancelled in 20 s");
	PL_CHECKF(seen.status, "the loader never said a fetch was under way (%u ticks, %.1f s)", seen.ticks, secs);
	PL_CHECKF(strstr(seen.status, "burn") && strstr(seen.status, url) &&
			  strstr(seen.status, "connecting"),
		  "status: %s", seen.status);
	PL_CHECKF(secs < 10, "cancelled load took %.1f s", secs);
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
	g_setenv("DEBUGINFOD_TIMEOUT", "30", TRUE);
	g_unsetenv("DEBUGINFOD_URLS");
}

static void target_debuginfod(void)
{
	setup();
	board_setting_and_cancel();
}

PL_TEST_MAIN(PL_CASE(target_debuginfod))
