/* pl-vmlinux.c — kernel frames from the board's vmlinux (contract in
 * pl-vmlinux.h).
 *
 * The vmlinux becomes one more PlElf (module "[kernel]"), located by
 * pl-elf-locator.c (the --vmlinux file first, then the debug dirs'
 * .build-id trees), so symbolization, inline frames and the frame cache
 * are pl-symbols.c's as for any ELF; this file only decides whether the
 * file is the board's kernel and where that kernel sits.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "pl-build-id.h"
#include "pl-elf-locator.h"
#include "pl-vmlinux.h"

#define VMLINUX_PROBES 64u /* kallsyms functions compared with the vmlinux's */

gsize pl_vmlinux_notes_build_id(const guint8 *d, gsize len, gboolean big_endian, guint8 *id)
{
	for (gsize off = 0; len >= 12 && off <= len - 12;) {
		guint32 w[3];
		memcpy(w, d + off, sizeof(w));
		for (guint i = 0; i < 3; i++)
			w[i] = big_endian ? GUINT32_FROM_BE(w[i]) : GUINT32_FROM_LE(w[i]);
		guint64 name_off = off + 12, desc_off = name_off + (((guint64)w[0] + 3) & ~3ull);
		guint64 next = desc_off + (((guint64)w[1] + 3) & ~3ull);
		if (next > len || next <= off)
			return 0;
		if (w[2] == NT_GNU_BUILD_ID && w[0] == 4 && !memcmp(d + name_off, "GNU", 4) &&
		    w[1] > 0 && w[1] <= PL_SYM_MAX_BUILD_ID) {
			memcpy(id, d + desc_off, w[1]);
			return w[1];
		}
		off = (gsize)next;
	}
	return 0;
}

gboolean pl_vmlinux_covers(PlSymbols *self, guint64 a)
{
	const guint64 *r = self->vmlinux_text ? (const guint64 *)(void *)self->vmlinux_text->data
					      : NULL;
	for (guint i = 0; r && i + 1 < self->vmlinux_text->len; i += 2)
		if (a >= r[i] && a - r[i] < r[i + 1])
			return TRUE;
	return FALSE;
}

/* Reads the executable PT_LOADs of the ELF at path into text (start, size
 * pairs) and, with syms, returns name -> address of its code symbols (the
 * first of equal names); NULL when it has no symbol table. */
