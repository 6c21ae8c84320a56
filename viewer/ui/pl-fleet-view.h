/* pl-fleet-view.h — the Fleet page: the samples many boards reported to
 * `perflens collect`, read from its ClickHouse store.
 *
 * A form (the store's URL and credentials file, the labels of side A, the
 * labels to compare with, the time range), then the fleet's flame graph
 * and functions, and with a comparison the diff of A against B (the diff
 * page's table and differential flame graph), and the Boards page (a
 * function picked in the table ranks the boards by its share, a board's
 * sessions open as recordings: pl-fleet-rank-view.h).  The question runs in a
 * worker (pl-fleet-job.h); the answer's totals are those of `perflens
 * fleet report` / `fleet diff` on the same store.  The URL and the
 * credentials file's path (never its contents) are remembered in the
 * user's config dir.  Main thread only.
 */
#ifndef PL_FLEET_VIEW_H
#define PL_FLEET_VIEW_H

#include <gtk/gtk.h>

#include "pl-diff-view.h"
#include "pl-fleet-rank-view.h"
#include "pl-flame-graph.h"
#include "pl-function-table.h"

G_BEGIN_DECLS

#define PL_TYPE_FLEET_VIEW (pl_fleet_view_get_type())
G_DECLARE_FINAL_TYPE(PlFleetView, pl_fleet_view, PL, FLEET_VIEW, GtkBox)

GtkWidget *pl_fleet_view_new(void);

/* Fills the form (NULL leaves a field as it is). */
void pl_fleet_view_set_form(PlFleetView *self, const char *url, const char *credentials,
			    const char *where, const char *against, const char *since);
/* What the Show button does: FALSE (nothing started) while a question is
 * being answered. */
gboolean pl_fleet_view_show(PlFleetView *self);

/* What a click on one of the store's labels does: label ("KEY=VALUE")
 * into Labels, in place of that key's match there.  FALSE: not a label. */
gboolean pl_fleet_view_pick_label(PlFleetView *self, const char *label);

/* State, for the UI tests. */
gboolean pl_fleet_view_is_busy(PlFleetView *self);
const char *pl_fleet_view_get_error(PlFleetView *self);
/* Samples of side A and B of the answer shown (0: none). */
guint64 pl_fleet_view_get_total(PlFleetView *self, gboolean side_b);
/* Side A's profile (borrowed; NULL: none shown). */
PlProfile *pl_fleet_view_get_profile(PlFleetView *self);
GtkWidget *pl_fleet_view_get_show_button(PlFleetView *self);
/* The store's labels listed under the form (owned GStrv; NULL: none). */
char **pl_fleet_view_dup_labels(PlFleetView *self);
const char *pl_fleet_view_get_where(PlFleetView *self);
/* The label that lists them (its links are "label:KEY=VALUE", escaped). */
GtkLabel *pl_fleet_view_get_labels_line(PlFleetView *self);
PlFlameGraph *pl_fleet_view_get_flame_graph(PlFleetView *self);
PlFunctionTable *pl_fleet_view_get_function_table(PlFleetView *self);
PlDiffView *pl_fleet_view_get_diff_view(PlFleetView *self);
/* The Boards page: boards ranked by a function's share, their sessions. */
PlFleetRankView *pl_fleet_view_get_rank_view(PlFleetView *self);
/* Brings one of its pages forward: "flame", "functions", "boards", "diff". */
void pl_fleet_view_show_page(PlFleetView *self, const char *name);

G_END_DECLS

#endif
