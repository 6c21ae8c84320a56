/* pl-findings-job.c — findings in a worker (see the header): a GThread
 * computes, an idle source in the owner's context delivers. */
#include "pl-findings-job.h"

#include "pl-findings.h"
#include "pl-periods.h"

PlFindingsResult *pl_findings_result_compute(PlProfile *p)
{
	PlFindingsResult *r = g_new0(PlFindingsResult, 1);
	const PlProfileStats *st = pl_profile_get_stats(p);
	r->samples = st->samples;
	r->switches = st->switches;
	r->findings = pl_findings_run(p);
	r->tasks = pl_periods_find(p, 0);
	return r;
}

void pl_findings_result_free(PlFindingsResult *r)
{
	if (!r)
		return;
	g_clear_pointer(&r->findings, g_ptr_array_unref);
	g_clear_pointer(&r->tasks, g_ptr_array_unref);
	g_free(r);
}

struct _PlFindingsJob {
	PlProfile *profile; /* borrowed: the owner keeps it until free */
	PlFindingsDone done;
	gpointer data;
	GMainContext *context;
	GThread *thread;
	GMutex lock;
	PlFindingsResult *result; /* under lock: the worker's, until delivered */
	GSource *idle;		  /* under lock: attached by the worker */
	gboolean joined;
};

static void join(PlFindingsJob *job)
{
	if (!job->joined)
		g_thread_join(job->thread);
	job->joined = TRUE;
}

/* The owner's context: the result goes to done. */
static gboolean deliver(gpointer data)
{
	PlFindingsJob *job = data;
	g_mutex_lock(&job->lock);
	PlFindingsResult *r = g_steal_pointer(&job->result);
	g_clear_pointer(&job->idle, g_source_unref);
	g_mutex_unlock(&job->lock);
	join(job); /* it attached this source as its last act */
	if (r)
		job->done(r, job->data);
	return G_SOURCE_REMOVE;
}

static gpointer worker(gpointer data)
{
	PlFindingsJob *job = data;
	PlFindingsResult *r = pl_findings_result_compute(job->profile);
	g_mutex_lock(&job->lock);
	job->result = r;
	job->idle = g_idle_source_new();
	g_source_set_priority(job->idle, G_PRIORITY_DEFAULT_IDLE);
	g_source_set_callback(job->idle, deliver, job, NULL);
	g_source_attach(job->idle, job->context);
	g_mutex_unlock(&job->lock);
	return NULL;
}

PlFindingsJob *pl_findings_job_start(PlProfile *p, PlFindingsDone done, gpointer data)
{
	PlFindingsJob *job = g_new0(PlFindingsJob, 1);
	job->profile = p;
	job->done = done;
	job->data = data;
	job->context = g_main_context_ref_thread_default();
	g_mutex_init(&job->lock);
	/* what the rules would build at their first ask, built here, so that
	 * the worker only reads what this thread reads too */
	pl_profile_prepare_readers(p);
	job->thread = g_thread_new("pl-findings", worker, job);
	return job;
}

PlFindingsResult *pl_findings_job_wait(PlFindingsJob *job)
{
	if (!job)
		return NULL;
	join(job);
	/* the worker is gone: what it left is ours */
	if (job->idle) {
		g_source_destroy(job->idle);
		g_clear_pointer(&job->idle, g_source_unref);
	}
	PlFindingsResult *r = g_steal_pointer(&job->result);
	g_main_context_unref(job->context);
	g_mutex_clear(&job->lock);
	g_free(job);
	return r;
}

void pl_findings_job_free(PlFindingsJob *job)
{
	pl_findings_result_free(pl_findings_job_wait(job));
}
