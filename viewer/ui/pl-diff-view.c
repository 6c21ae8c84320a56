/* pl-diff-view.c — two recordings compared (see the header).
 *
 * The numbers come from pl-diff.c (the same as `perflens diff`); this file
 * only draws them: a cairo-drawn table (rows are few and fixed once set,
 * so a list model would add nothing) and a differential flame graph laid
 * out by pl-flame-layout from the other recording's call tree, each frame
 * coloured by how the share of time under that call path changed.
 */
#include "pl-diff-view.h"

#include <math.h>
#include <string.h>

#include "pl-diff.h"
#include "pl-flame-draw.h"
#include "pl-function-names.h"

#define ROW_H 22.0
#define HEAD_H 26.0
#define FLAME_ROW_H 18.0
#define MAX_ROWS 500 /* beyond that the deltas are noise */
#define MAX_PATH_NODES 500000 /* path strings per node: bounded memory */

struct _PlDiffView {
	GtkWidget parent_instance;
	GtkWidget *box;
	GtkLabel *summary;
	GtkWidget *table;
	GtkWidget *flame;
	PlDiff *diff;
	/* differential flame graph over the other profile's call tree */
	PlFlameTree *tree;
	PlFlameLayout *layout;
	char **labels;    /* per node (borrowed from the other profile) */
	guint32 *colors;  /* per node */
	double *delta;    /* per node: share of time under it, other − base */
	guint8 *match;    /* per node: frame of the selected row's function */
	guint n_match;
	guint selected;   /* table row, G_MAXUINT: none */
	guint32 zoom;     /* flame node drawn full width */
	guint64 other_all;
};

G_DEFINE_FINAL_TYPE(PlDiffView, pl_diff_view, GTK_TYPE_WIDGET)

static void clear(PlDiffView *self)
{
	g_clear_pointer(&self->diff, pl_diff_free);
	g_clear_pointer(&self->layout, pl_flame_layout_free);
	g_clear_pointer(&self->tree, pl_flame_tree_unref);
	g_clear_pointer(&self->labels, g_free);
	g_clear_pointer(&self->colors, g_free);
	g_clear_pointer(&self->delta, g_free);
	g_clear_pointer(&self->match, g_free);
	self->n_match = 0;
	self->selected = G_MAXUINT;
	self->zoom = 0;
}

static gboolean is_dark(GtkWidget *w, GdkRGBA *fg)
{
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(w), fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	return fg->red + fg->green + fg->blue > 1.5;
}

/* Red: the other recording spends a larger share there (slower); blue:
 * smaller (faster).  Saturation by |delta| against the largest change. */
static void delta_rgb(double d, double max, double *r, double *g, double *b)
{
	double f = max > 0 ? sqrt(MIN(fabs(d) / max, 1.0)) : 0;
	if (d > 0) {
		*r = 1.0;
		*g = 0.93 - 0.62 * f;
		*b = 0.90 - 0.65 * f;
	} else if (d < 0) {
		*r = 0.90 - 0.68 * f;
		*g = 0.93 - 0.45 * f;
		*b = 1.0;
	} else {
		*r = *g = *b = 0.88;
	}
}

/* ─── the table ──────────────────────────────────────────────────────── */

static const struct {
	const char *title;
	double x;     /* column's right edge from the right of the name column */
} COLS[] = {
	{ "Base self", 90 }, { "Other self", 180 }, { "Δ self", 270 },
	{ "Base total", 370 }, { "Other total", 460 }, { "Δ total", 550 },
};
#define NUM_W 560.0

static void text_at(cairo_t *cr, PangoLayout *pl, const char *t, double x, double y,
		    double align, double max_w)
{
	pango_layout_set_width(pl, max_w > 0 ? (int)(max_w * PANGO_SCALE) : -1);
	pango_layout_set_ellipsize(pl, max_w > 0 ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE);
	pango_layout_set_text(pl, t, -1);
	int tw, th;
	pango_layout_get_pixel_size(pl, &tw, &th);
	cairo_move_to(cr, x - align * tw, y + (ROW_H - th) / 2);
	pango_cairo_show_layout(cr, pl);
}

