/* snap-test-util.h — the stack snapshots the unwinding tests take.
 *
 * Each unwinding test has its own small program, for its architecture,
 * that writes its registers (one decimal number a line, in perf's
 * sample_regs_user order), a copy of its stack and its /proc/self/maps
 * into a directory.  These read such a snapshot back and name the frames
 * an unwind of it found, so that the tests differ only in what is
 * architecture-specific: the program, how it runs, the register mask.
 * Include after sym-test-util.h. */
#ifndef PL_SNAP_TEST_UTIL_H
#define PL_SNAP_TEST_UTIL_H

#include "sym-test-util.h"

#define T_SNAP_MAX_REGS 32u

typedef struct {
	char *dir, *bin;
	guint64 regs[T_SNAP_MAX_REGS];
	guint8 *stack;
	gsize stack_size;
	char *maps;
} TSnap;

static inline void t_snap_clear(TSnap *s)
{
	g_free(s->dir);
	g_free(s->bin);
	g_free(s->stack);
	g_free(s->maps);
}

/* Runs a command line (no shell), failing the case with its output. */
static inline void t_run_cmd(const char *cmd)
{
	gchar **argv = NULL;
	PL_CHECK(g_shell_parse_argv(cmd, NULL, &argv, NULL));
	char *why = NULL;
	char *o = t_run(argv, &why);
	g_strfreev(argv);
	PL_CHECKF(o != NULL, "%s: %s", cmd, why);
	g_free(o);
}

/* Empties s, makes its directory under the test's temporary one and
 * writes the program's source there; returns the source's path (the
 * binary's, s->bin, is beside it).  The caller builds and runs it. */
static inline char *t_snap_begin(TSnap *s, const char *name, const char *src_text)
{
	memset(s, 0, sizeof(*s));
	s->dir = g_build_filename(t_tmp(), name, NULL);
	g_mkdir_with_parents(s->dir, 0755);
	char *src = g_build_filename(s->dir, "snap.c", NULL);
	s->bin = g_build_filename(s->dir, "snap", NULL);
	t_write(src, src_text);
	return src;
}

/* Reads the nregs registers, the stack copy and the maps the program
 * wrote into s->dir. */
static inline void t_snap_read(TSnap *s, guint nregs)
{
	g_autofree char *rp = g_build_filename(s->dir, "regs", NULL);
	g_autofree char *sp = g_build_filename(s->dir, "stack", NULL);
	g_autofree char *mp = g_build_filename(s->dir, "maps", NULL);
	g_autofree char *rt = NULL;
	PL_CHECK(nregs <= T_SNAP_MAX_REGS);
	PL_CHECK(g_file_get_contents(rp, &rt, NULL, NULL));
	g_auto(GStrv) rl = g_strsplit(rt, "\n", -1);
	for (guint i = 0; i < nregs && rl[i]; i++)
		s->regs[i] = g_ascii_strtoull(rl[i], NULL, 10);
	PL_CHECK(g_file_get_contents(sp, (char **)&s->stack, &s->stack_size, NULL));
	PL_CHECK(g_file_get_contents(mp, &s->maps, NULL, NULL));
}

/* Names the frames pcs[0..n) of pid into names (the outermost inline
 * level's function, "?" where none) and returns the chain as one line,
 * "fn(module+offset) <- ...", for failure messages. */
static inline char *t_chain_of(PlSymbols *sym, guint32 pid, const guint64 *pcs, guint n,
			       GPtrArray *names)
{
	GString *g = g_string_new(NULL);
	for (guint i = 0; i < n; i++) {
		PlFrameInfo f[8];
		guint k = pl_symbols_resolve(sym, pid, pcs[i], i > 0, f, 8);
		const char *fn = f[k - 1].function ? f[k - 1].function : "?";
		g_ptr_array_add(names, (gpointer)fn);
		g_string_append_printf(g, "%s%s(%s+%#llx)", i ? " <- " : "", fn,
				       f[k - 1].module ? f[k - 1].module : "?",
				       (unsigned long long)f[k - 1].rel_addr);
	}
	return g_string_free(g, FALSE);
}

/* The first frame at or after from named fn, or -1. */
static inline gint t_index_of(GPtrArray *names, const char *fn, guint from)
{
	for (guint i = from; i < names->len; i++)
		if (!strcmp(names->pdata[i], fn))
			return (gint)i;
	return -1;
}

#endif
