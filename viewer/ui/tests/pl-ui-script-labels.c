/* pl-ui-script-labels.c — the scripted driver's check of what the window
 * says in words (listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 * "expect-label NAME TEXT…" looks through the window's widgets for a
 * label that is drawn (mapped, so on the page shown) and holds TEXT: a
 * note the user must be able to read, such as a self-contained session's
 * "symbolized on HOST at TIME".
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

/* A mapped label (drawn: on the page shown) whose text contains needle. */
static gboolean label_holds(GtkWidget *w, gconstpointer needle)
{
	return gtk_widget_get_mapped(w) && GTK_IS_LABEL(w) &&
	       strstr(gtk_label_get_text(GTK_LABEL(w)), needle);
}

static GtkLabel *find_label(GtkWidget *w, const char *needle)
{
	return GTK_LABEL(pl_ui_script_find_widget(w, label_holds, needle));
}

PlUiStep pl_ui_script_labels_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	if (!argv[0] || strcmp(argv[0], "expect-label") != 0)
		return PL_UI_STEP_UNKNOWN;
	const char *name = argv[1] ? argv[1] : "expect-label";
	g_autofree char *text = argv[1] && argv[2] ? g_strjoinv(" ", argv + 2) : g_strdup("");
	GtkLabel *l = *text ? find_label(GTK_WIDGET(w), text) : NULL;
	if (!l && !timed_out)
		return PL_UI_STEP_WAIT; /* the page may still be settling */
	pl_ui_script_report(name, l != NULL, "no label shown holds \"%s\"", text);
	if (l) {
		printf("# label: %s\n", gtk_label_get_text(l));
		fflush(stdout);
	}
	return PL_UI_STEP_DONE;
}