static void draw_table(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
	PlDiffView *self = data;
	GdkRGBA fg;
	gboolean dark = is_dark(GTK_WIDGET(area), &fg);
	PangoLayout *pl = gtk_widget_create_pango_layout(GTK_WIDGET(area), NULL);
	guint n = pl_diff_view_get_n_rows(self);
	double name_w = MAX(w - NUM_W - 16, 160);
	/* header */
	cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.07);
	cairo_rectangle(cr, 0, 0, w, HEAD_H);
	cairo_fill(cr);
	cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.85);
	PangoFontDescription *bold = pango_font_description_from_string("Sans Bold 9");
	pango_layout_set_font_description(pl, bold);
	text_at(cr, pl, "Function (module)", 8, 2, 0, name_w - 16);
	for (guint c = 0; c < G_N_ELEMENTS(COLS); c++)
		text_at(cr, pl, COLS[c].title, name_w + COLS[c].x, 2, 1, 0);
	pango_layout_set_font_description(pl, NULL);
	pango_font_description_free(bold);
	double maxd = 0;
	for (guint i = 0; i < n; i++) {
		const PlDiffFunction *f = &g_array_index(self->diff->functions, PlDiffFunction, i);
		maxd = MAX(maxd, fabs(f->self_b - f->self_a));
		maxd = MAX(maxd, fabs(f->total_b - f->total_a));
	}
	for (guint i = 0; i < n; i++) {
		const PlDiffFunction *f = &g_array_index(self->diff->functions, PlDiffFunction, i);
		double y = HEAD_H + i * ROW_H;
		if (i == self->selected) {
			cairo_set_source_rgba(cr, 0.55, 0.35, 0.85, dark ? 0.45 : 0.25);
			cairo_rectangle(cr, 0, y, w, ROW_H);
			cairo_fill(cr);
		} else if (i % 2) {
			cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.03);
			cairo_rectangle(cr, 0, y, w, ROW_H);
			cairo_fill(cr);
		}
		char buf[64];
		double vals[6] = { f->self_a, f->self_b, f->self_b - f->self_a,
				   f->total_a, f->total_b, f->total_b - f->total_a };
		for (guint c = 0; c < 6; c++) {
			double right = name_w + COLS[c].x;
			gboolean is_delta = c == 2 || c == 5;
			if (is_delta && vals[c] != 0) {
				double r, g, b;
				delta_rgb(vals[c], maxd, &r, &g, &b);
				cairo_set_source_rgba(cr, r, g, b, dark ? 0.55 : 0.9);
				cairo_rectangle(cr, right - 82, y + 2, 86, ROW_H - 4);
				cairo_fill(cr);
			}
			if (is_delta)
				g_snprintf(buf, sizeof buf, "%+.2f pp", 100 * vals[c]);
			else
				g_snprintf(buf, sizeof buf, "%.2f%%", 100 * vals[c]);
			if (is_delta && dark && vals[c] != 0)
				cairo_set_source_rgba(cr, 1, 1, 1, 0.95);
			else if (is_delta && vals[c] != 0)
				cairo_set_source_rgba(cr, 0.08, 0.08, 0.08, 1);
			else
				cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.85);
			text_at(cr, pl, buf, right, y, 1, 0);
		}
		g_autofree char *name = g_strdup_printf("%s  (%s%s)%s", f->name,
							f->module && *f->module ? f->module : "?",
							f->inlined ? ", inlined" : "",
							f->self_a == 0 && f->total_a == 0   ? "  new"
							: f->self_b == 0 && f->total_b == 0 ? "  gone"
											    : "");
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.92);
		text_at(cr, pl, name, 8, y, 0, name_w - 16);
	}
	if (!n) {
		cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.6);
		text_at(cr, pl, self->diff ? "The two recordings have no samples to compare"
					   : "Open two recordings to compare them",
			8, HEAD_H + 4, 0, 0);
	}
	g_object_unref(pl);
}

/* ─── the differential flame graph ───────────────────────────────────── */

/* Call-path keys per node: the parent's key, a separator, the label.  Node
 * ids grow from their parent's (a node is interned after its parent), so
 * one pass in id order builds them.  NULL for nodes past the cap or
 * without samples. */
static char **node_paths(PlAggregate *agg)
{
	PlProfile *p = agg->profile;
	guint n = MIN(agg->n_nodes, MAX_PATH_NODES);
	char **paths = g_new0(char *, n);
	for (guint id = 1; id < n; id++) {
		if (!agg->total[id].samples)
			continue;
		const PlNode *nd = pl_profile_get_node(p, id);
		const char *label = pl_profile_get_function_label(p, nd->func);
		if (nd->parent == 0)
			paths[id] = g_strdup(label);
		else if (nd->parent < n && paths[nd->parent])
			paths[id] = g_strconcat(paths[nd->parent], "\x01", label, NULL);
	}
	return paths;
}

