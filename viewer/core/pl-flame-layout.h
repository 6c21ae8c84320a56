/* pl-flame-layout.h — flame graph geometry: rectangles, rows, hit-testing.
 *
 * The layout turns a weighted call tree into a flat array of rectangles
 * sorted by (depth, x), with the index of each depth's first rectangle, so
 * that hit-testing a point is a row lookup and a binary search.  It works
 * on plain arrays copied out of the profile (PlFlameTree), so it can run in
 * a worker thread while the profile keeps ingesting on the main thread.
 *
 * Drawing is pl-flame-draw.h's (cairo and Pango), from the layout and a
 * PlFlameStyle (labels and colours from the caller, read only while
 * drawing).
 *
 * Ownership: pl_flame_tree_new() copies nothing it is given later; a tree
 * and a layout are immutable once built and may be read from any thread.
 */
#ifndef PL_FLAME_LAYOUT_H
#define PL_FLAME_LAYOUT_H

#include <glib.h>

G_BEGIN_DECLS

/* A call tree as parallel arrays indexed by node; node 0 is the root. */
typedef struct {
	guint n;
	guint32 *parent;       /* G_MAXUINT32 for the root */
	guint32 *first_child;  /* G_MAXUINT32 when none */
	guint32 *next_sibling; /* G_MAXUINT32 when none */
	guint64 *total;        /* weight of the node and below */
	guint64 *self;
	gint ref;
} PlFlameTree;

PlFlameTree *pl_flame_tree_new(guint n); /* arrays allocated, links set to none */
PlFlameTree *pl_flame_tree_ref(PlFlameTree *t);
void pl_flame_tree_unref(PlFlameTree *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFlameTree, pl_flame_tree_unref)

typedef struct {
	guint32 node;
	guint32 depth;
	double x, w; /* fractions of the zoomed node's width, in [0, 1] */
} PlFlameRect;

typedef struct {
	PlFlameRect *rects; /* sorted by depth, then x */
	guint n_rects;
	guint *row_start;   /* n_rows + 1 entries: rects of depth d are [row_start[d], row_start[d+1]) */
	guint n_rows;
	guint32 zoom;       /* the node drawn full width */
	guint64 zoom_total;
} PlFlameLayout;

/* Lays out the subtree of zoom (its ancestors drawn full width above it).
 * Children are ordered heaviest first.  Nodes narrower than min_frac of
 * the zoomed width are left out with their subtrees.  Never fails. */
PlFlameLayout *pl_flame_layout_compute(const PlFlameTree *t, guint32 zoom, double min_frac);
void pl_flame_layout_free(PlFlameLayout *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFlameLayout, pl_flame_layout_free)

/* Index of the rectangle at (depth, x) or -1. */
gint pl_flame_layout_hit(const PlFlameLayout *l, guint depth, double x);
/* Index of node's rectangle or -1 (linear: for tests and scripting). */
gint pl_flame_layout_find(const PlFlameLayout *l, guint32 node);

typedef struct {
	const char *const *labels; /* per node; NULL entries drawn without text */
	const guint32 *colors;     /* per node 0xRRGGBB */
	const guint8 *match;       /* per node, non-zero: search match; NULL: no search */
	double row_h;
	gboolean icicle; /* root at the top */
	guint32 text_rgb;
	const char *font; /* Pango font description, e.g. "Sans 9" */
} PlFlameStyle;

/* The height needed for every row. */
double pl_flame_layout_height(const PlFlameLayout *l, double row_h);
/* The row's y for depth (depends on icicle and total height). */
double pl_flame_row_y(const PlFlameLayout *l, const PlFlameStyle *s, guint depth, double height);

/* A flamegraph-style warm colour for a name (stable across runs); kernel
 * frames get a separate hue, unknown code grey. */
guint32 pl_flame_color_for(const char *name, const char *module);

G_END_DECLS

#endif
