/* pl-fleet-collector.c — see pl-fleet-collector.h. */
#include "pl-fleet-collector.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-capture.h"
#include "pl-client.h"
#include "pl-fleet-block.h"
#include "pl-fleet-boards.h"
#include "pl-fleet-symcache.h"
#include "pl-live-session.h"
#include "pl-loader.h"

#define HANDSHAKE_MS 5000     /* greeting + REPORT + AUTH, per peer */
#define HANDSHAKE_THREADS 8
#define FLUSH_PERIOD_S 5
#define BLOCK_ROWS 500000     /* one Native block, one part: 23 MB of rows at most */

struct _PlFleetCollector {
	char *token;
	PlFleetStore *store; /* the sender thread's from construction on */
	PlFleetSymcache *symbols; /* the writer thread's */
	PlFleetBoards *boards;    /* read-only */
	char *keep_dir, *work_dir;
	GMainContext *ctx;
	GSocketService *service;
	GThreadPool *handshakes;
	GThreadPool *writer; /* loads, symbolizes, cuts blocks */
	GThreadPool *sender; /* puts blocks into the store: its tasks are tokens */
	GAsyncQueue *ready;  /* StoreJob*: cut, for the sender, which takes all there are */
	GList *agents; /* Agent* */
	guint flush_timer;
	gboolean stopping;
	GMutex lock; /* stats */
	PlFleetCollectorStats stats;
};

typedef struct {
	PlFleetCollector *c;
	PlLiveSession *ls;
	char **labels;
	char *name; /* file-name safe host name */
	guint seq;
	guint next; /* the source that starts the next session, 0: none */
	gboolean gone;
} Agent;

/* An agent that refused START (perf not allowed there, a bad command
 * line) is asked again after this long, not in a loop. */
#define REFUSED_RETRY_S 10

/* ─── the writer thread ──────────────────────────────────────────────── */

typedef struct {
	char *path; /* NULL: flush the spool only */
	char *session;
	char **labels;
	GPtrArray *blocks; /* PlFleetBlock*, made by the writer for the sender */
	gboolean failed;   /* the writer could not load it (said on stderr) */
} StoreJob;

/* Sessions cut into blocks and not stored yet, at most: the writer waits
 * for the sender beyond that, so a slow ClickHouse holds a bounded number
 * of sessions' blocks in memory (the rest wait as files). */
#define SENDER_BACKLOG 4
/* The samples of one insert at most: the sender puts the blocks of every
 * session waiting in one batch, up to this (under ClickHouse's
 * min_insert_block_size_rows, 1048576, which it may squash whole) */
#define BATCH_ROWS 1000000

/* A session's labels beside its file while it is not stored yet
 * (NAME.labels, one a line): a collector killed before storing it finds
 * both at its next start. */
static char *labels_path(const char *session_path)
{
	return g_strdup_printf("%s.labels", session_path);
}

static gboolean write_labels(const char *session_path, char **labels, GError **error)
{
	g_autofree char *path = labels_path(session_path);
	g_autofree char *text = g_strjoinv("\n", labels);
	return g_file_set_contents_full(path, text, -1,
					G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
					0600, error);
}

static char **read_labels(const char *session_path)
{
	g_autofree char *path = labels_path(session_path);
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, NULL))
		return NULL;
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GPtrArray *out = g_ptr_array_new();
	for (guint i = 0; lines[i]; i++)
		if (*lines[i])
			g_ptr_array_add(out, g_strdup(lines[i]));
	g_ptr_array_add(out, NULL);
	return (char **)g_ptr_array_free(out, FALSE);
}

/* Stored: the file goes to keep_dir, or away; its labels go. */
static gboolean retire(PlFleetCollector *c, const char *path, GError **error)
{
	g_autofree char *lp = labels_path(path);
	if (c->keep_dir) {
		g_autofree char *base = g_path_get_basename(path);
		g_autofree char *dest = g_build_filename(c->keep_dir, base, NULL);
		g_autoptr(GFile) from = g_file_new_for_path(path);
		g_autoptr(GFile) to = g_file_new_for_path(dest);
		if (!g_file_move(from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, error))
			return FALSE;
	} else if (unlink(path) < 0) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "cannot remove %s: %s", path,
			    g_strerror(e));
		return FALSE;
	}
	if (unlink(lp) < 0 && errno != ENOENT) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "cannot remove %s: %s", lp,
			    g_strerror(e));
		return FALSE;
	}
	return TRUE;
}

