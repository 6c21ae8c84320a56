/* fuzz-capture.c — libFuzzer harness: opening a recording in the viewer.
 *
 * The input is a file given to pl_capture_load (viewer/io/pl-capture.h):
 * a .plens capture or a perf.data file, dispatched by magic as the viewer
 * does.  Every message goes into a real session model (pl_profile_ingest,
 * viewer/model/pl-profile.h) with the real symbolizer behind it, and then
 * every analysis the UI and the CLI run is asked of that model, so
 * well-formed but hostile messages (absurd times, pids, addresses, stack
 * copies, registers, counters, switch sequences) reach the code that
 * trusts the decoder.
 *
 * The symbolizer may only read the two workload ELFs (PL_FUZZ_BUILD
 * /workloads/burn and burn-nofp; env PL_FUZZ_BINDIR overrides the directory),
 * given as --binary would give them; host_files is off, so a path in the
 * input never makes the viewer open a file of this machine.  The seeds map
 * those binaries, so mutated addresses and stacks are resolved and
 * DWARF-unwound against a real ELF with real CFI.
 *
 * pl_capture_load takes a path: the input is written to a memfd and opened
 * through /proc/self/fd.  .plens inputs are also loaded with repaired CRCs,
 * and other inputs as the frames of one raw block (fuzz-util.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz-util.h"
#include "pl-capture.h"
#include "pl-proc-irq-counts.h"
#include "pl-profile.h"
#include "pl-tracepoint.h"

#ifndef PL_FUZZ_BUILD
#define PL_FUZZ_BUILD "build"
#endif

static int fd = -1;
static char path[64];
static PlSymOptions opts;

static void setup(void)
{
	if (fd >= 0)
		return;
	fd = memfd_create("fuzz-capture", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	const char *dir = getenv("PL_FUZZ_BINDIR");
	g_autofree char *def = g_build_filename(PL_FUZZ_BUILD, "workloads", NULL);
	if (!dir)
		dir = def;
	opts.binaries = g_ptr_array_new_with_free_func(g_free);
	const char *names[] = { "burn", "burn-nofp" };
	for (size_t i = 0; i < 2; i++) {
		char *p = g_build_filename(dir, names[i], NULL);
		if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
			g_ptr_array_add(opts.binaries, p);
		else
			g_free(p);
	}
	opts.host_files = FALSE;
}

static void stack_cb(const guint32 *funcs, guint depth, const PlCount *self, gpointer user)
{
	PlProfile *p = user;
	volatile gsize sum = 0;
	for (guint i = 0; i < depth; i++)
		sum += strlen(pl_profile_get_function_label(p, funcs[i]));
	(void)sum;
	FZ_CHECK(self->samples > 0, "a stack with no self samples");
}

/* No row counts more samples than the selection holds (callers/callees of
 * a recursive function once counted a sample once per level:
 * fuzz/regressions/capture/model-callers-*). */
static void rows(PlAggregate *agg, GArray *a)
{
	if (!a)
		return;
	for (guint i = 0; i < a->len; i++) {
		const PlRow *r = &g_array_index(a, PlRow, i);
		FZ_CHECK(r->self.samples <= agg->all.samples && r->total.samples <= agg->all.samples,
			 "row %u: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " samples of %"
			 G_GUINT64_FORMAT, r->id, r->self.samples, r->total.samples,
			 agg->all.samples);
	}
	g_array_unref(a);
}

/* Everything the report, the flame graph, the tables and the timeline ask. */
static void analyse(PlProfile *p, const PlFilter *f)
{
	PlAggregate *agg = pl_profile_aggregate(p, f);
	if (!agg)
		return;
	GArray *fn = pl_aggregate_functions(agg, TRUE);
	if (fn && fn->len) {
		guint32 top = g_array_index(fn, PlRow, 0).id;
		rows(agg, pl_aggregate_callers(agg, top));
		rows(agg, pl_aggregate_callees(agg, top));
	}
	rows(agg, fn);
	rows(agg, pl_aggregate_functions(agg, FALSE));
	GArray *lines = pl_aggregate_lines(agg);
	if (lines) {
		for (guint i = 0; i < lines->len; i++) {
			const PlLocation *l =
				pl_profile_get_location(p, g_array_index(lines, PlRow, i).id);
			FZ_CHECK(l != NULL, "aggregate line without a location");
		}
		g_array_unref(lines);
	}
	pl_aggregate_foreach_stack(agg, stack_cb, p);
	pl_aggregate_free(agg);
}

