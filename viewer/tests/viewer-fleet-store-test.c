/* viewer-fleet-store-test.c — the fleet store (viewer/fleet/) against
 * Debian's real ClickHouse server (18.16), started here as a user process
 * on loopback by ci/clickhouse/server.sh: one server, and two as shards of
 * a Distributed table.  The data are real: the agent records bzip2
 * (Debian's) compressing a file, and the burn workload; the oracle is
 * `perflens report` of the same files and the profile the store was fed.
 *
 *   fleet_credentials           a credentials file readable by others, an
 *       empty password, a user in the URL are refused before any request;
 *       a wrong password is refused by the server (AUTH), and a request
 *       with no credentials at all gets nothing.
 *   fleet_store_equals_report   three sessions (labels fw, board) in
 *       blocks of 500: each session's stored samples equal the report's
 *       count of the main event; the samples per innermost function equal
 *       the report's Samples column for every row it prints and the
 *       profile's for every function; the per-minute rollup sums to the
 *       same; a label filter (fw=2.3.1) selects its sessions' samples only.
 *   fleet_retry_not_doubled     every block put again: each is found
 *       stored, none inserted, the counts unchanged.
 *   fleet_outage_spools_then_flushes  the server killed (SIGKILL) mid-run:
 *       a session's blocks go to the spool (0600 files); a new store on the
 *       same spool (a restarted collector) takes them over; the server
 *       restarted, flush() stores them all, exactly once, even the block
 *       that was inserted behind the store's back first (a reply lost).
 *   fleet_spool_bounded         with the server down and a spool bounded
 *       to about three blocks, ten blocks put: the oldest are dropped and
 *       counted, and stored + dropped samples equal what was put.
 *   fleet_sharded_equals_single two servers, Distributed tables sharded by
 *       session: the same sessions give the same per-function counts asked
 *       through either server as through the single one, and both shards
 *       hold some of them.
 *   fleet_batch_not_doubled     two sessions' blocks put in one batch, as
 *       the collector puts the sessions waiting, after all but the last
 *       were (a retry): the last inserted, the rest found stored; each
 *       session's count its profile's, the rollup the same; put again by a
 *       new store: all found stored, none inserted.
 *   fleet_old_store_refused     (last: it drops the single server's tables)
 *       the samples table of the earlier schema (labels in every row): the
 *       schema is refused with what to do, no table made; a block the
 *       earlier collector spooled is refused by flush(), named, and kept.
 */
#include <signal.h>
#include <sys/stat.h>

#include "viewer-test-util.h"

#include "pl-capture.h"
#include "pl-clickhouse.h"
#include "pl-fleet-block.h"
#include "pl-fleet-schema.h"
#include "pl-fleet-store.h"
#include "pl-loader.h"

/* ─── servers ────────────────────────────────────────────────────────── */

typedef struct {
	char *dir;
	char *urls[2];
	char *credentials;
	int n;
	char *why; /* set when it could not start */
} Servers;

static Servers single, shards;

static char *server_script(void)
{
	const char *top = getenv("PL_TOP");
	return g_build_filename(top && *top ? top : ".", "ci/clickhouse/server.sh", NULL);
}

static gboolean server_cmd(const char *cmd, const char *dir, const char *arg, char **why)
{
	g_autofree char *script = server_script();
	char *argv[] = { script, (char *)cmd, (char *)dir, (char *)arg, NULL };
	g_autofree char *err = NULL;
	gint status = -1;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
			  &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL)) {
		if (why)
			*why = g_strdup_printf("%s %s: %.400s", script, cmd, err ? err : "did not run");
		return FALSE;
	}
	return TRUE;
}

static void stop_servers(void)
{
	if (single.dir)
		server_cmd("stop", single.dir, NULL, NULL);
	if (shards.dir)
		server_cmd("stop", shards.dir, NULL, NULL);
}

/* Starts n servers once; a server that cannot start fails the case. */
static Servers *need_servers(Servers *s, int n)
{
	if (!s->dir) {
		s->dir = vt_tmp(n == 1 ? "ch-single" : "ch-shards");
		static gboolean stop_registered;
		if (!stop_registered) /* after vt_tmp's clean-up: atexit runs it first */
			atexit(stop_servers);
		stop_registered = TRUE;
		s->n = n;
		g_autofree char *count = g_strdup_printf("%d", n);
		if (server_cmd("start", s->dir, count, &s->why)) {
			g_autofree char *env = g_build_filename(s->dir, "env", NULL);
			g_autofree char *text = NULL;
			g_file_get_contents(env, &text, NULL, NULL);
			const char *u = text ? strstr(text, "PL_CH_URLS=\"") : NULL;
			if (u) {
				g_autofree char *line = g_strndup(u + 12, strcspn(u + 12, "\""));
				g_auto(GStrv) parts = g_strsplit(line, " ", 2);
				for (int i = 0; i < n && parts[i]; i++)
					s->urls[i] = g_strdup(parts[i]);
			}
			s->credentials = g_build_filename(s->dir, "credentials", NULL);
			if (!s->urls[n - 1])
				s->why = g_strdup_printf("no server URL in %s", env);
		}
	}
	PL_CHECKF(!s->why, "%s", s->why);
	return s;
}

