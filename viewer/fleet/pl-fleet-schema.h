/* pl-fleet-schema.h — the fleet store's tables in ClickHouse (18.16 and later).
 *
 *   perflens_samples  one row a sample: time (DateTime + ns), session, block
 *                     (the collector's insert unit), event, labels
 *                     (Nested key/value: fw, board, device …), pid, tid,
 *                     cpu, stack (a hash of its frames), value (a count of 1
 *                     for a sample, nanoseconds off-CPU, …).  MergeTree by
 *                     month, ordered by (session, block, stack, time), so
 *                     that "is block K of session S stored?" reads one range.
 *   perflens_stacks   stack -> frames (Array(String), innermost first, each
 *                     "function module"): ReplacingMergeTree, so a stack
 *                     written twice is one stack.
 *   perflens_minutes  a materialized view of samples summed per minute,
 *                     session, block, event and stack (SummingMergeTree:
 *                     18.16 has both), for long ranges: a day of a fleet
 *                     is read from it, not from every sample.  Readers sum
 *                     (rows of one key merge only in the background).
 *   perflens_symbols  (build-id, offset in the file, return address?) ->
 *                     the frames the collector's symbolizer gave it, as
 *                     parallel arrays (function, module, file, line,
 *                     module-relative address, inlined, declaration file
 *                     and line), innermost first: ReplacingMergeTree, so
 *                     that collectors that both symbolized an address keep
 *                     one row (pl-fleet-symcache.h).
 * What 18.16 lacks shapes it: no DateTime64 (time + time_ns), no
 * LowCardinality without an experimental flag (plain String: the event and
 * label columns repeat and compress to almost nothing), no block
 * deduplication outside replicated tables (pl-fleet-store.c checks a
 * block's key before a retry instead).
 *
 * Sharded (cluster != NULL): the tables above are *_local on every server,
 * and perflens_samples/_stacks/_minutes/_symbols are Distributed tables
 * over the cluster, samples sharded by session (a block lands whole on one
 * shard), stacks by their hash, symbols by their build-id.  Readers and writers use the plain names in both
 * layouts.
 */
#ifndef PL_FLEET_SCHEMA_H
#define PL_FLEET_SCHEMA_H

#include "pl-clickhouse.h"

G_BEGIN_DECLS

/* A rollup row of samples, as the view makes it (its GROUP BY follows):
 * also what the store inserts to mend a block whose rollup is missing. */
#define PL_FLEET_MINUTES_SELECT                                                         \
	"SELECT toStartOfMinute(time) AS minute, session, block, event, "                  \
	"any(labels.key) AS label_keys, any(labels.value) AS label_values, stack, "         \
	"count() AS samples, sum(value) AS value"
#define PL_FLEET_MINUTES_COLUMNS \
	"(minute, session, block, event, label_keys, label_values, stack, samples, value)"

#define PL_FLEET_SYMBOL_COLUMNS                                                       \
	"(build_id, offset, is_return, functions, modules, files, lines, rel_addrs, inlined, " \
	"decl_files, decl_lines)"

/* Creates what is missing of the schema on the server ch (idempotent).
 * cluster: NULL for one server, else the name of the cluster in the
 * servers' remote_servers; then call this once on every server of it. */
gboolean pl_fleet_schema_apply(PlClickhouse *ch, const char *cluster, GError **error);

G_END_DECLS

#endif
