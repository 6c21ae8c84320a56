/* pl-unwind.h — DWARF unwinding of sampled user stacks with libdwfl, and
 * the ARM EHABI step where no CFI covers a PC (pl-unwind.c).
 * pl_symbols_unwind itself is public (pl-symbols.h).
 */
#ifndef PL_UNWIND_H
#define PL_UNWIND_H

#include "pl-symbols-types.h"

/* Frees proc's unwinding Dwfl: the next unwind reports every mapping
 * again. */
void pl_proc_drop_dwfl(PlProc *proc);

/* pl_symbols_unwind without the ahead, also telling how much of the
 * stack copy the walk read (*stack_used: the answer depends on the
 * registers, stack_size and those bytes only). */
guint pl_symbols_unwind_used(PlSymbols *self, guint32 pid, guint32 tid, guint64 regs_mask,
			     const guint64 *regs, guint nregs, const guint8 *stack,
			     gsize stack_size, guint64 *pcs, guint max, gboolean *truncated,
			     gsize *stack_used);

#endif
