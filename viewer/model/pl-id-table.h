/* pl-id-table.h — a small open-addressing hash table from a pair of 64-bit
 * keys to a 32-bit id, for interning: the model's functions, call-tree
 * nodes, source locations and address-trie nodes are each an array plus
 * one of these (key → index into the array).  Ids are the caller's; the
 * table only finds them.  No removal.  Keys may be anything (pointers to
 * interned strings, ids, addresses); the value PL_NO_ID cannot be stored.
 * Not thread-safe; no GTK. */
#ifndef PL_ID_TABLE_H
#define PL_ID_TABLE_H

#include <glib.h>

G_BEGIN_DECLS

/* "no id": an empty slot, and what a lookup of an absent key returns
 * (the same value as pl-profile.h's) */
#ifndef PL_NO_ID
#define PL_NO_ID G_MAXUINT32
#endif

typedef struct {
	guint64 *ka, *kb;
	guint32 *val; /* PL_NO_ID: empty */
	gsize cap, n;
} PlIdTable;

void pl_id_table_init(PlIdTable *t);
void pl_id_table_free(PlIdTable *t); /* the table's arrays, not t */
/* The id stored for (a, b), PL_NO_ID when none. */
guint32 pl_id_table_lookup(PlIdTable *t, guint64 a, guint64 b);
/* Stores v for (a, b), replacing an id stored before; grows as needed. */
void pl_id_table_insert(PlIdTable *t, guint64 a, guint64 b, guint32 v);

G_END_DECLS

#endif
