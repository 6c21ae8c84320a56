/* pl-source-view.c — source with per-line heat (see the header). */
#include "pl-source-view.h"

#include <string.h>

#include "pl-ui-util.h"

#define HEAT_LEVELS 12

struct _PlSourceView {
	GtkWidget parent_instance;
	GtkWidget *box;
	GtkLabel *title;
	GtkTextView *text;
	GtkTextTag *heat[HEAT_LEVELS];
	GtkTextTag *gutter, *hot;
	PlProfile *profile;
	guint32 func;
	char *file, *local;
	char **lines;
	guint first, last, hot_line;
	gboolean dark;
};

G_DEFINE_FINAL_TYPE(PlSourceView, pl_source_view, GTK_TYPE_WIDGET)

static void make_tags(PlSourceView *self)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(self->text);
	GtkTextTagTable *tt = gtk_text_buffer_get_tag_table(b);
	for (guint i = 0; i < HEAT_LEVELS; i++) {
		if (self->heat[i])
			gtk_text_tag_table_remove(tt, self->heat[i]);
		GdkRGBA c;
		pl_ui_heat_rgba((double)(i + 1) / HEAT_LEVELS, self->dark, &c);
		self->heat[i] = gtk_text_buffer_create_tag(b, NULL, "paragraph-background-rgba", &c,
							   NULL);
	}
	if (!self->gutter)
		self->gutter = gtk_text_buffer_create_tag(b, NULL, "foreground-rgba",
							  &(GdkRGBA){ 0.5, 0.5, 0.5, 1 }, NULL);
	if (!self->hot)
		self->hot = gtk_text_buffer_create_tag(b, NULL, "weight", PANGO_WEIGHT_BOLD, NULL);
}

static void render(PlSourceView *self, PlAggregate *agg)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(self->text);
	gtk_text_buffer_set_text(b, "", 0);
	self->hot_line = 0;
	if (!self->lines)
		return;
	guint n = g_strv_length(self->lines);
	g_autofree guint64 *ls = g_new0(guint64, n + 2);
	g_autofree guint64 *lt = g_new0(guint64, n + 2);
	guint64 all = agg ? agg->all.weight : 0, max = 0;
	if (agg) {
		guint nl = MIN(agg->n_locations, pl_profile_get_n_locations(self->profile));
		for (guint i = 0; i < nl; i++) {
			const PlLocation *l = pl_profile_get_location(self->profile, i);
			if (!l->file || strcmp(l->file, self->file) || l->line == 0 || l->line > n)
				continue;
			ls[l->line] += agg->line_self[i].weight;
			lt[l->line] += agg->line_total[i].weight;
		}
		for (guint i = 1; i <= n; i++) {
			max = MAX(max, ls[i]);
			if (i >= self->first && i <= self->last &&
			    (!self->hot_line || ls[i] > ls[self->hot_line]))
				self->hot_line = ls[i] ? i : self->hot_line;
		}
	}
	GtkTextIter it;
	gtk_text_buffer_get_end_iter(b, &it);
	for (guint i = 1; i <= n; i++) {
		if (i == n && !self->lines[i - 1][0])
			break; /* the empty string after the final newline */
		char gut[96];
		if (ls[i] || lt[i])
			g_snprintf(gut, sizeof gut, "%6.1f%% %6.1f%% %5u  ",
				   100.0 * (double)ls[i] / (double)(all ? all : 1),
				   100.0 * (double)lt[i] / (double)(all ? all : 1), i);
		else
			g_snprintf(gut, sizeof gut, "%7s %7s %5u  ", "", "", i);
		int line_start = gtk_text_iter_get_offset(&it);
		gtk_text_buffer_insert_with_tags(b, &it, gut, -1, self->gutter, NULL);
		/* tabs as 8 columns would waste the width: 4 */
		g_autofree char *code = g_strdup(self->lines[i - 1]);
		gtk_text_buffer_insert(b, &it, code, -1);
		gtk_text_buffer_insert(b, &it, "\n", 1);
		if (ls[i] && max) {
			guint lvl = (guint)((double)ls[i] / (double)max * (HEAT_LEVELS - 1) + 0.5);
			GtkTextIter a, e;
			gtk_text_buffer_get_iter_at_offset(b, &a, line_start);
			e = it;
			gtk_text_buffer_apply_tag(b, self->heat[MIN(lvl, HEAT_LEVELS - 1)], &a, &e);
			if (i == self->hot_line)
				gtk_text_buffer_apply_tag(b, self->hot, &a, &e);
		}
	}
	guint target = self->hot_line ? self->hot_line : self->first;
	if (target) {
		GtkTextIter a, e;
		gtk_text_buffer_get_iter_at_line(b, &a, (int)target - 1);
		e = a;
		gtk_text_iter_forward_to_line_end(&e);
		gtk_text_buffer_select_range(b, &a, &e);
		GtkTextMark *m = gtk_text_buffer_create_mark(b, NULL, &a, TRUE);
		gtk_text_view_scroll_to_mark(self->text, m, 0.1, TRUE, 0, 0.35);
	}
}