static PlClickhouse *connect_to(Servers *s, int k)
{
	g_autoptr(GError) error = NULL;
	PlClickhouse *ch = pl_clickhouse_new(s->urls[k], s->credentials, &error);
	PL_CHECKF(ch, "%s", error ? error->message : "?");
	return ch;
}

static char *value(PlClickhouse *ch, const char *q)
{
	g_autoptr(GError) error = NULL;
	char *v = pl_clickhouse_query_value(ch, q, &error);
	PL_CHECKF(v, "%s: %s", q, error ? error->message : "?");
	return v;
}

static guint64 count_of(PlClickhouse *ch, const char *q)
{
	g_autofree char *v = value(ch, q);
	return g_ascii_strtoull(v, NULL, 10);
}

/* ─── recordings ─────────────────────────────────────────────────────── */

typedef struct {
	char *path;
	PlProfile *profile;
	gint64 wall_offset_ns;
	guint64 report_samples; /* `perflens report`'s count of the main event */
	GHashTable *report_rows; /* "function module" -> Samples, as the report prints them */
} Recording;

static Recording rec_bzip2, rec_burn;

static gboolean take_hello(const struct pl_msg *m, gpointer data)
{
	if (m->type != PL_MSG_HELLO)
		return TRUE;
	*(gint64 *)data = (gint64)m->u.hello.wall_now_ns - (gint64)m->u.hello.clock_now_ns;
	return FALSE; /* HELLO is all we need */
}

/* The report's main-event count and its Top functions rows. */
static void read_report(Recording *r)
{
	g_autofree char *out = NULL, *err = NULL;
	int rc = vt_perflens(&out, &err, "report", r->path, NULL);
	PL_CHECKF(rc == 0, "perflens report %s: exit %d: %.300s", r->path, rc, err);
	GRegex *by_event = g_regex_new("samples by event: (\\S+) (\\d+)", 0, 0, NULL);
	g_autoptr(GMatchInfo) mi = NULL;
	PL_CHECKF(g_regex_match(by_event, out, 0, &mi), "no 'samples by event' line: %.300s", out);
	g_autofree char *n = g_match_info_fetch(mi, 2);
	r->report_samples = g_ascii_strtoull(n, NULL, 10);
	g_regex_unref(by_event);
	r->report_rows = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	GRegex *row = g_regex_new("^\\s+[\\d.]+%\\s+[\\d.]+%\\s+(\\d+)\\s+(.*?)\\s{2,}(\\S+)", 0, 0, NULL);
	const char *top = strstr(out, "Top functions by self");
	PL_CHECKF(top, "no Top functions in the report: %.300s", out);
	g_auto(GStrv) lines = g_strsplit(top, "\n", -1);
	for (int i = 2; lines[i] && *lines[i]; i++) {
		g_autoptr(GMatchInfo) m = NULL;
		if (!g_regex_match(row, lines[i], 0, &m))
			continue;
		g_autofree char *samples = g_match_info_fetch(m, 1);
		g_autofree char *fn = g_match_info_fetch(m, 2);
		g_autofree char *mod = g_match_info_fetch(m, 3);
		guint64 v = g_ascii_strtoull(samples, NULL, 10);
		/* inlined rows also count as their own function: the store keeps
		 * the innermost frame's label, inline or not */
		if (v)
			g_hash_table_insert(r->report_rows, g_strdup_printf("%s %s", fn, mod),
					    GSIZE_TO_POINTER((gsize)v));
	}
	g_regex_unref(row);
}

