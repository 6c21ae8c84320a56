/* lld-layout-test.c — load bias when segments share file pages, as lld
 * lays programs out: r-- .rodata from offset 0 up to 0x1080, r-x .text
 * from file offset 0x1080 at 0x202080, so the code's mapping (start
 * 0x202000, pgoff 0x1000) begins with the tail of .rodata, and on aarch64
 * the code and .rodata both start in file page 0.
 *
 * The programs are burn.c built by this project's own static musl
 * toolchain (toolchains/cc.sh, from the cached sysroots ci/agents.sh
 * makes) for x86_64 and the ARM targets, and by the host's clang with lld
 * as a PIE (ET_DYN at a high base).  Each is mapped as the kernel reports
 * it — the code segment alone (what the agent sends: code mappings only),
 * then every PT_LOAD as perf -d would see them — and every function nm
 * names must come back from pl_symbols_resolve at its own address.  The
 * ARM programs cannot run here; their mappings are laid out as the board's
 * kernel would lay them out (binfmt_elf: page-down vaddr and offset). */
#include "pl-symbols-types.h"
#include "sym-test-util.h"

#define PID 5151u
#define PAGE 0x1000ull
#define PIE_BASE 0x7f3a12340000ull

/* The cached musl sysroot of arch (ci/agents.sh builds them), or NULL. */
static char *cached_sysroot(const char *arch)
{
	/* test/run.sh names the cache; XDG_CACHE_HOME is this test's scratch
	 * (sym-test-util.h), so the default is spelled out */
	const char *root = getenv("PERFLENS_TC_CACHE");
	g_autofree char *dflt = g_build_filename(g_get_home_dir(), ".cache", "perflens",
						 "toolchains", NULL);
	if (!root || !*root)
		root = dflt;
	g_autoptr(GDir) d = g_dir_open(root, 0, NULL);
	char *pick = NULL;
	for (const char *n; d && (n = g_dir_read_name(d));) {
		g_autofree char *target = g_build_filename(root, n, "TARGET", NULL);
		g_autofree char *t = NULL;
		if (!g_file_get_contents(target, &t, NULL, NULL) || strcmp(g_strstrip(t), arch))
			continue;
		/* several keys (older Debian uploads): the last by name */
		char *dir = g_build_filename(root, n, NULL);
		if (!pick || strcmp(dir, pick) > 0) {
			g_free(pick);
			pick = dir;
		} else {
			g_free(dir);
		}
	}
	return pick;
}

/* burn.c built by toolchains/cc.sh for arch, unstripped.  The sysroot is
 * a build product (make check runs ci/agents.sh before the tests): its
 * absence is a failure that says to run make agents. */
static char *build_musl(const char *arch)
{
	g_autofree char *sysroot = cached_sysroot(arch);
	PL_CHECKF(sysroot, "no cached musl sysroot for %s: run make agents (ci/agents.sh builds "
		  "the sysroots; make check does before the tests)",
		  arch);
	g_autofree char *clang = g_find_program_in_path("clang");
	PL_CHECKF(clang, "clang is not installed (clang lld: ci/deps.sh)");
	char *out = g_strdup_printf("%s/burn-musl-%s", t_tmp(), arch);
	g_autofree char *cc = g_build_filename(PL_TOP, "toolchains", "cc.sh", NULL);
	g_autofree char *src = g_build_filename(PL_TOP, "test", "workloads", "burn.c", NULL);
	char *argv[] = { cc, (char *)arch, (char *)"-g", (char *)"-O1",
			 (char *)"-fno-omit-frame-pointer", (char *)"-o", out, src,
			 (char *)"-lpthread", NULL };
	g_auto(GStrv) env = g_get_environ();
	env = g_environ_setenv(env, "PERFLENS_SYSROOT", sysroot, TRUE);
	env = g_environ_setenv(env, "PERFLENS_STRIP", "0", TRUE);
	env = g_environ_setenv(env, "PL_TC_QUIET", "1", TRUE);
	g_autofree char *err = NULL;
	gint status = 0;
	GError *e = NULL;
	gboolean ran = g_spawn_sync(NULL, argv, env, 0, NULL, NULL, NULL, &err, &status, &e);
	PL_CHECKF(ran, "%s", e ? e->message : "");
	PL_CHECKF(g_spawn_check_wait_status(status, NULL), "cc.sh %s failed: %s", arch, err);
	return out;
}

/* burn.c built by the host's clang and lld as a PIE. */
static char *build_pie(void)
{
	g_autofree char *clang = g_find_program_in_path("clang");
	g_autofree char *lld = g_find_program_in_path("ld.lld");
	PL_CHECKF(clang && lld, "clang or ld.lld is not installed (clang lld: ci/deps.sh)");
	g_autofree char *src = g_build_filename(PL_TOP, "test", "workloads", "burn.c", NULL);
	char *out = g_build_filename(t_tmp(), "burn-lld-pie", NULL);
	t_cc_with("clang", "clang", src, out, "-fuse-ld=lld -fPIE -pie -g -O1 -pthread");
	return out;
}

