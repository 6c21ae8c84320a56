/* sym-table-test.c — the sorted symbol table (pl-sym-table.c) against its
 * oracle, libdwfl's dwfl_module_addrinfo: at every byte of burn's code and
 * at a fine odd step over all of libc's, the same name (the very same
 * string) and the same offset, or no symbol from both.  libc is taken with
 * its debug file's .symtab (local and global symbols, aliases, assembly
 * labels without a size) and alone (.dynsym only); an ARM program (Thumb
 * and ARM functions, assembly labels, mapping symbols) built here by the
 * cross compiler, where libdwfl's values carry the Thumb bit rules.
 */
#include <sys/stat.h>

#include "pl-elf-locator.h"
#include "pl-sym-table.h"
#include "pl-symbols-types.h"
#include "sym-test-util.h"

static int refuse_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			    GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	return -1;
}

static int refuse_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		      char **file_name, Elf **elfp)
{
	return -1;
}

static const Dwfl_Callbacks no_debug = {
	.find_elf = refuse_elf,
	.find_debuginfo = refuse_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* [*lo, *hi): the executable sections of file. */
static void code_range(const char *file, guint64 *lo, guint64 *hi)
{
	int fd = open(file, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	PL_CHECKF(e != NULL, "open %s", file);
	*lo = G_MAXUINT64;
	*hi = 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type == SHT_PROGBITS) {
			*lo = MIN(*lo, sh.sh_addr);
			*hi = MAX(*hi, sh.sh_addr + sh.sh_size);
		}
	}
	elf_end(e);
	close(fd);
	PL_CHECK(*hi > *lo);
}

/* Compares the table of mod with libdwfl at lo - 64, then every step up
 * to hi + 64.  Returns the number of addresses with a symbol. */
static guint compare(Dwfl_Module *mod, guint machine, const char *what, guint64 lo, guint64 hi,
		     guint64 step)
{
	g_autoptr(GTimer) tm = g_timer_new();
	PlSymTable *t = pl_sym_table_new(mod, machine);
	double build = g_timer_elapsed(tm, NULL);
	PL_CHECKF(t != NULL, "%s: no table", what);
	guint named = 0, n = 0, labels = 0;
	double t_ours = 0, t_dwfl = 0;
	for (guint64 a = lo > 64 ? lo - 64 : 0; a < hi + 64; a += step, n++) {
		GElf_Off doff = 0;
		GElf_Sym sym;
		guint64 ooff = 0;
		g_timer_start(tm);
		const char *d = dwfl_module_addrinfo(mod, a, &doff, &sym, NULL, NULL, NULL);
		t_dwfl += g_timer_elapsed(tm, NULL);
		g_timer_start(tm);
		const char *o = pl_sym_table_lookup(t, a, &ooff);
		t_ours += g_timer_elapsed(tm, NULL);
		PL_CHECKF(d == o && (!d || doff == ooff), "%s %#llx: libdwfl %s+%#llx, table %s+%#llx",
			  what, (unsigned long long)a, d ? d : "(none)", (unsigned long long)doff,
			  o ? o : "(none)", (unsigned long long)ooff);
		named += d != NULL;
		labels += d && sym.st_size == 0;
	}
	pl_sym_table_free(t);
	printf("# %s: %u addresses identical (%u named, %u by a sizeless label); table built in "
	       "%.2f ms; %.2f us per lookup vs libdwfl %.2f us\n",
	       what, n, named, labels, build * 1e3, t_ours / n * 1e6, t_dwfl / n * 1e6);
	return named;
}

static Dwfl *plain_dwfl(const char *file, Dwfl_Module **mod)
{
	Dwfl *dwfl = dwfl_begin(&no_debug);
	PL_CHECK(dwfl);
	int fd = open(file, O_RDONLY);
	PL_CHECK(fd >= 0);
	dwfl_report_begin(dwfl);
	*mod = dwfl_report_elf(dwfl, "m", file, fd, 0, true);
	dwfl_report_end(dwfl, NULL, NULL);
	PL_CHECKF(*mod != NULL, "libdw cannot read %s: %s", file, dwfl_errmsg(-1));
	return dwfl;
}

static void burn_every_byte(void)
{
	g_autofree char *burn = g_build_filename(t_build_dir(), "workloads", "burn", NULL);
	g_autofree char *nofp = g_build_filename(t_build_dir(), "workloads", "burn-nofp", NULL);
	PL_CHECKF(g_file_test(burn, G_FILE_TEST_EXISTS) && g_file_test(nofp, G_FILE_TEST_EXISTS),
		  "%s or %s not built (make)", burn, nofp);
	elf_version(EV_CURRENT);
	const char *files[] = { burn, nofp };
	for (guint i = 0; i < G_N_ELEMENTS(files); i++) {
		Dwfl_Module *mod;
		Dwfl *dwfl = plain_dwfl(files[i], &mod);
		guint64 lo, hi;
		code_range(files[i], &lo, &hi);
		PL_CHECK(compare(mod, EM_X86_64, files[i], lo, hi, 1) > 1000);
		dwfl_end(dwfl);
	}
}

