/* viewer-model-transform-test.c — call-tree transforms (pl-transform.h) and
 * the inverted tree (pl-inverted.h), each checked stack by stack on a built
 * capture whose stacks are known exactly: addresses of the real burn ELF,
 * symbolized by the real symbolizer.
 *
 * The stacks (outermost first) and their samples:
 *   S1 main;worker_loop;compute_outer;hot_leaf              4
 *   S2 main;worker_loop;compute_outer;compute_mid;hot_leaf  2
 *   S3 main;sort_step;cmp_ulong                              3
 *   S4 main;worker_loop;worker_loop;hot_leaf                 1  direct recursion
 *   S5 main;compute_outer;sort_step;compute_outer;hot_leaf   1  indirect recursion
 */
#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-capture.h"
#include "pl-inverted.h"
#include "pl-profile.h"
#include "pl-stack-filter.h"

#define PID 4242
#define T0 1000000000ull

static PlProfile *profile;

static void add_stack(VtCapture *c, VtElf *e, const char *path, guint n, guint64 *t)
{
	g_auto(GStrv) f = g_strsplit(path, ";", -1);
	guint depth = g_strv_length(f);
	uint64_t chain[16] = { T_CTX_USER };
	/* leaf first; callers as return addresses (+1: inside the function) */
	for (guint i = 0; i < depth; i++)
		chain[1 + i] = vt_sym(e, f[depth - 1 - i], i ? 1 : 0);
	for (guint i = 0; i < n; i++)
		vt_sample(c, 0, PID, PID, (*t)++, 1000, chain, depth + 1);
}

static PlProfile *need_profile(void)
{
	if (profile)
		return profile;
	char *why = NULL;
	static VtElf *e;
	if (!e)
		e = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(e, "%s", why);
	g_autofree char *path = vt_tmp("transform.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, PID, "burn", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
	guint64 t = T0 + 10;
	add_stack(c, e, "main;worker_loop;compute_outer;hot_leaf", 4, &t);
	add_stack(c, e, "main;worker_loop;compute_outer;compute_mid;hot_leaf", 2, &t);
	add_stack(c, e, "main;sort_step;cmp_ulong", 3, &t);
	add_stack(c, e, "main;worker_loop;worker_loop;hot_leaf", 1, &t);
	add_stack(c, e, "main;compute_outer;sort_step;compute_outer;hot_leaf", 1, &t);
	vt_capture_close(c);
	profile = vt_profile_load(path);
	return profile;
}

static void fold_one(const guint32 *funcs, guint depth, const PlCount *self, gpointer data)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < depth; i++)
		g_string_append_printf(s, "%s%s", i ? ";" : "",
				       pl_profile_get_function_label(profile, funcs[i]));
	g_string_append_printf(s, " %" G_GUINT64_FORMAT, self->samples);
	g_ptr_array_add(data, g_string_free(s, FALSE));
}

