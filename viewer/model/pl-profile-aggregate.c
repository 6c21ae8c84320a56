/* pl-profile-aggregate.c — analyses over the session model: samples
 * selected by thread, event and time range counted per address stack,
 * call-tree node, function and source line (PlAggregate); function,
 * caller/callee, line and per-address tables; the stacks for flame graphs. */
#include "pl-profile.h"
#include "pl-profile-private.h"

#include <string.h>

/* ─── aggregation ────────────────────────────────────────────────────── */

static inline void count_add(PlCount *c, const PlCount *d)
{
	c->samples += d->samples;
	c->weight += d->weight;
}

/* Here, above the tables it builds (the object, the stack table, the
 * thread starts), so that no file below calls up. */
void pl_profile_prepare_readers(PlProfile *self)
{
	pl_profile_get_threads(self);
	pl_profile_get_processes(self);
	pl_profile_get_events(self);
	for (guint i = 0; i < self->funcs->len; i++)
		pl_profile_get_function_label(self, i);
	pl_profile_thread_starts(self);
}

PlAggregate *pl_profile_aggregate(PlProfile *self, const PlFilter *filter)
{
	return pl_profile_aggregate_mapped(self, filter, NULL);
}

/* ─── 1. samples → per address-stack counts ─────────────────────────── */

/* A large timeline is counted in two halves at once, the second on a
 * worker thread, and the halves added up: integer sums, so exactly what
 * one pass gives.  PERFLENS_NO_AGGREGATE_THREAD=1 counts in one pass. */
#define PARALLEL_MIN_SAMPLES 65536u

typedef struct {
	const PlProfile *profile;
	const PlFilter *f;
	const guint32 *node_map;
	guint from, to;     /* samples [from, to) */
	PlCount *per_stack; /* n_addrs */
	PlCount all;
	GHashTable *threads; /* tid → PlCount* (g_free) */
	GArray *tid_order;   /* guint32: tids in order of first sample */
} CountPart;

static void count_part(CountPart *p)
{
	const PlProfile *self = p->profile;
	const PlFilter *f = p->f;
	const guint32 *node_map = p->node_map;
	const AddrNode *addrs = (const AddrNode *)(void *)self->addrs->data;
	const PlSample *samples = (const PlSample *)(void *)self->samples->data;
	const PlSampleCtx *ctx = (const PlSampleCtx *)(void *)self->sample_ctx->data;
	PlCount *per_stack = p->per_stack;
	PlCount all = { 0 };
	/* samples of one thread come in runs: its count is looked up once a run */
	guint32 last_tid = 0;
	PlCount *tc = NULL;
	for (guint i = p->from; i < p->to; i++) {
		const PlSample *s = &samples[i];
		const PlSampleCtx *c = &ctx[s->ctx];
		if (f->tid && c->tid != f->tid)
			continue;
		if (f->event != PL_NO_ID && addrs[s->stack].event != f->event)
			continue;
		if (s->time < f->t0 || (f->t1 && s->time >= f->t1))
			continue;
		/* a stack filter's allow rules drop whole samples */
		if (node_map && node_map[addrs[s->stack].fnode] == PL_NO_ID)
			continue;
		per_stack[s->stack].samples++;
		per_stack[s->stack].weight += c->weight;
		all.samples++;
		all.weight += c->weight;
		if (!tc || c->tid != last_tid) {
			tc = g_hash_table_lookup(p->threads, GUINT_TO_POINTER(c->tid));
			if (!tc) {
				tc = g_new0(PlCount, 1);
				g_hash_table_insert(p->threads, GUINT_TO_POINTER(c->tid), tc);
				if (p->tid_order)
					g_array_append_val(p->tid_order, c->tid);
			}
			last_tid = c->tid;
		}
		tc->samples++;
		tc->weight += c->weight;
	}
	p->all = all;
}

static gpointer count_part_thread(gpointer data)
{
	count_part(data);
	return NULL;
}

