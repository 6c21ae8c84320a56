/* pl-periods.c — periodic tasks from switch records, wake-ups and marker
 * intervals (pl-periods.h says what is measured and how the period is
 * found). */
#include "pl-periods.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pl-percent.h"
#include "pl-tracepoint.h"

#define REGULAR_AUTO 50.0  /* share of intervals near the median to call it periodic */
#define REGULAR_GIVEN 30.0 /* …near a period the user named */
#define REGULAR_PHASE 50u  /* or share of starts within 10 % of a period at one phase */
#define NEAR 0.10          /* "near": within this share of the period */
#define PHASE_WINDOW 8     /* activations either side whose earliest phase is the release */

void pl_periodic_task_free(PlPeriodicTask *t)
{
	if (!t)
		return;
	g_free(t->marker);
	if (t->acts)
		g_array_unref(t->acts);
	g_free(t);
}

/* ─── wake-ups ──────────────────────────────────────────────────────── */

/* tid → GArray of guint64 wake-up times (time order), from the
 * sched_wakeup / sched_waking hits the recording holds. */
static GHashTable *collect_wakeups(PlProfile *p)
{
	GHashTable *by_tid = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(p, &n);
	gboolean be = pl_profile_is_big_endian(p);
	for (guint i = 0; i < n; i++) {
		if (ev[i].marker)
			continue;
		const PlTraceFormat *f = pl_profile_get_trace_format(p, ev[i].event);
		if (!f || (strcmp(f->name, "sched_wakeup") && strcmp(f->name, "sched_waking")))
			continue;
		const PlTraceField *fld = pl_trace_format_find(f, "pid");
		gint64 tid;
		if (!fld || !pl_trace_field_int(fld, pl_profile_get_trace_raw(p, &ev[i]),
						ev[i].raw_len, be, &tid) || tid <= 0)
			continue;
		GArray *a = g_hash_table_lookup(by_tid, GINT_TO_POINTER((gint)tid));
		if (!a) {
			a = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(by_tid, GINT_TO_POINTER((gint)tid), a);
		}
		g_array_append_val(a, ev[i].time);
	}
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, by_tid);
	while (g_hash_table_iter_next(&it, NULL, &v))
		g_array_sort(v, pl_cmp_u64);
	return by_tid;
}

/* The last wake-up in [t0, t1], 0 when none. */
static guint64 wake_in(GArray *wakes, guint64 t0, guint64 t1)
{
	if (!wakes || !wakes->len)
		return 0;
	const guint64 *w = (const guint64 *)wakes->data;
	/* first index with w > t1 */
	guint lo = 0, hi = wakes->len;
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (w[mid] <= t1)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && w[lo - 1] >= t0 ? w[lo - 1] : 0;
}

/* ─── activations ───────────────────────────────────────────────────── */

/* Switch activations of a thread: a blocked interval followed by a
 * switch-in opens one; it runs through preempted intervals to the next
 * blocked one.  One still running when the recording ends is left out
 * (its end is unknown); one ended by the thread's exit is kept. */
static GArray *switch_activations(const PlThread *t, GArray *wakes)
{
	GArray *acts = g_array_new(FALSE, TRUE, sizeof(PlActivation));
	const PlInterval *iv = (const PlInterval *)t->intervals->data;
	guint n = t->intervals->len;
	for (guint i = 0; i + 1 < n;) {
		if (iv[i].on_cpu || iv[i].preempted || !iv[i + 1].on_cpu) {
			i++;
			continue;
		}
		PlActivation a = { .start = iv[i + 1].start };
		a.wake = wake_in(wakes, iv[i].start, iv[i + 1].start);
		guint j = i + 1;
		for (; j < n; j++) {
			guint64 d = iv[j].end - iv[j].start;
			if (iv[j].on_cpu) {
				a.exec_ns += d;
			} else if (iv[j].preempted) {
				a.preemptions++;
				a.preempted_ns += d;
			} else {
				break;
			}
		}
		if (j < n) {
			a.end = iv[j].start;
		} else if (t->exited && iv[n - 1].on_cpu) {
			a.end = iv[n - 1].end;
		} else {
			break;
		}
		g_array_append_val(acts, a);
		i = j;
	}
	return acts;
}

