/* pl-fleet-rank-view.h — the Fleet page's Boards page: the devices (or
 * boards: any label) ranked by one function's share of their samples,
 * then one device's stored sessions (a ranked row's, or a label typed),
 * any of which opens as a recording in a window of its own.
 *
 * The function comes from the page's Functions table (or is typed); the
 * store, labels and time range are those of the answer the Fleet page
 * shows (pl_fleet_rank_view_set_ask).  The questions run in workers
 * (pl-fleet-device-job.h), the same ones `perflens fleet rank`, `fleet
 * sessions` and `fleet report --session` ask.  Main thread only.
 */
#ifndef PL_FLEET_RANK_VIEW_H
#define PL_FLEET_RANK_VIEW_H

#include <gtk/gtk.h>

#include "pl-fleet-device-job.h"

G_BEGIN_DECLS

#define PL_TYPE_FLEET_RANK_VIEW (pl_fleet_rank_view_get_type())
G_DECLARE_FINAL_TYPE(PlFleetRankView, pl_fleet_rank_view, PL, FLEET_RANK_VIEW, GtkBox)

GtkWidget *pl_fleet_rank_view_new(void);

/* The store and selection later questions ask (copied); against unused. */
void pl_fleet_rank_view_set_ask(PlFleetRankView *self, const PlFleetAsk *ask);
/* Fills Function (the store's frame label "NAME MODULE", or a name). */
void pl_fleet_rank_view_set_function(PlFleetRankView *self, const char *function);
/* What Rank does; FALSE (nothing started) while a question runs. */
gboolean pl_fleet_rank_view_rank(PlFleetRankView *self);
/* What activating board row i does: lists its sessions (and puts
 * "LABEL=VALUE" into Sessions of). */
gboolean pl_fleet_rank_view_list_sessions(PlFleetRankView *self, guint i);
/* What List sessions does: the sessions of the board typed into Sessions
 * of, "LABEL=VALUE" or a value of the label in Boards told apart by; FALSE
 * (and the page says why) when it names no one board, or while a question
 * runs. */
gboolean pl_fleet_rank_view_list_sessions_typed(PlFleetRankView *self);
/* Fills Sessions of. */
void pl_fleet_rank_view_set_sessions_of(PlFleetRankView *self, const char *board);
/* What session row i's Open does: the session in a new window. */
gboolean pl_fleet_rank_view_open_session(PlFleetRankView *self, guint i);

/* State, for the UI tests. */
gboolean pl_fleet_rank_view_is_busy(PlFleetRankView *self);
const char *pl_fleet_rank_view_get_error(PlFleetRankView *self);
guint pl_fleet_rank_view_get_n_boards(PlFleetRankView *self);
const PlFleetShare *pl_fleet_rank_view_get_board(PlFleetRankView *self, guint i);
guint pl_fleet_rank_view_get_n_sessions(PlFleetRankView *self);
const PlFleetSession *pl_fleet_rank_view_get_session(PlFleetRankView *self, guint i);
/* The window the last opened session shows in (NULL: none, or closed). */
GtkWindow *pl_fleet_rank_view_get_opened(PlFleetRankView *self);
const char *pl_fleet_rank_view_get_by(PlFleetRankView *self);
GtkWidget *pl_fleet_rank_view_get_sessions_button(PlFleetRankView *self);
/* The text board (session) row i shows, NULL past the last; g_free. */
char *pl_fleet_rank_view_dup_board_text(PlFleetRankView *self, guint i);
char *pl_fleet_rank_view_dup_session_text(PlFleetRankView *self, guint i);

G_END_DECLS

#endif
