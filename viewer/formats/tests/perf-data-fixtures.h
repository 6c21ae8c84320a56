/* perf-data-fixtures.h — what the perf.data tests share: a temporary
 * directory, the burn workload recorded by the real `perf record` once per
 * mode and program (fp, dwarf, pipe, zstd, two events with switches), a
 * sink that collects what our reader delivers, `perf script` as the oracle
 * of sample counts, and small file and sink helpers.  Header-only, included
 * by the perf-data-*-test.c programs (read, write, malformed, byte order).
 *
 * Cases that need a recording skip only where the kernel itself refuses
 * perf events (pl-test-perf.h); a missing perf (ci/deps.sh installs it) or
 * burn, or a perf record that fails where the kernel allows perf, fails.
 */
#ifndef PL_PERF_DATA_FIXTURES_H
#define PL_PERF_DATA_FIXTURES_H

#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf-data-format.h"
#include "perf-data-reader.h"
#include "perf-data-writer.h"
#include "pl-test-perf.h"
#include "pl-test.h"

/* ================================================================ helpers */

static char *tmpdir;

static inline void cleanup_tmpdir(void)
{
	if (!tmpdir || getenv("PL_KEEP_TMP"))
		return;
	g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

static inline const char *tmp_path(const char *name)
{
	if (!tmpdir) {
		tmpdir = g_dir_make_tmp("pl-perf-data-XXXXXX", NULL);
		PL_CHECKF(tmpdir, "cannot make a temporary directory");
		atexit(cleanup_tmpdir);
	}
	static char buf[8][1024];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

static inline const char *burn_path(void)
{
	static char path[1024];
	const char *b = getenv("PL_BUILD");
	if (b) {
		snprintf(path, sizeof(path), "%s/workloads/burn", b);
	} else {
		g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
		g_autofree char *dir = exe ? g_path_get_dirname(exe) : g_strdup(".");
		snprintf(path, sizeof(path), "%s/../workloads/burn", dir);
	}
	return path;
}

/* Runs a shell command; stdout returned (owned), NULL if it failed. */
static inline char *run(const char *cmd, char **err_out)
{
	char *out = NULL, *err = NULL;
	int status = 0;
	const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	gboolean ok = g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
				   &err, &status, NULL);
	if (!ok || !g_spawn_check_wait_status(status, NULL)) {
		if (err_out)
			*err_out = err ? g_strdup(err) : g_strdup("could not run");
		g_free(out);
		g_free(err);
		return NULL;
	}
	if (err_out)
		*err_out = g_strdup(err);
	g_free(err);
	return out;
}

static inline gboolean have_perf(void)
{
	g_autofree char *v = run("perf --version", NULL);
	return v != NULL;
}

/* Records burn once per mode and caches the file (or the reason it could
 * not be made). */
typedef struct {
	const char *name;
	const char *args;
	gboolean pipe;
	char *path;
	char *why;
	gboolean tried;
} Recording;

/* (unused where a program records fewer modes: each records only what its
 * cases read) */
static Recording rec_fp G_GNUC_UNUSED = { "fp.data", "-F 999 -g", FALSE, NULL, NULL, FALSE };
static Recording rec_dwarf G_GNUC_UNUSED = { "dwarf.data", "-F 999 --call-graph dwarf", FALSE, NULL, NULL, FALSE };
static Recording rec_pipe G_GNUC_UNUSED = { "pipe.data", "-F 999 -g", TRUE, NULL, NULL, FALSE };
static Recording rec_zstd G_GNUC_UNUSED = { "zstd.data", "-F 999 -g -z", FALSE, NULL, NULL, FALSE };
static Recording rec_switch G_GNUC_UNUSED = { "switch.data", "-F 999 -g --switch-events -e cpu-clock -e task-clock", FALSE, NULL, NULL, FALSE };

static inline const char *recording(Recording *r)
{
	pl_need_kernel_perf();
	if (!r->tried) {
		r->tried = TRUE;
		if (!have_perf()) {
			r->why = g_strdup("perf is not installed (linux-perf: ci/deps.sh)");
		} else if (access(burn_path(), X_OK) != 0) {
			r->why = g_strdup_printf("%s is missing: run make first", burn_path());
		} else {
			const char *path = tmp_path(r->name);
			g_autofree char *cmd =
				r->pipe ? g_strdup_printf("perf record -q %s -o - -- %s 1 2 > '%s'",
							  r->args, burn_path(), path)
					: g_strdup_printf("perf record -q %s -o '%s' -- %s 1 2 >/dev/null",
							  r->args, path, burn_path());
			/* perf 6.1 aborts ("assertion failed at util/build-id.c")
			 * on the build-id mmap records the kernel writes while any
			 * process's events ask for them, as an agent's do: an agent
			 * of an earlier test still closing its events (seen after
			 * the fleet tests of a fresh-machine run).  Once it is gone
			 * perf records: tried again for up to 10 s. */
			char *err = NULL;
			g_autofree char *out = run(cmd, &err);
			for (int k = 0; !out && err && strstr(err, "build-id.c") && k < 10; k++) {
				g_clear_pointer(&err, g_free);
				g_usleep(G_USEC_PER_SEC);
				out = run(cmd, &err);
			}
			if (out)
				r->path = g_strdup(path);
			else
				r->why = g_strdup_printf("perf record %s failed here: %.300s", r->args,
							 err ? err : "");
			g_free(err);
		}
	}
	PL_CHECKF(r->path, "%s", r->why);
	return r->path;
}

/* ================================================================ collecting */

#define KEEP_CHAINS 64

typedef struct {
	uint64_t start, len, pgoff;
	uint32_t pid;
	char *file;
	uint8_t bid[PL_MAX_BUILD_ID];
	uint8_t bid_len;
	uint64_t ino;
} Map;

typedef struct {
	guint nmsgs;
	guint first_types[4];
	struct pl_msg_hello hello;
	char *machine, *hostname;
	struct pl_msg_session session;
	GPtrArray *event_names;
	guint64 samples;
	GHashTable *per_tid; /* tid → count */
	GHashTable *comms;   /* set of names */
	GArray *maps;        /* Map */
	GHashTable *build_ids; /* path → hex */
	guint64 samples_with_regs, samples_with_stack, max_stack;
	guint nchains;
	uint32_t chain_pid[KEEP_CHAINS];
	GArray *chains[KEEP_CHAINS];
	uint64_t last_time;
	guint64 time_regressions;
	guint64 switches, tasks, per_event[4];
} Collect;

static inline char *hex(const uint8_t *p, unsigned n)
{
	GString *s = g_string_new(NULL);
	for (unsigned i = 0; i < n; i++)
		g_string_append_printf(s, "%02x", p[i]);
	return g_string_free(s, FALSE);
}

static inline void collect_init(Collect *c)
{
	memset(c, 0, sizeof(*c));
	c->event_names = g_ptr_array_new_with_free_func(g_free);
	c->per_tid = g_hash_table_new(NULL, NULL);
	c->comms = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	c->maps = g_array_new(FALSE, TRUE, sizeof(Map));
	c->build_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

static inline void collect_free(Collect *c)
{
	g_ptr_array_unref(c->event_names);
	g_hash_table_unref(c->per_tid);
	g_hash_table_unref(c->comms);
	for (guint i = 0; i < c->maps->len; i++)
		g_free(g_array_index(c->maps, Map, i).file);
	g_array_unref(c->maps);
	g_hash_table_unref(c->build_ids);
	for (guint i = 0; i < c->nchains; i++)
		g_array_unref(c->chains[i]);
	g_free(c->machine);
	g_free(c->hostname);
}

static inline gboolean collect_sink(const struct pl_msg *m, gpointer user, GError **error)
{
	Collect *c = user;
	if (c->nmsgs < 4)
		c->first_types[c->nmsgs] = m->type;
	c->nmsgs++;
	switch (m->type) {
	case PL_MSG_HELLO:
		c->hello = m->u.hello;
		c->machine = g_strndup(m->u.hello.machine.p, m->u.hello.machine.len);
		c->hostname = g_strndup(m->u.hello.hostname.p, m->u.hello.hostname.len);
		break;
	case PL_MSG_SESSION:
		c->session = m->u.session;
		c->session.command = (struct pl_str){ "", 0 };
		break;
	case PL_MSG_EVENT_DESC:
		g_ptr_array_add(c->event_names,
				g_strndup(m->u.event_desc.name.p, m->u.event_desc.name.len));
		break;
	case PL_MSG_BUILD_ID:
		g_hash_table_replace(c->build_ids,
				     g_strndup(m->u.build_id.path.p, m->u.build_id.path.len),
				     hex(m->u.build_id.id, m->u.build_id.len));
		break;
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *s = &m->u.sample;
		c->samples++;
		if (s->event < 4)
			c->per_event[s->event]++;
		gpointer k = GUINT_TO_POINTER(s->tid);
		g_hash_table_insert(c->per_tid, k,
				    GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(c->per_tid, k)) + 1));
		if (s->nr_regs)
			c->samples_with_regs++;
		if (s->stack_size) {
			c->samples_with_stack++;
			/* touch every byte: ASan checks the borrowed pointer */
			volatile uint8_t sum = 0;
			for (uint32_t i = 0; i < s->stack_size; i++)
				sum += s->stack[i];
			(void)sum;
		}
		if (s->stack_size > c->max_stack)
			c->max_stack = s->stack_size;
		if (s->time < c->last_time)
			c->time_regressions++;
		c->last_time = s->time;
		if (c->nchains < KEEP_CHAINS) {
			GArray *a = g_array_new(FALSE, FALSE, sizeof(uint64_t));
			g_array_append_vals(a, s->callchain, s->nr_callchain);
			c->chain_pid[c->nchains] = s->pid;
			c->chains[c->nchains++] = a;
		}
		break;
	}
	case PL_MSG_MMAP: {
		Map mp = { m->u.mmap.start, m->u.mmap.len, m->u.mmap.pgoff, m->u.mmap.pid,
			   g_strndup(m->u.mmap.filename.p, m->u.mmap.filename.len), { 0 },
			   m->u.mmap.build_id_len, m->u.mmap.ino };
		memcpy(mp.bid, m->u.mmap.build_id, mp.bid_len);
		g_array_append_val(c->maps, mp);
		break;
	}
	case PL_MSG_COMM:
		g_hash_table_add(c->comms, g_strndup(m->u.comm.comm.p, m->u.comm.comm.len));
		break;
	case PL_MSG_SWITCH:
		c->switches++;
		break;
	case PL_MSG_TASK:
		c->tasks++;
		break;
	}
	return TRUE;
}

