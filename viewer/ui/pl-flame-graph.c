/* pl-flame-graph.c — the flame graph widget (see the header). */
#include "pl-flame-graph.h"

#include <cairo-svg.h>

#include "pl-flame-draw.h"
#include "pl-inverted.h"
#include "pl-ui-timing.h"
#include "pl-ui-util.h"

#define ROW_H 18.0
#define NONE G_MAXUINT32
/* The graph is drawn in bands this tall, only those in view: a deep
 * graph is thousands of pixels tall, and a software renderer pays for
 * every pixel of a node it uploads.  Bands just scrolled out are kept. */
#define TILE_H 256
#define TILES_KEPT 2 /* bands beyond the view kept drawn, each way */

struct _PlFlameGraph {
	GtkWidget parent_instance;

	PlProfile *profile; /* borrowed */
	PlFlameTree *tree;
	guint32 *func;       /* per node */
	const char **labels; /* per node, owned by the profile */
	guint32 *colors;
	guint8 *match;       /* NULL: no search */
	double match_share;
	GRegex *search;

	PlFlameLayout *layout;
	guint32 zoom;
	gboolean icicle;
	gboolean inverted;   /* the bottom-up tree (pl-inverted.h): nodes are its own */
	PlAggregate *agg;    /* borrowed: the last set_data's, for set_inverted */
	guint generation;    /* of the data + zoom the latest layout task was asked for */
	gboolean ready;
	GCancellable *cancel;

	GPtrArray *tiles; /* GskRenderNode* per TILE_H band for cache_w × cache_h, NULL: not drawn */
	int cache_w, cache_h;
	gboolean cache_dark;
	GtkAdjustment *vadj; /* the scrolled window's (weak): scrolling shows other bands */
	gint hover; /* rect index or -1 */
	/* a new layout of another height, or the icicle turned: show the
	 * roots (the bottom of a flame graph, the top of an icicle) once the
	 * scrolled window knows the new height; a deep stack must not hide
	 * "all", main and the thread starts below the pane */
	gboolean scroll_to_root;
	double last_height;
};

G_DEFINE_FINAL_TYPE(PlFlameGraph, pl_flame_graph, GTK_TYPE_WIDGET)

enum { SIG_ZOOM_CHANGED, SIG_SEARCH_CHANGED, SIG_FRAME_MENU, N_SIGNALS };
static guint signals[N_SIGNALS];

static void invalidate(PlFlameGraph *self)
{
	if (self->tiles)
		g_ptr_array_set_size(self->tiles, 0);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* ─── layout in a worker ─────────────────────────────────────────────── */

typedef struct {
	PlFlameTree *tree;
	guint32 zoom;
	guint generation;
} LayoutJob;

static void layout_job_free(gpointer p)
{
	LayoutJob *j = p;
	pl_flame_tree_unref(j->tree);
	g_free(j);
}

static void layout_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
	LayoutJob *j = data;
	/* 1e-5 of the width: every frame a person could point at, at any
	 * window size, without laying out dust */
	PlFlameLayout *l = pl_flame_layout_compute(j->tree, j->zoom, 1e-5);
	g_task_return_pointer(task, l, (GDestroyNotify)pl_flame_layout_free);
}

static void layout_done(GObject *source, GAsyncResult *res, gpointer data)
{
	GTask *task = G_TASK(res);
	LayoutJob *j = g_task_get_task_data(task);
	PlFlameLayout *l = g_task_propagate_pointer(task, NULL);
	if (!l)
		return; /* cancelled: the widget may be gone */
	PlFlameGraph *self = PL_FLAME_GRAPH(source);
	if (j->generation != self->generation) {
		pl_flame_layout_free(l);
		return;
	}
	double height = pl_flame_layout_height(l, ROW_H);
	if (height != self->last_height)
		self->scroll_to_root = TRUE;
	self->last_height = height;
	pl_flame_layout_free(self->layout);
	self->layout = l;
	self->ready = TRUE;
	self->hover = -1;
	gtk_widget_queue_resize(GTK_WIDGET(self));
	invalidate(self);
	pl_ui_timing_ready();
	g_signal_emit(self, signals[SIG_ZOOM_CHANGED], 0);
}

