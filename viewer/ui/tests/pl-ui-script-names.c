/* pl-ui-script-names.c — the scripted driver's checks of how the views
 * name functions that share a name (listed in pl-ui-script.h).  Test
 * code: part of perflens-ui-script.so only.
 *
 * Labels have spaces ("helper (a.c)"): a command's label is the rest of
 * its line.  Each check prints "# …" lines of what it saw, for the test
 * to compare with the command line's report.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

static const char *argn(char **argv, guint i)
{
	for (guint k = 0; k < i; k++)
		if (!argv[k])
			return "";
	return argv[i] ? argv[i] : "";
}

/* argv[from] … joined by spaces ("" when there is none). */
static char *rest(char **argv, guint from)
{
	for (guint k = 0; k < from; k++)
		if (!argv[k])
			return g_strdup("");
	return g_strjoinv(" ", argv + from);
}

/* The rows of the Functions table that show label: how many, and the
 * self samples of the last one. */
static guint table_rows(PlWindow *w, const char *label, guint64 *samples)
{
	PlFunctionTable *t = pl_window_get_function_table(w);
	guint n = 0;
	*samples = 0;
	for (guint i = 0; i < pl_function_table_get_n_rows(t); i++) {
		guint32 func;
		const char *name;
		PlCount sc, tc;
		if (pl_function_table_get_row_at(t, i, &func, &name, &sc, &tc) &&
		    !g_strcmp0(name, label)) {
			n++;
			*samples = sc.samples;
		}
	}
	return n;
}

PlUiStep pl_ui_script_names_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argn(argv, 0);
	PlFlameGraph *fg = pl_window_get_flame_graph(w);

	if (!strcmp(cmd, "expect-rows-distinct")) {
		/* expect-rows-distinct NAME: no two rows read the same */
		PlFunctionTable *t = pl_window_get_function_table(w);
		g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
		GString *twice = g_string_new(NULL);
		guint n = pl_function_table_get_n_rows(t);
		for (guint i = 0; i < n; i++) {
			guint32 func;
			const char *name;
			PlCount sc, tc;
			if (!pl_function_table_get_row_at(t, i, &func, &name, &sc, &tc))
				continue;
			if (!g_hash_table_add(seen, (gpointer)name))
				g_string_append_printf(twice, "%s'%s'", twice->len ? ", " : "", name);
		}
		pl_ui_script_report(argn(argv, 1), n > 0 && twice->len == 0,
				    "%u rows; shown twice: %s", n, twice->str);
		g_string_free(twice, TRUE);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-row")) {
		/* expect-row NAME SAMPLES|absent LABEL…: one row shows LABEL,
		 * with SAMPLES self samples; or none */
		g_autofree char *label = rest(argv, 3);
		guint64 samples;
		guint n = table_rows(w, label, &samples);
		gboolean absent = !strcmp(argn(argv, 2), "absent");
		guint64 want = g_ascii_strtoull(argn(argv, 2), NULL, 10);
		printf("# row '%s': %u rows, %" G_GUINT64_FORMAT " self samples\n", label, n,
		       samples);
		fflush(stdout);
		pl_ui_script_report(argn(argv, 1), absent ? n == 0 : n == 1 && samples == want,
				    "%u rows show '%s' (self %" G_GUINT64_FORMAT " samples), wanted %s",
				    n, label, samples, argn(argv, 2));
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-flame-label")) {
		/* expect-flame-label NAME present|absent LABEL…: a frame so
		 * labelled in the flame graph, or none */
		if (!pl_flame_graph_is_ready(fg) && !timed_out)
			return PL_UI_STEP_WAIT;
		g_autofree char *label = rest(argv, 3);
		guint32 node = pl_flame_graph_find_label(fg, label);
		gboolean want = !strcmp(argn(argv, 2), "present");
		pl_ui_script_report(argn(argv, 1), (node != G_MAXUINT32) == want,
				    "a frame '%s' is %s the flame graph", label,
				    node != G_MAXUINT32 ? "in" : "not in");
		return PL_UI_STEP_DONE;
	}
	(void)ticks;
	return PL_UI_STEP_UNKNOWN;
}
