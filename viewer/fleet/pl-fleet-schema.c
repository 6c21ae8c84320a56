/* pl-fleet-schema.c — see pl-fleet-schema.h. */
#include "pl-fleet-schema.h"

G_DEFINE_QUARK(pl-fleet-schema-error-quark, pl_fleet_schema_error)

#define SAMPLES_COLUMNS                                                                   \
	"(time DateTime, time_ns UInt32, session UInt64, block UInt32, pid UInt32, tid UInt32, " \
	"cpu UInt16, stack UInt64, value UInt64)"

static gboolean run(PlClickhouse *ch, const char *sql, GError **error)
{
	return pl_clickhouse_run(ch, sql, NULL, 0, NULL, error);
}

guint64 pl_fleet_session_id(const char *session)
{
	/* FNV-1a 64: two sessions' ids collide with a chance below 10^-9
	 * among the hundred thousand sessions of a year of a fleet */
	guint64 h = 0xcbf29ce484222325ull;
	for (const guint8 *p = (const guint8 *)session; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* An earlier schema's tables: their sample and rollup rows carry the
 * session's name, event and labels as strings. */
static gboolean check_not_old(PlClickhouse *ch, GError **error)
{
	g_autofree char *n = pl_clickhouse_query_value(
		ch,
		"SELECT count() FROM system.columns WHERE database = currentDatabase() AND "
		"table IN ('perflens_samples', 'perflens_samples_local', '.inner.perflens_minutes', "
		"'.inner.perflens_minutes_local') AND name IN ('labels.key', 'label_keys', 'event')",
		error);
	if (!n)
		return FALSE;
	if (g_ascii_strtoull(n, NULL, 10) == 0)
		return TRUE;
	g_set_error(error, PL_FLEET_SCHEMA_ERROR, PL_FLEET_SCHEMA_ERROR_OLD,
		    "ClickHouse at %s holds the fleet tables of an earlier PerfLens, whose sample "
		    "rows carry their labels as strings; this one stores them once per session and "
		    "does not convert the old rows.  Export what you want to keep with the earlier "
		    "perflens (fleet export), then drop the old tables (DROP TABLE perflens_minutes; "
		    "DROP TABLE perflens_samples; DROP TABLE perflens_stacks; in a cluster their "
		    "_local tables too, on every server; perflens_symbols stays) and start again",
		    pl_clickhouse_get_url(ch));
	return FALSE;
}

gboolean pl_fleet_schema_apply(PlClickhouse *ch, const char *cluster, GError **error)
{
	if (!check_not_old(ch, error))
		return FALSE;
	const char *sfx = cluster ? "_local" : "";
	g_autofree char *samples = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_samples%s " SAMPLES_COLUMNS
		" ENGINE = MergeTree PARTITION BY toYYYYMM(time) ORDER BY (session, block, stack, time)",
		sfx);
	g_autofree char *sessions = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_sessions%s (session UInt64, name String, "
		"event String, labels Nested(key String, value String)) "
		"ENGINE = ReplacingMergeTree ORDER BY session",
		sfx);
	g_autofree char *stacks = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_stacks%s (stack UInt64, frames Array(String)) "
		"ENGINE = ReplacingMergeTree ORDER BY stack",
		sfx);
	/* by block too: the store checks that a block it finds stored has its
	 * rollup (a server killed between writing the two has not) */
	g_autofree char *minutes = g_strdup_printf(
		"CREATE MATERIALIZED VIEW IF NOT EXISTS perflens_minutes%s "
		"ENGINE = SummingMergeTree PARTITION BY toYYYYMM(minute) "
		"ORDER BY (minute, session, block, stack) AS " PL_FLEET_MINUTES_SELECT
		" FROM perflens_samples%s " PL_FLEET_MINUTES_GROUP,
		sfx, sfx);
	g_autofree char *symbols = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_symbols%s (build_id String, offset UInt64, "
		"is_return UInt8, functions Array(String), modules Array(String), "
		"files Array(String), lines Array(UInt32), rel_addrs Array(UInt64), "
		"inlined Array(UInt8), decl_files Array(String), decl_lines Array(UInt32)) "
		"ENGINE = ReplacingMergeTree ORDER BY (build_id, offset, is_return)",
		sfx);
	if (!run(ch, samples, error) || !run(ch, sessions, error) || !run(ch, stacks, error) ||
	    !run(ch, minutes, error) || !run(ch, symbols, error))
		return FALSE;
	if (!cluster)
		return TRUE;
	g_autofree char *q = pl_clickhouse_quote(cluster);
	/* a session's samples, its row and its rollup on one shard */
	static const char *const by_session[] = { "perflens_samples", "perflens_sessions",
						  "perflens_minutes" };
	for (guint i = 0; i < G_N_ELEMENTS(by_session); i++) {
		g_autofree char *d = g_strdup_printf(
			"CREATE TABLE IF NOT EXISTS %s AS %s_local ENGINE = Distributed(%s, "
			"currentDatabase(), %s_local, intHash64(session))",
			by_session[i], by_session[i], q, by_session[i]);
		if (!run(ch, d, error))
			return FALSE;
	}
	g_autofree char *d_stacks = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_stacks AS perflens_stacks_local "
		"ENGINE = Distributed(%s, currentDatabase(), perflens_stacks_local, stack)",
		q);
	g_autofree char *d_symbols = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_symbols AS perflens_symbols_local "
		"ENGINE = Distributed(%s, currentDatabase(), perflens_symbols_local, "
		"sipHash64(build_id))",
		q);
	return run(ch, d_stacks, error) && run(ch, d_symbols, error);
}