static void relayout(PlFlameGraph *self)
{
	self->generation++;
	self->ready = FALSE;
	if (!self->tree) {
		g_clear_pointer(&self->layout, pl_flame_layout_free);
		self->ready = TRUE;
		invalidate(self);
		g_signal_emit(self, signals[SIG_ZOOM_CHANGED], 0);
		return;
	}
	if (self->cancel)
		g_cancellable_cancel(self->cancel);
	g_clear_object(&self->cancel);
	self->cancel = g_cancellable_new();
	LayoutJob *j = g_new0(LayoutJob, 1);
	j->tree = pl_flame_tree_ref(self->tree);
	j->zoom = self->zoom;
	j->generation = self->generation;
	GTask *task = g_task_new(self, self->cancel, layout_done, NULL);
	g_task_set_return_on_cancel(task, TRUE);
	g_task_set_task_data(task, j, layout_job_free);
	g_task_run_in_thread(task, layout_thread);
	g_object_unref(task);
}

/* ─── data ───────────────────────────────────────────────────────────── */

static void compute_matches(PlFlameGraph *self)
{
	g_clear_pointer(&self->match, g_free);
	self->match_share = -1;
	if (!self->search || !self->tree)
		return;
	guint n = self->tree->n;
	guint nf = self->profile ? pl_profile_get_n_functions(self->profile) : 0;
	/* regex once per function, not per node */
	g_autofree guint8 *fm = g_new0(guint8, nf + 1);
	for (guint f = 0; f < nf; f++)
		fm[f] = g_regex_match(self->search, pl_function_names_label(self->profile, f),
				      0, NULL);
	self->match = g_new0(guint8, n);
	for (guint i = 1; i < n; i++)
		self->match[i] = self->func[i] < nf && fm[self->func[i]];
	/* share: weight under a match with no matching ancestor, within the
	 * zoomed subtree.  Nodes are interned parent-first (parent id < child
	 * id), so one forward pass propagates "under a match". */
	g_autofree guint8 *under = g_new0(guint8, n);
	guint64 covered = 0;
	for (guint i = 1; i < n; i++) {
		guint32 p = self->tree->parent[i];
		gboolean anc = p != NONE && p < n && under[p];
		under[i] = anc || self->match[i];
		if (self->match[i] && !anc)
			covered += self->tree->total[i];
	}
	/* restrict to the zoomed subtree when zoomed */
	if (self->zoom) {
		covered = 0;
		for (guint i = 1; i < n; i++) {
			if (!self->match[i])
				continue;
			gboolean in_zoom = FALSE, anc_match = FALSE;
			for (guint32 a = i; a != NONE && a < n; a = self->tree->parent[a]) {
				if (a != i && self->match[a])
					anc_match = TRUE;
				if (a == self->zoom) {
					in_zoom = TRUE;
					break;
				}
			}
			if (in_zoom && !anc_match)
				covered += self->tree->total[i];
		}
	}
	guint64 base = self->tree->total[self->zoom < n ? self->zoom : 0];
	self->match_share = base ? (double)covered / (double)base : 0;
	if (self->match_share > 1)
		self->match_share = 1;
}

/* The bottom-up tree of agg as a flame tree: its nodes are the inverted
 * tree's, parents before children (interned so), self = what no caller
 * further up explains. */
static PlFlameTree *inverted_tree(PlFlameGraph *self, PlProfile *profile, PlAggregate *agg,
				  const guint32 *fcolor, guint nf)
{
	g_autoptr(PlInverted) inv = pl_inverted_new(agg);
	guint n = pl_inverted_get_n_nodes(inv);
	PlFlameTree *t = pl_flame_tree_new(n);
	self->func = g_new(guint32, n ? n : 1);
	self->labels = g_new0(const char *, n ? n : 1);
	self->colors = g_new(guint32, n ? n : 1);
	for (guint i = 0; i < n; i++) {
		const PlInvertedNode *nd = pl_inverted_get_node(inv, i);
		t->total[i] = nd->count.weight;
		t->self[i] = nd->count.weight;
		t->parent[i] = i == 0 ? NONE : nd->parent;
		self->func[i] = nd->func;
		self->labels[i] = i == 0 ? "all (inverted: callers above)"
					 : nd->func < nf ? pl_function_names_label(profile, nd->func)
							 : "?";
		self->colors[i] = i == 0 ? 0xd8d0c8 : nd->func < nf ? fcolor[nd->func] : 0xb8b0a8;
	}
	for (guint i = n; i-- > 1;) {
		guint32 p = t->parent[i];
		t->next_sibling[i] = t->first_child[p];
		t->first_child[p] = i;
		t->self[p] -= MIN(t->self[p], t->total[i]);
	}
	return t;
}

