/* riscv-unwind-test.c — DWARF unwinding of real captured riscv64 stacks.
 *
 * A riscv64 program, cross-compiled at test time against Debian's cross
 * glibc, captures its own pc and x1..x31 (perf's riscv order: PC, RA, SP,
 * GP, TP, T0-T2, S0, S1, A0-A7, S2-S11, T3-T6 = pc then x1..x31) and copies
 * its stack from inside a qsort() comparison callback, so the walk runs
 * through the cross libc's qsort.  It runs under qemu-user (which emulates
 * /proc/self/maps for the guest); the test unwinds the snapshot as the
 * viewer would a sample from a riscv64 board, with the board's files from
 * the cross sysroot, through libdw's riscv backend (elfutils 0.188: the
 * ABI's initial CFI, 66 DWARF registers; PerfLens gives the registers
 * itself, from the sample), and checks the frames by name.
 *
 * That backend has no `unwind` hook (x86_64's and aarch64's take a
 * frame-pointer step where no CFI covers the pc): PerfLens takes that step
 * itself (pl-unwind.c, pl_riscv_fp_step).  The last cases check it on a
 * program without CFI, and that without CFI or frame pointers the stack
 * is marked truncated, never passed off as complete. */
#include "snap-test-util.h"

#define PID 4343u
#define SYSROOT "/usr/riscv64-linux-gnu"
#define NREGS 32u

/* pc first (t0 saved before auipc uses it), then x1..x31 at 8 * n */
#define CAPTURE_ASM                                                                               \
	"    __asm__ volatile(\n"                                                                 \
	"      \"sd x1, 8(%0)\\n\\t\" \"sd x2, 16(%0)\\n\\t\" \"sd x3, 24(%0)\\n\\t\"\n"             \
	"      \"sd x4, 32(%0)\\n\\t\" \"sd x5, 40(%0)\\n\\t\" \"sd x6, 48(%0)\\n\\t\"\n"            \
	"      \"sd x7, 56(%0)\\n\\t\" \"sd x8, 64(%0)\\n\\t\" \"sd x9, 72(%0)\\n\\t\"\n"            \
	"      \"sd x10, 80(%0)\\n\\t\" \"sd x11, 88(%0)\\n\\t\" \"sd x12, 96(%0)\\n\\t\"\n"         \
	"      \"sd x13, 104(%0)\\n\\t\" \"sd x14, 112(%0)\\n\\t\" \"sd x15, 120(%0)\\n\\t\"\n"      \
	"      \"sd x16, 128(%0)\\n\\t\" \"sd x17, 136(%0)\\n\\t\" \"sd x18, 144(%0)\\n\\t\"\n"      \
	"      \"sd x19, 152(%0)\\n\\t\" \"sd x20, 160(%0)\\n\\t\" \"sd x21, 168(%0)\\n\\t\"\n"      \
	"      \"sd x22, 176(%0)\\n\\t\" \"sd x23, 184(%0)\\n\\t\" \"sd x24, 192(%0)\\n\\t\"\n"      \
	"      \"sd x25, 200(%0)\\n\\t\" \"sd x26, 208(%0)\\n\\t\" \"sd x27, 216(%0)\\n\\t\"\n"      \
	"      \"sd x28, 224(%0)\\n\\t\" \"sd x29, 232(%0)\\n\\t\" \"sd x30, 240(%0)\\n\\t\"\n"      \
	"      \"sd x31, 248(%0)\\n\\t\" \"auipc t0, 0\\n\\t\" \"sd t0, 0(%0)\\n\\t\"\n"            \
	"      : : \"r\"(regs) : \"t0\", \"memory\");\n"

static const char snap_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"static unsigned char stack_copy[16384];\n"
	"static unsigned long regs[32];\n"
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
	"  for (int i = 0; i < 32; i++) fprintf(f, \"%lu\\n\", regs[i]); fclose(f);\n"
	"  snprintf(p, sizeof p, \"%s/stack\", out); f = fopen(p, \"w\");\n"
	"  fwrite(stack_copy, 1, n, f); fclose(f);\n"
	"  snprintf(p, sizeof p, \"%s/maps\", out); f = fopen(p, \"w\");\n"
	"  FILE *m = fopen(\"/proc/self/maps\", \"r\"); int c;\n"
	"  while ((c = fgetc(m)) != EOF) fputc(c, f); fclose(m); fclose(f);\n"
	"}\n"
	"__attribute__((noinline)) int cmp_cb(const void *a, const void *b) {\n"
	"  if (!dumped) {\n"
	"    dumped = 1;\n" CAPTURE_ASM
	"    unsigned long sp = regs[2], n = stack_top(sp) - sp;\n"
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

