/* report.c — perflens report: the text summary of a recording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-cli-expr.h"
#include "pl-expr.h"
#include "pl-function-names.h"
#include "pl-export-self-contained.h"
#include "report.h"
#include "pl-inverted.h"
#include "pl-tracepoint.h"

typedef struct {
	PlCliSymArgs sym;
	PlCliFilterArgs flt;
	char *sort;
	gint tid;
	gint top;
	char *event;
	char **fail_if;
	gboolean lines;
	gboolean invert;
	gboolean markers, tracepoints, syscalls, irq, block, locks, counters;
	gboolean findings;
	gboolean periods;
	char *period;
	char *baseline;
	char **fail_on;
	char **pairs;
	char *function;
	gdouble from, to;
	char *annotate;
	char *source;
} ReportArgs;

static const char *thread_name(PlProfile *p, guint32 tid)
{
	PlThread *t = pl_profile_lookup_thread(p, tid);
	return t && t->name ? t->name : "?";
}

/* ─── --fail-if ──────────────────────────────────────────────────────── */

/* A gate (viewer/model/pl-expr.h) and what it measured. */
typedef struct {
	PlGate g;
	const char *expr;  /* as given */
	gboolean absent;   /* no function of that name has samples here */
	double share;      /* the function's, once found in the report */
} FailIf;

/* The share of the function f names in the report: the functions of that
 * name and defining file (inline copies and modules together).  A bare
 * name that several defining files share is refused (FALSE, said why):
 * a gate must measure the same function on every run, and which of them
 * is the hotter may change from one run to the next; the message gives
 * the spellings the report prints, which always name one.  A name with no
 * samples here is marked absent: the gate then fails the run (a gate that
 * measures nothing must never pass), except for a placeholder such as
 * [unknown], which a good recording lacks. */
static gboolean fail_if_resolve(FailIf *f, PlFunctionNames *names, PlAggregate *agg)
{
	const PlGate *g = &f->g;
	g_autoptr(GPtrArray) m = pl_function_names_find(names, g->name);
	if (m->len > 1) {
		const PlFunctionMatch *first = m->pdata[0];
		g_autofree char *list = pl_function_matches_dup_list(m);
		pl_cli_fail("--fail-if '%s': %u functions are named %s in this report (%s): name "
			    "one as the report does, e.g. --fail-if '%.*s%s%s'",
			    f->expr, m->len, g->name, list, (int)g->name_at, f->expr,
			    first->spelling, f->expr + g->name_end);
		return FALSE;
	}
	const PlFunctionMatch *one = m->len ? m->pdata[0] : NULL;
	gboolean total = g->measure == PL_GATE_TOTAL;
	f->absent = !one && !pl_gate_name_is_placeholder(g->name);
	f->share = one ? pl_percent(total ? one->total.weight : one->self.weight, agg->all.weight) : 0;
	return TRUE;
}

/* The gates, read before the recording is loaded: a gate that cannot be
 * read is refused at once (exit 2), with a caret where reading stopped. */
static gboolean fail_if_parse_all(char **exprs, GArray *checks)
{
	for (char **e = exprs; e && *e; e++) {
		FailIf fi = { .expr = *e };
		g_autoptr(GError) error = NULL;
		if (!pl_gate_parse(*e, &fi.g, &error)) {
			pl_cli_fail_expr("cannot parse --fail-if", *e, error);
			return FALSE;
		}
		g_array_append_val(checks, fi);
	}
	return TRUE;
}

/* Says why each gate that holds fails the run; PL_EXIT_CHECK if one does. */
static int fail_if_judge(PlProfile *p, GArray *checks, const char *path)
{
	int rc = PL_EXIT_OK;
	for (guint i = 0; i < checks->len; i++) {
		const FailIf *fi = &g_array_index(checks, FailIf, i);
		const PlGate *g = &fi->g;
		const char *op = pl_gate_op_name(g->op);
		fflush(stdout);
		if (g->measure == PL_GATE_UNWOUND && !pl_profile_get_stats(p)->unwind_user_samples) {
			fprintf(stderr,
				"perflens: --fail-if '%s': no sample in %s has user frames, so "
				"the unwound share cannot be measured and the gate fails\n",
				fi->expr, path);
		} else if (g->measure == PL_GATE_UNWOUND) {
			double v = pl_profile_get_unwound_share(p);
			if (!pl_gate_holds(g, v))
				continue;
			fprintf(stderr,
				"perflens: --fail-if: %.2f%% of stacks are unwound to the "
				"start of their program or thread (%s %s%%); see \"Where "
				"stacks stop short\" in the report\n",
				v, op, g->value_text);
		} else if (fi->absent) {
			fprintf(stderr,
				"perflens: --fail-if '%s': no function named %s has samples in %s, "
				"so this gate cannot be measured and fails: "
				"check the name against the report's Top functions\n",
				fi->expr, g->name, path);
		} else {
			if (!pl_gate_holds(g, fi->share))
				continue;
			fprintf(stderr, "perflens: --fail-if: %s %s is %.2f%% (%s %s%%)\n", g->name,
				g->measure == PL_GATE_TOTAL ? "total" : "self", fi->share, op,
				g->value_text);
		}
		rc = PL_EXIT_CHECK;
	}
	return rc;
}

/* ─── sections ───────────────────────────────────────────────────────── */

