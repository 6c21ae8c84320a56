/* pl-findings.c — the findings engine and its rules (pl-findings.h).
 *
 * Each rule reads what the recording already holds (LOST and THROTTLE
 * marks, the threads' on/off-CPU intervals, the context-switch samples'
 * stacks, the counters, the unwinding statistics) and appends a finding
 * only past its documented threshold.  Thresholds are chosen so that a
 * calm program (a sleep, a program that mostly blocks, a compute run under
 * half a second) raises nothing. */
#include "pl-findings.h"
#include "pl-findings-private.h"

#include <math.h>
#include <string.h>

#include "msg.h"
#include "pl-diff.h"
#include "pl-percent.h"
#include "pl-periods.h"

static void finding_free(gpointer data)
{
	PlFinding *f = data;
	g_free(f->what);
	g_free(f->detail);
	g_free(f->where);
	g_free(f);
}

static const char *tname(const PlThread *t)
{
	return t->name ? t->name : "?";
}

/* ─── lost: samples lost or throttled ───────────────────────────────── */

#define LOST_MIN 1 /* any lost record or throttle mark: the profile is incomplete */

static void rule_lost(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	guint64 lost = 0;
	for (guint i = 0; i < G_N_ELEMENTS(st->lost); i++)
		lost += st->lost[i];
	/* the agent's HEALTH reports count too: a recording cut from a
	 * flight ring may have lost the LOST records themselves */
	guint64 h_lost = st->have_health ? st->health.lost + st->health.dropped : 0;
	guint64 h_throttled = st->have_health ? st->health.throttled : 0;
	guint64 throttled = MAX(st->throttled, h_throttled);
	if (lost < LOST_MIN && h_lost < LOST_MIN && throttled < LOST_MIN)
		return;
	/* when it happened: the first and last marks, relative to the start */
	guint n;
	const PlLossMark *m = pl_profile_get_loss_marks(p, &n);
	guint64 first = G_MAXUINT64, last = 0;
	for (guint i = 0; i < n; i++) {
		first = MIN(first, m[i].time);
		last = MAX(last, m[i].time);
	}
	GString *d = g_string_new(NULL);
	if (lost)
		g_string_append_printf(d, "lost by kind: kernel ring %" G_GUINT64_FORMAT
				       ", samples %" G_GUINT64_FORMAT ", network backpressure %"
				       G_GUINT64_FORMAT ", oversize %" G_GUINT64_FORMAT
				       ", malformed %" G_GUINT64_FORMAT,
				       st->lost[PL_LOST_RING], st->lost[PL_LOST_SAMPLES],
				       st->lost[PL_LOST_BACKPRESSURE], st->lost[PL_LOST_OVERSIZE],
				       st->lost[PL_LOST_MALFORMED]);
	if (n && first >= st->first_time)
		g_string_append_printf(d, "%sbetween %.3f s and %.3f s after the start", d->len ? "\n" : "",
				       (first - st->first_time) / 1e9,
				       (MAX(last, first) - st->first_time) / 1e9);
	if (h_lost > lost || h_throttled > st->throttled)
		g_string_append_printf(d, "%sthe agent's last HEALTH report counted %" G_GUINT64_FORMAT
				       " lost, %" G_GUINT64_FORMAT " dropped, %" G_GUINT64_FORMAT
				       " throttled: more than the records here",
				       d->len ? "\n" : "", st->health.lost, st->health.dropped,
				       h_throttled);
	lost = MAX(lost, h_lost);
	g_string_append_printf(d, "%swhat to do: lower --frequency, raise --ring-pages, or "
			       "record fewer events (a DWARF stack copy is the largest part of a sample)",
			       d->len ? "\n" : "");
	char *what = g_strdup_printf(
		"%" G_GUINT64_FORMAT " records lost and %" G_GUINT64_FORMAT " throttle marks "
		"beside %" G_GUINT64_FORMAT " samples kept: the profile misses part of the run",
		lost, throttled, st->samples);
	PlFinding *f = pl_findings_add(out, "lost", (double)lost + (double)throttled, what,
			   g_string_free(d, FALSE), "report: Quality (LOST, throttled)");
	f->severity = PL_FINDING_INFO;
	f->view = "health";
}

/* ─── cpu-hog: a thread that held a CPU all the time ────────────────── */

#define HOG_SHARE 95.0       /* on-CPU or runnable for at least this share of its time */
#define HOG_MIN_NS 500000000 /* over at least 0.5 s with switch records */

