/* pl-flame-graph.h — the flame graph widget.
 *
 * Shows the call tree of an aggregate (pl-profile.h) as a flame graph (root
 * at the bottom) or an icicle (root at the top).  set_data() copies what
 * the layout needs (links and weights) on the main thread; the layout runs
 * in a worker (GTask) and the drawing is recorded once per size/data/search
 * change, in bands of the graph's height, only those its scrolled window
 * shows: hovering re-appends cached render nodes, scrolling draws the
 * bands that come into view.
 *
 * Signals: "zoom-changed" (the zoomed node changed: breadcrumb),
 * "search-changed" (matches recomputed), "frame-menu"
 * (guint node, guint func, double x, double y: a right click on a frame at
 * x, y; node is PL_NO_ID in the inverted tree, whose nodes are not the
 * profile's).
 *
 * Inverted, it shows the bottom-up tree of the same aggregate
 * (pl-inverted.h): the functions where samples ended at the root, their
 * callers above.
 *
 * The profile passed to set_data() is borrowed: it must outlive the widget's
 * use of it (call set_data(NULL, NULL) before freeing it).
 */
#ifndef PL_FLAME_GRAPH_H
#define PL_FLAME_GRAPH_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-flame-layout.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_FLAME_GRAPH (pl_flame_graph_get_type())
G_DECLARE_FINAL_TYPE(PlFlameGraph, pl_flame_graph, PL, FLAME_GRAPH, GtkWidget)

GtkWidget *pl_flame_graph_new(void);
void pl_flame_graph_set_data(PlFlameGraph *self, PlProfile *profile, PlAggregate *agg);
void pl_flame_graph_set_icicle(PlFlameGraph *self, gboolean icicle);
/* The bottom-up tree instead (zoom reset); the aggregate is the last
 * set_data's, which must still be alive. */
void pl_flame_graph_set_inverted(PlFlameGraph *self, gboolean inverted);
gboolean pl_flame_graph_get_inverted(PlFlameGraph *self);
/* The function of a shown node (PL_NO_ID at the root or out of range). */
guint32 pl_flame_graph_get_node_func(PlFlameGraph *self, guint32 node);
/* Zoom to a call-tree node (0: reset). */
void pl_flame_graph_zoom(PlFlameGraph *self, guint32 node);
guint32 pl_flame_graph_get_zoom(PlFlameGraph *self);
/* Zooms to the parent; FALSE when already at the root. */
gboolean pl_flame_graph_zoom_out(PlFlameGraph *self);
/* Regex (case-insensitive) over function labels; NULL or "" clears.
 * Returns FALSE with *error for a bad pattern. */
gboolean pl_flame_graph_set_search(PlFlameGraph *self, const char *pattern, GError **error);
/* Share of the zoomed weight under matching frames (counted once), 0..1;
 * -1 without a search. */
double pl_flame_graph_get_match_share(PlFlameGraph *self);
/* Label of a node ("all" for the root), borrowed. */
const char *pl_flame_graph_get_label(PlFlameGraph *self, guint32 node);
/* The current layout (NULL while the first is computed); borrowed. */
const PlFlameLayout *pl_flame_graph_get_layout(PlFlameGraph *self);
/* TRUE when a layout for the latest data is in place (scripts wait on it). */
gboolean pl_flame_graph_is_ready(PlFlameGraph *self);
/* Node whose rectangle is the widest among those whose function has this
 * label, G_MAXUINT32 when none is laid out. */
guint32 pl_flame_graph_find_label(PlFlameGraph *self, const char *label);
/* Centre of node's rectangle in widget coordinates; FALSE when not laid out. */
gboolean pl_flame_graph_get_node_center(PlFlameGraph *self, guint32 node, double *x, double *y);
/* Writes the current view as SVG (width px wide). */
gboolean pl_flame_graph_export_svg(PlFlameGraph *self, const char *path, double width,
				   GError **error);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile, and every new aggregate (the filter, the transforms). */
void pl_flame_graph_set_session(PlFlameGraph *self, PlProfileSession *session);

G_END_DECLS

#endif
