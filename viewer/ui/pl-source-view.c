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
	GtkTextTag *gutter, *hot, *marker;
	GtkToggleButton *src_btn, *asm_btn;
	PlProfile *profile;
	PlAggregate *agg; /* borrowed: the window hands a new one to set_data() */
	guint32 func;
	char *file, *local;
	char **lines;
	guint first, last, hot_line;
	gboolean dark;
	/* disassembly */
	gboolean disasm;
	PlAnnotation *ann;
	char *disasm_error;
	char *src_title; /* the source mode's title markup */
	GHashTable *src_files; /* local path → char** lines, for marker text */
	gboolean syncing; /* setting the toggles from code */
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
	if (!self->marker)
		self->marker = gtk_text_buffer_create_tag(b, NULL, "foreground-rgba",
							  &(GdkRGBA){ 0.45, 0.55, 0.70, 1 }, "style",
							  PANGO_STYLE_ITALIC, NULL);
}

/* ─── disassembly ────────────────────────────────────────────────────── */

/* "/path/file.c:46 (discriminator 3)" → file, 46 */
static gboolean parse_marker(const char *text, char **file, guint *line)
{
	const char *c = strrchr(text, ':');
	if (!c || c == text || !g_ascii_isdigit(c[1]) || strchr(text, '\t'))
		return FALSE;
	/* the path part must look like one: objdump also prints "func():" */
	if (text[0] != '/' && !strchr(text, '.'))
		return FALSE;
	*file = g_strndup(text, (gsize)(c - text));
	*line = (guint)g_ascii_strtoull(c + 1, NULL, 10);
	return *line > 0;
}

/* The text of a source line named by an objdump marker, when the file
 * is found here (path maps and source dirs apply); NULL otherwise. */
static const char *marker_source(PlSourceView *self, const char *text)
{
	g_autofree char *file = NULL;
	guint line = 0;
	if (!self->profile || !parse_marker(text, &file, &line))
		return NULL;
	char **lines = g_hash_table_lookup(self->src_files, file);
	if (!lines && !g_hash_table_contains(self->src_files, file)) {
		g_autofree char *local = pl_symbols_find_source(pl_profile_get_symbols(self->profile),
								file);
		g_autofree char *content = NULL;
		if (!local && g_file_test(file, G_FILE_TEST_IS_REGULAR))
			local = g_strdup(file);
		if (local && g_file_get_contents(local, &content, NULL, NULL))
			lines = g_strsplit(content, "\n", -1);
		g_hash_table_insert(self->src_files, g_strdup(file), lines);
	}
	if (!lines || line > g_strv_length(lines))
		return NULL;
	return lines[line - 1];
}

static void set_title_disasm(PlSourceView *self)
{
	const char *name = self->profile ? pl_profile_get_function_label(self->profile, self->func)
					 : "?";
	g_autofree char *ename = g_markup_escape_text(name, -1);
	if (!self->ann) {
		g_autofree char *emsg = g_markup_escape_text(
			self->disasm_error ? self->disasm_error : "No disassembly", -1);
		g_autofree char *t = g_strdup_printf("<b>%s</b>   %s", ename, emsg);
		gtk_label_set_markup(self->title, t);
		return;
	}
	g_autofree char *esym = g_markup_escape_text(self->ann->symbol, -1);
	g_autofree char *epath = g_markup_escape_text(self->ann->path, -1);
	GString *t = g_string_new(NULL);
	g_string_append_printf(t, "<b>%s</b>", ename);
	if (g_strcmp0(name, self->ann->symbol))
		g_string_append_printf(t, " (inlined into <b>%s</b>)", esym);
	g_string_append_printf(t, "   %s   <span alpha='70%%'>columns: self %%, total %% "
				  "(at a call: time in what it called), instruction</span>",
			       epath);
	if (self->ann->unplaced.samples)
		g_string_append_printf(t, "\n<span foreground='#d35400'>%" G_GUINT64_FORMAT
					  " samples fall on no instruction of this listing: the "
					  "local file may differ from the board's</span>",
				       self->ann->unplaced.samples);
	gtk_label_set_markup(self->title, t->str);
	g_string_free(t, TRUE);
}