static void rule_cpu_hog(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	GPtrArray *threads = pl_profile_get_threads(p);
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *t = threads->pdata[i];
		guint64 seen = t->on_cpu_ns + t->off_cpu_ns;
		if (seen < HOG_MIN_NS)
			continue;
		PlSwitchStats s;
		pl_profile_switch_stats(p, t->tid, 0, 0, &s);
		/* preempted time counts as wanting the CPU: on a busy machine
		 * a spinning thread is runnable, never blocked */
		double share = pl_percent(seen - MIN(seen, s.voluntary_ns), seen);
		if (share < HOG_SHARE)
			continue;
		char *what = g_strdup_printf(
			"thread %u %s held a CPU %.1f%% of its %.1f ms: on-CPU %.1f ms, "
			"preempted %.1f ms, blocked only %.1f ms (%" G_GUINT64_FORMAT " times)",
			t->tid, tname(t), share, seen / 1e6, t->on_cpu_ns / 1e6,
			s.preempted_ns / 1e6, s.voluntary_ns / 1e6, s.voluntary);
		char *detail = g_strdup("a busy loop, a spin lock or a poll without sleep keeps a "
					"core; look at its functions with --tid");
		pl_findings_add(out, "cpu-hog", share, what, detail, "report --tid N (Threads, Switches)")->tid =
			t->tid;
	}
}

/* ─── off-cpu: off-CPU time by reason ───────────────────────────────── */

#define OFFCPU_SHARE 10.0      /* lock waits + I/O + preemption over this share of thread time */
#define OFFCPU_MIN_NS 50000000 /* and at least 50 ms of it */

/* A thread that waits for another to end (a main thread in pthread_join)
 * waits on a futex too, but holds nothing up: it is told apart from the
 * lock waits and, like sleep, never counts towards the finding. */
typedef enum {
	WAIT_LOCK, WAIT_IO, WAIT_SLEEP, WAIT_JOIN, WAIT_PREEMPT, WAIT_OTHER, N_WAITS
} WaitKind;
static const char *const wait_names[N_WAITS] = {
	"lock waits (futex)", "I/O", "sleep", "thread joins", "preemption", "other waits",
};

/* The name without its libc decorations (__GI___clock_nanosleep,
 * __libc_read): what the rule tables compare. */
static const char *bare(const char *s)
{
	for (;;) {
		while (*s == '_')
			s++;
		if (g_str_has_prefix(s, "GI_"))
			s += 3;
		else if (g_str_has_prefix(s, "libc_"))
			s += 5;
		else
			return s;
	}
}

static const char *const lock_prefixes[] = {
	"futex", "pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_cond_", "pthread_rwlock_",
	"lll_lock", "sem_wait", "sem_timedwait", "pthread_barrier_wait", "do_futex",
};
static const char *const join_prefixes[] = {
	"pthread_join", "pthread_timedjoin", "pthread_clockjoin", "pthread_tryjoin", "thrd_join",
	"std::thread::join",
};
static const char *const sleep_names[] = {
	"nanosleep", "clock_nanosleep", "usleep", "sleep", "do_nanosleep", "hrtimer_nanosleep",
	"pause", "sigtimedwait", "sigsuspend",
};
static const char *const io_names[] = {
	"read", "write", "pread", "pread64", "pwrite", "pwrite64", "readv", "writev", "preadv",
	"pwritev", "fsync", "fdatasync", "sync_file_range", "io_schedule", "io_getevents",
	"io_uring_enter", "poll", "ppoll", "select", "pselect", "epoll_wait", "epoll_pwait",
	"recv", "recvfrom", "recvmsg", "send", "sendto", "sendmsg", "accept", "accept4",
	"connect", "open", "openat", "wait4", "waitpid", "waitid", "msgrcv", "mq_receive",
};

static int classify_name(const char *label)
{
	const char *b = bare(label);
	for (guint i = 0; i < G_N_ELEMENTS(join_prefixes); i++)
		if (g_str_has_prefix(b, join_prefixes[i]))
			return WAIT_JOIN;
	for (guint i = 0; i < G_N_ELEMENTS(lock_prefixes); i++)
		if (g_str_has_prefix(b, lock_prefixes[i]))
			return WAIT_LOCK;
	for (guint i = 0; i < G_N_ELEMENTS(sleep_names); i++)
		if (!strcmp(b, sleep_names[i]))
			return WAIT_SLEEP;
	for (guint i = 0; i < G_N_ELEMENTS(io_names); i++)
		if (!strcmp(b, io_names[i]))
			return WAIT_IO;
	return -1;
}

/* The wait a switch-out stack is in: the innermost frame a table names
 * (frames are innermost first), but a join anywhere in it, since the futex
 * wait inside pthread_join is named first; WAIT_OTHER when none does. */