static void free_paths(char **paths, guint n)
{
	for (guint i = 0; i < n; i++)
		g_free(paths[i]);
	g_free(paths);
}

/* Weight per call path, summed over the nodes that share it (two
 * functions of one name, an inlined and a real copy, give one path). */
static GHashTable *path_sums(char **paths, guint n, PlAggregate *agg)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, g_free);
	for (guint i = 1; i < n; i++) {
		if (!paths[i])
			continue;
		guint64 *w = g_hash_table_lookup(h, paths[i]);
		if (!w) {
			w = g_new0(guint64, 1);
			g_hash_table_insert(h, paths[i], w);
		}
		*w += agg->total[i].weight;
	}
	return h;
}

static void build_flame(PlDiffView *self, PlAggregate *a, PlAggregate *b)
{
	PlProfile *pb = b->profile;
	guint na = MIN(a->n_nodes, MAX_PATH_NODES), nb = MIN(b->n_nodes, MAX_PATH_NODES);
	char **pa = node_paths(a), **pbp = node_paths(b);
	GHashTable *base = path_sums(pa, na, a), *mine = path_sums(pbp, nb, b);
	PlFlameTree *t = pl_flame_tree_new(nb);
	self->labels = g_new0(char *, nb);
	self->colors = g_new0(guint32, nb);
	self->delta = g_new0(double, nb);
	double all_a = a->all.weight ? (double)a->all.weight : 1;
	double all_b = b->all.weight ? (double)b->all.weight : 1;
	double maxd = 0;
	for (guint i = 0; i < nb; i++) {
		const PlNode *nd = pl_profile_get_node(pb, i);
		t->total[i] = b->total[i].weight;
		t->self[i] = b->self[i].weight;
		if (i > 0) {
			t->parent[i] = nd->parent < nb ? nd->parent : G_MAXUINT32;
			self->labels[i] = (char *)pl_function_names_label(pb, nd->func);
		}
		t->first_child[i] = nd->first_child < nb ? nd->first_child : G_MAXUINT32;
		t->next_sibling[i] = nd->next_sibling < nb ? nd->next_sibling : G_MAXUINT32;
		if (i > 0 && pbp[i]) {
			const guint64 *wa = g_hash_table_lookup(base, pbp[i]);
			const guint64 *wb = g_hash_table_lookup(mine, pbp[i]);
			self->delta[i] = (double)*wb / all_b - (wa ? (double)*wa / all_a : 0);
			maxd = MAX(maxd, fabs(self->delta[i]));
		}
	}
	t->total[0] = b->all.weight;
	for (guint i = 0; i < nb; i++) {
		double r, g, bl;
		delta_rgb(self->delta[i], maxd, &r, &g, &bl);
		self->colors[i] = ((guint32)(r * 255) << 16) | ((guint32)(g * 255) << 8) |
				  (guint32)(bl * 255);
	}
	self->colors[0] = 0xd8d8d8;
	self->labels[0] = (char *)"all";
	/* the tables borrow the path strings: free them first */
	g_hash_table_unref(base);
	g_hash_table_unref(mine);
	free_paths(pa, na);
	free_paths(pbp, nb);
	self->tree = t;
	self->match = g_new0(guint8, nb);
	self->layout = pl_flame_layout_compute(t, 0, 0.0005);
	self->other_all = b->all.weight;
	gtk_widget_set_size_request(self->flame, -1,
				    (int)pl_flame_layout_height(self->layout, FLAME_ROW_H) + 4);
}

static PlFlameStyle flame_style(PlDiffView *self)
{
	return (PlFlameStyle){
		.labels = (const char *const *)self->labels,
		.colors = self->colors,
		.match = self->n_match ? self->match : NULL,
		.row_h = FLAME_ROW_H,
		.text_rgb = 0x101010,
		.font = "Sans 9",
	};
}

static void draw_flame(GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer data)
{
	PlDiffView *self = data;
	if (!self->layout)
		return;
	PlFlameStyle st = flame_style(self);
	pl_flame_draw(cr, self->layout, &st, w, h);
}

