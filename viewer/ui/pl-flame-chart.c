/* pl-flame-chart.c — time-ordered flame chart (see the header). */
#include "pl-flame-chart.h"

#include <math.h>

#include <pango/pangocairo.h>

#include "pl-flame-layout.h"
#include "pl-lazy-page.h"
#include "pl-ui-timing.h"
#include "pl-ui-util.h"

#define ROW_H 18.0
#define HEAD_H 22.0
#define MAX_DEPTH 256

typedef struct {
	guint64 t0, t1;
	guint32 node, depth;
} Span;

/* What is drawn for a width: a span a pixel wide or more as it is; the
 * spans narrower than a pixel that start in one pixel column of a depth,
 * one box a pixel wide, in the colour of the longest of them. */
typedef struct {
	float x0, x1;
	guint32 node;
	guint32 depth;
} Box;

struct _PlFlameChart {
	GtkWidget parent_instance;
	PlProfile *profile;
	GArray *spans; /* Span, by depth, then start time */
	guint *depth_start; /* max_depth + 1 entries: the spans of depth d are [depth_start[d], depth_start[d + 1]) */
	guint max_depth;
	GArray *boxes;	/* Box, for boxes_w (0: none made) */
	int boxes_w;
	GskRenderNode *cache; /* drawn for cache_w × cache_h */
	int cache_w, cache_h;
	gboolean cache_dark;
	guint64 t_start, t_end;
	guint32 tid;
	char *title;
	PlProfileSession *session; /* weak: followed, read when shown */
};

G_DEFINE_FINAL_TYPE(PlFlameChart, pl_flame_chart, GTK_TYPE_WIDGET)

enum { SIG_FRAME_MENU, N_SIGNALS };
static guint signals[N_SIGNALS];

static guint32 busiest_thread(PlProfile *p)
{
	GPtrArray *threads = pl_profile_get_threads(p);
	guint32 best = 0;
	guint64 most = 0;
	for (guint i = 0; i < threads->len; i++) {
		PlThread *t = threads->pdata[i];
		if (t->samples > most) {
			most = t->samples;
			best = t->tid;
		}
	}
	return best;
}

/* The spans of one depth close in time order (a depth holds one span at
 * a time): a stable partition by depth leaves each depth sorted by start. */
static void index_by_depth(PlFlameChart *self)
{
	guint nd = self->max_depth + 1, n = self->spans->len;
	g_free(self->depth_start);
	self->depth_start = g_new0(guint, nd + 1);
	for (guint i = 0; i < n; i++)
		self->depth_start[MIN(g_array_index(self->spans, Span, i).depth, nd - 1) + 1]++;
	for (guint d = 0; d < nd; d++)
		self->depth_start[d + 1] += self->depth_start[d];
	g_autofree guint *next = g_memdup2(self->depth_start, sizeof(guint) * nd);
	GArray *sorted = g_array_sized_new(FALSE, FALSE, sizeof(Span), n);
	g_array_set_size(sorted, n);
	for (guint i = 0; i < n; i++) {
		const Span *sp = &g_array_index(self->spans, Span, i);
		g_array_index(sorted, Span, next[MIN(sp->depth, nd - 1)]++) = *sp;
	}
	g_array_unref(self->spans);
	self->spans = sorted;
}

static void drop_drawing(PlFlameChart *self)
{
	g_array_set_size(self->boxes, 0);
	self->boxes_w = 0;
	g_clear_pointer(&self->cache, gsk_render_node_unref);
}