static PlFlameTree *plain_tree(PlFlameGraph *self, PlProfile *profile, PlAggregate *agg,
			       const guint32 *fcolor, guint nf)
{
	guint n = MIN(agg->n_nodes, pl_profile_get_n_nodes(profile));
	PlFlameTree *t = pl_flame_tree_new(n);
	self->func = g_new(guint32, n ? n : 1);
	self->labels = g_new0(const char *, n ? n : 1);
	self->colors = g_new(guint32, n ? n : 1);
	/* children are linked in the order the profile keeps them; only
	 * nodes of this aggregate's size (a live profile may have grown) */
	for (guint i = 0; i < n; i++) {
		const PlNode *nd = pl_profile_get_node(profile, i);
		t->parent[i] = i == 0 ? NONE : nd->parent;
		t->first_child[i] = nd->first_child < n ? nd->first_child : NONE;
		t->next_sibling[i] = nd->next_sibling < n ? nd->next_sibling : NONE;
		t->total[i] = agg->total[i].weight;
		t->self[i] = agg->self[i].weight;
		self->func[i] = nd->func;
		if (i == 0) {
			self->labels[i] = "all";
			self->colors[i] = 0xd8d0c8;
		} else {
			self->labels[i] = nd->func < nf ? pl_function_names_label(profile, nd->func)
							: "?";
			self->colors[i] = nd->func < nf ? fcolor[nd->func] : 0xb8b0a8;
		}
	}
	/* the root's total is the aggregate's, even if a filter left nodes out */
	if (n)
		t->total[0] = agg->all.weight;
	return t;
}

void pl_flame_graph_set_data(PlFlameGraph *self, PlProfile *profile, PlAggregate *agg)
{
	g_clear_pointer(&self->tree, pl_flame_tree_unref);
	g_clear_pointer(&self->func, g_free);
	g_clear_pointer(&self->labels, g_free);
	g_clear_pointer(&self->colors, g_free);
	gboolean same_profile = profile == self->profile;
	self->profile = profile;
	self->agg = profile ? agg : NULL;
	if (!profile || !agg) {
		self->zoom = 0;
		compute_matches(self);
		relayout(self);
		return;
	}
	guint nf = pl_profile_get_n_functions(profile);
	g_autofree guint32 *fcolor = g_new(guint32, nf + 1);
	for (guint f = 0; f < nf; f++) {
		const PlFunction *fn = pl_profile_get_function(profile, f);
		fcolor[f] = pl_flame_color_for(fn->name, fn->module);
	}
	self->tree = self->inverted ? inverted_tree(self, profile, agg, fcolor, nf)
				    : plain_tree(self, profile, agg, fcolor, nf);
	if (!same_profile || self->zoom >= self->tree->n)
		self->zoom = 0;
	compute_matches(self);
	relayout(self);
}

void pl_flame_graph_set_inverted(PlFlameGraph *self, gboolean inverted)
{
	if (self->inverted == inverted)
		return;
	self->inverted = inverted;
	self->zoom = 0; /* node ids change meaning */
	pl_flame_graph_set_data(self, self->profile, self->agg);
}

gboolean pl_flame_graph_get_inverted(PlFlameGraph *self)
{
	return self->inverted;
}

guint32 pl_flame_graph_get_node_func(PlFlameGraph *self, guint32 node)
{
	return self->tree && node > 0 && node < self->tree->n ? self->func[node] : PL_NO_ID;
}

/* ─── geometry and drawing ───────────────────────────────────────────── */

