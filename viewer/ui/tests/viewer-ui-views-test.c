/* viewer-ui-views-test.c — the diff view, the health graphs, the
 * disassembly in the source view and the thread details popover, on real
 * recordings, in a real GTK window (under Xvfb: viewer-ui-views-test.sh
 * records the captures and runs this as $PL_BUILD/test/viewer-ui-views-prog).
 *
 *   VIEWS_BASE   capture of build/workloads/burn (the agent's --output)
 *   VIEWS_OTHER  capture of the same program built differently (-O0)
 *   VIEWS_BURN   the burn ELF of VIEWS_BASE (nm gives hot_leaf's range)
 *   PL_UI_SCREENSHOTS  where PNGs go (light and dark)
 *
 * irq_block_pages uses hand-made messages (the irq and block tracepoints'
 * formats and payloads) instead of a capture.
 *
 * Every check reads what the widget shows through its API and compares it
 * with the model computed independently here (aggregates, nm). */
#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>

#include "pl-capture.h"
#include "pl-counters-view.h"
#include "pl-diff-view.h"
#include "pl-flame-graph.h"
#include "pl-health-view.h"
#include "pl-irq-view.h"
#include "pl-block-view.h"
#include "pl-pair-button.h"
#include "pl-profile.h"
#include "pl-source-view.h"
#include "pl-stack-filter.h"
#include "pl-transform.h"
#include "pl-test-nm.h"
#include "pl-test.h"
#include "pl-thread-timeline.h"
#include "pl-tracepoint.h"
#include "pl-ui-util.h"

static PlProfile *base, *other;
static GtkWindow *win;
static GtkStack *stack;
static PlHealthView *health;
static PlSourceView *source;
static PlDiffView *diff;
static PlThreadTimeline *timeline;
static PlCountersView *counters;
static PlAggregate *base_agg;
static const char *shots;

static PlProfile *load(const char *env)
{
	const char *path = getenv(env);
	PL_CHECKF(path && *path, "%s not set (run viewer-ui-views-test, which records the captures)",
		  env);
	PlProfile *p = pl_profile_new(NULL);
	GError *error = NULL;
	gboolean ok = pl_capture_load(path, pl_profile_ingest, p, NULL, &error);
	PL_CHECKF(ok, "%s: %s", path, error ? error->message : "?");
	pl_profile_finish(p);
	return p;
}

/* Lets GTK lay out and draw: a few frames of the main loop. */
static void settle(void)
{
	gint64 end = g_get_monotonic_time() + 400 * 1000;
	while (g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, FALSE);
}

static void setup(void)
{
	if (win)
		return;
	/* viewer-ui-views-test runs this under Xvfb, and says [no-display]
	 * itself when no X server starts: here, a display is a given */
	PL_CHECKF(gtk_init_check(), "GTK cannot open the display %s (run under Xvfb: "
		  "viewer-ui-views-test)", g_getenv("DISPLAY") ? g_getenv("DISPLAY") : "(unset)");
	base = load("VIEWS_BASE");
	other = load("VIEWS_OTHER");
	shots = getenv("PL_UI_SCREENSHOTS");
	if (!shots || !*shots)
		shots = g_get_tmp_dir();
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", FALSE, NULL);
	win = GTK_WINDOW(gtk_window_new());
	gtk_window_set_default_size(win, 1200, 760);
	gtk_window_set_title(win, "PerfLens views test");
	stack = GTK_STACK(gtk_stack_new());
	health = PL_HEALTH_VIEW(pl_health_view_new());
	source = PL_SOURCE_VIEW(pl_source_view_new());
	diff = PL_DIFF_VIEW(pl_diff_view_new());
	timeline = PL_THREAD_TIMELINE(pl_thread_timeline_new());
	gtk_stack_add_named(stack, GTK_WIDGET(health), "health");
	gtk_stack_add_named(stack, GTK_WIDGET(source), "source");
	gtk_stack_add_named(stack, GTK_WIDGET(diff), "diff");
	counters = PL_COUNTERS_VIEW(pl_counters_view_new());
	gtk_stack_add_named(stack, GTK_WIDGET(counters), "counters");
	GtkWidget *sw = gtk_scrolled_window_new();
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sw), GTK_WIDGET(timeline));
	gtk_stack_add_named(stack, sw, "timeline");
	gtk_window_set_child(win, GTK_WIDGET(stack));
	gtk_window_present(win);
	PlFilter f = PL_FILTER_ALL;
	f.event = pl_profile_get_main_event(base);
	base_agg = pl_profile_aggregate(base, &f);
	settle();
}

static void show(const char *page)
{
	gtk_stack_set_visible_child_name(stack, page);
	settle();
}

static void shot(const char *name)
{
	g_autofree char *path = g_build_filename(shots, name, NULL);
	GError *error = NULL;
	/* a loaded machine may not have drawn the page yet: give it time */
	gboolean ok = FALSE;
	for (guint i = 0; i < 20 && !ok; i++) {
		g_clear_error(&error);
		ok = pl_ui_save_png(GTK_WIDGET(win), path, &error);
		if (!ok)
			settle();
	}
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	printf("# screenshot %s\n", path);
}

static gint find_series(const char *prefix)
{
	for (guint i = 0; i < pl_health_view_get_n_series(health); i++)
		if (g_str_has_prefix(pl_health_view_get_series_name(health, i), prefix))
			return (gint)i;
	return -1;
}