void pl_flame_chart_set_data(PlFlameChart *self, PlProfile *p, const PlFilter *f,
			     const PlAggregate *agg)
{
	g_array_set_size(self->spans, 0);
	g_clear_pointer(&self->depth_start, g_free);
	drop_drawing(self);
	self->profile = p;
	self->max_depth = 0;
	g_clear_pointer(&self->title, g_free);
	if (!p) {
		gtk_widget_queue_resize(GTK_WIDGET(self));
		gtk_widget_queue_draw(GTK_WIDGET(self));
		return;
	}
	self->tid = f && f->tid ? f->tid : busiest_thread(p);
	guint32 event = f && f->event != PL_NO_ID ? f->event : pl_profile_get_main_event(p);
	const PlProfileStats *st = pl_profile_get_stats(p);
	/* a gap of more than a few sample periods means the thread was off
	 * CPU: spans do not bridge it */
	guint64 gap = st->frequency ? 3000000000ull / st->frequency : 30000000ull;
	guint n;
	const PlSample *s = pl_profile_get_samples(p, &n);
	const PlSampleCtx *s_cx = pl_profile_get_sample_ctx(p);
	guint32 open_node[MAX_DEPTH];
	guint64 open_t0[MAX_DEPTH];
	guint open_n = 0;
	guint64 last = 0;
	self->t_start = G_MAXUINT64;
	self->t_end = 0;
	guint32 path[MAX_DEPTH];
	for (guint i = 0; i <= n; i++) {
		gboolean end = i == n;
		guint depth = 0;
		if (!end) {
			if (pl_sample_tid(s_cx, &s[i]) != self->tid || (f && s[i].time < f->t0) ||
			    (f && f->t1 && s[i].time >= f->t1))
				continue;
			if (event != PL_NO_ID && pl_profile_get_stack_event(p, s[i].stack) != event)
				continue;
			guint32 node = pl_profile_get_stack_node(p, s[i].stack);
			/* as the transforms shaped the tree (the map covers the
			 * nodes there were when the aggregate was made) */
			if (agg && agg->node_map) {
				if (node >= agg->n_nodes || agg->node_map[node] == PL_NO_ID)
					continue;
				node = agg->node_map[node];
			}
			guint32 tmp[MAX_DEPTH];
			guint k = 0;
			for (guint32 nd = node; nd != 0 && nd != PL_NO_ID && k < MAX_DEPTH;
			     nd = pl_profile_get_node(p, nd)->parent)
				tmp[k++] = nd;
			for (guint j = 0; j < k; j++)
				path[j] = tmp[k - 1 - j];
			depth = k;
			self->t_start = MIN(self->t_start, s[i].time);
			self->t_end = MAX(self->t_end, s[i].time);
		}
		guint64 now = end ? last : s[i].time;
		gboolean broke = !end && last && now - last > gap;
		/* close spans that differ from this sample's path */
		guint keep = 0;
		if (!end && !broke)
			while (keep < open_n && keep < depth && open_node[keep] == path[keep])
				keep++;
		for (guint d = keep; d < open_n; d++) {
			Span sp = { open_t0[d], broke ? last + gap / 3 : now, open_node[d], d };
			g_array_append_val(self->spans, sp);
		}
		open_n = keep;
		if (end)
			break;
		for (guint d = keep; d < depth; d++) {
			open_node[d] = path[d];
			open_t0[d] = now;
		}
		open_n = depth;
		self->max_depth = MAX(self->max_depth, depth);
		last = now;
	}
	if (self->t_end <= self->t_start)
		self->t_end = self->t_start + 1;
	index_by_depth(self);
	PlThread *t = pl_profile_lookup_thread(p, self->tid);
	self->title = g_strdup_printf("Flame chart of %s (tid %u)%s — time flows left to right; "
				      "click a thread name in the timeline to chart another thread",
				      t && t->name ? t->name : "?", self->tid,
				      f && f->tid ? "" : ", the busiest thread");
	gtk_widget_queue_resize(GTK_WIDGET(self));
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* The boxes for width w (see Box): once per width and data, not per frame. */
static void make_boxes(PlFlameChart *self, int w)
{
	g_array_set_size(self->boxes, 0);
	self->boxes_w = w;
	if (!self->profile || !self->depth_start)
		return;
	double span = (double)(self->t_end - self->t_start), scale = w / span;
	for (guint d = 0; d <= self->max_depth; d++) {
		gboolean open = FALSE; /* a merged column box is being filled */
		Box col = { 0 };
		guint64 col_best = 0;
		for (guint i = self->depth_start[d]; i < self->depth_start[d + 1]; i++) {
			const Span *sp = &g_array_index(self->spans, Span, i);
			double x0 = (double)(sp->t0 - self->t_start) * scale;
			double x1 = (double)(sp->t1 - self->t_start) * scale;
			if (x1 - x0 >= 1.0) {
				if (open)
					g_array_append_val(self->boxes, col);
				open = FALSE;
				Box b = { (float)x0, (float)x1, sp->node, d };
				g_array_append_val(self->boxes, b);
				continue;
			}
			float c = floorf((float)x0);
			if (open && c != col.x0) {
				g_array_append_val(self->boxes, col);
				open = FALSE;
			}
			if (!open) {
				col = (Box){ c, c + 1, sp->node, d };
				col_best = 0;
				open = TRUE;
			}
			if (sp->t1 - sp->t0 > col_best) {
				col_best = sp->t1 - sp->t0;
				col.node = sp->node;
			}
		}
		if (open)
			g_array_append_val(self->boxes, col);
	}
}

static void draw(PlFlameChart *self, cairo_t *cr, double w)
{
	GtkWidget *widget = GTK_WIDGET(self);
	GdkRGBA fg;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	PangoLayout *pl = gtk_widget_create_pango_layout(widget, NULL);
	pango_layout_set_ellipsize(pl, PANGO_ELLIPSIZE_END);
	cairo_set_source_rgba(cr, fg.red, fg.green, fg.blue, 0.85);
	pango_layout_set_text(pl, self->title ? self->title : "Open a session to see its flame chart",
			      -1);
	pango_layout_set_width(pl, (int)((w - 16) * PANGO_SCALE));
	cairo_move_to(cr, 8, 3);
	pango_cairo_show_layout(cr, pl);
	PangoFontDescription *fd = pango_font_description_from_string("Sans 9");
	pango_layout_set_font_description(pl, fd);
	pango_font_description_free(fd);
	for (guint i = 0; self->profile && i < self->boxes->len; i++) {
		const Box *b = &g_array_index(self->boxes, Box, i);
		double x0 = b->x0, x1 = b->x1;
		double y = HEAD_H + b->depth * ROW_H;
		guint32 func = pl_profile_get_node(self->profile, b->node)->func;
		const PlFunction *fn = pl_profile_get_function(self->profile, func);
		guint32 c = pl_flame_color_for(fn->name, fn->module);
		cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
				     (c & 0xff) / 255.0);
		cairo_rectangle(cr, x0, y, x1 - x0 > 1.5 ? x1 - x0 - 0.5 : x1 - x0, ROW_H - 1);
		cairo_fill(cr);
		if (x1 - x0 > 30) {
			pango_layout_set_text(pl, pl_function_names_label(self->profile, func), -1);
			pango_layout_set_width(pl, (int)((x1 - x0 - 6) * PANGO_SCALE));
			cairo_set_source_rgb(cr, 0.06, 0.06, 0.06);
			cairo_move_to(cr, x0 + 3, y + 2);
			pango_cairo_show_layout(cr, pl);
		}
	}
	g_object_unref(pl);
}