static void store_job_free(StoreJob *j)
{
	if (j->blocks)
		g_ptr_array_unref(j->blocks);
	g_free(j->path);
	g_free(j->session);
	g_strfreev(j->labels);
	g_free(j);
}

static gboolean take_hello(const struct pl_msg *m, gpointer data)
{
	if (m->type != PL_MSG_HELLO)
		return TRUE;
	*(gint64 *)data = (gint64)m->u.hello.wall_now_ns - (gint64)m->u.hello.clock_now_ns;
	return FALSE;
}

/* The writer's part: the session loaded, symbolized and cut into blocks
 * (j->blocks). */
static gboolean cut_session(PlFleetCollector *c, StoreJob *j, GError **error)
{
	gint64 wall = 0;
	pl_capture_load(j->path, take_hello, &wall, NULL, NULL);
	PlSymOptions o = { 0 };
	const char *board = pl_fleet_boards_choose(c->boards, j->labels, &o);
	pl_fleet_symcache_attach(c->symbols, &o);
	PlLoadParams lp = { .options = &o };
	g_autoptr(PlProfile) p = pl_load_file(j->path, &lp, NULL, NULL, error);
	pl_fleet_boards_options_clear(&o);
	PlFleetSymcacheStats sy;
	pl_fleet_symcache_take_stats(c->symbols, &sy, NULL);
	g_autoptr(GError) sym_error = NULL;
	if (!pl_fleet_symcache_flush(c->symbols, &sym_error))
		g_printerr("perflens collect: the new symbols wait for ClickHouse: %s\n",
			   sym_error->message);
	if (!p)
		return FALSE;
	/* what symbolizing cost, per session: the work the cache saved shows */
	g_printerr("perflens collect: session %s: settings %s; addresses: %" G_GUINT64_FORMAT
		   " from the symbol cache, %" G_GUINT64_FORMAT " symbolized (%" G_GUINT64_FORMAT
		   " named, kept)\n",
		   j->session, board ? board : "(defaults)", sy.hits, sy.symbolized, sy.kept);
	j->blocks = pl_fleet_blocks_from_profile(p, j->session, (const char *const *)j->labels, wall,
						 BLOCK_ROWS, 0);
	return TRUE;
}

/* Loading a session (CPU) and storing the one before (ClickHouse's time)
 * overlap: the writer hands its blocks to the sender. */
static void writer_run(gpointer data, gpointer user_data)
{
	StoreJob *j = data;
	PlFleetCollector *c = user_data;
	g_autoptr(GError) error = NULL;
	if (j->path && !cut_session(c, j, &error)) {
		j->failed = TRUE;
		g_printerr("perflens collect: session %s was not stored: %s (the file stays: %s)\n",
			   j->session, error ? error->message : "?", j->path);
	}
	while (g_thread_pool_unprocessed(c->sender) >= SENDER_BACKLOG)
		g_usleep(2000);
	g_async_queue_push(c->ready, j);
	g_thread_pool_push(c->sender, c, NULL);
}

/* A session the sender is done with: counted, said, its file retired. */
static void sent(PlFleetCollector *c, StoreJob *j, gboolean ok, const GError *error)
{
	guint64 samples = 0;
	for (guint i = 0; j->blocks && i < j->blocks->len; i++)
		samples += ((const PlFleetBlock *)j->blocks->pdata[i])->n_samples;
	g_mutex_lock(&c->lock);
	if (ok) {
		c->stats.sessions_stored++;
		c->stats.samples_stored += samples;
	} else {
		c->stats.sessions_failed++;
	}
	g_mutex_unlock(&c->lock);
	if (!ok)
		g_printerr("perflens collect: session %s was not stored: %s (the file stays: %s)\n",
			   j->session, error ? error->message : "?", j->path);
	else
		g_printerr("perflens collect: session %s stored: %" G_GUINT64_FORMAT
			   " samples in %u blocks (%u in the spool)\n",
			   j->session, samples, j->blocks->len, pl_fleet_store_get_n_spooled(c->store));
	g_autoptr(GError) e = NULL;
	if (ok && !retire(c, j->path, &e))
		g_printerr("perflens collect: session %s is stored, but %s\n", j->session, e->message);
}

