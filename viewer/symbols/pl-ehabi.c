/* pl-ehabi.c — ARM EHABI (.ARM.exidx / .ARM.extab) unwinding: the hook.
 *
 * Why it exists: Debian's armhf libc and many ARM firmware builds carry
 * only the ARM exception-handling ABI tables, which libdw cannot read, so
 * a DWARF walk stops at the first frame in such code.  pl_symbols_unwind
 * calls pl_ehabi_step() whenever libdw stops on an EM_ARM target, with the
 * registers of the last frame it reached; a TRUE return restarts libdw from
 * the caller's registers, so EHABI and CFI frames can alternate.
 *
 * To implement (a later issue): find the module of regs[15] in proc->dwfl,
 * binary-search its .ARM.exidx (prel31 entries, EXIDX_CANTUNWIND = 1,
 * inline compact entries with bit 31 set, else a prel31 to .ARM.extab),
 * run the personality routine 0/1/2 byte-code (vsp arithmetic, pop
 * r4-r15 under mask, finish 0xb0) reading memory from proc->cur's stack
 * copy, then set r15 = lr (minus the Thumb bit) and r13 = vsp.
 * Until then ARM stacks through EHABI-only code are reported truncated.
 */
#include "pl-symbols-private.h"

gboolean pl_ehabi_step(PlSymbols *self, PlProc *proc, guint64 regs[16], guint32 *valid)
{
	return FALSE;
}
