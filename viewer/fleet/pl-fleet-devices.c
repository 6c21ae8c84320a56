/* pl-fleet-devices.c — see pl-fleet-devices.h.  Answers come back as
 * RowBinary (pl-fleet-rowbinary.h), read through its bounds-checked
 * cursor: labels and session names are the agents' text, never parsed as
 * TabSeparated escapes. */
#include "pl-fleet-devices.h"

#include <gio/gio.h>
#include <string.h>

#include "pl-fleet-rowbinary.h"
#include "pl-fleet-schema.h"

static void share_free(gpointer p)
{
	PlFleetShare *s = p;
	g_free(s->value);
	g_free(s);
}

static void session_free(gpointer p)
{
	PlFleetSession *s = p;
	g_free(s->session);
	g_strfreev(s->labels);
	g_free(s);
}

double pl_fleet_share_total_pct(const PlFleetShare *s)
{
	return s->samples ? 100.0 * (double)s->total / (double)s->samples : 0;
}

double pl_fleet_share_self_pct(const PlFleetShare *s)
{
	return s->samples ? 100.0 * (double)s->self / (double)s->samples : 0;
}

const char *pl_fleet_label_value(char **labels, const char *key)
{
	gsize n = strlen(key);
	for (guint i = 0; labels && labels[i]; i++)
		if (!strncmp(labels[i], key, n) && labels[i][n] == '=')
			return labels[i] + n + 1;
	return NULL;
}

char *pl_fleet_session_sql(const char *session)
{
	return g_strdup_printf("session = %" G_GUINT64_FORMAT, pl_fleet_session_id(session));
}

/* The condition "frame label f (an SQL expression) is function fn (a
 * quoted literal)": the label itself ("NAME MODULE"), or NAME followed by
 * one space and a module, which holds no space (the label's last space
 * parts the two, as the report splits it). */
static char *match_sql(const char *f, const char *fn)
{
	return g_strdup_printf("(%s = %s OR (substring(%s, 1, length(%s) + 1) = concat(%s, ' ') AND "
			       "position(substring(%s, length(%s) + 2), ' ') = 0))",
			       f, fn, f, fn, fn, f, fn);
}

static gint by_share(gconstpointer a, gconstpointer b)
{
	const PlFleetShare *x = *(PlFleetShare *const *)a, *y = *(PlFleetShare *const *)b;
	/* compared as fractions, exactly: x.total/x.samples vs y.total/y.samples */
	unsigned __int128 l = (unsigned __int128)x->total * y->samples,
			  r = (unsigned __int128)y->total * x->samples;
	if (l != r)
		return l < r ? 1 : -1;
	l = (unsigned __int128)x->self * y->samples;
	r = (unsigned __int128)y->self * x->samples;
	if (l != r)
		return l < r ? 1 : -1;
	return strcmp(x->value, y->value);
}

/* Each session's value of label key, as a table (session, d) to join. */
static char *label_sql(const char *key)
{
	g_autofree char *k = pl_clickhouse_quote(key);
	return g_strdup_printf("SELECT session, any(labels.value[indexOf(labels.key, %s)]) AS d "
			       "FROM perflens_sessions GROUP BY session",
			       k);
}

static const char *table_of(PlFleetSource source)
{
	return source == PL_FLEET_RAW ? "perflens_samples" : "perflens_minutes";
}

static const char *count_of(PlFleetSource source)
{
	return source == PL_FLEET_RAW ? "count()" : "sum(samples)";
}

static gboolean bad_answer(GError **error, const char *what)
{
	g_set_error(error, PL_CLICKHOUSE_ERROR, PL_CLICKHOUSE_ERROR_REFUSED,
		    "ClickHouse's answer to %s is not the rows asked for (a different schema? "
		    "perflens fleet schema makes this one's)",
		    what);
	return FALSE;
}

