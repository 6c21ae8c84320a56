/* viewer-source-dwarf-test.c — function → source from the DWARF (issue 17,
 * "Source from DWARF"), on real programs recorded by the real agent:
 *
 *   statics    two static functions named helper, in a.c and b.c of one
 *              program (viewer/tests/source-dwarf/), both sampled: two
 *              functions in the model, each defined where nm -l says;
 *   overloads  work(double) and work(long), one short name, two mangled
 *              names: two functions, each at its own definition; and
 *              calc::Acc::spin(long), defined indented inside its class:
 *              its line is the indented one nm -l names.
 *
 * The oracle is binutils' nm -l (the file:line of each symbol's address,
 * read from the DWARF by another reader): the test compares with it and
 * hardcodes no line.  The programs are compiled here (cc, c++ -g). */
#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-capture.h"
#include "pl-profile.h"
#include "pl-test-perf.h"

static char *src_dir(void)
{
	const char *top = getenv("PL_TOP");
	return g_build_filename(top && *top ? top : ".", "viewer", "tests", "source-dwarf", NULL);
}

static gboolean run(char **argv, char **out, char **why)
{
	g_autofree char *err = NULL;
	gint status = -1;
	GError *e = NULL;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, &err, &status,
			  &e) ||
	    !g_spawn_check_wait_status(status, NULL)) {
		*why = g_strdup_printf("%s: %.300s", argv[0], e ? e->message : err ? err : "?");
		g_clear_error(&e);
		return FALSE;
	}
	return TRUE;
}

/* Builds prog from the sources with compiler (-g, frame pointers). */
static char *build(const char *compiler, const char *prog, const char *const *srcs)
{
	g_autofree char *dir = src_dir();
	char *exe = vt_tmp(prog);
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_strdup(compiler));
	g_ptr_array_add(argv, g_strdup("-O1"));
	g_ptr_array_add(argv, g_strdup("-g"));
	g_ptr_array_add(argv, g_strdup("-fno-omit-frame-pointer"));
	g_ptr_array_add(argv, g_strdup("-o"));
	g_ptr_array_add(argv, g_strdup(exe));
	for (; *srcs; srcs++)
		g_ptr_array_add(argv, g_build_filename(dir, *srcs, NULL));
	g_ptr_array_add(argv, NULL);
	g_autofree char *why = NULL;
	PL_CHECKF(run((char **)argv->pdata, NULL, &why), "cannot build %s (%s is installed by "
		  "ci/deps.sh): %s", prog, compiler, why);
	return exe;
}

/* prog recorded by the real agent for 1.5 s, read into a model. */
static PlProfile *record(const char *exe)
{
	g_autofree char *agent = vt_agent();
	PL_CHECKF(g_file_test(agent, G_FILE_TEST_IS_EXECUTABLE), "%s not built (make)", agent);
	pl_need_kernel_perf();
	g_autofree char *base = g_path_get_basename(exe);
	g_autofree char *name = g_strconcat(base, ".plens", NULL);
	g_autofree char *cap = vt_tmp(name);
	char *argv[] = { agent, (char *)"--output", cap, (char *)"--frequency", (char *)"999",
			 (char *)"--", (char *)exe, (char *)"1.5", NULL };
	g_autofree char *why = NULL;
	/* the kernel allows perf (above): the agent failing is the failure */
	PL_CHECKF(run(argv, NULL, &why), "the agent could not record %s: %s", exe, why);
	return vt_profile_load(cap);
}

typedef struct {
	char *name; /* demangled */
	char *file;
	guint line;
	guint64 addr;
} NmSym;

static void nm_sym_clear(gpointer p)
{
	NmSym *s = p;
	g_free(s->name);
	g_free(s->file);
}

/* nm -l -C: "ADDR T NAME\tFILE:LINE" for the code symbols with a line. */
static GArray *nm_lines(const char *exe)
{
	char *argv[] = { (char *)"nm", (char *)"-l", (char *)"-C", (char *)exe, NULL };
	g_autofree char *out = NULL, *why = NULL;
	PL_CHECKF(run(argv, &out, &why), "nm (binutils) failed: %s", why);
	GArray *a = g_array_new(FALSE, TRUE, sizeof(NmSym));
	g_array_set_clear_func(a, nm_sym_clear);
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		char *tab = strchr(lines[i], '\t'), *colon = tab ? strrchr(tab, ':') : NULL;
		if (!tab || !colon || strlen(lines[i]) < 20 || !strchr("tTwW", lines[i][17]))
			continue;
		NmSym s = { g_strndup(lines[i] + 19, (gsize)(tab - lines[i] - 19)),
			    g_strndup(tab + 1, (gsize)(colon - tab - 1)),
			    (guint)g_ascii_strtoull(colon + 1, NULL, 10),
			    g_ascii_strtoull(lines[i], NULL, 16) };
		g_array_append_val(a, s);
	}
	return a;
}

/* The functions of the model named name in module, with their aggregate
 * weight: GArray of guint32 ids with samples. */
static GArray *functions_named(PlProfile *p, PlAggregate *agg, const char *module,
			       const char *name)
{
	GArray *ids = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint32 id = 0; id < agg->n_functions; id++) {
		const PlFunction *f = pl_profile_get_function(p, id);
		if (!f->inlined && !g_strcmp0(f->name, name) && !g_strcmp0(f->module, module) &&
		    agg->func_total[id].samples)
			g_array_append_val(ids, id);
	}
	return ids;
}

