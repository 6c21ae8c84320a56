/* pl-ui-script-block.c — the scripted driver's command for the Block I/O
 * page (listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 *   block-pick NAME TID F0 F1   with the flame graph shown (the Block I/O
 *                page hidden), the window's thread set to TID (0: all) and
 *                its range to [F0, F1] (fractions of the session, rounded to
 *                the millisecond after the first record; 0 0: none), as a
 *                pick in another view sets them; then the Block I/O page is
 *                shown.  Prints "# NAME-filter: TID FROM TO T0 T1" (seconds
 *                after the first record as the report's --from/--to take
 *                them, then the window's bounds in profile nanoseconds, 0:
 *                none), "# NAME-hidden: 1" when the page was not mapped at
 *                the pick, then what the page shows once mapped, line by
 *                line: "# NAME-summary: …" and "# NAME-table: …", for the
 *                test to compare with `report --block` and `export
 *                block-csv` of the same file.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

static guint picked_at;
static gboolean hidden_at_pick;

static void print_lines(const char *name, const char *what, const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
	for (guint i = 0; lines[i]; i++)
		printf("# %s-%s: %s\n", name, what, lines[i]);
}

static PlUiStep block_pick(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *name = argv[1];
	if (!name || !argv[2] || !argv[3] || !argv[4]) {
		pl_ui_script_report(name ? name : "block-pick", FALSE, "block-pick NAME TID F0 F1");
		return PL_UI_STEP_DONE;
	}
	PlBlockView *v = pl_window_get_block_view(w);
	GtkWidget *page = GTK_WIDGET(v);
	guint32 tid = (guint32)g_ascii_strtoull(argv[2], NULL, 10);
	guint64 ms0, ms1;
	if (ticks == 0) {
		/* another page first, long enough to be the one mapped */
		pl_window_show_view(w, "flame");
		return PL_UI_STEP_WAIT;
	}
	if (!picked_at) {
		if (gtk_widget_get_mapped(page) && !timed_out)
			return PL_UI_STEP_WAIT;
		hidden_at_pick = !gtk_widget_get_mapped(page);
		pl_ui_script_pick(w, tid, argv[3], argv[4], TRUE, &ms0, &ms1);
		picked_at = ticks;
		return PL_UI_STEP_WAIT;
	}
	if (ticks == picked_at + 3)
		pl_window_show_view(w, "block");
	if ((!gtk_widget_get_mapped(page) || ticks < picked_at + 8) && !timed_out)
		return PL_UI_STEP_WAIT;
	picked_at = 0;
	pl_ui_script_pick(w, tid, argv[3], argv[4], FALSE, &ms0, &ms1);
	PlAggregate *agg = pl_window_get_aggregate(w);
	PlFilter f = agg ? agg->filter : PL_FILTER_ALL;
	printf("# %s-filter: %u %.3f %.3f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", name,
	       tid, ms0 / 1e3, ms1 / 1e3, f.t0, f.t1);
	printf("# %s-hidden: %d\n", name, hidden_at_pick);
	/* the labels as drawn: no getter that would read what is pending */
	gboolean mapped = gtk_widget_get_mapped(page);
	print_lines(name, "summary", pl_block_view_get_summary(v));
	print_lines(name, "table", pl_block_view_get_table(v));
	fflush(stdout);
	pl_ui_script_report(name, mapped && hidden_at_pick && f.tid == tid,
			    "thread %u, %.3f s to %.3f s; the page was %s at the pick, is %s now",
			    tid, ms0 / 1e3, ms1 / 1e3, hidden_at_pick ? "hidden" : "shown",
			    mapped ? "shown" : "hidden");
	return PL_UI_STEP_DONE;
}

PlUiStep pl_ui_script_block_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	if (!strcmp(argv[0], "block-pick"))
		return block_pick(w, argv, ticks, timed_out);
	return PL_UI_STEP_UNKNOWN;
}