static Recording *need_recording(Recording *r, const char *name)
{
	if (r->profile)
		return r;
	g_autofree char *agent = vt_agent();
	r->path = vt_tmp(name);
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_strdup(agent));
	g_ptr_array_add(argv, g_strdup("--output"));
	g_ptr_array_add(argv, g_strdup(r->path));
	g_ptr_array_add(argv, g_strdup("--frequency"));
	g_ptr_array_add(argv, g_strdup("999"));
	g_ptr_array_add(argv, g_strdup("--callgraph"));
	g_ptr_array_add(argv, g_strdup("fp"));
	g_ptr_array_add(argv, g_strdup("--"));
	if (r == &rec_bzip2) {
		/* Debian's bzip2 on 6 MB of this machine's own programs */
		g_autofree char *input = vt_tmp("bzip2-input");
		g_autoptr(GString) data = g_string_new(NULL);
		const char *files[] = { "/usr/bin/perf", "/usr/bin/bash", "/usr/bin/gdb", "/usr/bin/python3", NULL };
		for (int i = 0; files[i] && data->len < 6u << 20; i++) {
			g_autofree char *c = NULL;
			gsize len = 0;
			if (g_file_get_contents(files[i], &c, &len, NULL))
				g_string_append_len(data, c, (gssize)MIN(len, (6u << 20) - data->len));
		}
		PL_CHECKF(data->len > (1u << 20), "no input for bzip2 from /usr/bin");
		PL_CHECK(g_file_set_contents(input, data->str, (gssize)data->len, NULL));
		g_autofree char *bzip2 = g_find_program_in_path("bzip2");
		PL_CHECKF(bzip2, "bzip2 is not installed (ci/deps.sh)");
		g_ptr_array_add(argv, g_strdup(bzip2));
		g_ptr_array_add(argv, g_strdup("-9"));
		g_ptr_array_add(argv, g_strdup("-k"));
		g_ptr_array_add(argv, g_strdup("-f"));
		g_ptr_array_add(argv, g_strdup(input));
	} else {
		g_ptr_array_add(argv, vt_build_path("workloads/burn"));
		g_ptr_array_add(argv, g_strdup("2"));
		g_ptr_array_add(argv, g_strdup("2"));
	}
	g_ptr_array_add(argv, NULL);
	g_autofree char *err = NULL;
	gint status = -1;
	gboolean ran = g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL,
				    NULL, NULL, &err, &status, NULL);
	PL_CHECKF(ran && g_spawn_check_wait_status(status, NULL), "the agent could not record %s: %.300s",
		  name, err ? err : "");
	g_autoptr(GError) error = NULL;
	pl_capture_load(r->path, take_hello, &r->wall_offset_ns, NULL, NULL);
	PL_CHECKF(r->wall_offset_ns != 0, "no HELLO in %s", r->path);
	PlLoadParams lp = { 0 };
	r->profile = pl_load_file(r->path, &lp, NULL, NULL, &error);
	PL_CHECKF(r->profile, "%s", error ? error->message : "?");
	read_report(r);
	return r;
}

/* The profile's samples of its main event per innermost "function module". */
static GHashTable *profile_leaves(PlProfile *p, guint64 *total)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	guint32 main_event = pl_profile_get_main_event(p);
	guint n = 0;
	const PlSample *s = pl_profile_get_samples(p, &n);
	*total = 0;
	for (guint i = 0; i < n; i++) {
		if (pl_profile_get_stack_event(p, s[i].stack) != main_event)
			continue;
		g_autoptr(GArray) f = pl_profile_dup_stack_functions(p, s[i].stack, 1);
		char *key = g_strdup("");
		if (f->len) {
			guint32 id = g_array_index(f, guint32, 0);
			const PlFunction *fn = pl_profile_get_function(p, id);
			g_free(key);
			key = g_strdup_printf("%s %s", pl_profile_get_function_label(p, id),
					      fn && fn->module ? fn->module : "[unknown]");
		}
		gsize v = GPOINTER_TO_SIZE(g_hash_table_lookup(h, key));
		g_hash_table_insert(h, key, GSIZE_TO_POINTER(v + 1));
		(*total)++;
	}
	return h;
}

/* The store's samples per innermost frame, for sessions matching where. */
static GHashTable *store_leaves(PlClickhouse *ch, const char *where)
{
	g_autofree char *q = g_strdup_printf(
		"SELECT fr[1] AS f, sum(c) FROM (SELECT stack, count() AS c FROM perflens_samples "
		"WHERE %s GROUP BY stack) ANY LEFT JOIN (SELECT stack, any(frames) AS fr FROM "
		"perflens_stacks GROUP BY stack) USING stack GROUP BY f FORMAT TabSeparated",
		where);
	g_autoptr(GByteArray) out = NULL;
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_clickhouse_run(ch, q, NULL, 0, &out, &error), "%s",
		  error ? error->message : "?");
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_autofree char *text = g_strndup((const char *)out->data, out->len);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		char *tab = strrchr(lines[i], '\t');
		if (!tab)
			continue;
		*tab = 0;
		/* TabSeparated escapes \ as \\ */
		g_autofree char *name = g_strcompress(lines[i]);
		g_hash_table_insert(h, g_strdup(name), GSIZE_TO_POINTER((gsize)g_ascii_strtoull(tab + 1, NULL, 10)));
	}
	return h;
}

static void check_same(GHashTable *want, GHashTable *got, const char *what)
{
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, want);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		gsize g = GPOINTER_TO_SIZE(g_hash_table_lookup(got, k));
		PL_CHECKF(g == GPOINTER_TO_SIZE(v), "%s: '%s' has %zu samples stored, %zu wanted", what,
			  (char *)k, g, GPOINTER_TO_SIZE(v));
	}
	PL_CHECKF(g_hash_table_size(got) == g_hash_table_size(want), "%s: %u functions stored, %u wanted",
		  what, g_hash_table_size(got), g_hash_table_size(want));
}

