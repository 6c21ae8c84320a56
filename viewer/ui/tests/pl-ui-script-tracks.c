/* pl-ui-script-tracks.c — the scripted driver's command for the counter
 * tracks under the timeline (listed in pl-ui-script.h).  Test code: part
 * of perflens-ui-script.so only.
 *
 *   tracks N NAME   the view is shown with at least N rows; each row's
 *                   text (its label and tooltip: name, latest value,
 *                   min/mean/max, source) goes to stdout as "# track-row"
 *                   lines, tooltip lines joined with " | ", for the test
 *                   script to compare with `perflens report --counters`.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

PlUiStep pl_ui_script_tracks_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	if (strcmp(argv[0], "tracks") != 0)
		return PL_UI_STEP_UNKNOWN;
	guint want = argv[1] ? (guint)g_ascii_strtoull(argv[1], NULL, 10) : 1;
	const char *name = argv[1] && argv[2] ? argv[2] : "tracks";
	PlCounterTracksView *v = pl_window_get_counter_tracks(w);
	guint n = pl_counter_tracks_view_get_n_rows(v);
	gboolean shown = gtk_widget_get_visible(GTK_WIDGET(v)) && gtk_widget_get_height(GTK_WIDGET(v)) > 0;
	gboolean ready = shown && n >= want;
	if (!ready && !timed_out)
		return PL_UI_STEP_WAIT;
	for (guint i = 0; i < n; i++) {
		g_autofree char *text = pl_counter_tracks_view_dup_row_text(v, i, 0);
		g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
		g_autofree char *joined = g_strjoinv(" | ", lines);
		printf("# track-row: %s\n", joined);
	}
	fflush(stdout);
	pl_ui_script_report(name, ready, "the tracks are %s with %u rows, wanted %u",
			    shown ? "shown" : "hidden", n, want);
	return PL_UI_STEP_DONE;
}
