/* pl-ui-script-locks.c — the scripted driver's command for the Locks page
 * (issue 30; listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 *   locks NAME [ADDRESS]   the Locks page is shown (not hidden) and lists
 *                at least one lock (the lock of ADDRESS, 0x…, when given,
 *                which is then picked as a click on its row does); what
 *                it shows goes to stdout as "# locks-summary" and
 *                "# locks-details" lines, for the test script to compare
 *                with `perflens report --locks` on the same file.
 *   locks-filter NAME TID F0 F1 ADDRESS   the window's thread set to TID (0:
 *                all) and its time range to [F0, F1] (fractions of the
 *                session, each rounded to the millisecond after the first
 *                record; 0 0: none), as a pick in the other views sets
 *                them; the Locks page must follow: "# NAME-filter: TID
 *                FROM TO" (seconds after the first record, the report's
 *                --tid, --from, --to), then what it shows, the lock of
 *                ADDRESS picked, as "# NAME-summary" and "# NAME-details".
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

static gboolean page_visible(PlWindow *w)
{
	GtkWidget *v = GTK_WIDGET(pl_window_get_locks_view(w));
	GtkWidget *st = gtk_widget_get_parent(v);
	return GTK_IS_STACK(st) && gtk_stack_page_get_visible(gtk_stack_get_page(GTK_STACK(st), v));
}

static PlUiStep filter_step(PlWindow *w, char **argv)
{
	const char *name = argv[1];
	if (!name || !argv[2] || !argv[3] || !argv[4] || !argv[5]) {
		pl_ui_script_report(name ? name : "locks-filter", FALSE,
				    "locks-filter NAME TID F0 F1 ADDRESS");
		return PL_UI_STEP_DONE;
	}
	guint32 tid = (guint32)g_ascii_strtoull(argv[2], NULL, 10);
	guint64 ms0, ms1;
	pl_ui_script_pick(w, tid, argv[3], argv[4], TRUE, &ms0, &ms1);
	PlLocksView *v = pl_window_get_locks_view(w);
	const PlLocks *l = pl_locks_view_get_locks(v);
	guint64 addr = g_ascii_strtoull(argv[5], NULL, 16);
	guint index = G_MAXUINT;
	for (guint i = 0; l && i < l->locks->len && index == G_MAXUINT; i++)
		if (g_array_index(l->locks, PlLock, i).uaddr == addr)
			index = i;
	printf("# %s-filter: %u %.3f %.3f\n", name, tid, ms0 / 1e3, ms1 / 1e3);
	if (index != G_MAXUINT) {
		pl_window_show_view(w, "locks");
		pl_locks_view_select(v, index);
		printf("# %s-summary: %s\n", name, pl_locks_view_get_summary(v));
		g_auto(GStrv) lines = g_strsplit(pl_locks_view_get_details(v), "\n", -1);
		for (guint i = 0; lines[i]; i++)
			printf("# %s-details: %s\n", name, lines[i]);
	}
	fflush(stdout);
	pl_ui_script_report(name, index != G_MAXUINT, "thread %u, %.3f s to %.3f s: %u locks, %s",
			    tid, ms0 / 1e3, ms1 / 1e3, l ? l->locks->len : 0,
			    index != G_MAXUINT ? "the lock found" : "none at that address");
	return PL_UI_STEP_DONE;
}

PlUiStep pl_ui_script_locks_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	if (!strcmp(argv[0], "locks-filter"))
		return filter_step(w, argv);
	if (strcmp(argv[0], "locks") != 0)
		return PL_UI_STEP_UNKNOWN;
	const char *name = argv[1] ? argv[1] : "locks";
	PlLocksView *v = pl_window_get_locks_view(w);
	const PlLocks *l = pl_locks_view_get_locks(v);
	guint64 addr = argv[1] && argv[2] ? g_ascii_strtoull(argv[2], NULL, 16) : 0;
	guint index = G_MAXUINT;
	for (guint i = 0; l && i < l->locks->len && index == G_MAXUINT; i++)
		if (!addr || g_array_index(l->locks, PlLock, i).uaddr == addr)
			index = i;
	gboolean ready = page_visible(w) && index != G_MAXUINT;
	if (!ready && !timed_out)
		return PL_UI_STEP_WAIT;
	if (ready) {
		pl_window_show_view(w, "locks");
		pl_locks_view_select(v, index);
		printf("# locks-summary: %s\n", pl_locks_view_get_summary(v));
		g_auto(GStrv) lines = g_strsplit(pl_locks_view_get_details(v), "\n", -1);
		for (guint i = 0; lines[i]; i++)
			printf("# locks-details: %s\n", lines[i]);
		fflush(stdout);
	}
	pl_ui_script_report(name, ready, "the Locks page is %s, %u locks, %s",
			    page_visible(w) ? "shown" : "hidden", l ? l->locks->len : 0,
			    index != G_MAXUINT ? "the lock found" : "none at that address");
	return PL_UI_STEP_DONE;
}