static GPtrArray *blocks_of(Recording *r, const char *session, const char *fw, guint rows, guint32 first)
{
	const char *labels[] = { fw, "board=vm-x86_64", NULL };
	return pl_fleet_blocks_from_profile(r->profile, session, labels, r->wall_offset_ns, rows, first);
}

static guint64 samples_in(GPtrArray *blocks)
{
	guint64 n = 0;
	for (guint i = 0; i < blocks->len; i++)
		n += ((PlFleetBlock *)blocks->pdata[i])->n_samples;
	return n;
}

static void put_all(PlFleetStore *st, GPtrArray *blocks)
{
	for (guint i = 0; i < blocks->len; i++) {
		g_autoptr(GError) error = NULL;
		PL_CHECKF(pl_fleet_store_put(st, blocks->pdata[i], &error), "block %u: %s", i,
			  error ? error->message : "?");
	}
}

/* ─── cases ──────────────────────────────────────────────────────────── */

static void test_credentials(void)
{
	Servers *s = need_servers(&single, 1);
	g_autofree char *loose = vt_tmp("loose-credentials");
	g_autofree char *text = NULL;
	PL_CHECK(g_file_get_contents(s->credentials, &text, NULL, NULL));
	PL_CHECK(g_file_set_contents(loose, text, -1, NULL));
	chmod(loose, 0644);
	g_autoptr(GError) e1 = NULL;
	PL_CHECK(!pl_clickhouse_new(s->urls[0], loose, &e1));
	PL_CHECKF(g_error_matches(e1, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS) &&
			  strstr(e1->message, "chmod 600"),
		  "%s", e1 ? e1->message : "accepted");
	g_autofree char *empty = vt_tmp("empty-password");
	PL_CHECK(g_file_set_contents(empty, "perflens:\n", -1, NULL));
	chmod(empty, 0600);
	g_autoptr(GError) e2 = NULL;
	PL_CHECK(!pl_clickhouse_new(s->urls[0], empty, &e2));
	PL_CHECK(g_error_matches(e2, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS));
	g_autofree char *in_url = g_strdup_printf("http://perflens:x@%s", s->urls[0] + 7);
	g_autoptr(GError) e3 = NULL;
	PL_CHECK(!pl_clickhouse_new(in_url, s->credentials, &e3));
	PL_CHECK(g_error_matches(e3, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_CREDENTIALS));
	g_autofree char *wrong = vt_tmp("wrong-password");
	PL_CHECK(g_file_set_contents(wrong, "perflens:not-the-password\n", -1, NULL));
	chmod(wrong, 0600);
	g_autoptr(PlClickhouse) ch = pl_clickhouse_new(s->urls[0], wrong, NULL);
	PL_CHECK(ch);
	g_autoptr(GError) e4 = NULL;
	g_autofree char *v = pl_clickhouse_query_value(ch, "SELECT 1", &e4);
	PL_CHECKF(!v && g_error_matches(e4, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_AUTH), "%s",
		  e4 ? e4->message : "answered");
	/* no credentials at all: the server has no default user */
	g_autofree char *curl = g_find_program_in_path("curl");
	PL_CHECKF(curl, "curl is not installed (ci/deps.sh)");
	g_autofree char *url = g_strdup_printf("%s/?query=SELECT%%20count()%%20FROM%%20system.tables", s->urls[0]);
	char *argv[] = { curl, (char *)"-s", url, NULL };
	g_autofree char *out = NULL;
	PL_CHECK(g_spawn_sync(NULL, argv, NULL, 0, NULL, NULL, &out, NULL, NULL, NULL));
	PL_CHECKF(out && strstr(out, "Code: 192"), "an unauthenticated request got: %.200s", out);
}

/* Puts the three sessions (bzip2-A fw=2.3.0, bzip2-B and burn-C fw=2.3.1)
 * through a new store; every block is inserted or found stored already. */
