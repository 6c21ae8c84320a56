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

/* Shows or hides the page's tab when it sits in a GtkStack. */
void pl_lazy_page_show(GtkWidget *page, gboolean visible);
