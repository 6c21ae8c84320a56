/* viewer-model-findings-test.c — the periodic tasks model (pl-periods.h),
 * the periods finding on switch records and the migrations finding on
 * counters, laid out by the test, where
 * every number is known: a thread on an exact 10 ms grid whose start
 * comes 50 µs + (k % 7) × 10 µs after its release (the wake-up latency),
 * 2 ms of work with a 0.5 ms preemption in every 5th, and every 12th
 * activation 4 ms late with 7 ms of work, after which the release it
 * overran is skipped (as test/workloads/periodic does).  The recordings
 * of that program against its own clock are viewer-periods-test.sh. */
#include <math.h>

#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-findings.h"
#include "pl-percent.h"
#include "pl-periods.h"
#include "pl-profile.h"

#define PID 700
#define TID 701
#define T0 1000000000000ull
#define MS 1000000ull
#define US 1000ull
#define N_ACTS 120

typedef struct {
	guint64 release, start, end, exec;
	guint preempt;
	gboolean miss;
} Want;

static void sw(PlProfile *p, guint64 t, guint8 flags)
{
	struct pl_msg m = { .type = PL_MSG_SWITCH };
	m.u.sw = (struct pl_msg_switch){ PID, TID, t, 0, flags, 0, 0 };
	pl_profile_ingest(&m, p);
}

/* The profile, and what each activation is (want[N_ACTS]). */
static PlProfile *periodic_profile(Want *want, int late_every)
{
	PlProfile *p = pl_profile_new(NULL);
	sw(p, T0 - 3 * MS, 0); /* the thread's start, before the first sleep */
	sw(p, T0 - 2 * MS, PL_SWITCH_OUT);
	guint64 r = T0;
	for (int k = 0; k < N_ACTS; k++) {
		gboolean late = late_every && k % late_every == late_every - 1;
		guint64 start = r + 50 * US + (guint64)(k % 7) * 10 * US + (late ? 4 * MS : 0);
		guint64 work = late ? 7 * MS : 2 * MS;
		Want *w = &want[k];
		w->release = r;
		w->start = start;
		w->exec = work;
		sw(p, start, 0);
		guint64 t = start;
		if (k % 5 == 0) { /* preempted 0.5 ms after 1 ms of work */
			sw(p, t + 1 * MS, PL_SWITCH_OUT | PL_SWITCH_PREEMPT);
			sw(p, t + 1500 * US, 0);
			t += 500 * US;
			w->preempt = 1;
		}
		w->end = t + work;
		sw(p, w->end, PL_SWITCH_OUT);
		w->miss = w->end > r + 10 * MS;
		do
			r += 10 * MS;
		while (r <= w->end);
	}
	sw(p, r + 1 * MS, 0); /* woken once more: the recording ends while it runs */
	pl_profile_finish(p);
	return p;
}

static const PlPeriodicTask *only_task(GPtrArray *tasks)
{
	PL_CHECKF(tasks->len == 1, "%u tasks", tasks->len);
	const PlPeriodicTask *t = tasks->pdata[0];
	PL_CHECK(t->tid == TID && t->pid == PID && !t->marker);
	return t;
}

/* every activation found, each number as laid out; the jitter is the
 * start over the earliest phase around it (0 to 60 µs, 4 ms more late) */
