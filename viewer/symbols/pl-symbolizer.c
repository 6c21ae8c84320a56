/* pl-symbolizer.c — the order of the sources, and the fallback; see
 * pl-symbolizer.h. */
#include "pl-proc.h"
#include "pl-symbolizer.h"

/* The sources, first asked first; each is pl_symbolizer_NAME, defined in
 * pl-symbolizer-NAME.c.  Why this order:
 *   embedded    a self-contained session answers from its table alone,
 *               never from a file here (it carries what the files said);
 *   debuginfod  answers nothing itself: it fetches what the mapped file
 *               lacks (a main file, symbols, lines) before the ELF source
 *               reads it, so the first answer already has the fetched names;
 *   elf         an address in a mapped file: its symbols, DWARF lines and
 *               inline frames, or module + offset when it cannot say more;
 *   vmlinux     an address outside every mapping, in the board's vmlinux
 *               (given with --vmlinux): names with lines and inlines;
 *   kallsyms    the same in /proc/kallsyms as the agent sent it (modules
 *               too): names only, so after vmlinux;
 *   perf_map    JIT code named in the process's /tmp/perf-PID.map.
 * Adding a source: its file, and its line here. */
#define PL_SYMBOLIZER_ORDER(X)                                                                   \
	X(embedded)                                                                              \
	X(debuginfod)                                                                            \
	X(elf)                                                                                   \
	X(vmlinux)                                                                               \
	X(kallsyms)                                                                              \
	X(perf_map)

#define DECLARE(name) extern const PlSymbolizer pl_symbolizer_##name;
PL_SYMBOLIZER_ORDER(DECLARE)
#undef DECLARE

#define ENTRY(name) &pl_symbolizer_##name,
static const PlSymbolizer *const order[] = { PL_SYMBOLIZER_ORDER(ENTRY) };
#undef ENTRY

/* No source named it: the mapping's file and the offset in it, or
 * "[unknown]" where no mapping is (counted for the coverage). */
static guint unknown(PlSymbols *self, const PlSymQuery *q, PlFrameInfo *out)
{
	self->unknown_samples++;
	if (q->map) {
		g_autofree char *b = g_path_get_basename(q->map->name);
		out[0].module = pl_sym_intern(self, *q->map->name ? b : "[anon]");
		out[0].rel_addr = q->pc - q->map->start + q->map->pgoff;
	} else {
		out[0].module = pl_sym_intern(self, "[unknown]");
	}
	return 1;
}

guint pl_symbolizer_resolve(PlSymbols *self, guint32 pid, guint64 pc, gboolean is_return_address,
			    PlFrameInfo *out, guint max)
{
	PlSymQuery q = { .pid = pid, .pc = pc, .is_return_address = is_return_address };
	q.lookup_pc = is_return_address && pc ? pc - 1 : pc;
	q.proc = pl_proc_get(self, pid, FALSE);
	q.map = pl_proc_mapping_at(q.proc, q.lookup_pc);
	const PlSymCache *cache = self->opts.cache;
	const PlElf *elf = q.map ? q.map->elf : NULL;
	gboolean cached = cache && !self->embedded && elf && elf->build_id_len;
	guint64 offset = cached ? pc - q.map->start + q.map->pgoff : 0;
	if (cached) {
		guint n = cache->lookup(self->opts.cache_data, elf->build_id, elf->build_id_len,
					offset, is_return_address, out, max);
		for (guint i = 0; i < n; i++) {
			out[i].function = pl_sym_intern(self, out[i].function);
			out[i].module = pl_sym_intern(self, out[i].module);
			out[i].file = pl_sym_intern(self, out[i].file);
			out[i].decl_file = pl_sym_intern(self, out[i].decl_file);
		}
		if (n)
			return n;
	}
	for (guint i = 0; i < G_N_ELEMENTS(order); i++) {
		out[0] = (PlFrameInfo){ .rel_addr = pc };
		guint n = order[i]->resolve(self, &q, out, max);
		if (n && cached && out[0].function)
			cache->store(self->opts.cache_data, elf->build_id, elf->build_id_len, offset,
				     is_return_address, out, n);
		if (n)
			return n;
	}
	out[0] = (PlFrameInfo){ .rel_addr = pc };
	return unknown(self, &q, out);
}
