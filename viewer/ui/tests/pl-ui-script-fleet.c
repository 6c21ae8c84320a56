/* pl-ui-script-fleet.c — the scripted driver's Fleet page commands
 * (listed in pl-ui-script.h).  Test code: part of perflens-ui-script.so
 * only.
 *
 * "fleet-show" fills the page's form and clicks Show (the button's own
 * "clicked"), then waits for the answer; the dump commands print what
 * the page shows ("# fleet-…" lines) for the test to compare with
 * `perflens fleet report` and `fleet diff` on the same store.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

/* "-": the field emptied; "=": the field kept as it is */
static const char *opt(const char *a)
{
	if (a && !strcmp(a, "="))
		return NULL;
	return a && strcmp(a, "-") ? a : "";
}

PlUiStep pl_ui_script_fleet_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0];
	guint argc = g_strv_length(argv);
	PlFleetView *fv = pl_window_get_fleet_view(w);
	if (!strcmp(cmd, "fleet-show") || !strcmp(cmd, "expect-fleet-error")) {
		/* fleet-show URL CRED WHERE AGAINST SINCE NAME ("-": empty, "=": kept)
		 * expect-fleet-error URL CRED WHERE WORD NAME */
		gboolean want_error = !strcmp(cmd, "expect-fleet-error");
		guint need = want_error ? 6 : 7;
		const char *name = argc >= need ? argv[need - 1] : cmd;
		if (argc < need) {
			pl_ui_script_report(name, FALSE, "%s: too few arguments", cmd);
			return PL_UI_STEP_DONE;
		}
		if (ticks == 0) {
			pl_window_show_fleet(w);
			pl_fleet_view_set_form(fv, opt(argv[1]), opt(argv[2]), opt(argv[3]),
					       want_error ? "" : opt(argv[4]),
					       want_error ? "" : opt(argv[5]));
			/* the button's own signal, as a click emits it: the
			 * question starts at once (busy) */
			g_signal_emit_by_name(pl_fleet_view_get_show_button(fv), "clicked");
			if (!pl_fleet_view_is_busy(fv)) {
				pl_ui_script_report(name, FALSE, "Show started nothing");
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		if (pl_fleet_view_is_busy(fv))
			return timed_out ? (pl_ui_script_report(name, FALSE, "no answer"),
					    PL_UI_STEP_DONE)
					 : PL_UI_STEP_WAIT;
		const char *err = pl_fleet_view_get_error(fv);
		if (want_error) {
			pl_ui_script_report(name, err && strstr(err, argv[4]), "the page says: %s",
					    err ? err : "nothing (no error)");
			if (err)
				printf("# fleet error: %s\n", err);
			fflush(stdout);
			return PL_UI_STEP_DONE;
		}
		if (err) {
			pl_ui_script_report(name, FALSE, "the page says: %s", err);
			return PL_UI_STEP_DONE;
		}
		if (!pl_flame_graph_is_ready(pl_fleet_view_get_flame_graph(fv)))
			return timed_out ? (pl_ui_script_report(name, FALSE, "no flame graph"),
					    PL_UI_STEP_DONE)
					 : PL_UI_STEP_WAIT;
		printf("# fleet total %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", name,
		       pl_fleet_view_get_total(fv, FALSE), pl_fleet_view_get_total(fv, TRUE));
		g_auto(GStrv) labels = pl_fleet_view_dup_labels(fv);
		g_autofree char *all = labels ? g_strjoinv(" ", labels) : NULL;
		printf("# fleet labels %s\n", all ? all : "");
		fflush(stdout);
		pl_ui_script_report(name, pl_fleet_view_get_total(fv, FALSE) > 0, "no samples");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-dump")) {
		/* fleet-dump NAME: the Functions page's rows,
		 * "# fleet-row SELF TOTAL<TAB>FUNCTION<TAB>MODULE" */
		const char *name = argc > 1 ? argv[1] : cmd;
		PlFunctionTable *t = pl_fleet_view_get_function_table(fv);
		PlProfile *p = pl_fleet_view_get_profile(fv);
		guint n = pl_function_table_get_n_rows(t);
		for (guint i = 0; p && i < n; i++) {
			guint32 func;
			const char *label;
			PlCount self_count, total;
			if (!pl_function_table_get_row_at(t, i, &func, &label, &self_count, &total))
				break;
			const PlFunction *f = pl_profile_get_function(p, func);
			printf("# fleet-row %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\t%s\t%s\n",
			       self_count.samples, total.samples, f && f->name ? f->name : label,
			       f && f->module ? f->module : "?");
		}
		fflush(stdout);
		pl_ui_script_report(name, p && n > 0, "the Functions page has no rows");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-diff-dump")) {
		/* fleet-diff-dump NAME: the diff's rows, "# fleet-diff DELTA<TAB>LABEL" */
		const char *name = argc > 1 ? argv[1] : cmd;
		PlDiffView *dv = pl_fleet_view_get_diff_view(fv);
		guint n = pl_diff_view_get_n_rows(dv);
		for (guint i = 0; i < n; i++)
			printf("# fleet-diff %.4f\t%s\n", pl_diff_view_get_row_delta(dv, i),
			       pl_diff_view_get_row_label(dv, i));
		fflush(stdout);
		pl_ui_script_report(name, n > 0 && gtk_widget_get_mapped(GTK_WIDGET(dv)),
				    "%u diff rows, the diff %s", n,
				    gtk_widget_get_mapped(GTK_WIDGET(dv)) ? "shown" : "not shown");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-pick")) {
		/* fleet-pick KEY=VALUE NAME: a click on that label's link under the
		 * form (its "activate-link"): Labels then holds it */
		const char *name = argc > 2 ? argv[2] : cmd;
		g_autofree char *esc = g_uri_escape_string(argc > 1 ? argv[1] : "", NULL, FALSE);
		g_autofree char *uri = g_strdup_printf("label:%s", esc);
		GtkLabel *l = pl_fleet_view_get_labels_line(fv);
		gboolean handled = FALSE;
		if (gtk_widget_get_mapped(GTK_WIDGET(l)) &&
		    strstr(gtk_label_get_label(l), uri))
			g_signal_emit_by_name(l, "activate-link", uri, &handled);
		const char *where = pl_fleet_view_get_where(fv);
		gboolean holds = FALSE;
		g_auto(GStrv) parts = g_strsplit(where, ",", -1);
		for (guint i = 0; parts[i]; i++)
			holds |= !strcmp(parts[i], argv[1] ? argv[1] : "");
		printf("# fleet where %s\n", where);
		fflush(stdout);
		pl_ui_script_report(name, handled && holds,
				    "the label's link %s; Labels says '%s'",
				    handled ? "was followed" : "is not shown", where);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-rank")) {
		/* fleet-rank ROW NAME: the Functions page's row whose function is
		 * ROW activated (as a double click), the boards ranked by it:
		 * "# fleet-rank-row SAMPLES TOTAL SELF SESSIONS VALUE" */
		const char *name = argc > 2 ? argv[2] : cmd;
		PlFleetRankView *rv = pl_fleet_view_get_rank_view(fv);
		if (ticks == 0) {
			PlFunctionTable *t = pl_fleet_view_get_function_table(fv);
			PlProfile *p = pl_fleet_view_get_profile(fv);
			guint n = pl_function_table_get_n_rows(t);
			for (guint i = 0; p && i < n; i++) {
				guint32 func;
				const char *label;
				PlCount sc, tc;
				if (!pl_function_table_get_row_at(t, i, &func, &label, &sc, &tc))
					break;
				if (strcmp(pl_profile_get_function_label(p, func), argc > 1 ? argv[1] : ""))
					continue;
				pl_function_table_select(t, func);
				g_signal_emit_by_name(t, "function-activated", (guint)func);
				break;
			}
			if (!pl_fleet_rank_view_is_busy(rv)) {
				pl_ui_script_report(name, FALSE, "activating %s ranked nothing (%s)",
						    argc > 1 ? argv[1] : "?",
						    pl_fleet_rank_view_get_error(rv)
							    ? pl_fleet_rank_view_get_error(rv)
							    : "no such row");
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		if (pl_fleet_rank_view_is_busy(rv))
			return timed_out ? (pl_ui_script_report(name, FALSE, "no answer"),
					    PL_UI_STEP_DONE)
					 : PL_UI_STEP_WAIT;
		const char *err = pl_fleet_rank_view_get_error(rv);
		guint n = pl_fleet_rank_view_get_n_boards(rv);
		for (guint i = 0; i < n; i++) {
			const PlFleetShare *b = pl_fleet_rank_view_get_board(rv, i);
			printf("# fleet-rank-row %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
			       " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %s\n",
			       b->samples, b->total, b->self, b->sessions, b->value);
		}
		/* and what the rows show, for the test to read as a user does */
		for (guint i = 0;; i++) {
			g_autofree char *text = pl_fleet_rank_view_dup_board_text(rv, i);
			if (!text)
				break;
			printf("# fleet-rank-shown %s\n", text);
		}
		fflush(stdout);
		pl_ui_script_report(name, !err && n > 0, "%s", err ? err : "no boards listed");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-open")) {
		/* fleet-open VALUE NAME: board VALUE's row activated, its sessions
		 * listed, the first one's Open clicked; the window it opens in
		 * shows it: "# fleet-opened SESSION SAMPLES" (then it is closed) */
		const char *name = argc > 2 ? argv[2] : cmd;
		const char *value = argc > 1 ? argv[1] : "";
		PlFleetRankView *rv = pl_fleet_view_get_rank_view(fv);
		static guint phase;
		if (ticks == 0) {
			phase = 0;
			guint n = pl_fleet_rank_view_get_n_boards(rv), i = 0;
			for (; i < n && strcmp(pl_fleet_rank_view_get_board(rv, i)->value, value); i++)
				;
			if (i == n || !pl_fleet_rank_view_list_sessions(rv, i)) {
				pl_ui_script_report(name, FALSE, "no board %s listed to activate", value);
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		if (pl_fleet_rank_view_is_busy(rv))
			return timed_out ? (pl_ui_script_report(name, FALSE, "no answer"),
					    PL_UI_STEP_DONE)
					 : PL_UI_STEP_WAIT;
		const char *err = pl_fleet_rank_view_get_error(rv);
		if (err) {
			pl_ui_script_report(name, FALSE, "the page says: %s", err);
			return PL_UI_STEP_DONE;
		}
		if (phase == 0) {
			guint n = pl_fleet_rank_view_get_n_sessions(rv);
			for (guint i = 0; i < n; i++)
				printf("# fleet-session %s %" G_GUINT64_FORMAT "\n",
				       pl_fleet_rank_view_get_session(rv, i)->session,
				       pl_fleet_rank_view_get_session(rv, i)->samples);
			fflush(stdout);
			if (!n || !pl_fleet_rank_view_open_session(rv, 0)) {
				pl_ui_script_report(name, FALSE, "%s lists no session to open", value);
				return PL_UI_STEP_DONE;
			}
			phase = 1;
			return PL_UI_STEP_WAIT;
		}
		GtkWindow *opened = pl_fleet_rank_view_get_opened(rv);
		PlProfile *p = opened && PL_IS_WINDOW(opened) ? pl_window_get_profile(PL_WINDOW(opened))
							       : NULL;
		PlAggregate *agg = p ? pl_window_get_aggregate(PL_WINDOW(opened)) : NULL;
		if (!p || !agg || agg->profile != p)
			return timed_out ? (pl_ui_script_report(name, FALSE, "no window shows it"),
					    PL_UI_STEP_DONE)
					 : PL_UI_STEP_WAIT;
		guint64 all = agg->all.samples;
		printf("# fleet-opened %s %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
		       pl_fleet_rank_view_get_session(rv, 0)->session, pl_profile_get_stats(p)->samples,
		       all);
		/* its functions as the window counts them (the views' aggregate) */
		for (guint f = 0; f < agg->n_functions; f++) {
			const PlFunction *fn = pl_profile_get_function(p, f);
			if (!agg->func_self[f].samples || !fn)
				continue;
			printf("# fleet-opened-fn %" G_GUINT64_FORMAT "\t%s\t%s\n",
			       agg->func_self[f].samples, fn->name ? fn->name : "?",
			       fn->module ? fn->module : "?");
		}
		fflush(stdout);
		gtk_window_destroy(opened);
		pl_ui_script_report(name, all > 0, "the opened session's window shows no samples");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-sessions-of")) {
		/* fleet-sessions-of BOARD NAME: BOARD (LABEL=VALUE) typed into
		 * Sessions of, List sessions clicked: "# fleet-sessions-of SESSION
		 * SAMPLES FIRST LAST" per session listed */
		const char *name = argc > 2 ? argv[2] : cmd;
		PlFleetRankView *rv = pl_fleet_view_get_rank_view(fv);
		if (ticks == 0) {
			pl_window_show_fleet(w);
			pl_fleet_view_show_page(fv, "boards");
			pl_fleet_rank_view_set_sessions_of(rv, argc > 1 ? argv[1] : "");
			g_signal_emit_by_name(pl_fleet_rank_view_get_sessions_button(rv), "clicked");
			if (!pl_fleet_rank_view_is_busy(rv)) {
				const char *err = pl_fleet_rank_view_get_error(rv);
				pl_ui_script_report(name, FALSE, "List sessions started nothing (%s)",
						    err ? err : "no error shown");
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		if (pl_fleet_rank_view_is_busy(rv))
			return timed_out ? (pl_ui_script_report(name, FALSE, "no answer"),
					    PL_UI_STEP_DONE)
					 : PL_UI_STEP_WAIT;
		const char *err = pl_fleet_rank_view_get_error(rv);
		guint n = pl_fleet_rank_view_get_n_sessions(rv);
		for (guint i = 0; i < n; i++) {
			const PlFleetSession *s = pl_fleet_rank_view_get_session(rv, i);
			printf("# fleet-sessions-of %s %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT
			       " %" G_GINT64_FORMAT "\n",
			       s->session, s->samples, s->first, s->last);
			g_autofree char *text = pl_fleet_rank_view_dup_session_text(rv, i);
			printf("# fleet-sessions-shown %s\n", text ? text : "(no row)");
		}
		fflush(stdout);
		pl_ui_script_report(name, !err && n > 0, "%s", err ? err : "no session listed");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "fleet-page")) {
		/* fleet-page flame|functions|boards|diff */
		pl_window_show_fleet(w);
		pl_fleet_view_show_page(fv, argc > 1 ? argv[1] : "flame");
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