static void activations(void)
{
	Want want[N_ACTS] = { 0 };
	g_autoptr(PlProfile) p = periodic_profile(want, 12);
	g_autoptr(GPtrArray) tasks = pl_periods_find(p, 0);
	const PlPeriodicTask *t = only_task(tasks);
	PL_CHECKF(t->source == PL_PERIOD_DETECTED && t->period_ns > 10 * MS - 2 * US &&
			  t->period_ns < 10 * MS + 2 * US,
		  "period %" G_GUINT64_FORMAT " ns", t->period_ns);
	PL_CHECKF(t->acts->len == N_ACTS, "%u activations", t->acts->len);
	guint misses = 0, preempted = 0;
	for (guint k = 0; k < N_ACTS; k++) {
		const PlActivation *a = &g_array_index(t->acts, PlActivation, k);
		const Want *w = &want[k];
		misses += w->miss;
		preempted += w->preempt;
		PL_CHECKF(a->start == w->start && a->end == w->end && a->exec_ns == w->exec &&
				  a->preemptions == w->preempt &&
				  a->preempted_ns == (w->preempt ? 500 * US : 0) && a->miss == w->miss &&
				  !a->wake && !a->response_ns,
			  "activation %u: start %+" G_GINT64_FORMAT " end %+" G_GINT64_FORMAT
			  " exec %" G_GUINT64_FORMAT " preempt %u miss %d",
			  k, (gint64)(a->start - w->start), (gint64)(a->end - w->end), a->exec_ns,
			  a->preemptions, a->miss);
		/* the phase: the earliest start among 8 either side, which
		 * holds a k % 7 == 0 one (50 µs after its release) */
		gint64 jit = (gint64)(w->start - w->release) - 50 * (gint64)US;
		PL_CHECKF(llabs((gint64)a->jitter_ns - jit) <= 2 * (gint64)US,
			  "activation %u: jitter %" G_GUINT64_FORMAT " ns, want %" G_GINT64_FORMAT, k,
			  a->jitter_ns, jit);
		PL_CHECKF(llabs((gint64)a->release - (gint64)(w->release + 50 * US)) <= 2 * (gint64)US,
			  "activation %u: release off by %" G_GINT64_FORMAT " ns", k,
			  (gint64)(a->release - w->release - 50 * US));
	}
	PL_CHECKF(t->misses == misses && misses == N_ACTS / 12, "%u misses, want %u", t->misses,
		  misses);
	PL_CHECK(t->preempted_acts == preempted);
	PL_CHECK(t->exec_max == 7 * MS && t->exec_p50 == 2 * MS);
}

/* A thread that sleeps a relative 50 ms after each activation (usleep,
 * nanosleep): it keeps no grid, each interval is the sleep, the work
 * (150 to 250 µs) and the wake-up latency (50 to 80 µs); every 10th
 * activation is kept from its CPU 5 ms more after its wake-up (a busy
 * machine), which shifts every later one (nothing catches up).  Its period
 * is the interval it keeps, the median: a line fitted through its starts
 * climbs each shift and comes out longer.  *median gets the median
 * interval, *mean that of the intervals without a delay. */
static PlProfile *relative_profile(double *median, double *mean)
{
	PlProfile *p = pl_profile_new(NULL);
	sw(p, T0 - 3 * MS, 0);
	sw(p, T0 - 2 * MS, PL_SWITCH_OUT);
	guint32 x = 12345; /* a fixed pseudo-random sequence (an LCG) */
	guint64 t = T0, prev = 0;
	g_autoptr(GArray) d = g_array_new(FALSE, FALSE, sizeof(guint64));
	double sum = 0;
	guint plain = 0;
	for (int k = 0; k < N_ACTS; k++) {
		x = x * 1103515245u + 12345u;
		guint64 work = 150 * US + (x >> 8) % (100 * US);
		x = x * 1103515245u + 12345u;
		guint64 late = 50 * US + (x >> 8) % (30 * US) + (k % 10 == 9 ? 5 * MS : 0);
		guint64 start = t + late;
		sw(p, start, 0);
		sw(p, start + work, PL_SWITCH_OUT);
		if (prev) {
			guint64 iv = start - prev;
			g_array_append_val(d, iv);
			if (k % 10 != 9) {
				sum += (double)iv;
				plain++;
			}
		}
		prev = start;
		t = start + work + 50 * MS;
	}
	sw(p, t + 1 * MS, 0);
	pl_profile_finish(p);
	g_array_sort(d, pl_cmp_u64);
	*median = ((double)g_array_index(d, guint64, d->len / 2 - 1) +
		   (double)g_array_index(d, guint64, d->len / 2)) / 2;
	*mean = sum / plain;
	return p;
}

/* the period of a relative sleeper is the interval it keeps (within
 * 0.05 %), its activations counted whole, none missed, and the delayed
 * ones' jitter the delay */
