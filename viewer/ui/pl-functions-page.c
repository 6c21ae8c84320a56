/* pl-functions-page.c — the Functions page (see the header). */
#include "pl-functions-page.h"

#include "pl-profile.h"

struct _PlFunctionsPage {
	GtkBox parent_instance;
	PlFunctionTable *table;
};

G_DEFINE_FINAL_TYPE(PlFunctionsPage, pl_functions_page, GTK_TYPE_BOX)

enum { SIG_SHOW_SOURCE, N_SIGNALS };
static guint signals[N_SIGNALS];

static void on_source_button(GtkButton *b, PlFunctionsPage *self)
{
	g_signal_emit(self, signals[SIG_SHOW_SOURCE], 0,
		      (guint)pl_function_table_get_selected(self->table));
}

static void pl_functions_page_class_init(PlFunctionsPageClass *klass)
{
	signals[SIG_SHOW_SOURCE] = g_signal_new("show-source", G_TYPE_FROM_CLASS(klass),
						G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
						G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void pl_functions_page_init(PlFunctionsPage *self)
{
	GtkBox *box = GTK_BOX(self);
	gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	gtk_widget_set_margin_start(bar, 6);
	gtk_widget_set_margin_top(bar, 4);
	gtk_widget_set_margin_bottom(bar, 4);
	GtkWidget *src = gtk_button_new_with_label("Show source");
	gtk_widget_set_tooltip_text(src, "Source of the selected function with per-line heat "
					 "(or press Enter on a row)");
	g_signal_connect(src, "clicked", G_CALLBACK(on_source_button), self);
	gtk_box_append(GTK_BOX(bar), src);
	GtkWidget *hint = gtk_label_new("Click a column title to sort · double click a caller or "
					"callee to follow it · right click: transforms");
	gtk_widget_add_css_class(hint, "dim-label");
	gtk_box_append(GTK_BOX(bar), hint);
	gtk_box_append(box, bar);
	self->table = PL_FUNCTION_TABLE(pl_function_table_new());
	gtk_box_append(box, GTK_WIDGET(self->table));
}

GtkWidget *pl_functions_page_new(void)
{
	return g_object_new(PL_TYPE_FUNCTIONS_PAGE, NULL);
}

PlFunctionTable *pl_functions_page_get_table(PlFunctionsPage *self)
{
	return self->table;
}
