/* ehabi-unwind-test.c — ARM EHABI unwinding of real captured ARM stacks.
 *
 * An ARM program, cross-compiled at test time, captures its own r0-r15 and
 * copies its stack from inside a qsort() comparison callback, so the stack
 * runs through Debian's armhf libc, whose qsort has only .ARM.exidx (no
 * .eh_frame, no .debug_frame: checked with readelf first).  It runs under
 * qemu-user (which emulates /proc/self/maps for the guest); the test then
 * unwinds the snapshot as the viewer would a sample from an armv7 board,
 * with the board's files taken from the cross sysroot, and checks the
 * frames by name: cmp_cb → libc's sort internals → qsort → sort_them →
 * main → __libc_start_main.  Variants: dynamic (the program has
 * .debug_frame: libdw and EHABI alternate), static without -g (EHABI
 * only), and big-endian (BE8, clang + lld, freestanding, qemu-armeb: the
 * tables are big-endian words). */
#include "pl-ehabi.h"
#include "snap-test-util.h"

#define PID 4242u
#define SYSROOT "/usr/arm-linux-gnueabihf"

/* The capture: one asm block stores every register at one instant (the
 * callee-saved ones must be the values the callers expect). */
#define CAPTURE_ASM                                                                               \
	"    __asm__ volatile(\n"                                                                 \
	"      \"str r0, [%0, #0]\\n\\t\" \"str r1, [%0, #4]\\n\\t\" \"str r2, [%0, #8]\\n\\t\"\n"  \
	"      \"str r3, [%0, #12]\\n\\t\" \"str r4, [%0, #16]\\n\\t\" \"str r5, [%0, #20]\\n\\t\"\n" \
	"      \"str r6, [%0, #24]\\n\\t\" \"str r7, [%0, #28]\\n\\t\" \"str r8, [%0, #32]\\n\\t\"\n" \
	"      \"str r9, [%0, #36]\\n\\t\" \"str r10, [%0, #40]\\n\\t\" \"str r11, [%0, #44]\\n\\t\"\n" \
	"      \"str r12, [%0, #48]\\n\\t\" \"str sp, [%0, #52]\\n\\t\" \"str lr, [%0, #56]\\n\\t\"\n" \
	"      \"mov ip, pc\\n\\t\" \"str ip, [%0, #60]\\n\\t\"\n"                                    \
	"      : : \"r\"(regs) : \"ip\", \"memory\");\n"

static const char snap_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"static unsigned char stack_copy[8192];\n"
	"static unsigned long regs[16];\n"
	"static const char *out;\n"
	"static int dumped;\n"
	"static unsigned long stack_top(unsigned long sp) {\n"
	"  FILE *f = fopen(\"/proc/self/maps\", \"r\"); char l[512]; unsigned long a, b;\n"
	"  while (fgets(l, sizeof l, f))\n"
	"    if (sscanf(l, \"%lx-%lx\", &a, &b) == 2 && sp >= a && sp < b) { fclose(f); return b; }\n"
	"  fclose(f); return sp;\n"
	"}\n"
	"static void dump(unsigned long n) {\n"
	"  char p[4096]; FILE *f;\n"
	"  snprintf(p, sizeof p, \"%s/regs\", out); f = fopen(p, \"w\");\n"
	"  for (int i = 0; i < 16; i++) fprintf(f, \"%lu\\n\", regs[i]); fclose(f);\n"
	"  snprintf(p, sizeof p, \"%s/stack\", out); f = fopen(p, \"w\");\n"
	"  fwrite(stack_copy, 1, n, f); fclose(f);\n"
	"  snprintf(p, sizeof p, \"%s/maps\", out); f = fopen(p, \"w\");\n"
	"  FILE *m = fopen(\"/proc/self/maps\", \"r\"); int c;\n"
	"  while ((c = fgetc(m)) != EOF) fputc(c, f); fclose(m); fclose(f);\n"
	"}\n"
	"__attribute__((noinline)) static int cmp_cb(const void *a, const void *b) {\n"
	"  if (!dumped) {\n"
	"    dumped = 1;\n" CAPTURE_ASM
	"    unsigned long sp = regs[13], n = stack_top(sp) - sp;\n"
	"    if (n > sizeof stack_copy) n = sizeof stack_copy;\n"
	"    memcpy(stack_copy, (void *)sp, n);\n"
	"    dump(n);\n"
	"  }\n"
	"  int x = *(const int *)a, y = *(const int *)b;\n"
	"  return (x > y) - (x < y);\n"
	"}\n"
	"__attribute__((noinline)) int sort_them(int *v, int n) {\n"
	"  qsort(v, n, sizeof *v, cmp_cb);\n"
	"  return v[0];\n"
	"}\n"
	"int main(int argc, char **argv) {\n"
	"  int v[64];\n"
	"  out = argv[1];\n"
	"  for (int i = 0; i < 64; i++) v[i] = (i * 37) % 64;\n"
	"  return sort_them(v, 64) != 0;\n"
	"}\n";