static void relative_sleep(void)
{
	double median, mean;
	g_autoptr(PlProfile) p = relative_profile(&median, &mean);
	g_autoptr(GPtrArray) tasks = pl_periods_find(p, 0);
	const PlPeriodicTask *t = only_task(tasks);
	PL_CHECKF(fabs((double)t->period_ns - median) <= 0.0005 * median &&
			  fabs((double)t->period_ns - mean) <= 0.0005 * mean,
		  "period %.4f ms, median interval %.4f ms, mean of the undelayed %.4f ms",
		  t->period_ns / 1e6, median / 1e6, mean / 1e6);
	PL_CHECKF(t->acts->len == N_ACTS && t->misses == 0, "%u activations, %u misses",
		  t->acts->len, t->misses);
	for (guint k = 0; k < t->acts->len; k++) {
		const PlActivation *a = &g_array_index(t->acts, PlActivation, k);
		/* the delayed ones 5 ms late, give or take the spread of the
		 * work and the latency over the 8 activations either side
		 * whose earliest phase is the release; none later than that
		 * (those after a delay keep the earlier phase for up to 8
		 * activations: a relative sleep has no grid to tell them by) */
		gboolean delayed = k % 10 == 9;
		PL_CHECKF(a->jitter_ns <= 5500 * US && (!delayed || a->jitter_ns >= 4500 * US),
			  "activation %u: jitter %.3f ms", k, a->jitter_ns / 1e6);
	}
}

/* a given period judges by it; one the activations do not keep finds none */
static void given_period(void)
{
	Want want[N_ACTS] = { 0 };
	g_autoptr(PlProfile) p = periodic_profile(want, 12);
	g_autoptr(GPtrArray) tasks = pl_periods_find(p, 10 * MS);
	const PlPeriodicTask *t = only_task(tasks);
	PL_CHECK(t->source == PL_PERIOD_GIVEN && t->period_ns == 10 * MS);
	PL_CHECK(t->acts->len == N_ACTS && t->misses == N_ACTS / 12);
	g_autoptr(GPtrArray) none = pl_periods_find(p, 7 * MS);
	PL_CHECKF(none->len == 0, "%u tasks at 7 ms", none->len);
}

static const PlFinding *find(GPtrArray *fs, const char *rule);

/* the periods finding: the misses as counted; quiet without late ones */
static void finding(void)
{
	Want want[N_ACTS] = { 0 };
	g_autoptr(PlProfile) p = periodic_profile(want, 12);
	g_autoptr(GPtrArray) fs = pl_findings_run(p);
	const PlFinding *f = find(fs, "periods");
	PL_CHECK(f && f->severity == PL_FINDING_WARNING && f->tid == TID && f->t1 > f->t0);
	g_autofree char *want_what = g_strdup_printf("%u of %u activations", N_ACTS / 12, N_ACTS);
	PL_CHECKF(strstr(f->what, want_what), "%s", f->what);

	g_autoptr(PlProfile) q = periodic_profile(want, 0);
	g_autoptr(GPtrArray) qs = pl_findings_run(q);
	PL_CHECK(!find(qs, "periods"));
	g_autoptr(GPtrArray) tasks = pl_periods_find(q, 0);
	PL_CHECK(only_task(tasks)->misses == 0);
}

/* migrations: counters of task-clock, cpu-migrations, context-switches
 * (scaled for multiplexing as perf stat does) */
static PlProfile *counted(guint64 cpu_ns, guint64 migr, guint64 cs, guint64 enabled,
			  guint64 running)
{
	PlProfile *p = pl_profile_new(NULL);
	static const char *const names[] = { "task-clock", "cpu-migrations", "context-switches" };
	for (guint i = 0; i < 3; i++) {
		struct pl_msg m = { .type = PL_MSG_EVENT_DESC };
		m.u.event_desc.index = i;
		m.u.event_desc.role = PL_ROLE_COUNTED;
		m.u.event_desc.name = pl_str_c(names[i]);
		pl_profile_ingest(&m, p);
	}
	struct pl_msg c = { .type = PL_MSG_COUNTERS };
	c.u.counters.time = T0;
	c.u.counters.n = 3;
	const guint64 v[3] = { cpu_ns, migr, cs };
	for (guint i = 0; i < 3; i++)
		c.u.counters.v[i] = (struct pl_counter_value){ i, v[i], enabled, running };
	pl_profile_ingest(&c, p);
	pl_profile_finish(p);
	return p;
}

static const PlFinding *find(GPtrArray *fs, const char *rule)
{
	for (guint i = 0; i < fs->len; i++)
		if (!strcmp(((PlFinding *)fs->pdata[i])->rule, rule))
			return fs->pdata[i];
	return NULL;
}

