/* pl-debuginfod.c — files of sampled modules from debuginfod servers.
 *
 * The client is elfutils' libdebuginfod, opened with dlopen at the first
 * fetch that has servers to ask (libdwfl does the same; its own use of
 * it, in dwfl_standard_find_debuginfo, is not reached: our Dwfl callbacks
 * are pl-elf-locator.c's, which never fetch).  A query returns a file in
 * the client's cache ($DEBUGINFOD_CACHE_PATH/BUILD-ID/debuginfo or
 * /executable); a later query for the same build-id is answered from
 * there without a connection.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <elfutils/debuginfod.h>

#include "pl-debuginfod.h"
#include "pl-elf-locator.h"

#define PL_DEBUGINFOD_DEFAULT_TIMEOUT "5" /* seconds per try; the library's is 90 */
#define PL_DEBUGINFOD_CACHED "its cache (fetched by an earlier run)"

typedef struct _PlDebuginfod {
	void *so;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
	int (*find_executable)(debuginfod_client *, const unsigned char *, int, char **);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	const char *(*get_url)(debuginfod_client *);
	debuginfod_client *client;
	gboolean off;  /* no servers, no library, a server error or a cancel: ask no more */
	char *urls;    /* PlSymOptions' list, set in the environment around a query */
	/* the fetch under way, for the progress callback */
	PlSymbols *self;
	PlFetchProgress cur;
	gboolean cancelled;
	gboolean transferred; /* the progress callback ran: a server was asked */
} PlDebuginfod;

/* The environment is the client's only way to learn the URL list;
 * every query of every PlSymbols that names its own list holds this. */
static GMutex env_lock;

static gboolean load_library(PlDebuginfod *d)
{
	d->so = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY | RTLD_LOCAL);
	if (!d->so)
		return FALSE;
#define SYM(field, name)                                                                         \
	do {                                                                                     \
		*(void **)(&d->field) = dlsym(d->so, name);                                      \
		if (!d->field)                                                                   \
			return FALSE;                                                            \
	} while (0)
	SYM(begin, "debuginfod_begin");
	SYM(end, "debuginfod_end");
	SYM(find_debuginfo, "debuginfod_find_debuginfo");
	SYM(find_executable, "debuginfod_find_executable");
	SYM(set_progressfn, "debuginfod_set_progressfn");
	SYM(get_url, "debuginfod_get_url");
#undef SYM
	return TRUE;
}

/* The query under way on this thread: what the progress callback
 * reports on and may cancel. */
static __thread PlDebuginfod *running;

static int progress_cb(debuginfod_client *c, long a, long b)
{
	PlDebuginfod *d = running;
	if (!d)
		return 0;
	d->transferred = TRUE;
	const PlSymOptions *o = &d->self->opts;
	if (!o->fetch_progress || d->cancelled)
		return d->cancelled;
	/* the answering server once known, the ones asked until then */
	d->cur.url = d->get_url(c);
	if (!d->cur.url)
		d->cur.url = d->urls ? d->urls : getenv(DEBUGINFOD_URLS_ENV_VAR);
	/* before a server answers, libdebuginfod 0.188 passes its loop count
	 * as "a": no bytes have come yet */
	d->cur.done = d->get_url(c) ? a : 0;
	d->cur.total = b > 0 ? b : 0;
	if (!o->fetch_progress(&d->cur, o->fetch_progress_data))
		d->cancelled = TRUE;
	return d->cancelled;
}

static void notify_end(PlDebuginfod *d, const char *message)
{
	const PlSymOptions *o = &d->self->opts;
	d->cur.finished = TRUE;
	d->cur.message = message;
	if (o->fetch_progress && !o->fetch_progress(&d->cur, o->fetch_progress_data))
		d->cancelled = TRUE;
}

/* The client of self, made at the first call; NULL when there is nothing
 * to ask (no servers, no library, or asking was given up). */