static WaitKind classify_stack(PlProfile *p, guint32 stack, GHashTable *memo,
			       guint32 *named)
{
	g_autoptr(GArray) fs = pl_profile_dup_stack_functions(p, stack, 64);
	int first = -1;
	*named = PL_NO_ID;
	for (guint i = 0; i < fs->len; i++) {
		guint32 f = g_array_index(fs, guint32, i);
		gpointer v;
		int k;
		if (g_hash_table_lookup_extended(memo, GUINT_TO_POINTER(f), NULL, &v)) {
			k = GPOINTER_TO_INT(v);
		} else {
			k = classify_name(pl_profile_get_function_label(p, f));
			g_hash_table_insert(memo, GUINT_TO_POINTER(f), GINT_TO_POINTER(k));
		}
		if (k == WAIT_JOIN) {
			*named = f;
			return WAIT_JOIN;
		}
		if (k >= 0 && first < 0) {
			first = k;
			*named = f;
		}
	}
	return first >= 0 ? (WaitKind)first : WAIT_OTHER;
}

/* The time every thread was seen, on or off a CPU: what the wait shares
 * of the off-CPU and runqueue rules are of. */
static guint64 threads_lifetime(PlProfile *p)
{
	guint64 ns = 0;
	GPtrArray *threads = pl_profile_get_threads(p);
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *t = threads->pdata[i];
		ns += t->on_cpu_ns + t->off_cpu_ns;
	}
	return ns;
}

/* A futex wait during which another thread of its process exited is a
 * join: the kernel wakes pthread_join's waiter when the thread it waits
 * for clears its tid at exit.  Frame-pointer chains lose pthread_join
 * itself (libc has no frame pointers: the chain reads
 * __futex_abstimed_wait_common64 < main), so the exits tell it instead.
 * The wait's end is when the waiter ran again, which on a busy machine is
 * any time after the wake: only the exit inside the wait is asked for. */

/* pid -> the sorted exit times of its threads that exited */
static GHashTable *exits_by_pid(PlProfile *p)
{
	GHashTable *h = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
	GPtrArray *threads = pl_profile_get_threads(p);
	for (guint i = 0; i < threads->len; i++) {
		const PlThread *t = threads->pdata[i];
		if (!t->exited || !t->end || t->tid == t->pid)
			continue;
		GArray *a = g_hash_table_lookup(h, GUINT_TO_POINTER(t->pid));
		if (!a) {
			a = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(h, GUINT_TO_POINTER(t->pid), a);
		}
		g_array_append_val(a, t->end);
	}
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, h);
	while (g_hash_table_iter_next(&it, &k, &v))
		g_array_sort(v, pl_cmp_u64);
	return h;
}

/* Whether one of the process's other threads exited during the wait of
 * thread t from `from` to `woke`. */
static gboolean woke_by_exit(GHashTable *exits, const PlThread *t, guint64 from, guint64 woke)
{
	GArray *a = t ? g_hash_table_lookup(exits, GUINT_TO_POINTER(t->pid)) : NULL;
	if (!a)
		return FALSE;
	guint lo = 0, hi = a->len; /* the first exit after woke */
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (g_array_index(a, guint64, mid) <= woke)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && g_array_index(a, guint64, lo - 1) >= from;
}

