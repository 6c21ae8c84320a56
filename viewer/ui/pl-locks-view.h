/* pl-locks-view.h — the Locks page: lock contention of a `--locks`
 * recording (pl-locks.h).  On the left the locks, most time waited
 * first (label, process, waits, total and max wait); on the right, for
 * the lock picked (the first one until a click), its waiters with their
 * totals, who held it (the wait time charged to each waker's thread and
 * its stack at the wake call), the waiters' stacks at entry and the
 * wait-time histogram.
 *
 * The page hides itself in its GtkStack while the profile has no futex
 * waits (a pick of a thread without any empties it instead).  A live
 * recording's growth and the window's pick (the waiter, the waits begun
 * in the range) are read again while the page is shown, else when it is
 * next shown (pl-lazy-page.h); the getters read what is pending first.
 * The profile is borrowed.  Main thread only. */
#ifndef PL_LOCKS_VIEW_H
#define PL_LOCKS_VIEW_H

#include <gtk/gtk.h>

#include "pl-locks.h"
#include "pl-profile-session.h"

G_BEGIN_DECLS

#define PL_TYPE_LOCKS_VIEW (pl_locks_view_get_type())
G_DECLARE_FINAL_TYPE(PlLocksView, pl_locks_view, PL, LOCKS_VIEW, GtkBox)

GtkWidget *pl_locks_view_new(void);
/* Reads the locks of profile (NULL clears). */
void pl_locks_view_set_profile(PlLocksView *self, PlProfile *profile);
/* The locks shown (NULL before a profile), borrowed until the next set. */
const PlLocks *pl_locks_view_get_locks(PlLocksView *self);
/* Shows lock i's details, as a click on its row. */
void pl_locks_view_select(PlLocksView *self, guint i);
/* The summary line and the details shown, borrowed. */
const char *pl_locks_view_get_summary(PlLocksView *self);
const char *pl_locks_view_get_details(PlLocksView *self);
/* Follows session: a new profile, one that grew, the window's pick. */
void pl_locks_view_set_session(PlLocksView *self, PlProfileSession *session);

G_END_DECLS

#endif
