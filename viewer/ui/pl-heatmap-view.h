/* pl-heatmap-view.h — the sub-second heatmap (pl-heatmap.h) as a page: one
 * column per second, rows of 20 ms from the top of the second down, each
 * cell coloured by its samples; the busy or idle slice shows at a glance.
 *
 * Dragging from one cell to another selects the time between them, in
 * reading order (down a column, then on to the next), and emits
 * "range-selected" (t0, t1 in profile time) so every view shows that range;
 * a click on one cell selects its 20 ms.  The window's range is drawn as
 * a frame around its cells.  Hovering a cell tells its time and samples.
 *
 * The profile is borrowed during set_profile() only.  Main thread only.
 */
#ifndef PL_HEATMAP_VIEW_H
#define PL_HEATMAP_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-heatmap.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_HEATMAP_VIEW (pl_heatmap_view_get_type())
G_DECLARE_FINAL_TYPE(PlHeatmapView, pl_heatmap_view, PL, HEATMAP_VIEW, GtkWidget)

GtkWidget *pl_heatmap_view_new(void);
/* Recounts the cells: profile NULL clears; tid 0 every thread; event the
 * samples' event (PL_NO_ID: all); node_map the shown aggregate's (the
 * samples call-tree transforms drop are left out; NULL: none), read during
 * the call. */
void pl_heatmap_view_set_profile(PlHeatmapView *self, PlProfile *p, guint32 tid, guint32 event,
				 const guint32 *node_map);
/* The window's selected range (0, 0: none), drawn as a frame. */
void pl_heatmap_view_set_range(PlHeatmapView *self, guint64 t0, guint64 t1);
/* What is shown (NULL before a profile), for scripts and tests. */
const PlHeatmap *pl_heatmap_view_get_heatmap(PlHeatmapView *self);
/* Selects from cell a to cell b as a drag does (emits "range-selected"). */
void pl_heatmap_view_select(PlHeatmapView *self, guint col_a, guint row_a, guint col_b,
			    guint row_b);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile, and every new aggregate (the filter, the transforms).
 * Read while the widget is shown: a change meanwhile is read at its next
 * map, or by a getter first (pl-lazy-page.h). */
void pl_heatmap_view_set_session(PlHeatmapView *self, PlProfileSession *session);

G_END_DECLS

#endif
