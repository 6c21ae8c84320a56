/* pl-fleet-job.c — see pl-fleet-job.h. */
#include "pl-fleet-job.h"

#include "pl-clickhouse.h"
#include "pl-fleet-profile.h"

void pl_fleet_answer_free(PlFleetAnswer *answer)
{
	if (!answer)
		return;
	g_clear_pointer(&answer->a, pl_profile_free);
	g_clear_pointer(&answer->b, pl_profile_free);
	g_strfreev(answer->labels);
	g_free(answer);
}

PlFleetAsk *pl_fleet_ask_dup(const PlFleetAsk *ask)
{
	PlFleetAsk *a = g_new0(PlFleetAsk, 1);
	a->url = g_strdup(ask->url);
	a->credentials = g_strdup(ask->credentials);
	a->where = g_strdup(ask->where);
	a->against = g_strdup(ask->against);
	a->since = g_strdup(ask->since);
	a->event = g_strdup(ask->event);
	return a;
}

void pl_fleet_ask_free(PlFleetAsk *ask)
{
	if (!ask)
		return;
	/* the strings are the copy's own (pl_fleet_ask_dup) */
	g_free((char *)ask->url);
	g_free((char *)ask->credentials);
	g_free((char *)ask->where);
	g_free((char *)ask->against);
	g_free((char *)ask->since);
	g_free((char *)ask->event);
	g_free(ask);
}

PlFleetSource pl_fleet_source_auto(guint64 since_s)
{
	return !since_s || since_s >= PL_FLEET_ROLLUP_FROM_S ? PL_FLEET_MINUTES : PL_FLEET_RAW;
}

static gboolean empty(const char *s)
{
	return !s || !*s;
}

/* A form field the parser refused: its name, where, and why. */
static void field_error(GError **error, const char *field, const char *text, const GError *e)
{
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
		    "%s “%s”: at character %d, %s", field, text, e->code + 1, e->message);
}

void pl_fleet_job_explain(GError **error, const GError *e)
{
	const char *todo =
		g_error_matches(e, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_UNREACHABLE)
			? "Check the URL, and that the server runs (ci/clickhouse/server.sh "
			  "start DIR starts one)."
		: g_error_matches(e, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_AUTH)
			? "Check the credentials file: one line USER:PASSWORD."
		: g_error_matches(e, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_BUSY)
			? "Ask again in a moment."
		: e->domain == PL_CLICKHOUSE_ERROR
			? "Is it the store perflens collect writes into (perflens fleet "
			  "schema makes its tables)?"
			: NULL;
	if (todo)
		g_set_error(error, e->domain, e->code, "%s\n%s", e->message, todo);
	else
		g_set_error(error, e->domain, e->code, "%s", e->message);
}

PlClickhouse *pl_fleet_job_open_store(const PlFleetAsk *ask, guint64 *since_s, GError **error)
{
	if (empty(ask->url) || empty(ask->credentials)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "The fleet store needs its ClickHouse URL (http://HOST:PORT) and a "
			    "credentials file (one line USER:PASSWORD, readable by you only).");
		return NULL;
	}
	g_autoptr(GError) e = NULL;
	*since_s = 0;
	if (!empty(ask->since) && !pl_fleet_since_parse(ask->since, since_s, &e)) {
		field_error(error, "Since", ask->since, e);
		return NULL;
	}
	PlClickhouse *ch = pl_clickhouse_new(ask->url, ask->credentials, &e);
	if (!ch)
		g_set_error(error, e->domain, e->code, "%s", e->message);
	return ch;
}

GPtrArray *pl_fleet_job_where(const char *where, const char *field, GError **error)
{
	if (empty(where))
		return g_ptr_array_new_with_free_func(pl_fleet_match_free);
	g_autoptr(GError) e = NULL;
	GPtrArray *m = pl_fleet_where_parse(where, &e);
	if (!m)
		field_error(error, field, where, e);
	return m;
}

/* One side: its stacks, then its profile. */
static PlProfile *side(PlClickhouse *ch, PlFleetSource source, const char *where,
		       const char *field, guint64 since_s, const char *event, guint64 *total,
		       gboolean *weighted, GError **error)
{
	g_autoptr(GPtrArray) matches = NULL;
	g_autoptr(GError) e = NULL;
	if (!empty(where) && !(matches = pl_fleet_where_parse(where, &e))) {
		field_error(error, field, where, e);
		return NULL;
	}
	g_autofree char *sql = pl_fleet_where_sql(source, matches, since_s, event);
	g_autoptr(GPtrArray) stacks = pl_fleet_query_stacks(ch, source, sql, total, &e);
	if (!stacks) {
		pl_fleet_job_explain(error, e);
		return NULL;
	}
	if (*total == 0) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "No samples%s%s%s in the fleet store.\nCheck the labels (the agents' "
			    "--label KEY=VALUE) and the time range, or leave %s empty for all.",
			    empty(where) ? "" : " where ", empty(where) ? "" : where,
			    since_s ? " in that time range" : "", field);
		return NULL;
	}
	g_autofree char *name = empty(where) ? g_strdup("the fleet (every label)")
					      : g_strdup_printf("the fleet where %s", where);
	/* past the cap, the flame graph and the shares are drawn from the
	 * stacks weighted by their samples: a hundred million samples cost
	 * what their distinct stacks cost */
	if (*total > PL_FLEET_PROFILE_MAX_SAMPLES) {
		*weighted = TRUE;
		return pl_fleet_profile_new_weighted(stacks, empty(event) ? NULL : event, name);
	}
	return pl_fleet_profile_new(stacks, empty(event) ? NULL : event, name,
				    PL_FLEET_PROFILE_MAX_SAMPLES, error);
}

PlFleetAnswer *pl_fleet_job_run(const PlFleetAsk *ask, GError **error)
{
	guint64 since_s = 0;
	g_autoptr(PlClickhouse) ch = pl_fleet_job_open_store(ask, &since_s, error);
	if (!ch)
		return NULL;
	g_autoptr(PlFleetAnswer) ans = g_new0(PlFleetAnswer, 1);
	ans->source = pl_fleet_source_auto(since_s);
	ans->a = side(ch, ans->source, ask->where, "Labels", since_s, ask->event, &ans->total_a,
		      &ans->weighted, error);
	if (!ans->a)
		return NULL;
	if (!empty(ask->against)) {
		ans->b = side(ch, ans->source, ask->against, "Compare with", since_s, ask->event,
			      &ans->total_b, &ans->weighted, error);
		if (!ans->b)
			return NULL;
	}
	/* a help for the next question: the answer stands without it */
	ans->labels = pl_fleet_query_labels(ch, 300, NULL);
	return g_steal_pointer(&ans);
}

static void job_thread(GTask *task, gpointer src, gpointer data, GCancellable *c)
{
	GError *error = NULL;
	PlFleetAnswer *ans = pl_fleet_job_run(data, &error);
	if (ans)
		g_task_return_pointer(task, ans, (GDestroyNotify)pl_fleet_answer_free);
	else
		g_task_return_error(task, error);
}

void pl_fleet_job_async(const PlFleetAsk *ask, gpointer source_object,
			GAsyncReadyCallback callback, gpointer user_data)
{
	GTask *task = g_task_new(source_object, NULL, callback, user_data);
	g_task_set_task_data(task, pl_fleet_ask_dup(ask), (GDestroyNotify)pl_fleet_ask_free);
	g_task_run_in_thread(task, job_thread);
	g_object_unref(task);
}

PlFleetAnswer *pl_fleet_job_finish(GAsyncResult *res, GError **error)
{
	return g_task_propagate_pointer(G_TASK(res), error);
}