/* Debian's x86-64 libc: skipped on another host arch, missing is a failure. */
#if defined(__x86_64__)
#define NEED_X86_64_LIBC() ((void)0)
#else
#define NEED_X86_64_LIBC() PL_SKIP("[other-arch] the case reads Debian's x86-64 libc")
#endif

static void libc_dynsym(void)
{
	NEED_X86_64_LIBC();
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	PL_CHECKF(g_file_test(libc, G_FILE_TEST_EXISTS), "no %s here", libc);
	elf_version(EV_CURRENT);
	Dwfl_Module *mod;
	Dwfl *dwfl = plain_dwfl(libc, &mod);
	guint64 lo, hi;
	code_range(libc, &lo, &hi);
	PL_CHECK(compare(mod, EM_X86_64, "libc .dynsym", lo, hi, 29) > 1000);
	dwfl_end(dwfl);
}

/* With the debug file, as symbolization opens it (the located file, the
 * decompressed copy). */
static void libc_symtab(void)
{
	NEED_X86_64_LIBC();
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn = g_file_test(libc, G_FILE_TEST_EXISTS) ? pl_elf_file_build_id(libc, id) : 0;
	PL_CHECKF(idn, "no %s with a build-id here", libc);
	g_autofree char *xdg = g_build_filename(t_tmp(), "xdg", NULL);
	g_setenv("XDG_CACHE_HOME", xdg, TRUE);
	PlSymOptions o = t_opts();
	o.host_files = TRUE;
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	guint64 bias = t_map_elf(s, 3, libc, libc, 0x7f0000000000ull, id, idn);
	guint64 lo, hi;
	code_range(libc, &lo, &hi);
	PlFrameInfo f[4];
	pl_symbols_resolve(s, 3, bias + lo, FALSE, f, 4);
	PlElf *e = g_ptr_array_index(s->elf_order, 0);
	PL_CHECKF(e->debug_path, "no libc debug file found for %s (libc6-dbg: ci/deps.sh)", libc);
	PL_CHECK(e->mod);
	/* an odd step: every alignment of an address within an instruction
	 * (libdwfl takes 300 us a lookup here, so a step of 37, not 11:
	 * 38k addresses, 11 s) */
	PL_CHECK(compare(e->mod, EM_X86_64, "libc .symtab", lo, hi, 37) > 10000);
}

static const char arm_source[] =
	"__attribute__((noinline)) int work(int x) { int s = 0; for (int i = 0; i < x; i++) "
	"s += i * x; return s; }\n"
	"__attribute__((noinline, target(\"thumb\"))) int tfun(int x) { int s = 1; "
	"for (int i = 0; i < x; i++) s ^= i * 7 + x; return s; }\n"
	"__attribute__((noinline, target(\"arm\"))) int afun(int x) { return x * 3 + 1; }\n"
	"static __attribute__((noinline)) int lfun(int x) { return x ^ 5; }\n"
	"int alias_fun(int) __attribute__((weak, alias(\"lfun\")));\n"
	"__asm__(\".text\\n.arm\\n.globl asmfun\\nasmfun:\\n\\tadd r0, r0, #1\\n"
	"\\tbx lr\\n.syntax unified\\n.thumb\\n.thumb_func\\n.globl tasm\\ntasm:\\n"
	"\\tadds r0, r0, #2\\n"
	"\\tbx lr\\n.arm\\n\\t.word 0x12345678\\n\");\n"
	"int asmfun(int); int tasm(int);\n"
	"int main(int c, char **v) { return work(c) + tfun(c) + afun(c) + lfun(c) + asmfun(c) + "
	"tasm(c); }\n";

/* ARM ELF (EM_ARM): libdwfl masks the Thumb bit of values; mapping
 * symbols ($a, $t, $d) are ordinary sizeless symbols to it.  Thumb by
 * default, ARM by default, with and without debug info. */
static void arm_every_byte(void)
{
	g_autofree char *src = g_build_filename(t_tmp(), "arm.c", NULL);
	t_write(src, arm_source);
	elf_version(EV_CURRENT);
	const char *flags[] = { "-O1 -g -mthumb", "-O1 -marm", "-O2 -g -mthumb -static" };
	for (guint i = 0; i < G_N_ELEMENTS(flags); i++) {
		g_autofree char *out = g_strdup_printf("%s/arm-%u", t_tmp(), i);
		t_cc_with("arm-linux-gnueabihf-gcc", "gcc-arm-linux-gnueabihf", src, out, flags[i]);
		Dwfl_Module *mod;
		Dwfl *dwfl = plain_dwfl(out, &mod);
		guint64 lo, hi;
		code_range(out, &lo, &hi);
		g_autofree char *what = g_strdup_printf("ARM %s", flags[i]);
		/* every byte of the small programs; in the static one, with
		 * libc's 1.5 MB, every 7th (odd: both halfword alignments) */
		PL_CHECK(compare(mod, EM_ARM, what, lo, hi, strstr(flags[i], "static") ? 7 : 1) > 100);
		dwfl_end(dwfl);
	}
}

PL_TEST_MAIN(PL_CASE(burn_every_byte), PL_CASE(libc_dynsym), PL_CASE(libc_symtab),
	     PL_CASE(arm_every_byte))
