/* perfdata-mmap-test.c — the perf.data reader maps the data section
 * (viewer/formats/perf-data-reader.c): a file read mapped gives exactly the
 * samples the streamed read gives (pipe mode is always streamed: the same
 * recording converted by `perf inject -o -`), and a file cut short while it is
 * read is an error, not a SIGBUS.  Lives with the symbols tests because
 * the ingest work that made the reader map its file is tested here. */
#include <signal.h>

#include "perf-data-reader.h"
#include "pl-test-perf.h"
#include "sym-test-util.h"

/* A perf recording of burn.  Skipped only where the kernel refuses perf
 * events; burn or perf missing (make, ci/deps.sh) or perf record failing
 * is a failure. */
static char *record(const char *name, gboolean pipe)
{
	g_autofree char *burn = g_build_filename(t_build_dir(), "workloads", "burn", NULL);
	PL_CHECKF(g_file_test(burn, G_FILE_TEST_IS_EXECUTABLE), "%s is not built (make)", burn);
	g_autofree char *perf = g_find_program_in_path("perf");
	PL_CHECKF(perf, "perf is not installed (linux-perf: ci/deps.sh)");
	pl_need_kernel_perf();
	char *out = g_build_filename(t_tmp(), name, NULL);
	g_autofree char *errf = g_strdup_printf("%s.err", out);
	g_autofree char *cmd =
		pipe ? g_strdup_printf("perf record -q -e cpu-clock -F 999 -g -o - -- %s 1 2 > %s 2>%s",
				       burn, out, errf)
		     : g_strdup_printf("perf record -q -e cpu-clock -F 999 -g -o %s -- %s 1 2 >/dev/null 2>%s",
				       out, burn, errf);
	int st = system(cmd);
	if (st != 0 || !g_file_test(out, G_FILE_TEST_EXISTS)) {
		g_autofree char *err = NULL;
		g_file_get_contents(errf, &err, NULL, NULL);
		PL_CHECKF(0, "the kernel allows perf events, but perf record failed (%d): %.300s", st,
			  err ? err : "?");
	}
	return out;
}

typedef struct {
	guint64 samples, mmaps, pcs;
	guint64 sum; /* of every sample's fields and callchain */
	const char *cut_path;
	guint cut_after;
	guint n;
} Count;

static gboolean count(const struct pl_msg *m, gpointer user, GError **error)
{
	Count *c = user;
	c->n++;
	if (m->type == PL_MSG_SAMPLE) {
		const struct pl_msg_sample *s = &m->u.sample;
		c->samples++;
		c->sum = c->sum * 31 + s->time + s->ip + s->tid;
		for (guint i = 0; i < s->nr_callchain; i++)
			c->sum = c->sum * 31 + s->callchain[i];
		c->pcs += s->nr_callchain;
	} else if (m->type == PL_MSG_MMAP) {
		c->mmaps++;
	}
	if (c->cut_path && c->n == c->cut_after)
		PL_CHECK(truncate(c->cut_path, 4096) == 0);
	return TRUE;
}

static void mapped_equals_streamed(void)
{
	g_autofree char *file = record("file.data", FALSE);
	/* the same recording in pipe mode (perf inject -o -): that is never
	 * mapped, it is streamed through the reader's window */
	g_autofree char *piped = g_build_filename(t_tmp(), "pipe.data", NULL);
	g_autofree char *cmd = g_strdup_printf("perf inject -i %s -o - > %s", file, piped);
	PL_CHECKF(system(cmd) == 0, "perf inject failed (its stderr is above)");
	PlPerfDataReadOptions o = { .reorder = TRUE };
	Count a = { 0 }, b = { 0 };
	g_autoptr(GError) e = NULL;
	PlPerfDataStats sa, sb;
	PL_CHECKF(pl_perf_data_read(file, &o, count, &a, &sa, &e), "%s", e->message);
	PL_CHECKF(pl_perf_data_read(piped, &o, count, &b, &sb, &e), "%s", e->message);
	PL_CHECK(!sa.pipe_mode && sb.pipe_mode);
	PL_CHECKF(a.samples > 20 && a.samples == b.samples && a.sum == b.sum,
		  "mapped: %llu samples, streamed: %llu (%s)", (unsigned long long)a.samples,
		  (unsigned long long)b.samples, a.sum == b.sum ? "same sum" : "sums differ");
	printf("# %llu samples, %llu callchain entries read mapped and streamed alike\n",
	       (unsigned long long)a.samples, (unsigned long long)a.pcs);
}

static void cut_while_read(void)
{
	g_autofree char *orig = record("cut.data", FALSE);
	g_autofree char *copy = g_build_filename(t_tmp(), "cut-copy.data", NULL);
	g_autofree char *cmd = g_strdup_printf("cp %s %s", orig, copy);
	PL_CHECK(system(cmd) == 0);
	PlPerfDataReadOptions o = { .reorder = FALSE };
	Count c = { .cut_path = copy, .cut_after = 20 };
	struct sigaction before, after;
	PL_CHECK(sigaction(SIGBUS, NULL, &before) == 0);
	g_autoptr(GError) e = NULL;
	gboolean ok = pl_perf_data_read(copy, &o, count, &c, NULL, &e);
	/* still running: the cut was caught and said */
	PL_CHECK(!ok && e);
	PL_CHECKF(strstr(e->message, "changed") != NULL, "%s", e->message);
	PL_CHECK(c.n >= 20);
	/* and SIGBUS is handled as before the read (the default, or a
	 * sanitizer's) */
	PL_CHECK(sigaction(SIGBUS, NULL, &after) == 0);
	PL_CHECK(before.sa_handler == after.sa_handler && before.sa_flags == after.sa_flags);
}

PL_TEST_MAIN(PL_CASE(mapped_equals_streamed), PL_CASE(cut_while_read))