static gboolean on_flame_tooltip(GtkWidget *w, int x, int y, gboolean kb, GtkTooltip *tip,
				 PlDiffView *self)
{
	if (!self->layout)
		return FALSE;
	PlFlameStyle st = flame_style(self);
	double h = gtk_widget_get_height(w);
	for (guint d = 0; d < self->layout->n_rows; d++) {
		double ry = pl_flame_row_y(self->layout, &st, d, h);
		if (y < ry || y >= ry + FLAME_ROW_H)
			continue;
		gint r = pl_flame_layout_hit(self->layout, d, (double)x / gtk_widget_get_width(w));
		if (r < 0)
			return FALSE;
		guint32 node = self->layout->rects[r].node;
		double share = self->other_all ? (double)self->tree->total[node] / self->other_all : 0;
		g_autofree char *name = g_markup_escape_text(self->labels[node] ? self->labels[node] : "?", -1);
		g_autofree char *m = g_strdup_printf(
			"<b>%s</b>\nother: %.2f%% of its samples under this call path\n"
			"change: %+.2f pp (%s)",
			name, 100 * share, 100 * self->delta[node],
			self->delta[node] > 0 ? "more time: slower" : self->delta[node] < 0 ? "less time: faster" : "same");
		gtk_tooltip_set_markup(tip, m);
		return TRUE;
	}
	return FALSE;
}

/* ─── selection and zoom ─────────────────────────────────────────────── */

static void set_zoom(PlDiffView *self, guint32 node)
{
	if (!self->tree || node >= self->tree->n)
		return;
	self->zoom = node;
	g_clear_pointer(&self->layout, pl_flame_layout_free);
	self->layout = pl_flame_layout_compute(self->tree, node, 0.0005);
	gtk_widget_set_size_request(self->flame, -1,
				    (int)pl_flame_layout_height(self->layout, FLAME_ROW_H) + 4);
	gtk_widget_queue_draw(self->flame);
}

void pl_diff_view_select_row(PlDiffView *self, guint row)
{
	self->n_match = 0;
	self->selected = row < pl_diff_view_get_n_rows(self) ? row : G_MAXUINT;
	if (self->tree) {
		memset(self->match, 0, self->tree->n);
		const char *name = pl_diff_view_get_row_label(self, row);
		for (guint i = 1; name && i < self->tree->n; i++)
			if (self->tree->total[i] && self->labels[i] && !strcmp(self->labels[i], name)) {
				self->match[i] = 1;
				self->n_match++;
			}
	}
	gtk_widget_queue_draw(self->table);
	gtk_widget_queue_draw(self->flame);
}

guint pl_diff_view_get_selected_row(PlDiffView *self)
{
	return self->selected;
}

guint pl_diff_view_get_n_highlighted(PlDiffView *self)
{
	return self->n_match;
}

static void on_table_click(GtkGestureClick *g, int n, double x, double y, PlDiffView *self)
{
	if (y < HEAD_H)
		return;
	guint row = (guint)((y - HEAD_H) / ROW_H);
	/* a second click on the selected row clears the highlight */
	pl_diff_view_select_row(self, row == self->selected ? G_MAXUINT : row);
}

static void on_flame_click(GtkGestureClick *g, int n, double x, double y, PlDiffView *self)
{
	if (!self->layout)
		return;
	GtkWidget *w = self->flame;
	PlFlameStyle st = flame_style(self);
	double h = gtk_widget_get_height(w);
	for (guint d = 0; d < self->layout->n_rows; d++) {
		double ry = pl_flame_row_y(self->layout, &st, d, h);
		if (y < ry || y >= ry + FLAME_ROW_H)
			continue;
		gint r = pl_flame_layout_hit(self->layout, d, x / gtk_widget_get_width(w));
		if (r < 0)
			return;
		guint32 node = self->layout->rects[r].node;
		/* the zoomed frame or its ancestors (drawn full width) zoom out */
		set_zoom(self, node == self->zoom ? self->tree->parent[node] == G_MAXUINT32
							    ? 0
							    : self->tree->parent[node]
						  : node);
		return;
	}
}

/* ─── API ────────────────────────────────────────────────────────────── */

static char *describe(PlProfile *p, PlAggregate *agg)
{
	const PlProfileStats *st = pl_profile_get_stats(p);
	return g_strdup_printf("%s%s%s, %" G_GUINT64_FORMAT " samples",
			       st->command ? st->command : st->hostname ? st->hostname : "recording",
			       st->hostname && st->command ? " on " : "",
			       st->hostname && st->command ? st->hostname : "", agg->all.samples);
}