static void rule_off_cpu(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	if (!st->switches)
		return;
	PlSwitchStats all;
	pl_profile_switch_stats(p, 0, 0, 0, &all);
	guint64 lifetime = threads_lifetime(p);
	if (!lifetime)
		return;
	/* the voluntary waits, told apart by the stacks of the context-switch
	 * samples (each weighs the time its thread then stayed off-CPU) */
	guint64 ns[N_WAITS] = { 0 };
	g_autoptr(GHashTable) memo = g_hash_table_new(NULL, NULL);
	g_autoptr(GHashTable) by_func = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	g_autoptr(GHashTable) exits = exits_by_pid(p);
	guint n;
	const PlSample *s = pl_profile_get_samples(p, &n);
	const PlSampleCtx *s_cx = pl_profile_get_sample_ctx(p);
	for (guint i = 0; i < n; i++) {
		guint64 weight = pl_sample_weight(s_cx, &s[i]);
		if (!weight || s[i].stack == PL_NO_ID)
			continue;
		const PlEvent *e = pl_profile_lookup_event(p, pl_profile_get_stack_event(p, s[i].stack));
		if (!e || e->role != PL_ROLE_SWITCH)
			continue;
		guint32 f;
		WaitKind k = classify_stack(p, s[i].stack, memo, &f);
		if (k == WAIT_OTHER)
			continue;
		if (k == WAIT_LOCK &&
		    woke_by_exit(exits, pl_profile_lookup_thread(p, pl_sample_tid(s_cx, &s[i])),
				 s[i].time, s[i].time + weight))
			k = WAIT_JOIN;
		ns[k] += weight;
		guint64 *w = g_hash_table_lookup(by_func, GUINT_TO_POINTER(f));
		if (!w) {
			w = g_new0(guint64, 2);
			g_hash_table_insert(by_func, GUINT_TO_POINTER(f), w);
		}
		w[0] += weight;
		w[1] = k;
	}
	ns[WAIT_PREEMPT] = all.preempted_ns;
	guint64 named = ns[WAIT_LOCK] + ns[WAIT_IO] + ns[WAIT_SLEEP] + ns[WAIT_JOIN];
	ns[WAIT_OTHER] = all.voluntary_ns > named ? all.voluntary_ns - named : 0;
	guint64 bad = ns[WAIT_LOCK] + ns[WAIT_IO] + ns[WAIT_PREEMPT];
	double share = pl_percent(bad, lifetime);
	if (share < OFFCPU_SHARE || bad < OFFCPU_MIN_NS)
		return;
	WaitKind big = WAIT_LOCK;
	for (guint k = 0; k < N_WAITS; k++)
		if (ns[k] > ns[big])
			big = (WaitKind)k;
	/* the function the largest named wait is in */
	guint32 top = PL_NO_ID;
	guint64 top_w = 0;
	GHashTableIter it;
	gpointer key, val;
	g_hash_table_iter_init(&it, by_func);
	while (g_hash_table_iter_next(&it, &key, &val)) {
		const guint64 *w = val;
		if (w[1] == (guint64)big && w[0] > top_w) {
			top_w = w[0];
			top = GPOINTER_TO_UINT(key);
		}
	}
	GString *d = g_string_new(NULL);
	for (guint k = 0; k < N_WAITS; k++)
		g_string_append_printf(d, "%s%s\t%.1f ms\t%.2f%% of thread time", k ? "\n" : "",
				       wait_names[k], ns[k] / 1e6, pl_percent(ns[k], lifetime));
	char *what = g_strdup_printf(
		"threads spent %.1f ms (%.1f%% of their %.1f ms) in lock waits, I/O or "
		"preemption; off-CPU the largest is %s, %.1f ms (%.1f%%)%s%s",
		bad / 1e6, share, lifetime / 1e6, wait_names[big], ns[big] / 1e6,
		pl_percent(ns[big], lifetime), top != PL_NO_ID ? ", in " : "",
		top != PL_NO_ID ? pl_profile_get_function_label(p, top) : "");
	pl_findings_add(out, "off-cpu", share, what, g_string_free(d, FALSE),
	    "report: Off-CPU and Switches (--event of the switches for their stacks)");
}

/* ─── runqueue: threads kept waiting for a CPU ─────────────────────── */

#define RQ_P99_NS 5000000 /* the 99th percentile of runqueue waits at least 5 ms… */
#define RQ_SHARE 10.0      /* …and waiting at least 10 % of the threads' time… */
#define RQ_MIN 20          /* …over at least 20 preemptions */
#define RQ_LIST 5          /* threads listed, worst first */

typedef struct {
	const PlThread *t;
	PlSwitchStats s;
} RqRow;

static int cmp_rq(gconstpointer a, gconstpointer b)
{
	const RqRow *x = a, *y = b;
	return x->s.preempted_ns < y->s.preempted_ns ? 1 : x->s.preempted_ns > y->s.preempted_ns ? -1 : 0;
}

static void rule_runqueue(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	if (!st->switches)
		return;
	PlSwitchStats all;
	pl_profile_switch_stats(p, 0, 0, 0, &all);
	guint64 lifetime = threads_lifetime(p);
	g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(RqRow));
	GPtrArray *threads = pl_profile_get_threads(p);
	for (guint i = 0; i < threads->len; i++) {
		RqRow r = { .t = threads->pdata[i] };
		pl_profile_switch_stats(p, r.t->tid, 0, 0, &r.s);
		if (r.s.preempted)
			g_array_append_val(rows, r);
	}
	double share = pl_percent(all.preempted_ns, lifetime);
	if (all.preempted < RQ_MIN || all.rq_p99 < RQ_P99_NS || share < RQ_SHARE)
		return;
	g_array_sort(rows, cmp_rq);
	GString *d = g_string_new(NULL);
	for (guint i = 0; i < rows->len && i < RQ_LIST; i++) {
		const RqRow *r = &g_array_index(rows, RqRow, i);
		g_string_append_printf(d, "%sthread %u %s: waited %.1f ms over %" G_GUINT64_FORMAT
				       " preemptions, mean %.3f ms, p99 %.3f ms, max %.3f ms",
				       i ? "\n" : "", r->t->tid, tname(r->t), r->s.preempted_ns / 1e6,
				       r->s.preempted, r->s.preempted_ns / 1e6 / (double)r->s.preempted,
				       r->s.rq_p99 / 1e6, r->s.rq_max / 1e6);
	}
	if (rows->len > RQ_LIST)
		g_string_append_printf(d, "\n… %u more threads (report: Switches)", rows->len - RQ_LIST);
	g_string_append(d, "\nmore runnable threads than CPUs: fewer threads, priorities, or "
			   "CPU affinity (another program may be the one taking the CPUs)");
	char *what = g_strdup_printf(
		"threads waited %.1f ms for a CPU after %" G_GUINT64_FORMAT " preemptions "
		"(%.1f%% of their %.1f ms); runqueue latency p50 %.3f ms, p99 %.3f ms, max %.3f ms",
		all.preempted_ns / 1e6, all.preempted, share, lifetime / 1e6, all.rq_p50 / 1e6,
		all.rq_p99 / 1e6, all.rq_max / 1e6);
	PlFinding *f = pl_findings_add(out, "runqueue", all.rq_p99 / 1e6, what, g_string_free(d, FALSE),
			   "report: Switches (runqueue latency per thread)");
	f->view = "counters";
}

