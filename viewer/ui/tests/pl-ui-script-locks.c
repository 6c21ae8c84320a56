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

PlUiStep pl_ui_script_locks_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
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
