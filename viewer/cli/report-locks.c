/* report-locks.c — perflens report --locks: lock contention from a
 * `--locks` recording (viewer/model/pl-locks.h): the locks by time waited,
 * and for each its waiters, who held it (the wait time charged to the
 * wake calls that released it, with the waker's stack), the waiters'
 * stacks and a wait-time histogram. */
#include <stdio.h>
#include <string.h>

#include "pl-locks.h"
#include "report.h"

static const char *thread_name(PlProfile *p, guint32 tid)
{
	PlThread *t = tid ? pl_profile_lookup_thread(p, tid) : NULL;
	return t && t->name ? t->name : "?";
}

/* "leaf < caller < …", innermost first, at most max frames */
static char *stack_text(PlProfile *p, PlFunctionNames *fn, guint32 stack, guint max)
{
	if (stack == PL_NO_ID)
		return g_strdup("no stack");
	GString *s = g_string_new(NULL);
	guint32 node = pl_profile_get_stack_node(p, stack);
	for (guint f = 0; f < max && node != 0 && node != PL_NO_ID; f++) {
		const PlNode *n = pl_profile_get_node(p, node);
		g_string_append_printf(s, "%s%s", f ? " < " : "", pl_function_names_get(fn, n->func));
		node = n->parent;
	}
	return g_string_free(s, FALSE);
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
	guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
	return x < y ? -1 : x > y;
}

typedef struct {
	guint32 stack;
	guint waits;
	guint64 ns;
} StackRow;

static gint stack_row_cmp(gconstpointer a, gconstpointer b)
{
	const StackRow *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static void print_lock(PlProfile *p, PlFunctionNames *fn, const PlLocks *l, guint index, guint top)
{
	const PlLock *k = &g_array_index(l->locks, PlLock, index);
	g_autofree char *label = pl_lock_dup_label(k);
	printf("\nLock %s%s%s, process %u: %u waits (%u slept), %.3f ms waited, max %.3f ms, "
	       "%u wake calls on it\n",
	       label, k->module ? " in " : "", k->module ? k->module : "", k->pid, k->waits,
	       k->slept, k->total_ns / 1e6, k->max_ns / 1e6, k->wake_calls);

	printf("  Waiters:\n  %10s  %-16s %7s %12s\n", "TID", "Thread", "Waits", "Total ms");
	g_autoptr(GHashTable) per_tid = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < l->waits->len; i++) {
		const PlLockWait *w = &g_array_index(l->waits, PlLockWait, i);
		if (w->lock == index) {
			gpointer c = g_hash_table_lookup(per_tid, GUINT_TO_POINTER(w->tid));
			g_hash_table_insert(per_tid, GUINT_TO_POINTER(w->tid),
					    GUINT_TO_POINTER(GPOINTER_TO_UINT(c) + 1));
		}
	}
	for (guint i = 0; i < k->waiters->len; i++) {
		const PlLockHolder *h = &g_array_index(k->waiters, PlLockHolder, i);
		printf("  %10u  %-16.16s %7u %12.3f\n", h->tid, thread_name(p, h->tid),
		       GPOINTER_TO_UINT(g_hash_table_lookup(per_tid, GUINT_TO_POINTER(h->tid))),
		       h->ns / 1e6);
	}

	printf("  Held by (the wait time up to each wake call on it, charged to the waker; "
	       "stack at the wake, innermost first):\n  %12s %7s %10s  %-16s %s\n", "Total ms",
	       "Wakes", "TID", "Thread", "Stack");
	for (guint i = 0; i < k->holders->len && i < top; i++) {
		const PlLockHolder *h = &g_array_index(k->holders, PlLockHolder, i);
		g_autofree char *st = stack_text(p, fn, h->stack, 32);
		if (!h->tid)
			printf("  %12.3f %7u %10s  %-16s [no wake call seen in the wait]\n",
			       h->ns / 1e6, h->wakes, "-", "-");
		else
			printf("  %12.3f %7u %10u  %-16.16s [%s]\n", h->ns / 1e6, h->wakes, h->tid,
			       thread_name(p, h->tid), st);
	}

	/* the waiters' stacks at entry */
	g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(StackRow));
	g_autoptr(GHashTable) row_of = g_hash_table_new(NULL, NULL);
	g_autoptr(GArray) d = g_array_new(FALSE, FALSE, sizeof(guint64));
	for (guint i = 0; i < l->waits->len; i++) {
		const PlLockWait *w = &g_array_index(l->waits, PlLockWait, i);
		if (w->lock != index)
			continue;
		guint64 ns = w->end - w->start;
		g_array_append_val(d, ns);
		gpointer v;
		if (!g_hash_table_lookup_extended(row_of, GUINT_TO_POINTER(w->stack), NULL, &v)) {
			StackRow r = { w->stack, 0, 0 };
			g_array_append_val(rows, r);
			v = GUINT_TO_POINTER(rows->len - 1);
			g_hash_table_insert(row_of, GUINT_TO_POINTER(w->stack), v);
		}
		StackRow *r = &g_array_index(rows, StackRow, GPOINTER_TO_UINT(v));
		r->waits++;
		r->ns += ns;
	}
	g_array_sort(rows, stack_row_cmp);
	printf("  Waits by the waiter's stack (at entry, innermost first):\n  %12s %7s  %s\n",
	       "Total ms", "Waits", "Stack");
	for (guint i = 0; i < rows->len && i < top; i++) {
		const StackRow *r = &g_array_index(rows, StackRow, i);
		g_autofree char *st = stack_text(p, fn, r->stack, 32);
		printf("  %12.3f %7u  [%s]\n", r->ns / 1e6, r->waits, st);
	}

	g_array_sort(d, cmp_u64);
	const guint64 *x = (const guint64 *)(gpointer)d->data;
	printf("  Wait time: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms; histogram:\n",
	       pl_percentile(x, d->len, 50) / 1e6, pl_percentile(x, d->len, 90) / 1e6,
	       pl_percentile(x, d->len, 99) / 1e6);
	guint lo = PL_LOCK_HIST, hi = 0, most = 0;
	for (guint b = 0; b < PL_LOCK_HIST; b++)
		if (k->hist[b]) {
			lo = MIN(lo, b);
			hi = MAX(hi, b);
			most = MAX(most, k->hist[b]);
		}
	for (guint b = lo; b <= hi && b < PL_LOCK_HIST; b++)
		printf("  %12.6f - %12.6f ms %7u  %.*s\n", (double)(1ull << b) / 1e6,
		       (double)(2ull << b) / 1e6, k->hist[b], (int)(k->hist[b] * 40 / most),
		       "########################################");
}

