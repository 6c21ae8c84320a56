/* report-periods.c — perflens report --periods [--period DUR]: the
 * periodic tasks of a recording (viewer/model/pl-periods.h) with their
 * activations' release jitter, response, execution time, preemptions and
 * deadline misses, histograms, and the worst activations with the
 * --from/--to that select each one. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-periods.h"
#include "report.h"

#define HIST_BUCKETS 10
#define HIST_BAR 40

static void print_pcts(const char *what, guint64 p50, guint64 p99, guint64 max)
{
	printf("    %-15s p50 %8.3f ms  p99 %8.3f ms  max %8.3f ms\n", what, p50 / 1e6, p99 / 1e6,
	       max / 1e6);
}

/* A histogram of one field (an offset into PlActivation) in ms, equal
 * buckets from the smallest value to the largest. */
static void print_hist(const char *what, GArray *acts, gsize off)
{
	guint64 lo = G_MAXUINT64, hi = 0;
	for (guint i = 0; i < acts->len; i++) {
		guint64 v = *(const guint64 *)((const char *)&g_array_index(acts, PlActivation, i) + off);
		lo = MIN(lo, v);
		hi = MAX(hi, v);
	}
	if (!acts->len)
		return;
	guint64 width = MAX((hi - lo + HIST_BUCKETS) / HIST_BUCKETS, 1);
	guint count[HIST_BUCKETS] = { 0 }, most = 0;
	for (guint i = 0; i < acts->len; i++) {
		guint64 v = *(const guint64 *)((const char *)&g_array_index(acts, PlActivation, i) + off);
		guint b = MIN((v - lo) / width, HIST_BUCKETS - 1);
		count[b]++;
		most = MAX(most, count[b]);
	}
	printf("    %s histogram:\n", what);
	guint last = HIST_BUCKETS - 1;
	while (last && !count[last])
		last--;
	for (guint b = 0; b <= last; b++) {
		char bar[HIST_BAR + 1];
		guint len = count[b] ? MAX(1u, (guint)((guint64)count[b] * HIST_BAR / most)) : 0;
		memset(bar, '#', len);
		bar[len] = 0;
		printf("      %8.3f – %8.3f ms %6u %s\n", (lo + b * width) / 1e6,
		       (lo + (b + 1) * width) / 1e6, count[b], bar);
	}
}

