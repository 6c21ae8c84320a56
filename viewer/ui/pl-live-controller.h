/* pl-live-controller.h — a live session in the window: the connect view's
 * stream into the window's profile, the once-a-second refresh, and the live
 * bar (what is recording, Pause, Stop).
 *
 * Made for the window's PlConnectView (referenced), whose live session it
 * listens to: every message of a running session is ingested into the profile the
 * window shows (borrowed, set with pl_live_controller_set_profile whenever
 * the window's profile changes), and the window is asked to refresh once a
 * second when something arrived.  The live bar is a widget the window
 * places; the controller owns what it says.
 *
 * Signals: "new-profile", a session starts: the handler takes the fresh
 * profile (made with the board's symbol settings and its HELLO) with
 * pl_live_controller_take_profile and shows it; "started" (const char
 * *path, the session's file); "ended" (const char *why, NULL or empty
 * when it simply ended), emitted once the session no longer counts as
 * live; "refresh", new messages arrived since the last pl_window_refresh.
 * Main thread only.
 */
#ifndef PL_LIVE_CONTROLLER_H
#define PL_LIVE_CONTROLLER_H

#include <gtk/gtk.h>

#include "pl-connect-view.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_LIVE_CONTROLLER (pl_live_controller_get_type())
G_DECLARE_FINAL_TYPE(PlLiveController, pl_live_controller, PL, LIVE_CONTROLLER, GObject)

PlLiveController *pl_live_controller_new(PlConnectView *connect);
/* The live bar (borrowed), hidden until a session starts. */
GtkWidget *pl_live_controller_get_bar(PlLiveController *self);
/* The profile live messages go into (borrowed; NULL: they are dropped). */
void pl_live_controller_set_profile(PlLiveController *self, PlProfile *profile);
/* Within "new-profile": the session's profile (owned by the caller now). */
PlProfile *pl_live_controller_take_profile(PlLiveController *self);
/* TRUE from the start of a session to its end (or until the window shows
 * another file). */
gboolean pl_live_controller_is_live(PlLiveController *self);
/* The window shows a file instead: not live any more, the bar hidden. */
void pl_live_controller_leave(PlLiveController *self);
/* The window refreshed its views: nothing new is pending; the bar counts
 * the samples so far. */
void pl_live_controller_refreshed(PlLiveController *self);

G_END_DECLS

#endif
