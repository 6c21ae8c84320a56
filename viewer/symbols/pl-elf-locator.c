/* pl-elf-locator.c — finds the local copy of a board's ELF file.
 *
 * Search order (perfparser's habit: explicit, each candidate verified):
 *   1. --binary files whose build-id equals the board's
 *   2. --binary files with the same basename
 *   3. each debug dir: .build-id/xx/rest (full file) and .build-id/xx/rest.debug,
 *      then DIR/basename and DIR/board-path
 *   4. sysroot + board path
 *   5. the board path itself on this host, only with host_files
 *   6. a file fetched from a debuginfod server (pl-debuginfod.c: only for
 *      sampled modules, never from here)
 * A candidate is refused when the board gave a build-id and the file's
 * differs (or it has none), or when it is for another machine; the reason
 * becomes the module's problem if nothing better is found.  A separate
 * debug file (build-id tree, then .gnu_debuglink next to the file, in
 * .debug/, in the debug dirs, in sysroot/usr/lib/debug, then one fetched
 * from a debuginfod server) is looked for when
 * the main file has no DWARF or no .symtab, and must carry the same
 * build-id as the main file.  Board paths and debuglinks are joined under
 * those directories only: one with a ".." component is never a candidate.  The [vdso] is no file on the board: its
 * local copy is the image the agent sent (pl_elf_prepare).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "pl-build-id.h"
#include "pl-debug-inflate.h"
#include "pl-elf-locator.h"

#ifndef SHT_ARM_EXIDX
#define SHT_ARM_EXIDX 0x70000001
#endif

typedef struct {
	guint64 offset, vaddr, filesz, memsz, align;
	guint32 flags; /* PF_R | PF_W | PF_X */
} PlLoad;

typedef struct {
	char *path;
	char *base;
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize id_len;
} PlBinary;

void pl_binary_free(gpointer p)
{
	PlBinary *b = p;
	g_free(b->path);
	g_free(b->base);
	g_free(b);
}

/* ======================================================================
 * Reading one candidate
 * ====================================================================== */

typedef struct {
	gboolean is_elf;
	guint e_machine, e_type;
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize id_len;
	gboolean has_code; /* .text with bytes: a full file, not a .debug companion */
	gboolean symtab, dynsym, debug_info, debug_line, eh_frame, debug_frame, exidx;
	char *debuglink;
	GArray *loads;
} PlElfFacts;

static void facts_clear(PlElfFacts *f)
{
	g_free(f->debuglink);
	if (f->loads)
		g_array_unref(f->loads);
	memset(f, 0, sizeof(*f));
}

static gboolean facts_read_elf(Elf *e, PlElfFacts *f)
{
	GElf_Ehdr eh;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
		return FALSE;
	f->is_elf = TRUE;
	f->e_machine = eh.e_machine;
	f->e_type = eh.e_type;
	const void *idp = NULL;
	ssize_t n = dwelf_elf_gnu_build_id(e, &idp);
	if (n > 0 && idp) {
		f->id_len = MIN((gsize)n, PL_SYM_MAX_BUILD_ID);
		memcpy(f->id, idp, f->id_len);
	}
	size_t phnum = 0;
	f->loads = g_array_new(FALSE, FALSE, sizeof(PlLoad));
	if (elf_getphdrnum(e, &phnum) == 0) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			PlLoad l = { ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz,
				     ph.p_align ? ph.p_align : 1, ph.p_flags };
			g_array_append_val(f->loads, l);
		}
	}
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return TRUE;
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		gboolean bytes = sh.sh_type != SHT_NOBITS && sh.sh_size > 0;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size > 0)
			f->symtab = TRUE;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_size > 0)
			f->dynsym = TRUE;
		if (sh.sh_type == SHT_ARM_EXIDX && sh.sh_size > 0)
			f->exidx = TRUE;
		if (!name || !bytes)
			continue;
		if (!strcmp(name, ".text"))
			f->has_code = TRUE;
		else if (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"))
			f->debug_info = TRUE;
		else if (!strcmp(name, ".debug_line") || !strcmp(name, ".zdebug_line"))
			f->debug_line = TRUE;
		else if (!strcmp(name, ".eh_frame"))
			f->eh_frame = TRUE;
		else if (!strcmp(name, ".debug_frame") || !strcmp(name, ".zdebug_frame"))
			f->debug_frame = TRUE;
	}
	GElf_Word crc;
	const char *link = dwelf_elf_gnu_debuglink(e, &crc);
	if (link && *link && !strchr(link, '/'))
		f->debuglink = g_strdup(link);
	return TRUE;
}

