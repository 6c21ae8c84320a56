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

static void pl_functions_page_init(PlFunctionsPage *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

static void pl_functions_page_dispose(GObject *obj)
{
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_FUNCTIONS_PAGE);
	G_OBJECT_CLASS(pl_functions_page_parent_class)->dispose(obj);
}

static void pl_functions_page_class_init(PlFunctionsPageClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_functions_page_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	g_type_ensure(PL_TYPE_FUNCTION_TABLE);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-functions-page.ui");
	gtk_widget_class_bind_template_child(wc, PlFunctionsPage, table);
	gtk_widget_class_bind_template_callback(wc, on_source_button);
	signals[SIG_SHOW_SOURCE] = g_signal_new("show-source", G_TYPE_FROM_CLASS(klass),
						G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
						G_TYPE_NONE, 1, G_TYPE_UINT);
}

GtkWidget *pl_functions_page_new(void)
{
	return g_object_new(PL_TYPE_FUNCTIONS_PAGE, NULL);
}

PlFunctionTable *pl_functions_page_get_table(PlFunctionsPage *self)
{
	return self->table;
}
