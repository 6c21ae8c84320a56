/* pl-symbolizer-perf-map.c — JIT code by the process's /tmp/perf-PID.map
 * (sent by the agent): the function, in the module "perf-PID.map". */
#include "pl-symbolizer.h"
#include "pl-text-syms.h"

static guint resolve(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max)
{
	if (!q->proc || !q->proc->perf_map.text)
		return 0;
	const PlTextSyms *t = pl_text_file_table(self, &q->proc->perf_map, q->pid);
	const PlTextSym *s = pl_text_syms_lookup(t, q->lookup_pc);
	if (!s)
		return 0;
	out[0].function = pl_text_sym_name(self, t, s);
	out[0].module = pl_text_sym_module(t, s);
	return 1;
}

const PlSymbolizer pl_symbolizer_perf_map = { "perf-map", resolve };
