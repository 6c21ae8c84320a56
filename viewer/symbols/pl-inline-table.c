/* pl-inline-table.c — the code scopes of one DWARF compilation unit as a
 * flat, sorted interval table.
 *
 * dwarf_getscopes walks the CU's DIE tree from the top for every address
 * it is asked about; on a large CU (an amalgamated library, a file full of
 * inlined helpers) that walk dominated ingest.  Here the tree is walked
 * once per CU: every concrete DW_TAG_subprogram and DW_TAG_inlined_
 * subroutine becomes a node (lexical blocks and namespaces are walked
 * through, not kept), each of its address ranges an interval, and the
 * intervals, which nest as the DIEs do, are flattened into non-overlapping
 * segments that name the innermost node.  A lookup is a binary search; the
 * chain of inline frames is the node's parent links.
 *
 * The walk is itself lazy: at first only the CU's top-level functions are
 * read (their ranges, not what is inside them), and a function's subtree
 * is walked when an address falls in it — a profile touches a few of a
 * large CU's functions.  That answers as the walk of the whole CU does
 * when the top-level functions do not overlap and every scope lies inside
 * its function (what compilers emit); where either is not so (a GCC
 * nested function is a child whose code lies outside its parent) and at
 * an address no top-level function covers, the whole CU is walked and
 * flattened at once, as before.
 *
 * Unlike dwarf_getscopes, which stops at the deepest inlined_subroutine
 * and continues with the scopes of its abstract origin, the parent links
 * give every level of a nested inline expansion (what addr2line -i shows).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "pl-inline-table.h"

#define MAX_DIE_DEPTH 256u /* nesting of scopes walked; deeper DWARF is cut */

typedef struct {
	guint64 lo, hi;
	guint32 node;
	guint32 depth;
} Interval;

typedef struct {
	guint64 lo, hi;
	guint32 node;
} Segment;

/* Nodes and segments of a part of the CU: one top-level function's
 * subtree, or the whole CU. */
typedef struct {
	GArray *nodes; /* PlScopeNode */
	GArray *segs;  /* Segment, sorted by lo, non-overlapping */
} Part;

/* A top-level function: its DIE, and its part once walked. */
typedef struct {
	Dwarf_Die die;
	gboolean inlined;
	guint32 depth; /* of the DIE, as the whole walk counts it */
	guint32 part;  /* index into parts, G_MAXUINT32 until walked */
} TopFn;

struct _PlInlineTable {
	Dwarf_Die cu;
	GPtrArray *parts; /* Part; PlScopeNode.part indexes it */
	guint32 whole;    /* the whole CU's part, G_MAXUINT32 until walked */
	gboolean lazy;    /* lookups go through the top-level functions */
	GArray *fns;      /* TopFn */
	GArray *tops;     /* Interval (node: index into fns), sorted, disjoint */
};

typedef struct {
	GArray *nodes;
	GArray *ivals; /* Interval */
	guint32 part;
} Builder;

static void add_node(Builder *b, Dwarf_Die *die, gboolean inlined, guint32 parent,
		     guint32 depth, guint32 *node_out)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	guint32 node = G_MAXUINT32;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (node == G_MAXUINT32) {
			PlScopeNode s = { *die, parent, b->part, inlined };
			node = b->nodes->len;
			g_array_append_val(b->nodes, s);
		}
		Interval iv = { lo, hi, node, depth };
		g_array_append_val(b->ivals, iv);
	}
	*node_out = node;
}

/* A DIE that is no scope node itself but whose children may be (blocks,
 * namespaces); types, variables and parameters have no code scopes inside. */
static gboolean holds_scopes(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_with_stmt:
	case DW_TAG_namespace:
	case DW_TAG_module:
		return TRUE;
	default:
		return FALSE;
	}
}