static void need_tools(void)
{
	g_autofree char *c = g_find_program_in_path("riscv64-linux-gnu-gcc");
	g_autofree char *q = g_find_program_in_path("qemu-riscv64");
	PL_CHECKF(c, "riscv64-linux-gnu-gcc is not installed (gcc-riscv64-linux-gnu: ci/deps.sh)");
	PL_CHECKF(q, "qemu-riscv64 is not installed (qemu-user: ci/deps.sh)");
}

/* Cross-compiles snap.c with flags, runs it under qemu-riscv64 and reads
 * what it wrote. */
static void take_snapshot(TSnap *s, const char *name, const char *flags)
{
	need_tools();
	g_autofree char *src = t_snap_begin(s, name, snap_src);
	g_autofree char *cc =
		g_strdup_printf("riscv64-linux-gnu-gcc %s -o %s %s", flags, s->bin, src);
	t_run_cmd(cc);
	g_autofree char *run = g_strdup_printf("qemu-riscv64 -L " SYSROOT " %s %s", s->bin, s->dir);
	t_run_cmd(run);
	t_snap_read(s, NREGS);
	PL_CHECKF(s->regs[0] && s->regs[2] && s->stack_size >= 512, "pc %#llx sp %#llx, %zu bytes",
		  (unsigned long long)s->regs[0], (unsigned long long)s->regs[2], s->stack_size);
}

/* The board's view: qemu shows the sysroot's paths, a board /lib/...;
 * the program as --binary, the rest from the cross sysroot. */
static PlSymbols *riscv_symbols(const TSnap *s)
{
	PlSymOptions o = t_opts();
	o.sysroot = g_strdup(SYSROOT);
	g_ptr_array_add(o.binaries, g_strdup(s->bin));
	PlTargetArch arch = { EM_RISCV, FALSE, 8 };
	PlSymbols *sym = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	g_autoptr(GString) g = g_string_new(s->maps);
	g_string_replace(g, " " SYSROOT "/", " /", 0);
	t_add_maps(sym, PID, g->str);
	return sym;
}

static guint unwind_snap(PlSymbols *sym, const TSnap *s, gsize copy, guint64 *pcs, guint max,
			 gboolean *truncated)
{
	/* all 32 of perf's riscv registers, the agent's mask (agent/arch.h) */
	return pl_symbols_unwind(sym, PID, PID, (1ull << NREGS) - 1, s->regs, NREGS, s->stack,
				 MIN(copy, s->stack_size), pcs, max, truncated);
}

/* glibc's qsort is a tail call to qsort_r: the frame is qsort_r's */
static gint index_of_qsort(GPtrArray *names)
{
	gint q = t_index_of(names, "qsort", 1);
	return q > 0 ? q : t_index_of(names, "qsort_r", 1);
}

/* cmp_cb → libc's sort internals → qsort(_r) → sort_them → main →
 * __libc_start_call_main → __libc_start_main → _start, the end by glibc's
 * own CFI (_start marks ra undefined): complete, not truncated. */