static void need_tools(const char *cc, const char *qemu)
{
	g_autofree char *c = g_find_program_in_path(cc);
	g_autofree char *q = g_find_program_in_path(qemu);
	PL_CHECKF(c, "%s is not installed (gcc-arm-linux-gnueabihf: ci/deps.sh)", cc);
	PL_CHECKF(q, "%s is not installed (qemu-user: ci/deps.sh)", qemu);
}

/* perf's ARM registers r0..r15: sp is r13, pc r15. */
static void read_snap(TSnap *s)
{
	t_snap_read(s, 16);
	PL_CHECKF(s->regs[13] && s->regs[15] && s->stack_size >= 512, "sp %#llx pc %#llx, %zu bytes",
		  (unsigned long long)s->regs[13], (unsigned long long)s->regs[15], s->stack_size);
}

/* Cross-compiles snap.c with flags and runs it under qemu-arm. */
static void take_snapshot(TSnap *s, const char *name, const char *flags)
{
	need_tools("arm-linux-gnueabihf-gcc", "qemu-arm");
	g_autofree char *src = t_snap_begin(s, name, snap_src);
	g_autofree char *cc = g_strdup_printf("arm-linux-gnueabihf-gcc %s -o %s %s", flags, s->bin, src);
	t_run_cmd(cc);
	g_autofree char *run = g_strdup_printf("qemu-arm -L " SYSROOT " %s %s", s->bin, s->dir);
	t_run_cmd(run);
	read_snap(s);
}

/* The board's view of the maps: qemu shows the sysroot's paths, a board
 * would show /lib/...; the viewer finds them again through --sysroot. */
static void add_board_maps(PlSymbols *sym, const char *maps)
{
	g_autoptr(GString) g = g_string_new(maps);
	g_string_replace(g, " " SYSROOT "/", " /", 0);
	t_add_maps(sym, PID, g->str);
}

/* The board's files: the programs given as --binary, the rest from the
 * cross sysroot. */
static PlSymbols *arm_symbols(const char *bin, const char *bin2, gboolean big)
{
	PlSymOptions o = t_opts();
	o.sysroot = g_strdup(SYSROOT);
	if (bin)
		g_ptr_array_add(o.binaries, g_strdup(bin));
	if (bin2)
		g_ptr_array_add(o.binaries, g_strdup(bin2));
	PlTargetArch arch = { EM_ARM, big, 4 };
	PlSymbols *sym = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	return sym;
}

static guint unwind_snap(PlSymbols *sym, const TSnap *s, gsize copy, guint64 *pcs, guint max,
			 gboolean *truncated)
{
	/* perf's ARM sample_regs_user order is r0..r15 */
	return pl_symbols_unwind(sym, PID, PID, 0xffff, s->regs, 16, s->stack,
				 MIN(copy, s->stack_size), pcs, max, truncated);
}

/* cmp_cb ... qsort ... sort_them, main, __libc_start_main in this order;
 * returns the number of frames between cmp_cb and qsort (libc's sort
 * internals, only reachable through EHABI). */
static guint check_chain(GPtrArray *names, const char *chain)
{
	PL_CHECKF(names->len > 0 && !strcmp(names->pdata[0], "cmp_cb"), "%s", chain);
	gint q = t_index_of(names, "qsort", 1);
	PL_CHECKF(q > 1, "qsort not reached: %s", chain);
	gint st = t_index_of(names, "sort_them", (guint)q);
	gint m = t_index_of(names, "main", (guint)q);
	/* libc.a calls it __libc_start_main_impl */
	gint lsm = -1;
	for (guint i = m > 0 ? (guint)m : names->len; i < names->len && lsm < 0; i++)
		if (g_str_has_prefix(names->pdata[i], "__libc_start_main"))
			lsm = (gint)i;
	PL_CHECKF(st == q + 1 && m == st + 1 && lsm > m, "%s", chain);
	return (guint)q - 1;
}

