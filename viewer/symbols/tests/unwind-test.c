/* unwind-test.c — DWARF unwinding of real captured stacks with real libdw.
 *
 * A small program, compiled by gcc at test time with and without frame
 * pointers, captures its own registers (perf's x86-64 order) and copies
 * its stack from sp up, in test_fn → caller → main, then writes them and
 * its /proc/self/maps out; the test unwinds that snapshot off-line as the
 * viewer would a PL_MSG_SAMPLE, and checks the frames by name. */
#include "pl-unwind-ahead.h"
#include "snap-test-util.h"

#define PID 777u

static const char snap_src[] =
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"static unsigned char stack_copy[65536];\n"
	"static unsigned long regs[24];\n"
	"static const char *out;\n"
	"static unsigned long stack_top(unsigned long sp) {\n"
	"  FILE *f = fopen(\"/proc/self/maps\", \"r\"); char l[512]; unsigned long a, b;\n"
	"  while (fgets(l, sizeof l, f))\n"
	"    if (sscanf(l, \"%lx-%lx\", &a, &b) == 2 && sp >= a && sp < b) { fclose(f); return b; }\n"
	"  fclose(f); return sp;\n"
	"}\n"
	"static void dump(unsigned long n) {\n"
	"  char p[4096]; FILE *f;\n"
	"  snprintf(p, sizeof p, \"%s/regs\", out); f = fopen(p, \"w\");\n"
	"  for (int i = 0; i < 24; i++) fprintf(f, \"%lu\\n\", regs[i]); fclose(f);\n"
	"  snprintf(p, sizeof p, \"%s/stack\", out); f = fopen(p, \"w\");\n"
	"  fwrite(stack_copy, 1, n, f); fclose(f);\n"
	"  snprintf(p, sizeof p, \"%s/maps\", out); f = fopen(p, \"w\");\n"
	"  FILE *m = fopen(\"/proc/self/maps\", \"r\"); int c;\n"
	"  while ((c = fgetc(m)) != EOF) fputc(c, f); fclose(m); fclose(f);\n"
	"}\n"
	"__attribute__((noinline)) int test_fn(int depth) {\n"
	"  volatile int pad[32]; pad[depth & 31] = depth;\n"
	"  __asm__ volatile(\n"
	"    \"mov %%rbx, 8(%0)\\n\\t\" \"mov %%rbp, 48(%0)\\n\\t\" \"mov %%rsp, 56(%0)\\n\\t\"\n"
	"    \"lea 0(%%rip), %%rax\\n\\t\" \"mov %%rax, 64(%0)\\n\\t\"\n"
	"    \"mov %%r12, 160(%0)\\n\\t\" \"mov %%r13, 168(%0)\\n\\t\"\n"
	"    \"mov %%r14, 176(%0)\\n\\t\" \"mov %%r15, 184(%0)\\n\\t\"\n"
	"    : : \"r\"(regs) : \"rax\", \"memory\");\n"
	"  unsigned long sp = regs[7], n = stack_top(sp) - sp;\n"
	"  if (n > sizeof stack_copy) n = sizeof stack_copy;\n"
	"  memcpy(stack_copy, (void *)sp, n);\n"
	"  dump(n);\n"
	"  return pad[depth & 31];\n"
	"}\n"
	"__attribute__((noinline)) int caller(int x) { return test_fn(x + 1) + 1; }\n"
	"int main(int argc, char **argv) { out = argv[1]; return caller(argc) == 0; }\n";

static void take_snapshot(TSnap *s, const char *name, const char *flags)
{
#if !defined(__x86_64__)
	PL_SKIP("[other-arch] the snapshot program captures x86-64 registers; this host is not "
		"x86-64");
#endif
	g_autofree char *src = t_snap_begin(s, name, snap_src);
	t_cc(src, s->bin, flags);
	char *argv[] = { s->bin, s->dir, NULL };
	char *why = NULL;
	g_autofree char *out = t_run(argv, &why);
	PL_CHECKF(out, "%s", why);
	t_snap_read(s, 24);
	PL_CHECK(s->regs[7] && s->regs[8] && s->stack_size > 256);
}