static void print_header(PlProfile *p, const char *path, const PlCaptureInfo *info,
			 PlAggregate *agg, guint32 event)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	double span = st->last_time > st->first_time
			      ? (double)(st->last_time - st->first_time) / 1e9
			      : 0.0;
	GPtrArray *procs = pl_profile_get_processes(p);
	GPtrArray *threads = pl_profile_get_threads(p);
	const PlEvent *ev = event != PL_NO_ID ? pl_profile_lookup_event(p, event) : NULL;
	printf("%s: %" G_GUINT64_FORMAT " samples over %.3f s, %u process%s, %u thread%s", path,
	       st->samples, span, procs->len, procs->len == 1 ? "" : "es", threads->len,
	       threads->len == 1 ? "" : "s");
	if (ev)
		printf(", event %s", ev->name);
	printf("\n");
	if (st->hostname && *st->hostname)
		printf("  recorded on %s (%s, Linux %s) by agent %s\n", st->hostname,
		       st->machine ? st->machine : "?",
		       st->kernel_release ? st->kernel_release : "?",
		       st->agent_version ? st->agent_version : "?");
	if (st->command && *st->command && st->target_pid)
		printf("  command: %s (pid %u)\n", st->command, st->target_pid);
	else if (st->command && *st->command)
		printf("  command: %s\n", st->command);
	else if (st->target_pid)
		printf("  target: pid %u\n", st->target_pid);
	if (st->frequency || st->duration_ms || st->callgraph) {
		static const char *const cg[] = { "none", "fp", "dwarf", "lbr", "auto" };
		printf("  session: %u Hz, call graph %s", st->frequency,
		       st->callgraph < G_N_ELEMENTS(cg) ? cg[st->callgraph] : "?");
		if (st->duration_ms)
			printf(", duration limit %.1f s", st->duration_ms / 1000.0);
		printf("\n");
	}
	if (info->kind == PL_FILE_PERF_DATA)
		printf("  source: perf.data\n");
	g_autofree char *symbolized = pl_session_dup_symbolized_note(p);
	if (symbolized)
		printf("  self-contained: %s; names, lines, sources and disassembly come from "
		       "the file, not from this machine\n",
		       symbolized);
	GPtrArray *evs = pl_profile_get_events(p);
	if (evs->len > 1) {
		printf("  samples by event:");
		for (guint i = 0; i < evs->len; i++) {
			const PlEvent *e = evs->pdata[i];
			if (e->samples)
				printf(" %s %" G_GUINT64_FORMAT, e->name, e->samples);
		}
		printf("\n");
	}
	guint ntrig;
	const PlTrigger *trig = pl_profile_get_triggers(p, &ntrig);
	for (guint i = 0; i < ntrig; i++) {
		const PlTrigger *t = &trig[i];
		double rel = ((double)t->time - (double)st->first_time) / 1e9;
		printf("  trigger: %s fired at %.3f s (clock %.6f s): %s; window %.3f s before, "
		       "%.3f s after\n", t->spec, rel, t->time / 1e9, t->detail && *t->detail ? t->detail : "-",
		       (t->time - t->from) / 1e9, (t->to - t->time) / 1e9);
	}
	if (agg->filter.tid)
		printf("  thread filter: %u (%s)\n", agg->filter.tid,
		       thread_name(p, agg->filter.tid));
	if (agg->filter.t0 || agg->filter.t1)
		printf("  time filter: %.3f s to %.3f s after the first record\n",
		       (agg->filter.t0 ? agg->filter.t0 - st->first_time : 0) / 1e9,
		       (agg->filter.t1 ? agg->filter.t1 - st->first_time : st->last_time - st->first_time) / 1e9);
}

static void print_functions(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
			    gboolean by_total, int top, guint32 event)
{
	const PlEvent *ev = event != PL_NO_ID ? pl_profile_lookup_event(p, event) : NULL;
	printf("\nTop functions by %s (%s; %% of %" G_GUINT64_FORMAT " samples%s):\n",
	       by_total ? "total" : "self", ev ? ev->name : "all events", agg->all.samples,
	       ev && ev->role == PL_ROLE_SWITCH ? ", weighted by off-CPU time"
						 : ", weighted by period");
	if (!agg->all.samples) {
		printf("  (no samples)\n");
		return;
	}
	printf("  %7s %7s %9s  %-40s %s\n", "Self%", "Total%", "Samples", "Function", "Module");
	g_autoptr(GArray) rows = pl_aggregate_functions(agg, by_total);
	for (guint i = 0; i < rows->len && (top <= 0 || (int)i < top); i++) {
		const PlRow *r = &g_array_index(rows, PlRow, i);
		const PlFunction *f = pl_profile_get_function(p, r->id);
		printf("  %6.2f%% %6.2f%% %9" G_GUINT64_FORMAT "  %-40s %s%s\n",
		       pl_percent(r->self.weight, agg->all.weight), pl_percent(r->total.weight, agg->all.weight),
		       r->self.samples, pl_function_names_get(names, r->id), f->module,
		       f->inlined ? " (inlined)" : "");
	}
}

/* The bottom-up tree: the --top heaviest leaf functions, and under each the
 * callers that make up at least 1 % of all samples, 12 levels at most. */
static void print_inverted_node(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
				const PlInverted *inv, guint32 id, guint depth)
{
	const PlInvertedNode *n = pl_inverted_get_node(inv, id);
	const PlFunction *f = pl_profile_get_function(p, n->func);
	printf("  %6.2f%% %9" G_GUINT64_FORMAT "  %*s%s  %s\n",
	       pl_percent(n->count.weight, agg->all.weight), n->count.samples, (int)(depth * 2), "",
	       pl_function_names_get(names, n->func), f->module);
	if (depth >= 12)
		return;
	g_autoptr(GArray) kids = pl_inverted_dup_children(inv, id);
	for (guint i = 0; i < kids->len; i++) {
		guint32 k = g_array_index(kids, guint32, i);
		if (pl_percent(pl_inverted_get_node(inv, k)->count.weight, agg->all.weight) < 1.0)
			break;
		print_inverted_node(p, agg, names, inv, k, depth + 1);
	}
}

