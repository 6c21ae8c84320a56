/* pl-fleet-schema.c — see pl-fleet-schema.h. */
#include "pl-fleet-schema.h"

#define SAMPLES_COLUMNS                                                              \
	"(date Date DEFAULT toDate(time), time DateTime, time_ns UInt32, session String, " \
	"block UInt32, event String, labels Nested(key String, value String), "            \
	"pid UInt32, tid UInt32, cpu UInt16, stack UInt64, value UInt64)"

static gboolean run(PlClickhouse *ch, const char *sql, GError **error)
{
	return pl_clickhouse_run(ch, sql, NULL, 0, NULL, error);
}

gboolean pl_fleet_schema_apply(PlClickhouse *ch, const char *cluster, GError **error)
{
	const char *sfx = cluster ? "_local" : "";
	g_autofree char *samples = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_samples%s " SAMPLES_COLUMNS
		" ENGINE = MergeTree PARTITION BY toYYYYMM(date) ORDER BY (session, block, stack, time)",
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
		"ORDER BY (minute, session, block, event, stack) AS " PL_FLEET_MINUTES_SELECT
		" FROM perflens_samples%s GROUP BY minute, session, block, event, stack",
		sfx, sfx);
	g_autofree char *symbols = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_symbols%s (build_id String, offset UInt64, "
		"is_return UInt8, functions Array(String), modules Array(String), "
		"files Array(String), lines Array(UInt32), rel_addrs Array(UInt64), "
		"inlined Array(UInt8), decl_files Array(String), decl_lines Array(UInt32)) "
		"ENGINE = ReplacingMergeTree ORDER BY (build_id, offset, is_return)",
		sfx);
	if (!run(ch, samples, error) || !run(ch, stacks, error) || !run(ch, minutes, error) ||
	    !run(ch, symbols, error))
		return FALSE;
	if (!cluster)
		return TRUE;
	g_autofree char *q = pl_clickhouse_quote(cluster);
	g_autofree char *d_samples = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_samples AS perflens_samples_local "
		"ENGINE = Distributed(%s, currentDatabase(), perflens_samples_local, sipHash64(session))",
		q);
	g_autofree char *d_stacks = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_stacks AS perflens_stacks_local "
		"ENGINE = Distributed(%s, currentDatabase(), perflens_stacks_local, stack)",
		q);
	g_autofree char *d_minutes = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_minutes AS perflens_minutes_local "
		"ENGINE = Distributed(%s, currentDatabase(), perflens_minutes_local, "
		"sipHash64(session))",
		q);
	g_autofree char *d_symbols = g_strdup_printf(
		"CREATE TABLE IF NOT EXISTS perflens_symbols AS perflens_symbols_local "
		"ENGINE = Distributed(%s, currentDatabase(), perflens_symbols_local, "
		"sipHash64(build_id))",
		q);
	return run(ch, d_samples, error) && run(ch, d_stacks, error) && run(ch, d_minutes, error) &&
	       run(ch, d_symbols, error);
}
