/* viewer-ui-flame-layout-test.c — the flame graph's layout and drawing
 * without a display: geometry invariants, hit-testing against a linear
 * scan, zoom, drawing in clipped bands as the widget does, and the time to
 * lay out and draw 10k and 100k nodes.
 *
 * Prints "ok NAME" / "not ok NAME: why" lines, and "# " lines with the
 * measured times (docs/PERFORMANCE.md quotes them).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pl-flame-draw.h"

static int failures;

/* fontconfig (under Pango) keeps its configuration for the process
 * lifetime; LeakSanitizer in the SAN=1 build would count it as ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

static void report(const char *name, int ok, const char *why)
{
	if (ok)
		printf("ok %s\n", name);
	else {
		printf("not ok %s: %s\n", name, why);
		failures++;
	}
	fflush(stdout);
}

/* A random call tree shaped like real profiles: most weight down a few
 * deep paths, a long tail of small siblings.  Deterministic (seeded). */
static PlFlameTree *make_tree(guint n, guint32 seed)
{
	PlFlameTree *t = pl_flame_tree_new(n);
	GRand *r = g_rand_new_with_seed(seed);
	guint32 *last_child = g_new(guint32, n);
	memset(last_child, 0xff, sizeof(guint32) * n);
	guint32 *depth = g_new0(guint32, n);
	for (guint i = 1; i < n; i++) {
		/* prefer recent nodes as parents: deep stacks */
		guint32 p = g_rand_int_range(r, 0, 4) ? (guint32)g_rand_int_range(r, (gint32)(i > 64 ? i - 64 : 0), (gint32)i)
						      : (guint32)g_rand_int_range(r, 0, (gint32)i);
		if (depth[p] > 60)
			p = 0;
		t->parent[i] = p;
		depth[i] = depth[p] + 1;
		if (last_child[p] == G_MAXUINT32)
			t->first_child[p] = i;
		else
			t->next_sibling[last_child[p]] = i;
		last_child[p] = i;
	}
	for (guint i = 0; i < n; i++)
		t->self[i] = t->first_child[i] == G_MAXUINT32 || g_rand_int_range(r, 0, 3) == 0
				     ? (guint64)g_rand_int_range(r, 1, 1000) *
					       (g_rand_int_range(r, 0, 50) ? 1 : 100)
				     : 0;
	/* children have larger ids than parents: one backward pass sums */
	for (guint i = n; i-- > 0;) {
		t->total[i] += t->self[i];
		if (i)
			t->total[t->parent[i]] += t->total[i];
	}
	g_free(last_child);
	g_free(depth);
	g_rand_free(r);
	return t;
}

static gint linear_hit(const PlFlameLayout *l, guint depth, double x)
{
	for (guint i = 0; i < l->n_rects; i++) {
		const PlFlameRect *r = &l->rects[i];
		if (r->depth == depth && x >= r->x && x < r->x + r->w)
			return (gint)i;
	}
	return -1;
}

static void test_geometry(void)
{
	g_autoptr(PlFlameTree) t = make_tree(20000, 7);
	g_autoptr(PlFlameLayout) l = pl_flame_layout_compute(t, 0, 0);
	char why[256] = "";
	int ok = l->n_rects > 0 && l->rects[0].node == 0 && l->rects[0].w == 1.0;
	/* rows sorted, no overlap, inside the parent, depth = row */
	g_autofree gint *pos = g_new(gint, t->n);
	for (guint i = 0; i < t->n; i++)
		pos[i] = -1;
	for (guint d = 0; ok && d < l->n_rows; d++) {
		for (guint i = l->row_start[d]; ok && i < l->row_start[d + 1]; i++) {
			const PlFlameRect *r = &l->rects[i];
			pos[r->node] = (gint)i;
			if (r->depth != d) {
				g_snprintf(why, sizeof why, "rect %u in row %u has depth %u", i, d, r->depth);
				ok = 0;
			}
			if (i > l->row_start[d] && r->x < l->rects[i - 1].x + l->rects[i - 1].w - 1e-9) {
				g_snprintf(why, sizeof why, "rect %u overlaps its left neighbour", i);
				ok = 0;
			}
			if (d > 0) {
				gint p = pos[t->parent[r->node]];
				if (p < 0 || r->x < l->rects[p].x - 1e-9 ||
				    r->x + r->w > l->rects[p].x + l->rects[p].w + 1e-9) {
					g_snprintf(why, sizeof why, "node %u outside its parent", r->node);
					ok = 0;
				}
			}
		}
	}
	/* every node with weight is laid out (min_frac 0) */
	guint weighted = 0;
	for (guint i = 0; i < t->n; i++)
		weighted += t->total[i] > 0;
	if (ok && weighted != l->n_rects) {
		g_snprintf(why, sizeof why, "%u weighted nodes, %u rects", weighted, l->n_rects);
		ok = 0;
	}
	report("layout_geometry", ok, why);
}