static gint by_text(gconstpointer a, gconstpointer b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folded stacks after the transforms in spec ("kind\targ" lines), sorted
 * and joined with " | "; *all gets the samples kept. */
static char *folded(const char *spec, guint64 *all)
{
	PlProfile *p = need_profile();
	g_autoptr(GError) error = NULL;
	g_autoptr(PlTransforms) tx = pl_transforms_parse(spec, &error);
	PL_CHECKF(tx, "%s: %s", spec, error ? error->message : "?");
	g_autoptr(PlStackFilter) sf = pl_stack_filter_new();
	for (guint i = 0; i < pl_transforms_get_n(tx); i++)
		PL_CHECK(pl_transforms_push(pl_stack_filter_get_transforms(sf),
					    pl_transforms_get_kind(tx, i),
					    pl_transforms_get_arg(tx, i), NULL));
	g_autoptr(PlAggregate) agg = pl_profile_aggregate_filtered(p, NULL, sf);
	g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
	pl_aggregate_foreach_stack(agg, fold_one, lines);
	g_ptr_array_sort(lines, by_text);
	g_ptr_array_add(lines, NULL);
	if (all)
		*all = agg->all.samples;
	return g_strjoinv(" | ", (char **)lines->pdata);
}

#define EXPECT(spec, want, want_all)                                                             \
	do {                                                                                     \
		guint64 all_;                                                                    \
		g_autofree char *got_ = folded(spec, &all_);                                     \
		if (strcmp(got_, want))                                                          \
			fprintf(stderr, "%s:\n  got  %s\n  want %s\n", spec, got_, want);        \
		PL_CHECKF(!strcmp(got_, want), "stacks after '%s' (above)", spec);               \
		PL_CHECKF(all_ == (want_all), "%s: %" G_GUINT64_FORMAT " samples kept, not %d",  \
			  spec, all_, (int)(want_all));                                          \
	} while (0)

static void plain(void)
{
	EXPECT("",
	       "main;compute_outer;sort_step;compute_outer;hot_leaf 1 | "
	       "main;sort_step;cmp_ulong 3 | "
	       "main;worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "main;worker_loop;compute_outer;hot_leaf 4 | "
	       "main;worker_loop;worker_loop;hot_leaf 1",
	       11);
}

static void merge(void)
{
	EXPECT("merge\tcompute_outer",
	       "main;sort_step;cmp_ulong 3 | main;sort_step;hot_leaf 1 | "
	       "main;worker_loop;compute_mid;hot_leaf 2 | main;worker_loop;hot_leaf 4 | "
	       "main;worker_loop;worker_loop;hot_leaf 1",
	       11);
	/* a merged leaf: its time is its caller's self */
	EXPECT("merge\t^hot_leaf$",
	       "main;compute_outer;sort_step;compute_outer 1 | main;sort_step;cmp_ulong 3 | "
	       "main;worker_loop;compute_outer 4 | main;worker_loop;compute_outer;compute_mid 2 | "
	       "main;worker_loop;worker_loop 1",
	       11);
}

static void merge_and_collapse_module(void)
{
	/* every frame is burn's: nothing is left of the stacks, no sample is lost */
	EXPECT("merge-module\t^burn$", "", 11);
	EXPECT("collapse-module\tburn", "[burn] 11", 11);
	EXPECT("collapse-module\tlibc", "main;compute_outer;sort_step;compute_outer;hot_leaf 1 | "
					"main;sort_step;cmp_ulong 3 | "
					"main;worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
					"main;worker_loop;compute_outer;hot_leaf 4 | "
					"main;worker_loop;worker_loop;hot_leaf 1",
	       11);
}

static void focus(void)
{
	EXPECT("focus\t^hot_leaf$", "hot_leaf 8", 8);
	EXPECT("focus\tworker_loop",
	       "worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "worker_loop;compute_outer;hot_leaf 4 | worker_loop;worker_loop;hot_leaf 1",
	       7);
	/* the innermost compute_outer ends each stack: callees fold into it */
	EXPECT("focus-inverted\tcompute_outer",
	       "main;compute_outer;sort_step;compute_outer 1 | main;worker_loop;compute_outer 6",
	       7);
}

static void focus_subtree(void)
{
	EXPECT("focus-subtree\tmain;worker_loop",
	       "worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "worker_loop;compute_outer;hot_leaf 4 | worker_loop;worker_loop;hot_leaf 1",
	       7);
	EXPECT("focus-subtree\tmain;worker_loop;worker_loop", "worker_loop;hot_leaf 1", 1);
	/* a path must begin at the root */
	EXPECT("focus-subtree\tworker_loop", "", 0);
}

static void drop(void)
{
	EXPECT("drop\tsort_step",
	       "main;worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "main;worker_loop;compute_outer;hot_leaf 4 | main;worker_loop;worker_loop;hot_leaf 1",
	       7);
}

static void collapse_recursion(void)
{
	EXPECT("collapse-recursion",
	       "main;compute_outer;hot_leaf 1 | main;sort_step;cmp_ulong 3 | "
	       "main;worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "main;worker_loop;compute_outer;hot_leaf 4 | main;worker_loop;hot_leaf 1",
	       11);
	/* direct only: S5's compute_outer → sort_step → compute_outer stays */
	EXPECT("collapse-direct-recursion",
	       "main;compute_outer;sort_step;compute_outer;hot_leaf 1 | main;sort_step;cmp_ulong 3 | "
	       "main;worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "main;worker_loop;compute_outer;hot_leaf 4 | main;worker_loop;hot_leaf 1",
	       11);
	/* limited to one function */
	EXPECT("collapse-recursion\tworker_loop",
	       "main;compute_outer;sort_step;compute_outer;hot_leaf 1 | main;sort_step;cmp_ulong 3 | "
	       "main;worker_loop;compute_outer;compute_mid;hot_leaf 2 | "
	       "main;worker_loop;compute_outer;hot_leaf 4 | main;worker_loop;hot_leaf 1",
	       11);
}

/* The same two transforms in the two orders give different trees. */
static void order_matters(void)
{
	EXPECT("merge\tworker_loop\nfocus-subtree\tmain;compute_outer",
	       "compute_outer;compute_mid;hot_leaf 2 | compute_outer;hot_leaf 4 | "
	       "compute_outer;sort_step;compute_outer;hot_leaf 1",
	       7);
	EXPECT("focus-subtree\tmain;compute_outer\nmerge\tworker_loop",
	       "compute_outer;sort_step;compute_outer;hot_leaf 1", 1);
}

/* Transforms after the long-standing rules (--deny here). */
static void after_rules(void)
{
	PlProfile *p = need_profile();
	g_autoptr(PlStackFilter) sf = pl_stack_filter_new();
	PL_CHECK(pl_stack_filter_add(sf, PL_RULE_DENY_SYMBOL, "^main$", NULL));
	PL_CHECK(pl_transforms_push(pl_stack_filter_get_transforms(sf), PL_TX_FOCUS_SUBTREE,
				    "worker_loop;worker_loop", NULL));
	g_autoptr(PlAggregate) agg = pl_profile_aggregate_filtered(p, NULL, sf);
	g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
	pl_aggregate_foreach_stack(agg, fold_one, lines);
	PL_CHECKF(lines->len == 1 && !strcmp(lines->pdata[0], "worker_loop;hot_leaf 1"), "%u: %s",
		  lines->len, lines->len ? (char *)lines->pdata[0] : "");
}

static void stack_text(void)
{
	g_autoptr(GError) error = NULL;
	const char *text = "merge\ta|b\nfocus-subtree\tmain;worker_loop\ncollapse-recursion\n";
	g_autoptr(PlTransforms) tx = pl_transforms_parse(text, &error);
	PL_CHECK(tx && pl_transforms_get_n(tx) == 3);
	g_autofree char *back = pl_transforms_serialize(tx);
	PL_CHECKF(!strcmp(back, text), "%s", back);
	g_autofree char *l1 = pl_transforms_dup_label(tx, 1);
	PL_CHECKF(!strcmp(l1, "Focus on subtree: main → worker_loop"), "%s", l1);
	g_autofree char *l2 = pl_transforms_dup_label(tx, 2);
	PL_CHECKF(!strcmp(l2, "Collapse recursion: every function"), "%s", l2);
	pl_transforms_remove(tx, 0);
	PL_CHECK(pl_transforms_get_n(tx) == 2 && pl_transforms_get_kind(tx, 0) == PL_TX_FOCUS_SUBTREE);
	g_autoptr(PlTransforms) copy = pl_transforms_copy(tx);
	g_autofree char *c1 = pl_transforms_serialize(copy);
	g_autofree char *c2 = pl_transforms_serialize(tx);
	PL_CHECK(!strcmp(c1, c2));
	/* refusals, each with a message */
	const char *bad[] = { "merge\t(", "focus\n", "focus-subtree\ta;;b", "frobnicate\tx",
			      "drop\t" };
	for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
		g_autoptr(GError) e = NULL;
		g_autoptr(PlTransforms) t = pl_transforms_parse(bad[i], &e);
		PL_CHECKF(!t && e && *e->message, "'%s' accepted", bad[i]);
	}
}