static PlDebuginfod *client_get(PlSymbols *self, PlElf *elf)
{
	PlDebuginfod *d = self->debuginfod;
	if (d)
		return d->off ? NULL : d;
	d = self->debuginfod = g_new0(PlDebuginfod, 1);
	d->self = self;
	const char *urls = self->opts.debuginfod_urls ? self->opts.debuginfod_urls
						      : g_getenv(DEBUGINFOD_URLS_ENV_VAR);
	g_autofree char *stripped = g_strstrip(g_strdup(urls ? urls : ""));
	if (!*stripped) {
		d->off = TRUE;
		return NULL;
	}
	d->urls = self->opts.debuginfod_urls ? g_strdup(stripped) : NULL;
	if (!load_library(d) || !(d->client = d->begin())) {
		d->off = TRUE;
		d->cur = (PlFetchProgress){ .module = elf->name, .what = "debug info" };
		notify_end(d, "debuginfod: " DEBUGINFOD_SONAME " cannot be loaded: no files are "
			      "fetched (install libdebuginfod1)");
		return NULL;
	}
	d->set_progressfn(d->client, progress_cb);
	return d;
}

void pl_debuginfod_free(PlSymbols *self)
{
	PlDebuginfod *d = self->debuginfod;
	if (!d)
		return;
	if (d->client)
		d->end(d->client);
	/* the library stays loaded: libcurl does not like being unloaded */
	g_free(d->urls);
	g_free(d);
	self->debuginfod = NULL;
}

/* Sets name to value for the query, remembering the old value. */
static char *env_push(const char *name, const char *value)
{
	const char *old = getenv(name);
	char *saved = old ? g_strdup(old) : NULL;
	setenv(name, value, 1);
	return saved;
}

static void env_pop(const char *name, char *saved)
{
	if (saved)
		setenv(name, saved, 1);
	else
		unsetenv(name);
	g_free(saved);
}

/* libdebuginfod's cache directory, as the 0.188 client finds it. */
static char *client_cache_dir(void)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	if (env && *env)
		return g_strdup(env);
	g_autofree char *legacy = g_build_filename(g_get_home_dir(), ".debuginfod_client_cache", NULL);
	if (g_file_test(legacy, G_FILE_TEST_IS_DIR))
		return g_steal_pointer(&legacy);
	const char *xdg = getenv("XDG_CACHE_HOME");
	return xdg && *xdg ? g_build_filename(xdg, "debuginfod_client", NULL)
			   : g_build_filename(g_get_home_dir(), ".cache", "debuginfod_client", NULL);
}

/* A query cancelled through the progress callback ends with -ENOENT, and
 * libdebuginfod 0.188 then keeps an empty file as "on no server" for
 * cache_miss_s (10 minutes): the user who cancelled a load and opens it
 * again would get no fetch, and no word why.  Only that empty marker goes. */