static void health_graphs(void)
{
	setup();
	pl_health_view_set_profile(health, base);
	const PlProfileStats *st = pl_profile_get_stats(base);
	/* shade the middle of the recording, as a timeline drag would */
	guint64 span = st->last_time - st->first_time;
	pl_health_view_set_range(health, st->first_time + span / 3, st->first_time + 2 * span / 3);
	show("health");
	guint nh = 0;
	pl_profile_get_health_series(base, &nh);
	PL_CHECKF(nh >= 2, "only %u HEALTH reports in the capture", nh);
	/* six health quantities, samples per second, losses */
	PL_CHECKF(pl_health_view_get_n_series(health) == 8, "%u graphs",
		  pl_health_view_get_n_series(health));
	gint cpu = find_series("Board CPU busy"), rss = find_series("Agent memory"),
	     smp = find_series("Samples");
	PL_CHECK(cpu >= 0 && rss >= 0 && smp >= 0);
	double peak = pl_health_view_get_series_peak(health, (guint)cpu);
	/* burn keeps 2 of the 2 CPUs busy */
	PL_CHECKF(peak > 20 && peak <= 100, "CPU peak %.1f%%", peak);
	PL_CHECKF(pl_health_view_get_series_last(health, (guint)rss) > 0.1, "agent RSS %.2f MB",
		  pl_health_view_get_series_last(health, (guint)rss));
	/* the busiest second holds at least the recording's mean rate (how
	 * many a second depends on how much CPU the machine gave burn) */
	const PlEvent *ev = pl_profile_lookup_event(base, pl_profile_get_main_event(base));
	double mean = ev ? (double)ev->samples / ((double)span / 1e9) : 0;
	double rate = pl_health_view_get_series_peak(health, (guint)smp);
	PL_CHECKF(mean > 0 && rate >= mean * 0.999, "peak sample rate %.0f/s, mean %.0f/s", rate,
		  mean);
	printf("# health: %u graphs, CPU peak %.1f%%, agent RSS %.1f MB, samples peak %.0f/s\n",
	       pl_health_view_get_n_series(health), peak,
	       pl_health_view_get_series_last(health, (guint)rss), rate);
	shot("views-health-light.png");
}

/* perf.data has no HEALTH: the view says so and still draws the samples
 * over time (their total is perf report's sample count) and the losses. */
static void health_perf_data(void)
{
	setup();
	/* VIEWS_PERF_SKIP: "[TAG] why" where the kernel refuses perf;
	 * VIEWS_PERF_FAIL: why perf record failed where it should not */
	const char *why = getenv("VIEWS_PERF_SKIP");
	if (why && *why)
		PL_SKIP("%s", why);
	why = getenv("VIEWS_PERF_FAIL");
	PL_CHECKF(!why || !*why, "%s", why);
	const char *path = getenv("VIEWS_PERF");
	PL_CHECKF(path && *path, "VIEWS_PERF not set (run viewer-ui-views-test, which records it)");
	g_autoptr(PlProfile) p = pl_profile_new(NULL);
	GError *error = NULL;
	gboolean ok = pl_capture_load(path, pl_profile_ingest, p, NULL, &error);
	PL_CHECKF(ok, "%s: %s", path, error ? error->message : "?");
	pl_profile_finish(p);
	pl_health_view_set_profile(health, p);
	show("health");
	PL_CHECKF(pl_health_view_get_n_series(health) == 2, "%u graphs",
		  pl_health_view_get_n_series(health));
	PL_CHECK(g_str_has_prefix(pl_health_view_get_series_name(health, 0), "Samples"));
	PL_CHECK(pl_health_view_get_series_peak(health, 0) > 0);
	shot("views-health-perf-data-light.png");
	pl_health_view_set_profile(health, NULL);
	PL_CHECK(pl_health_view_get_n_series(health) == 0);
}

