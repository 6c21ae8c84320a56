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

/* Enter in End adds the pair. */
static void on_end_activate(GtkEntry *e, PlPairButton *self)
{
	gtk_widget_activate(GTK_WIDGET(self->add));
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
	gtk_widget_init_template(GTK_WIDGET(self));
}

static void pl_pair_button_dispose(GObject *obj)
{
	PlPairButton *self = PL_PAIR_BUTTON(obj);
	/* the template's menu button is this widget's child, not a box's */
	g_clear_pointer(&self->menu, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_PAIR_BUTTON);
	G_OBJECT_CLASS(pl_pair_button_parent_class)->dispose(obj);
}

static void pl_pair_button_class_init(PlPairButtonClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_pair_button_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-pair-button.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlPairButton, name)
	CHILD(menu);
	CHILD(begin);
	CHILD(end);
	CHILD(add);
	CHILD(clear);
	CHILD(status);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_add);
	gtk_widget_class_bind_template_callback(wc, on_clear);
	gtk_widget_class_bind_template_callback(wc, on_end_activate);
}
