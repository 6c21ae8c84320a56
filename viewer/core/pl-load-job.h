/* pl-profile-loader.h — a file loading into a profile for the window, in a
 * worker thread, with progress and cancellation.
 *
 * No widgets.  The worker is pl_target_load_file (the board's symbol
 * settings over viewer/io/pl-loader.c, the one way a file becomes a
 * model); this object is the app's side of it: it runs one load at a time
 * (starting another cancels the running one), emits "progress" every 250 ms
 * while loading, and "finished" (const char *path) on the main thread when
 * a load ends, cancelled, failed or done.  In a "finished" handler,
 * pl_profile_loader_take_profile steals the profile (NULL when it failed;
 * pl_profile_loader_get_error then says why, G_IO_ERROR_CANCELLED when
 * cancelled); a profile nobody takes is freed after the signal.
 *
 * A running load keeps the loader alive until its worker returns: drop the
 * handlers and cancel before letting it go.  Main thread only.
 */
#ifndef PL_PROFILE_LOADER_H
#define PL_PROFILE_LOADER_H

#include <glib-object.h>

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_PROFILE_LOADER (pl_profile_loader_get_type())
G_DECLARE_FINAL_TYPE(PlProfileLoader, pl_profile_loader, PL, PROFILE_LOADER, GObject)

PlProfileLoader *pl_profile_loader_new(void);
/* Loads path (a .plens or perf.data) in a worker; cancels a running load. */
void pl_profile_loader_load(PlProfileLoader *self, const char *path);
void pl_profile_loader_cancel(PlProfileLoader *self);
gboolean pl_profile_loader_is_loading(PlProfileLoader *self);
/* The file asked for last (NULL before the first load). */
const char *pl_profile_loader_get_path(PlProfileLoader *self);
/* Messages read by the running load (written by its worker). */
gsize pl_profile_loader_get_progress(PlProfileLoader *self);
/* What a debuginfod fetch of the running load is doing ("fetching the
 * debug info of libc.so.6 from URL: 1.2 MB of 3.4 MB"), or the reason the
 * last one failed; NULL when none.  The load's cancel ends a fetch too. */
char *pl_profile_loader_dup_fetch_status(PlProfileLoader *self);
/* Within "finished": the profile (owned by the caller now), or NULL. */
PlProfile *pl_profile_loader_take_profile(PlProfileLoader *self);
/* Within "finished": why the load gave no profile (borrowed), or NULL. */
const GError *pl_profile_loader_get_error(PlProfileLoader *self);

G_END_DECLS

#endif