/* Unwinds the snapshot with a stack copy of at most copy bytes. */
static guint unwind(PlSymbols *sym, TSnap *s, gsize copy, guint64 *pcs, guint max,
		    gboolean *truncated)
{
	/* perf's sample_regs_user order: AX BX CX DX SI DI BP SP IP (0..8),
	 * R12..R15 (20..23); the regs array follows the mask's bits */
	guint64 mask = 0, regs[24];
	guint n = 0;
	for (guint i = 0; i < 24; i++) {
		if (i > 8 && i < 20)
			continue;
		mask |= 1ull << i;
		regs[n++] = s->regs[i];
	}
	return pl_symbols_unwind(sym, PID, PID, mask, regs, n, s->stack, MIN(copy, s->stack_size),
				 pcs, max, truncated);
}

static void check_full_walk(const char *name, const char *flags, gboolean stripped)
{
	TSnap s;
	take_snapshot(&s, name, flags);
	PlSymOptions o = t_opts();
	o.host_files = TRUE; /* the "board" is this machine */
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) sym = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	t_add_maps(sym, PID, s.maps);

	guint64 pcs[64];
	gboolean truncated = TRUE;
	guint n = unwind(sym, &s, s.stack_size, pcs, 64, &truncated);
	g_autoptr(GPtrArray) names = g_ptr_array_new();
	g_autofree char *chain = t_chain_of(sym, PID, pcs, n, names);
	PL_CHECKF(n >= 4, "%u frames: %s", n, chain);
	PL_CHECK(pcs[0] == s.regs[8]);
	PL_CHECKF(!truncated, "a full copy reached _start yet truncated: %s", chain);
	if (stripped) {
		/* no names in the program, but .eh_frame still walks it into libc */
		PL_CHECKF(n == 6 && !strcmp(names->pdata[3], "__libc_start_call_main") &&
				  !strcmp(names->pdata[4], "__libc_start_main"),
			  "%s", chain);
	} else {
		PL_CHECKF(!strcmp(names->pdata[0], "test_fn") &&
				  !strcmp(names->pdata[1], "caller") &&
				  !strcmp(names->pdata[2], "main"),
			  "%s", chain);
		PL_CHECKF(!strcmp(names->pdata[n - 1], "_start"), "%s", chain);
	}

	/* the same Dwfl serves the next sample of the process */
	guint64 pcs2[64];
	gboolean t2;
	PL_CHECK(unwind(sym, &s, s.stack_size, pcs2, 64, &t2) == n && !t2);
	PL_CHECK(!memcmp(pcs, pcs2, n * sizeof(pcs[0])));

	/* a short copy: fewer frames, marked truncated */
	guint n3 = unwind(sym, &s, 24, pcs2, 64, &t2);
	PL_CHECKF(n3 >= 1 && n3 < n && t2, "%u frames, truncated %d", n3, t2);
	/* max reached: truncated too */
	guint n4 = unwind(sym, &s, s.stack_size, pcs2, 2, &t2);
	PL_CHECK(n4 == 2 && t2);
	t_snap_clear(&s);
}

static void unwind_with_frame_pointers(void)
{
	check_full_walk("fp", "-g -O1 -fno-omit-frame-pointer", FALSE);
}

static void unwind_cfi_only(void)
{
	/* no frame pointer: only .eh_frame can find the callers */
	check_full_walk("nofp", "-g -O2 -fomit-frame-pointer", FALSE);
}

static void unwind_stripped_binary_uses_eh_frame(void)
{
	check_full_walk("nodebug", "-O2 -fomit-frame-pointer -s", TRUE);
}

static guint count_fds(void)
{
	guint n = 0;
	GDir *d = g_dir_open("/proc/self/fd", 0, NULL);
	while (d && g_dir_read_name(d))
		n++;
	if (d)
		g_dir_close(d);
	return n;
}

/* dlclose + dlopen of another file at the same place: the Dwfl is rebuilt
 * and the walk still works; freeing everything returns every fd. */