static void fill_style(PlFlameGraph *self, PlFlameStyle *s)
{
	*s = (PlFlameStyle){
		.labels = self->labels,
		.colors = self->colors,
		.match = self->match,
		.row_h = ROW_H,
		.icicle = self->icicle,
		.text_rgb = 0x101010,
		.font = "Sans 9",
	};
}

static double draw_height(PlFlameGraph *self, double widget_h)
{
	double need = self->layout ? pl_flame_layout_height(self->layout, ROW_H) : ROW_H;
	return MAX(need, widget_h);
}

static void on_scrolled(GtkAdjustment *adj, PlFlameGraph *self)
{
	gtk_widget_queue_draw(GTK_WIDGET(self)); /* other bands may come into view */
}

/* The rows [*y0, *y1) of the widget its scrolled window shows (all of it
 * outside one).  The first call follows the scrolled window's scrolling. */
static void visible_span(PlFlameGraph *self, int h, double *y0, double *y1)
{
	*y0 = 0;
	*y1 = h;
	GtkWidget *sw = gtk_widget_get_ancestor(GTK_WIDGET(self), GTK_TYPE_SCROLLED_WINDOW);
	if (!sw)
		return;
	if (!self->vadj) {
		self->vadj = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(sw));
		g_object_add_weak_pointer(G_OBJECT(self->vadj), (gpointer *)&self->vadj);
		g_signal_connect_object(self->vadj, "value-changed", G_CALLBACK(on_scrolled), self, 0);
		g_signal_connect_object(self->vadj, "changed", G_CALLBACK(on_scrolled), self, 0);
	}
	graphene_point_t pt;
	if (!gtk_widget_compute_point(GTK_WIDGET(self), sw, &GRAPHENE_POINT_INIT(0, 0), &pt))
		return;
	double top = -pt.y;
	*y0 = CLAMP(top, 0, h);
	*y1 = CLAMP(top + gtk_widget_get_height(sw), *y0, h);
}

static GskRenderNode *draw_tile(PlFlameGraph *self, int w, int h, guint tile)
{
	double ty = (double)tile * TILE_H, th = MIN(TILE_H, h - ty);
	GtkSnapshot *s = gtk_snapshot_new();
	cairo_t *cr = gtk_snapshot_append_cairo(s, &GRAPHENE_RECT_INIT(0, ty, w, th));
	PlFlameStyle st;
	fill_style(self, &st);
	pl_flame_draw(cr, self->layout, &st, w, draw_height(self, h));
	cairo_destroy(cr);
	return gtk_snapshot_free_to_node(s);
}

static void pl_flame_graph_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	PlFlameGraph *self = PL_FLAME_GRAPH(widget);
	int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
	pl_ui_timing_drew("flame-graph");
	if (!self->layout || w <= 0 || h <= 0)
		return;
	gboolean dark = pl_ui_is_dark(widget);
	if (self->cache_w != w || self->cache_h != h || self->cache_dark != dark) {
		g_ptr_array_set_size(self->tiles, 0);
		self->cache_w = w;
		self->cache_h = h;
		self->cache_dark = dark;
	}
	guint n_tiles = (guint)((h + TILE_H - 1) / TILE_H);
	if (self->tiles->len != n_tiles)
		g_ptr_array_set_size(self->tiles, n_tiles);
	double y0, y1;
	visible_span(self, h, &y0, &y1);
	guint first = (guint)(y0 / TILE_H), last = y1 > y0 ? (guint)((y1 - 1) / TILE_H) : first;
	last = MIN(last, n_tiles - 1);
	for (guint t = 0; t < n_tiles; t++) {
		GskRenderNode **slot = (GskRenderNode **)&self->tiles->pdata[t];
		if (t + TILES_KEPT < first || t > last + TILES_KEPT) {
			g_clear_pointer(slot, gsk_render_node_unref); /* far out of view */
			continue;
		}
		if (t < first || t > last)
			continue;
		if (!*slot)
			*slot = draw_tile(self, w, h, t);
		if (*slot)
			gtk_snapshot_append_node(snapshot, *slot);
	}
	if (self->hover >= 0 && (guint)self->hover < self->layout->n_rects) {
		const PlFlameRect *r = &self->layout->rects[self->hover];
		PlFlameStyle st;
		fill_style(self, &st);
		double y = pl_flame_row_y(self->layout, &st, r->depth, draw_height(self, h));
		GskRoundedRect rr;
		gsk_rounded_rect_init_from_rect(
			&rr, &GRAPHENE_RECT_INIT(r->x * w, y, MAX(r->w * w - 0.5, 2), ROW_H - 1), 0);
		GdkRGBA c = dark ? (GdkRGBA){ 1, 1, 1, 1 } : (GdkRGBA){ 0, 0, 0, 1 };
		gtk_snapshot_append_border(snapshot, &rr, (float[]){ 1.5, 1.5, 1.5, 1.5 },
					   (GdkRGBA[]){ c, c, c, c });
	}
}