static void disassembly_hot_leaf(void)
{
	setup();
	const char *elf = getenv("VIEWS_BURN");
	guint64 lo, hi;
	/* hot_leaf's [start, end) from nm -S: the oracle for the hot address */
	PL_CHECKF(elf && pl_sym_range(elf, "hot_leaf", &lo, &hi), "nm -S gives no hot_leaf in %s",
		  elf ? elf : "(VIEWS_BURN unset)");
	g_autofree char *objdump = g_find_program_in_path("objdump");
	PL_CHECKF(objdump, "objdump not installed (binutils)");
	guint32 f = pl_profile_find_function(base, "hot_leaf");
	PL_CHECK(f != PL_NO_ID);
	show("source");
	GError *error = NULL;
	pl_source_view_set_disassembly(source, FALSE);
	gboolean ok = pl_source_view_show_function(source, base, base_agg, f, &error);
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	guint hot_line = pl_source_view_get_hot_line(source);
	PL_CHECK(hot_line > 0);
	/* the switch: same function, now its instructions */
	pl_source_view_set_disassembly(source, TRUE);
	settle();
	PL_CHECKF(pl_source_view_get_annotation(source), "%s",
		  pl_source_view_get_disassembly_error(source));
	guint64 addr = pl_source_view_get_hot_address(source);
	PL_CHECKF(addr >= lo && addr < hi,
		  "hot %#" G_GINT64_MODIFIER "x outside hot_leaf [%#" G_GINT64_MODIFIER
		  "x, %#" G_GINT64_MODIFIER "x)",
		  addr, lo, hi);
	const PlAnnotation *a = pl_source_view_get_annotation(source);
	/* every self sample of hot_leaf is on one of its instructions */
	guint64 placed = 0;
	for (guint i = 0; i < a->lines->len; i++)
		placed += a->self[i].weight;
	PL_CHECKF(placed == base_agg->func_self[f].weight,
		  "%" G_GUINT64_FORMAT " placed of %" G_GUINT64_FORMAT, placed,
		  base_agg->func_self[f].weight);
	printf("# disassembly: hot_leaf's hottest instruction %#" G_GINT64_MODIFIER
	       "x in [%#" G_GINT64_MODIFIER "x, %#" G_GINT64_MODIFIER "x), %.1f%% of all samples; "
	       "source hot line %u\n",
	       addr, lo, hi, 100.0 * a->self[a->hot].weight / (double)base_agg->all.weight, hot_line);
	shot("views-disasm-light.png");
	/* an inlined function is shown inside the function it was inlined into */
	guint32 inl = PL_NO_ID;
	for (guint32 id = 0; id < base_agg->n_functions; id++)
		if (!g_strcmp0(pl_profile_get_function_label(base, id), "inlined_mix") &&
		    base_agg->func_total[id].samples)
			inl = id;
	if (inl != PL_NO_ID) {
		g_clear_error(&error);
		pl_source_view_show_function(source, base, base_agg, inl, &error);
		const PlAnnotation *ia = pl_source_view_get_annotation(source);
		PL_CHECKF(ia && !g_strcmp0(ia->symbol, "compute_mid"), "inlined_mix shown in %s",
			  ia ? ia->symbol : pl_source_view_get_disassembly_error(source));
		PL_CHECK(pl_source_view_get_hot_address(source) != 0);
		shot("views-disasm-inlined-light.png");
		pl_source_view_show_function(source, base, base_agg, f, NULL);
	}
	/* and back: the source's hot line again */
	pl_source_view_set_disassembly(source, FALSE);
	settle();
	PL_CHECK(pl_source_view_get_hot_line(source) == hot_line);
	PL_CHECK(pl_source_view_get_hot_address(source) == 0);
	pl_source_view_set_disassembly(source, TRUE);
}

static double self_share_sf(PlProfile *p, const char *name, const PlStackFilter *sf)
{
	PlFilter f = PL_FILTER_ALL;
	f.event = pl_profile_get_main_event(p);
	g_autoptr(PlAggregate) a = pl_profile_aggregate_filtered(p, &f, sf);
	guint64 w = 0;
	for (guint32 id = 0; id < a->n_functions; id++)
		if (!g_strcmp0(pl_profile_get_function_label(p, id), name) &&
		    !pl_profile_get_function(p, id)->inlined)
			w += a->func_self[id].weight;
	return a->all.weight ? (double)w / (double)a->all.weight : 0;
}

static double self_share(PlProfile *p, const char *name)
{
	return self_share_sf(p, name, NULL);
}

static void diff_rows(void)
{
	setup();
	pl_diff_view_set_profiles(diff, base, other, NULL);
	show("diff");
	guint n = pl_diff_view_get_n_rows(diff);
	PL_CHECKF(n >= 3, "%u rows", n);
	/* sorted by |Δ self| */
	for (guint i = 1; i < n; i++)
		PL_CHECKF(fabs(pl_diff_view_get_row_delta(diff, i)) <=
				  fabs(pl_diff_view_get_row_delta(diff, i - 1)) + 1e-12,
			  "row %u (%s) out of order", i, pl_diff_view_get_row_label(diff, i));
	/* hot_leaf's row agrees with the two aggregates computed here */
	gboolean found = FALSE;
	for (guint i = 0; i < n; i++) {
		if (g_strcmp0(pl_diff_view_get_row_label(diff, i), "hot_leaf"))
			continue;
		double want = 100 * (self_share(other, "hot_leaf") - self_share(base, "hot_leaf"));
		PL_CHECKF(fabs(pl_diff_view_get_row_delta(diff, i) - want) < 1e-9,
			  "hot_leaf Δ %.4f, aggregates say %.4f", pl_diff_view_get_row_delta(diff, i),
			  want);
		found = TRUE;
	}
	PL_CHECK(found);
	/* selecting hot_leaf's row finds its frames in the flame graph */
	for (guint i = 0; i < n; i++)
		if (!g_strcmp0(pl_diff_view_get_row_label(diff, i), "hot_leaf")) {
			pl_diff_view_select_row(diff, i);
			break;
		}
	PL_CHECKF(pl_diff_view_get_n_highlighted(diff) >= 1, "no hot_leaf frame highlighted");
	/* the two builds really differ: the top change is a visible one */
	double top = pl_diff_view_get_row_delta(diff, 0);
	PL_CHECKF(fabs(top) >= 1.0, "top row %s only %+.2f pp", pl_diff_view_get_row_label(diff, 0),
		  top);
	printf("# diff: %u rows, top %s %+.2f pp, then %s %+.2f pp\n", n,
	       pl_diff_view_get_row_label(diff, 0), top, pl_diff_view_get_row_label(diff, 1),
	       pl_diff_view_get_row_delta(diff, 1));
	shot("views-diff-light.png");
	pl_diff_view_select_row(diff, G_MAXUINT);
	PL_CHECK(pl_diff_view_get_n_highlighted(diff) == 0);
}

/* The window's transforms shape both sides of the diff: with hot_leaf
 * merged into its callers it has no row, and every row's change is the one
 * the two transformed aggregates give. */