/* ─── page-faults: a page-fault storm ──────────────────────────────── */

#define PF_MIN 20000      /* at least 20,000 page faults… */
#define PF_RATE 50000.0   /* …and at least 50,000 per second of CPU time (task-clock) */

/* A counter's last value by event name, scaled for multiplexing as perf
 * stat does; FALSE when the recording has no such counter. */
static gboolean counter_value(PlProfile *p, const char *name, double *v)
{
	g_autoptr(GArray) evs = pl_profile_dup_counter_events(p);
	for (guint i = 0; i < evs->len; i++) {
		guint32 e = g_array_index(evs, guint32, i);
		const PlEvent *ev = pl_profile_lookup_event(p, e);
		GArray *pts = pl_profile_get_counter(p, e);
		if (!ev || strcmp(ev->name, name) || !pts || !pts->len)
			continue;
		const PlCounterPoint *last = &g_array_index(pts, PlCounterPoint, pts->len - 1);
		*v = (double)last->value;
		if (last->running_ns && last->enabled_ns > last->running_ns)
			*v = *v * last->enabled_ns / last->running_ns;
		return TRUE;
	}
	return FALSE;
}

static void rule_page_faults(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	double faults, cpu_ns;
	if (!counter_value(p, "page-faults", &faults) || !counter_value(p, "task-clock", &cpu_ns) ||
	    cpu_ns <= 0)
		return;
	double rate = faults / (cpu_ns / 1e9);
	if (faults < PF_MIN || rate < PF_RATE)
		return;
	char *what = g_strdup_printf("%.0f page faults in %.1f ms of CPU time: %.0f per CPU second",
				     faults, cpu_ns / 1e6, rate);
	char *detail = g_strdup("memory touched for the first time (or again after being given "
				"back) faults page by page: reuse buffers instead of allocating "
				"anew, prefault (MAP_POPULATE, memset once), or use huge pages; "
				"record with --event page-faults for the stacks that fault");
	pl_findings_add(out, "page-faults", rate, what, detail, "report: Counters (page-faults, task-clock)")
		->view = "counters";
}

/* ─── unwound: stacks that stop short in a module ───────────────────── */

#define UNWOUND_SHARE 99.0  /* fires below this share of rooted stacks… */
#define UNWOUND_MODULE 1.0  /* …for each module holding at least 1 % of them */
#define UNWOUND_MIN 20      /* and at least 20 samples: a handful says nothing */

static void rule_unwound(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	if (!st->unwind_user_samples)
		return;
	/* the share --fail-if 'unwound<N%' judges: a thread's start without
	 * a name counts as reached (PlUnwindModule.at_start) */
	double share = pl_profile_get_unwound_share(p);
	if (share >= UNWOUND_SHARE)
		return;
	g_autoptr(GArray) rows = pl_profile_dup_unwind_stops(p);
	for (guint i = 0; i < rows->len; i++) {
		const PlUnwindModule *r = &g_array_index(rows, PlUnwindModule, i);
		double m = pl_percent(r->stopped, st->unwind_user_samples);
		if (m < UNWOUND_MODULE || r->stopped < UNWOUND_MIN)
			continue;
		char *what = g_strdup_printf(
			"%.2f%% of stacks are unwound to their start; %" G_GUINT64_FORMAT
			" (%.2f%%) of the %" G_GUINT64_FORMAT " with user frames stop short in %s",
			share, r->stopped, m, st->unwind_user_samples, r->module);
		GString *d = g_string_new(NULL);
		g_string_append_printf(d, "reason: %s", pl_unwind_stop_describe(r->main_stop));
		if (r->at_start && r->start_threads)
			g_string_append_printf(d, "\nnot counted: %" G_GUINT64_FORMAT " stacks of %u "
					       "thread%s that each end at one return address in %s, "
					       "their thread's start",
					       r->at_start, r->start_threads,
					       r->start_threads == 1 ? "" : "s", r->module);
		else if (r->at_start)
			g_string_append_printf(d, "\nnot counted: %" G_GUINT64_FORMAT " stacks of the "
					       "start-up of %u process%s in %s, before main",
					       r->at_start, r->start_processes,
					       r->start_processes == 1 ? "" : "es", r->module);
		PlFinding *f = pl_findings_add(out, "unwound", m, what, g_string_free(d, FALSE),
				   "report: Where stacks stop short, Symbol coverage");
		f->severity = PL_FINDING_INFO;
		f->view = "symbols";
	}
}

