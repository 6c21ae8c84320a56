/* pl-source-view.c — source with per-line heat (see the header). */
#include "pl-source-view.h"

#include <math.h>
#include <string.h>

#include "pl-ui-util.h"

#define HEAT_LEVELS 12

struct _PlSourceView {
	GtkWidget parent_instance;
	GtkWidget *box;
	GtkLabel *title;
	GtkTextView *text;
	GtkTextTag *heat[HEAT_LEVELS];
	GtkTextTag *gutter, *hot, *marker, *jump;
	GtkToggleButton *src_btn, *asm_btn;
	PlProfile *profile;
	PlAggregate *agg; /* borrowed: the window hands a new one to set_data() */
	guint32 func;
	gboolean auto_chosen; /* func is the hottest, shown before any choice */
	char *file, *local;
	char **lines;
	guint decl_line, hot_line;
	guint jump_line; /* the source line an instruction's click led to, 0: none */
	gboolean dark;
	/* scrolling once the text is laid out (see queue_scroll) */
	GtkTextMark *scroll_mark;
	gboolean scroll_pending;
	guint scroll_tick, scroll_tries, scroll_settled;
	double press_x, press_y;
	guint pending_click, click_idle;
	/* disassembly */
	gboolean disasm;
	PlAnnotation *ann;
	char *disasm_error;
	char *src_title; /* the source mode's title markup */
	GArray *marked;  /* guint: listing lines of the instructions of a clicked
			  * source line (shown with the jump tag) */
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
	/* the text's own background, over the heat's paragraph background:
	 * both stay visible */
	if (!self->jump)
		self->jump = gtk_text_buffer_create_tag(b, NULL, "background-rgba",
							&(GdkRGBA){ 0.20, 0.45, 0.95, 0.35 },
							"underline", PANGO_UNDERLINE_SINGLE, NULL);
}

/* ─── scrolling after layout ─────────────────────────────────────────── */

/* Whether buffer line iter is wholly inside the visible part. */
static gboolean iter_visible(PlSourceView *self, const GtkTextIter *it)
{
	GdkRectangle r;
	int y, h;
	gtk_text_view_get_visible_rect(self->text, &r);
	gtk_text_view_get_line_yrange(self->text, it, &y, &h);
	return r.height > 0 && y >= r.y && y + h <= r.y + r.height;
}

/* Called every frame while a scroll is pending: text inserted just now is
 * laid out over the next frames (line heights are estimates until then),
 * and a view that was hidden has no height at all, so scroll_to_mark at
 * insertion time lands short.  Scrolls again until the line is seen in
 * place for three frames in a row. */
static gboolean scroll_tick(GtkWidget *w, GdkFrameClock *clock, gpointer data)
{
	PlSourceView *self = data;
	if (!gtk_widget_get_mapped(w)) {
		self->scroll_tick = 0; /* map() starts it again */
		return G_SOURCE_REMOVE;
	}
	if (gtk_widget_get_height(w) <= 0) /* mapped, not allocated yet */
		return ++self->scroll_tries <= 120 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
	GtkTextIter it;
	gtk_text_buffer_get_iter_at_mark(gtk_text_view_get_buffer(self->text), &it,
					 self->scroll_mark);
	if (iter_visible(self, &it)) {
		if (++self->scroll_settled < 3)
			return G_SOURCE_CONTINUE;
	} else {
		self->scroll_settled = 0;
		if (++self->scroll_tries <= 120) {
			gtk_text_view_scroll_to_mark(self->text, self->scroll_mark, 0, TRUE, 0, 0.35);
			return G_SOURCE_CONTINUE;
		}
	}
	self->scroll_pending = FALSE;
	self->scroll_tick = 0;
	return G_SOURCE_REMOVE;
}

static void start_scroll_tick(PlSourceView *self)
{
	if (self->scroll_pending && !self->scroll_tick && gtk_widget_get_mapped(GTK_WIDGET(self->text)))
		self->scroll_tick = gtk_widget_add_tick_callback(GTK_WIDGET(self->text), scroll_tick,
								 self, NULL);
}