static void diff_honours_transforms(void)
{
	setup();
	g_autoptr(PlStackFilter) sf = pl_stack_filter_new();
	g_autoptr(GError) e = NULL;
	PL_CHECK(pl_transforms_push(pl_stack_filter_get_transforms(sf), PL_TX_MERGE,
				    "^hot_leaf$", &e));
	pl_diff_view_set_profiles(diff, base, other, sf);
	show("diff");
	guint n = pl_diff_view_get_n_rows(diff);
	PL_CHECKF(n >= 2, "%u rows", n);
	guint checked = 0;
	for (guint i = 0; i < n; i++) {
		const char *name = pl_diff_view_get_row_label(diff, i);
		PL_CHECKF(g_strcmp0(name, "hot_leaf"), "hot_leaf has row %u though it is merged", i);
		/* a name shown twice (inlined and not) is not one function */
		guint same = 0;
		for (guint k = 0; k < n; k++)
			same += !g_strcmp0(pl_diff_view_get_row_label(diff, k), name);
		if (checked >= 5 || same > 1)
			continue;
		double want = 100 * (self_share_sf(other, name, sf) - self_share_sf(base, name, sf));
		PL_CHECKF(fabs(pl_diff_view_get_row_delta(diff, i) - want) < 1e-9,
			  "%s Δ %.4f, the transformed aggregates say %.4f", name,
			  pl_diff_view_get_row_delta(diff, i), want);
		checked++;
	}
	PL_CHECKF(checked >= 2, "only %u rows could be checked", checked);
	printf("# diff with hot_leaf merged: %u rows, top %s %+.2f pp (%u checked)\n", n,
	       pl_diff_view_get_row_label(diff, 0), pl_diff_view_get_row_delta(diff, 0), checked);
	pl_diff_view_set_profiles(diff, base, other, NULL);
}

static void thread_details(void)
{
	setup();
	pl_thread_timeline_set_profile(timeline, base);
	show("timeline");
	GPtrArray *threads = pl_profile_get_threads(base);
	PlThread *w = NULL;
	for (guint i = 0; i < threads->len; i++) {
		PlThread *t = threads->pdata[i];
		if (t->name && g_str_has_prefix(t->name, "burn-") && t->ptid)
			w = t;
	}
	PL_CHECKF(w, "no burn-N thread with a recorded parent");
	g_autofree char *text = pl_thread_timeline_dup_thread_details(timeline, w->tid);
	PL_CHECK(text);
	PlThread *parent = pl_profile_lookup_thread(base, w->ptid);
	g_autofree char *want_parent = g_strdup_printf("Parent: %s (tid %u)",
						       parent && parent->name ? parent->name : "?",
						       w->ptid);
	PL_CHECKF(strstr(text, want_parent), "%s not in: %s", want_parent, text);
	PL_CHECKF(strstr(text, "Runtime: ") && strstr(text, "Sampled on CPU: ") &&
			  strstr(text, "On CPU: ") && strstr(text, "forked at +"),
		  "%s", text);
	/* sampled on-CPU time: the weight of its cpu-clock samples, which the
	 * aggregate computes the same way */
	PlFilter f = PL_FILTER_ALL;
	f.tid = w->tid;
	f.event = pl_profile_get_main_event(base);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(base, &f);
	g_autofree char *want = g_strdup_printf("Sampled on CPU: %.3f s", a->all.weight / 1e9);
	PL_CHECKF(strstr(text, want), "%s not in: %s", want, text);
	/* burn's main() creates its threads after exec, inside the session:
	 * the agent sampled each clone() (fp session: from the stack copy) */
	const char *why = NULL;
	guint32 cs = pl_profile_thread_creation_stack(base, w->tid, &why);
	PL_CHECKF(cs != PL_NO_ID, "no creation stack for %s: %s", w->name, why ? why : "(none)");
	PL_CHECKF(strstr(text, "Created by: ") && strstr(text, "pthread_create") &&
			  strstr(text, "\u2190 main"),
		  "%s", text);
	GtkWidget *pop = pl_thread_timeline_show_thread_details(timeline, w->tid);
	PL_CHECK(pop);
	settle();
	g_autofree char *one = g_strdup(text);
	g_strdelimit(one, "\n", '|');
	printf("# thread details of %s: %s\n", w->name, one);
	g_autofree char *path = g_build_filename(shots, "views-thread-popover-light.png", NULL);
	GError *error = NULL;
	gboolean ok = FALSE;
	for (guint i = 0; i < 20 && !ok; i++) {
		g_clear_error(&error);
		ok = pl_ui_save_png(pop, path, &error);
		if (!ok)
			settle();
	}
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	shot("views-timeline-light.png");
	gtk_popover_popdown(GTK_POPOVER(pop));
}

/* ─── thread creation: pairing in the model, on hand-made messages ─── */

static void ingest(PlProfile *p, struct pl_msg *m)
{
	pl_profile_ingest(m, p);
}

static void desc(PlProfile *p, guint32 index, guint8 role, const char *name)
{
	struct pl_msg m = { .type = PL_MSG_EVENT_DESC };
	m.u.event_desc = (struct pl_msg_event_desc){ .index = index, .role = role,
						     .name = pl_str_c(name) };
	ingest(p, &m);
}

static void fork_of(PlProfile *p, guint32 tid, guint32 ptid, guint64 t)
{
	struct pl_msg m = { .type = PL_MSG_TASK };
	m.u.task = (struct pl_msg_task){ PL_TASK_FORK, 100, 100, tid, ptid, t };
	ingest(p, &m);
}