/* ─── periods: periodic tasks missing deadlines or jittering ───────── */

#define PERIOD_MISS_SHARE 1.0    /* misses in at least 1 % of the activations… */
#define PERIOD_MISS_MIN 2        /* …and at least 2 of them, */
#define PERIOD_JITTER_SHARE 25.0 /* or the 99th percentile of release jitter at
				  * least 25 % of the period */
#define PERIOD_PHASE_SHARE 10.0  /* of a task that holds its phase: the median
				  * release jitter under 10 % of the period */

static void rule_periods(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	g_autoptr(GPtrArray) tasks = pl_periods_find(p, 0);
	guint64 t0 = pl_profile_get_stats(p)->first_time;
	for (guint i = 0; i < tasks->len; i++) {
		const PlPeriodicTask *t = tasks->pdata[i];
		guint n = t->acts->len;
		double miss = pl_percent(t->misses, n);
		double jit = pl_percent(t->jitter_p99, t->period_ns);
		gboolean misses = t->misses >= PERIOD_MISS_MIN && miss >= PERIOD_MISS_SHARE;
		gboolean jitters = jit >= PERIOD_JITTER_SHARE;
		/* deadlines are a task's that keeps a grid: one whose typical
		 * start wanders far from it (a kernel thread's timeouts, a
		 * poll loop that sleeps after its work) has regular intervals
		 * but no releases to be late for */
		gboolean phased = pl_percent(t->jitter_p50, t->period_ns) < PERIOD_PHASE_SHARE;
		if ((!misses && !jitters) || !phased)
			continue;
		g_autofree char *who =
			t->marker ? g_strdup_printf("markers '%s' on thread %u %s", t->marker, t->tid,
						    t->thread)
				  : g_strdup_printf("thread %u %s", t->tid, t->thread);
		/* the latest miss, or else the most jittered activation */
		const PlActivation *w = NULL;
		for (guint k = 0; k < n; k++) {
			const PlActivation *a = &g_array_index(t->acts, PlActivation, k);
			if (!w || (misses ? a->lateness_ns > w->lateness_ns : a->jitter_ns > w->jitter_ns))
				w = a;
		}
		char *what = g_strdup_printf(
			"%s runs every %.3f ms: %u of %u activations (%.1f%%) missed their deadline; "
			"release jitter p99 %.3f ms (%.1f%% of the period), max %.3f ms",
			who, t->period_ns / 1e6, t->misses, n, miss, t->jitter_p99 / 1e6, jit,
			t->jitter_max / 1e6);
		char *detail = g_strdup_printf(
			"execution p50 %.3f ms, p99 %.3f ms, max %.3f ms; %u activations preempted\n"
			"the worst at %.6f s: jitter %.3f ms, execution %.3f ms, ends %.3f ms %s its "
			"deadline (report --from %.4f --to %.4f)\n"
			"a miss comes from work longer than the period, a late wake-up (jitter) or "
			"preemption: compare the worst activations' execution with the period",
			t->exec_p50 / 1e6, t->exec_p99 / 1e6, t->exec_max / 1e6, t->preempted_acts,
			(w->start - MIN(w->start, t0)) / 1e9, w->jitter_ns / 1e6, w->exec_ns / 1e6,
			(w->lateness_ns < 0 ? -w->lateness_ns : w->lateness_ns) / 1e6,
			w->lateness_ns > 0 ? "after" : "before",
			(w->start - MIN(w->start, t0)) / 1e9 - 5e-5, (w->end - MIN(w->end, t0)) / 1e9 + 5e-5);
		PlFinding *f = pl_findings_add(out, "periods", misses ? miss : jit, what, detail, "report --periods");
		/* the worst activation on the flame graph: its stacks */
		f->tid = t->tid;
		f->t0 = w->start;
		f->t1 = w->end + 1;
	}
}

/* ─── migrations: threads moved between CPUs ───────────────────────── */

#define MIGR_MIN 1000     /* at least 1,000 migrations… */
#define MIGR_RATE 1000.0  /* …and at least 1,000 per second of CPU time (task-clock) */