static void pl_flame_graph_measure(GtkWidget *widget, GtkOrientation o, int for_size, int *min,
				   int *nat, int *min_base, int *nat_base)
{
	PlFlameGraph *self = PL_FLAME_GRAPH(widget);
	if (o == GTK_ORIENTATION_HORIZONTAL) {
		*min = 200;
		*nat = 800;
	} else {
		int need = (int)(self->layout ? pl_flame_layout_height(self->layout, ROW_H) : ROW_H);
		*min = need;
		*nat = need;
	}
}

static gboolean scroll_to_root(gpointer data)
{
	PlFlameGraph *self = data;
	GtkWidget *sw = gtk_widget_get_ancestor(GTK_WIDGET(self), GTK_TYPE_SCROLLED_WINDOW);
	if (sw) {
		GtkAdjustment *v = gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(sw));
		gtk_adjustment_set_value(v, self->icicle ? gtk_adjustment_get_lower(v)
							 : gtk_adjustment_get_upper(v) -
								   gtk_adjustment_get_page_size(v));
	}
	g_object_unref(self);
	return G_SOURCE_REMOVE;
}

static void pl_flame_graph_size_allocate(GtkWidget *widget, int w, int h, int baseline)
{
	PlFlameGraph *self = PL_FLAME_GRAPH(widget);
	if (self->scroll_to_root && self->layout) {
		/* after this allocation: the adjustment has its new upper then */
		self->scroll_to_root = FALSE;
		g_idle_add(scroll_to_root, g_object_ref(self));
	}
	/* nothing to draw again: the bands are for a size, checked when drawn */
	pl_ui_present_popovers(widget);
}