static void print_inverted(PlProfile *p, PlAggregate *agg, PlFunctionNames *names, int top)
{
	printf("\nInverted call tree (bottom-up: where samples ended, then their callers; "
	       "%% of %" G_GUINT64_FORMAT " samples):\n",
	       agg->all.samples);
	if (!agg->all.samples) {
		printf("  (no samples)\n");
		return;
	}
	printf("  %7s %9s  %s\n", "Share", "Samples", "Function  Module");
	g_autoptr(PlInverted) inv = pl_inverted_new(agg);
	g_autoptr(GArray) roots = pl_inverted_dup_children(inv, 0);
	for (guint i = 0; i < roots->len && (top <= 0 || (int)i < top); i++)
		print_inverted_node(p, agg, names, inv, g_array_index(roots, guint32, i), 0);
}

static void print_relatives(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
			    const char *name)
{
	const char *spelling = name;
	guint32 f = pl_report_pick_function(names, "--function", name, &spelling);
	printf("\nCallers and callees of %s:\n", spelling);
	if (f == PL_NO_ID) {
		printf("  (no function of that name with samples here)\n");
		return;
	}
	g_autoptr(GArray) up = pl_aggregate_callers(agg, f);
	g_autoptr(GArray) down = pl_aggregate_callees(agg, f);
	for (guint i = 0; i < up->len; i++) {
		const PlRow *r = &g_array_index(up, PlRow, i);
		printf("  caller %6.2f%%  %s\n", pl_percent(r->total.weight, agg->all.weight),
		       pl_function_names_get(names, r->id));
	}
	for (guint i = 0; i < down->len; i++) {
		const PlRow *r = &g_array_index(down, PlRow, i);
		printf("  callee %6.2f%%  %s\n", pl_percent(r->total.weight, agg->all.weight),
		       pl_function_names_get(names, r->id));
	}
}

static void print_lines(PlProfile *p, PlAggregate *agg, int top)
{
	g_autoptr(GArray) rows = pl_aggregate_lines(agg);
	printf("\nHot source lines:\n");
	if (!rows->len) {
		printf("  (no line information: build with -g, or pass --binary / --debug-dir)\n");
		return;
	}
	printf("  %7s %7s  %s\n", "Self%", "Total%", "Location");
	for (guint i = 0; i < rows->len && (top <= 0 || (int)i < top); i++) {
		const PlRow *r = &g_array_index(rows, PlRow, i);
		const PlLocation *l = pl_profile_get_location(p, r->id);
		printf("  %6.2f%% %6.2f%%  %s:%u\n", pl_percent(r->self.weight, agg->all.weight),
		       pl_percent(r->total.weight, agg->all.weight), l->file, l->line);
	}
}

static int cmp_thread_rows(gconstpointer a, gconstpointer b, gpointer data)
{
	GHashTable *h = data;
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
	const PlCount *cx = g_hash_table_lookup(h, GUINT_TO_POINTER(x));
	const PlCount *cy = g_hash_table_lookup(h, GUINT_TO_POINTER(y));
	guint64 wx = cx ? cx->weight : 0, wy = cy ? cy->weight : 0;
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void print_threads(PlProfile *p, PlAggregate *agg, int top)
{
	GPtrArray *threads = pl_profile_get_threads(p);
	const PlProfileStats *st = pl_profile_get_stats(p);
	g_autoptr(GArray) tids = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *t = threads->pdata[i];
		if (g_hash_table_contains(agg->threads, GUINT_TO_POINTER(t->tid)) ||
		    t->intervals->len)
			g_array_append_val(tids, t->tid);
	}
	g_array_sort_with_data(tids, cmp_thread_rows, agg->threads);
	printf("\nThreads:\n");
	printf("  %8s %8s  %-16s %9s %7s", "TID", "PID", "Name", "Samples", "Share");
	if (st->switches)
		printf(" %11s %11s", "On-CPU ms", "Off-CPU ms");
	printf("\n");
	for (guint i = 0; i < tids->len && (top <= 0 || (int)i < top); i++) {
		guint32 tid = g_array_index(tids, guint32, i);
		const PlThread *t = pl_profile_lookup_thread(p, tid);
		const PlCount *c = g_hash_table_lookup(agg->threads, GUINT_TO_POINTER(tid));
		printf("  %8u %8u  %-16s %9" G_GUINT64_FORMAT " %6.2f%%", tid, t->pid,
		       t->name ? t->name : "?", c ? c->samples : 0,
		       pl_percent(c ? c->weight : 0, agg->all.weight));
		if (st->switches)
			printf(" %11.1f %11.1f", t->on_cpu_ns / 1e6, t->off_cpu_ns / 1e6);
		printf("%s\n", t->exited ? "  (exited)" : "");
	}
	if (tids->len > (guint)top && top > 0)
		printf("  … %u more (--top)\n", tids->len - (guint)top);
}

static void print_off_cpu(PlProfile *p, const PlFilter *base, const PlStackFilter *sf, int top)
{
	GPtrArray *evs = pl_profile_get_events(p);
	for (guint i = 0; i < evs->len; i++) {
		const PlEvent *e = evs->pdata[i];
		if (e->role != PL_ROLE_SWITCH || !e->samples)
			continue;
		PlFilter f = *base;
		f.event = e->index;
		g_autoptr(PlAggregate) agg = pl_profile_aggregate_filtered(p, &f, sf);
		g_autoptr(PlFunctionNames) names = pl_function_names_new(p, agg);
		printf("\nOff-CPU (%s: %" G_GUINT64_FORMAT " switches, %.1f ms off-CPU):\n", e->name,
		       agg->all.samples, agg->all.weight / 1e6);
		g_autoptr(GArray) rows = pl_aggregate_functions(agg, FALSE);
		for (guint k = 0; k < rows->len && (top <= 0 || (int)k < top); k++) {
			const PlRow *r = &g_array_index(rows, PlRow, k);
			printf("  %6.2f%% %10.1f ms  %s\n", pl_percent(r->self.weight, agg->all.weight),
			       r->self.weight / 1e6, pl_function_names_get(names, r->id));
		}
	}
}