/* reuse: the same function's listing with new counts (no objdump run) */
static void render_disasm_full(PlSourceView *self, gboolean reuse)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(self->text);
	gtk_text_buffer_set_text(b, "", 0);
	if (!(reuse && self->ann && self->agg && pl_annotation_recount(self->ann, self->agg, self->func)))
		g_clear_pointer(&self->ann, pl_annotation_free);
	g_clear_pointer(&self->disasm_error, g_free);
	if (!self->profile || !self->agg || self->func == PL_NO_ID) {
		g_clear_pointer(&self->ann, pl_annotation_free);
		self->disasm_error = g_strdup("Select a function first");
		set_title_disasm(self);
		return;
	}
	GError *error = NULL;
	if (!self->ann)
		self->ann = pl_disasm_annotate(self->profile, self->agg, self->func, &error);
	if (!self->ann) {
		self->disasm_error = g_strdup(error ? error->message : "objdump failed");
		g_clear_error(&error);
		set_title_disasm(self);
		return;
	}
	set_title_disasm(self);
	const PlAnnotation *a = self->ann;
	guint64 all = a->all.weight ? a->all.weight : 1, max = 0;
	for (guint i = 0; i < a->lines->len; i++)
		max = MAX(max, a->self[i].weight);
	GtkTextIter it;
	gtk_text_buffer_get_end_iter(b, &it);
	int hot_offset = -1;
	for (guint i = 0; i < a->lines->len; i++) {
		const PlDisasmLine *d = &g_array_index(a->lines, PlDisasmLine, i);
		int line_start = gtk_text_iter_get_offset(&it);
		if (!d->is_insn) {
			/* objdump's own headers and source markers, set off from the code */
			char gut[32];
			g_snprintf(gut, sizeof gut, "%15s  ", "");
			gtk_text_buffer_insert_with_tags(b, &it, gut, -1, self->gutter, NULL);
			g_autofree char *src = g_strdup(marker_source(self, d->text));
			/* "/long/path/file.c:46 (discriminator 3)" → "file.c:46": the
			 * title names the file; the line is what matters here */
			g_autofree char *mark = g_strdup(d->text);
			char *slash = strrchr(mark, '/'), *disc = strstr(mark, " (discriminator");
			if (src && disc)
				*disc = 0;
			const char *shown = src && slash ? slash + 1 : mark;
			g_autofree char *text = src ? g_strdup_printf("%-14s │ %s", shown,
								      g_strstrip(src))
						    : g_strdup(d->text);
			gtk_text_buffer_insert_with_tags(b, &it, text, -1, self->marker, NULL);
			gtk_text_buffer_insert(b, &it, "\n", 1);
			continue;
		}
		char gut[64];
		if (a->self[i].weight || a->total[i].weight)
			g_snprintf(gut, sizeof gut, "%6.1f%% %6.1f%%  ",
				   100.0 * (double)a->self[i].weight / (double)all,
				   100.0 * (double)a->total[i].weight / (double)all);
		else
			g_snprintf(gut, sizeof gut, "%15s  ", "");
		/* grey figures would vanish on a hot background: plain there */
		if (a->self[i].weight)
			gtk_text_buffer_insert(b, &it, gut, -1);
		else
			gtk_text_buffer_insert_with_tags(b, &it, gut, -1, self->gutter, NULL);
		g_autofree char *code = g_strdup(d->text);
		g_strdelimit(code, "\t", ' ');
		gtk_text_buffer_insert(b, &it, code, -1);
		gtk_text_buffer_insert(b, &it, "\n", 1);
		if (a->self[i].weight && max) {
			guint lvl = (guint)((double)a->self[i].weight / (double)max * (HEAT_LEVELS - 1) +
					    0.5);
			GtkTextIter s0, e0;
			gtk_text_buffer_get_iter_at_offset(b, &s0, line_start);
			e0 = it;
			gtk_text_buffer_apply_tag(b, self->heat[MIN(lvl, HEAT_LEVELS - 1)], &s0, &e0);
		}
		if (i == a->hot) {
			GtkTextIter s0, e0;
			gtk_text_buffer_get_iter_at_offset(b, &s0, line_start);
			e0 = it;
			gtk_text_buffer_apply_tag(b, self->hot, &s0, &e0);
			hot_offset = line_start;
		}
	}
	if (hot_offset >= 0) {
		GtkTextIter s0, e0;
		gtk_text_buffer_get_iter_at_offset(b, &s0, hot_offset);
		e0 = s0;
		gtk_text_iter_forward_to_line_end(&e0);
		gtk_text_buffer_select_range(b, &s0, &e0);
		GtkTextMark *m = gtk_text_buffer_create_mark(b, NULL, &s0, TRUE);
		gtk_text_view_scroll_to_mark(self->text, m, 0.1, TRUE, 0, 0.35);
	}
}