static void sample(PlProfile *p, guint32 event, guint32 tid, guint64 t, guint64 caller)
{
	static struct pl_msg m; /* 8 KiB call chain */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_SAMPLE;
	m.u.sample.event = event;
	m.u.sample.pid = 100;
	m.u.sample.tid = tid;
	m.u.sample.time = t;
	m.u.sample.period = 1000;
	m.u.sample.cpumode = 2; /* user */
	m.u.sample.ip = 0x1000;
	m.u.sample.nr_callchain = 3;
	m.u.sample.callchain[0] = (guint64)-512; /* PERF_CONTEXT_USER */
	m.u.sample.callchain[1] = 0x1000;
	m.u.sample.callchain[2] = caller;
	ingest(p, &m);
}

static void comm(PlProfile *p, guint32 tid, const char *name)
{
	struct pl_msg m = { .type = PL_MSG_COMM };
	m.u.comm = (struct pl_msg_comm){ 100, tid, 0, 0, 1, pl_str_c(name) };
	ingest(p, &m);
}

/* Each creation sample goes to the latest FORK by its thread within
 * 100 ms, or to the FORK that follows it within 10 µs; a FORK without one, a sample without one, a late sample and a
 * thread from before the session each get their answer, and no creation
 * sample counts anywhere CPU samples do. */
static void creation_pairing(void)
{
	g_autoptr(PlProfile) p = pl_profile_new(NULL);
	const guint64 ms = 1000 * 1000;
	desc(p, 0, PL_ROLE_SAMPLED, "cpu-clock");
	desc(p, 1, PL_ROLE_CREATE, "sched:sched_process_fork");
	comm(p, 100, "app");
	comm(p, 101, "old");
	fork_of(p, 102, 101, 1000 * ms);
	sample(p, 1, 101, 1000 * ms + 50000, 0x2000); /* → 102 */
	fork_of(p, 103, 101, 1100 * ms);      /* its sample is lost */
	sample(p, 1, 100, 1200 * ms, 0x2000);         /* 100 forked nothing */
	fork_of(p, 104, 100, 1300 * ms);
	sample(p, 1, 100, 1300 * ms + 200 * ms, 0x2000); /* too late for 104 */
	fork_of(p, 105, 101, 1600 * ms);
	fork_of(p, 106, 101, 1601 * ms);      /* 101's latest child */
	sample(p, 1, 101, 1601 * ms + 10, 0x3000);    /* → 106, not 105 */
	sample(p, 0, 101, 1700 * ms, 0x2000);         /* the one CPU sample */
	sample(p, 1, 101, 1800 * ms - 289, 0x3000);   /* its FORK stamped 289 ns later */
	fork_of(p, 107, 101, 1800 * ms);              /* → 107 */
	sample(p, 1, 101, 1900 * ms - 20000, 0x3000); /* 20 µs before: another's */
	fork_of(p, 108, 101, 1900 * ms);
	pl_profile_finish(p);

	const char *why = "unset";
	guint32 s102 = pl_profile_thread_creation_stack(p, 102, &why);
	PL_CHECKF(s102 != PL_NO_ID && why == NULL, "102: %s", why ? why : "-");
	g_autoptr(GArray) f = pl_profile_dup_stack_functions(p, s102, 0);
	PL_CHECKF(f->len == 2, "%u frames", f->len);
	PL_CHECK(pl_profile_thread_creation_stack(p, 106, NULL) != PL_NO_ID);
	PL_CHECK(pl_profile_thread_creation_stack(p, 106, NULL) != s102); /* another caller */
	PL_CHECK(pl_profile_thread_creation_stack(p, 105, &why) == PL_NO_ID && why &&
		 strstr(why, "lost"));
	PL_CHECK(pl_profile_thread_creation_stack(p, 103, &why) == PL_NO_ID && why &&
		 strstr(why, "lost"));
	PL_CHECK(pl_profile_thread_creation_stack(p, 104, &why) == PL_NO_ID && why);
	PL_CHECK(pl_profile_thread_creation_stack(p, 101, &why) == PL_NO_ID && why == NULL);
	PL_CHECK(pl_profile_thread_creation_stack(p, 107, NULL) != PL_NO_ID);
	PL_CHECK(pl_profile_thread_creation_stack(p, 108, &why) == PL_NO_ID && why);
	const PlProfileStats *st = pl_profile_get_stats(p);
	PL_CHECKF(st->creation_samples == 6 && st->creation_unpaired == 3,
		  "%" G_GUINT64_FORMAT " creation samples, %" G_GUINT64_FORMAT " unpaired",
		  st->creation_samples, st->creation_unpaired);
	guint n;
	pl_profile_get_samples(p, &n);
	PL_CHECKF(st->samples == 1 && n == 1, "%" G_GUINT64_FORMAT " samples, %u kept",
		  st->samples, n);
	PL_CHECK(pl_profile_get_main_event(p) == 0);
	PL_CHECK(pl_profile_lookup_event(p, 1)->samples == 0);
	PlFilter all = PL_FILTER_ALL;
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, &all);
	PL_CHECK(a->all.samples == 1 && a->all.weight == 1000);

	/* the agent could not open the tracepoint: its reason, from its note */
	g_autoptr(PlProfile) q = pl_profile_new(NULL);
	struct pl_msg m = { .type = PL_MSG_LOG };
	m.u.log = (struct pl_msg_log){ PL_LOG_WARN,
				       pl_str_c("Kernel sampling is not allowed. " PL_NOTE_NO_CREATE
						"tracefs is unreadable (EACCES): run as root. "
						"Another note.") };
	ingest(q, &m);
	fork_of(q, 102, 101, 1000 * ms);
	pl_profile_finish(q);
	PL_CHECK(pl_profile_thread_creation_stack(q, 102, &why) == PL_NO_ID);
	PL_CHECKF(!g_strcmp0(why, "tracefs is unreadable (EACCES): run as root"), "%s", why);

	/* an older recording: nothing said, no creation event */
	g_autoptr(PlProfile) r = pl_profile_new(NULL);
	fork_of(r, 102, 101, 1000 * ms);
	pl_profile_finish(r);
	PL_CHECK(pl_profile_thread_creation_stack(r, 102, &why) == PL_NO_ID && why &&
		 strstr(why, "older"));
}