static void test_hit(void)
{
	g_autoptr(PlFlameTree) t = make_tree(20000, 11);
	g_autoptr(PlFlameLayout) l = pl_flame_layout_compute(t, 0, 1e-5);
	GRand *r = g_rand_new_with_seed(3);
	int ok = 1;
	char why[128] = "";
	for (guint i = 0; i < 20000 && ok; i++) {
		guint d = (guint)g_rand_int_range(r, 0, (gint32)l->n_rows + 2);
		double x = g_rand_double(r);
		gint a = pl_flame_layout_hit(l, d, x), b = linear_hit(l, d, x);
		if (a != b) {
			g_snprintf(why, sizeof why, "depth %u x %.6f: binary %d, linear %d", d, x, a, b);
			ok = 0;
		}
	}
	g_rand_free(r);
	report("hit_test_binary_search", ok, why);
}

static void test_zoom(void)
{
	g_autoptr(PlFlameTree) t = make_tree(5000, 5);
	/* a node a few levels down with weight */
	guint32 z = 0;
	for (guint i = 1; i < t->n && !z; i++)
		if (t->total[i] > t->total[0] / 50 && t->parent[i] != 0 && t->parent[t->parent[i]] != 0)
			z = i;
	g_autoptr(PlFlameLayout) l = pl_flame_layout_compute(t, z, 0);
	int ok = z != 0 && l->zoom == z;
	guint zd = 0;
	for (guint32 a = z; a != 0; a = t->parent[a])
		zd++;
	/* ancestors and the zoomed node span the width, one per row */
	for (guint d = 0; ok && d <= zd; d++)
		ok = l->row_start[d + 1] - l->row_start[d] == 1 && l->rects[l->row_start[d]].w == 1.0;
	ok = ok && l->rects[l->row_start[zd]].node == z;
	/* below it: only its descendants */
	for (guint i = l->row_start[zd + 1]; ok && i < l->n_rects; i++) {
		guint32 a = l->rects[i].node;
		while (a != 0 && a != z)
			a = t->parent[a];
		ok = a == z;
	}
	report("zoom_layout", ok, "zoomed layout wrong");
}

static double now_ms(void)
{
	return g_get_monotonic_time() / 1000.0;
}

/* A large tree laid out and drawn as the app does: the layout culls what
 * is narrower than the minimum width (what keeps a frame cheap at any
 * size), every rect kept is at least that wide, none deeper than the
 * tree, and the drawing puts frames on the surface.  The times are
 * printed as figures, never judged (a test asserts behaviour; bench/flame.sh
 * measures speed). */
static void bench(guint n, const char *name)
{
	g_autoptr(PlFlameTree) t = make_tree(n, 42);
	char **labels = g_new(char *, n);
	guint32 *colors = g_new(guint32, n);
	for (guint i = 0; i < n; i++) {
		labels[i] = g_strdup_printf("function_%u", i % (n / 8 + 1));
		colors[i] = pl_flame_color_for(labels[i], "app");
	}
	/* best of 5: the machine is shared */
	double lay = 1e9, draw = 1e9;
	guint rects = 0, rows = 0, culled_wrong = 0;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1600, 1000);
	for (int k = 0; k < 5; k++) {
		double a = now_ms();
		PlFlameLayout *l = pl_flame_layout_compute(t, 0, 1e-5);
		double b = now_ms();
		cairo_t *cr = cairo_create(s);
		PlFlameStyle st = { (const char *const *)labels, colors, NULL, 18, FALSE, 0x101010,
				    "Sans 9" };
		pl_flame_draw(cr, l, &st, 1600, MAX(1000, pl_flame_layout_height(l, 18)));
		cairo_destroy(cr);
		cairo_surface_flush(s);
		double c = now_ms();
		lay = MIN(lay, b - a);
		draw = MIN(draw, c - b);
		rects = l->n_rects;
		rows = l->n_rows;
		for (guint i = 0; i < l->n_rects; i++)
			if (l->rects[i].w < 1e-5 || l->rects[i].depth > 62)
				culled_wrong++;
		pl_flame_layout_free(l);
	}
	/* frames drawn: the bottom row (the root, full width) is not blank */
	const guint8 *px = cairo_image_surface_get_data(s);
	int stride = cairo_image_surface_get_stride(s);
	guint inked = 0;
	for (int y = 0; y < 1000; y++)
		for (int x = 0; x < 1600; x += 16)
			inked += ((const guint32 *)(px + (gsize)y * (gsize)stride))[x] != 0;
	cairo_surface_destroy(s);
	printf("# %s: %u nodes, %u rects in %u rows: layout %.2f ms, draw (cairo, 1600x1000, "
	       "labels) %.2f ms\n",
	       name, n, rects, rows, lay, draw);
	char why[160];
	g_snprintf(why, sizeof why, "%u rects, %u narrower than 1e-5 or too deep, %u rows, %u inked points",
		   rects, culled_wrong, rows, inked);
	report(name, rects > 0 && rects < n && culled_wrong == 0 && rows <= 63 && inked > 0, why);
	for (guint i = 0; i < n; i++)
		g_free(labels[i]);
	g_free(labels);
	g_free(colors);
}