/* The sessions of jobs (StoreJob*) into the store in one batch; freed. */
static void send_jobs(PlFleetCollector *c, GPtrArray *jobs)
{
	if (!jobs->len)
		return;
	g_autoptr(GPtrArray) blocks = g_ptr_array_new();
	for (guint i = 0; i < jobs->len; i++) {
		StoreJob *j = jobs->pdata[i];
		for (guint k = 0; k < j->blocks->len; k++)
			g_ptr_array_add(blocks, j->blocks->pdata[k]);
	}
	g_autoptr(GError) error = NULL;
	/* refused: which session's block is not known, so none is said
	 * stored (their files stay; stored blocks are found so next time) */
	gboolean ok = pl_fleet_store_put_all(c->store, blocks, &error);
	for (guint i = 0; i < jobs->len; i++) {
		sent(c, jobs->pdata[i], ok, error);
		store_job_free(jobs->pdata[i]);
	}
	g_ptr_array_set_size(jobs, 0);
}

/* Every session waiting goes in one batch (up to BATCH_ROWS samples): a
 * ClickHouse part costs its files whatever its rows, so the slower the
 * store, the larger its inserts. */
static void sender_run(gpointer data, gpointer user_data)
{
	PlFleetCollector *c = user_data;
	g_autoptr(GPtrArray) batch = g_ptr_array_new();
	guint64 rows = 0;
	StoreJob *j;
	while ((j = g_async_queue_try_pop(c->ready))) {
		if (!j->path) {
			send_jobs(c, batch);
			rows = 0;
			g_autoptr(GError) error = NULL;
			if (!pl_fleet_store_flush(c->store, &error) && error)
				g_printerr("perflens collect: the spool could not be sent yet: %s\n",
					   error->message);
			store_job_free(j);
			continue;
		}
		if (j->failed) {
			g_mutex_lock(&c->lock);
			c->stats.sessions_failed++;
			g_mutex_unlock(&c->lock);
			store_job_free(j);
			continue;
		}
		guint64 n = 0;
		for (guint i = 0; i < j->blocks->len; i++)
			n += ((const PlFleetBlock *)j->blocks->pdata[i])->n_samples;
		if (batch->len && rows + n > BATCH_ROWS) {
			send_jobs(c, batch);
			rows = 0;
		}
		g_ptr_array_add(batch, j);
		rows += n;
	}
	send_jobs(c, batch);
}

static gboolean on_flush_timer(gpointer data)
{
	PlFleetCollector *c = data;
	if (g_thread_pool_unprocessed(c->sender) == 0) {
		g_async_queue_push(c->ready, g_new0(StoreJob, 1));
		g_thread_pool_push(c->sender, c, NULL);
	}
	return G_SOURCE_CONTINUE;
}

/* ─── agents ─────────────────────────────────────────────────────────── */

static void start_next(Agent *a);

static void agent_free(Agent *a)
{
	if (a->next)
		g_source_remove(a->next);
	if (a->ls) {
		g_signal_handlers_disconnect_by_data(a->ls, a);
		g_object_unref(a->ls);
	}
	g_strfreev(a->labels);
	g_free(a->name);
	g_free(a);
}

static gboolean start_next_idle(gpointer data)
{
	Agent *a = data;
	a->next = 0;
	if (!a->gone && !a->c->stopping && pl_live_session_is_connected(a->ls) &&
	    !pl_live_session_is_recording(a->ls))
		start_next(a);
	return G_SOURCE_REMOVE;
}

static gboolean agent_free_idle(gpointer data)
{
	agent_free(data);
	return G_SOURCE_REMOVE;
}