static gboolean facts_read(const char *path, int fd_in, PlElfFacts *f)
{
	memset(f, 0, sizeof(*f));
	int fd = fd_in >= 0 ? fd_in : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return FALSE;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	gboolean ok = e && facts_read_elf(e, f);
	if (e)
		elf_end(e);
	if (fd_in < 0)
		close(fd);
	return ok;
}

gsize pl_elf_file_build_id(const char *path, guint8 *id)
{
	PlElfFacts f;
	gsize n = 0;
	if (facts_read(path, -1, &f)) {
		n = f.id_len;
		memcpy(id, f.id, n);
	}
	facts_clear(&f);
	return n;
}

/* ======================================================================
 * The search
 * ====================================================================== */

static const char *machine_name(guint m)
{
	switch (m) {
	case EM_X86_64: return "x86-64";
	case EM_386: return "i386";
	case EM_AARCH64: return "AArch64";
	case EM_ARM: return "ARM";
	case EM_RISCV: return "RISC-V";
	case EM_MIPS: return "MIPS";
	case EM_PPC: return "PowerPC";
	case EM_PPC64: return "PowerPC64";
	default: return "another machine";
	}
}

typedef struct {
	PlSymbols *self;
	PlElf *elf;
	char *refusal; /* first refused candidate's reason */
	char *debug_only; /* first matching file without code */
	GPtrArray *tried;
} PlSearch;

static void refuse(PlSearch *s, char *why)
{
	if (!s->refusal)
		s->refusal = why;
	else
		g_free(why);
}

/* Whether path is an acceptable main (or, with debug, companion) file for
 * the search's elf.  Fills f on success. */
static gboolean try_candidate(PlSearch *s, const char *path, gboolean debug, PlElfFacts *f)
{
	PlElf *elf = s->elf;
	if (g_ptr_array_find_with_equal_func(s->tried, path, g_str_equal, NULL))
		return FALSE;
	g_ptr_array_add(s->tried, g_strdup(path));
	if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
		return FALSE;
	if (!facts_read(path, -1, f)) {
		refuse(s, g_strdup_printf("%s: %s is not a readable ELF file", elf->name, path));
		facts_clear(f);
		return FALSE;
	}
	if (s->self->arch.e_machine && f->e_machine != s->self->arch.e_machine) {
		refuse(s, g_strdup_printf("%s: %s is built for %s but the board is %s: point "
					  "--sysroot/--binary at the board's files",
					  elf->name, path, machine_name(f->e_machine),
					  machine_name(s->self->arch.e_machine)));
		facts_clear(f);
		return FALSE;
	}
	if (elf->build_id_len) {
		if (f->id_len != elf->build_id_len ||
		    memcmp(f->id, elf->build_id, elf->build_id_len) != 0) {
			g_autofree char *want = pl_build_id_hex(elf->build_id, elf->build_id_len);
			g_autofree char *got = f->id_len ? pl_build_id_hex(f->id, f->id_len)
							 : g_strdup("none");
			refuse(s, g_strdup_printf(
					  "%s: build-id mismatch: %s has build-id %s but the board's "
					  "file has %s, so it is a different build; pass the file "
					  "that was installed on the board (or its unstripped "
					  "twin) with --binary, or a debug dir holding "
					  ".build-id/%.2s/%s.debug",
					  elf->name, path, got, want, want, want + 2));
			facts_clear(f);
			return FALSE;
		}
	}
	if (!debug && !f->has_code) {
		/* a .debug companion (code sections are NOBITS): usable for names
		 * and lines if no file with code turns up */
		if (!s->debug_only && f->loads->len)
			s->debug_only = g_strdup(path);
		facts_clear(f);
		return FALSE;
	}
	return TRUE;
}

