/* pl-sym-frames.c — one address of one ELF file as frames (see
 * pl-sym-frames.h): the DWARF function around it and the chain of inline
 * frames to it, each with its source line and where it is defined
 * (decl_file / decl_line), names demangled; else the ELF symbol table's
 * "real" symbol (no mapping symbols, sized and global first), else the
 * linker map's.  pl-symbols.c caches the answer per (PlElf, address).
 */
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "pl-demangle.h"
#include "pl-inline-table.h"
#include "pl-ldmap.h"
#include "pl-sym-frames.h"
#include "pl-sym-table.h"

typedef struct {
	guint64 addr, size;
	const char *name; /* libdwfl's string, valid while the PlElf's Dwfl lives */
	guint8 rank;      /* at equal addresses the higher wins: sized, global, function */
} PlRealSym;

static const char *map_path(PlSymbols *self, const char *dir, const char *file)
{
	if (!file)
		return NULL;
	g_autofree char *full = NULL;
	if (dir && *dir && file[0] != '/')
		full = g_build_filename(dir, file, NULL);
	const char *f = full ? full : file;
	for (guint i = 0; i < self->opts.path_maps->len; i++) {
		const char *pm = g_ptr_array_index(self->opts.path_maps, i);
		const char *eq = strchr(pm, '=');
		if (!eq || eq == pm)
			continue;
		gsize n = (gsize)(eq - pm);
		if (!strncmp(f, pm, n) && (f[n] == '/' || f[n] == 0 || pm[n - 1] == '/')) {
			g_autofree char *m = g_strconcat(eq + 1, f + n, NULL);
			return pl_sym_intern(self, m);
		}
	}
	return pl_sym_intern(self, f);
}

static const char *die_function_name(PlSymbols *self, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n ? pl_sym_demangle(self, n) : NULL;
}

/* Where the function of die is defined (DW_AT_decl_file and _line, from
 * its abstract origin or specification when it has none itself), as
 * map_path names files, so that it compares equal to the line table's
 * names for the same file.  NULL when the DWARF does not say. */
static const char *die_decl(PlSymbols *self, Dwarf_Die *cu, Dwarf_Die *die, guint *line)
{
	*line = 0;
	const char *f = dwarf_decl_file(die);
	if (!f)
		return NULL;
	int l = 0;
	if (dwarf_decl_line(die, &l) == 0 && l > 0)
		*line = (guint)l;
	Dwarf_Attribute ca;
	const char *comp = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &ca)) : NULL;
	return map_path(self, comp, f);
}

/* File name of entry idx of the CU's line table. */
static const char *cu_file(PlSymbols *self, Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t n;
	if (dwarf_getsrcfiles(cu, &files, &n) != 0 || idx >= n)
		return NULL;
	const char *f = dwarf_filesrc(files, idx, NULL, NULL);
	const char *const *dirs;
	size_t ndirs;
	const char *comp = NULL;
	if (dwarf_getsrcdirs(files, &dirs, &ndirs) == 0 && ndirs > 0)
		comp = dirs[0];
	return map_path(self, comp, f);
}

/* The --map fallback: a name from the GNU ld map for an address of elf
 * that its own symbol table does not cover.  The map describes the
 * program named in its OUTPUT(); without one, any module but a shared
 * library. */
static const char *ldmap_name(PlSymbols *self, PlElf *elf, guint64 a)
{
	if (!self->opts.map_file)
		return NULL;
	if (!self->ldmap_tried) {
		self->ldmap_tried = TRUE;
		self->ldmap = pl_ldmap_load(self->opts.map_file, NULL); /* the CLI reports errors */
	}
	if (!self->ldmap)
		return NULL;
	const char *out = pl_ldmap_get_output(self->ldmap);
	if (out) {
		g_autofree char *b = g_path_get_basename(out);
		if (strcmp(b, elf->name) != 0)
			return NULL;
	} else if (strstr(elf->name, ".so")) {
		return NULL;
	}
	const char *n = pl_ldmap_lookup(self->ldmap, a, NULL);
	return n ? pl_sym_demangle(self, n) : NULL;
}

/* The scope table of the CU cu of elf, built at its first use. */
static PlInlineTable *elf_inline_table(PlElf *elf, Dwarf_Die *cu)
{
	if (!elf->inline_tables)
		elf->inline_tables = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
							   pl_inline_table_free);
	guint64 key = dwarf_dieoffset(cu);
	PlInlineTable *t = g_hash_table_lookup(elf->inline_tables, &key);
	if (!t) {
		t = pl_inline_table_new(cu);
		g_hash_table_insert(elf->inline_tables, g_memdup2(&key, sizeof(key)), t);
	}
	return t;
}

/* ARM ELF for the ARM/AArch64 architectures, "Mapping symbols": $a, $t,
 * $d (and $x on AArch64), optionally followed by ".anything", mark the
 * start of ARM code, Thumb code or data.  They are not functions, but
 * libdwfl may pick one (at a Thumb function's first instruction the
 * function's own value is odd and so "after" the address). */
static gboolean is_mapping_symbol(const char *n)
{
	return n && n[0] == '$' && n[1] && strchr("atdx", n[1]) && (n[2] == 0 || n[2] == '.');
}

static gint cmp_real_sym(gconstpointer pa, gconstpointer pb)
{
	const PlRealSym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (gint)a->rank - (gint)b->rank;
}

/* The symbol that encloses a when libdwfl answered with a mapping symbol:
 * the last code symbol at or below a (of those at one address the best
 * ranked), if a is inside it or it has no size. */