/* The widget draws a tall graph band by band, each under a clip: a band
 * must hold exactly the pixels the whole drawing has there. */
static void test_clipped(void)
{
	const guint n = 20000;
	g_autoptr(PlFlameTree) t = make_tree(n, 7);
	char **labels = g_new(char *, n);
	guint32 *colors = g_new(guint32, n);
	for (guint i = 0; i < n; i++) {
		labels[i] = g_strdup_printf("function_%u", i % 997);
		colors[i] = pl_flame_color_for(labels[i], "app");
	}
	g_autoptr(PlFlameLayout) l = pl_flame_layout_compute(t, 0, 1e-5);
	const int W = 1200, band = 256;
	int H = (int)pl_flame_layout_height(l, 18);
	PlFlameStyle st = { (const char *const *)labels, colors, NULL, 18, FALSE, 0x101010, "Sans 9" };
	cairo_surface_t *whole = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
	cairo_surface_t *bands = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
	cairo_t *cr = cairo_create(whole);
	pl_flame_draw(cr, l, &st, W, H);
	cairo_destroy(cr);
	guint drawn = 0;
	for (int y = 0; y < H; y += band) {
		cr = cairo_create(bands);
		/* a band and a narrower clip inside the next: both exact */
		cairo_rectangle(cr, (y / band) % 2 ? 333 : 0, y, (y / band) % 2 ? 500 : W,
				MIN(band, H - y));
		cairo_clip(cr);
		pl_flame_draw(cr, l, &st, W, H);
		cairo_destroy(cr);
		drawn++;
	}
	cairo_surface_flush(whole);
	cairo_surface_flush(bands);
	const guint8 *a = cairo_image_surface_get_data(whole), *b = cairo_image_surface_get_data(bands);
	int stride = cairo_image_surface_get_stride(whole);
	guint differ = 0, inked = 0, checked = 0;
	for (int y = 0; y < H; y++) {
		gboolean narrow = (y / band) % 2;
		for (int x = narrow ? 333 : 0; x < (narrow ? 833 : W); x++) {
			guint32 pa = ((const guint32 *)(a + (gsize)y * (gsize)stride))[x];
			guint32 pb = ((const guint32 *)(b + (gsize)y * (gsize)stride))[x];
			differ += pa != pb;
			inked += pa != 0;
			checked++;
		}
	}
	cairo_surface_destroy(whole);
	cairo_surface_destroy(bands);
	char why[200];
	g_snprintf(why, sizeof why, "%u of %u pixels differ between the whole drawing and %u clipped "
		   "bands (%u inked, %u rows)", differ, checked, drawn, inked, l->n_rows);
	report("draw_clipped_bands", differ == 0 && inked > 0 && drawn > 1, why);
	for (guint i = 0; i < n; i++)
		g_free(labels[i]);
	g_free(labels);
	g_free(colors);
}

int main(int argc, char **argv)
{
	test_geometry();
	test_hit();
	test_zoom();
	test_clipped();
	bench(10000, "bench_10k_nodes");
	bench(100000, "bench_100k_nodes");
	return failures ? 1 : 0;
}
