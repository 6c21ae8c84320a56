/* pl-window.h — the main window: a session's views, or the connect view.
 *
 * What is open and selected lives in the window's PlProfileSession
 * (viewer/core/pl-profile-session.h): the profile and the aggregate every
 * view shows, the filter (thread, time range, event) the timeline and
 * toolbar set, the search, and the session's call-tree transforms (a
 * PlViewState, kept beside the session file and read when it is opened
 * again), which the frame menu of every view adds to and the breadcrumbs
 * above the views remove from (win.transform, pl-frame-menu.h).  The views
 * follow the session's properties; the window only lays them out
 * (pl-window.ui) and holds the actions.
 *
 * Opening a file loads it in a worker thread (cancellable, the window keeps
 * answering); a live recording made with the connect view feeds the
 * session's profile as the socket delivers, and the views refresh once a
 * second.
 */
#ifndef PL_WINDOW_H
#define PL_WINDOW_H

#include <gtk/gtk.h>

#include "pl-connect-view.h"
#include "pl-counter-tracks-view.h"
#include "pl-coverage-view.h"
#include "pl-diff-view.h"
#include "pl-findings-view.h"
#include "pl-health-view.h"
#include "pl-heatmap-view.h"
#include "pl-io-view.h"
#include "pl-irq-view.h"
#include "pl-block-view.h"
#include "pl-locks-view.h"
#include "pl-target-dialog.h"
#include "pl-flame-chart.h"
#include "pl-flame-graph.h"
#include "pl-fleet-view.h"
#include "pl-flight-dialog.h"
#include "pl-function-table.h"
#include "pl-profile.h"
#include "pl-profile-session.h"
#include "pl-sessions-view.h"
#include "pl-source-view.h"
#include "pl-thread-timeline.h"
#include "pl-transform-bar.h"
#include "pl-view-state.h"

G_BEGIN_DECLS

#define PL_TYPE_WINDOW (pl_window_get_type())
G_DECLARE_FINAL_TYPE(PlWindow, pl_window, PL, WINDOW, GtkApplicationWindow)

PlWindow *pl_window_new(GtkApplication *app);
/* Loads a .plens or perf.data file in the background. */
void pl_window_open_file(PlWindow *self, const char *path);
void pl_window_show_connect(PlWindow *self);
/* The saved sessions page (lists the directory again). */
void pl_window_show_sessions(PlWindow *self);
/* "flame", "functions", "source", "chart", "counters", "health", "symbols",
 * "diff" (once a diff is loaded). */
void pl_window_show_view(PlWindow *self, const char *name);
/* Selects a function everywhere and opens its source view. */
gboolean pl_window_open_source(PlWindow *self, guint32 func, GError **error);
/* Opens the symbol settings of board key (NULL when key is empty); saving
 * them re-symbolizes the open session of that board. */
PlTargetDialog *pl_window_edit_target_settings(PlWindow *self, const char *key);
/* Reloads the open session's file with its board's current settings (a
 * live one when it ends). */
void pl_window_resymbolize(PlWindow *self);
/* Loads the saved session at path (in the background) and shows the diff
 * of the open session (base) against it (other). */
void pl_window_diff_with(PlWindow *self, const char *path);
gboolean pl_window_is_diff_loading(PlWindow *self);
const char *pl_window_get_diff_error(PlWindow *self);
void pl_window_set_filter(PlWindow *self, guint32 tid, guint64 t0, guint64 t1);

/* The Fleet page (the fleet store's flame graph, functions, diff). */
void pl_window_show_fleet(PlWindow *self);
/* Save now (win.flight-save): the flight recorder dialog, made and shown
 * (borrowed); when it saved from the recorder in its form before, it
 * saves again at once.  A saved snapshot opens in this window. */
PlFlightDialog *pl_window_flight_save(PlWindow *self);

/* State, for the UI tests (their scripted driver, tests/pl-ui-script.c). */
gboolean pl_window_is_loading(PlWindow *self);
const char *pl_window_get_load_error(PlWindow *self);
PlProfile *pl_window_get_profile(PlWindow *self);
PlAggregate *pl_window_get_aggregate(PlWindow *self);
PlFlameGraph *pl_window_get_flame_graph(PlWindow *self);
PlFunctionTable *pl_window_get_function_table(PlWindow *self);
PlThreadTimeline *pl_window_get_timeline(PlWindow *self);
PlSourceView *pl_window_get_source_view(PlWindow *self);
PlConnectView *pl_window_get_connect_view(PlWindow *self);
PlSessionsView *pl_window_get_sessions_view(PlWindow *self);
PlCoverageView *pl_window_get_coverage_view(PlWindow *self);
PlDiffView *pl_window_get_diff_view(PlWindow *self);
PlHealthView *pl_window_get_health_view(PlWindow *self);
PlHeatmapView *pl_window_get_heatmap_view(PlWindow *self);
PlIoView *pl_window_get_io_view(PlWindow *self);
PlFleetView *pl_window_get_fleet_view(PlWindow *self);
/* The Save now dialog, NULL until first asked for. */
PlFlightDialog *pl_window_get_flight_dialog(PlWindow *self);
/* The Interrupts and Block I/O pages (pl-irq-view.h, pl-block-view.h). */
PlIrqView *pl_window_get_irq_view(PlWindow *self);
PlBlockView *pl_window_get_block_view(PlWindow *self);
PlLocksView *pl_window_get_locks_view(PlWindow *self);
/* The counter tracks under the timeline (pl-counter-tracks-view.h). */
PlCounterTracksView *pl_window_get_counter_tracks(PlWindow *self);
PlFindingsView *pl_window_get_findings_view(PlWindow *self);
PlViewState *pl_window_get_view_state(PlWindow *self);
PlTransformBar *pl_window_get_transform_bar(PlWindow *self);
PlFlameChart *pl_window_get_flame_chart(PlWindow *self);
GtkSearchEntry *pl_window_get_search_entry(PlWindow *self);
/* What the window has open and selected (borrowed). */
PlProfileSession *pl_window_get_session(PlWindow *self);
/* Refreshes the views from the live profile now (normally once a second). */
void pl_window_refresh(PlWindow *self);

G_END_DECLS

#endif