static void migrations(void)
{
	/* 5,000 in 2 s of CPU, counted half the time: 10,000 in 4 s; 20,000
	 * context switches scale to 40,000 */
	g_autoptr(PlProfile) p = counted(2000 * MS, 5000, 20000, 2, 1);
	g_autoptr(GPtrArray) fs = pl_findings_run(p);
	const PlFinding *f = find(fs, "migrations");
	PL_CHECK(f);
	PL_CHECKF(g_str_has_prefix(f->what, "10000 CPU migrations in 4000.0 ms of CPU time: 2500 per "
					    "CPU second"),
		  "%s", f->what);
	PL_CHECKF(f->detail && strstr(f->detail, "40000 context switches: 25.0% of them moved"), "%s",
		  f->detail);
	/* 1,500 in 2 s: 750 a second; 900 in 0.5 s: 1,800 a second but few */
	g_autoptr(PlProfile) q = counted(2000 * MS, 1500, 3000, 1, 1);
	g_autoptr(GPtrArray) qs = pl_findings_run(q);
	PL_CHECK(!find(qs, "migrations"));
	g_autoptr(PlProfile) r = counted(500 * MS, 900, 3000, 1, 1);
	g_autoptr(GPtrArray) rs = pl_findings_run(r);
	PL_CHECK(!find(rs, "migrations"));
}

/* regression: a baseline of n samples, k of them in cmp_ulong (the rest
 * in hot_leaf), as burn's functions */
static PlProfile *two_functions(const char *name, guint n, guint k)
{
	char *why = NULL;
	static VtElf *e;
	if (!e)
		e = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(e, "%s", why);
	g_autofree char *path = vt_tmp(name);
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, PID, "burn", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
	uint64_t hot[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), vt_sym(e, "main", 1) };
	uint64_t cmp[] = { T_CTX_USER, vt_sym(e, "cmp_ulong", 0), vt_sym(e, "main", 1) };
	for (guint i = 0; i < n; i++)
		vt_sample(c, 0, PID, PID, T0 + i * MS, 1000000, i < k ? cmp : hot, 3);
	vt_capture_close(c);
	return vt_profile_load(path);
}

static void regression(void)
{
	g_autoptr(PlProfile) base = two_functions("base.plens", 1000, 20);
	/* 2 % → 10 %: z = 0.08 / sqrt(0.06 · 0.94 · 2/1000) ≈ 7.5 */
	g_autoptr(PlProfile) grew = two_functions("grew.plens", 1000, 100);
	g_autoptr(GPtrArray) fs = pl_findings_run_with(grew, base);
	const PlFinding *f = find(fs, "regression");
	PL_CHECK(f && !g_strcmp0(f->view, "functions"));
	PL_CHECKF(strstr(f->what, "1 function grew against the baseline (1000 samples there, 1000 "
				  "here); the most, cmp_ulong: self 2.00% → 10.00% of the samples, "
				  "+8.00 points (z 7.5)"),
		  "%s", f->what);
	/* the same, and 2 % → 3 % (z ≈ 1.4): nothing; no baseline: nothing */
	g_autoptr(PlProfile) same = two_functions("same.plens", 1000, 20);
	g_autoptr(PlProfile) bit = two_functions("bit.plens", 1000, 30);
	g_autoptr(GPtrArray) s1 = pl_findings_run_with(same, base);
	g_autoptr(GPtrArray) s2 = pl_findings_run_with(bit, base);
	g_autoptr(GPtrArray) s3 = pl_findings_run(grew);
	PL_CHECK(!find(s1, "regression") && !find(s2, "regression") && !find(s3, "regression"));
}

static void durations(void)
{
	static const struct {
		const char *text;
		guint64 ns;
	} good[] = { { "10ms", 10 * MS }, { "250us", 250 * US }, { "1.5ms", 1500 * US },
		     { "0.01s", 10 * MS }, { "2000000", 2 * MS } };
	for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
		guint64 ns = 0;
		PL_CHECKF(pl_periods_parse_duration(good[i].text, &ns, NULL) && ns == good[i].ns,
			  "%s", good[i].text);
	}
	static const char *const bad[] = { "", "ms", "10 parsecs", "-5ms", "50us", "nan", "2h" };
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		guint64 ns = 0;
		g_autoptr(GError) error = NULL;
		PL_CHECKF(!pl_periods_parse_duration(bad[i], &ns, &error) && error, "'%s' taken",
			  bad[i]);
	}
}

PL_TEST_MAIN(PL_CASE(activations), PL_CASE(relative_sleep), PL_CASE(given_period), PL_CASE(finding),
	     PL_CASE(migrations), PL_CASE(regression), PL_CASE(durations))
