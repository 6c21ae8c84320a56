/* pl-symbols-fallback.c — a minimal PlSymbols used only while
 * viewer/symbols is not built into the tree (viewer.mk picks one).
 *
 * It implements pl-symbols.h with libelf symbol tables of the mapped
 * files read from this host: function names, no inline frames, no source
 * lines, no DWARF unwinding (pl_symbols_unwind() yields nothing and says
 * the stack is truncated).  Enough for frame-pointer profiles of programs
 * on this machine; the real module replaces all of it.
 */
#include "pl-symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	guint64 start, len, pgoff;
	char *filename;
} Map;

typedef struct {
	guint64 addr, size;
	char *name;
} Sym;

typedef struct {
	char *path;
	char *base;
	gboolean ok;
	GArray *syms; /* Sym sorted by addr */
	GArray *loads; /* PT_LOAD: pairs of (offset, vaddr, filesz) as guint64[3] */
	guint64 samples;
} Module;

struct _PlSymbols {
	gboolean host_files;
	char *sysroot;
	GHashTable *maps;    /* pid → GArray<Map> */
	GHashTable *modules; /* path → Module */
	GStringChunk *strings;
};

static void map_array_free(gpointer p)
{
	GArray *a = p;
	for (guint i = 0; i < a->len; i++)
		g_free(g_array_index(a, Map, i).filename);
	g_array_free(a, TRUE);
}

static void module_free(gpointer p)
{
	Module *m = p;
	g_free(m->path);
	g_free(m->base);
	if (m->syms) {
		for (guint i = 0; i < m->syms->len; i++)
			g_free(g_array_index(m->syms, Sym, i).name);
		g_array_free(m->syms, TRUE);
	}
	if (m->loads)
		g_array_free(m->loads, TRUE);
	g_free(m);
}

PlSymbols *pl_symbols_new(const PlSymOptions *opts, const PlTargetArch *arch)
{
	PlSymbols *self = g_new0(PlSymbols, 1);
	self->host_files = opts ? opts->host_files : TRUE;
	self->sysroot = opts && opts->sysroot ? g_strdup(opts->sysroot) : NULL;
	self->maps = g_hash_table_new_full(NULL, NULL, NULL, map_array_free);
	self->modules = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, module_free);
	self->strings = g_string_chunk_new(4096);
	elf_version(EV_CURRENT);
	return self;
}

void pl_symbols_free(PlSymbols *self)
{
	if (!self)
		return;
	g_hash_table_destroy(self->maps);
	g_hash_table_destroy(self->modules);
	g_string_chunk_free(self->strings);
	g_free(self->sysroot);
	g_free(self);
}

void pl_symbols_add_mapping(PlSymbols *self, guint32 pid, guint64 start, guint64 len,
			    guint64 pgoff, const char *filename, const guint8 *build_id,
			    gsize build_id_len)
{
	GArray *a = g_hash_table_lookup(self->maps, GUINT_TO_POINTER(pid));
	if (!a) {
		a = g_array_new(FALSE, FALSE, sizeof(Map));
		g_hash_table_insert(self->maps, GUINT_TO_POINTER(pid), a);
	}
	for (guint i = 0; i < a->len;) {
		Map *o = &g_array_index(a, Map, i);
		if (o->start < start + len && start < o->start + o->len) {
			g_free(o->filename);
			g_array_remove_index(a, i);
		} else {
			i++;
		}
	}
	Map m = { start, len, pgoff, g_strdup(filename) };
	g_array_append_val(a, m);
}

void pl_symbols_process_exec(PlSymbols *self, guint32 pid)
{
	g_hash_table_remove(self->maps, GUINT_TO_POINTER(pid));
}

void pl_symbols_process_exit(PlSymbols *self, guint32 pid)
{
}

void pl_symbols_add_chunk(PlSymbols *self, guint kind, guint32 pid, guint64 addr,
			  guint64 offset, const guint8 *data, gsize len)
{
}

guint pl_symbols_unwind(PlSymbols *self, guint32 pid, guint32 tid, guint64 regs_mask,
			const guint64 *regs, guint nregs, const guint8 *stack, gsize stack_size,
			guint64 *pcs, guint max, gboolean *truncated)
{
	*truncated = TRUE;
	return 0;
}