GPtrArray *pl_fleet_query_shares(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
				 const char *by, const char *function, GError **error)
{
	g_autofree char *fn = pl_clickhouse_quote(function);
	g_autofree char *any = match_sql("f", fn);
	g_autofree char *leaf = match_sql("fr[1]", fn);
	g_autofree char *label = label_sql(by);
	/* per (session, stack) first, so that the stacks' frames are matched
	 * once per stack and the session's label once per session, not once
	 * per sample */
	g_autofree char *q = g_strdup_printf(
		"SELECT d, toUInt64(sum(c)), toUInt64(sumIf(c, is_self)), toUInt64(sumIf(c, is_any)), "
		"toUInt64(uniqExact(session)) FROM (SELECT session, stack, c, d FROM (SELECT session, "
		"stack, %s AS c FROM %s WHERE %s GROUP BY session, stack) ANY LEFT JOIN (%s) USING "
		"session) ANY LEFT JOIN (SELECT stack, arrayExists(f -> %s, fr) AS is_any, %s AS "
		"is_self FROM (SELECT stack, any(frames) AS fr FROM perflens_stacks GROUP BY stack)) "
		"USING stack GROUP BY d FORMAT RowBinary",
		count_of(source), table_of(source), where_sql, label, any, leaf);
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(ch, q, NULL, 0, &out, error))
		return NULL;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(share_free);
	PlRbCursor c = { out->data, out->data + out->len, FALSE };
	while (c.p < c.end && !c.bad) {
		gsize n = 0;
		const char *v = pl_rb_str(&c, &n);
		PlFleetShare s = { 0 };
		s.samples = pl_rb_int(&c, 8);
		s.self = pl_rb_int(&c, 8);
		s.total = pl_rb_int(&c, 8);
		s.sessions = pl_rb_int(&c, 8);
		if (c.bad || s.self > s.samples || s.total > s.samples || s.self > s.total) {
			c.bad = TRUE;
			break;
		}
		PlFleetShare *r = g_memdup2(&s, sizeof s);
		r->value = g_strndup(v, n);
		g_ptr_array_add(rows, r);
	}
	if (c.bad || c.p != c.end) {
		bad_answer(error, "the devices' shares");
		return NULL;
	}
	g_ptr_array_sort(rows, by_share);
	return g_steal_pointer(&rows);
}

/* An Array(String) as a GStrv; NULL when c is bad. */
static char **take_strings(PlRbCursor *c)
{
	guint64 n = pl_rb_len(c);
	/* each string takes a byte at least */
	if (c->bad || n > (guint64)(c->end - c->p)) {
		c->bad = TRUE;
		return NULL;
	}
	char **v = g_new0(char *, n + 1);
	for (guint64 i = 0; i < n; i++) {
		gsize len = 0;
		const char *s = pl_rb_str(c, &len);
		if (!s) {
			g_strfreev(v);
			return NULL;
		}
		v[i] = g_strndup(s, len);
	}
	return v;
}

GPtrArray *pl_fleet_query_sessions(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
				   GError **error)
{
	const char *t = source == PL_FLEET_RAW ? "time" : "minute";
	/* the name and labels joined once per session */
	g_autofree char *q = g_strdup_printf(
		"SELECT name, lk, lv, c, t0, t1 FROM (SELECT session, toUInt64(%s) AS c, "
		"toUInt32(min(%s)) AS t0, toUInt32(max(%s)) AS t1 FROM %s WHERE %s GROUP BY session) "
		"ANY LEFT JOIN (SELECT session, any(name) AS name, any(labels.key) AS lk, "
		"any(labels.value) AS lv FROM perflens_sessions GROUP BY session) USING session "
		"ORDER BY t0, name FORMAT RowBinary",
		count_of(source), t, t, table_of(source), where_sql);
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(ch, q, NULL, 0, &out, error))
		return NULL;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(session_free);
	PlRbCursor c = { out->data, out->data + out->len, FALSE };
	while (c.p < c.end && !c.bad) {
		gsize n = 0;
		const char *name = pl_rb_str(&c, &n);
		g_auto(GStrv) keys = take_strings(&c);
		g_auto(GStrv) values = take_strings(&c);
		guint64 samples = pl_rb_int(&c, 8);
		guint64 t0 = pl_rb_int(&c, 4), t1 = pl_rb_int(&c, 4);
		if (c.bad || g_strv_length(keys) != g_strv_length(values)) {
			c.bad = TRUE;
			break;
		}
		PlFleetSession *s = g_new0(PlFleetSession, 1);
		s->session = g_strndup(name, n);
		guint nl = g_strv_length(keys);
		s->labels = g_new0(char *, nl + 1);
		for (guint i = 0; i < nl; i++)
			s->labels[i] = g_strdup_printf("%s=%s", keys[i], values[i]);
		s->samples = samples;
		s->first = (gint64)t0;
		s->last = (gint64)t1;
		g_ptr_array_add(rows, s);
	}
	if (c.bad || c.p != c.end) {
		bad_answer(error, "the sessions");
		return NULL;
	}
	return g_steal_pointer(&rows);
}
