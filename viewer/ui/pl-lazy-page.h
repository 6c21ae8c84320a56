/* pl-lazy-page.h — a page of the window that follows the session's profile
 * and the window's pick (thread and time range) but reads them only while
 * it is shown. */
#pragma once

#include <gtk/gtk.h>

#include "pl-profile-session.h"

/* What the page does with a profile (NULL: none). */
typedef void (*PlLazyPageSet)(GtkWidget *page, PlProfile *profile);

/* Connects page to session: a new profile is read at once; a live one that
 * grew is read again while the page is mapped, else on its next map, and
 * meanwhile the page's tab is offered when the profile holds a sample of
 * one of `events` (a NULL-ended list, kept by the caller for the page's
 * lifetime). */
void pl_lazy_page_follow(GtkWidget *page, PlProfileSession *session, PlLazyPageSet set_profile,
			 const char *const *events);

/* What a view does when it is shown with a pending update: read the
 * session's current state (its profile, aggregate, filter) again. */
typedef void (*PlLazyUpdate)(GtkWidget *view);

/* Runs update(view) now when view is mapped, else once when it is next
 * mapped: a page nobody looks at costs nothing, and what it shows when
 * looked at is computed from the session as it is then, exactly.  The
 * update of a view is the same function at every call. */
void pl_lazy_page_update(GtkWidget *view, PlLazyUpdate update);

/* Connects page to the window's pick, the thread and time range of the
 * session's filter (its event is not the page's: the pages that follow a
 * pick read events, not samples).  When the pick changes, refresh(page)
 * runs at once while the page is mapped, else once when it is next mapped
 * (or flushed); a profile read through pl_lazy_page_follow meanwhile reads
 * the pick as it is then, and the pending refresh is dropped.  The page
 * reads the pick with pl_lazy_page_get_pick, in refresh and in set. */
void pl_lazy_page_follow_pick(GtkWidget *page, PlProfileSession *session, PlLazyUpdate refresh);

/* The pick page follows, borrowed: the thread (0: every one) and the range
 * ([t0, t1), t1 0: no end) of the session's filter when it last changed,
 * every event; PL_FILTER_ALL for a page that does not follow the pick. */
const PlFilter *pl_lazy_page_get_pick(GtkWidget *page);

/* Whether a pick narrows what the page reads (a thread or a range). */
gboolean pl_lazy_page_has_pick(GtkWidget *page);

/* Runs view's pending work now, if any: a profile that grew, a pick that
 * changed, a deferred update (a getter answering for a page that is not
 * shown). */
void pl_lazy_page_flush(GtkWidget *view);

/* Shows or hides the page's tab when it sits in a GtkStack. */
void pl_lazy_page_show(GtkWidget *page, gboolean visible);