static void on_ended(PlLiveSession *ls, const char *why, Agent *a)
{
	PlFleetCollector *c = a->c;
	const char *path = pl_live_session_get_path(ls);
	g_mutex_lock(&c->lock);
	c->stats.sessions_ended++;
	g_mutex_unlock(&c->lock);
	if (path && !pl_live_session_get_save_error(ls)) {
		StoreJob *j = g_new0(StoreJob, 1);
		j->path = g_strdup(path);
		g_autofree char *base = g_path_get_basename(path);
		if (g_str_has_suffix(base, ".plens"))
			base[strlen(base) - 6] = 0;
		j->session = g_strdup(base);
		j->labels = g_strdupv(a->labels);
		g_thread_pool_push(c->writer, j, NULL);
	} else if (pl_live_session_get_save_error(ls)) {
		g_printerr("perflens collect: %s\n", pl_live_session_get_save_error(ls));
	}
	if (why && *why && !a->gone)
		g_printerr("perflens collect: %s: session ended: %s\n",
			   pl_live_session_get_peer(ls), why);
	/* what the board could not record or keep (its kernel rings, or the
	 * RAM it held sessions in while no collector took them): the session
	 * file says more, this is where the user sees it */
	if (pl_live_session_get_lost(ls))
		g_printerr("perflens collect: %s: session %s: %" G_GUINT64_FORMAT
			   " samples lost on the board (its LOST records)\n",
			   pl_live_session_get_peer(ls), path ? path : "(none)",
			   pl_live_session_get_lost(ls));
	if (!a->gone && !c->stopping && !a->next) {
		if (path)
			a->next = g_idle_add_full(G_PRIORITY_DEFAULT, start_next_idle, a, NULL);
		else /* START refused: the file is gone, the reason said above */
			a->next = g_timeout_add_seconds(REFUSED_RETRY_S, start_next_idle, a);
	}
}

static void on_problem(PlLiveSession *ls, const char *message, Agent *a)
{
	g_printerr("perflens collect: %s: %s\n", pl_live_session_get_peer(ls), message);
}

static void on_disconnected(PlLiveSession *ls, const char *why, const char *saved, Agent *a)
{
	if (a->gone)
		return;
	a->gone = TRUE;
	g_printerr("perflens collect: %s left%s%s\n", pl_live_session_get_peer(ls),
		   why ? ": " : "", why ? why : "");
	a->c->agents = g_list_remove(a->c->agents, a);
	/* not inside the session's own signal */
	g_idle_add_full(G_PRIORITY_LOW, agent_free_idle, a, NULL);
}

static void start_next(Agent *a)
{
	PlFleetCollector *c = a->c;
	g_autoptr(GError) error = NULL;
	g_autoptr(GDateTime) now = g_date_time_new_now_utc();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%dT%H%M%S");
	g_autofree char *file = g_strdup_printf("%s-%s-%04u.plens", a->name, stamp, a->seq++);
	g_autofree char *path = g_build_filename(c->work_dir, file, NULL);
	PlSessionWriter *w = pl_session_writer_new_unique(path, &error);
	if (w && !write_labels(pl_session_writer_get_path(w), a->labels, &error))
		g_clear_pointer(&w, pl_session_writer_free);
	if (!w) {
		g_printerr("perflens collect: %s\n", error->message);
		pl_live_session_disconnect(a->ls, "cannot save its session");
		return;
	}
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_START;
	m->u.start.target = PL_TARGET_OWN;
	if (!pl_live_session_start(a->ls, m, w, &error))
		g_printerr("perflens collect: %s: %s\n", pl_live_session_get_peer(a->ls),
			   error->message);
	g_free(m);
}

static char *safe_name(const char *s)
{
	GString *g = g_string_new(NULL);
	for (; s && *s && g->len < 64; s++)
		g_string_append_c(g, g_ascii_isalnum(*s) || *s == '-' || *s == '.' ? *s : '_');
	if (!g->len)
		g_string_append(g, "board");
	return g_string_free(g, FALSE);
}

typedef struct {
	PlFleetCollector *c;
	PlClient *client;
	char **labels;
} Arrival;

