/* vmlinux-test.c — kernel frames from a vmlinux (PlSymOptions.vmlinux,
 * pl-vmlinux.c) on a "kernel" built here: a static ET_EXEC with a _text
 * symbol, DWARF and a build-id, "running" at a KASLR offset that the
 * board's kallsyms (made from nm, moved by that offset) gives away.
 * Oracle: addr2line -f -i on the vmlinux address of every byte of a
 * function holding an inlined call (names, files, lines, inline frames).
 * A vmlinux of another build is refused: by the build-id of the board's
 * /sys/kernel/notes (the agent's chunk), else by kallsyms' functions not
 * being where it has them; modules' addresses stay kallsyms'.
 */
#include "pl-elf-locator.h"
#include "sym-test-util.h"

#define KASLR 0x1a400000ull
#define CHUNK_KALLSYMS 3u
#define CHUNK_KERNEL_NOTES 6u

static const char kernel_src[] =
	"#define F(n) __attribute__((noinline)) int f##n(int x) { return x * n + 1; }\n"
	"F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14)\n"
	"void _text(void) {}\n"
	"__attribute__((noinline)) int leaf(int x) { return f3(x) ^ f7(x); }\n"
	"static inline __attribute__((always_inline)) int helper(int x)\n"
	"{\n"
	"	return leaf(x) * 3 + f5(x);\n"
	"}\n"
	"int do_work(int x) { return helper(x) + helper(x + 1) + 1; }\n"
	"void _start(void) { for (volatile int i = 0;; i++) do_work(i); }\n";

/* The kernel, built once. */
static const char *kernel(void)
{
	static char *path;
	if (!path) {
		char *src = g_build_filename(t_tmp(), "kernel.c", NULL);
		path = g_build_filename(t_tmp(), "vmlinux", NULL);
		t_write(src, kernel_src);
		t_cc(src, path, "-O2 -g -no-pie -static -nostdlib -fno-pie -Wl,--build-id=sha1");
		g_free(src);
	}
	return path;
}

/* kallsyms text for the kernel at offset off, each function i (in nm's
 * order) moved by a further i * skew (0: a faithful kallsyms), plus a
 * module function past the kernel's end. */
static char *kallsyms_text(guint64 off, guint64 skew, guint64 *module_addr)
{
	char *why = NULL;
	char *argv[] = { (char *)"nm", (char *)"-n", (char *)kernel(), NULL };
	g_autofree char *out = t_run(argv, &why);
	PL_CHECKF(out, "%s", why);
	GString *s = g_string_new(NULL);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	guint64 last = 0, i = 0;
	for (char **l = lines; *l; l++) {
		g_auto(GStrv) f = g_strsplit(*l, " ", -1);
		if (g_strv_length(f) != 3 || (strcmp(f[1], "T") && strcmp(f[1], "t")))
			continue;
		guint64 a = g_ascii_strtoull(f[0], NULL, 16) + off + (strcmp(f[2], "_text") ? i * skew : 0);
		g_string_append_printf(s, "%016llx %s %s\n", (unsigned long long)a, f[1], f[2]);
		last = MAX(last, a);
		i++;
	}
	*module_addr = last + 0x100000;
	g_string_append_printf(s, "%016llx t mod_fn\t[ext4]\n", (unsigned long long)*module_addr);
	return g_string_free(s, FALSE);
}

/* /sys/kernel/notes as the kernel has it: one GNU build-id note (this
 * host's byte order, as the board's). */
static GByteArray *notes(const guint8 *id, gsize len)
{
	GByteArray *b = g_byte_array_new();
	guint32 h[3] = { 4, (guint32)len, 3 /* NT_GNU_BUILD_ID */ };
	g_byte_array_append(b, (const guint8 *)h, sizeof(h));
	g_byte_array_append(b, (const guint8 *)"GNU", 4);
	g_byte_array_append(b, id, (guint)len);
	static const guint8 pad[4];
	g_byte_array_append(b, pad, (guint)((4 - len % 4) % 4));
	return b;
}

static PlSymbols *session(const char *vmlinux, guint64 skew, const guint8 *id, gsize id_len,
			  guint64 *module_addr)
{
	PlSymOptions o = t_opts();
	o.vmlinux = (char *)vmlinux;
	PlTargetArch arch = t_host_arch();
	PlSymbols *s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	g_autofree char *k = kallsyms_text(KASLR, skew, module_addr);
	if (id) {
		g_autoptr(GByteArray) n = notes(id, id_len);
		pl_symbols_add_chunk(s, CHUNK_KERNEL_NOTES, 0, 0, 0, n->data, n->len);
	}
	pl_symbols_add_chunk(s, CHUNK_KALLSYMS, 0, 0, 0, (const guint8 *)k, strlen(k));
	return s;
}

