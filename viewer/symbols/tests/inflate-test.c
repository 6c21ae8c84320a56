/* inflate-test.c — separate debug files with compressed DWARF
 * (pl-debug-inflate.c): the decompressed copy libdw gets (from the cache
 * on disk, here a scratch one: see sym-test-util.h) must give exactly
 * what the file gives.  Oracles: the same debug file left uncompressed
 * (objcopy), and this host's libc debug file (libc6-dbg) read by libdw
 * directly. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <sys/stat.h>

#include "pl-build-id.h"
#include "pl-debug-inflate.h"
#include "pl-elf-locator.h"
#include "pl-symbols-types.h"
#include "sym-test-util.h"

static const char prog_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"static inline int sq(int x) { return x * x; }\n"
	"static inline int mix(int x) { int s = 0; for (int i = 0; i < x; i++) s += sq(i) ^ i; "
	"return s; }\n"
	"__attribute__((noinline)) int work(int x) { return mix(x) + sq(x + 1); }\n"
	"__attribute__((noinline)) int outer(int x) { int t = 0; for (int k = 0; k < 3; k++) "
	"t += work(x + k); return t; }\n"
	"int main(int c, char **v) { printf(\"%d\\n\", outer(c > 1 ? atoi(v[1]) : 7)); return 0; "
	"}\n";

typedef struct {
	char *unstripped, *stripped;
	char *plain_dir, *z_dir;   /* debug dirs with a .build-id tree each */
	char *plain_dbg, *z_dbg;   /* the debug files in them */
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
} Fixture;

static void run_ok(char **argv)
{
	char *why = NULL;
	g_autofree char *o = t_run(argv, &why);
	PL_CHECKF(o != NULL, "%s", why);
}

static void fixture(Fixture *f)
{
	g_autofree char *dir = g_build_filename(t_tmp(), "inflate", NULL);
	g_mkdir_with_parents(dir, 0755);
	g_autofree char *c = g_build_filename(dir, "prog.c", NULL);
	t_write(c, prog_src);
	f->unstripped = g_build_filename(dir, "prog", NULL);
	/* DWARF 5 and -O2: location lists, range lists, inline trees */
	t_cc(c, f->unstripped, "-g -O2 -gdwarf-5 -Wl,--build-id");
	f->idn = pl_elf_file_build_id(f->unstripped, f->id);
	PL_CHECK(f->idn > 0);
	g_autofree char *hex = pl_build_id_hex(f->id, f->idn);
	char xx[3] = { hex[0], hex[1], 0 };
	g_autofree char *rest = g_strconcat(hex + 2, ".debug", NULL);
	f->plain_dir = g_build_filename(dir, "dbg-plain", NULL);
	f->z_dir = g_build_filename(dir, "dbg-zlib", NULL);
	g_autofree char *pd = g_build_filename(f->plain_dir, ".build-id", xx, NULL);
	g_autofree char *zd = g_build_filename(f->z_dir, ".build-id", xx, NULL);
	g_mkdir_with_parents(pd, 0755);
	g_mkdir_with_parents(zd, 0755);
	f->plain_dbg = g_build_filename(pd, rest, NULL);
	f->z_dbg = g_build_filename(zd, rest, NULL);
	f->stripped = g_build_filename(dir, "prog.stripped", NULL);
	char *a1[] = { (char *)"objcopy", (char *)"--only-keep-debug",
		       (char *)"--decompress-debug-sections", f->unstripped, f->plain_dbg, NULL };
	char *a2[] = { (char *)"objcopy", (char *)"--compress-debug-sections=zlib", f->plain_dbg,
		       f->z_dbg, NULL };
	char *a3[] = { (char *)"strip", (char *)"-o", f->stripped, f->unstripped, NULL };
	run_ok(a1);
	run_ok(a2);
	run_ok(a3);
}

static void fixture_clear(Fixture *f)
{
	g_free(f->unstripped);
	g_free(f->stripped);
	g_free(f->plain_dir);
	g_free(f->z_dir);
	g_free(f->plain_dbg);
	g_free(f->z_dbg);
}

/* Section name → (flags, size, bytes) of an open ELF. */
static Elf_Scn *find_scn(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		const char *n = gelf_getshdr(s, sh) ? elf_strptr(e, shstrndx, sh->sh_name) : NULL;
		if (n && !strcmp(n, name))
			return s;
	}
	return NULL;
}

