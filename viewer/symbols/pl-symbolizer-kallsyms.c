/* pl-symbolizer-kallsyms.c — a kernel address (outside every mapping) by
 * the board's /proc/kallsyms, as the agent sent it or --kallsyms gave it:
 * the function and its module, no lines. */
#include "pl-symbolizer.h"
#include "pl-text-syms.h"

static guint resolve(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max)
{
	if (q->map || !self->kallsyms.text)
		return 0;
	const PlTextSyms *t = pl_text_file_table(self, &self->kallsyms, 0);
	const PlTextSym *s = pl_text_syms_lookup(t, q->lookup_pc);
	if (!s)
		return 0;
	self->kernel_samples++;
	out[0].function = pl_text_sym_name(self, t, s);
	out[0].module = pl_text_sym_module(t, s);
	return 1;
}

const PlSymbolizer pl_symbolizer_kallsyms = { "kallsyms", resolve };