static void index_binaries(PlSymbols *self)
{
	if (self->binaries_indexed)
		return;
	self->binaries_indexed = TRUE;
	for (guint i = 0; self->opts.binaries && i < self->opts.binaries->len; i++) {
		const char *p = g_ptr_array_index(self->opts.binaries, i);
		PlBinary *b = g_new0(PlBinary, 1);
		b->path = g_strdup(p);
		b->base = g_path_get_basename(p);
		b->id_len = pl_elf_file_build_id(p, b->id);
		g_ptr_array_add(self->binaries, b);
	}
}

/* root/path for a path from the board (a mapping, a debuglink): NULL when
 * it has a ".." component, which could climb out of root ("/../../home/me/
 * .ssh/id_rsa" mapped on a board, a debuglink "../../x"), so no candidate
 * lies outside the directories the user gave; an absolute path stays under
 * root. */
static char *sysroot_join(const char *root, const char *path)
{
	for (const char *p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
			return NULL;
	while (*path == '/')
		path++;
	return g_build_filename(root, path, NULL);
}

static void add_candidate(GPtrArray *c, char *path)
{
	if (path)
		g_ptr_array_add(c, path);
}

/* Main-file candidates in search order. */
static GPtrArray *main_candidates(PlSymbols *self, PlElf *elf)
{
	GPtrArray *c = g_ptr_array_new_with_free_func(g_free);
	if (elf->is_kernel && self->opts.vmlinux) /* pl-vmlinux.c: the file the user named */
		g_ptr_array_add(c, g_strdup(self->opts.vmlinux));
	index_binaries(self);
	g_autofree char *hex = elf->build_id_len ? pl_build_id_hex(elf->build_id, elf->build_id_len)
						 : NULL;
	if (hex) {
		for (guint i = 0; i < self->binaries->len; i++) {
			PlBinary *b = g_ptr_array_index(self->binaries, i);
			if (b->id_len == elf->build_id_len &&
			    !memcmp(b->id, elf->build_id, b->id_len))
				g_ptr_array_add(c, g_strdup(b->path));
		}
	}
	for (guint i = 0; i < self->binaries->len; i++) {
		PlBinary *b = g_ptr_array_index(self->binaries, i);
		if (!strcmp(b->base, elf->name))
			g_ptr_array_add(c, g_strdup(b->path));
	}
	for (guint i = 0; self->opts.debug_dirs && i < self->opts.debug_dirs->len; i++) {
		const char *d = g_ptr_array_index(self->opts.debug_dirs, i);
		if (hex && strlen(hex) > 2) {
			char xx[3] = { hex[0], hex[1], 0 };
			g_ptr_array_add(c, g_build_filename(d, ".build-id", xx, hex + 2, NULL));
			/* a .debug that kept its code is a full unstripped copy */
			g_autofree char *rest = g_strconcat(hex + 2, ".debug", NULL);
			g_ptr_array_add(c, g_build_filename(d, ".build-id", xx, rest, NULL));
		}
		add_candidate(c, sysroot_join(d, elf->name));
		add_candidate(c, sysroot_join(d, elf->board_path));
	}
	if (self->opts.sysroot && *self->opts.sysroot)
		add_candidate(c, sysroot_join(self->opts.sysroot, elf->board_path));
	if (self->opts.host_files)
		g_ptr_array_add(c, g_strdup(elf->board_path));
	/* from a debuginfod server (pl-debuginfod.c); a debug file alone still
	 * gives names (its code sections are empty: the debug_only case) */
	if (elf->fetched_main)
		g_ptr_array_add(c, g_strdup(elf->fetched_main));
	if (elf->fetched_debug)
		g_ptr_array_add(c, g_strdup(elf->fetched_debug));
	return c;
}

/* Debug companions of a main file with build-id id and debuglink link. */
static GPtrArray *debug_candidates(PlSymbols *self, PlElf *elf, const char *main_path,
				   const PlElfFacts *mf)
{
	GPtrArray *c = g_ptr_array_new_with_free_func(g_free);
	g_autofree char *hex = mf->id_len ? pl_build_id_hex(mf->id, mf->id_len) : NULL;
	GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; self->opts.debug_dirs && i < self->opts.debug_dirs->len; i++)
		g_ptr_array_add(dirs, g_strdup(g_ptr_array_index(self->opts.debug_dirs, i)));
	if (self->opts.sysroot && *self->opts.sysroot)
		g_ptr_array_add(dirs, g_build_filename(self->opts.sysroot, "usr/lib/debug", NULL));
	if (self->opts.host_files)
		g_ptr_array_add(dirs, g_strdup("/usr/lib/debug"));
	if (hex && strlen(hex) > 2) {
		char xx[3] = { hex[0], hex[1], 0 };
		g_autofree char *rest = g_strconcat(hex + 2, ".debug", NULL);
		for (guint i = 0; i < dirs->len; i++)
			g_ptr_array_add(c, g_build_filename(g_ptr_array_index(dirs, i), ".build-id",
							    xx, rest, NULL));
	}
	if (mf->debuglink) {
		g_autofree char *mdir = g_path_get_dirname(main_path);
		g_autofree char *bdir = g_path_get_dirname(elf->board_path);
		g_autofree char *mdot = g_build_filename(mdir, ".debug", NULL);
		add_candidate(c, sysroot_join(mdir, mf->debuglink));
		add_candidate(c, sysroot_join(mdot, mf->debuglink));
		for (guint i = 0; i < dirs->len; i++) {
			const char *d = g_ptr_array_index(dirs, i);
			add_candidate(c, sysroot_join(d, mf->debuglink));
			g_autofree char *sub = sysroot_join(d, bdir);
			if (sub)
				add_candidate(c, sysroot_join(sub, mf->debuglink));
		}
	}
	g_ptr_array_unref(dirs);
	if (elf->fetched_debug)
		g_ptr_array_add(c, g_strdup(elf->fetched_debug));
	return c;
}

