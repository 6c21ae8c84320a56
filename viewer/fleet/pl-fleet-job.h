/* pl-fleet-job.h — one question to the fleet store, asked off the main
 * loop: the samples whose labels match A (and, to compare, B) over a time
 * range, each side made a PlProfile (pl-fleet-profile.h) for the app's
 * flame graph, function table and diff.  What `perflens fleet report` and
 * `fleet diff` count, read the same way (pl-fleet-query.h), so a page and
 * the command line agree on the same data.
 *
 * Headless (GLib, GIO, libcurl through pl-clickhouse): the app's Fleet
 * page starts it; the command line needs no thread and asks pl-fleet-query
 * itself.  Errors are sentences for a window: what failed, why, what to
 * do (the form's field named where the input is wrong).
 */
#ifndef PL_FLEET_JOB_H
#define PL_FLEET_JOB_H

#include <gio/gio.h>

#include "pl-fleet-query.h"
#include "pl-profile.h"

G_BEGIN_DECLS

/* What to ask (strings copied by pl_fleet_job_async). */
typedef struct {
	const char *url;	 /* ClickHouse's HTTP interface, http://HOST:PORT */
	const char *credentials; /* a file of one line USER:PASSWORD, mode 0600 */
	const char *where;	 /* side A's labels (pl-fleet-query.h); NULL or "": every sample */
	const char *against;	 /* side B's, to compare; NULL or "": no comparison */
	const char *since;	 /* "2h", "7d"…; NULL or "": all time */
	const char *event;	 /* NULL or "": any */
} PlFleetAsk;

/* An owned copy of ask (every string duplicated), for a worker thread;
 * freed with pl_fleet_ask_free. */
PlFleetAsk *pl_fleet_ask_dup(const PlFleetAsk *ask);
void pl_fleet_ask_free(PlFleetAsk *ask);

/* The answer: each side's profile (b NULL without a comparison) and its
 * samples, where they were counted from, and the labels to pick from. */
typedef struct {
	PlProfile *a, *b;
	guint64 total_a, total_b;
	PlFleetSource source;
	/* more samples than a profile holds one by one (PL_FLEET_PROFILE_MAX_SAMPLES):
	 * the profiles are weighted (pl_fleet_profile_new_weighted), their
	 * sample counts count distinct stacks */
	gboolean weighted;
	char **labels; /* the store's labels, "KEY=VALUE" (NULL: could not be read) */
} PlFleetAnswer;

void pl_fleet_answer_free(PlFleetAnswer *answer);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFleetAnswer, pl_fleet_answer_free)

/* Where the samples of the last since_s seconds (0: all time) are counted
 * from unless asked otherwise: the per-minute rollup for all time and for
 * PL_FLEET_ROLLUP_FROM_S or more, every sample below. */
PlFleetSource pl_fleet_source_auto(guint64 since_s);

/* For the page's other questions (pl-fleet-device-job.h): the store ask
 * names, after checking the form (*since_s: its range, 0: all time); a
 * where field parsed (empty: no match; field names it in the error); a
 * server's error e told with what to do about it. */
PlClickhouse *pl_fleet_job_open_store(const PlFleetAsk *ask, guint64 *since_s, GError **error);
GPtrArray *pl_fleet_job_where(const char *where, const char *field, GError **error);
void pl_fleet_job_explain(GError **error, const GError *e);

/* Blocking: the whole question, any thread.  NULL with error (G_IO_ERROR
 * for the form's input and the samples' cap, PL_CLICKHOUSE_ERROR from
 * the server), error's message a sentence for the user. */
PlFleetAnswer *pl_fleet_job_run(const PlFleetAsk *ask, GError **error);

/* The same in a worker thread; callback runs in the caller's thread-default
 * main context with source_object. */
void pl_fleet_job_async(const PlFleetAsk *ask, gpointer source_object,
			GAsyncReadyCallback callback, gpointer user_data);
PlFleetAnswer *pl_fleet_job_finish(GAsyncResult *res, GError **error);

G_END_DECLS

#endif