static void forget_cancelled_miss(PlElf *elf, gboolean exec)
{
	GString *hex = g_string_new(NULL);
	for (guint i = 0; i < elf->build_id_len; i++)
		g_string_append_printf(hex, "%02x", elf->build_id[i]);
	g_autofree char *dir = client_cache_dir();
	g_autofree char *path = g_build_filename(dir, hex->str, exec ? "executable" : "debuginfo",
						 NULL);
	g_string_free(hex, TRUE);
	GStatBuf st;
	if (g_lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
}

/* One query: the file's path in the client's cache (g_free), or NULL. */
static char *query(PlDebuginfod *d, PlElf *elf, gboolean exec)
{
	d->cur = (PlFetchProgress){ .module = elf->name,
				    .what = exec ? "executable" : "debug info" };
	d->transferred = FALSE;
	g_mutex_lock(&env_lock);
	gboolean set_urls = d->urls != NULL;
	gboolean set_timeout = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR) == NULL;
	char *old_urls = set_urls ? env_push(DEBUGINFOD_URLS_ENV_VAR, d->urls) : NULL;
	char *old_timeout = set_timeout ? env_push(DEBUGINFOD_TIMEOUT_ENV_VAR,
						   PL_DEBUGINFOD_DEFAULT_TIMEOUT)
					: NULL;
	running = d;
	gint64 t0 = g_get_monotonic_time();
	char *cpath = NULL;
	int fd = exec ? d->find_executable(d->client, elf->build_id, (int)elf->build_id_len, &cpath)
		      : d->find_debuginfo(d->client, elf->build_id, (int)elf->build_id_len, &cpath);
	running = NULL;
	if (set_timeout)
		env_pop(DEBUGINFOD_TIMEOUT_ENV_VAR, old_timeout);
	if (set_urls)
		env_pop(DEBUGINFOD_URLS_ENV_VAR, old_urls);
	const char *timeout = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
	g_mutex_unlock(&env_lock);

	if (fd >= 0) {
		close(fd);
		char *path = g_strdup(cpath);
		free(cpath);
		/* progress is called while a transfer runs, never for a file
		 * the cache held: only then is the URL this query's */
		const char *url = d->transferred ? d->get_url(d->client) : NULL;
		if (!elf->fetched_from || !strcmp(elf->fetched_from, PL_DEBUGINFOD_CACHED)) {
			g_free(elf->fetched_from);
			elf->fetched_from = g_strdup(url ? url : PL_DEBUGINFOD_CACHED);
		}
		d->cur.url = url;
		notify_end(d, NULL);
		return path;
	}
	free(cpath);
	/* libdebuginfod 0.188 ends a query its progress callback stopped
	 * with -ENOENT, like a file on no server: the flag tells them apart */
	if (fd == -ENOENT && !d->cancelled) { /* on no server: the next module may be */
		notify_end(d, NULL);
		return NULL;
	}
	/* unreachable, timed out, refused, cancelled: every later query would
	 * fail the same way, each after its timeout */
	d->off = TRUE;
	const char *servers = d->urls ? d->urls : getenv(DEBUGINFOD_URLS_ENV_VAR);
	g_autofree char *why = NULL;
	if (d->cancelled) {
		why = g_strdup("cancelled");
		if (fd == -ENOENT)
			forget_cancelled_miss(elf, exec);
	}
	else if (fd == -ETIME || fd == -ETIMEDOUT)
		why = g_strdup_printf("no answer in %.1f s (DEBUGINFOD_TIMEOUT=%s s a try)",
				      (double)(g_get_monotonic_time() - t0) / 1e6,
				      timeout ? timeout : PL_DEBUGINFOD_DEFAULT_TIMEOUT);
	else
		why = g_strdup(g_strerror(-fd));
	g_autofree char *msg = g_strdup_printf(
		"debuginfod: %s of %s from %s: %s; no more files are fetched in this load",
		d->cur.what, elf->name, servers ? servers : "?", why);
	notify_end(d, msg);
	g_autofree char *old = elf->problem;
	elf->problem = old ? g_strdup_printf("%s; %s", old, msg) : g_strdup(msg);
	return NULL;
}

gboolean pl_debuginfod_fetch(PlSymbols *self, PlElf *elf, PlFetchWant want)
{
	if (elf->is_vdso || !elf->build_id_len || (elf->exec_asked && elf->debug_asked))
		return FALSE;
	if (self->debuginfod && self->debuginfod->off)
		return FALSE;
	pl_elf_prepare(self, elf);
	gboolean changed = FALSE;
	gboolean have_main = elf->loads && elf->loads->len;
	if (!have_main && !elf->exec_asked) {
		PlDebuginfod *d = client_get(self, elf);
		if (!d)
			return FALSE;
		elf->exec_asked = TRUE;
		char *path = query(d, elf, TRUE);
		if (path) {
			g_free(elf->fetched_main);
			elf->fetched_main = path;
			pl_elf_relocate(self, elf);
			changed = TRUE;
		}
	}
	gboolean lacks = want == PL_FETCH_SYMBOLS ? !elf->has_symbols || !elf->has_lines
						  : !elf->has_cfi;
	if (lacks && !elf->debug_asked) {
		PlDebuginfod *d = client_get(self, elf);
		if (d) {
			elf->debug_asked = TRUE;
			char *path = query(d, elf, FALSE);
			if (path) {
				g_free(elf->fetched_debug);
				elf->fetched_debug = path;
				pl_elf_relocate(self, elf);
				changed = TRUE;
			}
		}
	}
	if (!changed)
		return FALSE;
	elf->files_changed = TRUE;
	/* each process that maps it reports it again at its next unwind */
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, self->procs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		PlProc *proc = v;
		for (guint i = 0; i < proc->maps->len && !proc->need_rebuild; i++)
			if (g_array_index(proc->maps, PlMapping, i).elf == elf)
				proc->need_rebuild = TRUE;
	}
	return TRUE;
}