void pl_elf_locate(PlSymbols *self, PlElf *elf)
{
	if (elf->located)
		return;
	elf->located = TRUE;
	PlSearch s = { self, elf, NULL, NULL, g_ptr_array_new_with_free_func(g_free) };
	PlElfFacts mf = { 0 }, df = { 0 };
	gboolean found = FALSE;

	if (elf->is_vdso) {
		if (elf->image_fd >= 0 && facts_read(NULL, elf->image_fd, &mf)) {
			found = TRUE;
			elf->local_path = g_strdup("(vDSO image sent by the agent)");
		} else {
			refuse(&s, g_strdup("[vdso]: the agent sent no vDSO image for it; frames in "
					    "it stay unknown (a newer agent sends it)"));
		}
	} else {
		g_autoptr(GPtrArray) cands = main_candidates(self, elf);
		for (guint i = 0; i < cands->len && !found; i++) {
			const char *p = g_ptr_array_index(cands, i);
			if (try_candidate(&s, p, FALSE, &mf)) {
				found = TRUE;
				elf->local_path = g_strdup(p);
			}
		}
		if (!found && s.debug_only && facts_read(s.debug_only, -1, &mf)) {
			found = TRUE;
			elf->local_path = g_strdup(s.debug_only);
		}
	}

	if (found) {
		elf->build_id_match = TRUE;
		elf->e_machine = mf.e_machine;
		elf->e_type = mf.e_type;
		elf->loads = g_array_ref(mf.loads);
		gboolean want_debug = !mf.debug_info || !mf.symtab;
		if (want_debug && !elf->is_vdso) {
			g_autoptr(GPtrArray) dc = debug_candidates(self, elf, elf->local_path, &mf);
			g_ptr_array_set_size(s.tried, 0); /* a .debug refused as main is fine here */
			/* the companion must match the file we use, not just the board */
			guint8 saved[PL_SYM_MAX_BUILD_ID];
			gsize saved_len = elf->build_id_len;
			memcpy(saved, elf->build_id, saved_len);
			elf->build_id_len = mf.id_len;
			memcpy(elf->build_id, mf.id, mf.id_len);
			for (guint i = 0; i < dc->len; i++) {
				const char *p = g_ptr_array_index(dc, i);
				if (strcmp(p, elf->local_path) && mf.id_len &&
				    try_candidate(&s, p, TRUE, &df)) {
					elf->debug_path = g_strdup(p);
					break;
				}
			}
			elf->build_id_len = saved_len;
			memcpy(elf->build_id, saved, saved_len);
		}
		elf->has_symbols = mf.symtab || df.symtab;
		elf->has_lines = mf.debug_line || df.debug_line;
		elf->has_cfi = mf.eh_frame || mf.debug_frame || df.debug_frame || mf.exidx;
		elf->has_ehabi = mf.exidx;
		if (!elf->has_symbols && !elf->is_vdso)
			elf->problem = g_strdup_printf(
				"%s: %s is stripped (%s): functions not exported show as "
				"unknown; pass the unstripped file with --binary, a debug dir "
				"with its .build-id/ tree, or a debuginfod server that has it "
				"(--debuginfod URL, DEBUGINFOD_URLS)",
				elf->name, elf->local_path,
				mf.dynsym ? "only .dynsym" : "no symbol table");
	} else {
		elf->build_id_match = FALSE;
		if (s.refusal) {
			elf->problem = g_steal_pointer(&s.refusal);
		} else {
			GString *w = g_string_new(NULL);
			g_string_append_printf(w, "%s: not found (looked in ", elf->name);
			for (guint i = 0; i < s.tried->len && i < 6; i++)
				g_string_append_printf(w, "%s%s", i ? ", " : "",
						       (char *)g_ptr_array_index(s.tried, i));
			if (s.tried->len == 0)
				g_string_append(w, "nothing: no --binary, --debug-dir or --sysroot "
						   "given and host files are off");
			else if (s.tried->len > 6)
				g_string_append_printf(w, " and %u more", s.tried->len - 6);
			g_string_append(w, "); pass the file with --binary, or set --sysroot to "
					   "a copy of the board's root filesystem");
			elf->problem = g_string_free(w, FALSE);
		}
	}
	g_free(s.refusal);
	g_free(s.debug_only);
	g_ptr_array_unref(s.tried);
	facts_clear(&mf);
	facts_clear(&df);
}