/* Switches over time in the counters page, from the switch records: their
 * rates add up to the recording's switch count. */
static void counters_switches(void)
{
	setup();
	pl_counters_view_set_profile(counters, base);
	show("counters");
	/* a counted context-switches event, or the records themselves */
	gboolean found = FALSE;
	GString *names = g_string_new(NULL);
	for (guint i = 0; i < pl_counters_view_get_n_series(counters); i++) {
		const char *n = pl_counters_view_get_series_name(counters, i);
		g_string_append_printf(names, "%s%s", i ? ", " : "", n);
		found |= !g_strcmp0(n, "context switches") || !g_strcmp0(n, "context-switches");
	}
	printf("# counters: %s\n", names->str);
	PL_CHECKF(found, "no context switches chart among: %s", names->str);
	g_string_free(names, TRUE);
	shot("views-counters-light.png");
}

static void dark_theme(void)
{
	setup();
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", TRUE, NULL);
	settle();
	pl_health_view_set_profile(health, base);
	show("health");
	shot("views-health-dark.png");
	show("source");
	PL_CHECK(pl_source_view_get_hot_address(source) != 0);
	shot("views-disasm-dark.png");
	show("diff");
	shot("views-diff-dark.png");
}

/* Issue 19: marks (2 threads x 3 rounds, recorded with --markers) on the
 * timeline: a tick per marker (30), a bar per begin/end interval (12:
 * round_tN with sleep_tN nested), and hovering a marker's time on its
 * thread's lane says its text, an interval's middle its name and
 * duration.  Photographed light. */
static void got_range(guint64 *got, guint64 t0, guint64 t1)
{
	got[0] = t0;
	got[1] = t1;
}

static void timeline_markers(void)
{
	setup();
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", FALSE, NULL);
	g_autoptr(PlProfile) m = load("VIEWS_MARKS");
	pl_thread_timeline_set_profile(timeline, m);
	show("timeline");
	guint bars = 0, ticks = 0;
	for (guint i = 0; i < 20 && !ticks; i++) {
		ticks = pl_thread_timeline_get_n_ticks(timeline, &bars);
		if (!ticks)
			settle();
	}
	PL_CHECKF(ticks == 30 && bars == 12, "%u ticks, %u bars (want 30, 12)", ticks, bars);
	g_autoptr(PlMarkers) mk = pl_markers_new(m);
	const PlMarker *step = NULL;
	for (guint i = 0; i < mk->markers->len && !step; i++)
		if (strstr(g_array_index(mk->markers, PlMarker, i).text, " step "))
			step = &g_array_index(mk->markers, PlMarker, i);
	PL_CHECK(step);
	g_autofree char *tip = pl_thread_timeline_dup_event_at(timeline, step->tid, step->time + 2,
							       5);
	g_autofree char *want = g_strdup_printf("marker: %s", step->text);
	PL_CHECKF(tip && strstr(tip, want), "%s not in the tooltip: %s", want, tip ? tip : "(none)");
	const PlMarkerInterval *iv = NULL;
	for (guint i = 0; i < mk->intervals->len && !iv; i++)
		if (g_array_index(mk->intervals, PlMarkerInterval, i).depth == 1)
			iv = &g_array_index(mk->intervals, PlMarkerInterval, i);
	PL_CHECK(iv);
	g_autofree char *tip2 = pl_thread_timeline_dup_event_at(
		timeline, iv->tid, iv->start + (iv->end - iv->start) / 2, 1000);
	g_autofree char *want2 = g_strdup_printf("%s: %.3f ms", iv->name,
						 (double)(iv->end - iv->start) / 1e6);
	PL_CHECKF(tip2 && g_str_has_prefix(tip2, want2), "want %s, got %s", want2,
		  tip2 ? tip2 : "(none)");
	/* a click on each bar selects that interval's time range; a click
	 * on the lane above the bars clears it */
	guint64 got[2] = { 1, 1 };
	gulong h = g_signal_connect_swapped(timeline, "range-changed", G_CALLBACK(got_range), got);
	guint clicked = 0;
	for (guint i = 0; i < mk->intervals->len; i++) {
		const PlMarkerInterval *v = &g_array_index(mk->intervals, PlMarkerInterval, i);
		double x, y;
		PL_CHECK(pl_thread_timeline_get_bar_center(timeline, v->tid, v->start, v->end, v->depth,
							   &x, &y));
		got[0] = got[1] = 1;
		pl_thread_timeline_click(timeline, x, y);
		PL_CHECKF(got[0] == v->start && got[1] == v->end,
			  "click on %s (depth %u) at %.1f,%.1f selected [%" G_GUINT64_FORMAT ", %"
			  G_GUINT64_FORMAT "], want [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]",
			  v->name, v->depth, x, y, got[0], got[1], v->start, v->end);
		clicked++;
		/* 8 px higher (the lane's top): no bar, the range is cleared */
		pl_thread_timeline_click(timeline, x, y - 8 - 3.0 * v->depth);
		PL_CHECKF(got[0] == 0 && got[1] == 0, "a click above %s's bar kept a range", v->name);
	}
	PL_CHECK(clicked == 12);
	/* "Pair events…": step 2j → step 2j+1 of each thread, typed into the
	 * popover as a user does: 2 intervals (2 threads × 3 rounds: step 0→1
	 * only, 2 has no 3); a bad regex is said; Clear removes them */
	GtkWidget *pb = g_object_ref_sink(pl_pair_button_new(timeline));
	PlPairButton *pair = PL_PAIR_BUTTON(pb);
	gtk_editable_set_text(pl_pair_button_get_begin_entry(pair), "step [0-9]*[02468]$");
	gtk_editable_set_text(pl_pair_button_get_end_entry(pair), "step [0-9]*[13579]$");
	g_signal_emit_by_name(pl_pair_button_get_add_button(pair), "clicked");
	guint npi = pl_thread_timeline_get_n_pair_intervals(timeline);
	PL_CHECKF(npi == 2, "%u intervals from the pair (status: %s)", npi,
		  pl_pair_button_get_status(pair));
	PL_CHECKF(strstr(pl_pair_button_get_status(pair), "2 intervals"), "status: %s",
		  pl_pair_button_get_status(pair));
	gtk_editable_set_text(pl_pair_button_get_begin_entry(pair), "step (");
	g_signal_emit_by_name(pl_pair_button_get_add_button(pair), "clicked");
	PL_CHECKF(g_str_has_prefix(pl_pair_button_get_status(pair), "Not a regex"), "status: %s",
		  pl_pair_button_get_status(pair));
	g_signal_emit_by_name(pl_pair_button_get_clear_button(pair), "clicked");
	PL_CHECK(pl_thread_timeline_get_n_pair_intervals(timeline) == 0);
	g_object_unref(pb);
	g_signal_handler_disconnect(timeline, h);
	printf("# timeline: %u marker ticks, %u interval bars (each selected by a click); hover: "
	       "'%s', '%s'\n", ticks, bars, tip, tip2);
	shot("views-timeline-markers-light.png");
	pl_thread_timeline_set_profile(timeline, base);
	settle();
}

