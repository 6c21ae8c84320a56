/* pl-fleet-device-job.c — see pl-fleet-device-job.h. */
#include "pl-fleet-device-job.h"

#include <string.h>

#include "pl-fleet-profile.h"

static const char *by_or_device(const char *by)
{
	return by && *by ? by : "device";
}

GPtrArray *pl_fleet_rank_run(const PlFleetAsk *ask, const char *function, const char *by,
			     GError **error)
{
	if (!function || !*function) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Pick a function first: select one on the Functions page (or type its "
			    "name in Function).");
		return NULL;
	}
	guint64 since_s = 0;
	g_autoptr(PlClickhouse) ch = pl_fleet_job_open_store(ask, &since_s, error);
	if (!ch)
		return NULL;
	g_autoptr(GPtrArray) where = pl_fleet_job_where(ask->where, "Labels", error);
	if (!where)
		return NULL;
	PlFleetSource source = pl_fleet_source_auto(since_s);
	g_autofree char *sql = pl_fleet_where_sql(source, where, since_s, ask->event);
	g_autoptr(GError) e = NULL;
	GPtrArray *rows = pl_fleet_query_shares(ch, source, sql, by_or_device(by), function, &e);
	if (!rows)
		pl_fleet_job_explain(error, e);
	return rows;
}

GPtrArray *pl_fleet_sessions_run(const PlFleetAsk *ask, const char *by, const char *value,
				 GError **error)
{
	guint64 since_s = 0;
	g_autoptr(PlClickhouse) ch = pl_fleet_job_open_store(ask, &since_s, error);
	if (!ch)
		return NULL;
	g_autoptr(GPtrArray) where = pl_fleet_job_where(ask->where, "Labels", error);
	if (!where)
		return NULL;
	by = by_or_device(by);
	for (guint i = where->len; i-- > 0;)
		if (!strcmp(((PlFleetMatch *)where->pdata[i])->key, by))
			g_ptr_array_remove_index(where, i);
	g_ptr_array_add(where, pl_fleet_match_new(by, value, FALSE));
	/* every sample: a session's times to the second, whatever the range */
	g_autofree char *sql = pl_fleet_where_sql(PL_FLEET_RAW, where, since_s, ask->event);
	g_autoptr(GError) e = NULL;
	GPtrArray *rows = pl_fleet_query_sessions(ch, PL_FLEET_RAW, sql, &e);
	if (!rows)
		pl_fleet_job_explain(error, e);
	return rows;
}

PlProfile *pl_fleet_open_run(const PlFleetAsk *ask, const char *session, GError **error)
{
	guint64 since_s = 0;
	PlFleetAsk store = { .url = ask->url, .credentials = ask->credentials };
	g_autoptr(PlClickhouse) ch = pl_fleet_job_open_store(&store, &since_s, error);
	if (!ch)
		return NULL;
	g_autoptr(GError) e = NULL;
	PlProfile *p = pl_fleet_session_profile(ch, session, PL_FLEET_PROFILE_MAX_SAMPLES, &e);
	if (!p)
		pl_fleet_job_explain(error, e);
	return p;
}

/* ─── in a worker ────────────────────────────────────────────────────── */

typedef enum { RANK, SESSIONS, OPEN } Kind;

typedef struct {
	Kind kind;
	PlFleetAsk *ask; /* the page's form: against unused */
	char *a, *b;     /* function and by; by and value; session */
} Job;

static void job_free(gpointer p)
{
	Job *j = p;
	pl_fleet_ask_free(j->ask);
	g_free(j->a);
	g_free(j->b);
	g_free(j);
}

static void job_thread(GTask *task, gpointer src, gpointer data, GCancellable *c)
{
	const Job *j = data;
	GError *error = NULL;
	gpointer out = NULL;
	GDestroyNotify free_out = (GDestroyNotify)g_ptr_array_unref;
	switch (j->kind) {
	case RANK:
		out = pl_fleet_rank_run(j->ask, j->a, j->b, &error);
		break;
	case SESSIONS:
		out = pl_fleet_sessions_run(j->ask, j->a, j->b, &error);
		break;
	case OPEN:
		out = pl_fleet_open_run(j->ask, j->a, &error);
		free_out = (GDestroyNotify)pl_profile_free;
		break;
	}
	if (out)
		g_task_return_pointer(task, out, free_out);
	else
		g_task_return_error(task, error);
}

static void start(Kind kind, const PlFleetAsk *ask, const char *a, const char *b, gpointer src,
		  GAsyncReadyCallback callback, gpointer user_data)
{
	Job *j = g_new0(Job, 1);
	j->kind = kind;
	j->ask = pl_fleet_ask_dup(ask);
	j->a = g_strdup(a);
	j->b = g_strdup(b);
	GTask *task = g_task_new(src, NULL, callback, user_data);
	g_task_set_task_data(task, j, job_free);
	g_task_run_in_thread(task, job_thread);
	g_object_unref(task);
}

void pl_fleet_rank_async(const PlFleetAsk *ask, const char *function, const char *by,
			 gpointer source_object, GAsyncReadyCallback callback, gpointer user_data)
{
	start(RANK, ask, function, by, source_object, callback, user_data);
}

GPtrArray *pl_fleet_rank_finish(GAsyncResult *res, GError **error)
{
	return g_task_propagate_pointer(G_TASK(res), error);
}

void pl_fleet_sessions_async(const PlFleetAsk *ask, const char *by, const char *value,
			     gpointer source_object, GAsyncReadyCallback callback,
			     gpointer user_data)
{
	start(SESSIONS, ask, by, value, source_object, callback, user_data);
}

GPtrArray *pl_fleet_sessions_finish(GAsyncResult *res, GError **error)
{
	return g_task_propagate_pointer(G_TASK(res), error);
}

void pl_fleet_open_async(const PlFleetAsk *ask, const char *session, gpointer source_object,
			 GAsyncReadyCallback callback, gpointer user_data)
{
	start(OPEN, ask, session, NULL, source_object, callback, user_data);
}

PlProfile *pl_fleet_open_finish(GAsyncResult *res, GError **error)
{
	return g_task_propagate_pointer(G_TASK(res), error);
}