static gboolean on_arrival(gpointer data)
{
	Arrival *x = data;
	PlFleetCollector *c = x->c;
	if (c->stopping) {
		pl_client_free(x->client);
		g_strfreev(x->labels);
		g_free(x);
		return G_SOURCE_REMOVE;
	}
	Agent *a = g_new0(Agent, 1);
	a->c = c;
	a->labels = x->labels;
	/* a session is named after its file: the board, and which of this
	 * collector's agents it came from (boards may share a host name) */
	g_autofree char *host = safe_name(pl_client_get_agent(x->client)->hostname);
	g_mutex_lock(&c->lock);
	guint64 nth = ++c->stats.agents_accepted;
	g_mutex_unlock(&c->lock);
	a->name = g_strdup_printf("%s-a%" G_GUINT64_FORMAT, host, nth);
	a->ls = pl_live_session_new();
	g_signal_connect(a->ls, "ended", G_CALLBACK(on_ended), a);
	g_signal_connect(a->ls, "problem", G_CALLBACK(on_problem), a);
	g_signal_connect(a->ls, "disconnected", G_CALLBACK(on_disconnected), a);
	g_autofree char *labels = g_strjoinv(",", a->labels);
	g_printerr("perflens collect: %s (%s) reports, labels %s\n", pl_client_get_peer(x->client),
		   pl_client_get_agent(x->client)->hostname, labels);
	pl_live_session_set_client(a->ls, x->client);
	c->agents = g_list_prepend(c->agents, a);
	g_free(x);
	start_next(a);
	return G_SOURCE_REMOVE;
}

/* ─── handshakes (worker threads) ────────────────────────────────────── */

typedef struct {
	int fd;
	char *peer;
} Peer;

/* Constant-time: how long it takes says nothing of where they differ. */
static gboolean token_equal(const char *want, const char *got)
{
	gsize n = strlen(want), m = strlen(got);
	guint8 d = n != m;
	for (gsize i = 0; i < n; i++)
		d |= (guint8)(want[i] ^ (i < m ? got[i] : 0));
	return d == 0;
}

static void refuse(PlFleetCollector *c, const char *peer, const char *why)
{
	g_printerr("perflens collect: refused %s: %s\n", peer, why);
	g_mutex_lock(&c->lock);
	c->stats.peers_refused++;
	g_mutex_unlock(&c->lock);
}

static void handshake_run(gpointer data, gpointer user_data)
{
	Peer *p = data;
	PlFleetCollector *c = user_data;
	g_autoptr(GError) error = NULL;
	g_autofree char *peer = p->peer;
	gint64 deadline = g_get_monotonic_time() + HANDSHAKE_MS * 1000;
	PlClient *client = pl_client_new_for_fd(p->fd, peer, HANDSHAKE_MS, NULL, NULL, NULL, &error);
	g_free(p);
	if (!client) {
		refuse(c, peer, error->message);
		return;
	}
	while (!pl_client_get_report(client) && g_get_monotonic_time() < deadline) {
		if (!pl_client_poll(client, 100, &error))
			break;
	}
	const PlAgentReport *r = pl_client_get_report(client);
	if (!r || !token_equal(c->token, r->token)) {
		refuse(c, peer, !r ? (error ? error->message
				     : "no REPORT (not an agent started with --label, or too slow)")
				   : "wrong token");
		pl_client_free(client);
		return;
	}
	if (!pl_client_authenticate(client, c->token, HANDSHAKE_MS, &error)) {
		refuse(c, peer, error->message);
		pl_client_free(client);
		return;
	}
	Arrival *x = g_new0(Arrival, 1);
	x->c = c;
	x->client = client;
	x->labels = g_strdupv(r->labels);
	g_main_context_invoke(c->ctx, on_arrival, x);
}

static gboolean on_incoming(GSocketService *service, GSocketConnection *conn, GObject *source,
			    gpointer data)
{
	PlFleetCollector *c = data;
	if (c->stopping)
		return TRUE;
	GSocket *s = g_socket_connection_get_socket(conn);
	int fd = fcntl(g_socket_get_fd(s), F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return TRUE;
	/* PlClient polls with timeouts on a blocking socket */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	g_autoptr(GSocketAddress) addr = g_socket_connection_get_remote_address(conn, NULL);
	g_autofree char *ip = addr && G_IS_INET_SOCKET_ADDRESS(addr)
		? g_inet_address_to_string(g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(addr)))
		: g_strdup("?");
	Peer *p = g_new0(Peer, 1);
	p->fd = fd;
	p->peer = g_strdup_printf("%s:%u", ip,
				  addr && G_IS_INET_SOCKET_ADDRESS(addr)
					  ? g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(addr))
					  : 0);
	g_thread_pool_push(c->handshakes, p, NULL);
	return TRUE;
}