static void rule_migrations(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	double migr, cpu_ns, cs = 0;
	if (!counter_value(p, "cpu-migrations", &migr) || !counter_value(p, "task-clock", &cpu_ns) ||
	    cpu_ns <= 0)
		return;
	double rate = migr / (cpu_ns / 1e9);
	if (migr < MIGR_MIN || rate < MIGR_RATE)
		return;
	GString *d = g_string_new(NULL);
	if (counter_value(p, "context-switches", &cs) && cs > 0)
		g_string_append_printf(d, "%.0f context switches: %.1f%% of them moved the thread\n",
				       cs, 100.0 * migr / cs);
	g_string_append(d, "a thread moved to another CPU leaves its caches behind; many come "
			   "from threads that wake often on a busy machine, from sched_setaffinity "
			   "calls, or from a load balancer fighting pinned threads: pin the hot "
			   "threads (taskset, sched_setaffinity) or wake fewer threads");
	char *what = g_strdup_printf("%.0f CPU migrations in %.1f ms of CPU time: %.0f per CPU "
				     "second",
				     migr, cpu_ns / 1e6, rate);
	pl_findings_add(out, "migrations", rate, what, g_string_free(d, FALSE),
	    "report: Counters (cpu-migrations, task-clock)")
		->view = "counters";
}

/* ─── regression: what grew against a baseline recording ───────────── */

#define REG_POINTS 1.0 /* a function's self share grew by at least 1 percentage point… */
#define REG_Z 3.0      /* …and a two-proportion z-test on the sample counts says at least
			* 3 standard errors (about 99.9 % confidence, one-sided) */
#define REG_LIST 10    /* functions listed */

typedef struct {
	const PlDiffFunction *f;
	double z;
} RegRow;

static int cmp_reg(gconstpointer a, gconstpointer b)
{
	const RegRow *x = a, *y = b;
	double dx = x->f->self_b - x->f->self_a, dy = y->f->self_b - y->f->self_a;
	return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static void rule_regression(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	if (!baseline)
		return;
	PlFilter fa = { 0, pl_profile_get_main_event(baseline), 0, 0 };
	PlFilter fb = { 0, pl_profile_get_main_event(p), 0, 0 };
	if (fa.event == PL_NO_ID || fb.event == PL_NO_ID)
		return;
	g_autoptr(PlAggregate) a = pl_profile_aggregate(baseline, &fa);
	g_autoptr(PlAggregate) b = pl_profile_aggregate(p, &fb);
	g_autoptr(PlDiff) d = pl_diff_new(a, b);
	double na = (double)d->all_a.samples, nb = (double)d->all_b.samples;
	if (na < 1 || nb < 1)
		return;
	g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(RegRow));
	for (guint i = 0; i < d->functions->len; i++) {
		const PlDiffFunction *f = &g_array_index(d->functions, PlDiffFunction, i);
		double grew = 100.0 * (f->self_b - f->self_a);
		if (grew < REG_POINTS)
			continue;
		/* the shares as proportions of each side's samples */
		double pool = (f->self_a * na + f->self_b * nb) / (na + nb);
		double se = sqrt(pool * (1 - pool) * (1 / na + 1 / nb));
		double z = se > 0 ? (f->self_b - f->self_a) / se : 0;
		if (z < REG_Z)
			continue;
		RegRow r = { f, z };
		g_array_append_val(rows, r);
	}
	if (!rows->len)
		return;
	g_array_sort(rows, cmp_reg);
	GString *det = g_string_new(NULL);
	for (guint i = 0; i < rows->len && i < REG_LIST; i++) {
		const RegRow *r = &g_array_index(rows, RegRow, i);
		g_string_append_printf(det, "%s%s (%s): self %.2f%% → %.2f%% (+%.2f points, z %.1f)",
				       i ? "\n" : "", r->f->name, r->f->module ? r->f->module : "?",
				       100 * r->f->self_a, 100 * r->f->self_b,
				       100 * (r->f->self_b - r->f->self_a), r->z);
	}
	if (rows->len > REG_LIST)
		g_string_append_printf(det, "\n… %u more (perflens diff BASELINE FILE)",
				       rows->len - REG_LIST);
	const RegRow *top = &g_array_index(rows, RegRow, 0);
	char *what = g_strdup_printf(
		"%u function%s grew against the baseline (%.0f samples there, %.0f here); the most, "
		"%s: self %.2f%% → %.2f%% of the samples, +%.2f points (z %.1f)",
		rows->len, rows->len == 1 ? "" : "s", na, nb, top->f->name, 100 * top->f->self_a,
		100 * top->f->self_b, 100 * (top->f->self_b - top->f->self_a), top->z);
	PlFinding *f = pl_findings_add(out, "regression", 100 * (top->f->self_b - top->f->self_a), what,
			   g_string_free(det, FALSE), "perflens diff BASELINE FILE");
	f->view = "functions";
}

/* ─── the table ─────────────────────────────────────────────────────── */