/* misses first, the latest first; then the longest execution */
static gint cmp_worst(gconstpointer pa, gconstpointer pb)
{
	const PlActivation *a = *(const PlActivation *const *)pa, *b = *(const PlActivation *const *)pb;
	if (a->miss != b->miss)
		return a->miss ? -1 : 1;
	if (a->miss && a->lateness_ns != b->lateness_ns)
		return a->lateness_ns > b->lateness_ns ? -1 : 1;
	if (a->exec_ns != b->exec_ns)
		return a->exec_ns > b->exec_ns ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

static void print_activation(const PlActivation *a, guint64 t0)
{
	char resp[32];
	if (a->wake)
		g_snprintf(resp, sizeof(resp), "%.3f ms", a->response_ns / 1e6);
	else
		g_strlcpy(resp, "-", sizeof(resp));
	double late = a->lateness_ns / 1e6;
	/* --from/--to as report reads them (seconds after the first record),
	 * widened to 0.1 ms so that the activation lies inside */
	double from = floor((a->start - MIN(a->start, t0)) / 1e5) / 1e4;
	double to = ceil((a->end - MIN(a->end, t0)) / 1e5) / 1e4;
	printf("      at %.6f s  jitter %.3f ms  response %s  exec %.3f ms  span %.3f ms  "
	       "preempted %u (%.3f ms)  %s %.3f ms %s its deadline  (--from %.4f --to %.4f)\n",
	       (a->start - MIN(a->start, t0)) / 1e9, a->jitter_ns / 1e6, resp, a->exec_ns / 1e6,
	       (a->end - a->start) / 1e6, a->preemptions, a->preempted_ns / 1e6,
	       a->miss ? "MISS, ends" : "ends", fabs(late), a->miss ? "after" : "before", from,
	       MAX(to, from + 1e-4));
}

static void print_task(const PlPeriodicTask *t, guint64 t0, guint top)
{
	if (t->marker)
		printf("  markers '%s' on thread %u %s (pid %u)", t->marker, t->tid, t->thread,
		       t->pid);
	else
		printf("  thread %u %s (pid %u)", t->tid, t->thread, t->pid);
	printf(": period %.3f ms, %s (median interval %.3f ms, %.1f%% of intervals within "
	       "±10%% of the %s)\n",
	       t->period_ns / 1e6, t->source == PL_PERIOD_GIVEN ? "given (--period)" : "detected",
	       t->median_ns / 1e6, t->regular, t->source == PL_PERIOD_GIVEN ? "period" : "median");
	guint n = t->acts->len;
	printf("    activations %u, deadline misses %u (%.1f%%), preempted in %u\n", n, t->misses,
	       100.0 * t->misses / n, t->preempted_acts);
	print_pcts("release jitter", t->jitter_p50, t->jitter_p99, t->jitter_max);
	if (t->with_wake)
		print_pcts("response", t->resp_p50, t->resp_p99, t->resp_max);
	else if (!t->marker)
		printf("    response        no wake-up recorded for this thread: record with "
		       "--event sched:sched_wakeup (a wake-up from another process's context, a "
		       "timer's, is only seen with --all); jitter counts from the switch-in\n");
	if (t->with_wake && t->with_wake < n)
		printf("    (%u of %u activations with their wake-up; the others' jitter counts "
		       "from the switch-in)\n",
		       t->with_wake, n);
	print_pcts("execution", t->exec_p50, t->exec_p99, t->exec_max);
	print_hist("execution time", t->acts, G_STRUCT_OFFSET(PlActivation, exec_ns));
	print_hist("release jitter", t->acts, G_STRUCT_OFFSET(PlActivation, jitter_ns));
	g_autoptr(GPtrArray) worst = g_ptr_array_sized_new(n);
	for (guint i = 0; i < n; i++)
		g_ptr_array_add(worst, &g_array_index(t->acts, PlActivation, i));
	g_ptr_array_sort(worst, cmp_worst);
	guint show = top ? MIN(top, n) : n;
	printf("    worst activations (%u of %u: misses, the latest first, then the longest; "
	       "--top N, 0 for all):\n",
	       show, n);
	for (guint i = 0; i < show; i++)
		print_activation(worst->pdata[i], t0);
}

gboolean pl_report_periods_parse(const char *spec, gboolean periods, guint64 *ns)
{
	*ns = 0;
	if (!spec)
		return TRUE;
	if (!periods) {
		pl_cli_fail("--period judges the periodic tasks of --periods: add --periods");
		return FALSE;
	}
	g_autoptr(GError) error = NULL;
	if (!pl_periods_parse_duration(spec, ns, &error)) {
		pl_cli_fail("--period: %s", error->message);
		return FALSE;
	}
	return TRUE;
}

void pl_report_print_periods(PlProfile *p, guint64 period_ns, guint top)
{
	g_autoptr(GPtrArray) tasks = pl_periods_find(p, period_ns);
	guint64 t0 = pl_profile_get_stats(p)->first_time;
	printf("\nPeriodic tasks (%u; times are seconds after the first record, which is "
	       "%" G_GUINT64_FORMAT " ns of the board's CLOCK_MONOTONIC):\n",
	       tasks->len, t0);
	if (!tasks->len) {
		if (period_ns)
			printf("  no thread nor marker pair whose activations come every %.3f ms "
			       "(at least %d activations, 30%% of the intervals within ±10%%)\n",
			       period_ns / 1e6, PL_PERIOD_MIN_ACTIVATIONS);
		else
			printf("  none found: no thread nor marker pair with at least %d activations "
			       "half of whose intervals are within ±10%% of their median (name one "
			       "with --period)\n",
			       PL_PERIOD_MIN_ACTIVATIONS);
		if (!pl_profile_get_stats(p)->switches)
			printf("  (this recording has no switch records: activations come from "
			       "them)\n");
	}
	for (guint i = 0; i < tasks->len; i++)
		print_task(tasks->pdata[i], t0, top);
}
