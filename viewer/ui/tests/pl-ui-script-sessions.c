/* pl-ui-script-sessions.c — the scripted driver's commands for the
 * sessions list (listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pl-flame-graph.h"
#include "pl-sessions-view.h"

static const char *arg(char **argv, guint i)
{
	return i < g_strv_length(argv) ? argv[i] : "";
}

PlUiStep pl_ui_script_sessions_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = arg(argv, 0);
	gboolean first = ticks == 0;
	PlFlameGraph *fg = pl_window_get_flame_graph(w);
	if (!strcmp(cmd, "sessions")) {
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		if (first) {
			pl_window_show_sessions(w);
			return PL_UI_STEP_WAIT;
		}
		return pl_sessions_view_is_busy(sv) ? PL_UI_STEP_WAIT : PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-sessions")) {
		/* ≥ N rows, each with its target, process, date, duration, samples */
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		if (pl_sessions_view_is_busy(sv))
			return PL_UI_STEP_WAIT;
		guint want = (guint)g_ascii_strtoull(arg(argv, 1), NULL, 10), n = 0, full = 0;
		n = pl_sessions_view_get_n_sessions(sv);
		const PlSessionInfo *bad = NULL;
		for (guint i = 0; i < n; i++) {
			const PlSessionInfo *in = pl_sessions_view_get_info(sv, i);
			if (in->hostname && in->process && in->date && in->have_totals &&
			    in->samples > 0 && in->duration_s > 0)
				full++;
			else if (!bad)
				bad = in;
		}
		pl_ui_script_report(arg(argv, 2), full >= want,
		       "%u of %u sessions have target, process, date, duration and samples, wanted "
		       "%u (e.g. %s: host %s, process %s, samples %" G_GUINT64_FORMAT ")",
		       full, n, want, bad ? bad->name : "-", bad && bad->hostname ? bad->hostname : "?",
		       bad && bad->process ? bad->process : "?", bad ? bad->samples : 0);
		printf("# sessions: %u listed in %.1f ms (heads and sidecars)\n", n,
		       pl_sessions_view_get_list_time(sv) / 1000.0);
		fflush(stdout);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "session-select")) {
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		guint i = pl_sessions_view_find(sv, arg(argv, 1));
		if (i != G_MAXUINT)
			pl_sessions_view_select(sv, i);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "session-open")) {
		/* as a double click on the row: replay into the views */
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		if (first) {
			guint i = pl_sessions_view_find(sv, arg(argv, 1));
			if (i == G_MAXUINT) {
				pl_ui_script_report(arg(argv, 2), FALSE, "no session named *%s*", arg(argv, 1));
				return PL_UI_STEP_DONE;
			}
			pl_sessions_view_select(sv, i);
			g_signal_emit_by_name(sv, "open-session", pl_sessions_view_get_info(sv, i)->path);
			return PL_UI_STEP_WAIT;
		}
		if (pl_window_is_loading(w) || !pl_flame_graph_is_ready(fg))
			return PL_UI_STEP_WAIT;
		const char *e = pl_window_get_load_error(w);
		PlProfile *p = pl_window_get_profile(w);
		pl_ui_script_report(arg(argv, 2), !e && p && pl_profile_get_stats(p)->samples > 0, "%s",
		       e ? e : "no samples in the opened session");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "session-rename")) {
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		guint i = pl_sessions_view_find(sv, arg(argv, 1));
		g_autoptr(GError) error = NULL;
		gboolean ok = i != G_MAXUINT && pl_sessions_view_rename(sv, i, arg(argv, 2), &error);
		const PlSessionInfo *in = ok ? pl_sessions_view_get_info(sv, i) : NULL;
		ok = ok && g_file_test(in->path, G_FILE_TEST_IS_REGULAR) &&
		     g_str_has_suffix(in->path, ".plens") && strstr(in->path, arg(argv, 2));
		pl_ui_script_report(arg(argv, 3), ok, "%s", error ? error->message : "no such session, or not renamed on disk");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "session-export")) {
		/* session-export TEXT FORMAT FILE NAME */
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		if (first) {
			guint i = pl_sessions_view_find(sv, arg(argv, 1));
			if (i == G_MAXUINT) {
				pl_ui_script_report(arg(argv, 4), FALSE, "no session named *%s*", arg(argv, 1));
				return PL_UI_STEP_DONE;
			}
			pl_sessions_view_export(sv, i, arg(argv, 2), arg(argv, 3));
			return PL_UI_STEP_WAIT;
		}
		if (pl_sessions_view_is_busy(sv))
			return PL_UI_STEP_WAIT;
		const char *e = pl_sessions_view_get_export_error(sv);
		GStatBuf st;
		gboolean ok = !e && g_stat(arg(argv, 3), &st) == 0 && st.st_size > 0;
		pl_ui_script_report(arg(argv, 4), ok, "%s", e ? e : "no output file");
		if (ok) {
			printf("# exported %s: %" G_GINT64_FORMAT " bytes\n", arg(argv, 2), (gint64)st.st_size);
			fflush(stdout);
		}
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-session-kept")) {
		/* expect-session-kept TEXT NAME: deleting the session being
		 * recorded is refused and the file stays */
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		guint i = pl_sessions_view_find(sv, arg(argv, 1));
		g_autofree char *path = i != G_MAXUINT ? g_strdup(pl_sessions_view_get_info(sv, i)->path) : NULL;
		g_autoptr(GError) error = NULL;
		gboolean deleted = path && pl_sessions_view_delete(sv, i, &error);
		pl_ui_script_report(arg(argv, 2), path && !deleted && g_file_test(path, G_FILE_TEST_EXISTS),
		       "%s", !path ? "no such session" : "the recording session was deleted");
		if (error) {
			printf("# delete refused: %s\n", error->message);
			fflush(stdout);
		}
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "session-delete")) {
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		guint i = pl_sessions_view_find(sv, arg(argv, 1)), n = pl_sessions_view_get_n_sessions(sv);
		g_autofree char *path = i != G_MAXUINT ? g_strdup(pl_sessions_view_get_info(sv, i)->path) : NULL;
		g_autoptr(GError) error = NULL;
		gboolean ok = path && pl_sessions_view_delete(sv, i, &error) &&
			      !g_file_test(path, G_FILE_TEST_EXISTS) &&
			      pl_sessions_view_get_n_sessions(sv) == n - 1;
		pl_ui_script_report(arg(argv, 2), ok, "%s", error ? error->message : "no such session, or still on disk");
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