static void fill(PlClickhouse *ch, const char *spool_name, PlFleetStoreStats *stats, guint *n_blocks)
{
	Recording *a = need_recording(&rec_bzip2, "bzip2.plens");
	Recording *b = need_recording(&rec_burn, "burn.plens");
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_fleet_schema_apply(ch, NULL, &error), "%s", error ? error->message : "?");
	g_autofree char *spool = vt_tmp(spool_name);
	g_autoptr(PlFleetStore) st = pl_fleet_store_new(ch, spool, 64u << 20, &error);
	PL_CHECK(st);
	g_autoptr(GPtrArray) b1 = blocks_of(a, "bzip2-A", "fw=2.3.0", 500, 0);
	g_autoptr(GPtrArray) b2 = blocks_of(a, "bzip2-B", "fw=2.3.1", 500, 0);
	g_autoptr(GPtrArray) b3 = blocks_of(b, "burn-C", "fw=2.3.1", 500, 0);
	put_all(st, b1);
	put_all(st, b2);
	put_all(st, b3);
	*n_blocks = b1->len + b2->len + b3->len;
	*stats = *pl_fleet_store_get_stats(st);
	PL_CHECKF(stats->blocks_inserted + stats->blocks_already_stored == *n_blocks && !stats->blocks_spooled,
		  "%" G_GUINT64_FORMAT " inserted, %" G_GUINT64_FORMAT " found stored, %" G_GUINT64_FORMAT
		  " spooled, of %u",
		  stats->blocks_inserted, stats->blocks_already_stored, stats->blocks_spooled, *n_blocks);
}

static void check_sessions(PlClickhouse *ch)
{
	Recording *a = &rec_bzip2, *b = &rec_burn;
	guint64 na = 0, nb = 0;
	g_autoptr(GHashTable) la = profile_leaves(a->profile, &na);
	g_autoptr(GHashTable) lb = profile_leaves(b->profile, &nb);
	PL_CHECKF(na == a->report_samples && nb == b->report_samples,
		  "the profiles' %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " samples, the reports' %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
		  na, nb, a->report_samples, b->report_samples);
	PL_CHECK(count_of(ch, "SELECT count() FROM perflens_samples WHERE "
				 "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'bzip2-A')") == na);
	PL_CHECK(count_of(ch, "SELECT count() FROM perflens_samples WHERE "
				 "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'bzip2-B')") == na);
	PL_CHECK(count_of(ch, "SELECT count() FROM perflens_samples WHERE "
				 "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'burn-C')") == nb);
	g_autoptr(GHashTable) sa = store_leaves(
		ch, "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'bzip2-A')");
	check_same(la, sa, "bzip2-A");
	g_autoptr(GHashTable) sc = store_leaves(
		ch, "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'burn-C')");
	check_same(lb, sc, "burn-C");
	/* every row the report prints, from another process's reading */
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, a->report_rows);
	while (g_hash_table_iter_next(&it, &k, &v))
		PL_CHECKF(GPOINTER_TO_SIZE(g_hash_table_lookup(sa, k)) == GPOINTER_TO_SIZE(v),
			  "report row '%s': %zu samples, stored %zu", (char *)k, GPOINTER_TO_SIZE(v),
			  GPOINTER_TO_SIZE(g_hash_table_lookup(sa, k)));
	PL_CHECKF(g_hash_table_size(a->report_rows) >= 3, "the bzip2 report has %u functions with samples",
		  g_hash_table_size(a->report_rows));
	guint64 fw231 = count_of(ch, "SELECT count() FROM perflens_samples WHERE "
				     "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE "
				     "labels.value[indexOf(labels.key, 'fw')] = '2.3.1')");
	PL_CHECKF(fw231 == na + nb, "fw=2.3.1: %" G_GUINT64_FORMAT " samples, want %" G_GUINT64_FORMAT, fw231, na + nb);
	guint64 minutes = count_of(ch, "SELECT sum(samples) FROM perflens_minutes");
	PL_CHECKF(minutes == 2 * na + nb, "the minutes rollup sums %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT,
		  minutes, 2 * na + nb);
}

static void test_store_equals_report(void)
{
	Servers *s = need_servers(&single, 1);
	g_autoptr(PlClickhouse) ch = connect_to(s, 0);
	PlFleetStoreStats ss;
	guint n;
	fill(ch, "spool-equal", &ss, &n);
	check_sessions(ch);
}

static void test_retry_not_doubled(void)
{
	Servers *s = need_servers(&single, 1);
	g_autoptr(PlClickhouse) ch = connect_to(s, 0);
	PlFleetStoreStats ss;
	guint n;
	fill(ch, "spool-retry-1", &ss, &n);
	fill(ch, "spool-retry-2", &ss, &n);
	PL_CHECKF(ss.blocks_already_stored == n && ss.blocks_inserted == 0,
		  "put again: %" G_GUINT64_FORMAT " inserted, %" G_GUINT64_FORMAT " found stored, of %u",
		  ss.blocks_inserted, ss.blocks_already_stored, n);
	check_sessions(ch);
}

/* The burn recording as session, cut into about parts blocks, on a
 * server whose schema is in place. */
static GPtrArray *burn_blocks(PlClickhouse *ch, const char *session, const char *fw, guint parts)
{
	Recording *b = need_recording(&rec_burn, "burn.plens");
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_fleet_schema_apply(ch, NULL, &error), "%s", error ? error->message : "?");
	guint64 total = 0;
	g_autoptr(GHashTable) leaves = profile_leaves(b->profile, &total);
	PL_CHECKF(total >= 100, "burn gave only %" G_GUINT64_FORMAT " samples", total);
	GPtrArray *blocks = blocks_of(b, session, fw, (guint)(total / parts), 0);
	PL_CHECKF(blocks->len >= parts, "only %u blocks", blocks->len);
	return blocks;
}

