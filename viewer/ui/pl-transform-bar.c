/* pl-transform-bar.c — breadcrumbs of the call-tree transforms (see the
 * header). */
#include "pl-transform-bar.h"

#include <string.h>

#include "pl-ui-timing.h"

struct _PlTransformBar {
	GtkWidget parent_instance;
	PlViewState *state;
	GtkWidget *box;    /* the bar: title, crumbs, reset */
	GtkWidget *crumbs; /* one box per transform */
	GtkWidget *reset;
	GPtrArray *removes; /* GtkButton*, borrowed: crumb i's × */
};

G_DEFINE_FINAL_TYPE(PlTransformBar, pl_transform_bar, GTK_TYPE_WIDGET)

/* The crumb's words: the model's label, with a name the frame menu
 * anchored and escaped (^name$) shown as the name itself. */
static char *crumb_text(const PlTransforms *t, guint i)
{
	g_autofree char *label = pl_transforms_dup_label(t, i);
	const char *arg = pl_transforms_get_arg(t, i);
	gsize n = arg ? strlen(arg) : 0;
	if (pl_transforms_get_kind(t, i) == PL_TX_FOCUS_SUBTREE || n < 3 || arg[0] != '^' ||
	    arg[n - 1] != '$' || !g_str_has_suffix(label, arg))
		return g_steal_pointer(&label);
	/* drop each escaping backslash, then check that escaping gives it back */
	g_autofree char *inner = g_strndup(arg + 1, n - 2);
	GString *name = g_string_new(NULL);
	for (const char *c = inner; *c; c++)
		g_string_append_c(name, *c == '\\' && c[1] ? *++c : *c);
	g_autofree char *again = g_regex_escape_string(name->str, -1);
	if (strcmp(again, inner)) {
		g_string_free(name, TRUE);
		return g_steal_pointer(&label);
	}
	label[strlen(label) - n] = 0;
	g_autofree char *plain = g_string_free(name, FALSE);
	return g_strconcat(label, plain, NULL);
}

static void on_remove(GtkButton *b, PlTransformBar *self)
{
	guint i = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(b), "pl-crumb"));
	pl_ui_timing_begin("transform");
	pl_view_state_remove(self->state, i);
}

static void on_reset(GtkButton *b, PlTransformBar *self)
{
	pl_ui_timing_begin("transform");
	pl_view_state_reset(self->state);
}

static GtkWidget *crumb_new(PlTransformBar *self, guint i, const char *text, const char *tip)
{
	GtkWidget *c = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
	gtk_widget_add_css_class(c, "linked");
	GtkWidget *l = gtk_button_new_with_label(text);
	/* the label part is not a command: it shows, whole, what it does */
	gtk_widget_set_can_target(l, FALSE);
	gtk_widget_set_focusable(l, FALSE);
	GtkWidget *lab = gtk_button_get_child(GTK_BUTTON(l));
	if (GTK_IS_LABEL(lab)) {
		gtk_label_set_ellipsize(GTK_LABEL(lab), PANGO_ELLIPSIZE_MIDDLE);
		gtk_label_set_max_width_chars(GTK_LABEL(lab), 64);
	}
	gtk_widget_set_tooltip_text(c, tip);
	GtkWidget *x = gtk_button_new_from_icon_name("window-close-symbolic");
	gtk_widget_set_tooltip_text(x, "Remove this transform (the others stay, in their order)");
	g_object_set_data(G_OBJECT(x), "pl-crumb", GUINT_TO_POINTER(i));
	g_signal_connect(x, "clicked", G_CALLBACK(on_remove), self);
	gtk_box_append(GTK_BOX(c), l);
	gtk_box_append(GTK_BOX(c), x);
	g_ptr_array_add(self->removes, x);
	return c;
}

static void rebuild(PlViewState *state, PlTransformBar *self)
{
	GtkWidget *c;
	while ((c = gtk_widget_get_first_child(self->crumbs)))
		gtk_box_remove(GTK_BOX(self->crumbs), c);
	g_ptr_array_set_size(self->removes, 0);
	const PlTransforms *t = pl_view_state_get_transforms(state);
	guint n = pl_transforms_get_n(t);
	for (guint i = 0; i < n; i++) {
		if (i) {
			GtkWidget *sep = gtk_label_new("›");
			gtk_widget_add_css_class(sep, "dim-label");
			gtk_box_append(GTK_BOX(self->crumbs), sep);
		}
		g_autofree char *text = crumb_text(t, i);
		g_autofree char *exact = pl_transforms_dup_label(t, i);
		gtk_box_append(GTK_BOX(self->crumbs), crumb_new(self, i, text, exact));
	}
	gtk_widget_set_visible(GTK_WIDGET(self), n > 0);
}

GtkWidget *pl_transform_bar_new(PlViewState *state)
{
	PlTransformBar *self = g_object_new(PL_TYPE_TRANSFORM_BAR, NULL);
	self->state = g_object_ref(state);
	g_signal_connect_object(state, "changed", G_CALLBACK(rebuild), self, 0);
	rebuild(state, self);
	return GTK_WIDGET(self);
}

guint pl_transform_bar_get_n_crumbs(PlTransformBar *self)
{
	return self->removes->len;
}

char *pl_transform_bar_dup_crumb_label(PlTransformBar *self, guint i)
{
	const PlTransforms *t = pl_view_state_get_transforms(self->state);
	return i < self->removes->len && i < pl_transforms_get_n(t) ? crumb_text(t, i) : NULL;
}

GtkButton *pl_transform_bar_get_remove_button(PlTransformBar *self, guint i)
{
	return i < self->removes->len ? self->removes->pdata[i] : NULL;
}

GtkButton *pl_transform_bar_get_reset_button(PlTransformBar *self)
{
	return GTK_BUTTON(self->reset);
}

static void pl_transform_bar_dispose(GObject *obj)
{
	PlTransformBar *self = PL_TRANSFORM_BAR(obj);
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_TRANSFORM_BAR);
	g_clear_pointer(&self->removes, g_ptr_array_unref);
	g_clear_object(&self->state);
	G_OBJECT_CLASS(pl_transform_bar_parent_class)->dispose(obj);
}

static void pl_transform_bar_class_init(PlTransformBarClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_transform_bar_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_css_name(wc, "transformbar");
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-transform-bar.ui");
	gtk_widget_class_bind_template_child(wc, PlTransformBar, box);
	gtk_widget_class_bind_template_child(wc, PlTransformBar, crumbs);
	gtk_widget_class_bind_template_child(wc, PlTransformBar, reset);
	gtk_widget_class_bind_template_callback(wc, on_reset);
}

static void pl_transform_bar_init(PlTransformBar *self)
{
	self->removes = g_ptr_array_new();
	gtk_widget_init_template(GTK_WIDGET(self));
}
