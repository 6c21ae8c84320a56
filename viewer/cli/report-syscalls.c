/* report-syscalls.c — perflens report --syscalls: the slow
 * system calls an agent timed (`--syscalls … --slower-than …`) by system
 * call, by call site (the stacks at entry, folded, weighed by the time
 * blocked), as a latency histogram, and the slowest with their stacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pl-syscalls.h"
#include "pl-tracepoint.h"
#include "report.h"

static const char *call_name(PlProfile *p, guint64 nr, char *buf, gsize len)
{
	const char *n = pl_syscall_name(pl_profile_get_e_machine(p), nr);
	if (n)
		return n;
	g_snprintf(buf, len, "syscall %" G_GUINT64_FORMAT, nr);
	return buf;
}

static gint cmp_u64(gconstpointer a, gconstpointer b)
{
	guint64 x = *(const guint64 *)a, y = *(const guint64 *)b;
	return x < y ? -1 : x > y;
}

/* "outer;…;inner" for a stack, callers first (flamegraph.pl's folded) */
static char *folded(PlProfile *p, PlFunctionNames *fn, guint32 stack)
{
	GPtrArray *names = g_ptr_array_new();
	guint32 node = pl_profile_get_stack_node(p, stack);
	for (guint i = 0; i < 256 && node != 0 && node != PL_NO_ID; i++) {
		const PlNode *n = pl_profile_get_node(p, node);
		g_ptr_array_add(names, (gpointer)pl_function_names_get(fn, n->func));
		node = n->parent;
	}
	GString *s = g_string_new(NULL);
	for (guint i = names->len; i-- > 0;)
		g_string_append_printf(s, "%s%s", s->len ? ";" : "", (const char *)names->pdata[i]);
	g_ptr_array_free(names, TRUE);
	return g_string_free(s, FALSE);
}

typedef struct {
	guint64 total;
	guint count;
	char *name;
} Row;

static gint row_cmp(gconstpointer a, gconstpointer b)
{
	const Row *x = *(Row *const *)a, *y = *(Row *const *)b;
	return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp(x->name, y->name);
}

static void row_free(gpointer r)
{
	g_free(((Row *)r)->name);
	g_free(r);
}

static gint slow_cmp(gconstpointer a, gconstpointer b)
{
	const PlSlowCall *x = a, *y = b;
	return x->duration_ns < y->duration_ns ? 1 : x->duration_ns > y->duration_ns ? -1 : 0;
}