static void kaslr_kernel_lines_match_addr2line(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize id_len = pl_elf_file_build_id(kernel(), id);
	PL_CHECKF(id_len > 0, "gcc gave %s no build-id", kernel());
	guint64 mod;
	g_autoptr(PlSymbols) s = session(kernel(), 0, id, id_len, &mod);
	guint64 start, size;
	PL_CHECK(t_nm(kernel(), "do_work", &start, &size));
	guint checked = 0, inlined = 0;
	for (guint64 a = start; a < start + size; a++) {
		PlFrameInfo fr[8];
		guint n = pl_symbols_resolve(s, 1, a + KASLR, FALSE, fr, G_N_ELEMENTS(fr));
		g_autofree char *hex = g_strdup_printf("0x%llx", (unsigned long long)a);
		char *why = NULL;
		char *argv[] = { (char *)"addr2line", (char *)"-f", (char *)"-i", (char *)"-e",
				 (char *)kernel(), hex, NULL };
		g_autofree char *out = t_run(argv, &why);
		PL_CHECKF(out, "%s", why);
		g_auto(GStrv) l = g_strsplit(g_strstrip(out), "\n", -1);
		guint want = g_strv_length(l) / 2;
		PL_CHECKF(n == want, "%s: %u frames, addr2line %u", hex, n, want);
		for (guint i = 0; i < n; i++) {
			g_autofree char *loc = g_strdup(l[2 * i + 1]);
			char *sp = strchr(loc, ' '); /* " (discriminator N)" */
			if (sp)
				*sp = 0;
			g_autofree char *got = g_strdup_printf("%s:%u", fr[i].file ? fr[i].file : "??",
							       fr[i].line);
			PL_CHECKF(!g_strcmp0(fr[i].function, l[2 * i]) && !strcmp(got, loc),
				  "%s frame %u: %s at %s, addr2line %s at %s", hex, i,
				  fr[i].function, got, l[2 * i], loc);
			PL_CHECKF(!g_strcmp0(fr[i].module, "[kernel]"), "module %s", fr[i].module);
			PL_CHECK(fr[i].rel_addr == a); /* the vmlinux address */
			PL_CHECK(fr[i].inlined == (i + 1 < n));
		}
		inlined += n > 1;
		checked++;
	}
	PL_CHECKF(inlined > 0, "no address of do_work is in the inlined helper");
	/* a module's address is named by kallsyms */
	PlFrameInfo fr[4];
	PL_CHECK(pl_symbols_resolve(s, 1, mod + 4, FALSE, fr, 4) == 1);
	PL_CHECKF(!g_strcmp0(fr[0].function, "mod_fn") && !g_strcmp0(fr[0].module, "[ext4]") &&
			  !fr[0].file,
		  "module address: %s %s", fr[0].function, fr[0].module);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "[kernel.kallsyms]");
	PL_CHECK(r && r->has_lines && !g_strcmp0(r->local_path, kernel()) && !r->problem);
	printf("# %u addresses of do_work as addr2line has them, %u with inline frames\n", checked,
	       inlined);
}

/* kernel frames named from kallsyms alone (no file, no line); faithful:
 * kallsyms has leaf where the vmlinux has it */
static void check_kallsyms_only(PlSymbols *s, gboolean faithful, const char *want_problem)
{
	guint64 start, size;
	PL_CHECK(t_nm(kernel(), "leaf", &start, &size));
	PlFrameInfo fr[4];
	guint n = pl_symbols_resolve(s, 1, start + KASLR, FALSE, fr, 4);
	PL_CHECKF(n == 1 && fr[0].function && (!faithful || !strcmp(fr[0].function, "leaf")) &&
			  !fr[0].file,
		  "leaf: %u frames, %s at %s", n, fr[0].function, fr[0].file);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PlModuleReport *r = t_row(rows, "[kernel.kallsyms]");
	PL_CHECK(r && r->has_symbols && !r->has_lines);
	PL_CHECKF(r->problem && strstr(r->problem, want_problem), "problem: %s", r->problem);
	printf("# %s\n", r->problem);
}

static void other_build_id_is_refused(void)
{
	guint8 id[20];
	memset(id, 0xab, sizeof(id));
	guint64 mod;
	g_autoptr(PlSymbols) s = session(kernel(), 0, id, sizeof(id), &mod);
	check_kallsyms_only(s, TRUE, "but the board's kernel has abababab");
}

static void other_kernel_is_refused_by_kallsyms(void)
{
	guint64 mod;
	g_autoptr(PlSymbols) s = session(kernel(), 0x40, NULL, 0, &mod);
	check_kallsyms_only(s, FALSE, "is not the board's kernel");
}

static void missing_file_is_said(void)
{
	guint64 mod;
	g_autofree char *p = g_build_filename(t_tmp(), "no-vmlinux", NULL);
	g_autoptr(PlSymbols) s = session(p, 0, NULL, 0, &mod);
	check_kallsyms_only(s, TRUE, "no such file");
}

PL_TEST_MAIN(PL_CASE(kaslr_kernel_lines_match_addr2line), PL_CASE(other_build_id_is_refused),
	     PL_CASE(other_kernel_is_refused_by_kallsyms), PL_CASE(missing_file_is_said))