/* readelf -S: libc.so.6 has .ARM.exidx and no CFI worth the name (an
 * .eh_frame of a terminator only, no .debug_frame) — else this test would
 * not prove anything about EHABI. */
static void check_libc_is_ehabi_only(void)
{
	char *why = NULL;
	char *argv[] = { (char *)"readelf", (char *)"-SW", (char *)SYSROOT "/lib/libc.so.6", NULL };
	g_autofree char *out = t_run(argv, &why);
	PL_CHECKF(out, "readelf -S " SYSROOT "/lib/libc.so.6 (binutils, libc6-armhf-cross: ci/deps.sh): %s",
		  why);
	PL_CHECKF(strstr(out, ".ARM.exidx"), "libc.so.6 has no .ARM.exidx");
	PL_CHECKF(!strstr(out, ".debug_frame"), "libc.so.6 has .debug_frame: not an EHABI-only libc");
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	for (char **l = lines; *l; l++) {
		const char *p = strstr(*l, ".eh_frame ");
		if (!p)
			continue;
		/* Name Type Addr Off Size ... */
		g_auto(GStrv) f = g_strsplit_set(p, " ", -1);
		guint k = 0;
		char *cols[8] = { 0 };
		for (char **x = f; *x && k < 8; x++)
			if (**x)
				cols[k++] = *x;
		guint64 size = cols[4] ? g_ascii_strtoull(cols[4], NULL, 16) : 0;
		PL_CHECKF(size <= 4, "libc.so.6 .eh_frame has %llu bytes of CFI",
			  (unsigned long long)size);
	}
}

/* ======================================================================
 * Little-endian, glibc: dynamic and static
 * ====================================================================== */

static void walk_qsort(const char *name, const char *flags)
{
	check_libc_is_ehabi_only();
	TSnap s;
	take_snapshot(&s, name, flags);
	g_autoptr(PlSymbols) sym = arm_symbols(s.bin, NULL, FALSE);
	add_board_maps(sym, s.maps);

	guint64 pcs[128];
	gboolean truncated = TRUE;
	guint n = unwind_snap(sym, &s, s.stack_size, pcs, 128, &truncated);
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	g_autofree char *chain = t_chain_of(sym, PID, pcs, n, names);
	if (g_getenv("PL_VERBOSE"))
		printf("# %s: %u frames, truncated %d: %s\n", name, n, truncated, chain);
	PL_CHECK(pcs[0] == s.regs[15]);
	guint inner = check_chain(names, chain);
	PL_CHECKF(!strcmp(names->pdata[n - 1], "_start") && !truncated,
		  "the walk should end at _start (EXIDX_CANTUNWIND), untruncated: %s", chain);
	printf("# %s: %u frames, %u of them libc sort internals between cmp_cb and qsort\n", name,
	       n, inner);

	/* a copy too short for the outer frames: fewer frames, truncated */
	gboolean t2 = FALSE;
	guint64 pcs2[128];
	guint n2 = unwind_snap(sym, &s, 96, pcs2, 128, &t2);
	PL_CHECKF(n2 >= 1 && n2 < n && t2, "%u frames of %u, truncated %d", n2, n, t2);
	PL_CHECK(!memcmp(pcs, pcs2, n2 * sizeof(pcs[0])));
	/* max reached: truncated */
	n2 = unwind_snap(sym, &s, s.stack_size, pcs2, 3, &t2);
	PL_CHECK(n2 == 3 && t2 && !memcmp(pcs, pcs2, 3 * sizeof(pcs[0])));
	/* the same sample again through the reused Dwfl */
	n2 = unwind_snap(sym, &s, s.stack_size, pcs2, 128, &t2);
	PL_CHECK(n2 == n && !t2 && !memcmp(pcs, pcs2, n * sizeof(pcs[0])));
	t_snap_clear(&s);
}

static void dynamic_glibc_qsort(void)
{
	/* -g: the program's frames have .debug_frame, libc's only EHABI */
	walk_qsort("dyn", "-g -O2");
}

static void static_glibc_qsort_ehabi_only(void)
{
	/* no -g: every frame, the program's too, is unwound by EHABI */
	walk_qsort("static", "-O2 -static -funwind-tables");
}

static void dynamic_thumb_and_arm_mix(void)
{
	/* the program in ARM state, libc in Thumb-2: return addresses carry
	 * the mode in bit 0 both ways */
	walk_qsort("dyn-arm", "-O1 -marm -funwind-tables");
}

