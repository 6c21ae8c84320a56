/* pl-ui-script-flight.c — the scripted driver's "Save now" commands
 * (listed in pl-ui-script.h).  Test code: part of perflens-ui-script.so
 * only.
 *
 * They act as the user does: the header's Save now… (win.flight-save)
 * opens the dialog, the form is filled and its Save now button clicked
 * (the button's own "clicked" emitted); the second save goes through the action
 * the Ctrl+Shift+S accelerator is bound to.  Each waits until the saved
 * snapshot is open in the window and prints "# flight saved PATH" for the
 * test to check the file with outside tools.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

#include "pl-ui-util.h"

static char *last_saved; /* the path the last save step saw */
static PlFlightDialog *dialog; /* the window's, once a step opened it */

/* The dialog as the header's Save now… first opens it, or the one already
 * made, shown, its form then filled by the step (the header's button would
 * save from the last recorder at once). */
static PlFlightDialog *open_dialog(PlWindow *w)
{
	dialog = pl_window_get_flight_dialog(w);
	if (dialog)
		gtk_window_present(GTK_WINDOW(dialog));
	else
		dialog = pl_window_flight_save(w);
	return dialog;
}

static gboolean is_ctrl_shift_s(char **accels)
{
	for (guint i = 0; accels && accels[i]; i++) {
		guint key = 0;
		GdkModifierType mods = 0;
		if (gtk_accelerator_parse(accels[i], &key, &mods) && gdk_keyval_to_lower(key) == GDK_KEY_s &&
		    mods == (GDK_CONTROL_MASK | GDK_SHIFT_MASK))
			return TRUE;
	}
	return FALSE;
}

/* Until the dialog is done and its snapshot open and laid out. */
static PlUiStep wait_saved(PlWindow *w, PlFlightDialog *d, const char *name, gboolean timed_out)
{
	if (pl_flight_dialog_is_busy(d)) {
		if (timed_out)
			pl_ui_script_report(name, FALSE, "still saving");
		return timed_out ? PL_UI_STEP_DONE : PL_UI_STEP_WAIT;
	}
	const char *err = pl_flight_dialog_get_error(d);
	if (err) {
		pl_ui_script_report(name, FALSE, "the dialog says: %s", err);
		return PL_UI_STEP_DONE;
	}
	const char *path = pl_flight_dialog_get_saved_path(d);
	const char *open = pl_profile_session_get_path(pl_window_get_session(w));
	gboolean fresh = path && g_strcmp0(path, last_saved);
	if (!fresh || pl_window_is_loading(w) || g_strcmp0(open, path) ||
	    !pl_flame_graph_is_ready(pl_window_get_flame_graph(w))) {
		if (timed_out)
			pl_ui_script_report(name, FALSE, "no new snapshot opened (saved %s, open %s%s)",
					    path ? path : "nothing", open ? open : "nothing",
					    pl_window_get_load_error(w) ? pl_window_get_load_error(w)
									: "");
		return timed_out ? PL_UI_STEP_DONE : PL_UI_STEP_WAIT;
	}
	g_free(last_saved);
	last_saved = g_strdup(path);
	printf("# flight saved %s\n", path);
	fflush(stdout);
	pl_ui_script_report(name, TRUE, NULL);
	return PL_UI_STEP_DONE;
}

PlUiStep pl_ui_script_flight_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0];
	guint argc = g_strv_length(argv);
	if (!strcmp(cmd, "flight-save") || !strcmp(cmd, "expect-flight-error")) {
		/* flight-save HOST:PORT TOKEN DIR NAME
		 * expect-flight-error HOST:PORT TOKEN WORD NAME */
		gboolean want_error = !strcmp(cmd, "expect-flight-error");
		const char *name = argc > 4 ? argv[4] : cmd;
		if (argc < 5) {
			pl_ui_script_report(name, FALSE, "%s needs HOST:PORT TOKEN %s NAME", cmd,
					    want_error ? "WORD" : "DIR");
			return PL_UI_STEP_DONE;
		}
		PlFlightDialog *d = ticks == 0 ? open_dialog(w) : dialog;
		if (ticks == 0) {
			pl_flight_dialog_set_target(d, argv[1], strcmp(argv[2], "-") ? argv[2] : "");
			if (!want_error)
				pl_flight_dialog_set_folder(d, argv[3]);
			/* the button's own signal, as a click emits it */
			g_signal_emit_by_name(pl_flight_dialog_get_save_button(d), "clicked");
			return PL_UI_STEP_WAIT;
		}
		if (!want_error)
			return wait_saved(w, d, name, timed_out);
		if (pl_flight_dialog_is_busy(d) && !timed_out)
			return PL_UI_STEP_WAIT;
		const char *err = pl_flight_dialog_get_error(d);
		pl_ui_script_report(name, err && strstr(err, argv[3]), "the dialog says: %s",
				    err ? err : "nothing (no error)");
		if (err)
			printf("# flight error: %s\n", err);
		fflush(stdout);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "flight-shortcut")) {
		/* flight-shortcut NAME: Ctrl+Shift+S is bound to win.flight-save,
		 * which saves from the last recorder again at once */
		const char *name = argc > 1 ? argv[1] : cmd;
		if (ticks == 0) {
			GtkApplication *app = gtk_window_get_application(GTK_WINDOW(w));
			g_auto(GStrv) accels =
				gtk_application_get_accels_for_action(app, "win.flight-save");
			if (!is_ctrl_shift_s(accels)) {
				g_autofree char *all = accels ? g_strjoinv(" ", accels) : NULL;
				pl_ui_script_report(name, FALSE,
						    "win.flight-save's accelerators are '%s', not "
						    "Ctrl+Shift+S",
						    all ? all : "");
				return PL_UI_STEP_DONE;
			}
			gtk_widget_activate_action(GTK_WIDGET(w), "win.flight-save", NULL);
			return PL_UI_STEP_WAIT;
		}
		if (!dialog) {
			pl_ui_script_report(name, FALSE, "no Save now dialog was opened before");
			return PL_UI_STEP_DONE;
		}
		return wait_saved(w, dialog, name, timed_out);
	}
	if (!strcmp(cmd, "flight-dialog-shot")) {
		/* flight-dialog-shot FILE: PNG of the dialog as it is */
		if (ticks < 4)
			return PL_UI_STEP_WAIT;
		g_autoptr(GError) error = NULL;
		g_autofree char *base = g_path_get_basename(argc > 1 ? argv[1] : "");
		g_autofree char *tn = g_strdup_printf("screenshot_%s", base);
		gboolean ok = dialog && pl_ui_save_png(GTK_WIDGET(dialog), argv[1], &error);
		pl_ui_script_report(tn, ok, "%s",
				    error ? error->message : "no Save now dialog was opened before");
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