static void print_switches(PlProfile *p, const PlFilter *f, int top)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	if (!st->switches)
		return;
	PlSwitchStats all;
	pl_profile_switch_stats(p, f->tid, f->t0, f->t1, &all);
	printf("\nSwitches (voluntary: blocked; preempted: runnable, waiting for a CPU):\n");
	printf("  %8s  %-16s %9s %11s %9s %11s   %s\n", "TID", "Name", "Voluntary", "ms",
	       "Preempted", "ms", "Runqueue latency p50 / p90 / p99 / max (ms)");
	GPtrArray *threads = pl_profile_get_threads(p);
	guint shown = 0;
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *t = threads->pdata[i];
		if (f->tid && t->tid != f->tid)
			continue;
		PlSwitchStats s;
		pl_profile_switch_stats(p, t->tid, f->t0, f->t1, &s);
		if (!s.voluntary && !s.preempted)
			continue;
		if (top > 0 && shown++ >= (guint)top)
			break;
		printf("  %8u  %-16s %9" G_GUINT64_FORMAT " %11.1f %9" G_GUINT64_FORMAT " %11.1f",
		       t->tid, t->name ? t->name : "?", s.voluntary, s.voluntary_ns / 1e6,
		       s.preempted, s.preempted_ns / 1e6);
		if (s.preempted)
			printf("   %.3f / %.3f / %.3f / %.3f", s.rq_p50 / 1e6, s.rq_p90 / 1e6,
			       s.rq_p99 / 1e6, s.rq_max / 1e6);
		printf("\n");
	}
	printf("  %8s  %-16s %9" G_GUINT64_FORMAT " %11.1f %9" G_GUINT64_FORMAT " %11.1f", "all", "",
	       all.voluntary, all.voluntary_ns / 1e6, all.preempted, all.preempted_ns / 1e6);
	if (all.preempted)
		printf("   %.3f / %.3f / %.3f / %.3f", all.rq_p50 / 1e6, all.rq_p90 / 1e6,
		       all.rq_p99 / 1e6, all.rq_max / 1e6);
	printf("\n");
}

static double rel_s(const PlProfileStats *st, guint64 t)
{
	return t && t >= st->first_time ? (t - st->first_time) / 1e9 : 0;
}

static void print_tree_proc(PlProfile *p, const PlProcess *pr, GHashTable *children, guint depth,
			    guint *budget)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	if (!*budget || depth > 64)
		return;
	(*budget)--;
	printf("  %*s%u %s", (int)(depth * 2), "", pr->pid, pr->name ? pr->name : "?");
	if (pr->start)
		printf("  forked at %.3f s", rel_s(st, pr->start));
	if (pr->exited)
		printf("  exited at %.3f s", rel_s(st, pr->end));
	printf("\n");
	GPtrArray *threads = pl_profile_get_threads(p);
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *t = threads->pdata[i];
		if (t->pid != pr->pid || t->tid == pr->pid)
			continue;
		printf("  %*s  thread %u %s", (int)(depth * 2), "", t->tid, t->name ? t->name : "?");
		if (t->ptid && t->ptid != pr->pid)
			printf("  (created by %u)", t->ptid);
		if (t->start)
			printf("  from %.3f s", rel_s(st, t->start));
		if (t->exited)
			printf("  to %.3f s", rel_s(st, t->end));
		printf("\n");
	}
	GPtrArray *kids = g_hash_table_lookup(children, GUINT_TO_POINTER(pr->pid));
	for (guint i = 0; kids && i < kids->len; i++)
		print_tree_proc(p, kids->pdata[i], children, depth + 1, budget);
}

/* Processes under their parents (from fork records), threads under their
 * process; names from comm/exec. */
static void print_tree(PlProfile *p, int top)
{
	GPtrArray *procs = pl_profile_get_processes(p);
	if (!procs->len)
		return;
	g_autoptr(GHashTable) by_pid = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) children =
		g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_ptr_array_unref);
	for (guint i = 0; i < procs->len; i++) {
		const PlProcess *pr = procs->pdata[i];
		g_hash_table_insert(by_pid, GUINT_TO_POINTER(pr->pid), (gpointer)pr);
	}
	for (guint i = 0; i < procs->len; i++) {
		const PlProcess *pr = procs->pdata[i];
		if (!pr->ppid || pr->ppid == pr->pid ||
		    !g_hash_table_contains(by_pid, GUINT_TO_POINTER(pr->ppid)))
			continue;
		GPtrArray *k = g_hash_table_lookup(children, GUINT_TO_POINTER(pr->ppid));
		if (!k) {
			k = g_ptr_array_new();
			g_hash_table_insert(children, GUINT_TO_POINTER(pr->ppid), k);
		}
		g_ptr_array_add(k, (gpointer)pr);
	}
	printf("\nProcesses and threads:\n");
	guint budget = top > 0 ? (guint)top * 5 : G_MAXUINT;
	for (guint i = 0; i < procs->len; i++) {
		const PlProcess *pr = procs->pdata[i];
		gboolean is_child = pr->ppid && pr->ppid != pr->pid &&
				    g_hash_table_contains(by_pid, GUINT_TO_POINTER(pr->ppid));
		if (!is_child)
			print_tree_proc(p, pr, children, 0, &budget);
	}
	if (!budget)
		printf("  … (more with --top 0)\n");
}