static void overlap_rebuilds_and_frees(void)
{
	TSnap s;
	take_snapshot(&s, "overlap", "-g -O1 -fomit-frame-pointer");
	guint fds = count_fds();
	{
		PlSymOptions o = t_opts();
		o.host_files = TRUE;
		PlTargetArch arch = t_host_arch();
		g_autoptr(PlSymbols) sym = pl_symbols_new(&o, &arch);
		t_opts_clear(&o);
		t_add_maps(sym, PID, s.maps);
		guint64 pcs[64], pcs2[64];
		gboolean t1, t2;
		guint n = unwind(sym, &s, s.stack_size, pcs, 64, &t1);
		/* a file mapped over a far-away range that no frame uses */
		pl_symbols_add_mapping(sym, PID, 0x10000, 0x1000, 0, s.bin, NULL, 0);
		/* and the program's own text replaced by the same file again */
		t_add_maps(sym, PID, s.maps);
		guint n2 = unwind(sym, &s, s.stack_size, pcs2, 64, &t2);
		PL_CHECKF(n2 == n && !t1 && !t2 && !memcmp(pcs, pcs2, n * 8), "%u vs %u", n, n2);
		pl_symbols_process_exit(sym, PID);
		guint n3 = unwind(sym, &s, s.stack_size, pcs2, 64, &t2); /* a new Dwfl */
		PL_CHECKF(n3 == n && !t2, "%u frames after exit, %u before", n3, n);
	}
	PL_CHECKF(count_fds() == fds, "%u fds before, %u after", fds, count_fds());
	t_snap_clear(&s);
}

static void bad_input_does_not_crash(void)
{
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) sym = pl_symbols_new(NULL, &arch);
	guint64 pcs[8], regs[3] = { 0x1000, 0x2000, 0x3000 };
	gboolean t = FALSE;
	guint8 stack[64] = { 0 };
	/* no registers at all */
	PL_CHECK(pl_symbols_unwind(sym, 1, 1, 0, regs, 0, stack, 64, pcs, 8, &t) == 0 && t);
	/* IP only: one frame */
	PL_CHECK(pl_symbols_unwind(sym, 1, 1, 1ull << 8, regs, 1, stack, 64, pcs, 8, &t) == 1);
	PL_CHECK(pcs[0] == 0x1000 && t);
	/* SP + IP into nothing mapped */
	PL_CHECK(pl_symbols_unwind(sym, 1, 1, 3ull << 7, regs, 2, stack, 64, pcs, 8, &t) >= 1);
	PL_CHECK(t);
	/* more regs claimed than given */
	PL_CHECK(pl_symbols_unwind(sym, 1, 1, ~0ull, regs, 3, stack, 0, pcs, 8, &t) == 0);
	/* a machine with no table */
	PlTargetArch odd = { EM_SPARC, TRUE, 4 };
	g_autoptr(PlSymbols) s2 = pl_symbols_new(NULL, &odd);
	PL_CHECK(pl_symbols_unwind(s2, 1, 1, 3ull << 7, regs, 2, stack, 64, pcs, 8, &t) == 0 && t);
}


/* The snapshot as the messages a perf.data gives: MMAPs at mmap_time, then
 * the sample at sample_time (pl_unwind_ahead_feed's input). */
static void feed_snapshot(PlUnwindAhead *ua, TSnap *s, guint64 mmap_time, guint64 sample_time,
			  gsize copy, gboolean *queued)
{
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	guint64 mask = 0;
	guint n = 0;
	m->type = PL_MSG_SESSION;
	for (guint i = 0; i < 24; i++)
		if (i <= 8 || i >= 20)
			mask |= 1ull << i;
	m->u.session.sample_regs_user = mask;
	pl_unwind_ahead_feed(ua, m);
	g_auto(GStrv) lines = g_strsplit(s->maps, "\n", -1);
	for (char **l = lines; *l; l++) {
		unsigned long long a, b, off, ino;
		unsigned dmaj, dmin;
		char perms[8], path[4096] = "";
		if (sscanf(*l, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &a, &b, perms, &off, &dmaj,
			   &dmin, &ino, path) < 7 || !*g_strstrip(path))
			continue;
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_MMAP;
		m->u.mmap = (struct pl_msg_mmap){ .pid = PID, .tid = PID, .time = mmap_time,
						  .start = a, .len = b - a, .pgoff = off };
		m->u.mmap.filename = pl_str_c(g_strstrip(path));
		pl_unwind_ahead_feed(ua, m);
	}
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_SAMPLE;
	struct pl_msg_sample *sm = &m->u.sample;
	sm->pid = sm->tid = PID;
	sm->time = sample_time;
	sm->regs_abi = 2;
	for (guint i = 0; i < 24; i++)
		if (mask & (1ull << i))
			sm->regs[n++] = s->regs[i];
	sm->nr_regs = n;
	sm->stack = s->stack;
	sm->stack_size = (uint32_t)MIN(copy, s->stack_size);
	*queued = pl_unwind_ahead_feed(ua, m);
	g_free(m);
}