static gint hit(PlFlameGraph *self, double x, double y)
{
	int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
	if (!self->layout || w <= 0)
		return -1;
	double H = draw_height(self, h);
	double row = self->icicle ? y / ROW_H : (H - y) / ROW_H;
	if (row < 0)
		return -1;
	return pl_flame_layout_hit(self->layout, (guint)row, x / w);
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, PlFlameGraph *self)
{
	gint h = hit(self, x, y);
	if (h != self->hover) {
		self->hover = h;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void on_leave(GtkEventControllerMotion *c, PlFlameGraph *self)
{
	if (self->hover != -1) {
		self->hover = -1;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void on_click(GtkGestureClick *g, int n_press, double x, double y, PlFlameGraph *self)
{
	gint h = hit(self, x, y);
	guint button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(g));
	if (h < 0)
		return;
	guint32 node = self->layout->rects[h].node;
	if (button == GDK_BUTTON_SECONDARY) {
		/* the menu: a node of the profile's tree, or only a function in
		 * the inverted one */
		if (node)
			g_signal_emit(self, signals[SIG_FRAME_MENU], 0,
				      self->inverted ? PL_NO_ID : node, self->func[node], x, y);
		return;
	}
	pl_ui_timing_begin("click");
	pl_flame_graph_zoom(self, node);
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean kb,
				 GtkTooltip *tooltip, gpointer data)
{
	PlFlameGraph *self = PL_FLAME_GRAPH(widget);
	gint h = hit(self, x, y);
	if (h < 0 || !self->tree)
		return FALSE;
	guint32 node = self->layout->rects[h].node;
	g_autofree char *text = pl_ui_node_tooltip(self->profile, node, node ? self->func[node] : NONE,
						   self->tree->self[node], self->tree->total[node],
						   self->tree->total[0]);
	gtk_tooltip_set_markup(tooltip, text);
	return TRUE;
}

/* ─── public ─────────────────────────────────────────────────────────── */

GtkWidget *pl_flame_graph_new(void)
{
	return g_object_new(PL_TYPE_FLAME_GRAPH, NULL);
}

void pl_flame_graph_set_icicle(PlFlameGraph *self, gboolean icicle)
{
	self->icicle = icicle;
	self->scroll_to_root = TRUE;
	gtk_widget_queue_resize(GTK_WIDGET(self));
	invalidate(self);
}

void pl_flame_graph_zoom(PlFlameGraph *self, guint32 node)
{
	if (!self->tree || node >= self->tree->n)
		node = 0;
	if (node == self->zoom && self->layout) {
		pl_ui_timing_ready(); /* nothing to recompute */
		gtk_widget_queue_draw(GTK_WIDGET(self));
		return;
	}
	self->zoom = node;
	if (self->search)
		compute_matches(self);
	relayout(self);
}

guint32 pl_flame_graph_get_zoom(PlFlameGraph *self)
{
	return self->zoom;
}

gboolean pl_flame_graph_zoom_out(PlFlameGraph *self)
{
	if (!self->tree || self->zoom == 0)
		return FALSE;
	pl_flame_graph_zoom(self, self->tree->parent[self->zoom]);
	return TRUE;
}

gboolean pl_flame_graph_set_search(PlFlameGraph *self, const char *pattern, GError **error)
{
	pl_ui_timing_begin("search");
	g_clear_pointer(&self->search, g_regex_unref);
	if (pattern && *pattern) {
		self->search = g_regex_new(pattern, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, error);
		if (!self->search) {
			compute_matches(self);
			invalidate(self);
			g_signal_emit(self, signals[SIG_SEARCH_CHANGED], 0);
			return FALSE;
		}
	}
	compute_matches(self);
	invalidate(self);
	pl_ui_timing_ready();
	g_signal_emit(self, signals[SIG_SEARCH_CHANGED], 0);
	return TRUE;
}

double pl_flame_graph_get_match_share(PlFlameGraph *self)
{
	return self->match ? self->match_share : -1;
}

const char *pl_flame_graph_get_label(PlFlameGraph *self, guint32 node)
{
	if (!self->tree || node >= self->tree->n)
		return "";
	return self->labels[node] ? self->labels[node] : "?";
}

const PlFlameLayout *pl_flame_graph_get_layout(PlFlameGraph *self)
{
	return self->layout;
}

gboolean pl_flame_graph_is_ready(PlFlameGraph *self)
{
	return self->ready && self->layout != NULL;
}

guint32 pl_flame_graph_find_label(PlFlameGraph *self, const char *label)
{
	if (!self->layout)
		return NONE;
	guint32 best = NONE;
	double best_w = -1;
	for (guint i = 0; i < self->layout->n_rects; i++) {
		const PlFlameRect *r = &self->layout->rects[i];
		const char *l = self->labels[r->node];
		if (l && !strcmp(l, label) && r->w > best_w) {
			best = r->node;
			best_w = r->w;
		}
	}
	return best;
}

gboolean pl_flame_graph_get_node_center(PlFlameGraph *self, guint32 node, double *x, double *y)
{
	gint i = self->layout ? pl_flame_layout_find(self->layout, node) : -1;
	int w = gtk_widget_get_width(GTK_WIDGET(self)), h = gtk_widget_get_height(GTK_WIDGET(self));
	if (i < 0 || w <= 0)
		return FALSE;
	const PlFlameRect *r = &self->layout->rects[i];
	PlFlameStyle st;
	fill_style(self, &st);
	*x = (r->x + r->w / 2) * w;
	*y = pl_flame_row_y(self->layout, &st, r->depth, draw_height(self, h)) + ROW_H / 2;
	return TRUE;
}

gboolean pl_flame_graph_export_svg(PlFlameGraph *self, const char *path, double width,
				   GError **error)
{
	if (!self->layout) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
			    "No flame graph to export yet: open or record a session first");
		return FALSE;
	}
	double h = pl_flame_layout_height(self->layout, ROW_H);
	cairo_surface_t *surf = cairo_svg_surface_create(path, width, h);
	if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot write %s: %s", path,
			    cairo_status_to_string(cairo_surface_status(surf)));
		cairo_surface_destroy(surf);
		return FALSE;
	}
	cairo_t *cr = cairo_create(surf);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	PlFlameStyle st;
	fill_style(self, &st);
	pl_flame_draw(cr, self->layout, &st, width, h);
	cairo_destroy(cr);
	cairo_surface_finish(surf);
	cairo_status_t status = cairo_surface_status(surf);
	cairo_surface_destroy(surf);
	if (status != CAIRO_STATUS_SUCCESS) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot write %s: %s", path,
			    cairo_status_to_string(status));
		return FALSE;
	}
	return TRUE;
}

