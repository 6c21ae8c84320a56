/* pl-vmlinux.h — kernel frames from the board's vmlinux (PlSymOptions.vmlinux,
 * `--vmlinux FILE`): function names, source lines and inline frames from its
 * DWARF instead of kallsyms' names alone (pl-vmlinux.c).
 *
 * The kernel runs at its link address unless KASLR moved it: the offset is
 * the board's kallsyms address of _text less the vmlinux's.  A vmlinux of
 * another build is refused, with a problem that says so: by build-id when
 * the capture carries the board kernel's (the agent's /sys/kernel/notes
 * chunk, perf.data's [kernel.kallsyms] build-id), else when the board's
 * kallsyms functions are not where the vmlinux puts them.
 */
#ifndef PL_VMLINUX_H
#define PL_VMLINUX_H

#include "pl-symbols-types.h"
#include "pl-text-syms.h"

/* The located kernel PlElf (owned by self, made at the first call) and in
 * *offset what to subtract from a kernel address to get the vmlinux's.
 * kallsyms: the board's table, or NULL when the capture has none (the
 * kernel is then taken to be at its link address).  NULL when no vmlinux
 * was given or it is refused (self->vmlinux->problem says why). */
PlElf *pl_vmlinux_get(PlSymbols *self, const PlTextSyms *kallsyms, guint64 *offset);
/* Whether vmlinux address a lies in one of its loaded segments (else the
 * address is a module's, named by kallsyms). */
gboolean pl_vmlinux_covers(PlSymbols *self, guint64 a);
/* The board kernel's build-id, from its /sys/kernel/notes bytes (ELF
 * notes, in the board's byte order): its length, 0 when none is there.
 * id holds PL_SYM_MAX_BUILD_ID bytes. */
gsize pl_vmlinux_notes_build_id(const guint8 *notes, gsize len, gboolean big_endian,
				guint8 *id);

#endif