void pl_diff_view_set_profiles(PlDiffView *self, PlProfile *base, PlProfile *other,
			       const PlStackFilter *sf)
{
	clear(self);
	if (!base || !other) {
		gtk_label_set_text(self->summary, "Open two recordings to compare them");
		gtk_widget_set_size_request(self->table, -1, (int)(HEAD_H + ROW_H));
		gtk_widget_set_size_request(self->flame, -1, -1);
		gtk_widget_queue_draw(self->table);
		gtk_widget_queue_draw(self->flame);
		return;
	}
	PlFilter fa = PL_FILTER_ALL, fb = PL_FILTER_ALL;
	fa.event = pl_profile_get_main_event(base);
	fb.event = pl_profile_get_main_event(other);
	g_autoptr(PlAggregate) a = pl_profile_aggregate_filtered(base, &fa, sf);
	g_autoptr(PlAggregate) b = pl_profile_aggregate_filtered(other, &fb, sf);
	self->diff = pl_diff_new(a, b);
	build_flame(self, a, b);
	g_autofree char *da = describe(base, a), *db = describe(other, b);
	g_autofree char *ea = g_markup_escape_text(da, -1), *eb = g_markup_escape_text(db, -1);
	g_autofree char *s = g_strdup_printf(
		"<b>Base</b> %s   <b>Other</b> %s\n"
		"<span alpha='75%%'>Shares of each recording's own total; Δ = other − base in "
		"percentage points, sorted by |Δ self|.  "
		"<span background='#f4a08a' foreground='#202020'> red </span> more time in "
		"other (slower), <span background='#8ab4f4' foreground='#202020'> blue </span> "
		"less (faster).  The flame graph is the other recording, coloured the same way.%s</span>",
		ea, eb,
		sf && !pl_stack_filter_is_empty(sf)
			? "  Both recordings are shaped by the transforms above the views." : "");
	gtk_label_set_markup(self->summary, s);
	gtk_widget_set_size_request(self->table, -1,
				    (int)(HEAD_H + MAX(pl_diff_view_get_n_rows(self), 1) * ROW_H + 4));
	gtk_widget_queue_draw(self->table);
	gtk_widget_queue_draw(self->flame);
}

guint pl_diff_view_get_n_rows(PlDiffView *self)
{
	return self->diff ? MIN(self->diff->functions->len, MAX_ROWS) : 0;
}

const char *pl_diff_view_get_row_label(PlDiffView *self, guint row)
{
	if (row >= pl_diff_view_get_n_rows(self))
		return NULL;
	return g_array_index(self->diff->functions, PlDiffFunction, row).name;
}

double pl_diff_view_get_row_delta(PlDiffView *self, guint row)
{
	if (row >= pl_diff_view_get_n_rows(self))
		return 0;
	const PlDiffFunction *f = &g_array_index(self->diff->functions, PlDiffFunction, row);
	return 100.0 * (f->self_b - f->self_a);
}

GtkWidget *pl_diff_view_new(void)
{
	return g_object_new(PL_TYPE_DIFF_VIEW, NULL);
}

static void pl_diff_view_dispose(GObject *obj)
{
	PlDiffView *self = PL_DIFF_VIEW(obj);
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_DIFF_VIEW);
	clear(self);
	G_OBJECT_CLASS(pl_diff_view_parent_class)->dispose(obj);
}

static void pl_diff_view_class_init(PlDiffViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_diff_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-diff-view.ui");
	gtk_widget_class_bind_template_child(wc, PlDiffView, box);
	gtk_widget_class_bind_template_child(wc, PlDiffView, summary);
	gtk_widget_class_bind_template_child(wc, PlDiffView, table);
	gtk_widget_class_bind_template_child(wc, PlDiffView, flame);
	gtk_widget_class_bind_template_callback(wc, on_table_click);
	gtk_widget_class_bind_template_callback(wc, on_flame_click);
	gtk_widget_class_bind_template_callback(wc, on_flame_tooltip);
}

static void pl_diff_view_init(PlDiffView *self)
{
	self->selected = G_MAXUINT;
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->table), draw_table, self, NULL);
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->flame), draw_flame, self, NULL);
	pl_diff_view_set_profiles(self, NULL, NULL, NULL);
}
