/* pl-symbol-check.c — the symbol pre-check of a board (see
 * pl-symbol-check.h): its last session's symbol report, found in a worker,
 * and the sentence that describes it.
 */
#include "pl-symbol-check.h"

#include "pl-target-settings.h"

static void last_session_thread(GTask *task, gpointer src, gpointer data, GCancellable *c)
{
	g_autoptr(GPtrArray) all = pl_sessions_list(NULL);
	for (guint i = 0; i < all->len; i++) {
		PlSessionInfo *in = all->pdata[i];
		if (in->modules >= 0 && !g_strcmp0(in->hostname, data)) {
			g_task_return_pointer(task, g_ptr_array_steal_index(all, i),
					      (GDestroyNotify)pl_session_info_free);
			return;
		}
	}
	g_task_return_pointer(task, NULL, NULL);
}

void pl_symbol_check_async(const char *hostname, gpointer source_object,
			   GAsyncReadyCallback callback, gpointer user_data)
{
	GTask *task = g_task_new(source_object, NULL, callback, user_data);
	g_task_set_task_data(task, g_strdup(hostname), g_free);
	g_task_run_in_thread(task, last_session_thread);
	g_object_unref(task);
}

PlSessionInfo *pl_symbol_check_finish(GAsyncResult *res)
{
	return g_task_propagate_pointer(G_TASK(res), NULL);
}

char *pl_symbol_check_describe(const PlSessionInfo *in, gboolean *warning)
{
	*warning = FALSE;
	if (!in)
		return g_strdup("Symbols: no earlier session from this board; the Symbols page "
				"shows what is found as soon as recording starts.");
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local(in->date);
	g_autofree char *when = dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M") : g_strdup("?");
	g_autofree char *advice = in->symbol_advice ? pl_target_settings_advice(in->symbol_advice) : NULL;
	if (in->symbol_problems > 0) {
		*warning = TRUE;
		return g_strdup_printf("⚠ Symbols: in the last session from this board (%s), %d of "
				       "%d modules needed attention%s%s\nSet them up with Symbol "
				       "settings… before recording.",
				       when, in->symbol_problems, in->modules,
				       advice ? " — " : "", advice ? advice : "");
	}
	return g_strdup_printf("Symbols: all %d modules of the last session from this board "
			       "(%s) were found with symbols.",
			       in->modules, when);
}