void pl_report_print_syscalls(PlProfile *p, guint top)
{
	g_autoptr(GArray) calls = pl_slow_calls_new(p);
	const PlProfileStats *st = pl_profile_get_stats(p);
	printf("\nSlow system calls: %u", calls->len);
	/* the agent's counts (msg.h, PL_SLOW_SYSCALLS_NOTE) */
	const char *note = NULL;
	for (guint i = 0; i < st->log->len; i++)
		if ((note = strstr(st->log->pdata[i], PL_SLOW_SYSCALLS_NOTE)))
			break;
	if (note) {
		guint64 timed = 0, slow = 0, full = 0, noexit = 0, noentry = 0;
		sscanf(note + strlen(PL_SLOW_SYSCALLS_NOTE),
		       "timed %" G_GUINT64_FORMAT ", slow %" G_GUINT64_FORMAT ", untimed %"
		       G_GUINT64_FORMAT " (table full), no exit %" G_GUINT64_FORMAT
		       ", no entry %" G_GUINT64_FORMAT, &timed, &slow, &full, &noexit, &noentry);
		printf(" (the agent timed %" G_GUINT64_FORMAT " calls and sent %" G_GUINT64_FORMAT
		       "; %" G_GUINT64_FORMAT " not timed: its table of threads inside a call was "
		       "full; %" G_GUINT64_FORMAT " entries never returned, %" G_GUINT64_FORMAT
		       " exits without their entry)", timed, slow, full, noexit, noentry);
	} else if (calls->len) {
		printf(" (no end note from the agent: the recording was cut)");
	}
	printf("\n");
	if (!calls->len)
		return;
	/* functions of one name in several files: "helper (a.c)" */
	g_autoptr(PlFunctionNames) fn = pl_function_names_new(p, NULL);

	/* by system call */
	g_autoptr(GHashTable) by_nr = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
							    (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < calls->len; i++) {
		const PlSlowCall *c = &g_array_index(calls, PlSlowCall, i);
		GArray *d = g_hash_table_lookup(by_nr, &c->nr);
		if (!d) {
			d = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(by_nr, g_memdup2(&c->nr, sizeof(c->nr)), d);
		}
		g_array_append_val(d, c->duration_ns);
	}
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(row_free);
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, by_nr);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GArray *d = v;
		Row *r = g_new0(Row, 1);
		char buf[32];
		r->name = g_strdup(call_name(p, *(guint64 *)k, buf, sizeof(buf)));
		g_array_sort(d, cmp_u64);
		for (guint i = 0; i < d->len; i++)
			r->total += g_array_index(d, guint64, i);
		r->count = d->len;
		g_ptr_array_add(rows, r);
	}
	g_ptr_array_sort(rows, row_cmp);
	printf("\nBy system call:\n  %-24s %7s %11s %10s %10s %10s\n", "System call", "Calls",
	       "Total ms", "Max ms", "p50 ms", "p99 ms");
	for (guint i = 0; i < rows->len; i++) {
		Row *r = rows->pdata[i];
		GArray *d = NULL;
		g_hash_table_iter_init(&it, by_nr);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			char buf[32];
			if (!strcmp(call_name(p, *(guint64 *)k, buf, sizeof(buf)), r->name))
				d = v;
		}
		const guint64 *x = (const guint64 *)(gpointer)d->data;
		printf("  %-24s %7u %11.3f %10.3f %10.3f %10.3f\n", r->name, r->count, r->total / 1e6,
		       x[d->len - 1] / 1e6, pl_percentile(x, d->len, 50) / 1e6, pl_percentile(x, d->len, 99) / 1e6);
	}

	/* by call site: folded stacks of the time blocked */
	g_autoptr(GHashTable) sites = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GPtrArray) srows = g_ptr_array_new_with_free_func(row_free);
	for (guint i = 0; i < calls->len; i++) {
		const PlSlowCall *c = &g_array_index(calls, PlSlowCall, i);
		char buf[32];
		g_autofree char *stack = folded(p, fn, c->stack);
		char *key = g_strdup_printf("%s%s[%s]", stack, *stack ? ";" : "",
					    call_name(p, c->nr, buf, sizeof(buf)));
		Row *r = g_hash_table_lookup(sites, key);
		if (!r) {
			r = g_new0(Row, 1);
			r->name = key;
			g_hash_table_insert(sites, key, r);
			g_ptr_array_add(srows, r);
		} else {
			g_free(key);
		}
		r->total += c->duration_ns;
		r->count++;
	}
	g_ptr_array_sort(srows, row_cmp);
	printf("\nBy call site (stacks at entry, callers first; folded, weighed by the time "
	       "blocked):\n  %11s %7s  Stack\n", "Total ms", "Calls");
	for (guint i = 0; i < srows->len && i < top; i++) {
		Row *r = srows->pdata[i];
		printf("  %11.3f %7u  %s\n", r->total / 1e6, r->count, r->name);
	}

	/* latency histogram: powers of two */
	guint hist[64] = { 0 }, lo = 63, hi = 0;
	for (guint i = 0; i < calls->len; i++) {
		guint64 d = g_array_index(calls, PlSlowCall, i).duration_ns;
		guint b = d ? 63 - (guint)__builtin_clzll(d) : 0;
		hist[b]++;
		lo = MIN(lo, b);
		hi = MAX(hi, b);
	}
	guint most = 0;
	for (guint b = lo; b <= hi; b++)
		most = MAX(most, hist[b]);
	printf("\nLatency histogram:\n");
	for (guint b = lo; b <= hi; b++)
		printf("  %10.3f - %10.3f ms %7u  %.*s\n", (double)(1ull << b) / 1e6,
		       (double)(2ull << b) / 1e6, hist[b], (int)(hist[b] * 40 / most),
		       "########################################");

	/* the slowest */
	g_autoptr(GArray) sorted = g_array_copy(calls);
	g_array_sort(sorted, slow_cmp);
	printf("\nSlowest %u:\n      Time s       TID  Thread           System call   Duration ms  "
	       "Return  Arguments  [stack]\n", MIN(top, sorted->len));
	guint64 t0 = st->first_time;
	for (guint i = 0; i < sorted->len && i < top; i++) {
		const PlSlowCall *c = &g_array_index(sorted, PlSlowCall, i);
		PlThread *t = pl_profile_lookup_thread(p, c->tid);
		char buf[32];
		printf("  %10.6f  %8u  %-15.15s  %-12s %12.3f  %6" G_GINT64_FORMAT "  0x%" G_GINT64_MODIFIER
		       "x 0x%" G_GINT64_MODIFIER "x 0x%" G_GINT64_MODIFIER "x  [",
		       c->time >= t0 ? (double)(c->time - t0) / 1e9 : 0.0, c->tid,
		       t && t->name ? t->name : "?", call_name(p, c->nr, buf, sizeof(buf)),
		       c->duration_ns / 1e6, c->ret, c->args[0], c->args[1], c->args[2]);
		guint32 node = pl_profile_get_stack_node(p, c->stack);
		for (guint f = 0; f < 8 && node != 0 && node != PL_NO_ID; f++) {
			const PlNode *n = pl_profile_get_node(p, node);
			printf("%s%s", f ? " < " : "", pl_function_names_get(fn, n->func));
			node = n->parent;
		}
		printf("]\n");
	}
}