static void vdso_attach_image(PlSymbols *self, PlElf *elf)
{
	/* the vDSO is the kernel's: one image serves every process of the
	 * board; prefer one whose build-id is the mapping's */
	GHashTableIter it;
	gpointer k, v;
	GByteArray *pick = NULL;
	g_hash_table_iter_init(&it, self->procs);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		PlProc *p = v;
		if (!p->vdso_image || !p->vdso_image->len)
			continue;
		if (!pick)
			pick = p->vdso_image;
		if (elf->build_id_len) {
			const void *idp = NULL;
			Elf *e = elf_memory((char *)p->vdso_image->data, p->vdso_image->len);
			ssize_t n = e ? dwelf_elf_gnu_build_id(e, &idp) : -1;
			if (n == (ssize_t)elf->build_id_len && !memcmp(idp, elf->build_id, (size_t)n))
				pick = p->vdso_image;
			if (e)
				elf_end(e);
		}
	}
	if (!pick)
		return;
	int fd = memfd_create("perflens-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, pick->data, pick->len) != (ssize_t)pick->len) {
		close(fd);
		return;
	}
	elf->image_fd = fd;
}

void pl_elf_relocate(PlSymbols *self, PlElf *elf)
{
	g_clear_pointer(&elf->local_path, g_free);
	g_clear_pointer(&elf->debug_path, g_free);
	g_clear_pointer(&elf->problem, g_free);
	g_clear_pointer(&elf->loads, g_array_unref);
	if (elf->debug_copy_fd >= 0)
		close(elf->debug_copy_fd);
	elf->debug_copy_fd = -1;
	elf->has_symbols = elf->has_lines = elf->has_cfi = elf->has_ehabi = FALSE;
	elf->debug_frame_known = elf->debug_has_frame = FALSE;
	elf->build_id_match = FALSE;
	elf->located = FALSE;
	pl_elf_locate(self, elf);
}