static void walk_qsort(const char *name, const char *flags)
{
	TSnap s;
	take_snapshot(&s, name, flags);
	g_autoptr(PlSymbols) sym = riscv_symbols(&s);
	guint64 pcs[128];
	gboolean truncated = TRUE;
	guint n = unwind_snap(sym, &s, s.stack_size, pcs, 128, &truncated);
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	g_autofree char *chain = t_chain_of(sym, PID, pcs, n, names);
	if (g_getenv("PL_VERBOSE"))
		printf("# %s: %u frames, truncated %d: %s\n", name, n, truncated, chain);
	PL_CHECK(n > 0 && pcs[0] == s.regs[0]);
	PL_CHECKF(!strcmp(names->pdata[0], "cmp_cb"), "%s", chain);
	gint q = index_of_qsort(names);
	gint st = q > 0 ? t_index_of(names, "sort_them", (guint)q) : -1;
	gint m = st > 0 ? t_index_of(names, "main", (guint)st) : -1;
	gint lsm = -1;
	for (guint i = m > 0 ? (guint)m : n; i < n && lsm < 0; i++)
		if (g_str_has_prefix(names->pdata[i], "__libc_start_main"))
			lsm = (gint)i;
	PL_CHECKF(q > 1 && st == q + 1 && m == st + 1 && lsm > m, "%s", chain);
	PL_CHECKF(!strcmp(names->pdata[n - 1], "_start") && !truncated,
		  "the walk should end at _start (ra undefined in its CFI), untruncated: %s",
		  chain);
	printf("# %s: %u frames, %d of them libc sort internals between cmp_cb and qsort\n", name,
	       n, q - 1);

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

static void dynamic_glibc_qsort_nofp(void)
{
	/* no frame pointers: only CFI (the program's .eh_frame and
	 * .debug_frame, libc's .eh_frame) finds the callers */
	walk_qsort("nofp", "-g -O2 -fomit-frame-pointer");
}

static void dynamic_glibc_qsort_fp(void)
{
	walk_qsort("fp", "-O1 -fno-omit-frame-pointer -fasynchronous-unwind-tables");
}

/* No FDE of the program covers cmp_cb (checked: else the case proves
 * nothing about code without CFI). */
static void check_no_fde_covers(const TSnap *s, const char *fn)
{
	char *why = NULL;
	char *argv[] = { (char *)"readelf", (char *)"--debug-dump=frames", s->bin, NULL };
	g_autofree char *rd = t_run(argv, &why);
	PL_CHECKF(rd, "readelf: %s", why);
	guint64 lo = 0, size = 0;
	PL_CHECK(t_nm(s->bin, fn, &lo, &size) && size > 0);
	g_auto(GStrv) lines = g_strsplit(rd, "\n", -1);
	for (char **l = lines; *l; l++) {
		const char *p = strstr(*l, "pc=");
		unsigned long long a, b;
		if (p && sscanf(p, "pc=%llx..%llx", &a, &b) == 2)
			PL_CHECKF(b <= lo || a >= lo + size, "an FDE covers %s: %s", fn, *l);
	}
}

/* The program without any CFI (no unwind tables, no -g) but with frame
 * pointers: libdw's riscv backend stops at cmp_cb, the frame-pointer
 * step (pl-unwind.c) takes the walk on through the frame records of the
 * program's functions and libdw through libc's CFI, to _start. */
static void frame_without_cfi_takes_fp_step(void)
{
	TSnap s;
	take_snapshot(&s, "nocfi-fp",
		      "-O1 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables");
	check_no_fde_covers(&s, "cmp_cb");
	check_no_fde_covers(&s, "sort_them");
	g_autoptr(PlSymbols) sym = riscv_symbols(&s);
	guint64 pcs[64];
	gboolean t = TRUE;
	guint n = unwind_snap(sym, &s, s.stack_size, pcs, 64, &t);
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	g_autofree char *chain = t_chain_of(sym, PID, pcs, n, names);
	if (g_getenv("PL_VERBOSE"))
		printf("# nocfi-fp: %u frames, truncated %d: %s\n", n, t, chain);
	gint q = index_of_qsort(names);
	gint st = q > 0 ? t_index_of(names, "sort_them", (guint)q) : -1;
	gint m = st > 0 ? t_index_of(names, "main", (guint)st) : -1;
	PL_CHECKF(n > 0 && !strcmp(names->pdata[0], "cmp_cb") && q > 1 && st == q + 1 &&
			  m == st + 1,
		  "%s", chain);
	PL_CHECKF(!strcmp(names->pdata[n - 1], "_start") && !t, "truncated %d: %s", t, chain);
	t_snap_clear(&s);
}

/* Neither CFI nor frame pointers: nothing can find cmp_cb's caller, and
 * the stack says it is truncated, never passed off as complete. */
static void frame_without_cfi_or_fp_is_truncated(void)
{
	TSnap s;
	take_snapshot(&s, "nocfi-nofp",
		      "-O1 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables");
	check_no_fde_covers(&s, "cmp_cb");
	g_autoptr(PlSymbols) sym = riscv_symbols(&s);
	guint64 pcs[64];
	gboolean t = FALSE;
	guint n = unwind_snap(sym, &s, s.stack_size, pcs, 64, &t);
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	g_autofree char *chain = t_chain_of(sym, PID, pcs, n, names);
	PL_CHECKF(n >= 1 && t && !strcmp(names->pdata[0], "cmp_cb"), "%u frames, truncated %d: %s",
		  n, t, chain);
	t_snap_clear(&s);
}

PL_TEST_MAIN(PL_CASE(dynamic_glibc_qsort_nofp), PL_CASE(dynamic_glibc_qsort_fp),
	     PL_CASE(frame_without_cfi_takes_fp_step), PL_CASE(frame_without_cfi_or_fp_is_truncated))
