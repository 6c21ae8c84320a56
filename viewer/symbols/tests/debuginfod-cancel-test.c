/* debuginfod-cancel-test.c — pl-debuginfod.c's contract with its caller,
 * against a server that accepts connections and never answers (a socket
 * listening here that nobody accepts from): the progress callback is
 * called while the client waits and cancels it by returning FALSE, after
 * which nothing more is asked; locating and the coverage report ask
 * nothing.  What was asked is counted where it arrives, the connections
 * queued on that socket, never by how long a call took.  The real server
 * is debuginfod-test.sh's. */
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pl-build-id.h"
#include "sym-test-util.h"

#define PID 4243u
#define BASE 0x5555aaaa0000ull

typedef struct {
	guint calls, finished;
	gboolean cancel;
	char *message;
} Seen;

static gboolean on_progress(const PlFetchProgress *p, gpointer data)
{
	Seen *s = data;
	if (p->finished) {
		s->finished++;
		g_free(s->message);
		s->message = g_strdup(p->message);
		return TRUE;
	}
	s->calls++;
	return !s->cancel;
}

/* The connections queued on the hole since the last call, accepted and
 * closed (the listening socket is non-blocking). */
static guint connections(int h)
{
	guint n = 0;
	int c;
	while ((c = accept4(h, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(c);
		n++;
	}
	PL_CHECKF(errno == EAGAIN || errno == EWOULDBLOCK, "accept: %s", g_strerror(errno));
	return n;
}

/* A TCP port of 127.0.0.1 that completes connections and never answers. */
static int hole(guint16 *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	PL_CHECK(fd >= 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof a;
	PL_CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 64) == 0);
	PL_CHECK(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* A stripped copy of burn (its debug info elsewhere, unknown here) mapped
 * into PID at BASE as board path "/usr/bin/NAME"; returns the bias. */
static guint64 map_stripped(PlSymbols *s, const char *stripped, const char *name)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize n = 0;
	g_autofree char *board = g_strconcat("/usr/bin/", name, NULL);
	{
		/* the build-id as the agent sends it */
		char *why = NULL;
		char *argv[] = { (char *)"readelf", (char *)"-n", (char *)stripped, NULL };
		g_autofree char *out = t_run(argv, &why);
		g_free(why);
		const char *p = out ? strstr(out, "Build ID: ") : NULL;
		PL_CHECKF(p, "no build-id in %s", stripped);
		for (p += 10; n < sizeof id && g_ascii_isxdigit(p[0]) && g_ascii_isxdigit(p[1]); p += 2)
			id[n++] = (guint8)(g_ascii_xdigit_value(p[0]) << 4 | g_ascii_xdigit_value(p[1]));
	}
	return t_map_elf(s, PID, stripped, board, BASE + (name[0] == 'b' ? 0 : 0x10000000), id, n);
}

static PlSymbols *symbols_for(const char *url, Seen *seen, char **full, char **stripped)
{
	*full = g_build_filename(t_build_dir(), "workloads", "burn", NULL);
	PL_CHECKF(g_file_test(*full, G_FILE_TEST_IS_EXECUTABLE), "%s is not built (make)", *full);
	*stripped = g_build_filename(t_tmp(), "burn", NULL);
	g_autofree char *dbg = g_build_filename(t_tmp(), "burn.debug", NULL);
	t_split_debug(*full, dbg, *stripped);
	g_unlink(dbg); /* nowhere to be found but on a server */
	g_autofree char *cache = g_build_filename(t_tmp(), "dbgd-cache", NULL);
	g_setenv("DEBUGINFOD_CACHE_PATH", cache, TRUE);
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(*stripped));
	o.debuginfod_urls = g_strdup(url);
	o.fetch_progress = on_progress;
	o.fetch_progress_data = seen;
	PlTargetArch arch = t_host_arch();
	PlSymbols *s = pl_symbols_new(&o, &arch);
	g_free(o.debuginfod_urls);
	t_opts_clear(&o);
	return s;
}

static void cancel_from_progress(void)
{
	guint16 port;
	int h = hole(&port);
	g_autofree char *url = g_strdup_printf("http://127.0.0.1:%u", port);
	/* without the cancel the client would wait an hour: only the cancel
	 * ends this fetch (a broken one hangs until the harness's timeout) */
	g_setenv("DEBUGINFOD_TIMEOUT", "3600", TRUE);
	Seen seen = { .cancel = TRUE };
	g_autofree char *full = NULL, *stripped = NULL;
	g_autoptr(PlSymbols) s = symbols_for(url, &seen, &full, &stripped);
	guint64 bias = map_stripped(s, stripped, "burn"), a, sz;
	PL_CHECK(t_nm(full, "hot_leaf", &a, &sz));
	PlFrameInfo f[8];
	pl_symbols_resolve(s, PID, bias + a, FALSE, f, 8);
	guint asked = connections(h);
	PL_CHECKF(asked >= 1, "the server was never asked (%u connections)", asked);
	PL_CHECKF(seen.calls >= 1 && seen.finished == 1, "%u progress calls, %u ends", seen.calls,
		  seen.finished);
	PL_CHECKF(seen.message && strstr(seen.message, "cancelled") && !strchr(seen.message, '\n'),
		  "end message: %s", seen.message ? seen.message : "(none)");
	PL_CHECK(!f[0].function || strcmp(f[0].function, "hot_leaf"));
	/* nothing more is asked: another stripped module, sampled */
	g_autofree char *other = g_build_filename(t_tmp(), "burn2", NULL);
	{
		char *why = NULL;
		char *argv[] = { (char *)"cp", stripped, other, NULL };
		g_autofree char *o = t_run(argv, &why);
		PL_CHECKF(o, "%s", why);
	}
	guint64 b2 = map_stripped(s, other, "other");
	guint calls = seen.calls;
	pl_symbols_resolve(s, PID, b2 + a, FALSE, f, 8);
	PL_CHECK(seen.calls == calls && seen.finished == 1);
	asked = connections(h);
	PL_CHECKF(asked == 0, "the server was asked %u more times after the cancel", asked);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/usr/bin/burn");
	PL_CHECKF(r && r->problem && strstr(r->problem, "cancelled") && !r->fetched_from,
		  "burn's row: %s", r && r->problem ? r->problem : "(none)");
	g_free(seen.message);
	g_unsetenv("DEBUGINFOD_TIMEOUT");
	close(h);
}

static void nothing_asked_without_samples(void)
{
	guint16 port;
	int h = hole(&port);
	g_autofree char *url = g_strdup_printf("http://127.0.0.1:%u", port);
	Seen seen = { 0 };
	g_autofree char *full = NULL, *stripped = NULL;
	g_autoptr(PlSymbols) s = symbols_for(url, &seen, &full, &stripped);
	map_stripped(s, stripped, "burn");
	/* the coverage report locates every module: no fetch */
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "/usr/bin/burn");
	PL_CHECK(r && r->local_path && !r->has_symbols && r->samples == 0 && !r->fetched_from);
	PL_CHECKF(seen.calls == 0 && seen.finished == 0, "%u progress calls", seen.calls);
	guint asked = connections(h);
	PL_CHECKF(asked == 0, "the server was asked %u times", asked);
	close(h);
}

PL_TEST_MAIN(PL_CASE(cancel_from_progress), PL_CASE(nothing_asked_without_samples))
