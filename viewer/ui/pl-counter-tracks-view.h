/* pl-counter-tracks-view.h — the counter tracks (pl-counter-tracks.h)
 * drawn under the thread timeline: one row a track, its name and latest
 * value in a label column as wide as the timeline's, then its values as a
 * line over the same time axis (the profile's first to last sample), so
 * that a frequency drop or a thermal cap sits under the samples it
 * slowed.  Each row is scaled to its own range (0 to its peak for shares
 * and levels that start at 0); the window's selected range is shaded.
 * Hovering a row shows the track's source, unit, and the value at the
 * pointer; sysfs sources say they were not seen on hardware.
 *
 * Hidden when the profile has no tracks.  The profile is borrowed (as the
 * timeline's).  Main thread only.
 */
#ifndef PL_COUNTER_TRACKS_VIEW_H
#define PL_COUNTER_TRACKS_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_COUNTER_TRACKS_VIEW (pl_counter_tracks_view_get_type())
G_DECLARE_FINAL_TYPE(PlCounterTracksView, pl_counter_tracks_view, PL, COUNTER_TRACKS_VIEW,
		     GtkWidget)

GtkWidget *pl_counter_tracks_view_new(void);
void pl_counter_tracks_view_set_profile(PlCounterTracksView *self, PlProfile *profile);
/* Follows session's profile (and its growth) and its time range. */
void pl_counter_tracks_view_set_session(PlCounterTracksView *self, PlProfileSession *session);
/* Rows drawn, and the text of row i's label and tooltip (at time t, 0:
 * the latest value), for tests and scripts.  Owned by the caller. */
guint pl_counter_tracks_view_get_n_rows(PlCounterTracksView *self);
char *pl_counter_tracks_view_dup_row_text(PlCounterTracksView *self, guint i, guint64 t);

G_END_DECLS

#endif