static void test_outage_spools_then_flushes(void)
{
	Servers *s = need_servers(&single, 1);
	g_autoptr(PlClickhouse) ch = connect_to(s, 0);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) blocks = burn_blocks(ch, "burn-outage", "fw=2.4.0", 5);
	g_autofree char *spool = vt_tmp("spool-outage");
	{
		g_autoptr(PlFleetStore) st = pl_fleet_store_new(ch, spool, 64u << 20, &error);
		PL_CHECK(st);
		/* the first block goes in; then the server dies */
		PL_CHECKF(pl_fleet_store_put(st, blocks->pdata[0], &error), "%s", error ? error->message : "?");
		g_autofree char *why = NULL;
		PL_CHECKF(server_cmd("kill", s->dir, "1", &why), "%s", why);
		for (guint i = 1; i < blocks->len; i++) {
			g_autoptr(GError) e = NULL;
			PL_CHECKF(pl_fleet_store_put(st, blocks->pdata[i], &e), "%s", e ? e->message : "?");
		}
		PL_CHECKF(pl_fleet_store_get_n_spooled(st) == blocks->len - 1, "%u spooled of %u",
			  pl_fleet_store_get_n_spooled(st), blocks->len - 1);
	}
	/* the files hold stacks: the owner's alone */
	g_autoptr(GDir) d = g_dir_open(spool, 0, NULL);
	const char *name;
	guint files = 0;
	while (d && (name = g_dir_read_name(d))) {
		g_autofree char *p = g_build_filename(spool, name, NULL);
		struct stat st;
		PL_CHECK(stat(p, &st) == 0);
		PL_CHECKF((st.st_mode & 077) == 0, "%s is mode %o", p, st.st_mode & 0777);
		files++;
	}
	PL_CHECK(files == blocks->len - 1);
	g_autofree char *why = NULL;
	PL_CHECKF(server_cmd("restart", s->dir, "1", &why), "%s", why);
	/* a reply lost: the last block reached ClickHouse, the store never heard */
	PlFleetBlock *last = blocks->pdata[blocks->len - 1];
	PL_CHECK(pl_clickhouse_run(ch, "INSERT INTO perflens_stacks " PL_FLEET_STACK_COLUMNS " FORMAT RowBinary",
				   last->stacks->data, last->stacks->len, NULL, NULL));
	PL_CHECK(pl_clickhouse_run(ch, PL_FLEET_SAMPLES_INSERT,
				   last->samples->data, last->samples->len, NULL, NULL));
	/* a restarted collector takes the spool over */
	g_autoptr(PlFleetStore) again = pl_fleet_store_new(ch, spool, 64u << 20, &error);
	PL_CHECK(again && pl_fleet_store_get_n_spooled(again) == blocks->len - 1);
	PL_CHECKF(pl_fleet_store_flush(again, &error), "%s", error ? error->message : "?");
	PL_CHECK(pl_fleet_store_get_n_spooled(again) == 0);
	const PlFleetStoreStats *ss = pl_fleet_store_get_stats(again);
	PL_CHECKF(ss->blocks_already_stored == 1 && ss->blocks_inserted == blocks->len - 2,
		  "%" G_GUINT64_FORMAT " found stored, %" G_GUINT64_FORMAT " inserted", ss->blocks_already_stored,
		  ss->blocks_inserted);
	guint64 stored = count_of(ch, "SELECT count() FROM perflens_samples WHERE "
				 "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'burn-outage')");
	PL_CHECKF(stored == samples_in(blocks), "%" G_GUINT64_FORMAT " stored of %" G_GUINT64_FORMAT, stored,
		  samples_in(blocks));
}