static void copy_is_decompressed(void)
{
	Fixture f = { 0 };
	fixture(&f);
	elf_version(EV_CURRENT);
	gboolean copy = FALSE;
	int zfd = pl_debug_open_inflated(f.z_dbg, &copy);
	int pfd = open(f.plain_dbg, O_RDONLY);
	PL_CHECK(copy);
	PL_CHECK(zfd >= 0 && pfd >= 0);
	struct stat zs, ps;
	PL_CHECK(fstat(zfd, &zs) == 0 && stat(f.z_dbg, &ps) == 0);
	PL_CHECKF(zs.st_ino != ps.st_ino, "the compressed file was not replaced by a copy");
	Elf *ze = elf_begin(zfd, ELF_C_READ_MMAP, NULL), *pe = elf_begin(pfd, ELF_C_READ_MMAP, NULL);
	PL_CHECK(ze && pe);
	const char *kept[] = { ".debug_info", ".debug_abbrev", ".debug_line", ".debug_str",
			       ".debug_aranges", ".debug_rnglists" };
	for (guint i = 0; i < G_N_ELEMENTS(kept); i++) {
		GElf_Shdr zsh, psh;
		Elf_Scn *zs_ = find_scn(ze, kept[i], &zsh), *ps_ = find_scn(pe, kept[i], &psh);
		if (!ps_)
			continue; /* this gcc did not emit it */
		PL_CHECKF(zs_ != NULL, "%s missing from the copy", kept[i]);
		PL_CHECKF(!(zsh.sh_flags & SHF_COMPRESSED), "%s still compressed", kept[i]);
		Elf_Data *zd = elf_getdata(zs_, NULL), *pd = elf_getdata(ps_, NULL);
		PL_CHECK(zd && pd);
		PL_CHECKF(zd->d_size == pd->d_size && !memcmp(zd->d_buf, pd->d_buf, pd->d_size),
			  "%s differs from objcopy's decompression", kept[i]);
	}
	/* location lists are never read by symbolization: hidden, not inflated */
	GElf_Shdr sh;
	if (find_scn(pe, ".debug_loclists", &sh))
		PL_CHECK(find_scn(ze, ".debug_loclists", &sh) == NULL);
	/* the symbol table and notes are the file's */
	GElf_Shdr a, b;
	Elf_Scn *zsym = find_scn(ze, ".symtab", &a), *psym = find_scn(pe, ".symtab", &b);
	PL_CHECK(zsym && psym);
	Elf_Data *zd = elf_getdata(zsym, NULL), *pd = elf_getdata(psym, NULL);
	PL_CHECK(zd && pd && zd->d_size == pd->d_size && !memcmp(zd->d_buf, pd->d_buf, pd->d_size));
	elf_end(ze);
	elf_end(pe);
	close(zfd);
	close(pfd);
	/* an uncompressed file is given as it is */
	int fd = pl_debug_open_inflated(f.plain_dbg, &copy);
	PL_CHECK(!copy);
	PL_CHECK(fd >= 0 && fstat(fd, &zs) == 0 && stat(f.plain_dbg, &ps) == 0);
	PL_CHECK(zs.st_ino == ps.st_ino && zs.st_dev == ps.st_dev);
	close(fd);
	/* not an ELF file: given as it is, libdw says what is wrong */
	fd = pl_debug_open_inflated(PL_TOP "/viewer/symbols/tests/inflate-test.c", NULL);
	PL_CHECK(fd >= 0);
	close(fd);
	PL_CHECK(pl_debug_open_inflated("/nonexistent/x.debug", NULL) < 0);
	fixture_clear(&f);
}

static PlSymbols *syms_with(const Fixture *f, const char *debug_dir, guint64 *bias)
{
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.debug_dirs, g_strdup(debug_dir));
	o.host_files = TRUE;
	PlTargetArch arch = t_host_arch();
	PlSymbols *s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	*bias = t_map_elf(s, 9, f->stripped, f->stripped, 0x555555554000ull, f->id, f->idn);
	return s;
}

