/* pl-fleet-query.c — see pl-fleet-query.h. */
#include "pl-fleet-query.h"

#include <string.h>

#include "pl-expr.h"

#define WHERE_EXAMPLE "(e.g. fw=2.3.1,board=imx8mp)"

void pl_fleet_match_free(gpointer p)
{
	PlFleetMatch *m = p;
	g_free(m->key);
	g_free(m->value);
	g_free(m);
}

PlFleetMatch *pl_fleet_match_new(const char *key, const char *value, gboolean negate)
{
	PlFleetMatch *m = g_new0(PlFleetMatch, 1);
	m->key = g_strdup(key);
	m->value = g_strdup(value);
	m->negate = negate;
	return m;
}

static gboolean key_char(char c)
{
	return g_ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
}

GPtrArray *pl_fleet_where_parse(const char *text, GError **error)
{
	g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(pl_fleet_match_free);
	const char *p = text;
	for (;;) {
		const char *k = p;
		while (key_char(*p))
			p++;
		if (p == k) {
			pl_expr_set_error(error, (gsize)(p - text),
					  "a label name (letters, digits, '_', '.', '-') was expected "
					  "here " WHERE_EXAMPLE);
			return NULL;
		}
		gboolean negate = FALSE;
		if (p[0] == '!' && p[1] == '=') {
			negate = TRUE;
			p += 2;
		} else if (p[0] == '=') {
			p++;
		} else {
			pl_expr_set_error(error, (gsize)(p - text),
					  "'=' or '!=' was expected after the label name " WHERE_EXAMPLE);
			return NULL;
		}
		const char *v = p;
		while (*p && *p != ',' && (guchar)*p >= 0x20 && *p != 0x7f)
			p++;
		if (p == v) {
			pl_expr_set_error(error, (gsize)(p - text),
					  "a value was expected after '=' " WHERE_EXAMPLE);
			return NULL;
		}
		if (*p && *p != ',') {
			pl_expr_set_error(error, (gsize)(p - text),
					  "a control character cannot be part of a value");
			return NULL;
		}
		g_autofree char *key = g_strndup(k, (gsize)(v - k - (negate ? 2 : 1)));
		for (guint i = 0; i < out->len; i++)
			if (!strcmp(((PlFleetMatch *)out->pdata[i])->key, key)) {
				pl_expr_set_error(error, (gsize)(k - text),
						  "the label %s is given twice (each once)", key);
				return NULL;
			}
		PlFleetMatch *m = g_new0(PlFleetMatch, 1);
		m->key = g_steal_pointer(&key);
		m->value = g_strndup(v, (gsize)(p - v));
		m->negate = negate;
		g_ptr_array_add(out, m);
		if (!*p)
			break;
		p++; /* ',' */
	}
	return g_steal_pointer(&out);
}

gboolean pl_fleet_since_parse(const char *text, guint64 *out, GError **error)
{
	const char *p = text;
	guint64 n = 0;
	while (g_ascii_isdigit(*p) && n < G_MAXUINT32)
		n = n * 10 + (guint64)(*p++ - '0');
	if (p == text || n == 0 || n >= G_MAXUINT32) {
		pl_expr_set_error(error, (gsize)(p - text),
				  "a positive count was expected (e.g. 90s, 30m, 2h, 7d)");
		return FALSE;
	}
	guint64 unit = *p == 's' ? 1 : *p == 'm' ? 60 : *p == 'h' ? 3600 : *p == 'd' ? 86400 : 0;
	if (!unit || p[1]) {
		pl_expr_set_error(error, (gsize)(p - text + (unit ? 1 : 0)),
				  unit ? "nothing may follow the unit"
				       : "a unit was expected: s, m, h or d (e.g. 2h)");
		return FALSE;
	}
	*out = n * unit;
	return TRUE;
}