/* Scrolls buffer line `line` (0-based) into view, a third from the top,
 * once the text is laid out (now if it is). */
static void queue_scroll(PlSourceView *self, int line)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(self->text);
	GtkTextIter at;
	gtk_text_buffer_get_iter_at_line(b, &at, line);
	if (!self->scroll_mark)
		self->scroll_mark = gtk_text_buffer_create_mark(b, NULL, &at, TRUE);
	else
		gtk_text_buffer_move_mark(b, self->scroll_mark, &at);
	self->scroll_pending = TRUE;
	self->scroll_tries = 0;
	self->scroll_settled = 0;
	gtk_text_view_scroll_to_mark(self->text, self->scroll_mark, 0, TRUE, 0, 0.35);
	start_scroll_tick(self);
}

/* Selects buffer line `line` (0-based) and scrolls to it. */
static void select_line(PlSourceView *self, int line)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(self->text);
	GtkTextIter a, e;
	gtk_text_buffer_get_iter_at_line(b, &a, line);
	e = a;
	gtk_text_iter_forward_to_line_end(&e);
	gtk_text_buffer_select_range(b, &a, &e);
	queue_scroll(self, line);
}

static void tag_line(PlSourceView *self, GtkTextTag *tag, int line)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(self->text);
	GtkTextIter a, e;
	gtk_text_buffer_get_iter_at_line(b, &a, line);
	e = a;
	gtk_text_iter_forward_to_line_end(&e);
	gtk_text_buffer_apply_tag(b, tag, &a, &e);
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
	const char *name = self->profile ? pl_function_names_label(self->profile, self->func)
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
	if (!(reuse && self->ann && self->agg && pl_annotation_recount(self->ann, self->agg, self->func))) {
		g_clear_pointer(&self->ann, pl_annotation_free);
		g_array_set_size(self->marked, 0); /* they were lines of the old listing */
	}
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
	for (guint i = 0; i < self->marked->len; i++)
		tag_line(self, self->jump, (int)g_array_index(self->marked, guint, i));
	if (self->marked->len) {
		select_line(self, (int)g_array_index(self->marked, guint, 0));
	} else if (hot_offset >= 0) {
		GtkTextIter s0;
		gtk_text_buffer_get_iter_at_offset(b, &s0, hot_offset);
		select_line(self, gtk_text_iter_get_line(&s0));
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

/* The function's hottest line in the file shown (1..n): where most of
 * its own frame's samples are (its self weight, code inlined into it
 * counted at the call; without self weight, its total), from the lines
 * of its sampled addresses (pl_aggregate_addresses).  0 when none. */
static guint function_hot_line(PlSourceView *self, PlAggregate *agg, guint n)
{
	g_autoptr(GArray) rows = pl_aggregate_addresses(agg, self->func);
	g_autofree guint64 *fs = g_new0(guint64, n + 1);
	g_autofree guint64 *ft = g_new0(guint64, n + 1);
	for (guint i = 0; i < rows->len; i++) {
		const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
		if (!r->file || r->line == 0 || r->line > n || strcmp(r->file, self->file) != 0)
			continue;
		fs[r->line] += r->self.weight;
		ft[r->line] += r->total.weight;
	}
	guint hot = 0;
	for (guint i = 1; i <= n; i++)
		if (fs[i] > fs[hot] || (fs[i] == fs[hot] && ft[i] > ft[hot]))
			hot = i;
	return hot;
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
		for (guint i = 1; i <= n; i++)
			max = MAX(max, ls[i]);
		self->hot_line = function_hot_line(self, agg, n);
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
	if (self->jump_line && self->jump_line <= n)
		tag_line(self, self->jump, (int)self->jump_line - 1);
	guint target = self->jump_line && self->jump_line <= n ? self->jump_line
		       : self->hot_line			       ? self->hot_line
							       : self->decl_line;
	if (target && target <= n)
		select_line(self, (int)target - 1);
}

/* No source to show: the message says why and what to do. */
static gboolean no_source(PlSourceView *self, const char *msg, GError **error)
{
	self->src_title = g_markup_escape_text(msg, -1);
	if (self->disasm)
		return TRUE;
	gtk_label_set_text(self->title, msg);
	gtk_text_buffer_set_text(gtk_text_view_get_buffer(self->text), "", 0);
	g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, msg);
	return FALSE;
}

