/* pl-flame-layout.c — flame graph geometry and drawing (see the header). */
#include "pl-flame-layout.h"

#include <string.h>

#define NONE G_MAXUINT32

/* ─── tree ───────────────────────────────────────────────────────────── */

PlFlameTree *pl_flame_tree_new(guint n)
{
	PlFlameTree *t = g_new0(PlFlameTree, 1);
	t->n = n;
	t->ref = 1;
	t->parent = g_new(guint32, n ? n : 1);
	t->first_child = g_new(guint32, n ? n : 1);
	t->next_sibling = g_new(guint32, n ? n : 1);
	t->total = g_new0(guint64, n ? n : 1);
	t->self = g_new0(guint64, n ? n : 1);
	memset(t->parent, 0xff, sizeof(guint32) * (n ? n : 1));
	memset(t->first_child, 0xff, sizeof(guint32) * (n ? n : 1));
	memset(t->next_sibling, 0xff, sizeof(guint32) * (n ? n : 1));
	return t;
}

PlFlameTree *pl_flame_tree_ref(PlFlameTree *t)
{
	g_atomic_int_inc(&t->ref);
	return t;
}

void pl_flame_tree_unref(PlFlameTree *t)
{
	if (!t || !g_atomic_int_dec_and_test(&t->ref))
		return;
	g_free(t->parent);
	g_free(t->first_child);
	g_free(t->next_sibling);
	g_free(t->total);
	g_free(t->self);
	g_free(t);
}

/* ─── layout ─────────────────────────────────────────────────────────── */

typedef struct {
	const PlFlameTree *t;
} SortCtx;

static gint by_weight_desc(gconstpointer a, gconstpointer b, gpointer data)
{
	const PlFlameTree *t = data;
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
	if (t->total[x] != t->total[y])
		return t->total[x] > t->total[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

PlFlameLayout *pl_flame_layout_compute(const PlFlameTree *t, guint32 zoom, double min_frac)
{
	PlFlameLayout *l = g_new0(PlFlameLayout, 1);
	GArray *rects = g_array_new(FALSE, FALSE, sizeof(PlFlameRect));
	GArray *rows = g_array_new(FALSE, FALSE, sizeof(guint));
	if (t->n == 0) {
		guint z = 0;
		g_array_append_val(rows, z);
		goto done;
	}
	if (zoom >= t->n || t->total[zoom] == 0)
		zoom = 0;
	l->zoom = zoom;
	l->zoom_total = t->total[zoom];

	/* The ancestors of the zoomed node, root first, each full width. */
	GArray *chain = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint32 n = zoom; n != NONE; n = t->parent[n]) {
		g_array_prepend_val(chain, n);
		if (chain->len > t->n)
			break; /* a cycle would be a bug upstream; never loop */
	}
	for (guint i = 0; i < chain->len; i++) {
		guint start = rects->len;
		g_array_append_val(rows, start);
		PlFlameRect r = { g_array_index(chain, guint32, i), i, 0.0, 1.0 };
		g_array_append_val(rects, r);
	}
	g_array_free(chain, TRUE);
	if (l->zoom_total == 0)
		goto done_rows;

	/* Breadth first: children of a row's rects, laid out left to right in
	 * their parent, form the next row already sorted by x. */
	double scale = 1.0 / (double)l->zoom_total;
	GArray *kids = g_array_new(FALSE, FALSE, sizeof(guint32));
	guint row_begin = rects->len - 1, row_end = rects->len;
	guint depth = g_array_index(rects, PlFlameRect, row_begin).depth;
	while (row_begin < row_end) {
		guint next_begin = rects->len;
		for (guint i = row_begin; i < row_end; i++) {
			PlFlameRect p = g_array_index(rects, PlFlameRect, i);
			g_array_set_size(kids, 0);
			for (guint32 c = t->first_child[p.node]; c != NONE; c = t->next_sibling[c])
				if (t->total[c] > 0 && (double)t->total[c] * scale >= min_frac)
					g_array_append_val(kids, c);
			if (kids->len > 1)
				g_array_sort_with_data(kids, by_weight_desc, (gpointer)t);
			double x = p.x;
			for (guint k = 0; k < kids->len; k++) {
				guint32 c = g_array_index(kids, guint32, k);
				PlFlameRect r = { c, depth + 1, x, (double)t->total[c] * scale };
				x += r.w;
				g_array_append_val(rects, r);
			}
		}
		if (rects->len > next_begin) {
			g_array_append_val(rows, next_begin);
			depth++;
		}
		row_begin = next_begin;
		row_end = rects->len;
	}
	g_array_free(kids, TRUE);
done_rows:;
	guint end = rects->len;
	g_array_append_val(rows, end);
done:
	l->n_rects = rects->len;
	l->rects = (PlFlameRect *)g_array_free(rects, FALSE);
	l->n_rows = rows->len - 1;
	l->row_start = (guint *)g_array_free(rows, FALSE);
	return l;
}

void pl_flame_layout_free(PlFlameLayout *l)
{
	if (!l)
		return;
	g_free(l->rects);
	g_free(l->row_start);
	g_free(l);
}

gint pl_flame_layout_hit(const PlFlameLayout *l, guint depth, double x)
{
	if (depth >= l->n_rows)
		return -1;
	guint lo = l->row_start[depth], hi = l->row_start[depth + 1];
	/* the last rect with rect.x <= x */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (l->rects[mid].x <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == l->row_start[depth])
		return -1;
	const PlFlameRect *r = &l->rects[lo - 1];
	return x < r->x + r->w ? (gint)(lo - 1) : -1;
}

gint pl_flame_layout_find(const PlFlameLayout *l, guint32 node)
{
	for (guint i = 0; i < l->n_rects; i++)
		if (l->rects[i].node == node)
			return (gint)i;
	return -1;
}

/* ─── drawing ────────────────────────────────────────────────────────── */

double pl_flame_layout_height(const PlFlameLayout *l, double row_h)
{
	return (l->n_rows ? l->n_rows : 1) * row_h;
}

double pl_flame_row_y(const PlFlameLayout *l, const PlFlameStyle *s, guint depth, double height)
{
	if (s->icicle)
		return depth * s->row_h;
	return height - (depth + 1) * s->row_h;
}

guint32 pl_flame_color_for(const char *name, const char *module)
{
	if (!name)
		return 0xb8b0a8; /* unknown code: warm grey */
	guint h = g_str_hash(name);
	double v1 = (h & 0xff) / 255.0, v2 = ((h >> 8) & 0xff) / 255.0,
	       v3 = ((h >> 16) & 0xff) / 255.0;
	guint r, g, b;
	if (module && module[0] == '[' && g_str_has_prefix(module, "[kernel")) {
		/* kernel: orange-brown family, distinct from user code */
		r = 200 + (guint)(55 * v1);
		g = 140 + (guint)(60 * v2);
		b = 60 + (guint)(40 * v3);
	} else {
		/* flamegraph.pl's "hot" palette, kept light enough for dark text */
		r = 205 + (guint)(50 * v3);
		g = 60 + (guint)(170 * v1);
		b = 40 + (guint)(45 * v2);
	}
	return (r << 16) | (g << 8) | b;
}