static void render_disasm(PlSourceView *self)
{
	render_disasm_full(self, FALSE);
}

static void sync_toggles(PlSourceView *self)
{
	self->syncing = TRUE;
	gtk_toggle_button_set_active(self->src_btn, !self->disasm);
	gtk_toggle_button_set_active(self->asm_btn, self->disasm);
	self->syncing = FALSE;
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
		/* grey figures would vanish on a hot background: plain there */
		if (ls[i])
			gtk_text_buffer_insert(b, &it, gut, -1);
		else
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
	if (profile != self->profile)
		g_hash_table_remove_all(self->src_files);
	self->profile = profile;
	self->agg = agg;
	self->func = func;
	self->hot_line = 0;
	g_clear_pointer(&self->src_title, g_free);
	const char *name = profile ? pl_profile_get_function_label(profile, func) : "?";
	if (self->disasm) {
		render_disasm(self);
		if (!self->ann) {
			g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
					    self->disasm_error);
			return FALSE;
		}
		/* the source stays ready for the switch back (below) */
	}
	if (!profile || !pl_ui_function_source(profile, func, &file, &local, &first, &last)) {
		g_autofree char *msg = g_strdup_printf(
			"No source for %s: it needs line information (build with -g) and the "
			"source file here (add its directory under Settings → Source dirs); "
			"the Disassembly view may still show it",
			name);
		self->src_title = g_markup_escape_text(msg, -1);
		if (self->disasm)
			return TRUE;
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
	self->src_title = g_strdup_printf(
		"<b>%s</b>   %s:%u   <span alpha='70%%'>columns: self %%, total %%, line</span>", ename,
		efile, first);
	if (self->disasm)
		return TRUE;
	gtk_label_set_markup(self->title, self->src_title);
	render(self, agg);
	return TRUE;
}

void pl_source_view_set_data(PlSourceView *self, PlProfile *profile, PlAggregate *agg)
{
	self->agg = agg;
	if (profile != self->profile || !profile) {
		self->profile = profile;
		self->func = PL_NO_ID;
		g_clear_pointer(&self->lines, g_strfreev);
		g_clear_pointer(&self->file, g_free);
		g_clear_pointer(&self->src_title, g_free);
		g_clear_pointer(&self->ann, pl_annotation_free);
		g_hash_table_remove_all(self->src_files);
		gtk_label_set_text(self->title, "Select a function and choose “Source” (or press Enter "
						"in the function table)");
		gtk_text_buffer_set_text(gtk_text_view_get_buffer(self->text), "", 0);
		return;
	}
	if (self->disasm && self->func != PL_NO_ID)
		render_disasm_full(self, TRUE);
	else if (!self->disasm && self->lines)
		render(self, agg);
}