static void print_counters(PlProfile *p)
{
	g_autoptr(GArray) evs = pl_profile_dup_counter_events(p);
	if (!evs->len)
		return;
	const PlProfileStats *st = pl_profile_get_stats(p);
	printf("\nCounters:\n");
	printf("  %-24s %16s %14s %8s\n", "Event", "Value", "Per second", "Running");
	for (guint i = 0; i < evs->len; i++) {
		guint32 e = g_array_index(evs, guint32, i);
		GArray *pts = pl_profile_get_counter(p, e);
		const PlCounterPoint *last = &g_array_index(pts, PlCounterPoint, pts->len - 1);
		const PlEvent *ev = pl_profile_lookup_event(p, e);
		/* multiplexed counters are scaled as perf stat does */
		double v = (double)last->value;
		double run = last->enabled_ns ? (double)last->running_ns / last->enabled_ns : 1.0;
		if (last->running_ns && last->enabled_ns > last->running_ns)
			v = v * last->enabled_ns / last->running_ns;
		/* over the recording, as perf stat's "/sec" is over the run: the
		 * counters' own first and last reads may fall together (a
		 * session of about one read period) and said 0 */
		double dt = (double)(st->last_time - st->first_time) / 1e9;
		double rate = dt > 0 ? v / dt : 0;
		printf("  %-24s %16.0f %14.0f %7.1f%%\n", ev ? ev->name : "?", v, rate, 100 * run);
	}
}

static void print_coverage(PlProfile *p)
{
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(pl_profile_get_symbols(p));
	if (!rows->len)
		return;
	printf("\nSymbol coverage:\n");
	for (guint i = 0; i < rows->len; i++) {
		const PlModuleReport *r = rows->pdata[i];
		printf("  %-44s %8" G_GUINT64_FORMAT " addrs  %s%s%s%s\n", r->module, r->samples,
		       r->has_symbols ? "symbols" : "NO SYMBOLS", r->has_lines ? " lines" : "",
		       r->has_cfi ? " cfi" : "", r->build_id_match ? "" : " BUILD-ID MISMATCH");
		if (r->fetched_from)
			printf("    debuginfod: %s: %s%s%s\n", r->fetched_from,
			       r->local_path ? r->local_path : "", r->debug_path ? " + " : "",
			       r->debug_path ? r->debug_path : "");
		if (r->problem)
			printf("    %s\n", r->problem);
	}
}

/* Modules where stacks end short of a start, with the main reason. */
static void print_unwind_stops(PlProfile *p, int top)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	g_autoptr(GArray) rows = pl_profile_dup_unwind_stops(p);
	if (!rows->len)
		return;
	guint64 stopped = 0;
	for (guint i = 0; i < rows->len; i++)
		stopped += g_array_index(rows, PlUnwindModule, i).stopped;
	printf("\nWhere stacks stop short (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
	       " samples with user frames):\n",
	       stopped, st->unwind_user_samples);
	for (guint i = 0; i < rows->len && (top <= 0 || (int)i < top); i++) {
		const PlUnwindModule *r = &g_array_index(rows, PlUnwindModule, i);
		if (r->stopped)
			printf("  %6.2f%% %9" G_GUINT64_FORMAT "  %s: %s\n",
			       pl_percent(r->stopped, st->unwind_user_samples), r->stopped,
			       r->module, pl_unwind_stop_describe(r->main_stop));
		for (guint s = 0; s < PL_N_STOPS; s++)
			if (r->stopped && s != r->main_stop && r->by_stop[s])
				printf("  %7s %9" G_GUINT64_FORMAT "    also: %s\n", "",
				       r->by_stop[s], pl_unwind_stop_describe((PlUnwindStop)s));
		if (r->at_start && r->start_threads)
			printf("  %7s %9" G_GUINT64_FORMAT "    not short, in %s: the stacks of %u "
			       "thread%s that each end at one return address there, their "
			       "thread's start (a libc without its name)\n",
			       "", r->at_start, r->module, r->start_threads,
			       r->start_threads == 1 ? "" : "s");
		else if (r->at_start)
			printf("  %7s %9" G_GUINT64_FORMAT "    not short, in %s: the start-up of "
			       "%u process%s before main (a loader without its names)\n",
			       "", r->at_start, r->module, r->start_processes,
			       r->start_processes == 1 ? "" : "es");
	}
}