char *pl_fleet_where_sql(PlFleetSource source, const GPtrArray *where, guint64 since_s,
			 const char *event)
{
	GString *s = g_string_new("1");
	/* labels and the event are the sessions': the samples of the sessions
	 * that match, by id (GLOBAL: sharded, the sessions are asked once,
	 * not by every shard of every shard) */
	if ((where && where->len) || event) {
		g_string_append(s, " AND session GLOBAL IN (SELECT session FROM perflens_sessions WHERE 1");
		for (guint i = 0; where && i < where->len; i++) {
			const PlFleetMatch *m = where->pdata[i];
			g_autofree char *k = pl_clickhouse_quote(m->key);
			g_autofree char *v = pl_clickhouse_quote(m->value);
			g_string_append_printf(s, " AND labels.value[indexOf(labels.key, %s)] %s %s", k,
					       m->negate ? "!=" : "=", v);
		}
		if (event) {
			g_autofree char *e = pl_clickhouse_quote(event);
			g_string_append_printf(s, " AND event = %s", e);
		}
		g_string_append(s, ")");
	}
	/* from the start of a minute: what the rollup can answer */
	if (since_s)
		g_string_append_printf(s, " AND %s >= toStartOfMinute(now() - %" G_GUINT64_FORMAT ")",
				       source == PL_FLEET_RAW ? "time" : "minute", since_s);
	return g_string_free(s, FALSE);
}

static void stack_free(gpointer p)
{
	PlFleetStack *s = p;
	g_strfreev(s->frames);
	g_free(s);
}

GPtrArray *pl_fleet_query_stacks(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
				 guint64 *total, GError **error)
{
	/* frames joined by a unit separator: no function name holds one */
	g_autofree char *q = g_strdup_printf(
		"SELECT c, arrayStringConcat(fr, '\\x1F') FROM (SELECT stack, %s AS c FROM "
		"%s WHERE %s GROUP BY stack) ANY LEFT JOIN (SELECT stack, "
		"any(frames) AS fr FROM perflens_stacks GROUP BY stack) USING stack "
		"FORMAT TabSeparated",
		source == PL_FLEET_RAW ? "count()" : "sum(samples)",
		source == PL_FLEET_RAW ? "perflens_samples" : "perflens_minutes", where_sql);
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(ch, q, NULL, 0, &out, error))
		return NULL;
	GPtrArray *stacks = g_ptr_array_new_with_free_func(stack_free);
	*total = 0;
	g_autofree char *text = g_strndup((const char *)out->data, out->len);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		char *tab = strchr(lines[i], '\t');
		if (!tab)
			continue;
		*tab = 0;
		PlFleetStack *s = g_new0(PlFleetStack, 1);
		s->count = g_ascii_strtoull(lines[i], NULL, 10);
		/* TabSeparated escapes \ as \\ (and \t \n) */
		g_autofree char *joined = g_strcompress(tab + 1);
		s->frames = *joined ? g_strsplit(joined, "\x1f", -1) : g_new0(char *, 1);
		*total += s->count;
		g_ptr_array_add(stacks, s);
	}
	return stacks;
}

char **pl_fleet_query_labels(PlClickhouse *ch, guint max, GError **error)
{
	/* of the sessions with samples (in the rollup: far fewer rows than
	 * the samples, the same sessions) */
	g_autofree char *q = g_strdup_printf(
		"SELECT DISTINCT concat(k, '=', v) AS l FROM perflens_sessions ARRAY JOIN "
		"labels.key AS k, labels.value AS v WHERE session GLOBAL IN (SELECT DISTINCT session "
		"FROM perflens_minutes) ORDER BY l LIMIT %u FORMAT TabSeparated",
		max);
	g_autoptr(GByteArray) out = NULL;
	if (!pl_clickhouse_run(ch, q, NULL, 0, &out, error))
		return NULL;
	g_autofree char *text = g_strndup((const char *)out->data, out->len);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GPtrArray *labels = g_ptr_array_new();
	for (guint i = 0; lines[i]; i++)
		if (*lines[i])
			g_ptr_array_add(labels, g_strcompress(lines[i]));
	g_ptr_array_add(labels, NULL);
	return (char **)g_ptr_array_free(labels, FALSE);
}