void pl_source_view_set_disassembly(PlSourceView *self, gboolean disassembly)
{
	disassembly = !!disassembly;
	if (disassembly == self->disasm) {
		sync_toggles(self);
		return;
	}
	self->disasm = disassembly;
	sync_toggles(self);
	if (self->func == PL_NO_ID || !self->profile)
		return;
	if (disassembly) {
		render_disasm(self);
		return;
	}
	if (self->src_title)
		gtk_label_set_markup(self->title, self->src_title);
	if (self->lines) {
		render(self, self->agg);
	} else {
		gtk_text_buffer_set_text(gtk_text_view_get_buffer(self->text), "", 0);
		self->hot_line = 0;
	}
}

gboolean pl_source_view_get_disassembly(PlSourceView *self)
{
	return self->disasm;
}

guint64 pl_source_view_get_hot_address(PlSourceView *self)
{
	if (!self->disasm || !self->ann || self->ann->hot == G_MAXUINT)
		return 0;
	return g_array_index(self->ann->lines, PlDisasmLine, self->ann->hot).addr;
}

const PlAnnotation *pl_source_view_get_annotation(PlSourceView *self)
{
	return self->disasm ? self->ann : NULL;
}

const char *pl_source_view_get_disassembly_error(PlSourceView *self)
{
	return self->disasm ? self->disasm_error : NULL;
}

static void on_toggle(GtkToggleButton *b, PlSourceView *self)
{
	if (self->syncing || !gtk_toggle_button_get_active(b))
		return;
	pl_source_view_set_disassembly(self, b == self->asm_btn);
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
		/* tags are new: the text must be laid out again with them */
		if (self->disasm && self->ann)
			render_disasm_full(self, TRUE);
		else if (!self->disasm && self->lines)
			render(self, self->agg);
	}
}

static void pl_source_view_dispose(GObject *obj)
{
	PlSourceView *self = PL_SOURCE_VIEW(obj);
	g_clear_pointer(&self->box, gtk_widget_unparent);
	g_clear_pointer(&self->lines, g_strfreev);
	g_clear_pointer(&self->file, g_free);
	g_clear_pointer(&self->local, g_free);
	g_clear_pointer(&self->src_title, g_free);
	g_clear_pointer(&self->disasm_error, g_free);
	g_clear_pointer(&self->ann, pl_annotation_free);
	g_clear_pointer(&self->src_files, g_hash_table_unref);
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
	self->func = PL_NO_ID;
	self->src_files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						(GDestroyNotify)g_strfreev);
	self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
	GtkWidget *head = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	gtk_widget_set_margin_start(head, 8);
	gtk_widget_set_margin_end(head, 8);
	gtk_widget_set_margin_top(head, 6);
	gtk_widget_set_margin_bottom(head, 2);
	GtkWidget *modes = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
	gtk_widget_add_css_class(modes, "linked");
	gtk_widget_set_valign(modes, GTK_ALIGN_START);
	self->src_btn = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label("Source"));
	self->asm_btn = GTK_TOGGLE_BUTTON(gtk_toggle_button_new_with_label("Disassembly"));
	gtk_toggle_button_set_group(self->asm_btn, self->src_btn);
	gtk_toggle_button_set_active(self->src_btn, TRUE);
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->asm_btn),
				    "Instructions of the function with samples per instruction "
				    "(objdump, or the toolchain prefix's objdump)");
	g_signal_connect(self->src_btn, "toggled", G_CALLBACK(on_toggle), self);
	g_signal_connect(self->asm_btn, "toggled", G_CALLBACK(on_toggle), self);
	gtk_box_append(GTK_BOX(modes), GTK_WIDGET(self->src_btn));
	gtk_box_append(GTK_BOX(modes), GTK_WIDGET(self->asm_btn));
	gtk_box_append(GTK_BOX(head), modes);
	GtkWidget *t = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(t), 0);
	gtk_label_set_wrap(GTK_LABEL(t), TRUE);
	gtk_widget_set_hexpand(t, TRUE);
	self->title = GTK_LABEL(t);
	gtk_box_append(GTK_BOX(head), t);
	gtk_box_append(GTK_BOX(self->box), head);
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