/* A stack far deeper than the pane (300 frames, as a runaway kernel tower
 * or deep recursion gives): the flame graph opens showing its roots, "all"
 * at the bottom in view; the icicle, with its roots on top, scrolled up. */
static void flame_roots_in_view(void)
{
	setup();
	g_autoptr(PlProfile) p = pl_profile_new(NULL);
	desc(p, 0, PL_ROLE_SAMPLED, "cpu-clock");
	comm(p, 100, "deep");
	static struct pl_msg m; /* 8 KiB call chain */
	for (guint k = 0; k < 4; k++) {
		memset(&m, 0, sizeof(m));
		m.type = PL_MSG_SAMPLE;
		m.u.sample = (struct pl_msg_sample){ .event = 0, .pid = 100, .tid = 100,
						     .time = 1000 + k, .period = 1000, .cpumode = 2,
						     .ip = 0x1000 };
		m.u.sample.callchain[0] = (guint64)-512; /* PERF_CONTEXT_USER */
		/* one sample 300 frames deep, three shallow ones */
		guint depth = k ? 3 : 300;
		for (guint i = 0; i < depth; i++)
			m.u.sample.callchain[1 + i] = 0x1000 + 0x40ull * i;
		m.u.sample.nr_callchain = depth + 1;
		ingest(p, &m);
	}
	pl_profile_finish(p);
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, NULL);
	PlFlameGraph *fg = PL_FLAME_GRAPH(pl_flame_graph_new());
	GtkWidget *sw = pl_ui_scrolled(GTK_WIDGET(fg), FALSE);
	gtk_stack_add_named(stack, sw, "deep-flame");
	show("deep-flame");
	pl_flame_graph_set_data(fg, p, agg);
	GtkAdjustment *v = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(sw));
	for (guint i = 0; i < 25 && (!pl_flame_graph_is_ready(fg) ||
				     gtk_adjustment_get_upper(v) <= gtk_adjustment_get_page_size(v));
	     i++)
		settle();
	settle();
	double up = gtk_adjustment_get_upper(v), page = gtk_adjustment_get_page_size(v);
	PL_CHECKF(up > 2 * page, "the graph (%.0f px) should be taller than the pane (%.0f px)", up,
		  page);
	PL_CHECKF(gtk_adjustment_get_value(v) + page >= up - 1,
		  "flame graph scrolled to %.0f of %.0f (page %.0f): the roots are out of sight",
		  gtk_adjustment_get_value(v), up, page);
	pl_flame_graph_set_icicle(fg, TRUE);
	settle();
	PL_CHECKF(gtk_adjustment_get_value(v) <= gtk_adjustment_get_lower(v) + 1,
		  "icicle scrolled to %.0f: its roots, on top, are out of sight",
		  gtk_adjustment_get_value(v));
	pl_flame_graph_set_data(fg, NULL, NULL);
	gtk_stack_remove(stack, sw);
	settle();
}