/* ─── the collector ──────────────────────────────────────────────────── */

/* Sessions an earlier run did not store (killed while they were being
 * recorded or stored): stored now, in name order.  Blocks it stored
 * already are found stored, not counted twice. */
static gint by_name(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void recover(PlFleetCollector *c)
{
	g_autoptr(GDir) d = g_dir_open(c->work_dir, 0, NULL);
	const char *name;
	g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
	while (d && (name = g_dir_read_name(d)))
		if (g_str_has_suffix(name, ".plens"))
			g_ptr_array_add(names, g_strdup(name));
	g_ptr_array_sort(names, by_name);
	for (guint i = 0; i < names->len; i++) {
		const char *n = names->pdata[i];
		StoreJob *j = g_new0(StoreJob, 1);
		j->path = g_build_filename(c->work_dir, n, NULL);
		j->session = g_strndup(n, strlen(n) - 6);
		j->labels = read_labels(j->path);
		if (!j->labels) {
			g_printerr("perflens collect: %s has no labels file beside it: stored without "
				   "labels\n", j->path);
			j->labels = g_new0(char *, 1);
		}
		g_printerr("perflens collect: storing %s, left by an earlier run\n", j->path);
		g_thread_pool_push(c->writer, j, NULL);
	}
}

PlFleetCollector *pl_fleet_collector_new(const char *token, PlFleetStore *store,
					 PlFleetSymcache *symbols, PlFleetBoards *boards,
					 const char *keep_dir, const char *work_dir,
					 GError **error)
{
	const char *dirs[] = { keep_dir, work_dir };
	for (guint i = 0; i < G_N_ELEMENTS(dirs); i++)
		if (dirs[i] && g_mkdir_with_parents(dirs[i], 0700) < 0) {
			int e = errno;
			g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
				    "cannot make the directory %s: %s", dirs[i], g_strerror(e));
			pl_fleet_store_free(store);
			pl_fleet_symcache_free(symbols);
			pl_fleet_boards_free(boards);
			return NULL;
		}
	PlFleetCollector *c = g_new0(PlFleetCollector, 1);
	c->token = g_strdup(token);
	c->store = store;
	c->symbols = symbols;
	c->boards = boards;
	c->keep_dir = g_strdup(keep_dir);
	c->work_dir = g_strdup(work_dir);
	c->ctx = g_main_context_ref_thread_default();
	g_mutex_init(&c->lock);
	c->handshakes = g_thread_pool_new(handshake_run, c, HANDSHAKE_THREADS, FALSE, NULL);
	c->ready = g_async_queue_new();
	c->sender = g_thread_pool_new(sender_run, c, 1, FALSE, NULL);
	c->writer = g_thread_pool_new(writer_run, c, 1, FALSE, NULL);
	c->flush_timer = g_timeout_add_seconds(FLUSH_PERIOD_S, on_flush_timer, c);
	recover(c);
	return c;
}

gboolean pl_fleet_collector_listen(PlFleetCollector *self, const char *spec, guint16 *port,
				   GError **error)
{
	const char *colon = strrchr(spec, ':');
	const char *num = colon ? colon + 1 : spec;
	char *end;
	guint64 p = g_ascii_strtoull(num, &end, 10);
	if (!*num || *end || p > 65535) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "--listen takes [ADDR:]PORT (e.g. 7000 or 127.0.0.1:7000), not '%s'", spec);
		return FALSE;
	}
	self->service = g_socket_service_new();
	/* a site's agents come back together after a restart: GLib's default
	 * backlog (10) would leave the rest timing out in connect() */
	g_socket_listener_set_backlog(G_SOCKET_LISTENER(self->service), 256);
	g_signal_connect(self->service, "incoming", G_CALLBACK(on_incoming), self);
	guint16 got = 0;
	if (colon && colon != spec) {
		g_autofree char *host = g_strndup(spec, (gsize)(colon - spec));
		g_autoptr(GInetAddress) ia = g_inet_address_new_from_string(host);
		if (!ia) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "--listen: '%s' is not an IP address", host);
			return FALSE;
		}
		g_autoptr(GSocketAddress) sa = g_inet_socket_address_new(ia, (guint16)p);
		g_autoptr(GSocketAddress) eff = NULL;
		if (!g_socket_listener_add_address(G_SOCKET_LISTENER(self->service), sa,
						   G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
						   &eff, error))
			return FALSE;
		got = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(eff));
	} else if (p == 0) {
		got = g_socket_listener_add_any_inet_port(G_SOCKET_LISTENER(self->service), NULL, error);
		if (!got)
			return FALSE;
	} else {
		if (!g_socket_listener_add_inet_port(G_SOCKET_LISTENER(self->service), (guint16)p, NULL,
						     error))
			return FALSE;
		got = (guint16)p;
	}
	if (port)
		*port = got;
	g_socket_service_start(self->service);
	return TRUE;
}

