/* pl-welcome-page.c — the page before a session is open; see the header. */
#include "pl-welcome-page.h"

GtkWidget *pl_welcome_page_new(GtkLabel **hint)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
	gtk_widget_set_halign(box, GTK_ALIGN_CENTER);
	GtkWidget *t = gtk_label_new("PerfLens");
	gtk_widget_add_css_class(t, "title-1");
	gtk_box_append(GTK_BOX(box), t);
	*hint = GTK_LABEL(gtk_label_new(
		"Connect to a board running perflens-agent, or open a saved session (.plens, "
		"perf.data).\nYou can also drop a file on this window."));
	gtk_label_set_justify(*hint, GTK_JUSTIFY_CENTER);
	gtk_label_set_wrap(*hint, TRUE);
	gtk_box_append(GTK_BOX(box), GTK_WIDGET(*hint));
	GtkWidget *b = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
	gtk_widget_set_halign(b, GTK_ALIGN_CENTER);
	GtkWidget *c = gtk_button_new_with_label("Connect to a board…");
	gtk_widget_add_css_class(c, "suggested-action");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(c), "win.connect");
	GtkWidget *o = gtk_button_new_with_label("Open a file…  (Ctrl+O)");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(o), "win.open");
	GtkWidget *ss = gtk_button_new_with_label("Saved sessions…  (Ctrl+L)");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(ss), "win.sessions");
	gtk_box_append(GTK_BOX(b), c);
	gtk_box_append(GTK_BOX(b), ss);
	gtk_box_append(GTK_BOX(b), o);
	gtk_box_append(GTK_BOX(box), b);
	return box;
}
