/* pl-ehabi-coverage.c — the coverage report's sentence for ARM32 modules:
 * code that neither CFI nor .ARM.exidx describes is where every DWARF-mode
 * stack will stop, and the user is told which functions those are.  The
 * tables are read with the decoder of pl-ehabi.c.
 */
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "pl-demangle.h"
#include "pl-ehabi-coverage.h"
#include "pl-ehabi.h"

#define COVERAGE_NAMES 8u    /* functions named in the coverage sentence */

/* End of the CFI description covering addr (in either table), or 0. */
static guint64 cfi_end(Dwarf_CFI *const *cfis, guint n, guint64 addr)
{
	for (guint i = 0; i < n; i++) {
		Dwarf_Frame *f = NULL;
		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], addr, &f) != 0)
			continue;
		Dwarf_Addr s = 0, e = 0;
		gboolean ok = dwarf_frame_info(f, &s, &e, NULL) >= 0 && e > addr;
		free(f);
		if (ok)
			return e;
	}
	return 0;
}

typedef struct {
	guint32 addr;
	const char *name;
} PlNamedAddr;

static gint cmp_named(gconstpointer a, gconstpointer b)
{
	const PlNamedAddr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Is addr inside one of the sorted [start, end) pairs of r? */
static gboolean in_ranges(const GArray *r, guint32 addr)
{
	guint lo = 0, hi = r->len / 2;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		guint32 a = g_array_index(r, guint32, 2 * mid), z = g_array_index(r, guint32, 2 * mid + 1);
		if (addr < a)
			hi = mid;
		else if (addr >= z)
			lo = mid + 1;
		else
			return TRUE;
	}
	return FALSE;
}

/* "N functions: a, b, c, …" for the function symbols that start in the
 * bare ranges (ARM mapping symbols $a/$t/$d are not functions). */
static char *bare_functions(PlSymbols *self, Dwfl_Module *mod, const GArray *bare)
{
	g_autoptr(GArray) found = g_array_new(FALSE, FALSE, sizeof(PlNamedAddr));
	int n = dwfl_module_getsymtab(mod);
	for (int i = 0; i < n && found->len < PL_EHABI_MAX_GAPS; i++) {
		GElf_Sym sym;
		GElf_Addr addr = 0;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (!name || !*name || name[0] == '$' || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		guint32 a = (guint32)sym.st_value & ~1u; /* bias 0; the Thumb bit is not an address */
		if (in_ranges(bare, a))
			g_array_append_val(found, ((PlNamedAddr){ a, name }));
	}
	g_array_sort(found, cmp_named);
	GString *g = g_string_new(NULL);
	guint shown = 0, total = 0;
	for (guint i = 0; i < found->len; i++) {
		const PlNamedAddr *f = &g_array_index(found, PlNamedAddr, i);
		if (i > 0 && g_array_index(found, PlNamedAddr, i - 1).addr == f->addr)
			continue; /* aliases: memcpy and __memcpy_neon at one address */
		total++;
		if (shown >= COVERAGE_NAMES)
			continue;
		g_autofree char *plain = g_strndup(f->name, strcspn(f->name, "@"));
		g_string_append_printf(g, "%s%s", shown++ ? ", " : "", pl_sym_demangle(self, plain));
	}
	if (total == 0) {
		g_string_free(g, TRUE);
		return g_strdup("no function symbols there");
	}
	char *r = g_strdup_printf("%u function%s: %s%s", total, total == 1 ? "" : "s", g->str,
				  total > shown ? ", …" : "");
	g_string_free(g, TRUE);
	return r;
}

void pl_ehabi_coverage(PlSymbols *self, PlElf *elf, PlModuleReport *row)
{
	if (elf->e_machine != EM_ARM || !elf->local_path)
		return;
	g_autofree char *sentence = NULL;
	if (!elf->has_ehabi && !elf->has_cfi) {
		sentence = g_strdup_printf(
			"%s: no unwind tables (neither .eh_frame/.debug_frame nor .ARM.exidx): "
			"DWARF-mode stacks stop at its first frame; build it with "
			"-funwind-tables, or keep its .debug_frame (-g) in the file given here",
			elf->name);
	} else if (elf->mod) {
		Dwarf_Addr bias = 0;
		Elf *e = dwfl_module_getelf(elf->mod, &bias);
		PlEhabiImage img;
		if (!e || !pl_ehabi_image_from_elf(e, &img))
			return; /* no .ARM.exidx: CFI alone, as on any other machine */
		Dwarf_Addr b1 = 0, b2 = 0;
		Dwarf_CFI *cfis[2] = { dwfl_module_eh_cfi(elf->mod, &b1),
				       dwfl_module_dwarf_cfi(elf->mod, &b2) };
		g_autoptr(GArray) gaps = g_array_new(FALSE, FALSE, sizeof(guint32));
		g_autoptr(GArray) bare = g_array_new(FALSE, FALSE, sizeof(guint32));
		pl_ehabi_uncovered(&img, gaps);
		guint64 code = 0, bare_bytes = 0;
		for (guint i = 0; i < img.ncode; i++)
			code += img.code[i].filesz;
		for (guint i = 0; i + 1 < gaps->len; i += 2) {
			guint64 a = g_array_index(gaps, guint32, i);
			guint64 z = g_array_index(gaps, guint32, i + 1);
			/* CFI may describe what the exidx table does not (only its
			 * start is checked: FDEs and exidx entries are per function) */
			for (guint steps = 0; a < z && steps < 64; steps++) {
				guint64 ce = cfi_end(cfis, 2, a);
				if (!ce)
					break;
				a = ce;
			}
			if (a >= z)
				continue;
			bare_bytes += z - a;
			guint32 r[2] = { (guint32)a, (guint32)z };
			g_array_append_vals(bare, r, 2);
		}
		if (!bare->len)
			return;
		g_autofree char *fns = bare_functions(self, elf->mod, bare);
		sentence = g_strdup_printf(
			"%s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " code bytes have neither "
			"CFI nor .ARM.exidx unwind entries (%s): DWARF-mode stacks sampled there "
			"stop at that frame; build that code with -funwind-tables (assembler: "
			".fnstart/.save/.fnend) or keep its .debug_frame",
			elf->name, bare_bytes, code, fns);
	}
	if (!sentence)
		return;
	char *p = row->problem ? g_strconcat(row->problem, "; ", sentence, NULL)
			       : g_strdup(sentence);
	g_free(row->problem);
	row->problem = p;
}
