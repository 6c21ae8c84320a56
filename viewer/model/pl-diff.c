/* pl-diff.c — comparing two aggregates; see pl-diff.h. */
#include "pl-diff.h"
#include "pl-function-names.h"

#include <math.h>
#include <string.h>

typedef struct {
	PlDiff *d;
	GHashTable *index; /* key → row index + 1 */
	gboolean side_b;
	double all;
	PlFunctionNames *names; /* of the side being added */
	GString *line;
} StackAcc;

static double share(guint64 w, guint64 all)
{
	return all ? (double)w / (double)all : 0.0;
}

static void add_function(PlDiff *d, GHashTable *index, PlAggregate *agg, PlFunctionNames *names,
			 gboolean side_b)
{
	PlProfile *p = agg->profile;
	for (guint32 id = 0; id < agg->n_functions; id++) {
		if (!agg->func_total[id].samples)
			continue;
		const PlFunction *f = pl_profile_get_function(p, id);
		/* "helper (a.c)" where either side has helpers of several files:
		 * each is matched with its own (and the tail of the path, not the
		 * path, matches: two builds may be in two directories) */
		const char *label = pl_function_names_get(names, id);
		g_autofree char *key = g_strdup_printf("%s\x01%s%s", label, f->module ? f->module : "",
						       f->inlined ? "\x01i" : "");
		guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(index, key));
		if (!idx) {
			PlDiffFunction row = { 0 };
			row.name = g_string_chunk_insert_const(d->strings, label);
			row.module = g_string_chunk_insert_const(d->strings, f->module ? f->module : "");
			row.inlined = f->inlined;
			g_array_append_val(d->functions, row);
			idx = d->functions->len;
			g_hash_table_insert(index, g_steal_pointer(&key), GUINT_TO_POINTER(idx));
		}
		PlDiffFunction *row = &g_array_index(d->functions, PlDiffFunction, idx - 1);
		guint64 all = agg->all.weight;
		/* the same label twice on one side (one name in two modules): summed */
		if (side_b) {
			row->self_b += share(agg->func_self[id].weight, all);
			row->total_b += share(agg->func_total[id].weight, all);
		} else {
			row->self_a += share(agg->func_self[id].weight, all);
			row->total_a += share(agg->func_total[id].weight, all);
		}
	}
}

static void add_stack(const guint32 *funcs, guint depth, const PlCount *self, gpointer data)
{
	StackAcc *s = data;
	g_string_truncate(s->line, 0);
	for (guint i = 0; i < depth; i++) {
		if (i)
			g_string_append_c(s->line, ';');
		g_string_append(s->line, pl_function_names_get(s->names, funcs[i]));
	}
	guint idx = GPOINTER_TO_UINT(g_hash_table_lookup(s->index, s->line->str));
	if (!idx) {
		PlDiffStack row = { g_string_chunk_insert_const(s->d->strings, s->line->str), 0, 0 };
		g_array_append_val(s->d->stacks, row);
		idx = s->d->stacks->len;
		g_hash_table_insert(s->index, g_strdup(s->line->str), GUINT_TO_POINTER(idx));
	}
	PlDiffStack *row = &g_array_index(s->d->stacks, PlDiffStack, idx - 1);
	double v = s->all ? (double)self->weight / s->all : 0;
	if (s->side_b)
		row->b += v;
	else
		row->a += v;
}

static int cmp_function(gconstpointer x, gconstpointer y)
{
	const PlDiffFunction *a = x, *b = y;
	double da = fabs(a->self_b - a->self_a), db = fabs(b->self_b - b->self_a);
	if (da != db)
		return da > db ? -1 : 1;
	da = fabs(a->total_b - a->total_a);
	db = fabs(b->total_b - b->total_a);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_stack(gconstpointer x, gconstpointer y)
{
	const PlDiffStack *a = x, *b = y;
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->stack, b->stack);
}

PlDiff *pl_diff_new(PlAggregate *a, PlAggregate *b)
{
	PlDiff *d = g_new0(PlDiff, 1);
	d->all_a = a->all;
	d->all_b = b->all;
	d->functions = g_array_new(FALSE, TRUE, sizeof(PlDiffFunction));
	d->stacks = g_array_new(FALSE, TRUE, sizeof(PlDiffStack));
	d->strings = g_string_chunk_new(16384);
	g_autoptr(PlFunctionNames) na = pl_function_names_new(a->profile, a);
	g_autoptr(PlFunctionNames) nb = pl_function_names_new(b->profile, b);
	pl_function_names_share(na, nb);
	pl_function_names_share(nb, na);
	g_autoptr(GHashTable) fi = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	add_function(d, fi, a, na, FALSE);
	add_function(d, fi, b, nb, TRUE);
	g_autoptr(GHashTable) si = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	StackAcc s = { d, si, FALSE, (double)a->all.weight, na, g_string_new(NULL) };
	pl_aggregate_foreach_stack(a, add_stack, &s);
	s.side_b = TRUE;
	s.all = (double)b->all.weight;
	s.names = nb;
	pl_aggregate_foreach_stack(b, add_stack, &s);
	g_string_free(s.line, TRUE);
	g_array_sort(d->functions, cmp_function);
	g_array_sort(d->stacks, cmp_stack);
	return d;
}

void pl_diff_free(PlDiff *d)
{
	if (!d)
		return;
	g_array_free(d->functions, TRUE);
	g_array_free(d->stacks, TRUE);
	g_string_chunk_free(d->strings);
	g_free(d);
}