static inline void read_ok(const char *path, gboolean reorder, Collect *c, PlPerfDataStats *st)
{
	collect_init(c);
	PlPerfDataReadOptions o = { .reorder = reorder };
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_perf_data_read(path, &o, collect_sink, c, st, &error);
	PL_CHECKF(ok, "%s", error ? error->message : "?");
}

/* `perf script` sample count and samples per tid. */
static inline guint64 perf_samples(const char *path, GHashTable *per_tid)
{
	g_autofree char *cmd = g_strdup_printf("perf script -G -F tid -i '%s' 2>/dev/null", path);
	g_autofree char *out = run(cmd, NULL);
	PL_CHECK(out);
	guint64 n = 0;
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		g_strstrip(lines[i]);
		if (!*lines[i])
			continue;
		n++;
		if (per_tid) {
			gpointer k = GUINT_TO_POINTER(strtoul(lines[i], NULL, 10));
			g_hash_table_insert(per_tid, k, GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(per_tid, k)) + 1));
		}
	}
	return n;
}

static inline void check_counts_match(const char *path, const Collect *c)
{
	g_autoptr(GHashTable) tids = g_hash_table_new(NULL, NULL);
	guint64 n = perf_samples(path, tids);
	PL_CHECKF(c->samples == n, "we read %" PRIu64 " samples, perf script %" PRIu64, c->samples, n);
	PL_CHECKF(g_hash_table_size(tids) == g_hash_table_size(c->per_tid), "%u tids vs %u",
		  g_hash_table_size(tids), g_hash_table_size(c->per_tid));
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, tids);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		guint ours = GPOINTER_TO_UINT(g_hash_table_lookup(c->per_tid, k));
		PL_CHECKF(ours == GPOINTER_TO_UINT(v), "tid %u: %u samples, perf %u",
			  GPOINTER_TO_UINT(k), ours, GPOINTER_TO_UINT(v));
	}
}

/* ================================================================ sinks and files */

static inline gboolean null_sink(const struct pl_msg *m, gpointer user, GError **error)
{
	(*(guint64 *)user)++;
	return TRUE;
}

typedef struct {
	PlPerfDataWriter *w;
} Tee;

static inline gboolean tee_sink(const struct pl_msg *m, gpointer user, GError **error)
{
	return pl_perf_data_writer_add(((Tee *)user)->w, m, error);
}

static inline uint8_t *load(const char *path, gsize *n)
{
	gchar *d = NULL;
	PL_CHECK(g_file_get_contents(path, &d, n, NULL));
	return (uint8_t *)d;
}

static inline void save(const char *path, const void *d, gsize n)
{
	PL_CHECK(g_file_set_contents(path, d, (gssize)n, NULL));
}

#endif
