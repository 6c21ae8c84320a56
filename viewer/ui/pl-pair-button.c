/* pl-pair-button.c — the timeline's "Pair events…" (see pl-pair-button.h). */
#include "pl-pair-button.h"

struct _PlPairButton {
	GtkWidget parent_instance;
	GtkWidget *menu;
	GtkEditable *begin, *end;
	GtkButton *add, *clear;
	GtkLabel *status;
	PlThreadTimeline *timeline; /* borrowed */
	guint n_pairs;
};

G_DEFINE_FINAL_TYPE(PlPairButton, pl_pair_button, GTK_TYPE_WIDGET)

static void say(PlPairButton *self, const char *text)
{
	gtk_label_set_text(self->status, text);
}

static void on_add(GtkButton *b, PlPairButton *self)
{
	const char *bt = gtk_editable_get_text(self->begin), *et = gtk_editable_get_text(self->end);
	if (!*bt || !*et || strchr(bt, ';')) {
		say(self, "Give a begin and an end regex (no ';' in the begin one)");
		return;
	}
	g_autofree char *spec = g_strdup_printf("%s;%s", bt, et);
	g_autoptr(GError) error = NULL;
	if (!pl_thread_timeline_add_pair(self->timeline, spec, &error)) {
		g_autofree char *msg = g_strdup_printf("Not a regex: %s", error->message);
		say(self, msg);
		return;
	}
	self->n_pairs++;
	guint n = pl_thread_timeline_get_n_pair_intervals(self->timeline);
	g_autofree char *msg = g_strdup_printf(
		"%u pair%s set: %u interval%s on the timeline (click a bar to select its time)",
		self->n_pairs, self->n_pairs == 1 ? "" : "s", n, n == 1 ? "" : "s");
	say(self, msg);
	gtk_widget_set_sensitive(GTK_WIDGET(self->clear), TRUE);
}

static void on_clear(GtkButton *b, PlPairButton *self)
{
	pl_thread_timeline_clear_pairs(self->timeline);
	self->n_pairs = 0;
	say(self, "No pairs: only begin/end markers are intervals");
	gtk_widget_set_sensitive(GTK_WIDGET(self->clear), FALSE);
}

static GtkEditable *entry(GtkGrid *g, int row, const char *label, const char *hint)
{
	GtkWidget *l = gtk_label_new(label);
	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_grid_attach(g, l, 0, row, 1, 1);
	GtkWidget *e = gtk_entry_new();
	gtk_entry_set_placeholder_text(GTK_ENTRY(e), hint);
	gtk_widget_set_hexpand(e, TRUE);
	gtk_grid_attach(g, e, 1, row, 1, 1);
	return GTK_EDITABLE(e);
}

GtkWidget *pl_pair_button_new(PlThreadTimeline *timeline)
{
	PlPairButton *self = g_object_new(PL_TYPE_PAIR_BUTTON, NULL);
	self->timeline = timeline;
	return GTK_WIDGET(self);
}

GtkEditable *pl_pair_button_get_begin_entry(PlPairButton *self) { return self->begin; }
GtkEditable *pl_pair_button_get_end_entry(PlPairButton *self) { return self->end; }
GtkButton *pl_pair_button_get_add_button(PlPairButton *self) { return self->add; }
GtkButton *pl_pair_button_get_clear_button(PlPairButton *self) { return self->clear; }
const char *pl_pair_button_get_status(PlPairButton *self) { return gtk_label_get_text(self->status); }

static void pl_pair_button_init(PlPairButton *self)
{
	GtkWidget *grid = gtk_grid_new();
	gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
	gtk_grid_set_column_spacing(GTK_GRID(grid), 8);
	GtkWidget *intro = gtk_label_new(
		"On each thread, an event matching Begin opens an interval that the next one "
		"matching End closes.  Markers match by text, tracepoints by \"EVENT fields\".");
	gtk_label_set_wrap(GTK_LABEL(intro), TRUE);
	gtk_label_set_max_width_chars(GTK_LABEL(intro), 48);
	gtk_label_set_xalign(GTK_LABEL(intro), 0);
	gtk_grid_attach(GTK_GRID(grid), intro, 0, 0, 2, 1);
	self->begin = entry(GTK_GRID(grid), 1, "Begin", "e.g. ^frame start");
	self->end = entry(GTK_GRID(grid), 2, "End", "e.g. ^frame done");
	GtkWidget *buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	self->add = GTK_BUTTON(gtk_button_new_with_label("Add"));
	self->clear = GTK_BUTTON(gtk_button_new_with_label("Clear pairs"));
	gtk_widget_set_sensitive(GTK_WIDGET(self->clear), FALSE);
	g_signal_connect(self->add, "clicked", G_CALLBACK(on_add), self);
	g_signal_connect(self->clear, "clicked", G_CALLBACK(on_clear), self);
	g_signal_connect_swapped(self->end, "activate", G_CALLBACK(gtk_widget_activate), self->add);
	gtk_box_append(GTK_BOX(buttons), GTK_WIDGET(self->add));
	gtk_box_append(GTK_BOX(buttons), GTK_WIDGET(self->clear));
	gtk_grid_attach(GTK_GRID(grid), buttons, 1, 3, 1, 1);
	self->status = GTK_LABEL(gtk_label_new("No pairs: only begin/end markers are intervals"));
	gtk_label_set_wrap(GTK_LABEL(self->status), TRUE);
	gtk_label_set_xalign(self->status, 0);
	gtk_grid_attach(GTK_GRID(grid), GTK_WIDGET(self->status), 0, 4, 2, 1);
	GtkWidget *pop = gtk_popover_new();
	gtk_popover_set_child(GTK_POPOVER(pop), grid);
	self->menu = gtk_menu_button_new();
	gtk_menu_button_set_label(GTK_MENU_BUTTON(self->menu), "Pair events…");
	gtk_menu_button_set_popover(GTK_MENU_BUTTON(self->menu), pop);
	gtk_widget_set_tooltip_text(self->menu, "Intervals between two kinds of marker or "
						"tracepoint event, on the timeline");
	gtk_widget_set_parent(self->menu, GTK_WIDGET(self));
}

static void pl_pair_button_dispose(GObject *obj)
{
	PlPairButton *self = PL_PAIR_BUTTON(obj);
	g_clear_pointer(&self->menu, gtk_widget_unparent);
	G_OBJECT_CLASS(pl_pair_button_parent_class)->dispose(obj);
}

static void pl_pair_button_class_init(PlPairButtonClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_pair_button_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
}