gboolean pl_elf_prepare(PlSymbols *self, PlElf *elf)
{
	if (elf->is_vdso && elf->image_fd < 0) {
		/* the image may have arrived after an earlier fruitless look */
		vdso_attach_image(self, elf);
		if (elf->image_fd >= 0 && elf->located) {
			elf->located = FALSE;
			g_clear_pointer(&elf->problem, g_free);
			g_clear_pointer(&elf->local_path, g_free);
		}
	}
	pl_elf_locate(self, elf);
	return elf->loads && elf->loads->len;
}

int pl_elf_open_main(PlElf *elf)
{
	if (elf->image_fd >= 0)
		return dup(elf->image_fd);
	if (!elf->local_path) {
		errno = ENOENT;
		return -1;
	}
	return open(elf->local_path, O_RDONLY | O_CLOEXEC);
}

/* How well PT_LOAD l explains mapping m as the one it was mapped for: a
 * larger key is a better fit, 0 none (m holds none of l's bytes). */
static guint64 bias_fit(const PlElf *elf, const PlLoad *l, const PlMapping *m,
			const guint64 *prefer, guint64 *bias)
{
	guint64 len = m->end - m->start;
	guint64 m_end = m->pgoff + MIN(len, G_MAXUINT64 - m->pgoff);
	guint64 l_end = l->offset + MIN(l->filesz, G_MAXUINT64 - l->offset);
	guint64 lo = MAX(m->pgoff, l->offset), hi = MIN(m_end, l_end);
	if (lo >= hi)
		return 0;
	/* the mapping's first byte is file offset pgoff, which this segment
	 * places at vaddr + (pgoff - offset) */
	*bias = m->start - (l->vaddr + m->pgoff - l->offset);
	/* Segments share the file pages at their ends (lld packs them: r--
	 * .rodata up to 0x1080, r-x .text from 0x1080, both in page 0x1000),
	 * so a mapping holds bytes of its neighbours too and pgoff alone does
	 * not say whose mapping it is.  In order of weight: the bias of the
	 * file's mapping below (one load, one bias); an executable is never
	 * moved; the segment lies wholly inside the mapping (a neighbour shows
	 * only the part in the shared page); an executable segment (the agent
	 * and perf send code mappings; this decides when two small segments
	 * share one page); the most bytes. */
	gboolean whole = l->offset >= m->pgoff && l_end <= m_end;
	guint64 rank = (guint64)(prefer && *prefer == *bias) << 3 |
		       (guint64)(elf->e_type == ET_EXEC && *bias == 0) << 2 |
		       (guint64)whole << 1 | (guint64)((l->flags & PF_X) != 0);
	return rank << 59 | MIN(hi - lo, (G_GUINT64_CONSTANT(1) << 59) - 1);
}

gboolean pl_elf_bias(const PlElf *elf, const PlMapping *m, const guint64 *prefer,
		     guint64 *bias)
{
	if (!elf->loads || elf->loads->len == 0)
		return FALSE;
	guint64 best = 0;
	for (guint i = 0; i < elf->loads->len; i++) {
		guint64 b = 0, fit = bias_fit(elf, &g_array_index(elf->loads, PlLoad, i), m, prefer,
					      &b);
		if (fit > best) {
			best = fit;
			*bias = b;
		}
	}
	if (best)
		return TRUE;
	/* m holds no segment's file bytes (its file differs from the
	 * board's, or it maps only a page of padding): the segment whose
	 * pages hold pgoff, else the first */
	const PlLoad *hit = &g_array_index(elf->loads, PlLoad, 0);
	for (guint i = 0; i < elf->loads->len; i++) {
		const PlLoad *l = &g_array_index(elf->loads, PlLoad, i);
		guint64 off0 = l->offset & ~(MAX(l->align, 1) - 1);
		if (m->pgoff >= off0 && m->pgoff < l->offset + MAX(l->filesz, 1)) {
			hit = l;
			break;
		}
	}
	*bias = m->start - (hit->vaddr + m->pgoff - hit->offset);
	return TRUE;
}

