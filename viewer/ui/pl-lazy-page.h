/* pl-lazy-page.h — a page of the window that follows the session's profile
 * but reads a growing live recording only while it is shown. */
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

/* Runs view's pending update now, if any (a getter answering for a page
 * that is not shown). */
void pl_lazy_page_flush(GtkWidget *view);

/* Shows or hides the page's tab when it sits in a GtkStack. */
void pl_lazy_page_show(GtkWidget *page, gboolean visible);
