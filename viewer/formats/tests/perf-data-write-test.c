/* perf-data-write-test.c — the perf.data writer: perf's own recordings
 * (fp, dwarf) read by our reader and written back by our writer give the
 * same `perf report` profile, samples and build-ids; a session built by
 * hand, as the live agent sends it, gives a file perf reads with the same
 * numbers.  Fixtures: perf-data-fixtures.h. */
#include <glib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "perf-data-fixtures.h"
#include "perf-data-format.h"
#include "perf-data-reader.h"
#include "perf-data-writer.h"
#include "pl-test.h"

/* `perf report` flat profile: "PCT SYMBOL" lines, the top n. */
static char *perf_top(const char *path, int n)
{
	g_autofree char *cmd = g_strdup_printf(
		"perf report --no-children --sort sym --stdio -g none -i '%s' 2>/dev/null | "
		"grep -v '^#' | grep -v '^$' | head -%d",
		path, n);
	return run(cmd, NULL);
}

/* ================================================================ round trip */

static void round_trip(Recording *rec, const char *outname)
{
	const char *path = recording(rec);
	const char *out = tmp_path(outname);
	g_autoptr(GError) error = NULL;
	Tee t = { pl_perf_data_writer_new(out, &error) };
	PL_CHECKF(t.w, "%s", error->message);
	gboolean ok = pl_perf_data_read(path, NULL, tee_sink, &t, NULL, &error) &&
		      pl_perf_data_writer_finish(t.w, &error);
	pl_perf_data_writer_free(t.w);
	PL_CHECKF(ok, "%s", error->message);

	g_autofree char *a = perf_top(path, 8);
	g_autofree char *b = perf_top(out, 8);
	PL_CHECKF(a && b && *a, "perf report failed");
	PL_CHECKF(!strcmp(a, b), "perf report differs:\n--- original\n%s--- ours\n%s", a, b);
	PL_CHECK(strstr(b, "hot_leaf"));

	/* and our reader sees in ours what it saw in theirs */
	Collect c1, c2;
	PlPerfDataStats s1, s2;
	read_ok(path, FALSE, &c1, &s1);
	read_ok(out, FALSE, &c2, &s2);
	PL_CHECK(c1.samples == c2.samples);
	PL_CHECK(c1.samples_with_stack == c2.samples_with_stack);
	PL_CHECK(g_hash_table_size(c1.per_tid) == g_hash_table_size(c2.per_tid));
	PL_CHECK(c2.session.callgraph == c1.session.callgraph);
	check_counts_match(out, &c2);
	g_autofree char *cmd = g_strdup_printf("perf buildid-list -i '%s' 2>/dev/null | sort", path);
	g_autofree char *cmd2 = g_strdup_printf("perf buildid-list -i '%s' 2>/dev/null | sort", out);
	g_autofree char *b1 = run(cmd, NULL);
	g_autofree char *b2 = run(cmd2, NULL);
	PL_CHECKF(b1 && b2 && !strcmp(b1, b2), "build-ids differ:\n%s---\n%s", b1, b2);
	collect_free(&c1);
	collect_free(&c2);
}

static void test_round_trip_fp(void)
{
	round_trip(&rec_fp, "rt-fp.data");
}

static void test_round_trip_dwarf(void)
{
	round_trip(&rec_dwarf, "rt-dwarf.data");
}

/* ================================================================ the writer alone */

/* A session built by hand (as the live agent sends it) gives a file perf
 * reads with the same numbers. */
static void test_writer_synthetic(void)
{
	PL_CHECKF(have_perf(), "perf is not installed (linux-perf: ci/deps.sh)");
	const char *out = tmp_path("synthetic.data");
	g_autoptr(GError) error = NULL;
	g_autoptr(PlPerfDataWriter) w = pl_perf_data_writer_new(out, &error);
	PL_CHECK(w);
	struct pl_msg *m = g_malloc0(sizeof(*m));
	m->type = PL_MSG_HELLO;
	m->u.hello.machine = pl_str_c("x86_64");
	m->u.hello.hostname = pl_str_c("board");
	m->u.hello.kernel_release = pl_str_c("6.1.0");
	m->u.hello.ncpus = 4;
	m->u.hello.clock_id = CLOCK_MONOTONIC;
	PL_CHECK(pl_perf_data_writer_add(w, m, &error));
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_SESSION;
	m->u.session.callgraph = PL_CG_FP;
	m->u.session.command = pl_str_c("fw-app");
	PL_CHECK(pl_perf_data_writer_add(w, m, &error));
	for (uint32_t e = 0; e < 2; e++) {
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_EVENT_DESC;
		m->u.event_desc.index = e;
		m->u.event_desc.name = pl_str_c(e ? "task-clock" : "cpu-clock");
		m->u.event_desc.type = 1;
		m->u.event_desc.config = e ? 1 : 0;
		m->u.event_desc.freq = 1;
		m->u.event_desc.period_or_freq = 1000;
		PL_CHECK(pl_perf_data_writer_add(w, m, &error));
	}
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_COMM;
	m->u.comm = (struct pl_msg_comm){ 100, 100, 1000, 1, 0, pl_str_c("fw-app") };
	PL_CHECK(pl_perf_data_writer_add(w, m, &error));
	for (int i = 0; i < 300; i++) {
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_SAMPLE;
		struct pl_msg_sample *s = &m->u.sample;
		s->event = (uint32_t)(i % 3 == 0);
		s->pid = 100;
		s->tid = 100 + (uint32_t)(i % 2);
		s->time = 2000 + (uint64_t)i;
		s->period = 1000;
		s->ip = 0x400000 + (uint64_t)(i % 5) * 0x10;
		s->cpumode = PD_MISC_USER;
		s->nr_callchain = 3;
		s->callchain[0] = (uint64_t)-512; /* PERF_CONTEXT_USER */
		s->callchain[1] = s->ip;
		s->callchain[2] = 0x400100;
		PL_CHECK(pl_perf_data_writer_add(w, m, &error));
	}
	g_free(m);
	PL_CHECKF(pl_perf_data_writer_finish(w, &error), "%s", error->message);
	g_autofree char *cmd = g_strdup_printf("perf report --stats -i '%s' 2>&1", out);
	g_autofree char *stats = run(cmd, NULL);
	PL_CHECK(stats);
	PL_CHECKF(strstr(stats, "SAMPLE events:        300"), "%s", stats);
	g_autofree char *cmd2 = g_strdup_printf(
		"perf report --stdio --sort comm -F overhead,sample,comm -i '%s' 2>/dev/null | "
		"grep -v '^#' | grep -v '^$'", out);
	g_autofree char *rep = run(cmd2, NULL);
	PL_CHECKF(rep && strstr(rep, "fw-app"), "%s", rep ? rep : "(perf report failed)");
	Collect c;
	PlPerfDataStats st;
	read_ok(out, FALSE, &c, &st);
	PL_CHECK(c.samples == 300 && c.per_event[1] == 100 && c.per_event[0] == 200);
	PL_CHECK(c.event_names->len == 2 && !strcmp(g_ptr_array_index(c.event_names, 1), "task-clock"));
	PL_CHECK(!strcmp(c.hostname, "board") && c.hello.ncpus == 4);
	PL_CHECK(c.nchains > 0 && c.chains[0]->len == 3);
	collect_free(&c);
}

PL_TEST_MAIN(PL_CASE(test_round_trip_fp), PL_CASE(test_round_trip_dwarf),
	     PL_CASE(test_writer_synthetic))