/* Walks the children of die; parent is the enclosing node (or none). */
static void walk(Builder *b, Dwarf_Die *die, guint32 parent, guint32 depth)
{
	Dwarf_Die child;
	if (depth >= MAX_DIE_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		guint32 node;
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			/* abstract instances and declarations have no ranges:
			 * nothing under them is code */
			add_node(b, &child, dwarf_tag(&child) == DW_TAG_inlined_subroutine, parent,
				 depth, &node);
			if (node != G_MAXUINT32)
				walk(b, &child, node, depth + 1);
			break;
		default:
			if (holds_scopes(&child))
				walk(b, &child, parent, depth + 1);
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static gint cmp_interval(gconstpointer pa, gconstpointer pb)
{
	const Interval *a = pa, *b = pb;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1; /* the wider (outer) one first */
	return a->depth < b->depth ? -1 : a->depth > b->depth;
}

static void emit(GArray *segs, guint64 lo, guint64 hi, guint32 node)
{
	if (lo >= hi)
		return;
	if (segs->len) {
		Segment *last = &g_array_index(segs, Segment, segs->len - 1);
		if (last->hi == lo && last->node == node) {
			last->hi = hi;
			return;
		}
	}
	Segment s = { lo, hi, node };
	g_array_append_val(segs, s);
}

/* Flattens intervals sorted by cmp_interval: a stack holds the intervals
 * open at the cursor, the top is the innermost.  Properly nested input
 * gives exact answers; an interval that overlaps its predecessor without
 * nesting (broken DWARF) wins where both apply. */
static GArray *flatten(GArray *ivals)
{
	GArray *segs = g_array_new(FALSE, FALSE, sizeof(Segment));
	g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(Interval));
	guint64 cursor = 0;
	for (guint i = 0; i <= ivals->len; i++) {
		const Interval *e = i < ivals->len ? &g_array_index(ivals, Interval, i) : NULL;
		while (stack->len) {
			const Interval *top = &g_array_index(stack, Interval, stack->len - 1);
			if (e && top->hi > e->lo)
				break;
			emit(segs, MAX(cursor, top->lo), top->hi, top->node);
			cursor = MAX(cursor, top->hi);
			g_array_set_size(stack, stack->len - 1);
		}
		if (!e)
			break;
		if (stack->len) {
			const Interval *top = &g_array_index(stack, Interval, stack->len - 1);
			emit(segs, MAX(cursor, top->lo), e->lo, top->node);
		}
		cursor = MAX(cursor, e->lo);
		g_array_append_val(stack, *e);
	}
	return segs;
}

static gint cmp_lo(gconstpointer pa, gconstpointer pb)
{
	const Interval *a = pa, *b = pb;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static void part_free(gpointer p)
{
	Part *part = p;
	g_array_unref(part->nodes);
	g_array_unref(part->segs);
	g_free(part);
}

/* Walks die (the CU: its children; a top-level function: it and its
 * subtree) into a new part; *ivals_out keeps the intervals when asked. */
static guint32 build_part(PlInlineTable *t, Dwarf_Die *die, const TopFn *fn, GArray **ivals_out)
{
	Builder b = { g_array_new(FALSE, FALSE, sizeof(PlScopeNode)),
		      g_array_new(FALSE, FALSE, sizeof(Interval)), t->parts->len };
	if (fn) {
		guint32 node;
		Dwarf_Die d = fn->die;
		add_node(&b, &d, fn->inlined, G_MAXUINT32, fn->depth, &node);
		if (node != G_MAXUINT32)
			walk(&b, &d, node, fn->depth + 1);
	} else {
		walk(&b, die, G_MAXUINT32, 0);
	}
	g_array_sort(b.ivals, cmp_interval);
	Part *part = g_new0(Part, 1);
	part->nodes = b.nodes;
	part->segs = flatten(b.ivals);
	g_ptr_array_add(t->parts, part);
	if (ivals_out)
		*ivals_out = b.ivals;
	else
		g_array_unref(b.ivals);
	return b.part;
}

/* The top-level functions of die's children (through namespaces and
 * blocks, as walk goes), their ranges only. */
static void walk_tops(PlInlineTable *t, Dwarf_Die *die, guint32 depth)
{
	Dwarf_Die child;
	if (depth >= MAX_DIE_DEPTH || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine: {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			TopFn fn = { child, tag == DW_TAG_inlined_subroutine, depth, G_MAXUINT32 };
			gboolean any = FALSE;
			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				Interval iv = { lo, hi, t->fns->len, 0 };
				g_array_append_val(t->tops, iv);
				any = TRUE;
			}
			if (any)
				g_array_append_val(t->fns, fn);
			break;
		}
		default:
			if (holds_scopes(&child))
				walk_tops(t, &child, depth + 1);
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

PlInlineTable *pl_inline_table_new(Dwarf_Die *cu)
{
	PlInlineTable *t = g_new0(PlInlineTable, 1);
	t->cu = *cu;
	t->parts = g_ptr_array_new_with_free_func(part_free);
	t->whole = G_MAXUINT32;
	t->fns = g_array_new(FALSE, FALSE, sizeof(TopFn));
	t->tops = g_array_new(FALSE, FALSE, sizeof(Interval));
	walk_tops(t, cu, 0);
	g_array_sort(t->tops, cmp_lo);
	t->lazy = TRUE;
	for (guint i = 1; i < t->tops->len && t->lazy; i++)
		t->lazy = g_array_index(t->tops, Interval, i).lo >=
			  g_array_index(t->tops, Interval, i - 1).hi;
	return t;
}

void pl_inline_table_free(gpointer p)
{
	PlInlineTable *t = p;
	if (!t)
		return;
	g_ptr_array_unref(t->parts);
	g_array_unref(t->fns);
	g_array_unref(t->tops);
	g_free(t);
}

/* The interval of sorted, disjoint v that holds addr, or NULL. */
static const Interval *find_top(GArray *v, guint64 addr)
{
	const Interval *a = (const Interval *)(void *)v->data;
	guint lo = 0, hi = v->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (a[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < a[lo - 1].hi ? &a[lo - 1] : NULL;
}

/* Every interval of a function's subtree inside the function's own. */
static gboolean contained(GArray *tops, guint32 fn, GArray *ivals)
{
	for (guint i = 0; i < ivals->len; i++) {
		const Interval *iv = &g_array_index(ivals, Interval, i);
		const Interval *in = find_top(tops, iv->lo);
		if (!in || in->node != fn || iv->hi > in->hi)
			return FALSE;
	}
	return TRUE;
}

static const PlScopeNode *part_lookup(const Part *part, guint64 addr)
{
	const Segment *v = (const Segment *)(void *)part->segs->data;
	guint lo = 0, hi = part->segs->len; /* first segment with lo > addr */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= v[lo - 1].hi)
		return NULL;
	return &g_array_index(part->nodes, PlScopeNode, v[lo - 1].node);
}

const PlScopeNode *pl_inline_table_lookup(PlInlineTable *t, guint64 addr)
{
	const Interval *top = t->lazy ? find_top(t->tops, addr) : NULL;
	if (top) {
		TopFn *fn = &g_array_index(t->fns, TopFn, top->node);
		if (fn->part == G_MAXUINT32) {
			GArray *ivals = NULL;
			fn->part = build_part(t, NULL, fn, &ivals);
			/* a scope outside its function: the whole CU from now on */
			t->lazy = contained(t->tops, top->node, ivals);
			g_array_unref(ivals);
		}
		if (t->lazy)
			return part_lookup(g_ptr_array_index(t->parts, fn->part), addr);
	}
	/* where no top-level function is, or the shortcut does not hold */
	t->lazy = FALSE;
	if (t->whole == G_MAXUINT32)
		t->whole = build_part(t, &t->cu, NULL, NULL);
	return part_lookup(g_ptr_array_index(t->parts, t->whole), addr);
}

const PlScopeNode *pl_inline_table_parent(const PlInlineTable *t, const PlScopeNode *s)
{
	const Part *part = s->part < t->parts->len ? g_ptr_array_index(t->parts, s->part) : NULL;
	return part && s->parent < part->nodes->len
		       ? &g_array_index(part->nodes, PlScopeNode, s->parent)
		       : NULL;
}