static void count_samples(PlProfile *self, PlAggregate *agg, const guint32 *node_map)
{
	guint n = self->samples->len;
	CountPart one = { self, &agg->filter, node_map, 0, n, agg->stack_self, { 0 }, agg->threads,
			  NULL };
	GThread *th = NULL;
	CountPart two = { 0 };
	if (n >= PARALLEL_MIN_SAMPLES && g_get_num_processors() > 1 &&
	    !g_getenv("PERFLENS_NO_AGGREGATE_THREAD")) {
		one.to = n / 2;
		two = (CountPart){ self, &agg->filter, node_map, n / 2, n,
				   g_new0(PlCount, agg->n_stacks), { 0 },
				   g_hash_table_new_full(NULL, NULL, NULL, g_free),
				   g_array_new(FALSE, FALSE, sizeof(guint32)) };
		th = g_thread_try_new("pl-aggregate", count_part_thread, &two, NULL);
		if (!th) /* no thread to be had: one pass after all */
			one.to = n;
	}
	count_part(&one);
	agg->all = one.all;
	if (!two.per_stack)
		return;
	if (th) {
		g_thread_join(th);
		for (guint a = 0; a < agg->n_stacks; a++) {
			agg->stack_self[a].samples += two.per_stack[a].samples;
			agg->stack_self[a].weight += two.per_stack[a].weight;
		}
		agg->all.samples += two.all.samples;
		agg->all.weight += two.all.weight;
		/* the second half's threads in the order one pass would have
		 * met them: the table comes out the same */
		for (guint i = 0; i < two.tid_order->len; i++) {
			guint32 tid = g_array_index(two.tid_order, guint32, i);
			PlCount *c = g_hash_table_lookup(two.threads, GUINT_TO_POINTER(tid));
			PlCount *tc = g_hash_table_lookup(agg->threads, GUINT_TO_POINTER(tid));
			if (tc) {
				tc->samples += c->samples;
				tc->weight += c->weight;
			} else {
				g_hash_table_steal(two.threads, GUINT_TO_POINTER(tid));
				g_hash_table_insert(agg->threads, GUINT_TO_POINTER(tid), c);
			}
		}
	}
	g_free(two.per_stack);
	g_hash_table_destroy(two.threads);
	g_array_free(two.tid_order, TRUE);
}

PlAggregate *pl_profile_aggregate_mapped(PlProfile *self, const PlFilter *filter, guint32 *node_map)
{
	PlAggregate *agg = g_new0(PlAggregate, 1);
	agg->profile = self;
	agg->filter = filter ? *filter : PL_FILTER_ALL;
	agg->node_map = node_map;
	agg->n_nodes = self->nodes->len;
	agg->n_functions = self->funcs->len;
	agg->n_locations = self->locs->len;
	agg->self = g_new0(PlCount, agg->n_nodes);
	agg->total = g_new0(PlCount, agg->n_nodes);
	agg->func_self = g_new0(PlCount, agg->n_functions);
	agg->func_total = g_new0(PlCount, agg->n_functions);
	agg->line_self = g_new0(PlCount, agg->n_locations + 1);
	agg->line_total = g_new0(PlCount, agg->n_locations + 1);
	agg->threads = g_hash_table_new_full(NULL, NULL, NULL, g_free);

	guint n_addrs = self->addrs->len;
	agg->n_stacks = n_addrs;
	agg->stack_self = g_new0(PlCount, n_addrs);
	count_samples(self, agg, node_map);
	PlCount *per_stack = agg->stack_self;
	const AddrNode *addrs = (const AddrNode *)self->addrs->data;

	/* 2. distinct stacks → call tree, functions, lines */
	g_autofree guint32 *func_stamp = g_new(guint32, agg->n_functions + 1);
	g_autofree guint32 *loc_stamp = g_new(guint32, agg->n_locations + 1);
	memset(func_stamp, 0xff, (agg->n_functions + 1) * sizeof(guint32));
	memset(loc_stamp, 0xff, (agg->n_locations + 1) * sizeof(guint32));
	const PlNode *nodes = (const PlNode *)self->nodes->data;
	const guint32 *node_locs = (const guint32 *)self->node_locs->data;
	for (guint32 a = 0; a < n_addrs; a++) {
		const PlCount *c = &per_stack[a];
		if (!c->samples)
			continue;
		guint32 leaf = addrs[a].fnode;
		if (node_map)
			leaf = node_map[leaf];
		count_add(&agg->self[leaf], c);
		if (nodes[leaf].func != PL_NO_ID)
			count_add(&agg->func_self[nodes[leaf].func], c);
		for (guint32 n = leaf; n != PL_NO_ID; n = nodes[n].parent) {
			count_add(&agg->total[n], c);
			guint32 fn = nodes[n].func;
			if (fn != PL_NO_ID && func_stamp[fn] != a) {
				func_stamp[fn] = a; /* recursion counts once */
				count_add(&agg->func_total[fn], c);
			}
		}
		if (addrs[a].loc_n)
			count_add(&agg->line_self[node_locs[addrs[a].loc_first]], c);
		for (guint32 x = a; x != PL_NO_ID; x = addrs[x].parent)
			for (guint k = 0; k < addrs[x].loc_n; k++) {
				guint32 l = node_locs[addrs[x].loc_first + k];
				if (loc_stamp[l] != a) {
					loc_stamp[l] = a;
					count_add(&agg->line_total[l], c);
				}
			}
	}
	return agg;
}

void pl_aggregate_free(PlAggregate *agg)
{
	if (!agg)
		return;
	g_free(agg->self);
	g_free(agg->total);
	g_free(agg->func_self);
	g_free(agg->func_total);
	g_free(agg->line_self);
	g_free(agg->line_total);
	g_free(agg->stack_self);
	g_free(agg->node_map);
	g_hash_table_destroy(agg->threads);
	g_free(agg);
}