static const char *real_symbol(PlElf *elf, guint64 a)
{
	if (!elf->real_syms) {
		elf->real_syms = g_array_new(FALSE, FALSE, sizeof(PlRealSym));
		int n = dwfl_module_getsymtab(elf->mod);
		for (int i = 1; i < n; i++) {
			GElf_Sym sym;
			GElf_Addr addr;
			GElf_Word shndx;
			const char *name = dwfl_module_getsym_info(elf->mod, i, &sym, &addr, &shndx,
								   NULL, NULL);
			int type = GELF_ST_TYPE(sym.st_info);
			if (!name || !*name || is_mapping_symbol(name) || shndx == SHN_UNDEF ||
			    (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC))
				continue;
			if (elf->e_machine == EM_ARM && type == STT_FUNC)
				addr &= ~(GElf_Addr)1; /* the Thumb bit */
			PlRealSym r = { addr, sym.st_size, name,
					(guint8)((sym.st_size ? 4 : 0) +
						 (GELF_ST_BIND(sym.st_info) != STB_LOCAL ? 2 : 0) +
						 (type != STT_NOTYPE ? 1 : 0)) };
			g_array_append_val(elf->real_syms, r);
		}
		g_array_sort(elf->real_syms, cmp_real_sym);
	}
	const PlRealSym *v = (const PlRealSym *)(void *)elf->real_syms->data;
	guint lo = 0, hi = elf->real_syms->len; /* first with addr > a */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (v[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const PlRealSym *r = &v[lo - 1];
	return r->size == 0 || a - r->addr < r->size ? r->name : NULL;
}

/* Fills frames for lookup address a (relative to bias 0). */
guint pl_sym_frames(PlSymbols *self, PlElf *elf, guint64 a, PlFrameInfo *fr, guint max)
{
	const char *module = pl_sym_intern(self, elf->name);
	for (guint i = 0; i < max; i++)
		fr[i] = (PlFrameInfo){ .module = module, .rel_addr = a };
	GElf_Off off;
	GElf_Sym sym;
	if (!elf->sym_table_tried) {
		elf->sym_table_tried = TRUE;
		elf->sym_table = pl_sym_table_new(elf->mod, elf->e_machine);
	}
	guint64 toff;
	const char *symname = elf->sym_table
				      ? pl_sym_table_lookup(elf->sym_table, a, &toff)
				      : dwfl_module_addrinfo(elf->mod, a, &off, &sym, NULL, NULL, NULL);
	if (is_mapping_symbol(symname)) {
		symname = real_symbol(elf, a);
	} else if (symname && elf->sym_table) {
		/* of aliases, the name perf report gives (a profile is read
		 * next to perf's, and compared with it) */
		const char *alias = pl_sym_table_perf_alias(elf->sym_table, a - toff, toff);
		if (alias)
			symname = alias;
	}
	g_autofree char *unversioned = NULL;
	const char *ver = symname && symname[0] != '@' ? strchr(symname, '@') : NULL;
	if (ver) /* "__libc_start_main@@GLIBC_2.34": the version is noise here */
		symname = unversioned = g_strndup(symname, (gsize)(ver - symname));
	const char *outer_name = symname ? pl_sym_demangle(self, symname) : ldmap_name(self, elf, a);

	const char *file = NULL;
	guint line = 0;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(elf->mod, a, &bias);
	Dwfl_Line *dl = dwfl_module_getsrc(elf->mod, a);
	if (dl) {
		int l = 0;
		const char *src = dwfl_lineinfo(dl, NULL, &l, NULL, NULL, NULL);
		if (src) {
			/* relative line-table names are relative to the CU's
			 * comp dir: joined as cu_file() joins call sites, so an
			 * inline's call site and ordinary code of the same line
			 * name the same file */
			Dwarf_Attribute ca;
			const char *comp = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &ca))
					      : NULL;
			file = map_path(self, comp, src);
			line = l > 0 ? (guint)l : 0;
		}
	}

	guint n = 0;
	PlInlineTable *it = cu && !self->opts.no_inline ? elf_inline_table(elf, cu) : NULL;
	const PlScopeNode *s = it ? pl_inline_table_lookup(it, a - bias) : NULL;
	for (; s && s->inlined && n + 1 < max && n < PL_SYM_MAX_INLINE;
	     s = pl_inline_table_parent(it, s)) {
		/* this inline body runs at file:line; its caller is at the call site */
		Dwarf_Die d = s->die;
		fr[n].function = die_function_name(self, &d);
		fr[n].file = file;
		fr[n].line = line;
		fr[n].inlined = TRUE;
		fr[n].decl_file = die_decl(self, cu, &d, &fr[n].decl_line);
		n++;
		Dwarf_Attribute at;
		Dwarf_Word cf = 0, cl = 0;
		file = NULL;
		line = 0;
		if (dwarf_formudata(dwarf_attr(&d, DW_AT_call_file, &at), &cf) == 0)
			file = cu_file(self, cu, cf);
		if (dwarf_formudata(dwarf_attr(&d, DW_AT_call_line, &at), &cl) == 0)
			line = (guint)cl;
	}
	/* the real function: the ELF symbol (has the full C++ name), else DWARF */
	const char *fn = outer_name;
	while (s && s->inlined)
		s = pl_inline_table_parent(it, s);
	if (s) {
		/* its subprogram DIE: the name when the ELF has none, and
		 * where it is defined (two static functions of one name in
		 * two files are two functions: pl-profile.h) */
		Dwarf_Die d = s->die;
		if (!fn)
			fn = die_function_name(self, &d);
		fr[n].decl_file = die_decl(self, cu, &d, &fr[n].decl_line);
	}
	fr[n].function = fn;
	fr[n].file = file;
	fr[n].line = line;
	fr[n].inlined = FALSE;
	return n + 1;
}
