/* pl-data-syms.c — the data symbol holding an address of a process (a
 * global variable: a lock's futex word), pl-symbols.h.
 *
 * Why apart from pl_symbols_resolve: the agent sends the mappings of code
 * only, so a global in .data or .bss often lies past every mapping the
 * viewer knows.  It lies in the file whose code is mapped nearest below
 * it, at that mapping's load bias; the file's symbol table then names it
 * (a sized symbol must contain the address, a sizeless one share its
 * section: pl-sym-table.c's rules), and an address in no symbol of that
 * file (the heap, a stack) is named by none. */
#include <elfutils/libdwfl.h>

#include "pl-proc.h"
#include "pl-sym-table.h"
#include "pl-symbolizer-elf.h"
#include "pl-symbols.h"
#include "pl-symbols-types.h"

gboolean pl_symbols_data_symbol(PlSymbols *self, guint32 pid, guint64 addr, const char **name,
				guint64 *offset, const char **module)
{
	PlProc *proc = pl_proc_get(self, pid, FALSE);
	if (!proc || !proc->maps)
		return FALSE;
	/* the file mapped nearest below addr (the maps are sorted by start) */
	const PlMapping *m = NULL;
	for (guint i = 0; i < proc->maps->len; i++) {
		const PlMapping *x = &g_array_index(proc->maps, PlMapping, i);
		if (x->start > addr)
			break;
		if (x->elf)
			m = x;
	}
	guint64 bias;
	if (!m || !pl_elf_ready(self, m->elf) || !pl_mapping_bias(proc, m, &bias) || addr < bias)
		return FALSE;
	PlElf *elf = m->elf;
	if (!elf->sym_table_tried) {
		elf->sym_table_tried = TRUE;
		elf->sym_table = pl_sym_table_new(elf->mod, elf->e_machine);
	}
	guint64 a = addr - bias, off = 0;
	GElf_Off doff = 0;
	GElf_Sym sym;
	const char *s = elf->sym_table ? pl_sym_table_lookup(elf->sym_table, a, &off)
				       : dwfl_module_addrinfo(elf->mod, a, &doff, &sym, NULL, NULL,
							      NULL);
	if (!s || !*s)
		return FALSE;
	*name = pl_sym_intern(self, s);
	*offset = elf->sym_table ? off : doff;
	*module = pl_sym_intern(self, elf->name);
	return TRUE;
}