static int cmp_row_self(gconstpointer a, gconstpointer b, gpointer data)
{
	const PlRow *x = a, *y = b;
	if (x->self.weight != y->self.weight)
		return x->self.weight > y->self.weight ? -1 : 1;
	if (x->total.weight != y->total.weight)
		return x->total.weight > y->total.weight ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_row_total(gconstpointer a, gconstpointer b, gpointer data)
{
	const PlRow *x = a, *y = b;
	if (x->total.weight != y->total.weight)
		return x->total.weight > y->total.weight ? -1 : 1;
	if (x->self.weight != y->self.weight)
		return x->self.weight > y->self.weight ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

GArray *pl_aggregate_functions(PlAggregate *agg, gboolean by_total)
{
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(PlRow));
	for (guint32 i = 0; i < agg->n_functions; i++) {
		if (!agg->func_total[i].samples)
			continue;
		PlRow r = { i, agg->func_self[i], agg->func_total[i] };
		g_array_append_val(rows, r);
	}
	g_array_sort_with_data(rows, by_total ? cmp_row_total : cmp_row_self, NULL);
	return rows;
}

static gboolean has_ancestor_func(const PlNode *nodes, guint32 n, guint32 func)
{
	for (guint32 up = nodes[n].parent; up != 0 && up != PL_NO_ID; up = nodes[up].parent)
		if (nodes[up].func == func)
			return TRUE;
	return FALSE;
}

/* Callers (or callees) of func.  Only the outermost call of func on a
 * stack counts: a recursive stack (F → G → F) holds the same samples twice,
 * and counting both would give a caller more than 100%. */
static GArray *relatives(PlAggregate *agg, guint32 func, gboolean callers)
{
	PlProfile *p = agg->profile;
	const PlNode *nodes = (const PlNode *)p->nodes->data;
	g_autofree PlCount *acc = g_new0(PlCount, agg->n_functions);
	for (guint32 n = 1; n < agg->n_nodes; n++) {
		if (nodes[n].func != func || !agg->total[n].samples ||
		    has_ancestor_func(nodes, n, func))
			continue;
		if (callers) {
			guint32 up = nodes[n].parent;
			if (up != 0 && up != PL_NO_ID)
				count_add(&acc[nodes[up].func], &agg->total[n]);
		} else {
			for (guint32 c = nodes[n].first_child; c != PL_NO_ID; c = nodes[c].next_sibling)
				count_add(&acc[nodes[c].func], &agg->total[c]);
		}
	}
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(PlRow));
	for (guint32 i = 0; i < agg->n_functions; i++)
		if (acc[i].samples) {
			PlRow r = { i, { 0, 0 }, acc[i] };
			g_array_append_val(rows, r);
		}
	g_array_sort_with_data(rows, cmp_row_total, NULL);
	return rows;
}

/* Does one of the frames address node x added to its parent's call-tree
 * node belong to the function (name, defined in file), inlined or not? */
static gboolean addr_has_func(PlProfile *p, guint32 x, const char *name, const char *file)
{
	const AddrNode *addrs = (const AddrNode *)p->addrs->data;
	const PlNode *nodes = (const PlNode *)p->nodes->data;
	guint32 stop = addrs[x].parent == PL_NO_ID ? 0 : addrs[addrs[x].parent].fnode;
	for (guint32 n = addrs[x].fnode; n != stop && n != 0 && n != PL_NO_ID; n = nodes[n].parent) {
		guint32 f = nodes[n].func;
		/* name and file are interned: one pointer per distinct string */
		if (f != PL_NO_ID && g_array_index(p->funcs, PlFunction, f).name == name &&
		    g_array_index(p->funcs, PlFunction, f).file == file)
			return TRUE;
	}
	return FALSE;
}

static int cmp_addr_row(gconstpointer a, gconstpointer b)
{
	const PlAddrRow *x = a, *y = b;
	int c = g_strcmp0(x->module, y->module);
	if (c)
		return c;
	return x->lookup_addr < y->lookup_addr ? -1 : x->lookup_addr > y->lookup_addr;
}