static int sym_cmp(gconstpointer a, gconstpointer b)
{
	const Sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void module_load(PlSymbols *self, Module *m)
{
	m->syms = g_array_new(FALSE, FALSE, sizeof(Sym));
	m->loads = g_array_new(FALSE, FALSE, sizeof(guint64) * 3);
	if (!self->host_files && !self->sysroot)
		return;
	g_autofree char *local = self->sysroot ? g_build_filename(self->sysroot, m->path, NULL)
					       : g_strdup(m->path);
	int fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	size_t nph;
	if (elf_getphdrnum(elf, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
				guint64 l[3] = { ph.p_offset, ph.p_vaddr, ph.p_filesz };
				g_array_append_val(m->loads, l);
			}
		}
	for (int pass = 0; pass < 2 && m->syms->len == 0; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_size / sh.sh_entsize;
			for (size_t i = 0; d && i < n; i++) {
				GElf_Sym s;
				if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    s.st_shndx == SHN_UNDEF || s.st_value == 0)
					continue;
				const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
				if (!name || !*name)
					continue;
				Sym y = { s.st_value, s.st_size ? s.st_size : 1, g_strdup(name) };
				g_array_append_val(m->syms, y);
			}
		}
	}
	g_array_sort(m->syms, sym_cmp);
	m->ok = TRUE;
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static Module *module_get(PlSymbols *self, const char *path)
{
	Module *m = g_hash_table_lookup(self->modules, path);
	if (!m) {
		m = g_new0(Module, 1);
		m->path = g_strdup(path);
		m->base = g_path_get_basename(path);
		g_hash_table_insert(self->modules, m->path, m);
		if (path[0] == '/')
			module_load(self, m);
	}
	return m;
}

guint pl_symbols_resolve(PlSymbols *self, guint32 pid, guint64 pc, gboolean is_return_address,
			 PlFrameInfo *out, guint max)
{
	if (max == 0)
		return 0;
	guint64 look = is_return_address && pc ? pc - 1 : pc;
	memset(out, 0, sizeof(*out));
	out->module = "[unknown]";
	out->rel_addr = pc;
	GArray *a = g_hash_table_lookup(self->maps, GUINT_TO_POINTER(pid));
	const Map *map = NULL;
	for (guint i = 0; a && i < a->len; i++) {
		const Map *x = &g_array_index(a, Map, i);
		if (look >= x->start && look - x->start < x->len)
			map = x;
	}
	if (!map)
		return 1;
	Module *m = module_get(self, map->filename);
	out->module = g_string_chunk_insert_const(self->strings, m->base);
	guint64 off = look - map->start + map->pgoff;
	out->rel_addr = off;
	m->samples++;
	if (!m->ok)
		return 1;
	guint64 vaddr = off;
	for (guint i = 0; i < m->loads->len; i++) {
		const guint64 *l = (const guint64 *)m->loads->data + 3 * i;
		if (off >= l[0] && off < l[0] + l[2]) {
			vaddr = off - l[0] + l[1];
			break;
		}
	}
	out->rel_addr = vaddr;
	/* last symbol with addr ≤ vaddr */
	guint lo = 0, hi = m->syms->len;
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (g_array_index(m->syms, Sym, mid).addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const Sym *s = &g_array_index(m->syms, Sym, lo - 1);
		if (vaddr < s->addr + s->size)
			out->function = g_string_chunk_insert_const(self->strings, s->name);
	}
	return 1;
}

void pl_module_report_free(PlModuleReport *r)
{
	if (!r)
		return;
	g_free(r->module);
	g_free(r->local_path);
	g_free(r->problem);
	g_free(r);
}

GPtrArray *pl_symbols_coverage(PlSymbols *self)
{
	GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)pl_module_report_free);
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, self->modules);
	while (g_hash_table_iter_next(&it, NULL, &v)) {
		Module *m = v;
		PlModuleReport *r = g_new0(PlModuleReport, 1);
		r->module = g_strdup(m->path);
		r->local_path = m->ok ? g_strdup(m->path) : NULL;
		r->has_symbols = m->ok && m->syms->len > 0;
		r->build_id_match = TRUE;
		r->samples = m->samples;
		if (!m->ok)
			r->problem = g_strdup("not found on this host (viewer/symbols not built: "
					      "only host files are searched)");
		g_ptr_array_add(rows, r);
	}
	return rows;
}