typedef struct {
	GElf_Ehdr eh;
	GArray *loads; /* GElf_Phdr of the PT_LOADs */
} Layout;

static void layout_read(const char *file, Layout *l)
{
	int fd = open(file, O_RDONLY);
	PL_CHECKF(fd >= 0, "open %s", file);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	PL_CHECK(e && gelf_getehdr(e, &l->eh));
	l->loads = g_array_new(FALSE, FALSE, sizeof(GElf_Phdr));
	size_t n = 0;
	elf_getphdrnum(e, &n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			g_array_append_val(l->loads, ph);
	}
	elf_end(e);
	close(fd);
}

/* TRUE when the first file page of seg also holds bytes of another
 * PT_LOAD: pgoff alone cannot tell the two apart. */
static gboolean shares_first_page(const Layout *l, const GElf_Phdr *seg)
{
	guint64 p0 = seg->p_offset & ~(PAGE - 1);
	for (guint i = 0; i < l->loads->len; i++) {
		const GElf_Phdr *ph = &g_array_index(l->loads, GElf_Phdr, i);
		if (ph != seg && ph->p_filesz && ph->p_offset < seg->p_offset &&
		    ph->p_offset + ph->p_filesz > p0)
			return TRUE;
	}
	return FALSE;
}

/* The mapping binfmt_elf (or ld.so) makes for one PT_LOAD. */
static void map_segment(PlSymbols *s, const GElf_Phdr *ph, guint64 bias, const char *board)
{
	guint64 start = (bias + ph->p_vaddr) & ~(PAGE - 1);
	guint64 end = (bias + ph->p_vaddr + ph->p_filesz + PAGE - 1) & ~(PAGE - 1);
	pl_symbols_add_mapping(s, PID, start, end - start, ph->p_offset & ~(PAGE - 1), board, NULL,
			       0);
}

typedef struct {
	char *name;
	guint64 addr, size;
} NmSym;

static void nm_sym_clear(gpointer p)
{
	g_free(((NmSym *)p)->name);
}

/* The sized code symbols nm -S lists, weak aliases too (mapping symbols
 * left out). */
static GArray *nm_functions(const char *file)
{
	char *why = NULL;
	char *argv[] = { (char *)"nm", (char *)"-S", (char *)"--defined-only", (char *)file, NULL };
	g_autofree char *out = t_run(argv, &why);
	PL_CHECKF(out != NULL, "%s", why);
	GArray *syms = g_array_new(FALSE, FALSE, sizeof(NmSym));
	g_array_set_clear_func(syms, nm_sym_clear);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit(*l, " ", -1);
		if (g_strv_length(f) != 4 || !strchr("TtWw", f[2][0]) || f[3][0] == '$')
			continue;
		NmSym x = { g_strdup(f[3]), g_ascii_strtoull(f[0], NULL, 16) & ~1ull,
			    g_ascii_strtoull(f[1], NULL, 16) };
		if (x.size >= 4)
			g_array_append_val(syms, x);
		else
			g_free(x.name);
	}
	return syms;
}

/* TRUE when nm puts name at addr (an alias of the symbol checked). */
static gboolean nm_at(const GArray *syms, const char *name, guint64 addr)
{
	for (guint i = 0; i < syms->len; i++) {
		const NmSym *x = &g_array_index(syms, NmSym, i);
		if (!strcmp(x->name, name) && x->addr == addr)
			return TRUE;
	}
	return FALSE;
}

/* Every sized function nm names (at its middle) resolves to itself or to
 * an alias at the same address; the burn path by name.  code_only: only
 * the r-x segment is mapped, as the agent reports a process. */
