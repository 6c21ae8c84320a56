/* pl-inline-table.h — the code scopes of one DWARF compilation unit
 * (pl-inline-table.c).
 *
 * Knows nothing of PlSymbols: a CU's DIE in, scopes out.
 */
#ifndef PL_INLINE_TABLE_H
#define PL_INLINE_TABLE_H

#include <elfutils/libdw.h>
#include <glib.h>

G_BEGIN_DECLS

/* A concrete subprogram or inlined subroutine of a CU.  die stays valid as
 * long as the Dwarf it came from. */
typedef struct {
	Dwarf_Die die;
	guint32 parent; /* index of the enclosing node in its part, G_MAXUINT32 at the top */
	guint32 part;   /* the part of the table that holds it (pl-inline-table.c) */
	gboolean inlined; /* DW_TAG_inlined_subroutine, else DW_TAG_subprogram */
} PlScopeNode;

typedef struct _PlInlineTable PlInlineTable;

/* Reads the CU's top-level functions (their ranges); a function's subtree
 * is walked at the first lookup in it (cost: at most one pass over the
 * CU's DIEs in all).  The Dwarf must outlive the table. */
PlInlineTable *pl_inline_table_new(Dwarf_Die *cu);
void pl_inline_table_free(gpointer t);
/* The innermost scope containing addr (a DWARF address of the CU), or NULL.
 * May walk more of the CU (not thread-safe); nodes returned stay valid as
 * long as the table. */
const PlScopeNode *pl_inline_table_lookup(PlInlineTable *t, guint64 addr);
/* The scope enclosing s, or NULL. */
const PlScopeNode *pl_inline_table_parent(const PlInlineTable *t, const PlScopeNode *s);

G_END_DECLS

#endif