/* ======================================================================
 * libdwfl glue
 * ====================================================================== */

static int find_elf_refuse(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, char **file_name, Elf **elfp)
{
	return -1;
}

static int find_debuginfo_located(Dwfl_Module *mod, void **userdata, const char *modname,
				  Dwarf_Addr base, const char *file_name,
				  const char *debuglink_file, GElf_Word debuglink_crc,
				  char **debuginfo_file_name)
{
	PlElf *elf = userdata ? *userdata : NULL;
	if (!elf || !elf->debug_path)
		return -1;
	/* a decompressed copy is made once per file: every Dwfl that opens it
	 * (symbolization, each process's unwinding) maps the same pages */
	int fd;
	if (elf->debug_copy_fd >= 0) {
		fd = dup(elf->debug_copy_fd);
	} else {
		gboolean copy = FALSE;
		fd = pl_debug_open_inflated(elf->debug_path, &copy);
		if (fd >= 0 && copy)
			elf->debug_copy_fd = dup(fd);
	}
	if (fd >= 0)
		*debuginfo_file_name = strdup(elf->debug_path);
	return fd;
}

const Dwfl_Callbacks pl_sym_dwfl_callbacks = {
	.find_elf = find_elf_refuse,
	.find_debuginfo = find_debuginfo_located,
	.section_address = dwfl_offline_section_address,
};

/* TRUE when the separate debug file has a .debug_frame (read from its
 * section headers once; the data is not touched). */
static gboolean debug_file_has_frame(PlElf *elf)
{
	if (elf->debug_frame_known)
		return elf->debug_has_frame;
	elf->debug_frame_known = TRUE;
	int fd = open(elf->debug_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return FALSE;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstrndx;
	if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) != NULL;) {
			GElf_Shdr sh;
			const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name)
							       : NULL;
			if (n && (!strcmp(n, ".debug_frame") || !strcmp(n, ".zdebug_frame")) &&
			    sh.sh_type != SHT_NOBITS) {
				elf->debug_has_frame = TRUE;
				break;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return elf->debug_has_frame;
}

/* Unwinding needs a separate debug file only for its .debug_frame: libdwfl
 * asks for it (dwfl_module_dwarf_cfi → dwfl_module_getdwarf) whenever
 * .eh_frame could not unwind a frame, e.g. at every stack copy that ends
 * mid-frame, and opening it means decompressing every .debug_* section of
 * the file (libdw 0.188 does that eagerly: 10 MB for libc's).  A debug file
 * without .debug_frame cannot change the unwind, so it is not offered. */
static int find_debuginfo_unwind(Dwfl_Module *mod, void **userdata, const char *modname,
				 Dwarf_Addr base, const char *file_name,
				 const char *debuglink_file, GElf_Word debuglink_crc,
				 char **debuginfo_file_name)
{
	PlElf *elf = userdata ? *userdata : NULL;
	if (!elf || !elf->debug_path || !debug_file_has_frame(elf))
		return -1;
	return find_debuginfo_located(mod, userdata, modname, base, file_name, debuglink_file,
				      debuglink_crc, debuginfo_file_name);
}

const Dwfl_Callbacks pl_unwind_dwfl_callbacks = {
	.find_elf = find_elf_refuse,
	.find_debuginfo = find_debuginfo_unwind,
	.section_address = dwfl_offline_section_address,
};

Dwfl_Module *pl_elf_report(Dwfl *dwfl, PlElf *elf, guint64 bias)
{
	int fd = pl_elf_open_main(elf);
	if (fd < 0)
		return NULL;
	/* libdwfl owns fd from here (closed by dwfl_end) */
	const char *file = elf->image_fd >= 0 ? elf->name : elf->local_path;
	Dwfl_Module *mod = dwfl_report_elf(dwfl, elf->name, file, fd, bias, true);
	if (!mod) {
		close(fd);
		return NULL;
	}
	void **ud = NULL;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	if (ud)
		*ud = elf;
	return mod;
}
