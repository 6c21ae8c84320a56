/* pl-ui-script-timing.c — the scripted driver's commands for the actions
 * the app times with PERFLENS_TIMING=1 (listed in pl-ui-script.h) that no
 * other command reaches the way a user's input does.  Test code: part of
 * perflens-ui-script.so only.
 *
 *   pick-thread PREFIX        the timeline's "thread-selected" for the first
 *                             thread named PREFIX* with samples (what a
 *                             click on its name emits; 0 for "all")
 *   sort-functions COL asc|desc   the Functions table sorted by its column
 *                             COL (0: Function) as a click on its title does
 *                             (the table must be shown)
 */
#include "pl-ui-script.h"

#include <string.h>

static const char *argn(char **argv, guint i)
{
	for (guint k = 0; k < i; k++)
		if (!argv[k])
			return "";
	return argv[i] ? argv[i] : "";
}

/* the table's own column view: the one with more than the callers' and
 * callees' three columns */
static gboolean is_function_columns(GtkWidget *w, gconstpointer data)
{
	return GTK_IS_COLUMN_VIEW(w) &&
	       g_list_model_get_n_items(gtk_column_view_get_columns(GTK_COLUMN_VIEW(w))) > 3;
}

PlUiStep pl_ui_script_timing_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0];
	if (!strcmp(cmd, "pick-thread")) {
		PlProfile *p = pl_window_get_profile(w);
		guint32 tid = 0;
		if (p && strcmp(argn(argv, 1), "all")) {
			GPtrArray *ts = pl_profile_get_threads(p);
			for (guint i = 0; i < ts->len && !tid; i++) {
				PlThread *t = ts->pdata[i];
				if (t->name && g_str_has_prefix(t->name, argn(argv, 1)) && t->samples)
					tid = t->tid;
			}
		}
		g_signal_emit_by_name(pl_window_get_timeline(w), "thread-selected", (guint)tid);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "sort-functions")) {
		GtkWidget *v = pl_ui_script_find_widget(GTK_WIDGET(pl_window_get_function_table(w)),
							 is_function_columns, NULL);
		guint col = (guint)g_ascii_strtoull(argn(argv, 1), NULL, 10);
		g_autoptr(GtkColumnViewColumn) c =
			v ? g_list_model_get_item(gtk_column_view_get_columns(GTK_COLUMN_VIEW(v)), col)
			  : NULL;
		if (!c) {
			pl_ui_script_report(cmd, FALSE, "the Functions table has no column %u", col);
			return PL_UI_STEP_DONE;
		}
		gtk_column_view_sort_by_column(GTK_COLUMN_VIEW(v), c,
					       !strcmp(argn(argv, 2), "desc") ? GTK_SORT_DESCENDING
									 : GTK_SORT_ASCENDING);
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