void pl_report_print_locks(PlProfile *p, guint top, const PlFilter *filter)
{
	g_autoptr(PlLocks) l = pl_locks_new_filtered(p, filter);
	if (!l->recorded) {
		printf("\nLock contention: this recording has no futex events (record with "
		       "--locks, or the Record form's \"Lock contention\")\n");
		return;
	}
	guint64 total = 0;
	guint slept = 0;
	for (guint i = 0; i < l->locks->len; i++) {
		const PlLock *k = &g_array_index(l->locks, PlLock, i);
		total += k->total_ns;
		slept += k->slept;
	}
	if (filter && filter->tid)
		printf("\nLocks filter: the waits of thread %u only (--tid)", filter->tid);
	if (filter && (filter->t0 || filter->t1)) {
		guint64 first = pl_profile_get_stats(p)->first_time;
		printf("\nLocks filter: the waits entered from %.3f s to %.3f s after the first "
		       "record only (--from, --to)",
		       (filter->t0 ? filter->t0 - first : 0) / 1e9,
		       (filter->t1 ? filter->t1 - first
				   : pl_profile_get_stats(p)->last_time - first) / 1e9);
	}
	printf("\nLock contention: %u locks, %u futex waits (%u slept), %.3f ms waited in all "
	       "(%" G_GUINT64_FORMAT " futex events; %u waits still open at the end, %u exits "
	       "of calls begun before the recording)\n",
	       l->locks->len, l->waits->len, slept, total / 1e6, l->futex_events, l->unended,
	       l->orphan_exits);
	if (!l->locks->len)
		return;
	g_autoptr(PlFunctionNames) fn = pl_function_names_new(p, NULL);
	printf("\nBy lock (most time waited first):\n  %-40s %8s %7s %7s %11s %10s %7s\n", "Lock",
	       "PID", "Waits", "Slept", "Total ms", "Max ms", "Wakes");
	for (guint i = 0; i < l->locks->len && i < top; i++) {
		const PlLock *k = &g_array_index(l->locks, PlLock, i);
		g_autofree char *label = pl_lock_dup_label(k);
		printf("  %-40s %8u %7u %7u %11.3f %10.3f %7u\n", label, k->pid, k->waits, k->slept,
		       k->total_ns / 1e6, k->max_ns / 1e6, k->wake_calls);
	}
	for (guint i = 0; i < l->locks->len && i < top; i++)
		print_lock(p, fn, l, i, top);
}
