/* pl-sym-table.h — a module's ELF symbols sorted once (pl-sym-table.c).
 *
 * Knows nothing of PlSymbols: a Dwfl_Module in, names out.
 */
#ifndef PL_SYM_TABLE_H
#define PL_SYM_TABLE_H

#include <elfutils/libdwfl.h>
#include <glib.h>

G_BEGIN_DECLS

/* A module's symbols sorted once: lookups give what dwfl_module_addrinfo
 * gives (name and offset), by binary search instead of its walk over the
 * whole table.  NULL when the table cannot reproduce libdwfl (PowerPC64
 * function descriptors): ask libdwfl then.
 * Names are libdwfl's: valid while mod's Dwfl lives; free the table
 * before dwfl_end. */
typedef struct _PlSymTable PlSymTable;
PlSymTable *pl_sym_table_new(Dwfl_Module *mod, guint e_machine);
void pl_sym_table_free(PlSymTable *t);
/* dwfl_module_addrinfo(mod, addr, off, …) */
const char *pl_sym_table_lookup(const PlSymTable *t, guint64 addr, guint64 *off);
/* Of the code symbols at exactly value that reach value + off (sizeless,
 * or larger than off), the one perf report names the address after:
 * where aliases share an address libdwfl prefers a global or weak symbol
 * found first (memcpy's local label __memcpy_fwd in musl, weak qsort_r
 * over __qsort_r), perf a sized, typed, non-weak, global one with fewer
 * leading underscores.  NULL when there is none. */
const char *pl_sym_table_perf_alias(const PlSymTable *t, guint64 value, guint64 off);

G_END_DECLS

#endif
