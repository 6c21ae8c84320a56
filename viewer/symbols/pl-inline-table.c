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

struct _PlInlineTable {
	GArray *nodes; /* PlScopeNode */
	GArray *segs;  /* Segment, sorted by lo, non-overlapping */
};

typedef struct {
	GArray *nodes;
	GArray *ivals; /* Interval */
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
			PlScopeNode s = { *die, parent, inlined };
			node = b->nodes->len;
			g_array_append_val(b->nodes, s);
		}
		Interval iv = { lo, hi, node, depth };
		g_array_append_val(b->ivals, iv);
	}
	*node_out = node;
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
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_with_stmt:
		case DW_TAG_namespace:
		case DW_TAG_module:
			walk(b, &child, parent, depth + 1);
			break;
		default:
			break; /* types, variables, parameters: no code scopes inside */
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

PlInlineTable *pl_inline_table_new(Dwarf_Die *cu)
{
	Builder b = { g_array_new(FALSE, FALSE, sizeof(PlScopeNode)),
		      g_array_new(FALSE, FALSE, sizeof(Interval)) };
	walk(&b, cu, G_MAXUINT32, 0);
	g_array_sort(b.ivals, cmp_interval);
	PlInlineTable *t = g_new0(PlInlineTable, 1);
	t->nodes = b.nodes;
	t->segs = flatten(b.ivals);
	g_array_unref(b.ivals);
	return t;
}

void pl_inline_table_free(gpointer p)
{
	PlInlineTable *t = p;
	if (!t)
		return;
	g_array_unref(t->nodes);
	g_array_unref(t->segs);
	g_free(t);
}

const PlScopeNode *pl_inline_table_lookup(const PlInlineTable *t, guint64 addr)
{
	const Segment *v = (const Segment *)(void *)t->segs->data;
	guint lo = 0, hi = t->segs->len; /* first segment with lo > addr */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= v[lo - 1].hi)
		return NULL;
	return &g_array_index(t->nodes, PlScopeNode, v[lo - 1].node);
}

const PlScopeNode *pl_inline_table_parent(const PlInlineTable *t, const PlScopeNode *s)
{
	return s->parent < t->nodes->len ? &g_array_index(t->nodes, PlScopeNode, s->parent)
					 : NULL;
}