static void load(const uint8_t *data, size_t size, uint64_t seed)
{
	(void)seed; /* a file is read whole */
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return;
	PlProfile *p = pl_profile_new(&opts);
	PlCaptureInfo info;
	GError *error = NULL;
	if (!pl_capture_load(path, pl_profile_ingest, p, &info, &error)) {
		FZ_CHECK(error && error->message, "load failed without an error");
		g_error_free(error);
	}
	g_free(pl_capture_info_dup_note(&info));
	pl_profile_finish(p);

	const PlProfileStats *st = pl_profile_get_stats(p);
	(void)st;
	guint nf = pl_profile_get_n_functions(p);
	for (guint i = 0; i < nf && i < 4096; i++)
		(void)strlen(pl_profile_get_function_label(p, i));
	guint ns;
	const PlSample *samples = pl_profile_get_samples(p, &ns);
	for (guint i = 0; i < ns; i++)
		FZ_CHECK(pl_profile_get_stack_node(p, samples[i].stack) < pl_profile_get_n_nodes(p),
			 "sample %u: stack %u gives no call-tree node", i, samples[i].stack);

	/* tracepoint hits and markers (pl-tracepoint.h): every payload decoded
	 * with its event's format, the markers paired into intervals */
	guint nt;
	const PlTraceEvent *te = pl_profile_get_trace_events(p, &nt);
	for (guint i = 0; i < nt && i < 4096; i++) {
		const PlTraceFormat *tf = pl_profile_get_trace_format(p, te[i].event);
		char *fields = pl_trace_format_dup_fields(tf, pl_profile_get_trace_raw(p, &te[i]),
							  te[i].raw_len, pl_profile_is_big_endian(p));
		FZ_CHECK(fields != NULL, "trace event %u: no field text", i);
		g_free(fields);
	}
	PlMarkers *mk = pl_markers_new(p);
	for (guint i = 0; i < mk->intervals->len; i++) {
		const PlMarkerInterval *v = &g_array_index(mk->intervals, PlMarkerInterval, i);
		FZ_CHECK(v->end >= v->start, "interval %u ends before it starts", i);
	}
	pl_markers_free(mk);

	/* /proc's interrupt counts (the agent's reads, FILE_CHUNK kinds 9
	 * and 10): parsed and held to the runs; every row adds up */
	PlProcIrqCompare *pc = pl_proc_irq_compare_new(p);
	for (guint i = 0; i < pc->rows->len; i++) {
		const PlProcIrqRow *r = pc->rows->pdata[i];
		FZ_CHECK(!r->traced || (gint64)r->recorded + r->missing == r->proc,
			 "/proc row %s: %" G_GUINT64_FORMAT " + %" G_GINT64_FORMAT " != %" G_GINT64_FORMAT,
			 r->key, r->recorded, r->missing, r->proc);
	}
	char *said = pl_proc_irq_compare_dup_summary(pc, FALSE);
	FZ_CHECK(!said == (!pc->have && !pc->problem), "/proc summary %s without reads",
		 said ? "given" : "missing");
	g_free(said);
	pl_proc_irq_compare_free(pc);

	analyse(p, &PL_FILTER_ALL);
	PlFilter f = PL_FILTER_ALL;
	f.event = pl_profile_get_main_event(p);
	GPtrArray *threads = pl_profile_get_threads(p);
	if (threads && threads->len) {
		PlThread *t = g_ptr_array_index(threads, threads->len / 2);
		f.tid = t->tid;
		f.t0 = t->start;
		f.t1 = t->end;
		for (guint i = 0; t->intervals && i < t->intervals->len; i++) {
			const PlInterval *iv = &g_array_index(t->intervals, PlInterval, i);
			FZ_CHECK(iv->start <= iv->end, "thread %u interval %u ends before it starts",
				 t->tid, i);
		}
	}
	analyse(p, &f);
	(void)pl_profile_get_processes(p);
	(void)pl_profile_get_events(p);
	GArray *ce = pl_profile_dup_counter_events(p);
	if (ce) {
		for (guint i = 0; i < ce->len; i++)
			(void)pl_profile_get_counter(p, g_array_index(ce, guint32, i));
		g_array_unref(ce);
	}
	pl_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	/* a perf.data is read as one; anything else may be bare frames */
	int is_perf = size >= 8 && memcmp(data, "PERFILE2", 8) == 0;
	fz_each_stream(data, size, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE, !is_perf, load);
	return 0;
}