static void print_losses(PlProfile *p)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	guint64 lost = 0;
	for (guint i = 0; i < G_N_ELEMENTS(st->lost); i++)
		lost += st->lost[i];
	printf("\nQuality:\n");
	printf("  samples %" G_GUINT64_FORMAT ", with a stack %" G_GUINT64_FORMAT,
	       st->samples, st->samples - st->samples_no_stack);
	if (st->dwarf_samples)
		printf(", dwarf %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
		       " truncated, %" G_GUINT64_FORMAT " not unwound)",
		       st->dwarf_samples, st->dwarf_truncated, st->dwarf_failed);
	printf("\n");
	if (st->unwind_user_samples)
		printf("  unwound to the start of their program or thread: %.2f%% of %" G_GUINT64_FORMAT
		       " samples with user frames\n",
		       pl_profile_get_unwound_share(p), st->unwind_user_samples);
	/* malformed records only when there were some (precision 0 prints
	 * nothing for a 0): the line of every other recording is unchanged */
	if (lost)
		printf("  LOST %" G_GUINT64_FORMAT ": kernel ring %" G_GUINT64_FORMAT
		       ", samples %" G_GUINT64_FORMAT ", network backpressure %" G_GUINT64_FORMAT
		       ", oversize %" G_GUINT64_FORMAT "%s%.0" G_GUINT64_FORMAT
		       " — lower --frequency or raise the ring size if this matters\n",
		       lost, st->lost[PL_LOST_RING], st->lost[PL_LOST_SAMPLES],
		       st->lost[PL_LOST_BACKPRESSURE], st->lost[PL_LOST_OVERSIZE],
		       st->lost[PL_LOST_MALFORMED] ? ", malformed " : "",
		       st->lost[PL_LOST_MALFORMED]);
	else
		printf("  nothing lost\n");
	if (st->throttled)
		printf("  throttled %" G_GUINT64_FORMAT " times by the kernel "
		       "(kernel.perf_event_max_sample_rate)\n",
		       st->throttled);
	if (st->have_health) {
		const struct pl_msg_health *h = &st->health;
		printf("  agent: %.1f ms CPU, %" G_GUINT64_FORMAT " KiB RSS; board CPU %.1f%%, "
		       "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " KiB available; sent %"
		       G_GUINT64_FORMAT " bytes (%" G_GUINT64_FORMAT " raw)\n",
		       h->agent_cpu_ns / 1e6, h->agent_rss_kb, h->cpu_busy_permille / 10.0,
		       h->mem_available_kb, h->mem_total_kb, h->bytes_sent, h->bytes_raw);
	}
	if (st->end_reason) {
		const char *why = st->end_reason == PL_END_TARGET_EXITED ? "target exited"
				  : st->end_reason == PL_END_STOPPED    ? "stopped"
				  : st->end_reason == PL_END_DURATION   ? "duration reached"
									: "error";
		gboolean same = !st->end_message || !*st->end_message ||
				!g_strcmp0(st->end_message, why);
		printf("  ended: %s%s%s\n", why, same ? "" : ": ", same ? "" : st->end_message);
	}
	for (guint i = 0; i < st->log->len; i++)
		printf("  %s\n", (const char *)st->log->pdata[i]);
}

/* --tid, --from and --to as a filter of event; the range relative to the
 * first record, as a timeline shows it. */
static PlFilter args_filter(PlProfile *p, const ReportArgs *a, guint32 event)
{
	guint64 first = pl_profile_get_stats(p)->first_time;
	PlFilter f = { (guint32)a->tid, event, 0, 0 };
	if (a->from > 0)
		f.t0 = first + (guint64)(a->from * 1e9);
	if (a->to > 0)
		f.t1 = first + (guint64)(a->to * 1e9);
	return f;
}

/* ─── main ───────────────────────────────────────────────────────────── */

