/* pl-findings-job.h — a profile's findings (pl-findings.h) and periodic
 * tasks (pl-periods.h) computed in a worker thread, the result handed to
 * the owner's main context by an idle callback.  No widgets: a session
 * (pl-profile-session.h) runs it when a file's profile arrives, and the
 * Findings page and the window's badge read the result it publishes.
 *
 * The profile is read by the worker while the owner's thread reads it
 * too: pl_findings_job_start calls pl_profile_prepare_readers first, and
 * the owner must not change the profile (ingest, short names, a stack
 * filter's interning) nor free it before pl_findings_job_wait or _free,
 * which wait for the worker.  Start and free on the owner's thread.
 */
#ifndef PL_FINDINGS_JOB_H
#define PL_FINDINGS_JOB_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

/* What the rules and the period detection saw in one profile. */
typedef struct {
	GPtrArray *findings; /* PlFinding*, owned (freed with the array), in rule order */
	GPtrArray *tasks;    /* PlPeriodicTask*, owned (freed with the array) */
	guint64 samples, switches; /* the profile's counts when they were computed */
} PlFindingsResult;

/* Computes both now, on this thread. */
PlFindingsResult *pl_findings_result_compute(PlProfile *p);
void pl_findings_result_free(PlFindingsResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFindingsResult, pl_findings_result_free)

typedef struct _PlFindingsJob PlFindingsJob;

/* Called in the owner's main context once the worker is done; result is
 * the callee's.  Not called after pl_findings_job_free. */
typedef void (*PlFindingsDone)(PlFindingsResult *result, gpointer data);

/* Starts the worker on p; done(result, data) comes from an idle source
 * of the thread-default main context. */
PlFindingsJob *pl_findings_job_start(PlProfile *p, PlFindingsDone done, gpointer data);
/* Waits for the worker (if it still runs) and frees the job: done is not
 * called.  _wait returns the result (the caller's; NULL when done had it
 * already), _free drops it.  NULL: nothing. */
PlFindingsResult *pl_findings_job_wait(PlFindingsJob *job);
void pl_findings_job_free(PlFindingsJob *job);

G_END_DECLS

#endif