static void pl_flame_chart_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	PlFlameChart *self = PL_FLAME_CHART(widget);
	int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
	pl_ui_timing_drew("flame-chart");
	if (w <= 0 || h <= 0)
		return;
	gboolean dark = pl_ui_is_dark(widget);
	if (!self->cache || self->cache_w != w || self->cache_h != h || self->cache_dark != dark) {
		g_clear_pointer(&self->cache, gsk_render_node_unref);
		if (self->boxes_w != w)
			make_boxes(self, w);
		GtkSnapshot *s = gtk_snapshot_new();
		cairo_t *cr = gtk_snapshot_append_cairo(s, &GRAPHENE_RECT_INIT(0, 0, w, h));
		draw(self, cr, w);
		cairo_destroy(cr);
		self->cache = gtk_snapshot_free_to_node(s);
		self->cache_w = w;
		self->cache_h = h;
		self->cache_dark = dark;
	}
	if (self->cache)
		gtk_snapshot_append_node(snapshot, self->cache);
}

static void pl_flame_chart_measure(GtkWidget *widget, GtkOrientation o, int for_size, int *min,
				   int *nat, int *min_base, int *nat_base)
{
	PlFlameChart *self = PL_FLAME_CHART(widget);
	if (o == GTK_ORIENTATION_HORIZONTAL)
		*min = 200, *nat = 800;
	else
		*min = *nat = (int)(HEAD_H + (self->max_depth + 1) * ROW_H);
}

static const Span *span_at(PlFlameChart *self, double x, double y)
{
	if (!self->profile || !self->depth_start || y < HEAD_H)
		return NULL;
	guint depth = (guint)((y - HEAD_H) / ROW_H);
	double w = gtk_widget_get_width(GTK_WIDGET(self));
	if (depth > self->max_depth || w <= 0 || x < 0)
		return NULL;
	guint64 t = self->t_start + (guint64)(x / w * (double)(self->t_end - self->t_start));
	/* the last span of the depth starting at or before t */
	guint lo = self->depth_start[depth], hi = self->depth_start[depth + 1], first = lo;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (g_array_index(self->spans, Span, mid).t0 <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return NULL;
	const Span *sp = &g_array_index(self->spans, Span, lo - 1);
	return t < sp->t1 ? sp : NULL;
}

guint pl_flame_chart_count_spans(PlFlameChart *self, guint32 func)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	guint n = 0;
	for (guint i = 0; self->profile && i < self->spans->len; i++)
		n += pl_profile_get_node(self->profile,
					 g_array_index(self->spans, Span, i).node)->func == func;
	return n;
}