/* On-CPU and preempted time of a thread within [t0, t1). */
static void cpu_within(const PlThread *t, PlActivation *a)
{
	const PlInterval *iv = (const PlInterval *)t->intervals->data;
	guint n = t->intervals->len;
	guint lo = 0, hi = n;
	while (lo < hi) { /* first interval ending after start */
		guint mid = (lo + hi) / 2;
		if (iv[mid].end <= a->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (guint i = lo; i < n && iv[i].start < a->end; i++) {
		guint64 s = MAX(iv[i].start, a->start), e = MIN(iv[i].end, a->end);
		if (e <= s)
			continue;
		if (iv[i].on_cpu) {
			a->exec_ns += e - s;
		} else if (iv[i].preempted) {
			a->preemptions++;
			a->preempted_ns += e - s;
		}
	}
}

/* ─── the period and the release grid ───────────────────────────────── */

static guint64 ref_time(const PlActivation *a)
{
	return a->wake ? a->wake : a->start;
}

static guint grid_phase(const PlActivation *a, guint n, guint64 t0, double *per,
			gboolean refine, double *phase_out);

/* The regularity test and the median; FALSE when not periodic. */
static gboolean regular(GArray *acts, guint64 given, double *median, double *share)
{
	if (acts->len < PL_PERIOD_MIN_ACTIVATIONS)
		return FALSE;
	g_autoptr(GArray) d = g_array_sized_new(FALSE, FALSE, sizeof(guint64), acts->len);
	for (guint i = 1; i < acts->len; i++) {
		guint64 x = ref_time(&g_array_index(acts, PlActivation, i)) -
			    ref_time(&g_array_index(acts, PlActivation, i - 1));
		g_array_append_val(d, x);
	}
	g_array_sort(d, pl_cmp_u64);
	const guint64 *v = (const guint64 *)d->data;
	*median = d->len % 2 ? (double)v[d->len / 2]
			     : ((double)v[d->len / 2 - 1] + (double)v[d->len / 2]) / 2;
	double per = given ? (double)given : *median;
	if (per < PL_PERIOD_MIN_NS)
		return FALSE;
	guint near = 0;
	for (guint i = 0; i < d->len; i++)
		near += fabs((double)v[i] - per) <= NEAR * per;
	*share = pl_percent(near, d->len);
	if (*share >= (given ? REGULAR_GIVEN : REGULAR_AUTO))
		return TRUE;
	/* a busy machine scatters the intervals of a task that keeps its
	 * grid, not the phase its starts on time come at */
	double p = per, phase;
	guint on_time = grid_phase((const PlActivation *)acts->data, acts->len,
				   ref_time(&g_array_index(acts, PlActivation, 0)), &p, !given, &phase);
	return on_time * 100 >= acts->len * REGULAR_PHASE;
}

static int cmp_double(gconstpointer a, gconstpointer b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_of(GArray *v)
{
	g_array_sort(v, cmp_double);
	return g_array_index(v, double, v->len / 2);
}

/* The slots of a task that keeps a grid, even when a busy machine starts
 * some activations later than half a period (or more) after their
 * release, where counting from one interval to the next slips: the period
 * refined from pairs of activations ever further apart whose distance is
 * close to a whole number of periods (both on time), then the phase where
 * the most activations start within 10 % of a period (the ones on time),
 * and each activation's slot the last release at or before its start (5 %
 * early allowed).  FALSE (nothing set) when no phase holds at least 40 %
 * of the activations: a task that drifts (a relative sleep) has none. */
static guint grid_phase(const PlActivation *a, guint n, guint64 t0, double *per,
			gboolean refine, double *phase_out)
{
	double p = *per;
	g_autoptr(GArray) v = g_array_new(FALSE, FALSE, sizeof(double));
	for (guint span = 4; refine && span < n; span *= 4) {
		g_array_set_size(v, 0);
		for (guint i = 0; i + span < n; i++) {
			double d = (double)(ref_time(&a[i + span]) - ref_time(&a[i]));
			double q = d / p, k = round(q);
			if (k >= 1 && fabs(q - k) < NEAR)
				g_array_append_val(v, (double){ d / k });
		}
		if (v->len >= 4)
			p = median_of(v);
	}
	/* phases in [0, p), sorted; the densest window of 10 % of p (wrapping) */
	g_array_set_size(v, 0);
	for (guint i = 0; i < n; i++) {
		double ph = fmod((double)(ref_time(&a[i]) - t0), p);
		g_array_append_val(v, ph);
	}
	g_array_sort(v, cmp_double);
	const double *ph = (const double *)v->data;
	guint best = 0;
	double phase = 0;
	for (guint i = 0, j = 0; i < n; i++) {
		while (j < i + n && ph[j % n] + (j >= n ? p : 0) <= ph[i] + NEAR * p)
			j++;
		if (j - i > best) {
			best = j - i;
			phase = ph[i];
		}
	}
	*per = p;
	*phase_out = phase;
	return best;
}

static gboolean grid_slots(const PlActivation *a, guint n, guint64 t0, double *per,
			   gboolean refine, gint64 *slot)
{
	double p = *per, phase;
	if (grid_phase(a, n, t0, &p, refine, &phase) * 10 < n * 4)
		return FALSE;
	for (guint i = 0; i < n; i++) {
		slot[i] = (gint64)floor(((double)(ref_time(&a[i]) - t0) - phase) / p + 0.05);
		if (i && slot[i] <= slot[i - 1])
			slot[i] = slot[i - 1] + 1;
	}
	*per = p;
	return TRUE;
}

/* The median of the intervals between consecutive activations, each over
 * the slots it spans. */
static double slot_median(const PlActivation *a, guint n, const gint64 *slot)
{
	g_autoptr(GArray) v = g_array_sized_new(FALSE, FALSE, sizeof(double), n);
	for (guint i = 1; i < n; i++) {
		double d = (double)(ref_time(&a[i]) - ref_time(&a[i - 1])) /
			   (double)(slot[i] - slot[i - 1]);
		g_array_append_val(v, d);
	}
	g_array_sort(v, cmp_double);
	guint m = v->len;
	return m % 2 ? g_array_index(v, double, m / 2)
		     : (g_array_index(v, double, m / 2 - 1) + g_array_index(v, double, m / 2)) / 2;
}

/* Fits the grid (pl-periods.h) and fills each activation's release,
 * jitter, response, lateness and miss. */
static double fit_grid(PlPeriodicTask *t, double per, gboolean try_grid, gboolean *used_grid)
{
	t->misses = t->with_wake = t->preempted_acts = 0;
	GArray *acts = t->acts;
	guint n = acts->len;
	PlActivation *a = (PlActivation *)acts->data;
	guint64 t0 = ref_time(&a[0]);
	g_autofree gint64 *slot = g_new(gint64, n);
	g_autofree gboolean *in = g_new(gboolean, n);
	g_autofree double *res = g_new(double, n);
	double base = 0; /* release of slot 0, relative to t0 */
	/* else slots counted from one activation to the next, so that a task
	 * drifting from any straight line keeps its count */
	for (guint i = 0; i < n; i++)
		in[i] = TRUE;
	*used_grid = try_grid && grid_slots(a, n, t0, &per, t->source == PL_PERIOD_DETECTED, slot);
	/* the line's slope is the period of a task on a grid; one that keeps
	 * none (a relative sleep) has the interval it keeps, the median: each
	 * delay shifts every later start, and a line through those steps
	 * climbs them, longer than any interval the task keeps */
	gboolean fit_per = t->source == PL_PERIOD_DETECTED && *used_grid;
	if (!*used_grid) {
		slot[0] = 0;
		for (guint i = 1; i < n; i++)
			slot[i] = slot[i - 1] +
				  MAX(1, llround((double)(ref_time(&a[i]) - ref_time(&a[i - 1])) / per));
		if (t->source == PL_PERIOD_DETECTED)
			per = slot_median(a, n, slot);
	}
	for (int pass = 0; pass < 3; pass++) {
		/* least squares of (release − t0) on slot, over the inliers */
		double sk = 0, sy = 0, skk = 0, sky = 0, m = 0;
		for (guint i = 0; i < n; i++) {
			if (!in[i])
				continue;
			double k = (double)slot[i], y = (double)(ref_time(&a[i]) - t0);
			sk += k, sy += y, skk += k * k, sky += k * y, m++;
		}
		double den = m * skk - sk * sk;
		if (m < n / 2.0 || m < 2 || den <= 0)
			break;
		if (fit_per)
			per = (m * sky - sk * sy) / den;
		base = (sy - per * sk) / m;
		for (guint i = 0; i < n; i++) {
			double y = (double)(ref_time(&a[i]) - t0);
			in[i] = fabs(y - base - per * (double)slot[i]) <= NEAR * per;
		}
	}
	for (guint i = 0; i < n; i++)
		res[i] = (double)(ref_time(&a[i]) - t0) - base - per * (double)slot[i];
	/* a task that keeps its grid (an absolute timer): no activation starts
	 * before its release, so each one's slot is the last release at or
	 * before it; counting from interval to interval would put a start
	 * late by more than half a period in the next slot */
	double lo_g = G_MAXDOUBLE, hi_in = -G_MAXDOUBLE;
	for (guint i = 0; i < n; i++) {
		lo_g = MIN(lo_g, res[i]);
		if (in[i])
			hi_in = MAX(hi_in, res[i]);
	}
	for (int pass = 0; hi_in - lo_g < per / 2 && pass < 3; pass++) {
		for (guint i = 0; i < n; i++) {
			double y = (double)(ref_time(&a[i]) - t0);
			slot[i] = (gint64)floor((y - base - lo_g) / per + 1e-9);
			if (i && slot[i] <= slot[i - 1])
				slot[i] = slot[i - 1] + 1;
			/* the line again through the activations on time */
			in[i] = y - base - per * (double)slot[i] - lo_g <= NEAR * per;
		}
		double sk = 0, sy = 0, skk = 0, sky = 0, m = 0;
		for (guint i = 0; i < n; i++) {
			if (!in[i])
				continue;
			double k = (double)slot[i], y = (double)(ref_time(&a[i]) - t0);
			sk += k, sy += y, skk += k * k, sky += k * y, m++;
		}
		double den = m * skk - sk * sk;
		if (m >= 2 && den > 0) {
			if (fit_per)
				per = (m * sky - sk * sy) / den;
			base = (sy - per * sk) / m;
		}
		lo_g = G_MAXDOUBLE;
		for (guint i = 0; i < n; i++) {
			res[i] = (double)(ref_time(&a[i]) - t0) - base - per * (double)slot[i];
			lo_g = MIN(lo_g, res[i]);
		}
	}
	t->period_ns = (guint64)llround(per);
	g_autoptr(GArray) ex = g_array_sized_new(FALSE, FALSE, sizeof(guint64), n);
	g_autoptr(GArray) ji = g_array_sized_new(FALSE, FALSE, sizeof(guint64), n);
	g_autoptr(GArray) re = g_array_sized_new(FALSE, FALSE, sizeof(guint64), n);
	for (guint i = 0; i < n; i++) {
		/* the release: the earliest phase among the activations around */
		double lo = res[i];
		for (guint j = i > PHASE_WINDOW ? i - PHASE_WINDOW : 0; j < n && j <= i + PHASE_WINDOW; j++)
			lo = MIN(lo, res[j]);
		gint64 rel = llround(base + per * (double)slot[i] + lo);
		a[i].release = (guint64)((gint64)t0 + rel);
		guint64 r = ref_time(&a[i]);
		a[i].jitter_ns = r > a[i].release ? r - a[i].release : 0;
		a[i].response_ns = a[i].wake && a[i].start > a[i].wake ? a[i].start - a[i].wake : 0;
		a[i].lateness_ns = (gint64)a[i].end - (gint64)(a[i].release + t->period_ns);
		a[i].miss = a[i].lateness_ns > 0;
		t->misses += a[i].miss;
		t->with_wake += a[i].wake != 0;
		t->preempted_acts += a[i].preemptions != 0;
		g_array_append_val(ex, a[i].exec_ns);
		g_array_append_val(ji, a[i].jitter_ns);
		if (a[i].wake)
			g_array_append_val(re, a[i].response_ns);
	}
	g_array_sort(ex, pl_cmp_u64);
	g_array_sort(ji, pl_cmp_u64);
	g_array_sort(re, pl_cmp_u64);
#define PCTS(arr, f)                                                                       \
	do {                                                                               \
		t->f##_p50 = pl_percentile((const guint64 *)arr->data, arr->len, 50);      \
		t->f##_p99 = pl_percentile((const guint64 *)arr->data, arr->len, 99);      \
		t->f##_max = arr->len ? g_array_index(arr, guint64, arr->len - 1) : 0;     \
	} while (0)
	PCTS(ex, exec);
	PCTS(ji, jitter);
	PCTS(re, resp);
#undef PCTS
	return (double)pl_percentile((const guint64 *)ji->data, ji->len, 90);
}

/* Takes acts; the task when they are periodic, else NULL. */
static PlPeriodicTask *task_of(const PlThread *th, GArray *acts, const char *marker,
			       guint64 given)
{
	double median = 0, share = 0;
	if (!regular(acts, given, &median, &share)) {
		g_array_unref(acts);
		return NULL;
	}
	PlPeriodicTask *t = g_new0(PlPeriodicTask, 1);
	t->tid = th->tid;
	t->pid = th->pid;
	t->thread = th->name ? th->name : "?";
	t->marker = g_strdup(marker);
	t->source = given ? PL_PERIOD_GIVEN : PL_PERIOD_DETECTED;
	t->median_ns = median;
	t->regular = share;
	t->acts = acts;
	/* the slots of a grid and those counted from interval to interval:
	 * the ones that explain the starts with the less jitter (the 90th
	 * percentile) are kept */
	double per = given ? (double)given : median;
	gboolean grid;
	double jg = fit_grid(t, per, TRUE, &grid);
	if (grid && fit_grid(t, per, FALSE, &grid) > jg)
		fit_grid(t, per, TRUE, &grid);
	return t;
}

/* ─── entry points ──────────────────────────────────────────────────── */

GPtrArray *pl_periods_find(PlProfile *p, guint64 period_ns)
{
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)pl_periodic_task_free);
	g_autoptr(GHashTable) wakes = collect_wakeups(p);
	GPtrArray *threads = pl_profile_get_threads(p);
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *th = threads->pdata[i];
		GArray *acts = switch_activations(
			th, g_hash_table_lookup(wakes, GUINT_TO_POINTER(th->tid)));
		PlPeriodicTask *t = task_of(th, acts, NULL, period_ns);
		if (t)
			g_ptr_array_add(out, t);
	}
	/* marker intervals: one series per (thread, name) */
	g_autoptr(PlMarkers) m = pl_markers_new(p);
	g_autoptr(GHashTable) series = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
							     (GDestroyNotify)g_array_unref);
	g_autoptr(GPtrArray) order = g_ptr_array_new(); /* keys in first-seen order */
	for (guint i = 0; i < m->intervals->len; i++) {
		const PlMarkerInterval *mi = &g_array_index(m->intervals, PlMarkerInterval, i);
		if (!mi->name || mi->end <= mi->start)
			continue;
		char *key = g_strdup_printf("%u\t%s", mi->tid, mi->name);
		GArray *a = g_hash_table_lookup(series, key);
		if (!a) {
			a = g_array_new(FALSE, TRUE, sizeof(PlActivation));
			g_hash_table_insert(series, key, a);
			g_ptr_array_add(order, key);
		} else {
			g_free(key);
		}
		PlActivation act = { .start = mi->start, .end = mi->end };
		g_array_append_val(a, act);
	}
	for (guint i = 0; i < order->len; i++) {
		const char *key = order->pdata[i];
		guint32 tid = (guint32)strtoul(key, NULL, 10);
		const PlThread *th = pl_profile_lookup_thread(p, tid);
		if (!th)
			continue;
		GArray *a = g_array_ref(g_hash_table_lookup(series, key));
		for (guint k = 0; k < a->len; k++)
			cpu_within(th, &g_array_index(a, PlActivation, k));
		PlPeriodicTask *t = task_of(th, a, strchr(key, '\t') + 1, period_ns);
		if (t)
			g_ptr_array_add(out, t);
	}
	return out;
}

gboolean pl_periods_parse_duration(const char *text, guint64 *ns, GError **error)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 } };
	char *end = NULL;
	double v = g_ascii_strtod(text, &end);
	if (end != text && v > 0 && isfinite(v)) {
		for (guint i = 0; i < G_N_ELEMENTS(units); i++) {
			if (strcmp(end, units[i].unit))
				continue;
			double x = v * units[i].scale;
			if (x >= PL_PERIOD_MIN_NS && x < 3600e9) {
				*ns = (guint64)llround(x);
				return TRUE;
			}
		}
	}
	g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
		    "'%s' is not a period: give a number with a unit, ns, us, ms or s "
		    "(e.g. 10ms), from 100us to an hour",
		    text);
	return FALSE;
}
