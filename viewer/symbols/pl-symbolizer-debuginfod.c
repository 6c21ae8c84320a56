/* pl-symbolizer-debuginfod.c — debuginfod as a source: it answers nothing
 * itself, it fetches the files the ELF source lacks for the module of the
 * address (pl-debuginfod.h: once per module, only what is sampled) before
 * that source reads them. */
#include "pl-debuginfod.h"
#include "pl-symbolizer.h"

static guint resolve(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max)
{
	if (q->map && q->map->elf)
		pl_debuginfod_fetch(self, q->map->elf, PL_FETCH_SYMBOLS);
	return 0;
}

const PlSymbolizer pl_symbolizer_debuginfod = { "debuginfod", resolve };
