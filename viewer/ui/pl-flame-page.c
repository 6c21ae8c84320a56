/* pl-flame-page.c — the Flame graph page (see pl-flame-page.h): its
 * toolbar, breadcrumbs and search line around the graph.
 */
#include "pl-flame-page.h"

#include "pl-ui-util.h"

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
	GtkBox *box = GTK_BOX(self);
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	gtk_widget_set_margin_start(bar, 6);
	gtk_widget_set_margin_end(bar, 6);
	gtk_widget_set_margin_top(bar, 4);
	gtk_widget_set_margin_bottom(bar, 4);
	self->crumbs = GTK_BOX(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0));
	GtkWidget *cs = gtk_scrolled_window_new();
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(cs), GTK_POLICY_EXTERNAL,
				       GTK_POLICY_NEVER);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(cs), GTK_WIDGET(self->crumbs));
	gtk_widget_set_hexpand(cs, TRUE);
	gtk_box_append(GTK_BOX(bar), cs);
	self->match = GTK_LABEL(gtk_label_new(NULL));
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->match));
	self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
	g_object_set(self->search, "placeholder-text", "Search (regex)  Ctrl+F", NULL);
	gtk_widget_set_size_request(GTK_WIDGET(self->search), 240, -1);
	g_signal_connect(self->search, "search-changed", G_CALLBACK(on_search_changed), self);
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->search));
	self->offcpu = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label("Off-CPU"));
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->offcpu),
				    "Where threads waited (context-switch stacks weighted by the "
				    "time off CPU) instead of where they ran");
	g_signal_connect(self->offcpu, "toggled", G_CALLBACK(on_offcpu), self);
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->offcpu));
	self->short_names = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label("Short names"));
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->short_names),
				    "Fold C++ template arguments and parameter lists in every view: "
				    "std::vector<…>::push_back(…)");
	g_signal_connect(self->short_names, "toggled", G_CALLBACK(on_short_names), self);
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->short_names));
	self->icicle = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label("Icicle"));
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->icicle), "Root at the top");
	g_signal_connect(self->icicle, "toggled", G_CALLBACK(on_icicle), self);
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->icicle));
	self->inverted = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label("Inverted"));
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->inverted),
				    "Bottom-up: the functions where time was spent at the root, "
				    "their callers above");
	g_signal_connect(self->inverted, "toggled", G_CALLBACK(on_inverted), self);
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->inverted));
	GtkWidget *reset = gtk_button_new_with_label("Reset zoom");
	gtk_widget_set_tooltip_text(reset, "Show everything again (Escape zooms out one level)");
	g_signal_connect(reset, "clicked", G_CALLBACK(on_reset), self);
	gtk_box_append(GTK_BOX(bar), reset);
	GtkWidget *svg = gtk_button_new_with_label("Export SVG");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(svg), "win.export-svg");
	gtk_box_append(GTK_BOX(bar), svg);
	gtk_box_append(box, bar);
	self->flame = PL_FLAME_GRAPH(pl_flame_graph_new());
	g_signal_connect(self->flame, "zoom-changed", G_CALLBACK(on_zoom_changed), self);
	g_signal_connect(self->flame, "search-changed", G_CALLBACK(on_matches), self);
	gtk_box_append(box, pl_ui_scrolled(GTK_WIDGET(self->flame), FALSE));
	GtkWidget *hint = gtk_label_new("Click a frame to zoom · right click: its source and the "
					"call-tree transforms (merge, focus, drop, collapse) · hover "
					"for details");
	gtk_widget_add_css_class(hint, "dim-label");
	gtk_label_set_xalign(GTK_LABEL(hint), 0);
	gtk_widget_set_margin_start(hint, 8);
	gtk_box_append(box, hint);
}

static void pl_flame_page_class_init(PlFlamePageClass *klass)
{
	signals[SIG_OFFCPU] = g_signal_new("offcpu-toggled", G_TYPE_FROM_CLASS(klass),
					   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
					   G_TYPE_BOOLEAN);
	signals[SIG_SHORT_NAMES] = g_signal_new("short-names-toggled", G_TYPE_FROM_CLASS(klass),
						G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
						1, G_TYPE_BOOLEAN);
}
