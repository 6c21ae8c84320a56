/* pl-fleet-schema.h — the fleet store's tables in ClickHouse (18.16 and later).
 *
 * A sample row carries numbers only; every string is in a side table,
 * written once per distinct value:
 *
 *   perflens_samples  one row a sample, all fixed-width: time (DateTime +
 *                     ns), session (its id, pl_fleet_session_id), block (the
 *                     collector's insert unit), pid, tid, cpu, stack (a hash
 *                     of its frames), value (a count of 1 for a sample,
 *                     nanoseconds off-CPU, …).  MergeTree by month, ordered
 *                     by (session, block, stack, time), so that "is block K
 *                     of session S stored?" reads one range.  Inserted in
 *                     ClickHouse's Native format (columns, no per-row
 *                     parsing).
 *   perflens_sessions session id -> its name, its event and its labels
 *                     (Nested key/value: fw, board, device …):
 *                     ReplacingMergeTree, one row a session (written again
 *                     by a restarted collector: readers group by session).
 *                     A question about labels or an event selects sessions
 *                     here, then their samples by id (GLOBAL IN).
 *   perflens_stacks   stack -> frames (Array(String), innermost first, each
 *                     "function module"): ReplacingMergeTree, so a stack
 *                     written twice is one stack.
 *   perflens_minutes  a materialized view of samples summed per minute,
 *                     session, block and stack (SummingMergeTree: 18.16 has
 *                     both), for long ranges: a day of a fleet is read from
 *                     it, not from every sample.  Readers sum (rows of one
 *                     key merge only in the background).
 *   perflens_symbols  (build-id, offset in the file, return address?) ->
 *                     the frames the collector's symbolizer gave it, as
 *                     parallel arrays (function, module, file, line,
 *                     module-relative address, inlined, declaration file
 *                     and line), innermost first: ReplacingMergeTree, so
 *                     that collectors that both symbolized an address keep
 *                     one row (pl-fleet-symcache.h).
 * What 18.16 lacks shapes it: no DateTime64 (time + time_ns), no
 * LowCardinality without an experimental flag (hence ids and side tables),
 * no block deduplication outside replicated tables (pl-fleet-store.c checks
 * a block's key before a retry instead).
 *
 * Sharded (cluster != NULL): the tables above are *_local on every server,
 * and perflens_samples/_sessions/_stacks/_minutes/_symbols are Distributed
 * tables over the cluster, samples, sessions and their rollup sharded by
 * session (a block lands whole on one shard), stacks by their hash,
 * symbols by their build-id.  Readers and writers use the plain names in
 * both layouts.
 *
 * A store made by an earlier PerfLens (one sample row carried its
 * session's name, event and labels as strings) is not converted: applying
 * the schema there fails with PL_FLEET_SCHEMA_ERROR_OLD, saying what to do.
 */
#ifndef PL_FLEET_SCHEMA_H
#define PL_FLEET_SCHEMA_H

#include "pl-clickhouse.h"

G_BEGIN_DECLS

#define PL_FLEET_SCHEMA_ERROR (pl_fleet_schema_error_quark())
GQuark pl_fleet_schema_error_quark(void);

typedef enum {
	/* the server holds the tables of an earlier schema */
	PL_FLEET_SCHEMA_ERROR_OLD,
} PlFleetSchemaError;

/* A rollup row of samples, as the view makes it (its GROUP BY follows):
 * also what the store inserts to mend a block whose rollup is missing. */
#define PL_FLEET_MINUTES_SELECT                                                          \
	"SELECT toStartOfMinute(time) AS minute, session, block, stack, count() AS samples, " \
	"sum(value) AS value"
#define PL_FLEET_MINUTES_GROUP "GROUP BY minute, session, block, stack"
#define PL_FLEET_MINUTES_COLUMNS "(minute, session, block, stack, samples, value)"

/* The sample columns in the order and types a Native block of them has. */
#define PL_FLEET_SAMPLE_COLUMNS "(time, time_ns, session, block, pid, tid, cpu, stack, value)"
#define PL_FLEET_SAMPLES_INSERT \
	"INSERT INTO perflens_samples " PL_FLEET_SAMPLE_COLUMNS " FORMAT Native"
#define PL_FLEET_SESSION_COLUMNS "(session, name, event, labels.key, labels.value)"
#define PL_FLEET_STACK_COLUMNS "(stack, frames)"

#define PL_FLEET_SYMBOL_COLUMNS                                                       \
	"(build_id, offset, is_return, functions, modules, files, lines, rel_addrs, inlined, " \
	"decl_files, decl_lines)"

/* Creates what is missing of the schema on the server ch (idempotent).
 * cluster: NULL for one server, else the name of the cluster in the
 * servers' remote_servers; then call this once on every server of it.
 * PL_FLEET_SCHEMA_ERROR_OLD when the server holds an earlier schema's
 * tables (nothing is changed then). */
gboolean pl_fleet_schema_apply(PlClickhouse *ch, const char *cluster, GError **error);

/* The id a session's samples carry (a 64-bit hash of its name): what
 * perflens_samples.session holds and perflens_sessions names. */
guint64 pl_fleet_session_id(const char *session);

G_END_DECLS

#endif