static void check_layout(const char *file, const PlTargetArch *arch, gboolean code_only)
{
	Layout l;
	layout_read(file, &l);
	guint64 bias = l.eh.e_type == ET_DYN ? PIE_BASE : 0;
	/* the case proves nothing unless the code shares its first page with
	 * the segment before it */
	const GElf_Phdr *code = NULL;
	for (guint i = 0; i < l.loads->len; i++) {
		const GElf_Phdr *ph = &g_array_index(l.loads, GElf_Phdr, i);
		if ((ph->p_flags & PF_X) && !code)
			code = ph;
	}
	PL_CHECKF(code && shares_first_page(&l, code), "%s: the code segment starts a page of its own",
		  file);

	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(file));
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, arch);
	t_opts_clear(&o);
	g_autofree char *base = g_path_get_basename(file);
	g_autofree char *board = g_build_filename("/usr/bin", base, NULL);
	for (guint i = 0; i < l.loads->len; i++) {
		const GElf_Phdr *ph = &g_array_index(l.loads, GElf_Phdr, i);
		if (!code_only || (ph->p_flags & PF_X))
			map_segment(s, ph, bias, board);
	}
	g_array_unref(l.loads);

	static const char *const burn_path[] = { "hot_leaf", "compute_mid", "compute_outer",
						 "main", "thread_main" };
	g_autoptr(GArray) syms = nm_functions(file);
	guint checked = 0, path_found = 0;
	for (guint i = 0; i < syms->len; i++) {
		const NmSym *x = &g_array_index(syms, NmSym, i);
		guint64 at = x->addr + (x->size / 2 & ~1ull);
		PlFrameInfo f[PL_SYM_MAX_INLINE + 1];
		guint n = pl_symbols_resolve(s, PID, bias + at, FALSE, f, G_N_ELEMENTS(f));
		PL_CHECK(n >= 1);
		const char *got = f[n - 1].function;
		PL_CHECKF(got && (!strcmp(got, x->name) || nm_at(syms, got, x->addr)),
			  "%s (%s): %s+0x%llx at 0x%llx resolved to %s (ELF address 0x%llx)", file,
			  code_only ? "code mapping only" : "every segment mapped", x->name,
			  (unsigned long long)(at - x->addr), (unsigned long long)(bias + at),
			  got ? got : "nothing", (unsigned long long)f[n - 1].rel_addr);
		PL_CHECKF(f[n - 1].rel_addr == at, "%s: ELF address 0x%llx, nm's 0x%llx", x->name,
			  (unsigned long long)f[n - 1].rel_addr, (unsigned long long)at);
		for (guint k = 0; k < G_N_ELEMENTS(burn_path); k++)
			path_found += !strcmp(x->name, burn_path[k]);
		checked++;
	}
	PL_CHECKF(path_found == G_N_ELEMENTS(burn_path), "nm -S listed %u of the burn path",
		  path_found);
	printf("# %s (%s): %u functions named as nm names them\n", file,
	       code_only ? "code mapping" : "all segments", checked);
}

/* The board's PlTargetArch, from the file's own header. */
static PlTargetArch arch_of(const char *file)
{
	Layout l;
	layout_read(file, &l);
	g_array_unref(l.loads);
	PlTargetArch a = { l.eh.e_machine, l.eh.e_ident[EI_DATA] == ELFDATA2MSB,
			   l.eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4 };
	return a;
}

/* Of aliases at one address, the name perf report gives: musl's memcpy
 * (global) over its local label __memcpy_fwd, and __qsort_r (local) over
 * the weak qsort_r (perf: sized, not weak, global, fewer underscores). */
static void check_aliases(const char *file, const PlTargetArch *arch)
{
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(file));
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, arch);
	t_opts_clear(&o);
	g_autofree char *base = g_path_get_basename(file);
	g_autofree char *board = g_build_filename("/usr/bin", base, NULL);
	Layout l;
	layout_read(file, &l);
	for (guint i = 0; i < l.loads->len; i++)
		if (g_array_index(l.loads, GElf_Phdr, i).p_flags & PF_X)
			map_segment(s, &g_array_index(l.loads, GElf_Phdr, i), 0, board);
	g_array_unref(l.loads);
	static const char *const pairs[][2] = { { "memcpy", "memcpy" }, { "qsort_r", "__qsort_r" } };
	for (guint i = 0; i < G_N_ELEMENTS(pairs); i++) {
		guint64 a;
		PL_CHECKF(t_nm_addr(file, pairs[i][0], &a), "nm has no %s", pairs[i][0]);
		a &= ~1ull; /* a Thumb function's value has bit 0 set */
		PlFrameInfo f[PL_SYM_MAX_INLINE + 1];
		guint n = pl_symbols_resolve(s, PID, a + 4, FALSE, f, G_N_ELEMENTS(f));
		PL_CHECKF(n >= 1 && !g_strcmp0(f[n - 1].function, pairs[i][1]),
			  "%s: %s+4 named %s, perf names it %s", file, pairs[i][0],
			  n ? f[n - 1].function : "nothing", pairs[i][1]);
	}
}

static void musl(const char *target)
{
	g_autofree char *f = build_musl(target);
	PlTargetArch a = arch_of(f);
	check_layout(f, &a, TRUE);
	check_layout(f, &a, FALSE);
	check_aliases(f, &a);
}

static void musl_static_x86_64(void)
{
	musl("x86_64");
}

static void musl_static_aarch64(void)
{
	musl("aarch64");
}

static void musl_static_aarch64_be(void)
{
	musl("aarch64_be");
}

static void musl_static_armv7l(void)
{
	musl("armv7l");
}

static void lld_pie_x86_64(void)
{
#if !defined(__x86_64__)
	PL_SKIP("[other-arch] the host's clang builds x86-64 code only on an x86-64 host");
#endif
	g_autofree char *f = build_pie();
	PlTargetArch a = arch_of(f);
	check_layout(f, &a, TRUE);
	check_layout(f, &a, FALSE);
}

PL_TEST_MAIN(PL_CASE(musl_static_x86_64), PL_CASE(musl_static_aarch64),
	     PL_CASE(musl_static_aarch64_be), PL_CASE(musl_static_armv7l), PL_CASE(lld_pie_x86_64))