static GHashTable *read_vmlinux(const char *path, guint e_machine, GArray *text,
				gboolean syms)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GHashTable *h = NULL;
	size_t phnum = 0;
	if (e && elf_getphdrnum(e, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X)) {
				guint64 r[2] = { ph.p_vaddr, ph.p_memsz };
				g_array_append_vals(text, r, 2);
			}
		}
	}
	for (Elf_Scn *scn = e && syms ? elf_nextscn(e, NULL) : NULL; scn;
	     scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		Elf_Data *data;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
		for (gsize i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;
			if (!gelf_getsym(data, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
			    (GELF_ST_TYPE(s.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(s.st_info) != STT_NOTYPE) ||
			    !(n = elf_strptr(e, sh.sh_link, s.st_name)) || !*n ||
			    g_hash_table_contains(h, n))
				continue;
			guint64 a = s.st_value;
			if (e_machine == EM_ARM && GELF_ST_TYPE(s.st_info) == STT_FUNC)
				a &= ~1ull; /* the Thumb bit */
			g_hash_table_insert(h, g_strdup(n), g_memdup2(&a, sizeof(a)));
		}
		break;
	}
	if (e)
		elf_end(e);
	close(fd);
	return h;
}

static gboolean sym_is(const PlTextSyms *t, const PlTextSym *s, const char *name)
{
	return s->name_len == strlen(name) && !memcmp(t->text + s->name_off, name, s->name_len);
}

/* Sets self->vmlinux_offset from kallsyms' _text (else _stext) and checks
 * that kallsyms' kernel functions are where the vmlinux has them at that
 * offset.  FALSE, with k->problem set, when they are not. */
static gboolean place(PlSymbols *self, PlElf *k, const PlTextSyms *t)
{
	self->vmlinux_offset = 0;
	self->vmlinux_text = g_array_new(FALSE, FALSE, sizeof(guint64));
	gboolean have = t && t->syms->len;
	g_autoptr(GHashTable) vs = read_vmlinux(k->local_path, k->e_machine, self->vmlinux_text,
						have);
	if (!have)
		return TRUE; /* no kallsyms: the link address (no KASLR) is all we have */
	if (!vs)
		return TRUE; /* a .debug file without .symtab: names come from DWARF */
	const PlTextSyms *kt = t;
	const char *anchors[] = { "_text", "_stext" };
	gboolean anchored = FALSE;
	for (guint a = 0; a < G_N_ELEMENTS(anchors) && !anchored; a++) {
		const guint64 *v = g_hash_table_lookup(vs, anchors[a]);
		for (guint i = 0; v && i < kt->syms->len && !anchored; i++) {
			const PlTextSym *s = &g_array_index(kt->syms, PlTextSym, i);
			if (sym_is(kt, s, anchors[a])) {
				self->vmlinux_offset = s->addr - *v;
				anchored = TRUE;
			}
		}
	}
	/* Evenly spaced kallsyms functions of the kernel proper (not of
	 * modules) looked up by name: a few of equal names (static functions)
	 * land elsewhere, another build moves nearly all of them. */
	guint found = 0, same = 0;
	guint step = MAX(kt->syms->len / VMLINUX_PROBES, 1u);
	for (guint i = 0; i < kt->syms->len; i += step) {
		const PlTextSym *s = &g_array_index(kt->syms, PlTextSym, i);
		if (strcmp(pl_text_sym_module(kt, s), "[kernel]") != 0)
			continue;
		g_autofree char *n = g_strndup(kt->text + s->name_off, s->name_len);
		const guint64 *v = g_hash_table_lookup(vs, n);
		if (!v)
			continue;
		found++;
		same += s->addr - self->vmlinux_offset == *v;
	}
	if (found >= 8 && same * 10 < found * 9) {
		k->problem = g_strdup_printf(
			"[kernel]: --vmlinux %s is not the board's kernel: of %u kernel functions "
			"of the board's kallsyms, %u are where it has them%s; kernel frames are "
			"named from kallsyms instead (pass the vmlinux of the kernel that ran, "
			"its build directory's vmlinux)",
			k->local_path, found, same, anchored ? "" : " (it has no _text)");
		return FALSE;
	}
	return TRUE;
}

PlElf *pl_vmlinux_get(PlSymbols *self, const PlTextSyms *kallsyms, guint64 *offset)
{
	const char *path = self->opts.vmlinux;
	if (!path || !*path)
		return NULL;
	if (self->vmlinux) {
		*offset = self->vmlinux_offset;
		return self->vmlinux_ok ? self->vmlinux : NULL;
	}
	PlElf *k = g_new0(PlElf, 1);
	self->vmlinux = k;
	k->board_path = g_strdup("[kernel.kallsyms]");
	k->name = g_strdup("[kernel]");
	k->is_kernel = TRUE;
	k->image_fd = -1;
	k->debug_copy_fd = -1;
	k->cache = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	k->build_id_len = self->kernel_build_id_len;
	memcpy(k->build_id, self->kernel_build_id, k->build_id_len);

	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize id_len = g_file_test(path, G_FILE_TEST_IS_REGULAR) ? pl_elf_file_build_id(path, id)
								  : 0;
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
		k->located = TRUE;
		k->problem = g_strdup_printf("[kernel]: --vmlinux %s: no such file; kernel frames "
					     "are named from kallsyms", path);
	} else if (k->build_id_len && id_len &&
		   (id_len != k->build_id_len || memcmp(id, k->build_id, id_len))) {
		/* said here, before the locator's generic mismatch message */
		g_autofree char *want = pl_build_id_hex(k->build_id, k->build_id_len);
		g_autofree char *got = pl_build_id_hex(id, id_len);
		k->located = TRUE;
		k->problem = g_strdup_printf(
			"[kernel]: --vmlinux %s has build-id %s but the board's kernel has %s: "
			"it is another build, so its lines would be wrong; kernel frames are named "
			"from kallsyms (pass the vmlinux of the kernel that ran on the board)",
			path, got, want);
	}
	pl_elf_locate(self, k);
	self->vmlinux_ok = k->loads && k->loads->len && place(self, k, kallsyms);
	if (self->vmlinux_ok && !k->has_lines && !k->problem)
		k->problem = g_strdup_printf("[kernel]: %s has no DWARF line table: kernel "
					     "frames get names but no source lines (build the "
					     "kernel with CONFIG_DEBUG_INFO)", k->local_path);
	*offset = self->vmlinux_offset;
	return self->vmlinux_ok ? k : NULL;
}