static gboolean any_recording(PlFleetCollector *self)
{
	for (GList *l = self->agents; l; l = l->next)
		if (pl_live_session_is_recording(((Agent *)l->data)->ls))
			return TRUE;
	return FALSE;
}

gboolean pl_fleet_collector_shutdown(PlFleetCollector *self, guint timeout_ms)
{
	if (self->stopping)
		return TRUE;
	self->stopping = TRUE;
	if (self->flush_timer)
		g_source_remove(self->flush_timer);
	self->flush_timer = 0;
	if (self->service)
		g_socket_service_stop(self->service);
	g_thread_pool_free(self->handshakes, FALSE, TRUE);
	self->handshakes = NULL;
	for (GList *l = self->agents; l; l = l->next) {
		Agent *a = l->data;
		if (pl_live_session_is_recording(a->ls))
			pl_live_session_stop(a->ls, NULL);
	}
	gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	while (any_recording(self) && g_get_monotonic_time() < deadline)
		g_main_context_iteration(self->ctx, FALSE) || (g_usleep(10000), 0);
	while (self->agents)
		pl_live_session_disconnect(((Agent *)self->agents->data)->ls, NULL);
	/* the sessions above are queued: the writer cuts them all, then the
	 * sender stores them all */
	g_thread_pool_free(self->writer, FALSE, TRUE);
	self->writer = NULL;
	g_thread_pool_free(self->sender, FALSE, TRUE);
	self->sender = NULL;
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_fleet_store_flush(self->store, &error);
	if (!ok)
		g_printerr("perflens collect: %u blocks stay in the spool for the next run: %s\n",
			   pl_fleet_store_get_n_spooled(self->store),
			   error ? error->message : "ClickHouse cannot take them now");
	while (g_main_context_iteration(self->ctx, FALSE))
		; /* the agents' idle frees */
	return ok;
}

void pl_fleet_collector_free(PlFleetCollector *self)
{
	if (!self)
		return;
	pl_fleet_collector_shutdown(self, 5000);
	if (self->flush_timer)
		g_source_remove(self->flush_timer);
	g_clear_object(&self->service);
	pl_fleet_store_free(self->store);
	if (self->ready) /* emptied by the sender before shutdown returned */
		g_async_queue_unref(self->ready);
	pl_fleet_symcache_free(self->symbols);
	pl_fleet_boards_free(self->boards);
	g_main_context_unref(self->ctx);
	g_mutex_clear(&self->lock);
	if (self->token)
		explicit_bzero(self->token, strlen(self->token));
	g_free(self->token);
	g_free(self->keep_dir);
	g_free(self->work_dir);
	g_free(self);
}

void pl_fleet_collector_get_stats(PlFleetCollector *self, PlFleetCollectorStats *out)
{
	g_mutex_lock(&self->lock);
	*out = self->stats;
	g_mutex_unlock(&self->lock);
}

guint pl_fleet_collector_get_n_agents(PlFleetCollector *self)
{
	return g_list_length(self->agents);
}

const PlFleetStoreStats *pl_fleet_collector_get_store_stats(PlFleetCollector *self)
{
	g_return_val_if_fail(self->sender == NULL, NULL);
	return pl_fleet_store_get_stats(self->store);
}