int pl_cli_report(int argc, char **argv)
{
	ReportArgs a = { .top = 20 };
	g_autofree char *fail_on_help = pl_report_findings_dup_help();
	const GOptionEntry entries[] = {
		{ "sort", 0, 0, G_OPTION_ARG_STRING, &a.sort, "Order functions by self or total",
		  "self|total" },
		{ "tid", 0, 0, G_OPTION_ARG_INT, &a.tid, "Only this thread", "N" },
		{ "top", 0, 0, G_OPTION_ARG_INT, &a.top, "Rows per table (default 20, 0: all)",
		  "N" },
		{ "event", 0, 0, G_OPTION_ARG_STRING, &a.event,
		  "Sampled event to report (default: the one with most samples)", "NAME" },
		{ "fail-if", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.fail_if,
		  "Exit 1 when a share crosses a limit: '[self:|total:]FUNCTION OP N%' or "
		  "'unwound OP N%', OP one of > >= < <=, N from 0 to 100 (repeatable): "
		  "'hot_leaf>5%', 'total:main<=90%', 'unwound<99%'; a function with no "
		  "samples in the report fails the gate (exit 1, said on stderr), except a "
		  "placeholder such as [unknown], and so does unwound without user frames; "
		  "a name several source files share is refused: name one as the report "
		  "does, 'helper (a.c)>5%'; quote a name "
		  "the grammar cannot read bare, '\"operator>\">1%' (docs/expressions.md); "
		  "an expression that does not read is refused (exit 2, caret at the column)",
		  "EXPR" },
		{ "lines", 0, 0, G_OPTION_ARG_NONE, &a.lines, "Also list hot source lines", NULL },
		{ "invert", 0, 0, G_OPTION_ARG_NONE, &a.invert,
		  "Also print the inverted (bottom-up) call tree: where time was spent, then "
		  "who called it",
		  NULL },
		{ "markers", 0, 0, G_OPTION_ARG_NONE, &a.markers,
		  "Only the application markers (--markers recordings): each line with its "
		  "time, thread and stack, and the begin/end intervals with durations",
		  NULL },
		{ "pair", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.pairs,
		  "With --markers (refused without): also the intervals from an event matching "
		  "BEGIN_RE to the "
		  "next one matching END_RE on the same thread (markers by text, tracepoints "
		  "by 'EVENT fields'; repeatable)",
		  "'BEGIN_RE;END_RE'" },
		{ "tracepoints", 0, 0, G_OPTION_ARG_NONE, &a.tracepoints,
		  "Only the tracepoint events (--event SUBSYS:NAME) with their decoded fields",
		  NULL },
		{ "syscalls", 0, 0, G_OPTION_ARG_NONE, &a.syscalls,
		  "Only the slow system calls (--syscalls recordings): by call, by call site, "
		  "a latency histogram and the slowest with their stacks (--top N of them)",
		  NULL },
		{ "irq", 0, 0, G_OPTION_ARG_NONE, &a.irq,
		  "Only the interrupt time (--irq recordings): per IRQ handler and softirq "
		  "vector, counts per CPU, share of the recording (--from/--to: of the runs "
		  "entered in that range; --tid: of the runs that interrupted that thread); "
		  "then, per line and vector, the runs recorded against /proc's counts between "
		  "the agent's reads at the session's start and end: /proc's are totals, the "
		  "recorded runs are samples, short by the interrupts a CPU took while it "
		  "idled where the kernel gives no tracepoint sample for those (the whole "
		  "session only)",
		  NULL },
		{ "counters", 0, 0, G_OPTION_ARG_NONE, &a.counters,
		  "Only the counter tracks the agent polled (RSS, CPU busy share, frequency, "
		  "idle states, thermal zones, hwmon): samples, min, mean, max, unit and "
		  "source per track", NULL },
		{ "block", 0, 0, G_OPTION_ARG_NONE, &a.block,
		  "Only the block I/O (--block recordings): per device requests, bytes, "
		  "latency percentiles, the slowest with their stacks (--top N of them)", NULL },
		{ "locks", 0, 0, G_OPTION_ARG_NONE, &a.locks,
		  "Only the lock contention (--locks recordings): futex waits by lock, their "
		  "waiters, who held each lock (the waker's stack), wait-time histograms",
		  NULL },
		{ "findings", 0, 0, G_OPTION_ARG_NONE, &a.findings,
		  "Only the findings: what the rules see as unusual (lost samples, a thread "
		  "that held a CPU, off-CPU time by reason, runqueue latency, page faults, "
		  "stacks that stop short, periodic tasks, migrations, interrupts, CPU "
		  "frequency capped while busy, a regression against --baseline), with the numbers and the section that "
		  "shows it, over the whole recording (the rules: --fail-on; docs/cli.md, "
		  "\"Findings\")",
		  NULL },
		{ "periods", 0, 0, G_OPTION_ARG_NONE, &a.periods,
		  "Only the periodic tasks: threads (and marker pairs) that run once per "
		  "period, each activation's release jitter, response, execution time, "
		  "preemptions and deadline misses, histograms and the worst activations "
		  "(--top N of them, 0: all) with the --from/--to that select each",
		  NULL },
		{ "period", 0, 0, G_OPTION_ARG_STRING, &a.period,
		  "With --periods: judge every task by this period, not the one detected "
		  "(10ms, 250us)", "DUR" },
		{ "baseline", 0, 0, G_OPTION_ARG_FILENAME, &a.baseline,
		  "For the findings: another recording to compare with (the regression rule: "
		  "functions whose share grew, with their confidence)", "FILE" },
		{ "fail-on", 0, 0, G_OPTION_ARG_STRING_ARRAY, &a.fail_on, fail_on_help,
		  "RULE[,RULE]" },
		{ "function", 0, 0, G_OPTION_ARG_STRING, &a.function,
		  "Also list callers and callees of this function ('NAME (FILE)' for one of "
		  "several of that name)", "SYM" },
		{ "from", 0, 0, G_OPTION_ARG_DOUBLE, &a.from,
		  "Only samples from S seconds after the first one", "S" },
		{ "to", 0, 0, G_OPTION_ARG_DOUBLE, &a.to,
		  "Only samples before S seconds after the first one", "S" },
		{ "annotate", 0, 0, G_OPTION_ARG_STRING, &a.annotate,
		  "Also list the instructions of this function with their counts "
		  "(objdump, or PREFIXobjdump with --toolchain-prefix); 'NAME (FILE)' as "
		  "for --source",
		  "SYM" },
		{ "source", 0, 0, G_OPTION_ARG_STRING, &a.source,
		  "Also list the source of this function (or this file) with per-line self/total; "
		  "where static functions of several files share the name, 'NAME (FILE)' picks "
		  "one (else the one with the most samples, said on stderr)",
		  "SYM|FILE" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("FILE — summarize a recording");
	pl_cli_add_entries(ctx, entries);
	g_option_context_add_group(ctx, pl_cli_sym_group(&a.sym));
	g_option_context_add_group(ctx, pl_cli_filter_group(&a.flt));
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(PlStackFilter) sf = NULL;
	g_autoptr(PlProfile) p = NULL;
	g_autoptr(PlProfile) baseline = NULL;
	g_autoptr(GArray) checks = g_array_new(FALSE, TRUE, sizeof(FailIf));
	g_autoptr(PlAggregate) agg = NULL;
	g_autoptr(PlFunctionNames) names = NULL;
	g_autoptr(GPtrArray) fail_on = g_ptr_array_new_with_free_func(g_free);
	PlCaptureInfo info;

	if (!pl_cli_parse(ctx, &argc, &argv, "report"))
		goto out;
	if (argc != 2) {
		pl_cli_fail("report needs exactly one FILE (run perflens report --help)");
		goto out;
	}
	gboolean by_total = FALSE;
	if (a.sort && !strcmp(a.sort, "total"))
		by_total = TRUE;
	else if (a.sort && strcmp(a.sort, "self") != 0) {
		pl_cli_fail("--sort takes self or total, not '%s'", a.sort);
		goto out;
	}
	if (a.tid < 0 || a.top < 0 || a.from < 0 || a.to < 0 || (a.to && a.to <= a.from)) {
		pl_cli_fail("--tid, --top, --from, --to take positive numbers (and --to > --from)");
		goto out;
	}
	if (!fail_if_parse_all(a.fail_if, checks))
		goto out;
	if (!pl_report_findings_parse(a.fail_on, fail_on))
		goto out;
	guint64 period_ns;
	if (!pl_report_periods_parse(a.period, a.periods, &period_ns))
		goto out;
	if (a.pairs && !a.markers) {
		pl_cli_fail("--pair adds intervals to --markers: add --markers (or drop --pair)");
		goto out;
	}
	for (char **pr = a.pairs; pr && *pr; pr++) {
		GRegex *b, *e;
		g_autoptr(GError) error = NULL;
		if (!pl_markers_parse_pair(*pr, &b, &e, &error)) {
			pl_cli_fail_expr("--pair", *pr, error);
			goto out;
		}
		g_regex_unref(b);
		g_regex_unref(e);
	}

	/* the sections of the whole recording say so rather than ignore a
	 * thread or range asked of them (export refuses them alike) */
	const char *whole = a.periods ? "--periods" : a.findings ? "--findings"
			    : a.markers ? "--markers" : a.tracepoints ? "--tracepoints"
			    : a.syscalls ? "--syscalls" : a.block ? "--block"
			    : a.counters ? "--counters" : NULL;
	if ((a.tid || a.from || a.to) && whole) {
		pl_cli_fail("report %s lists the whole recording: --tid, --from and --to apply to "
			    "the profile, --irq and --locks only: leave them out",
			    whole);
		goto out;
	}

	gboolean bad_filter;
	sf = pl_cli_stack_filter(&a.flt, &bad_filter);
	if (bad_filter)
		goto out;

	p = pl_cli_load(argv[1], &a.sym, &info);
	if (!p)
		goto out;
	PlCaptureInfo binfo;
	if (a.baseline && !(baseline = pl_cli_load(a.baseline, &a.sym, &binfo)))
		goto out;

	if (a.periods) {
		printf("%s\n", argv[1]);
		pl_report_print_periods(p, period_ns, (guint)a.top);
		rc = pl_report_findings(p, baseline, a.findings, fail_on);
		goto out;
	}
	if (a.findings) {
		printf("%s\n", argv[1]);
		rc = pl_report_findings(p, baseline, TRUE, fail_on);
		goto out;
	}
	if (a.markers || a.tracepoints || a.syscalls || a.irq || a.block || a.locks ||
	    a.counters) {
		/* events, not samples: these sections stand alone */
		printf("%s\n", argv[1]);
		if (a.markers && !pl_report_print_markers(p, a.pairs))
			goto out;
		if (a.tracepoints)
			pl_report_print_tracepoints(p);
		if (a.syscalls)
			pl_report_print_syscalls(p, a.top > 0 ? (guint)a.top : 10);
		if (a.irq) {
			/* --tid: the interrupted thread's; --from, --to: the
			 * runs entered in that range */
			PlFilter irf = args_filter(p, &a, PL_NO_ID);
			pl_report_print_irq(p, &irf);
		}
		if (a.block)
			pl_report_print_block(p, (guint)a.top);
		if (a.locks) {
			/* --tid, --from, --to: the waits of that thread, in that
			 * range, as the Locks page follows the window's */
			PlFilter lf = args_filter(p, &a, PL_NO_ID);
			pl_report_print_locks(p, a.top > 0 ? (guint)a.top : 10, &lf);
		}
		if (a.counters)
			pl_report_print_counters(p);
		rc = pl_report_findings(p, baseline, FALSE, fail_on);
		goto out;
	}
	guint32 event;
	if (!pl_cli_event(p, a.event, argv[1], &event))
		goto out;
	if (a.tid && !pl_profile_lookup_thread(p, (guint32)a.tid)) {
		pl_cli_fail("no thread %d in %s: see the Threads section of the full report",
			    a.tid, argv[1]);
		goto out;
	}
	PlFilter filter = args_filter(p, &a, event);
	agg = pl_profile_aggregate_filtered(p, &filter, sf);
	/* functions of one name are told apart by their files in every table */
	names = pl_function_names_new(p, agg);
	for (guint i = 0; i < checks->len; i++) {
		FailIf *fi = &g_array_index(checks, FailIf, i);
		if (fi->g.measure != PL_GATE_UNWOUND && !fail_if_resolve(fi, names, agg))
			goto out;
	}

	print_header(p, argv[1], &info, agg, event);
	print_functions(p, agg, names, by_total, a.top, event);
	if (a.function)
		print_relatives(p, agg, names, a.function);
	if (a.lines)
		print_lines(p, agg, a.top);
	if (a.invert)
		print_inverted(p, agg, names, a.top);
	if (a.source)
		pl_report_print_source(p, agg, names, a.source);
	if (a.annotate && pl_report_print_annotate(p, agg, names, a.annotate) != PL_EXIT_OK)
		goto out;
	print_threads(p, agg, a.top);
	PlFilter base = { (guint32)a.tid, PL_NO_ID, filter.t0, filter.t1 };
	print_off_cpu(p, &base, sf, a.top);
	print_switches(p, &base, a.top);
	print_tree(p, a.top);
	print_counters(p);
	print_coverage(p);
	print_unwind_stops(p, a.top);
	print_losses(p);

	rc = fail_if_judge(p, checks, argv[1]);
	if (fail_on->len && pl_report_findings(p, baseline, FALSE, fail_on) != PL_EXIT_OK)
		rc = PL_EXIT_CHECK;
out:
	for (guint i = 0; i < checks->len; i++)
		pl_gate_clear(&g_array_index(checks, FailIf, i).g);
	pl_cli_sym_args_clear(&a.sym);
	pl_cli_filter_args_clear(&a.flt);
	g_free(a.sort);
	g_free(a.event);
	g_free(a.function);
	g_free(a.annotate);
	g_free(a.source);
	g_free(a.period);
	g_free(a.baseline);
	g_strfreev(a.fail_if);
	g_strfreev(a.fail_on);
	g_strfreev(a.pairs);
	return rc;
}