static void inverted(void)
{
	PlProfile *p = need_profile();
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, NULL);
	g_autoptr(PlInverted) inv = pl_inverted_new(agg);
	g_autoptr(GArray) roots = pl_inverted_dup_children(inv, 0);
	PL_CHECK(roots->len == 2);
	const PlInvertedNode *hot = pl_inverted_get_node(inv, g_array_index(roots, guint32, 0));
	const PlInvertedNode *cmp = pl_inverted_get_node(inv, g_array_index(roots, guint32, 1));
	PL_CHECK(!strcmp(pl_profile_get_function_label(p, hot->func), "hot_leaf"));
	PL_CHECK(hot->count.samples == 8 && cmp->count.samples == 3);
	PL_CHECK(!strcmp(pl_profile_get_function_label(p, cmp->func), "cmp_ulong"));
	/* hot_leaf's callers: compute_outer (S1 + S5) 5, compute_mid 2, worker_loop 1 */
	g_autoptr(GArray) up = pl_inverted_dup_children(inv, g_array_index(roots, guint32, 0));
	const char *want[] = { "compute_outer", "compute_mid", "worker_loop" };
	const guint64 n[] = { 5, 2, 1 };
	PL_CHECK(up->len == 3);
	for (guint i = 0; i < 3; i++) {
		const PlInvertedNode *x = pl_inverted_get_node(inv, g_array_index(up, guint32, i));
		PL_CHECKF(!strcmp(pl_profile_get_function_label(p, x->func), want[i]) &&
				  x->count.samples == n[i],
			  "caller %u: %s %" G_GUINT64_FORMAT, i,
			  pl_profile_get_function_label(p, x->func), x->count.samples);
	}
	/* the deepest path of S2, read from the leaf: ends at main with 2 */
	guint32 at = g_array_index(roots, guint32, 0);
	const char *s2[] = { "compute_mid", "compute_outer", "worker_loop", "main" };
	for (guint i = 0; i < G_N_ELEMENTS(s2); i++) {
		g_autoptr(GArray) k = pl_inverted_dup_children(inv, at);
		guint32 next = PL_NO_ID;
		for (guint j = 0; j < k->len; j++) {
			guint32 id = g_array_index(k, guint32, j);
			if (!strcmp(pl_profile_get_function_label(p, pl_inverted_get_node(inv, id)->func),
				    s2[i]))
				next = id;
		}
		PL_CHECKF(next != PL_NO_ID, "no %s under the path", s2[i]);
		at = next;
	}
	PL_CHECK(pl_inverted_get_node(inv, at)->count.samples == 2);
}

PL_TEST_MAIN(PL_CASE(plain), PL_CASE(merge), PL_CASE(merge_and_collapse_module), PL_CASE(focus),
	     PL_CASE(focus_subtree), PL_CASE(drop), PL_CASE(collapse_recursion),
	     PL_CASE(order_matters), PL_CASE(after_rules), PL_CASE(stack_text), PL_CASE(inverted))