static void test_spool_bounded(void)
{
	Servers *s = need_servers(&single, 1);
	g_autoptr(PlClickhouse) ch = connect_to(s, 0);
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) blocks = burn_blocks(ch, "burn-bounded", "fw=2.4.1", 10);
	guint64 block_bytes = ((PlFleetBlock *)blocks->pdata[1])->samples->len;
	g_autofree char *spool = vt_tmp("spool-bounded");
	g_autoptr(PlFleetStore) st = pl_fleet_store_new(ch, spool, 3 * block_bytes + block_bytes / 2, &error);
	PL_CHECK(st);
	g_autofree char *why = NULL;
	PL_CHECKF(server_cmd("kill", s->dir, "1", &why), "%s", why);
	put_all(st, blocks);
	const PlFleetStoreStats *ss = pl_fleet_store_get_stats(st);
	PL_CHECKF(ss->blocks_dropped > 0 && pl_fleet_store_get_n_spooled(st) < blocks->len,
		  "%" G_GUINT64_FORMAT " dropped, %u spooled", ss->blocks_dropped, pl_fleet_store_get_n_spooled(st));
	PL_CHECKF(server_cmd("restart", s->dir, "1", &why), "%s", why);
	PL_CHECKF(pl_fleet_store_flush(st, &error), "%s", error ? error->message : "?");
	guint64 stored = count_of(ch, "SELECT count() FROM perflens_samples WHERE "
				 "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'burn-bounded')");
	PL_CHECKF(stored + ss->samples_dropped == samples_in(blocks),
		  "%" G_GUINT64_FORMAT " stored + %" G_GUINT64_FORMAT " dropped != %" G_GUINT64_FORMAT " put", stored,
		  ss->samples_dropped, samples_in(blocks));
	PL_CHECK(stored > 0);
}

static void test_sharded_equals_single(void)
{
	Servers *one = need_servers(&single, 1);
	Servers *two = need_servers(&shards, 2);
	g_autoptr(PlClickhouse) ch1 = connect_to(two, 0);
	g_autoptr(PlClickhouse) ch2 = connect_to(two, 1);
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_fleet_schema_apply(ch1, "perflens_shards", &error), "%s", error ? error->message : "?");
	PL_CHECKF(pl_fleet_schema_apply(ch2, "perflens_shards", &error), "%s", error ? error->message : "?");
	PlFleetStoreStats ss;
	guint n;
	fill(ch1, "spool-shards", &ss, &n);
	check_sessions(ch1);
	check_sessions(ch2);
	g_autoptr(PlClickhouse) single_ch = connect_to(one, 0);
	fill(single_ch, "spool-single", &ss, &n);
	const char *where = "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name IN "
			    "('bzip2-A', 'bzip2-B', 'burn-C'))";
	g_autoptr(GHashTable) want = store_leaves(single_ch, where);
	g_autoptr(GHashTable) got1 = store_leaves(ch1, where);
	g_autoptr(GHashTable) got2 = store_leaves(ch2, where);
	check_same(want, got1, "through shard 1");
	check_same(want, got2, "through shard 2");
	guint64 l1 = count_of(ch1, "SELECT count() FROM perflens_samples_local");
	guint64 l2 = count_of(ch2, "SELECT count() FROM perflens_samples_local");
	PL_CHECKF(l1 > 0 && l2 > 0, "shard rows %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT ": not sharded", l1, l2);
}

/* Two sessions' blocks in batches (pl_fleet_store_put_all, as the
 * collector puts every session waiting): all inserted, then all found
 * stored by a second store; each session's count is its profile's.  A
 * batch of which some blocks are stored (a retry) goes block by block,
 * exactly once. */
static void test_batch_not_doubled(void)
{
	Servers *s = need_servers(&single, 1);
	g_autoptr(PlClickhouse) ch = connect_to(s, 0);
	Recording *a = need_recording(&rec_bzip2, "bzip2.plens");
	Recording *b = need_recording(&rec_burn, "burn.plens");
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_fleet_schema_apply(ch, NULL, &error), "%s", error ? error->message : "?");
	g_autoptr(GPtrArray) ba = blocks_of(a, "batch-A", "fw=2.5.0", 500, 0);
	g_autoptr(GPtrArray) bb = blocks_of(b, "batch-B", "fw=2.5.0", 500, 0);
	g_autoptr(GPtrArray) all = g_ptr_array_new();
	for (guint i = 0; i < ba->len; i++)
		g_ptr_array_add(all, ba->pdata[i]);
	for (guint i = 0; i < bb->len; i++)
		g_ptr_array_add(all, bb->pdata[i]);
	PL_CHECKF(all->len >= 3, "only %u blocks", all->len);
	/* all but the last stored first: the whole batch put again is a
	 * retry, sent block by block */
	g_autoptr(GPtrArray) head = g_ptr_array_new();
	for (guint i = 0; i + 1 < all->len; i++)
		g_ptr_array_add(head, all->pdata[i]);
	for (int round = 0; round < 2; round++) {
		g_autofree char *name = g_strdup_printf("spool-batch-%d", round);
		g_autofree char *spool = vt_tmp(name);
		g_autoptr(PlFleetStore) st = pl_fleet_store_new(ch, spool, 64u << 20, &error);
		PL_CHECK(st);
		if (round == 0)
			PL_CHECKF(pl_fleet_store_put_all(st, head, &error), "%s", error ? error->message : "?");
		PL_CHECKF(pl_fleet_store_put_all(st, all, &error), "%s", error ? error->message : "?");
		const PlFleetStoreStats *ss = pl_fleet_store_get_stats(st);
		guint want_stored = round == 0 ? head->len : all->len;
		PL_CHECKF(ss->blocks_already_stored == want_stored && !ss->blocks_spooled &&
				  ss->blocks_inserted == (round == 0 ? all->len : 0),
			  "round %d: %" G_GUINT64_FORMAT " inserted, %" G_GUINT64_FORMAT
			  " found stored, %" G_GUINT64_FORMAT " spooled, of %u",
			  round, ss->blocks_inserted, ss->blocks_already_stored, ss->blocks_spooled, all->len);
	}
	PL_CHECK(count_of(ch, "SELECT count() FROM perflens_samples WHERE "
			      "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'batch-A')") ==
		 samples_in(ba));
	PL_CHECK(count_of(ch, "SELECT count() FROM perflens_samples WHERE "
			      "session GLOBAL IN (SELECT session FROM perflens_sessions WHERE name = 'batch-B')") ==
		 samples_in(bb));
	PL_CHECK(count_of(ch, "SELECT sum(samples) FROM perflens_minutes WHERE session GLOBAL IN "
			      "(SELECT session FROM perflens_sessions WHERE name IN ('batch-A', 'batch-B'))") ==
		 samples_in(ba) + samples_in(bb));
}