/* pl-unwind-ahead.c: the worker's answer is the one pl_symbols_unwind
 * gives; another stack, or a mapping older than a queued sample, is left
 * to the caller. */
static void unwind_ahead_same_answer(void)
{
	TSnap s;
	take_snapshot(&s, "ahead", "-g -O1 -fomit-frame-pointer");
	PlSymOptions o = t_opts();
	o.host_files = TRUE;
	PlTargetArch arch = t_host_arch();
	guint64 want[64], got[64];
	gboolean tw, tg, queued;
	guint nw;
	{
		g_autoptr(PlSymbols) ref = pl_symbols_new(&o, &arch);
		t_add_maps(ref, PID, s.maps);
		nw = unwind(ref, &s, s.stack_size, want, 64, &tw);
		PL_CHECK(nw >= 3 && !tw);
	}
	{
		/* in order: answered by the worker, the same frames */
		g_autoptr(PlUnwindAhead) ua = pl_unwind_ahead_new(&o);
		g_autoptr(PlSymbols) sym = pl_symbols_new(&o, &arch);
		t_add_maps(sym, PID, s.maps);
		feed_snapshot(ua, &s, 100, 200, s.stack_size, &queued);
		PL_CHECK(queued);
		pl_symbols_set_unwind_ahead(sym, ua);
		guint ng = unwind(sym, &s, s.stack_size, got, 64, &tg);
		guint64 used, missed;
		pl_unwind_ahead_counts(ua, &used, &missed);
		PL_CHECKF(used == 1 && missed == 0, "%llu used, %llu missed",
			  (unsigned long long)used, (unsigned long long)missed);
		PL_CHECK(ng == nw && tg == tw && !memcmp(got, want, nw * 8));
		/* the same sample with one stack byte the walk read changed is
		 * not the worker's: the caller unwinds it */
		feed_snapshot(ua, &s, 300, 400, s.stack_size, &queued);
		PL_CHECK(queued);
		guint8 saved = s.stack[0];
		s.stack[0] ^= 0xff; /* below the last byte the walk read: compared */
		guint64 other[64];
		gboolean to;
		unwind(sym, &s, s.stack_size, other, 64, &to);
		s.stack[0] = saved;
		pl_unwind_ahead_counts(ua, &used, &missed);
		PL_CHECKF(used == 1 && missed == 1, "%llu used, %llu missed",
			  (unsigned long long)used, (unsigned long long)missed);
		/* a max that the answer reaches: left to the caller too */
		feed_snapshot(ua, &s, 500, 600, s.stack_size, &queued);
		guint nc = unwind(sym, &s, s.stack_size, got, 2, &tg);
		PL_CHECK(nc == 2 && tg);
		pl_symbols_set_unwind_ahead(sym, NULL);
	}
	{
		/* a mapping older than a queued sample: the ahead turns off */
		g_autoptr(PlUnwindAhead) ua = pl_unwind_ahead_new(&o);
		g_autoptr(PlSymbols) sym = pl_symbols_new(&o, &arch);
		t_add_maps(sym, PID, s.maps);
		feed_snapshot(ua, &s, 100, 200, s.stack_size, &queued);
		PL_CHECK(queued);
		feed_snapshot(ua, &s, 150, 300, s.stack_size, &queued);
		PL_CHECK(!queued);
		pl_symbols_set_unwind_ahead(sym, ua);
		guint ng = unwind(sym, &s, s.stack_size, got, 64, &tg);
		guint64 used, missed;
		pl_unwind_ahead_counts(ua, &used, &missed);
		PL_CHECK(used == 0 && missed == 1);
		PL_CHECK(ng == nw && !memcmp(got, want, nw * 8));
		pl_symbols_set_unwind_ahead(sym, NULL);
	}
	t_opts_clear(&o);
	t_snap_clear(&s);
}

PL_TEST_MAIN(PL_CASE(unwind_with_frame_pointers), PL_CASE(unwind_ahead_same_answer), PL_CASE(unwind_cfi_only),
	     PL_CASE(unwind_stripped_binary_uses_eh_frame), PL_CASE(overlap_rebuilds_and_frees),
	     PL_CASE(bad_input_does_not_crash))
