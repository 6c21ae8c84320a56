/* pl-heatmap.h — a sub-second heatmap of a session (FlameScope's view):
 * one column per second of the recording, each cut into rows of row_ns
 * (20 ms by default), a cell holding the samples that fell in it.  Reading
 * down a column and on to the next is reading time, so a drag from one cell
 * to another is a time range.  One thread or all; one event (the main one
 * unless asked).  Counts are samples, not weights: what the eye compares
 * is how busy each slice was.  No GTK.
 */
#ifndef PL_HEATMAP_H
#define PL_HEATMAP_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_HEATMAP_DEFAULT_ROW_NS (20ull * 1000 * 1000)

typedef struct {
	guint n_cols, n_rows; /* columns: seconds; rows: slices of a second */
	guint64 t0;           /* profile time of the first column's top */
	guint64 row_ns;       /* a cell's length (divides a second) */
	guint64 *counts;      /* counts[col * n_rows + row] */
	guint64 max;          /* the busiest cell */
	guint64 total;
} PlHeatmap;

/* tid 0: every thread; event PL_NO_ID: every event.  row_ns is rounded to a
 * divisor of a second between 1 ms and 1 s (0: the default). */
PlHeatmap *pl_heatmap_new(PlProfile *p, guint32 tid, guint32 event, guint64 row_ns);
/* The same, leaving out the samples a transformed aggregate drops (its
 * node_map, see PlAggregate; NULL: none dropped). */
PlHeatmap *pl_heatmap_new_mapped(PlProfile *p, guint32 tid, guint32 event, guint64 row_ns,
				 const guint32 *node_map);
void pl_heatmap_free(PlHeatmap *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlHeatmap, pl_heatmap_free)

guint64 pl_heatmap_get(const PlHeatmap *self, guint col, guint row);
/* The time range [*t0, *t1) from cell a to cell b inclusive, in reading
 * order whichever comes first. */
void pl_heatmap_range(const PlHeatmap *self, guint col_a, guint row_a, guint col_b, guint row_b,
		      guint64 *t0, guint64 *t1);
/* The cell holding profile time t; FALSE when outside the map. */
gboolean pl_heatmap_cell_at(const PlHeatmap *self, guint64 t, guint *col, guint *row);

G_END_DECLS

#endif