static const PlFindingRule rules[] = {
	{ "lost", "samples lost or throttled",
	  "any LOST record (kernel ring, lost samples, network backpressure, oversize, malformed) "
	  "or any throttle mark, or the agent's HEALTH reports counting either",
	  rule_lost },
	{ "cpu-hog", "a thread that held a CPU all the time",
	  "a thread seen for at least 0.5 s through switch records was on-CPU or runnable "
	  "(preempted) at least 95 % of that time",
	  rule_cpu_hog },
	{ "off-cpu", "off-CPU time by reason: lock waits, I/O, sleep, thread joins, preemption",
	  "lock waits (futex), I/O and preemption together are at least 10 % of the threads' "
	  "time and at least 50 ms (sleep and joins never fire: the program asked for them)",
	  rule_off_cpu },
	{ "runqueue", "runqueue latency storms: runnable threads kept waiting for a CPU",
	  "at least 20 preemptions, the 99th percentile of the waits from a preemption to "
	  "running again at least 5 ms, and those waits at least 10 % of the threads' time",
	  rule_runqueue },
	{ "page-faults", "a page-fault storm",
	  "the page-faults counter is at least 20,000 and at least 50,000 per second of the "
	  "task-clock counter's CPU time (recordings with counters)",
	  rule_page_faults },
	{ "unwound", "stacks unwound below 99 % in a module",
	  "less than 99 % of the samples with user frames reach their program's or thread's "
	  "start, for each module where at least 1 % of them (and at least 20) stop short; "
	  "starts no name marks are reached, as in --fail-if 'unwound<N%': a thread's (not a "
	  "main thread's) stacks that end at one return address in libc where no function is "
	  "named, when at least 90 % of them and 10 do, and a process's start-up in a "
	  "stripped loader (its main thread's stacks there before its first elsewhere)",
	  rule_unwound },
	{ "periods", "periodic tasks missing deadlines or with jitter over a share of the period",
	  "a periodic task (report --periods: detected, at least 8 activations) that holds its "
	  "phase (median release jitter under 10 % of the period) and whose "
	  "activations missed their deadline (the next release) in at least 1 % of them and "
	  "at least twice, or whose release jitter's 99th percentile is at least 25 % of the "
	  "period",
	  rule_periods },
	{ "migrations", "CPU migrations storm",
	  "the cpu-migrations counter is at least 1,000 and at least 1,000 per second of the "
	  "task-clock counter's CPU time (recordings with counters)",
	  rule_migrations },
	{ "irq", "an IRQ handler or softirq vector taking a share of a CPU",
	  "in a recording with the irq tracepoints (record --irq; --all for every interrupt) "
	  "of at least 0.1 s: one IRQ handler or softirq vector ran at least 5 % of one "
	  "CPU's time",
	  pl_findings_rule_irq },
	{ "cpufreq", "CPU frequency capped or throttled during the busy time",
	  "in a recording with counter tracks (--tracks, on by default) holding a cpufreq "
	  "policy's scaling_cur_freq and cpuinfo_max_freq: over the poll intervals in which one "
	  "of the policy's CPUs was at least 90 % busy (/proc/stat), at least 0.2 s of CPU time "
	  "in all, the frequency was more than 20 % below cpuinfo_max_freq for at least 25 % of "
	  "that busy time; the likely cause it names: thermal when a thermal zone read at least "
	  "5 °C more then than outside that time, a lowered limit when scaling_max_freq was "
	  "itself that far below the maximum for at least half of it, else the governor",
	  pl_findings_rule_cpufreq },
	{ "regression", "functions that grew against a baseline recording (--baseline)",
	  "with --baseline FILE: a function's self share of the samples grew by at least 1 "
	  "percentage point and a two-proportion z-test on the two sample counts gives at "
	  "least 3 (about 99.9 % one-sided confidence)",
	  rule_regression },
};

const PlFindingRule *pl_findings_rules(guint *n)
{
	*n = G_N_ELEMENTS(rules);
	return rules;
}

const PlFindingRule *pl_findings_lookup(const char *id)
{
	for (guint i = 0; i < G_N_ELEMENTS(rules); i++)
		if (!strcmp(rules[i].id, id))
			return &rules[i];
	return NULL;
}

char *pl_findings_dup_rule_list(void)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < G_N_ELEMENTS(rules); i++)
		g_string_append_printf(s, "%s%s", i ? ", " : "", rules[i].id);
	return g_string_free(s, FALSE);
}

GPtrArray *pl_findings_run_with(PlProfile *p, PlProfile *baseline)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(finding_free);
	for (guint i = 0; i < G_N_ELEMENTS(rules); i++)
		rules[i].run(p, baseline, out);
	return out;
}

GPtrArray *pl_findings_run(PlProfile *p)
{
	return pl_findings_run_with(p, NULL);
}