gboolean pl_source_view_show_function(PlSourceView *self, PlProfile *profile, PlAggregate *agg,
				      guint32 func, GError **error)
{
	const char *file, *local;
	guint first, last;
	g_clear_pointer(&self->lines, g_strfreev);
	g_clear_pointer(&self->file, g_free);
	g_clear_pointer(&self->local, g_free);
	self->profile = profile;
	self->func = func;
	self->hot_line = 0;
	const char *name = profile ? pl_profile_get_function_label(profile, func) : "?";
	if (!profile || !pl_ui_function_source(profile, func, &file, &local, &first, &last)) {
		g_autofree char *msg = g_strdup_printf(
			"No source for %s: it needs line information (build with -g) and the "
			"source file here (add its directory under Settings → Source dirs)",
			name);
		gtk_label_set_text(self->title, msg);
		gtk_text_buffer_set_text(gtk_text_view_get_buffer(self->text), "", 0);
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, msg);
		return FALSE;
	}
	g_autofree char *text = NULL;
	gsize len;
	if (!local || !g_file_get_contents(local, &text, &len, error))
		return FALSE;
	self->lines = g_strsplit(text, "\n", -1);
	self->file = g_strdup(file);
	self->local = g_strdup(local);
	self->first = first;
	self->last = last;
	g_autofree char *ename = g_markup_escape_text(name, -1);
	g_autofree char *efile = g_markup_escape_text(local, -1);
	g_autofree char *title = g_strdup_printf(
		"<b>%s</b>   %s:%u   <span alpha='70%%'>columns: self %%, total %%, line</span>", ename,
		efile, first);
	gtk_label_set_markup(self->title, title);
	render(self, agg);
	return TRUE;
}

void pl_source_view_set_data(PlSourceView *self, PlProfile *profile, PlAggregate *agg)
{
	if (profile != self->profile || !profile) {
		self->profile = profile;
		g_clear_pointer(&self->lines, g_strfreev);
		g_clear_pointer(&self->file, g_free);
		gtk_label_set_text(self->title, "Select a function and choose “Source” (or press Enter "
						"in the function table)");
		gtk_text_buffer_set_text(gtk_text_view_get_buffer(self->text), "", 0);
		return;
	}
	if (self->lines)
		render(self, agg);
}

guint pl_source_view_get_hot_line(PlSourceView *self)
{
	return self->hot_line;
}

const char *pl_source_view_get_file(PlSourceView *self)
{
	return self->file;
}

char *pl_source_view_dup_line(PlSourceView *self, guint line)
{
	if (!self->lines || line == 0 || line > g_strv_length(self->lines))
		return NULL;
	return g_strdup(self->lines[line - 1]);
}

static void on_css_changed(GtkWidget *w, GtkCssStyleChange *change)
{
	PlSourceView *self = PL_SOURCE_VIEW(w);
	GdkRGBA fg;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(w), &fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	gboolean dark = fg.red + fg.green + fg.blue > 1.5;
	GTK_WIDGET_CLASS(pl_source_view_parent_class)->css_changed(w, change);
	if (dark != self->dark) {
		self->dark = dark;
		make_tags(self);
	}
}

static void pl_source_view_dispose(GObject *obj)
{
	PlSourceView *self = PL_SOURCE_VIEW(obj);
	g_clear_pointer(&self->box, gtk_widget_unparent);
	g_clear_pointer(&self->lines, g_strfreev);
	g_clear_pointer(&self->file, g_free);
	g_clear_pointer(&self->local, g_free);
	G_OBJECT_CLASS(pl_source_view_parent_class)->dispose(obj);
}

static void pl_source_view_class_init(PlSourceViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_source_view_dispose;
	GTK_WIDGET_CLASS(klass)->css_changed = on_css_changed;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
}

static void pl_source_view_init(PlSourceView *self)
{
	self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
	GtkWidget *t = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(t), 0);
	gtk_label_set_wrap(GTK_LABEL(t), TRUE);
	gtk_widget_set_margin_start(t, 8);
	gtk_widget_set_margin_top(t, 6);
	gtk_widget_set_margin_bottom(t, 2);
	self->title = GTK_LABEL(t);
	gtk_box_append(GTK_BOX(self->box), t);
	self->text = GTK_TEXT_VIEW(gtk_text_view_new());
	gtk_text_view_set_editable(self->text, FALSE);
	gtk_text_view_set_monospace(self->text, TRUE);
	gtk_text_view_set_left_margin(self->text, 4);
	gtk_text_view_set_cursor_visible(self->text, FALSE);
	GtkWidget *sw = gtk_scrolled_window_new();
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sw), GTK_WIDGET(self->text));
	gtk_widget_set_vexpand(sw, TRUE);
	gtk_box_append(GTK_BOX(self->box), sw);
	gtk_widget_set_parent(self->box, GTK_WIDGET(self));
	make_tags(self);
	pl_source_view_set_data(self, NULL, NULL);
}

GtkWidget *pl_source_view_new(void)
{
	return g_object_new(PL_TYPE_SOURCE_VIEW, NULL);
}
