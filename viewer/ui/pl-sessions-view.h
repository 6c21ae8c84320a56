/* pl-sessions-view.h — the saved sessions: list, open, rename, delete,
 * export, compare.
 *
 * Lists $XDG_DATA_HOME/perflens/sessions (pl-sessions-index.h) newest
 * first with target, process, date, duration, samples and size.  Heads
 * are read in a worker when the page is shown (reload); sessions without
 * a current sidecar get their duration and samples from a full scan, one
 * file at a time in a second worker, and their rows fill in as each
 * finishes.  The window never waits on either.
 *
 * Signals: "open-session" (string: path) — the user asked to open it;
 * "diff-session" (string: path) — to compare it with the open session;
 * "session-renamed" (string: old path, string: new path).
 * Main thread only.
 */
#ifndef PL_SESSIONS_VIEW_H
#define PL_SESSIONS_VIEW_H

#include <gtk/gtk.h>

#include "pl-sessions-index.h"

G_BEGIN_DECLS

#define PL_TYPE_SESSIONS_VIEW (pl_sessions_view_get_type())
G_DECLARE_FINAL_TYPE(PlSessionsView, pl_sessions_view, PL, SESSIONS_VIEW, GtkWidget)

GtkWidget *pl_sessions_view_new(void);
/* Lists the directory again (in the background). */
void pl_sessions_view_reload(PlSessionsView *self);
/* The file a live recording is writing (NULL: none): it cannot be renamed
 * or deleted until the recording ends. */
void pl_sessions_view_set_recording(PlSessionsView *self, const char *path);
/* Whether "Compare with the open session" is offered. */
void pl_sessions_view_set_can_diff(PlSessionsView *self, gboolean can);

/* State and actions, for the scripted driver and tests. */
gboolean pl_sessions_view_is_busy(PlSessionsView *self); /* listing, scanning or exporting */
guint pl_sessions_view_get_n_sessions(PlSessionsView *self);
const PlSessionInfo *pl_sessions_view_get_info(PlSessionsView *self, guint i);
/* The first row whose file name contains text (ends with it when text
 * ends with '$'; "#N": row N, newest first); G_MAXUINT when none. */
guint pl_sessions_view_find(PlSessionsView *self, const char *text);
void pl_sessions_view_select(PlSessionsView *self, guint i);
/* The same code the dialogs run once the user confirmed. */
gboolean pl_sessions_view_rename(PlSessionsView *self, guint i, const char *new_name,
				 GError **error);
gboolean pl_sessions_view_delete(PlSessionsView *self, guint i, GError **error);
/* Starts an export in a worker; is_busy() until done, then get_status()
 * says what happened and get_export_error() is NULL on success. */
void pl_sessions_view_export(PlSessionsView *self, guint i, const char *format,
			     const char *out);
const char *pl_sessions_view_get_export_error(PlSessionsView *self);
const char *pl_sessions_view_get_status(PlSessionsView *self);
/* Microseconds the last listing took (heads and sidecars of every file). */
gint64 pl_sessions_view_get_list_time(PlSessionsView *self);

G_END_DECLS

#endif
