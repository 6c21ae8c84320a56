/* pl-proc.h — a process's mappings (pl-proc.c): the PlProc of a pid, and
 * the load bias of each of its mappings.
 */
#ifndef PL_PROC_H
#define PL_PROC_H

#include "pl-symbols-types.h"

PlProc *pl_proc_get(PlSymbols *self, guint32 pid, gboolean create);
/* The mapping of proc (may be NULL) holding pc, or NULL. */
const PlMapping *pl_proc_mapping_at(const PlProc *proc, guint64 pc);
/* Load bias of mapping m (an element of proc->maps with a located elf). */
gboolean pl_mapping_bias(const PlProc *proc, const PlMapping *m, guint64 *bias);

#endif