/* Without the sysroot libc cannot be found: the walk stops in it,
 * truncated, without crashing. */
static void missing_libc_truncates(void)
{
	TSnap s;
	take_snapshot(&s, "dyn-nolibc", "-g -O2");
	PlSymOptions o = t_opts();
	g_ptr_array_add(o.binaries, g_strdup(s.bin));
	PlTargetArch arch = { EM_ARM, FALSE, 4 };
	g_autoptr(PlSymbols) sym = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	add_board_maps(sym, s.maps);
	guint64 pcs[64];
	gboolean t = FALSE;
	guint n = unwind_snap(sym, &s, s.stack_size, pcs, 64, &t);
	PL_CHECKF(n >= 1 && n <= 3 && t, "%u frames, truncated %d", n, t);
	t_snap_clear(&s);
}

/* ======================================================================
 * Coverage: code with neither CFI nor .ARM.exidx is reported
 * ====================================================================== */

static const char cov_src[] =
	"int with_tables(int x) { return x * 3 + 1; }\n"
	"__asm__(\".text\\n.globl bare_asm\\n.type bare_asm, %function\\n"
	"bare_asm:\\n  bx lr\\n.size bare_asm, .-bare_asm\\n\");\n"
	"int main(void) { return with_tables(2) == 7; }\n";

static void coverage_names_code_without_tables(void)
{
	need_tools("arm-linux-gnueabihf-gcc", "qemu-arm");
	g_autofree char *dir = g_build_filename(t_tmp(), "cov", NULL);
	g_mkdir_with_parents(dir, 0755);
	g_autofree char *src = g_build_filename(dir, "cov.c", NULL);
	g_autofree char *bin = g_build_filename(dir, "cov", NULL);
	g_autofree char *bare = g_build_filename(dir, "bare", NULL);
	t_write(src, cov_src);
	/* with exidx for C functions, none for the asm one */
	g_autofree char *c1 = g_strdup_printf("arm-linux-gnueabihf-gcc -O1 -funwind-tables "
					      "-fno-asynchronous-unwind-tables -o %s %s", bin, src);
	t_run_cmd(c1);
	/* no table at all: no unwind tables, no -g */
	g_autofree char *c2 = g_strdup_printf("arm-linux-gnueabihf-gcc -O1 -fno-unwind-tables "
					      "-fno-asynchronous-unwind-tables -nostartfiles "
					      "-e main -o %s %s", bare, src);
	t_run_cmd(c2);

	g_autoptr(PlSymbols) sym = arm_symbols(bin, bare, FALSE);
	t_map_elf(sym, PID, bin, bin, 0x10000, NULL, 0);
	t_map_elf(sym, PID + 1, bare, bare, 0x10000, NULL, 0);
	t_map_elf(sym, PID, SYSROOT "/lib/libc.so.6", "/lib/libc.so.6", 0x40000000, NULL, 0);
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(sym);

	PlModuleReport *r = t_row(rows, bin);
	PL_CHECK(r && r->has_ehabi);
	PL_CHECKF(r->problem && strstr(r->problem, "neither CFI nor .ARM.exidx") &&
			  strstr(r->problem, "bare_asm") && !strstr(r->problem, "with_tables"),
		  "%s", r->problem ? r->problem : "(no problem reported)");
	r = t_row(rows, bare);
	PL_CHECK(r && !r->has_ehabi && !r->has_cfi);
	PL_CHECKF(r->problem && strstr(r->problem, "no unwind tables"), "%s",
		  r->problem ? r->problem : "(no problem reported)");
	/* libc: hand-written string functions have no tables; qsort has */
	r = t_row(rows, "/lib/libc.so.6");
	PL_CHECK(r && r->has_ehabi);
	PL_CHECKF(r->problem && strstr(r->problem, "neither CFI nor .ARM.exidx") &&
			  !strstr(r->problem, "qsort"),
		  "%s", r->problem ? r->problem : "(no problem reported)");
	if (g_getenv("PL_VERBOSE"))
		printf("# libc: %s\n", r->problem);
}

PL_TEST_MAIN(PL_CASE(dynamic_glibc_qsort), PL_CASE(static_glibc_qsort_ehabi_only),
	     PL_CASE(dynamic_thumb_and_arm_mix), PL_CASE(missing_libc_truncates),
	     PL_CASE(coverage_names_code_without_tables))