gboolean pl_source_view_show_function(PlSourceView *self, PlProfile *profile, PlAggregate *agg,
				      guint32 func, GError **error)
{
	const char *file;
	g_autofree char *local = NULL;
	guint decl_line = 0;
	g_clear_pointer(&self->lines, g_strfreev);
	g_clear_pointer(&self->file, g_free);
	g_clear_pointer(&self->local, g_free);
	if (profile != self->profile)
		g_hash_table_remove_all(self->src_files);
	if (profile != self->profile || func != self->func)
		g_clear_pointer(&self->ann, pl_annotation_free);
	self->profile = profile;
	self->agg = agg;
	self->func = func;
	self->hot_line = 0;
	self->jump_line = 0;
	g_array_set_size(self->marked, 0);
	g_clear_pointer(&self->src_title, g_free);
	const char *name = profile ? pl_function_names_label(profile, func) : "?";
	if (self->disasm) {
		render_disasm(self);
		if (!self->ann) {
			g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
					    self->disasm_error);
			return FALSE;
		}
		/* the source stays ready for the switch back (below) */
	}
	if (!profile || !pl_ui_function_source(profile, func, &file, &local, &decl_line)) {
		g_autofree char *msg = g_strdup_printf(
			"No source for %s: its DWARF does not say where it is defined (build "
			"with -g, or give its debug file: Settings → Debug dirs); the "
			"Disassembly view may still show it",
			name);
		return no_source(self, msg, error);
	}
	if (!local) {
		g_autofree char *msg = g_strdup_printf(
			"%s is defined in %s:%u, which is not here: add its directory under "
			"Settings → Source dirs (or a path map)",
			name, file, decl_line);
		return no_source(self, msg, error);
	}
	g_autofree char *text = NULL;
	gsize len;
	if (!g_file_get_contents(local, &text, &len, error))
		return FALSE;
	self->lines = g_strsplit(text, "\n", -1);
	self->file = g_strdup(file);
	self->local = g_strdup(local);
	self->decl_line = decl_line;
	g_autofree char *ename = g_markup_escape_text(name, -1);
	g_autofree char *efile = g_markup_escape_text(local, -1);
	self->src_title = g_strdup_printf(
		"%s<b>%s</b>   %s:%u   <span alpha='70%%'>columns: self %%, total %%, line · click "
		"a line for its instructions</span>",
		self->auto_chosen ? "Hottest: " : "", ename, efile, decl_line);
	if (self->disasm)
		return TRUE;
	gtk_label_set_markup(self->title, self->src_title);
	render(self, agg);
	return TRUE;
}

/* Nothing chosen yet: the hottest function (by self weight) whose source
 * is here, else the hottest (its message says what is missing). */