/* A store an earlier PerfLens made (labels in every sample row) and a
 * block it spooled: both refused, saying what to do, nothing changed. */
static void test_old_store_refused(void)
{
	Servers *s = need_servers(&single, 1);
	g_autoptr(PlClickhouse) ch = connect_to(s, 0);
	g_autoptr(GError) error = NULL;
	static const char *const drop[] = { "perflens_minutes", "perflens_samples",
					    "perflens_sessions", "perflens_stacks" };
	for (guint i = 0; i < G_N_ELEMENTS(drop); i++) {
		g_autofree char *q = g_strdup_printf("DROP TABLE IF EXISTS %s", drop[i]);
		PL_CHECKF(pl_clickhouse_run(ch, q, NULL, 0, NULL, &error), "%s", error->message);
	}
	/* the earlier schema's samples table, as it made it */
	PL_CHECKF(pl_clickhouse_run(
			  ch,
			  "CREATE TABLE perflens_samples (date Date DEFAULT toDate(time), time DateTime, "
			  "time_ns UInt32, session String, block UInt32, event String, labels "
			  "Nested(key String, value String), pid UInt32, tid UInt32, cpu UInt16, "
			  "stack UInt64, value UInt64) ENGINE = MergeTree PARTITION BY toYYYYMM(date) "
			  "ORDER BY (session, block, stack, time)",
			  NULL, 0, NULL, &error),
		  "%s", error->message);
	PL_CHECK(!pl_fleet_schema_apply(ch, NULL, &error));
	PL_CHECKF(g_error_matches(error, PL_FLEET_SCHEMA_ERROR, PL_FLEET_SCHEMA_ERROR_OLD) &&
			  strstr(error->message, "DROP TABLE perflens_samples"),
		  "%s", error->message);
	PL_CHECK(count_of(ch, "SELECT count() FROM system.tables WHERE database = currentDatabase() "
			      "AND name IN ('perflens_sessions', 'perflens_minutes', 'perflens_stacks')") == 0);
	g_clear_error(&error);
	/* a block an earlier collector spooled */
	g_autofree char *spool = vt_tmp("spool-old");
	PL_CHECK(g_mkdir_with_parents(spool, 0700) == 0);
	g_autofree char *file = g_build_filename(spool, "0000000000000000.block", NULL);
	PL_CHECK(g_file_set_contents(file, "PLFLEET1\nold-session", -1, NULL));
	g_autoptr(PlFleetStore) st = pl_fleet_store_new(ch, spool, 64u << 20, &error);
	PL_CHECK(st && pl_fleet_store_get_n_spooled(st) == 1);
	PL_CHECK(!pl_fleet_store_flush(st, &error));
	PL_CHECKF(error && strstr(error->message, "earlier PerfLens") && strstr(error->message, file),
		  "%s", error ? error->message : "flush said nothing");
	PL_CHECK(g_file_test(file, G_FILE_TEST_EXISTS) && pl_fleet_store_get_n_spooled(st) == 1);
}

static void setup(void) __attribute__((constructor));
static void setup(void)
{
	signal(SIGPIPE, SIG_IGN);
}

PL_TEST_MAIN({ "fleet_credentials", test_credentials },
	     { "fleet_store_equals_report", test_store_equals_report },
	     { "fleet_retry_not_doubled", test_retry_not_doubled },
	     { "fleet_outage_spools_then_flushes", test_outage_spools_then_flushes },
	     { "fleet_spool_bounded", test_spool_bounded },
	     { "fleet_sharded_equals_single", test_sharded_equals_single },
	     { "fleet_batch_not_doubled", test_batch_not_doubled },
	     { "fleet_old_store_refused", test_old_store_refused })