static void same_frames_as_uncompressed(void)
{
	Fixture f = { 0 };
	fixture(&f);
	guint64 bp, bz;
	g_autoptr(PlSymbols) sp = syms_with(&f, f.plain_dir, &bp);
	g_autoptr(PlSymbols) sz = syms_with(&f, f.z_dir, &bz);
	PL_CHECK(bp == bz);
	guint compared = 0, inlined = 0;
	const char *fns[] = { "work", "outer", "main" };
	for (guint k = 0; k < G_N_ELEMENTS(fns); k++) {
		guint64 a, size;
		PL_CHECKF(t_nm(f.unstripped, fns[k], &a, &size), "nm has no %s", fns[k]);
		for (guint64 off = 0; off < size; off++) {
			PlFrameInfo x[PL_SYM_MAX_INLINE + 1], y[PL_SYM_MAX_INLINE + 1];
			for (int ret = 0; ret < 2; ret++) {
				guint nx = pl_symbols_resolve(sp, 9, bp + a + off, ret, x, G_N_ELEMENTS(x));
				guint ny = pl_symbols_resolve(sz, 9, bz + a + off, ret, y, G_N_ELEMENTS(y));
				PL_CHECKF(nx == ny, "%s+%llu: %u frames vs %u", fns[k],
					  (unsigned long long)off, nx, ny);
				for (guint i = 0; i < nx; i++) {
					PL_CHECKF(!g_strcmp0(x[i].function, y[i].function) &&
							  !g_strcmp0(x[i].file, y[i].file) &&
							  x[i].line == y[i].line &&
							  x[i].inlined == y[i].inlined,
						  "%s+%llu frame %u: %s %s:%u vs %s %s:%u", fns[k],
						  (unsigned long long)off, i, x[i].function, x[i].file,
						  x[i].line, y[i].function, y[i].file, y[i].line);
					inlined += x[i].inlined;
				}
				compared++;
			}
		}
	}
	PL_CHECKF(inlined > 0, "the test program has no inline frames: the comparison is weak");
	printf("# %u lookups compared, %u inline frames among them\n", compared, inlined);
	/* the copy was made once and is kept for the next Dwfl that opens it */
	PlElf *ze = g_ptr_array_index(sz->elf_order, 0), *pe = g_ptr_array_index(sp->elf_order, 0);
	PL_CHECK(ze->debug_copy_fd >= 0 && pe->debug_copy_fd < 0);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(sz);
	PlModuleReport *r = t_row(rows, f.stripped);
	PL_CHECK(r && r->has_lines && r->debug_path && !strcmp(r->debug_path, f.z_dbg));
	fixture_clear(&f);
}

/* This host's libc debug file, as Debian ships it (compressed): every CU,
 * its name and its line table, as libdw reads them from the file itself. */
static void system_debug_file(void)
{
#if !defined(__x86_64__)
	PL_SKIP("[other-arch] the case reads Debian's x86-64 libc and its libc6-dbg file");
#endif
	guint8 id[PL_SYM_MAX_BUILD_ID];
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	gsize n = g_file_test(libc, G_FILE_TEST_EXISTS) ? pl_elf_file_build_id(libc, id) : 0;
	PL_CHECKF(n, "no %s with a build-id here", libc);
	g_autofree char *hex = pl_build_id_hex(id, n);
	g_autofree char *path = g_strdup_printf("/usr/lib/debug/.build-id/%c%c/%s.debug", hex[0],
						hex[1], hex + 2);
	PL_CHECKF(g_file_test(path, G_FILE_TEST_EXISTS), "no libc debug file %s (libc6-dbg: ci/deps.sh)",
		  path);
	elf_version(EV_CURRENT);
	int afd = open(path, O_RDONLY), bfd = pl_debug_open_inflated(path, NULL);
	PL_CHECK(afd >= 0 && bfd >= 0);
	Elf *ae = elf_begin(afd, ELF_C_READ_MMAP, NULL), *be = elf_begin(bfd, ELF_C_READ_MMAP, NULL);
	Dwarf *a = dwarf_begin_elf(ae, DWARF_C_READ, NULL), *b = dwarf_begin_elf(be, DWARF_C_READ, NULL);
	PL_CHECK(a && b);
	Dwarf_Off ao = 0, bo = 0, an, bn;
	size_t ah, bh;
	guint cus = 0;
	for (;; cus++) {
		int ra = dwarf_nextcu(a, ao, &an, &ah, NULL, NULL, NULL);
		int rb = dwarf_nextcu(b, bo, &bn, &bh, NULL, NULL, NULL);
		PL_CHECK(ra == rb);
		if (ra != 0)
			break;
		PL_CHECK(an == bn && ah == bh);
		Dwarf_Die ad, bd;
		PL_CHECK(dwarf_offdie(a, ao + ah, &ad) && dwarf_offdie(b, bo + bh, &bd));
		PL_CHECK(!g_strcmp0(dwarf_diename(&ad), dwarf_diename(&bd)));
		Dwarf_Lines *al, *bl;
		size_t anl = 0, bnl = 0;
		int la = dwarf_getsrclines(&ad, &al, &anl), lb = dwarf_getsrclines(&bd, &bl, &bnl);
		PL_CHECKF(la == lb && anl == bnl, "CU %s: %zu lines vs %zu",
			  dwarf_diename(&ad), anl, bnl);
		ao = an;
		bo = bn;
	}
	PL_CHECK(cus > 10);
	printf("# %u CUs of %s identical\n", cus, path);
	dwarf_end(a);
	dwarf_end(b);
	elf_end(ae);
	elf_end(be);
	close(afd);
	close(bfd);
}

PL_TEST_MAIN(PL_CASE(copy_is_decompressed), PL_CASE(same_frames_as_uncompressed),
	     PL_CASE(system_debug_file))
