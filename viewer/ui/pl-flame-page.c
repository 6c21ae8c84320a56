/* pl-flame-page.c — the Flame graph page (see pl-flame-page.h): its
 * toolbar, breadcrumbs and search line around the graph (laid out in
 * pl-flame-page.ui).
 */
#include "pl-flame-page.h"

struct _PlFlamePage {
	GtkBox parent_instance;

	PlFlameGraph *flame;
	GtkBox *crumbs;
	GtkSearchEntry *search;
	GtkLabel *match;
	GtkToggleButton *icicle, *offcpu, *inverted, *short_names;
};

G_DEFINE_FINAL_TYPE(PlFlamePage, pl_flame_page, GTK_TYPE_BOX)

enum { SIG_OFFCPU, SIG_SHORT_NAMES, N_SIGNALS };
static guint signals[N_SIGNALS];

static void on_crumb(GtkButton *b, PlFlamePage *self)
{
	pl_flame_graph_zoom(self->flame, GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(b), "node")));
}

static void on_zoom_changed(PlFlameGraph *fg, PlFlamePage *self)
{
	GtkWidget *c;
	while ((c = gtk_widget_get_first_child(GTK_WIDGET(self->crumbs))))
		gtk_box_remove(self->crumbs, c);
	const PlFlameLayout *l = pl_flame_graph_get_layout(fg);
	if (!l)
		return;
	/* the ancestors of the zoomed node are the rows before it, full width */
	guint32 zoom = pl_flame_graph_get_zoom(fg);
	for (guint d = 0; d < l->n_rows; d++) {
		guint32 node = l->rects[l->row_start[d]].node;
		GtkWidget *b = gtk_button_new_with_label(pl_flame_graph_get_label(fg, node));
		gtk_widget_add_css_class(b, "flat");
		g_object_set_data(G_OBJECT(b), "node", GUINT_TO_POINTER(node));
		g_signal_connect(b, "clicked", G_CALLBACK(on_crumb), self);
		if (d)
			gtk_box_append(self->crumbs, gtk_label_new("›"));
		gtk_box_append(self->crumbs, b);
		if (node == zoom)
			break;
	}
}

static void on_search_changed(GtkSearchEntry *e, PlFlamePage *self)
{
	g_autoptr(GError) error = NULL;
	if (!pl_flame_graph_set_search(self->flame, gtk_editable_get_text(GTK_EDITABLE(e)), &error))
		gtk_label_set_text(self->match, "Not a valid regular expression");
}

static void on_matches(PlFlameGraph *fg, PlFlamePage *self)
{
	double share = pl_flame_graph_get_match_share(fg);
	if (share < 0) {
		gtk_label_set_text(self->match, "");
		return;
	}
	g_autofree char *s = g_strdup_printf("Matches: %.1f%% of the view", share * 100);
	gtk_label_set_text(self->match, s);
}

static void on_icicle(GtkToggleButton *b, PlFlamePage *self)
{
	pl_flame_graph_set_icicle(self->flame, gtk_toggle_button_get_active(b));
}

static void on_inverted(GtkToggleButton *b, PlFlamePage *self)
{
	pl_flame_graph_set_inverted(self->flame, gtk_toggle_button_get_active(b));
}

static void on_offcpu(GtkToggleButton *b, PlFlamePage *self)
{
	g_signal_emit(self, signals[SIG_OFFCPU], 0, gtk_toggle_button_get_active(b));
}

static void on_short_names(GtkToggleButton *b, PlFlamePage *self)
{
	g_signal_emit(self, signals[SIG_SHORT_NAMES], 0, gtk_toggle_button_get_active(b));
}

static void on_svg_response(GtkNativeDialog *d, int response, PlFlamePage *self)
{
	if (response == GTK_RESPONSE_ACCEPT) {
		G_GNUC_BEGIN_IGNORE_DEPRECATIONS
		g_autoptr(GFile) f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
		G_GNUC_END_IGNORE_DEPRECATIONS
		g_autofree char *path = g_file_get_path(f);
		g_autoptr(GError) error = NULL;
		g_autofree char *m = NULL;
		if (!pl_flame_graph_export_svg(self->flame, path, 1600, &error))
			gtk_label_set_text(self->match, error->message);
		else
			gtk_label_set_text(self->match,
					   (m = g_strdup_printf("Flame graph saved as %s", path)));
	}
	g_object_unref(d);
}

void pl_flame_page_export_svg(PlFlamePage *self)
{
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	GtkWindow *win = GTK_WINDOW(gtk_widget_get_root(GTK_WIDGET(self)));
	GtkFileChooserNative *fc = gtk_file_chooser_native_new(
		"Export flame graph as SVG", win, GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
	gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(fc), "flamegraph.svg");
	G_GNUC_END_IGNORE_DEPRECATIONS
	g_signal_connect(fc, "response", G_CALLBACK(on_svg_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

static void on_reset(GtkButton *b, PlFlamePage *self)
{
	pl_flame_graph_zoom(self->flame, 0);
}

GtkWidget *pl_flame_page_new(void)
{
	return g_object_new(PL_TYPE_FLAME_PAGE, "orientation", GTK_ORIENTATION_VERTICAL, "spacing",
			    0, NULL);
}

PlFlameGraph *pl_flame_page_get_graph(PlFlamePage *self) { return self->flame; }
GtkSearchEntry *pl_flame_page_get_search_entry(PlFlamePage *self) { return self->search; }
GtkToggleButton *pl_flame_page_get_inverted_toggle(PlFlamePage *self) { return self->inverted; }

void pl_flame_page_set_message(PlFlamePage *self, const char *text)
{
	gtk_label_set_text(self->match, text);
}

static void pl_flame_page_init(PlFlamePage *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

static void pl_flame_page_dispose(GObject *obj)
{
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_FLAME_PAGE);
	G_OBJECT_CLASS(pl_flame_page_parent_class)->dispose(obj);
}

static void pl_flame_page_class_init(PlFlamePageClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_flame_page_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	g_type_ensure(PL_TYPE_FLAME_GRAPH);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-flame-page.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlFlamePage, name)
	CHILD(flame);
	CHILD(crumbs);
	CHILD(search);
	CHILD(match);
	CHILD(icicle);
	CHILD(offcpu);
	CHILD(inverted);
	CHILD(short_names);
#undef CHILD
#define CALLBACK(name) gtk_widget_class_bind_template_callback(wc, name)
	CALLBACK(on_search_changed);
	CALLBACK(on_offcpu);
	CALLBACK(on_short_names);
	CALLBACK(on_icicle);
	CALLBACK(on_inverted);
	CALLBACK(on_reset);
	CALLBACK(on_zoom_changed);
	CALLBACK(on_matches);
#undef CALLBACK
	signals[SIG_OFFCPU] = g_signal_new("offcpu-toggled", G_TYPE_FROM_CLASS(klass),
					   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
					   G_TYPE_BOOLEAN);
	signals[SIG_SHORT_NAMES] = g_signal_new("short-names-toggled", G_TYPE_FROM_CLASS(klass),
						G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
						1, G_TYPE_BOOLEAN);
}
