/* pl-symbolizer-vmlinux.c — a kernel address (outside every mapping) by
 * the board's vmlinux, where it covers the address (modules are left to
 * kallsyms): names, lines and inline frames from its DWARF (pl-vmlinux.h
 * finds and checks the file). */
#include "pl-symbolizer-elf.h"
#include "pl-symbolizer.h"
#include "pl-text-syms.h"
#include "pl-vmlinux.h"

static guint resolve(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max)
{
	if (q->map || !self->opts.vmlinux)
		return 0;
	guint64 off = 0;
	const PlTextSyms *t =
		self->kallsyms.text ? pl_text_file_table(self, &self->kallsyms, 0) : NULL;
	PlElf *k = pl_vmlinux_get(self, t, &off);
	if (!k || !pl_vmlinux_covers(self, q->lookup_pc - off) || !pl_elf_ready(self, k))
		return 0;
	self->kernel_samples++;
	k->samples++;
	return pl_elf_resolve(self, k, q->lookup_pc - off, q->pc - off, out, max);
}

const PlSymbolizer pl_symbolizer_vmlinux = { "vmlinux", resolve };
