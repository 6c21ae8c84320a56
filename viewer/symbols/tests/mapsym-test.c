/* mapsym-test.c — ARM mapping symbols ($a, $t, $d, $x, "$a.N") mark where
 * ARM, Thumb or data starts; they are not functions.  An ARM program built
 * here by arm-linux-gnueabihf-gcc (the real cross toolchain, at test time)
 * with ARM, Thumb and hand-written assembly functions (no .size, so only a
 * sizeless label and a mapping symbol sit at the address) must resolve to
 * the functions nm names, never to a mapping symbol. */
#include "sym-test-util.h"

#define PID 777u
#define BASE 0x400000ull

static const char *source =
	"__attribute__((noinline)) int work(int x) { int s = 0; for (int i = 0; i < x; i++) "
	"s += i * x; return s; }\n"
	"__attribute__((noinline, target(\"thumb\"))) int tfun(int x) { int s = 1; "
	"for (int i = 0; i < x; i++) s ^= i * 7 + x; return s; }\n"
	"__asm__(\".text\\n.arm\\n.globl asmfun\\nasmfun:\\n\\tadd r0, r0, #1\\n"
	"\\tadd r0, r0, #2\\n\\tadd r0, r0, #3\\n\\tbx lr\\n\"\n"
	"        \".globl asmfun2\\nasmfun2:\\n\\tadd r0, r0, #4\\n\\tadd r0, r0, #5\\n"
	"\\tbx lr\\n\\t.word 0x12345678\\n\");\n"
	"int asmfun(int); int asmfun2(int);\n"
	"int main(int c, char **v) { return work(c) + tfun(c) + asmfun(c) + asmfun2(c); }\n";

/* Builds the program with flags; the cross compiler missing is a failure
 * (gcc-arm-linux-gnueabihf: ci/deps.sh). */
static char *build(const char *name, const char *flags)
{
	g_autofree char *src = g_build_filename(t_tmp(), "prog.c", NULL);
	t_write(src, source);
	char *out = g_build_filename(t_tmp(), name, NULL);
	t_cc_with("arm-linux-gnueabihf-gcc", "gcc-arm-linux-gnueabihf", src, out, flags);
	return out;
}

/* nm's symbol names, with the number of mapping symbols among them: the
 * test means nothing if the toolchain emitted none. */
static guint count_mapping_symbols(const char *file)
{
	char *why = NULL;
	char *argv[] = { (char *)"nm", (char *)file, NULL };
	g_autofree char *out = t_run(argv, &why);
	g_free(why);
	guint n = 0;
	for (const char *p = out; p && (p = strstr(p, " $")); p += 2)
		n++;
	return n;
}

static void check_program(const char *file, gboolean want_lines)
{
	PL_CHECKF(count_mapping_symbols(file) > 0, "%s has no mapping symbols", file);
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(file));
	PlTargetArch arch = { EM_ARM, FALSE, 4 };
	g_autoptr(PlSymbols) s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	g_autofree char *base = g_path_get_basename(file);
	g_autofree char *board = g_build_filename("/usr/bin", base, NULL); /* matched by name */
	guint64 bias = t_map_elf(s, PID, file, board, BASE, NULL, 0);
	const char *names[] = { "work", "tfun", "main", "asmfun", "asmfun2" };
	guint checked = 0;
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		guint64 a, sz;
		if (!t_nm(file, names[i], &a, &sz)) {
			PL_CHECKF(t_nm_addr(file, names[i], &a), "nm has no %s", names[i]);
			sz = 0;
		}
		a &= ~1ull; /* Thumb functions have bit 0 set in their value */
		if (sz == 0)
			sz = 8; /* asmfun*: at least two instructions */
		guint64 offs[] = { 0, (sz / 2) & ~1ull, (sz - 2) & ~1ull };
		for (guint k = 0; k < G_N_ELEMENTS(offs); k++) {
			PlFrameInfo f[8];
			guint n = pl_symbols_resolve(s, PID, bias + a + offs[k], FALSE, f, 8);
			PL_CHECK(n >= 1);
			for (guint j = 0; j < n; j++)
				PL_CHECKF(!f[j].function || f[j].function[0] != '$',
					  "%s+%llu resolved to the mapping symbol %s", names[i],
					  (unsigned long long)offs[k], f[j].function);
			PL_CHECKF(f[n - 1].function && !strcmp(f[n - 1].function, names[i]),
				  "%s+%llu resolved to %s (module %s, 0x%llx)", names[i],
				  (unsigned long long)offs[k],
				  f[n - 1].function ? f[n - 1].function : "(null)",
				  f[n - 1].module ? f[n - 1].module : "(null)",
				  (unsigned long long)f[n - 1].rel_addr);
			if (want_lines && i < 3)
				PL_CHECK(f[n - 1].file && g_str_has_suffix(f[n - 1].file, "prog.c"));
			checked++;
		}
	}
	printf("# %s: %u addresses checked\n", file, checked);
}

static void arm_with_debug_info(void)
{
	g_autofree char *f = build("arm-g", "-O2 -g -marm");
	check_program(f, TRUE);
}

static void arm_symbols_only(void)
{
	/* no DWARF: the ELF symbol table is all there is */
	g_autofree char *f = build("arm-nodebug", "-O2 -marm");
	check_program(f, FALSE);
}

static void thumb_default(void)
{
	g_autofree char *f = build("arm-thumb", "-O2 -g -mthumb -Wa,-mimplicit-it=always");
	check_program(f, TRUE);
}

PL_TEST_MAIN(PL_CASE(arm_with_debug_info), PL_CASE(arm_symbols_only), PL_CASE(thumb_default))
