/* pl-live-bar.h — the bar above a live session's views: what is recording
 * and how many samples arrived, with Pause and Stop; once it ended, why
 * and where it is saved.
 *
 * Binds to a PlProfileSession (pl_live_bar_set_session): shown when a
 * recording starts feeding the session ("live"), its line made again at
 * every "updated" from the followed PlLiveSession's counts, hidden when
 * the session shows a file instead.  What Pause and Stop do is the
 * window's: "pause-toggled" (gboolean paused), "stop".  Layout in
 * pl-live-bar.ui.  Main thread only.
 */
#ifndef PL_LIVE_BAR_H
#define PL_LIVE_BAR_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

G_BEGIN_DECLS

#define PL_TYPE_LIVE_BAR (pl_live_bar_get_type())
G_DECLARE_FINAL_TYPE(PlLiveBar, pl_live_bar, PL, LIVE_BAR, GtkBox)

GtkWidget *pl_live_bar_new(void);
/* The session the bar follows (not referenced: it outlives the bar). */
void pl_live_bar_set_session(PlLiveBar *self, PlProfileSession *session);

G_END_DECLS

#endif