GArray *pl_aggregate_addresses(PlAggregate *agg, guint32 func)
{
	PlProfile *p = agg->profile;
	GArray *rows = g_array_new(FALSE, TRUE, sizeof(PlAddrRow));
	if (func >= p->funcs->len)
		return rows;
	/* names are interned: one pointer per distinct name */
	const char *name = g_array_index(p->funcs, PlFunction, func).name;
	const char *file = g_array_index(p->funcs, PlFunction, func).file;
	if (!name)
		return rows;
	const AddrNode *addrs = (const AddrNode *)p->addrs->data;
	guint n = MIN(agg->n_stacks, p->addrs->len);
	g_autofree guint8 *has = g_new0(guint8, n); /* 0 unknown, 1 no, 2 yes */
	g_autoptr(GHashTable) row_of = g_hash_table_new(NULL, NULL); /* addr node+1 → row+1 */
	g_autoptr(GArray) stamps = g_array_new(FALSE, FALSE, sizeof(guint32)); /* per row */
	PlSymbols *syms = pl_profile_get_symbols(p);
	for (guint32 a = 0; a < n; a++) {
		const PlCount *c = &agg->stack_self[a];
		if (!c->samples)
			continue;
		for (guint32 x = a; x != PL_NO_ID; x = addrs[x].parent) {
			if (addrs[x].flags & AF_ROOT)
				break;
			if (!has[x])
				has[x] = addr_has_func(p, x, name, file) ? 2 : 1;
			if (has[x] != 2)
				continue;
			guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(row_of, GUINT_TO_POINTER(x + 1)));
			if (idx) {
				idx--;
			} else {
				PlFrameInfo fr[MAX_INLINE];
				guint32 root = x;
				while (addrs[root].parent != PL_NO_ID)
					root = addrs[root].parent;
				gboolean ret = (addrs[x].flags & AF_RETURN) != 0;
				guint nf = pl_symbols_resolve(syms, (guint32)addrs[root].pc, addrs[x].pc,
							      ret, fr, MAX_INLINE);
				PlAddrRow r = { 0 };
				r.module = g_string_chunk_insert_const(
					p->strings, nf && fr[0].module ? fr[0].module : "[unknown]");
				r.rel_addr = nf ? fr[0].rel_addr : addrs[x].pc;
				r.lookup_addr = r.rel_addr - (ret && r.rel_addr ? 1 : 0);
				if (nf && fr[nf - 1].function)
					r.outer = g_string_chunk_insert_const(p->strings,
									      fr[nf - 1].function);
				for (guint k = 0; k < nf; k++)
					if (fr[k].function && !strcmp(fr[k].function, name) &&
					    !g_strcmp0(fr[k].decl_file, file) && fr[k].file) {
						r.file = g_string_chunk_insert_const(p->strings, fr[k].file);
						r.line = fr[k].line;
						break;
					}
				/* the same address under different callers: one row */
				for (idx = 0; idx < rows->len; idx++) {
					const PlAddrRow *o = &g_array_index(rows, PlAddrRow, idx);
					if (o->lookup_addr == r.lookup_addr && o->rel_addr == r.rel_addr &&
					    o->module == r.module)
						break;
				}
				if (idx == rows->len) {
					guint32 none = PL_NO_ID;
					g_array_append_val(rows, r);
					g_array_append_val(stamps, none);
				}
				g_hash_table_insert(row_of, GUINT_TO_POINTER(x + 1),
						    GUINT_TO_POINTER(idx + 1));
			}
			PlAddrRow *r = &g_array_index(rows, PlAddrRow, idx);
			if (x == a)
				count_add(&r->self, c);
			guint32 *st = &g_array_index(stamps, guint32, idx);
			if (*st != a) { /* recursion through one address counts once */
				*st = a;
				count_add(&r->total, c);
			}
		}
	}
	g_array_sort(rows, cmp_addr_row);
	return rows;
}

GArray *pl_aggregate_callers(PlAggregate *agg, guint32 func)
{
	return relatives(agg, func, TRUE);
}

GArray *pl_aggregate_callees(PlAggregate *agg, guint32 func)
{
	return relatives(agg, func, FALSE);
}

GArray *pl_aggregate_lines(PlAggregate *agg)
{
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(PlRow));
	for (guint32 i = 0; i < agg->n_locations; i++)
		if (agg->line_total[i].samples) {
			PlRow r = { i, agg->line_self[i], agg->line_total[i] };
			g_array_append_val(rows, r);
		}
	g_array_sort_with_data(rows, cmp_row_self, NULL);
	return rows;
}

void pl_aggregate_foreach_stack(PlAggregate *agg, PlStackFunc func, gpointer user_data)
{
	const PlNode *nodes = (const PlNode *)agg->profile->nodes->data;
	g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint32 n = 1; n < agg->n_nodes; n++) {
		if (!agg->self[n].samples)
			continue;
		g_array_set_size(path, 0);
		for (guint32 x = n; x != 0 && x != PL_NO_ID; x = nodes[x].parent)
			g_array_append_val(path, nodes[x].func);
		/* reverse: outermost first */
		guint32 *v = (guint32 *)path->data;
		for (guint i = 0, j = path->len - 1; i < j; i++, j--) {
			guint32 t = v[i];
			v[i] = v[j];
			v[j] = t;
		}
		func(v, path->len, &agg->self[n], user_data);
	}
}