/* The nm symbol named name whose file:line is f's definition, NULL when none. */
static const NmSym *nm_match(GArray *nm, const char *name, const PlFunction *f)
{
	for (guint i = 0; i < nm->len; i++) {
		const NmSym *s = &g_array_index(nm, NmSym, i);
		if (!strcmp(s->name, name) && f->file && !strcmp(s->file, f->file) &&
		    s->line == f->line)
			return s;
	}
	return NULL;
}

/* Checks that name in module is exactly `want` functions in the model,
 * each sampled, each defined where one nm symbol of that name is (a
 * different one each), and that each one's sampled addresses lie in
 * that symbol's code and nowhere else. */
static void check_functions(PlProfile *p, PlAggregate *agg, GArray *nm, const char *module,
			    const char *name, guint want)
{
	g_autoptr(GArray) ids = functions_named(p, agg, module, name);
	guint n_nm = 0;
	for (guint i = 0; i < nm->len; i++)
		n_nm += !strcmp(g_array_index(nm, NmSym, i).name, name);
	PL_CHECKF(n_nm == want, "nm -l lists %u symbols %s, the test expects %u", n_nm, name, want);
	PL_CHECKF(ids->len == want, "%u functions %s with samples in %s, want %u (one per "
		  "definition)", ids->len, name, module, want);
	const NmSym *seen[8] = { 0 };
	for (guint i = 0; i < ids->len && i < G_N_ELEMENTS(seen); i++) {
		guint32 id = g_array_index(ids, guint32, i);
		const PlFunction *f = pl_profile_get_function(p, id);
		const NmSym *s = nm_match(nm, name, f);
		PL_CHECKF(s, "%s (id %u) is defined at %s:%u, which no nm -l symbol %s names", name,
			  id, f->file ? f->file : "(no file)", f->line, name);
		for (guint k = 0; k < i; k++)
			PL_CHECKF(seen[k] != s, "two functions %s at the one definition %s:%u", name,
				  s->file, s->line);
		seen[i] = s;
		/* the next symbol up bounds s's code */
		guint64 end = G_MAXUINT64;
		for (guint k = 0; k < nm->len; k++) {
			guint64 a = g_array_index(nm, NmSym, k).addr;
			if (a > s->addr && a < end)
				end = a;
		}
		g_autoptr(GArray) rows = pl_aggregate_addresses(agg, id);
		PL_CHECKF(rows->len > 0, "no sampled address of %s at %s:%u", name, s->file, s->line);
		for (guint k = 0; k < rows->len; k++) {
			const PlAddrRow *r = &g_array_index(rows, PlAddrRow, k);
			PL_CHECKF(r->lookup_addr >= s->addr && r->lookup_addr < end,
				  "%s of %s:%u has a sampled address 0x%" G_GINT64_MODIFIER "x outside "
				  "its code [0x%" G_GINT64_MODIFIER "x, 0x%" G_GINT64_MODIFIER "x)",
				  name, s->file, s->line, r->lookup_addr, s->addr, end);
		}
		printf("# %s: %s:%u (nm -l: 0x%" G_GINT64_MODIFIER "x %s:%u), %" G_GUINT64_FORMAT
		       " samples (total)\n",
		       name, f->file, f->line, s->addr, s->file, s->line, agg->func_total[id].samples);
	}
}

static void statics_in_two_files(void)
{
	static const char *const srcs[] = { "a.c", "b.c", "main.c", NULL };
	g_autofree char *exe = build("cc", "statics", srcs);
	g_autoptr(GArray) nm = nm_lines(exe);
	g_autoptr(PlProfile) p = record(exe);
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &PL_FILTER_ALL);
	check_functions(p, agg, nm, "statics", "helper", 2);
	/* and the ones defined once stay one each */
	check_functions(p, agg, nm, "statics", "main", 1);
}

static void cxx_overloads_and_indented(void)
{
	static const char *const srcs[] = { "overloads.cc", NULL };
	g_autofree char *exe = build("c++", "overloads", srcs);
	g_autoptr(GArray) nm = nm_lines(exe);
	g_autoptr(PlProfile) p = record(exe);
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &PL_FILTER_ALL);
	check_functions(p, agg, nm, "overloads", "work(double)", 1);
	check_functions(p, agg, nm, "overloads", "work(long)", 1);
	check_functions(p, agg, nm, "overloads", "calc::Acc::spin(long)", 1);
	/* the two overloads are two functions, and spin's definition line
	 * is an indented one (the case a search for "name(" at the start of
	 * a line missed) */
	g_autoptr(GArray) d = functions_named(p, agg, "overloads", "work(double)");
	g_autoptr(GArray) l = functions_named(p, agg, "overloads", "work(long)");
	PL_CHECK(g_array_index(d, guint32, 0) != g_array_index(l, guint32, 0));
	g_autoptr(GArray) sp = functions_named(p, agg, "overloads", "calc::Acc::spin(long)");
	const PlFunction *f = pl_profile_get_function(p, g_array_index(sp, guint32, 0));
	g_autofree char *text = NULL;
	PL_CHECKF(g_file_get_contents(f->file, &text, NULL, NULL), "cannot read %s", f->file);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	PL_CHECK(f->line > 0 && f->line <= g_strv_length(lines));
	const char *def = lines[f->line - 1];
	PL_CHECKF((def[0] == ' ' || def[0] == '\t') && strstr(def, "spin("),
		  "line %u of %s is not spin's indented definition: '%s'", f->line, f->file, def);
}

PL_TEST_MAIN(PL_CASE(statics_in_two_files), PL_CASE(cxx_overloads_and_indented))