guint32 pl_flame_chart_node_at(PlFlameChart *self, double x, double y)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	const Span *sp = span_at(self, x, y);
	return sp ? sp->node : PL_NO_ID;
}

static void on_press(GtkGestureClick *g, int n, double x, double y, PlFlameChart *self)
{
	const Span *sp = span_at(self, x, y);
	if (sp)
		g_signal_emit(self, signals[SIG_FRAME_MENU], 0, sp->node,
			      pl_profile_get_node(self->profile, sp->node)->func, x, y);
}

static void pl_flame_chart_size_allocate(GtkWidget *widget, int w, int h, int baseline)
{
	pl_ui_present_popovers(widget); /* its frame menu */
}

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean kb, GtkTooltip *tip,
				 gpointer data)
{
	PlFlameChart *self = PL_FLAME_CHART(widget);
	const Span *sp = span_at(self, x, y);
	if (!sp)
		return FALSE;
	guint32 func = pl_profile_get_node(self->profile, sp->node)->func;
	g_autofree char *name =
		g_markup_escape_text(pl_function_names_label(self->profile, func), -1);
	g_autofree char *m = g_strdup_printf("<b>%s</b>\n%.3f ms from %.3f s", name,
					     (sp->t1 - sp->t0) / 1e6, (sp->t0 - self->t_start) / 1e9);
	gtk_tooltip_set_markup(tip, m);
	return TRUE;
}

GtkWidget *pl_flame_chart_new(void)
{
	return g_object_new(PL_TYPE_FLAME_CHART, NULL);
}

static void pl_flame_chart_dispose(GObject *obj)
{
	PlFlameChart *self = PL_FLAME_CHART(obj);
	if (self->session)
		g_object_remove_weak_pointer(G_OBJECT(self->session), (gpointer *)&self->session);
	self->session = NULL;
	g_clear_pointer(&self->spans, g_array_unref);
	g_clear_pointer(&self->depth_start, g_free);
	g_clear_pointer(&self->boxes, g_array_unref);
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	g_clear_pointer(&self->title, g_free);
	G_OBJECT_CLASS(pl_flame_chart_parent_class)->dispose(obj);
}

static void pl_flame_chart_class_init(PlFlameChartClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_flame_chart_dispose;
	GTK_WIDGET_CLASS(klass)->snapshot = pl_flame_chart_snapshot;
	GTK_WIDGET_CLASS(klass)->measure = pl_flame_chart_measure;
	GTK_WIDGET_CLASS(klass)->size_allocate = pl_flame_chart_size_allocate;
	signals[SIG_FRAME_MENU] = g_signal_new("frame-menu", G_TYPE_FROM_CLASS(klass),
					       G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 4,
					       G_TYPE_UINT, G_TYPE_UINT, G_TYPE_DOUBLE,
					       G_TYPE_DOUBLE);
}

static void pl_flame_chart_init(PlFlameChart *self)
{
	self->spans = g_array_new(FALSE, FALSE, sizeof(Span));
	self->boxes = g_array_new(FALSE, FALSE, sizeof(Box));
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	g_signal_connect(self, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
	GtkGesture *click = gtk_gesture_click_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(click), GDK_BUTTON_SECONDARY);
	g_signal_connect(click, "pressed", G_CALLBACK(on_press), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(click));
	gtk_widget_set_hexpand(GTK_WIDGET(self), TRUE);
	pl_ui_timing_watch_view(GTK_WIDGET(self), "flame-chart");
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlFlameChart *self)
{
	pl_flame_chart_set_data(self, NULL, NULL, NULL);
}

/* the chart walks every sample of its thread: only while it is shown */
static void update_from_session(GtkWidget *w)
{
	PlFlameChart *self = PL_FLAME_CHART(w);
	PlProfileSession *s = self->session;
	if (!s)
		return;
	PlFilter f = pl_profile_session_get_filter(s);
	pl_flame_chart_set_data(self, pl_profile_session_get_profile(s), &f, pl_profile_session_get_aggregate(s));
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlFlameChart *self)
{
	pl_lazy_page_update(GTK_WIDGET(self), update_from_session);
}

void pl_flame_chart_set_session(PlFlameChart *self, PlProfileSession *session)
{
	self->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&self->session);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