/* ─── the Interrupts and Block I/O pages, on hand-made messages ─────── */

static void trace_format(PlProfile *p, guint32 index, const char *text)
{
	struct pl_msg m = { .type = PL_MSG_FILE_CHUNK };
	m.u.chunk.kind = PL_CHUNK_TRACE_FORMAT;
	m.u.chunk.pid = index;
	m.u.chunk.len = (guint32)strlen(text);
	m.u.chunk.total = m.u.chunk.len;
	m.u.chunk.data = (const guint8 *)text;
	ingest(p, &m);
}

static void trace_hit(PlProfile *p, guint32 event, guint64 t, guint32 cpu, const guint8 *raw,
		      guint32 len)
{
	static struct pl_msg m;
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_SAMPLE;
	m.u.sample.event = event;
	m.u.sample.pid = m.u.sample.tid = 100;
	m.u.sample.time = t;
	m.u.sample.cpu = cpu;
	m.u.sample.period = 1;
	m.u.sample.raw = raw;
	m.u.sample.raw_size = len;
	ingest(p, &m);
}

/* The pages show themselves with the tracepoints and hide without them;
 * what they show is the model's: 3 NET_RX runs of 40 µs on CPU 1, 2 loop
 * writes of 64 KiB taking 1 and 3 ms. */
static void irq_block_pages(void)
{
	setup();
	static const char soft_fmt[] =
		"name: softirq_entry\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n";
	static const char blk_fmt[] =
		"name: block_rq_issue\nID: 2\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
		"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n";
	g_autoptr(PlProfile) p = pl_profile_new(NULL);
	const char *names[] = { "irq:softirq_entry", "irq:softirq_exit", "block:block_rq_issue",
				"block:block_rq_complete" };
	for (guint i = 0; i < 4; i++) {
		desc(p, i, PL_ROLE_TRACEPOINT, names[i]);
		trace_format(p, i, i < 2 ? soft_fmt : blk_fmt);
	}
	guint64 t0 = 1000000000ull;
	for (guint k = 0; k < 3; k++) {
		guint8 raw[16] = { 0 };
		raw[8] = 3; /* NET_RX */
		trace_hit(p, 0, t0 + k * 1000000, 1, raw, sizeof(raw));
		trace_hit(p, 1, t0 + k * 1000000 + 40000, 1, raw, sizeof(raw));
	}
	for (guint k = 0; k < 2; k++) {
		guint8 raw[48] = { 0 };
		guint32 dev = 7u << 20, nr = 128, bytes = 65536;
		guint64 sector = 256 * k;
		memcpy(raw + 8, &dev, 4);
		memcpy(raw + 16, &sector, 8);
		memcpy(raw + 24, &nr, 4);
		memcpy(raw + 28, &bytes, 4);
		memcpy(raw + 34, "W", 1);
		trace_hit(p, 2, t0 + 100000 + k * 10000, 0, raw, sizeof(raw));
		trace_hit(p, 3, t0 + 100000 + k * 10000 + (k ? 3000000 : 1000000), 0, raw,
			  sizeof(raw));
	}
	pl_profile_finish(p);
	PlIrqView *iv = PL_IRQ_VIEW(pl_irq_view_new());
	PlBlockView *bv = PL_BLOCK_VIEW(pl_block_view_new());
	gtk_stack_add_named(stack, GTK_WIDGET(iv), "irq");
	gtk_stack_add_named(stack, GTK_WIDGET(bv), "block");
	pl_irq_view_set_profile(iv, base); /* a recording without them */
	pl_block_view_set_profile(bv, base);
	PL_CHECK(!gtk_stack_page_get_visible(gtk_stack_get_page(stack, GTK_WIDGET(iv))));
	PL_CHECK(!gtk_stack_page_get_visible(gtk_stack_get_page(stack, GTK_WIDGET(bv))));
	pl_irq_view_set_profile(iv, p);
	pl_block_view_set_profile(bv, p);
	PL_CHECK(gtk_stack_page_get_visible(gtk_stack_get_page(stack, GTK_WIDGET(iv))));
	PL_CHECK(gtk_stack_page_get_visible(gtk_stack_get_page(stack, GTK_WIDGET(bv))));
	const PlIrqStats *is = pl_irq_view_get_stats(iv);
	PL_CHECKF(is && is->soft_count == 3 && is->soft_ns == 120000 && is->ncpus == 2,
		  "softirqs %" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT " ns", is->soft_count,
		  is->soft_ns);
	const PlBlockDevice *d = pl_block_io_device(pl_block_view_get_io(bv), 7u << 20);
	PL_CHECK(d && d->requests == 2 && d->bytes_written == 131072 && d->max_ns == 3000000);
	show("irq");
	shot("views-irq-light.png");
	show("block");
	shot("views-block-light.png");
	/* the window's own views are left as they were */
	gtk_stack_remove(stack, GTK_WIDGET(iv));
	gtk_stack_remove(stack, GTK_WIDGET(bv));
}

PL_TEST_MAIN(PL_CASE(health_graphs), PL_CASE(health_perf_data), PL_CASE(disassembly_hot_leaf), PL_CASE(diff_rows), PL_CASE(diff_honours_transforms),
	     PL_CASE(thread_details), PL_CASE(creation_pairing), PL_CASE(counters_switches),
	     PL_CASE(dark_theme), PL_CASE(timeline_markers), PL_CASE(flame_roots_in_view),
	     PL_CASE(irq_block_pages))