static void show_hottest(PlSourceView *self)
{
	if (self->func != PL_NO_ID || !self->profile || !self->agg || !self->agg->all.samples ||
	    !gtk_widget_get_mapped(GTK_WIDGET(self)))
		return;
	g_autoptr(GArray) rows = pl_aggregate_functions(self->agg, FALSE);
	guint32 pick = PL_NO_ID;
	for (guint i = 0; i < rows->len && pick == PL_NO_ID; i++) {
		const PlRow *r = &g_array_index(rows, PlRow, i);
		g_autofree char *local = NULL;
		if (!r->self.weight)
			break;
		if (pl_ui_function_source(self->profile, r->id, NULL, &local, NULL) && local)
			pick = r->id;
	}
	if (pick == PL_NO_ID && rows->len)
		pick = g_array_index(rows, PlRow, 0).id;
	if (pick == PL_NO_ID)
		return;
	self->auto_chosen = TRUE;
	pl_source_view_show_function(self, self->profile, self->agg, pick, NULL);
	self->auto_chosen = FALSE;
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
		self->jump_line = 0;
		g_array_set_size(self->marked, 0);
		gtk_label_set_text(self->title, "Select a function and choose “Source” (or press Enter "
						"in the function table)");
		gtk_text_buffer_set_text(gtk_text_view_get_buffer(self->text), "", 0);
		show_hottest(self);
		return;
	}
	if (self->func == PL_NO_ID)
		show_hottest(self); /* a live session's first samples came */
	else if (self->disasm)
		render_disasm_full(self, TRUE);
	else if (self->lines)
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

/* ─── source line ↔ its instructions ─────────────────────────────────── */

/* The source line listing line i (an instruction) is on: objdump -l's
 * last marker before it within its function.  0 when none. */
static guint insn_source(PlSourceView *self, guint i, char **file)
{
	*file = NULL;
	for (guint j = i + 1; j-- > 0;) {
		const PlDisasmLine *d = &g_array_index(self->ann->lines, PlDisasmLine, j);
		guint line;
		if (d->is_insn)
			continue;
		if (parse_marker(d->text, file, &line))
			return line;
		if (g_str_has_suffix(d->text, ">:"))
			break; /* the function's header: no marker in it */
	}
	return 0;
}

/* objdump names files as the DWARF does, the profile after path maps:
 * the same file when the names or their last components are equal. */
static gboolean same_file(const char *a, const char *b)
{
	if (!a || !b)
		return FALSE;
	if (!strcmp(a, b))
		return TRUE;
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	return !strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b);
}

/* Source line → the disassembly with the instructions of that line
 * marked, the first selected. */
static gboolean jump_to_instructions(PlSourceView *self, guint line)
{
	if (!self->lines || line == 0 || line > g_strv_length(self->lines))
		return FALSE;
	self->disasm = TRUE;
	sync_toggles(self);
	render_disasm_full(self, self->ann != NULL);
	if (!self->ann)
		return FALSE;
	g_array_set_size(self->marked, 0);
	for (guint i = 0; i < self->ann->lines->len; i++) {
		if (!g_array_index(self->ann->lines, PlDisasmLine, i).is_insn)
			continue;
		g_autofree char *f = NULL;
		if (insn_source(self, i, &f) == line && same_file(f, self->file))
			g_array_append_val(self->marked, i);
	}
	for (guint i = 0; i < self->marked->len; i++)
		tag_line(self, self->jump, (int)g_array_index(self->marked, guint, i));
	if (self->marked->len) {
		select_line(self, (int)g_array_index(self->marked, guint, 0));
		return TRUE;
	}
	g_autofree char *msg = g_strdup_printf(
		"\n<span foreground='#d35400'>Line %u has no instructions in this listing (optimized "
		"away, merged into another line, or in another function)</span>",
		line);
	g_autofree char *t = g_strconcat(gtk_label_get_label(self->title), msg, NULL);
	gtk_label_set_markup(self->title, t);
	return FALSE;
}

/* An instruction → the source with its line selected. */
static gboolean jump_to_source(PlSourceView *self, guint i)
{
	if (!self->ann || i >= self->ann->lines->len ||
	    !g_array_index(self->ann->lines, PlDisasmLine, i).is_insn)
		return FALSE;
	g_autofree char *f = NULL;
	guint line = insn_source(self, i, &f);
	if (!line)
		return FALSE;
	if (!self->lines || !same_file(f, self->file) || line > g_strv_length(self->lines)) {
		g_autofree char *ef = g_markup_escape_text(f, -1);
		g_autofree char *msg = g_strdup_printf(
			"\n<span foreground='#d35400'>That instruction is code of %s:%u (inlined "
			"here), not of this function's file</span>",
			ef, line);
		g_autofree char *t = g_strconcat(gtk_label_get_label(self->title), msg, NULL);
		gtk_label_set_markup(self->title, t);
		return FALSE;
	}
	self->jump_line = line;
	pl_source_view_set_disassembly(self, FALSE);
	return TRUE;
}