static void pl_flame_graph_dispose(GObject *obj)
{
	PlFlameGraph *self = PL_FLAME_GRAPH(obj);
	if (self->cancel)
		g_cancellable_cancel(self->cancel);
	g_clear_object(&self->cancel);
	g_clear_pointer(&self->tree, pl_flame_tree_unref);
	g_clear_pointer(&self->layout, pl_flame_layout_free);
	g_clear_pointer(&self->tiles, g_ptr_array_unref);
	if (self->vadj)
		g_object_remove_weak_pointer(G_OBJECT(self->vadj), (gpointer *)&self->vadj);
	self->vadj = NULL;
	g_clear_pointer(&self->func, g_free);
	g_clear_pointer(&self->labels, g_free);
	g_clear_pointer(&self->colors, g_free);
	g_clear_pointer(&self->match, g_free);
	g_clear_pointer(&self->search, g_regex_unref);
	G_OBJECT_CLASS(pl_flame_graph_parent_class)->dispose(obj);
}

static void pl_flame_graph_class_init(PlFlameGraphClass *klass)
{
	GObjectClass *oc = G_OBJECT_CLASS(klass);
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	oc->dispose = pl_flame_graph_dispose;
	wc->snapshot = pl_flame_graph_snapshot;
	wc->measure = pl_flame_graph_measure;
	wc->size_allocate = pl_flame_graph_size_allocate;
	signals[SIG_ZOOM_CHANGED] = g_signal_new("zoom-changed", G_TYPE_FROM_CLASS(klass),
						 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
						 G_TYPE_NONE, 0);
	signals[SIG_SEARCH_CHANGED] = g_signal_new("search-changed", G_TYPE_FROM_CLASS(klass),
						   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
						   G_TYPE_NONE, 0);
	signals[SIG_FRAME_MENU] = g_signal_new("frame-menu", G_TYPE_FROM_CLASS(klass),
					       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
					       G_TYPE_UINT, G_TYPE_UINT, G_TYPE_DOUBLE,
					       G_TYPE_DOUBLE);
	gtk_widget_class_set_css_name(wc, "flamegraph");
}

static void pl_flame_graph_init(PlFlameGraph *self)
{
	self->hover = -1;
	self->ready = TRUE;
	self->tiles = g_ptr_array_new_with_free_func((GDestroyNotify)gsk_render_node_unref);
	GtkEventController *motion = gtk_event_controller_motion_new();
	g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
	g_signal_connect(motion, "leave", G_CALLBACK(on_leave), self);
	gtk_widget_add_controller(GTK_WIDGET(self), motion);
	GtkGesture *click = gtk_gesture_click_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), 0);
	g_signal_connect(click, "pressed", G_CALLBACK(on_click), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	g_signal_connect(self, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
	gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
	gtk_widget_set_vexpand(GTK_WIDGET(self), TRUE);
	pl_ui_timing_watch_view(GTK_WIDGET(self), "flame-graph");
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlFlameGraph *self)
{
	pl_flame_graph_set_data(self, NULL, NULL);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlFlameGraph *self)
{
	pl_flame_graph_set_data(self, pl_profile_session_get_profile(s), pl_profile_session_get_aggregate(s));
}

void pl_flame_graph_set_session(PlFlameGraph *self, PlProfileSession *session)
{
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
