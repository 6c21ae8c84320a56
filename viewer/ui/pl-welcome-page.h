/* pl-welcome-page.h — what the window shows before a session is open: the
 * name, a line saying what to do (or why the last file did not open), and
 * the three ways in (connect, saved sessions, open a file), which activate
 * the window's actions win.connect, win.sessions and win.open.
 */
#ifndef PL_WELCOME_PAGE_H
#define PL_WELCOME_PAGE_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The page; *hint is its message line, for the window to replace (a load
 * error) — owned by the page. */
GtkWidget *pl_welcome_page_new(GtkLabel **hint);

G_END_DECLS

#endif