gboolean pl_source_view_activate_line(PlSourceView *self, guint line)
{
	if (!self->profile || self->func == PL_NO_ID)
		return FALSE;
	return self->disasm ? jump_to_source(self, line) : jump_to_instructions(self, line);
}

guint pl_source_view_get_selected_line(PlSourceView *self)
{
	GtkTextIter a, e;
	if (!gtk_text_buffer_get_selection_bounds(gtk_text_view_get_buffer(self->text), &a, &e))
		return 0;
	return (guint)gtk_text_iter_get_line(&a) + (self->disasm ? 0 : 1);
}

GArray *pl_source_view_dup_marked(PlSourceView *self)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(guint));
	if (self->disasm)
		g_array_append_vals(a, self->marked->data, self->marked->len);
	else if (self->jump_line)
		g_array_append_val(a, self->jump_line);
	return a;
}

gboolean pl_source_view_line_is_visible(PlSourceView *self, guint line)
{
	if (!self->disasm && line == 0)
		return FALSE;
	GtkTextIter it;
	gtk_text_buffer_get_iter_at_line(gtk_text_view_get_buffer(self->text), &it,
					 (int)line - (self->disasm ? 0 : 1));
	return iter_visible(self, &it);
}

gboolean pl_source_view_get_line_point(PlSourceView *self, guint line, double *x, double *y)
{
	if (!self->disasm && line == 0)
		return FALSE;
	GtkTextIter it;
	int ly, lh, wx, wy;
	gtk_text_buffer_get_iter_at_line(gtk_text_view_get_buffer(self->text), &it,
					 (int)line - (self->disasm ? 0 : 1));
	gtk_text_view_get_line_yrange(self->text, &it, &ly, &lh);
	gtk_text_view_buffer_to_window_coords(self->text, GTK_TEXT_WINDOW_WIDGET, 80, ly + lh / 2,
					      &wx, &wy);
	graphene_point_t p;
	if (!gtk_widget_compute_point(GTK_WIDGET(self->text), GTK_WIDGET(self),
				      &GRAPHENE_POINT_INIT((float)wx, (float)wy), &p))
		return FALSE;
	*x = p.x;
	*y = p.y;
	return TRUE;
}

gboolean pl_source_view_is_scrolling(PlSourceView *self)
{
	return self->scroll_pending;
}

guint32 pl_source_view_get_function(PlSourceView *self)
{
	return self->func;
}

static gboolean on_click_idle(gpointer data)
{
	PlSourceView *self = data;
	self->click_idle = 0;
	pl_source_view_activate_line(self, self->pending_click);
	return G_SOURCE_REMOVE;
}

/* A click (a press and release of the first button that did not move,
 * not a drag that selects text) on a line: its instructions, or its source
 * line.  Raw events: the text view's own gestures claim the presses (to
 * select), so a click gesture beside them would be cancelled. */
