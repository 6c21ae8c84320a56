/* pl-symbolizer-elf.c — the ELF source: an address in a mapped file, by
 * one Dwfl per file with the file reported at bias 0, so that an address
 * is looked up as "pc - load bias" and the answer (inline frames, source
 * lines, demangled names: pl-sym-frames.c) is cached per (PlElf, file
 * address) for every process that maps the file, failed lookups included.
 * Finding the files is pl-elf-locator.c's, the load bias pl-proc.c's. */
#include <string.h>

#include <elfutils/libdw.h>

#include "pl-elf-locator.h"
#include "pl-proc.h"
#include "pl-sym-frames.h"
#include "pl-sym-table.h"
#include "pl-symbolizer-elf.h"
#include "pl-symbolizer.h"

typedef struct {
	guint n;
	PlFrameInfo frames[]; /* rel_addr holds the looked-up address */
} PlCachedFrames;

/* A debuginfod fetch gave elf other files: what was read from the old
 * ones goes (answers from no file included). */
static void elf_forget_files(PlElf *elf)
{
	elf->files_changed = FALSE;
	g_clear_pointer(&elf->sym_table, pl_sym_table_free); /* names borrowed from the Dwfl */
	g_clear_pointer(&elf->real_syms, g_array_unref);
	if (elf->inline_tables)
		g_hash_table_remove_all(elf->inline_tables);
	if (elf->cache)
		g_hash_table_remove_all(elf->cache);
	g_clear_pointer(&elf->dwfl, dwfl_end);
	elf->mod = NULL;
	elf->dwfl_failed = FALSE;
	elf->sym_table_tried = FALSE;
}

gboolean pl_elf_ready(PlSymbols *self, PlElf *elf)
{
	if (elf->files_changed)
		elf_forget_files(elf);
	if (!pl_elf_prepare(self, elf))
		return FALSE;
	if (elf->mod)
		return TRUE;
	if (elf->dwfl_failed)
		return FALSE;
	elf->dwfl = dwfl_begin(&pl_sym_dwfl_callbacks);
	if (elf->dwfl) {
		dwfl_report_begin(elf->dwfl);
		elf->mod = pl_elf_report(elf->dwfl, elf, 0);
		dwfl_report_end(elf->dwfl, NULL, NULL);
	}
	if (!elf->mod) {
		elf->dwfl_failed = TRUE;
		if (!elf->problem)
			elf->problem = g_strdup_printf("%s: libdw cannot read %s: %s", elf->name,
						       elf->local_path, dwfl_errmsg(-1));
		return FALSE;
	}
	return TRUE;
}

guint pl_elf_resolve(PlSymbols *self, PlElf *elf, guint64 lookup, guint64 rel, PlFrameInfo *out,
		     guint max)
{
	PlCachedFrames *c = g_hash_table_lookup(elf->cache, &lookup);
	if (!c) {
		PlFrameInfo tmp[PL_SYM_MAX_INLINE + 1];
		guint n = pl_sym_frames(self, elf, lookup, tmp, G_N_ELEMENTS(tmp));
		c = g_malloc(sizeof(*c) + n * sizeof(PlFrameInfo));
		c->n = n;
		memcpy(c->frames, tmp, n * sizeof(PlFrameInfo));
		g_hash_table_insert(elf->cache, g_memdup2(&lookup, sizeof(lookup)), c);
	}
	guint n = MIN(c->n, max);
	memcpy(out, c->frames, n * sizeof(PlFrameInfo));
	for (guint i = 0; i < n; i++)
		out[i].rel_addr = rel;
	return n;
}

/* Every address in a mapped file is this source's: named from the file,
 * or module + offset when the file cannot be read or placed. */
static guint resolve(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out, guint max)
{
	if (!q->map || !q->map->elf)
		return 0;
	PlElf *elf = q->map->elf;
	elf->samples++;
	guint64 bias;
	if (pl_elf_ready(self, elf) && pl_mapping_bias(q->proc, q->map, &bias))
		return pl_elf_resolve(self, elf, q->lookup_pc - bias, q->pc - bias, out, max);
	out[0].module = pl_sym_intern(self, elf->name);
	out[0].rel_addr = q->pc - q->map->start + q->map->pgoff;
	return 1;
}

const PlSymbolizer pl_symbolizer_elf = { "elf", resolve };
