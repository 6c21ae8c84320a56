/* pl-load-job.h — a file loading into a profile in a worker thread, with
 * progress and cancellation: what the window (and its diff) load with.
 *
 * No widgets.  The worker is pl_target_load_file (the board's symbol
 * settings over viewer/io/pl-loader.c, the one way a file becomes a
 * model); this object is the app's side of it: it runs one load at a time
 * (starting another cancels the running one), emits "progress" every second
 * while loading, and "finished" (const char *path) on the main thread when
 * a load ends, cancelled, failed or done.  In a "finished" handler,
 * pl_load_job_take_profile steals the profile (NULL when it failed;
 * pl_load_job_get_error then says why, G_IO_ERROR_CANCELLED when
 * cancelled); a profile nobody takes is freed after the signal.
 *
 * A running load keeps the loader alive until its worker returns: drop the
 * handlers and cancel before letting it go.  Main thread only.
 */
#ifndef PL_LOAD_JOB_H
#define PL_LOAD_JOB_H

#include <glib-object.h>

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_LOAD_JOB (pl_load_job_get_type())
G_DECLARE_FINAL_TYPE(PlLoadJob, pl_load_job, PL, LOAD_JOB, GObject)

PlLoadJob *pl_load_job_new(void);
/* Loads path (a .plens or perf.data) in a worker; cancels a running load. */
void pl_load_job_load(PlLoadJob *self, const char *path);
void pl_load_job_cancel(PlLoadJob *self);
gboolean pl_load_job_is_loading(PlLoadJob *self);
/* The file asked for last (NULL before the first load). */
const char *pl_load_job_get_path(PlLoadJob *self);
/* Messages read by the running load (written by its worker). */
gsize pl_load_job_get_progress(PlLoadJob *self);
/* What a debuginfod fetch of the running load is doing ("fetching the
 * debug info of libc.so.6 from URL: 1.2 MB of 3.4 MB"), or the reason the
 * last one failed; NULL when none.  The load's cancel ends a fetch too. */
char *pl_load_job_dup_fetch_status(PlLoadJob *self);
/* Within "finished": the profile (owned by the caller now), or NULL. */
PlProfile *pl_load_job_take_profile(PlLoadJob *self);
/* Within "finished": why the load gave no profile (borrowed), or NULL. */
const GError *pl_load_job_get_error(PlLoadJob *self);

G_END_DECLS

#endif