static gboolean on_event(GtkEventControllerLegacy *c, GdkEvent *ev, PlSourceView *self)
{
	GdkEventType t = gdk_event_get_event_type(ev);
	if ((t != GDK_BUTTON_PRESS && t != GDK_BUTTON_RELEASE) ||
	    gdk_button_event_get_button(ev) != GDK_BUTTON_PRIMARY)
		return FALSE;
	/* surface coordinates → the text view's */
	double ex, ey, sx, sy;
	if (!gdk_event_get_position(ev, &ex, &ey))
		return FALSE;
	GtkNative *native = gtk_widget_get_native(GTK_WIDGET(self->text));
	gtk_native_get_surface_transform(native, &sx, &sy);
	graphene_point_t p;
	if (!gtk_widget_compute_point(GTK_WIDGET(native), GTK_WIDGET(self->text),
				      &GRAPHENE_POINT_INIT((float)(ex - sx), (float)(ey - sy)), &p))
		return FALSE;
	if (t == GDK_BUTTON_PRESS) {
		self->press_x = p.x;
		self->press_y = p.y;
		return FALSE;
	}
	if (fabs(p.x - self->press_x) > 4 || fabs(p.y - self->press_y) > 4)
		return FALSE;
	int x = (int)p.x, y = (int)p.y;
	int bx, by;
	GtkTextIter it;
	gtk_text_view_window_to_buffer_coords(self->text, GTK_TEXT_WINDOW_WIDGET, (int)x, (int)y,
					      &bx, &by);
	/* past a line's end still means that line */
	gtk_text_view_get_iter_at_location(self->text, &it, bx, by);
	guint line = (guint)gtk_text_iter_get_line(&it);
	/* after the text view's own handling of the release (it moves the
	 * selection to the click) */
	self->pending_click = self->disasm ? line : line + 1;
	if (!self->click_idle)
		self->click_idle = g_idle_add(on_click_idle, self);
	return FALSE;
}

static void pl_source_view_map(GtkWidget *w)
{
	PlSourceView *self = PL_SOURCE_VIEW(w);
	GTK_WIDGET_CLASS(pl_source_view_parent_class)->map(w);
	show_hottest(self);
	start_scroll_tick(self);
}

static void on_text_map(GtkWidget *w, PlSourceView *self)
{
	start_scroll_tick(self);
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
	g_clear_handle_id(&self->click_idle, g_source_remove);
	/* before the text view goes with the box */
	if (self->scroll_tick)
		gtk_widget_remove_tick_callback(GTK_WIDGET(self->text), self->scroll_tick);
	self->scroll_tick = 0;
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_SOURCE_VIEW);
	g_clear_pointer(&self->lines, g_strfreev);
	g_clear_pointer(&self->file, g_free);
	g_clear_pointer(&self->local, g_free);
	g_clear_pointer(&self->src_title, g_free);
	g_clear_pointer(&self->disasm_error, g_free);
	g_clear_pointer(&self->ann, pl_annotation_free);
	g_clear_pointer(&self->src_files, g_hash_table_unref);
	g_clear_pointer(&self->marked, g_array_unref);
	G_OBJECT_CLASS(pl_source_view_parent_class)->dispose(obj);
}

static void pl_source_view_class_init(PlSourceViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_source_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	wc->css_changed = on_css_changed;
	wc->map = pl_source_view_map;
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-source-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlSourceView, name)
	CHILD(box);
	CHILD(src_btn);
	CHILD(asm_btn);
	CHILD(title);
	CHILD(text);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_toggle);
	gtk_widget_class_bind_template_callback(wc, on_text_map);
	gtk_widget_class_bind_template_callback(wc, on_event);
}

static void pl_source_view_init(PlSourceView *self)
{
	self->func = PL_NO_ID;
	self->marked = g_array_new(FALSE, FALSE, sizeof(guint));
	self->src_files = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
						(GDestroyNotify)g_strfreev);
	gtk_widget_init_template(GTK_WIDGET(self));
	make_tags(self);
	pl_source_view_set_data(self, NULL, NULL);
}

GtkWidget *pl_source_view_new(void)
{
	return g_object_new(PL_TYPE_SOURCE_VIEW, NULL);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlSourceView *self)
{
	pl_source_view_set_data(self, NULL, NULL);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlSourceView *self)
{
	pl_source_view_set_data(self, pl_profile_session_get_profile(s), pl_profile_session_get_aggregate(s));
}

void pl_source_view_set_session(PlSourceView *self, PlProfileSession *session)
{
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
