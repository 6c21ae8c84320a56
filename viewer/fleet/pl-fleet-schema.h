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
 *                     session, event and stack (SummingMergeTree), for long
 *                     ranges: a day of a fleet is read from it, not from
 *                     every sample.
 * What 18.16 lacks shapes it: no DateTime64 (time + time_ns), no
 * LowCardinality without an experimental flag (plain String: the event and
 * label columns repeat and compress to almost nothing), no block
 * deduplication outside replicated tables (pl-fleet-store.c checks a
 * block's key before a retry instead).
 *
 * Sharded (cluster != NULL): the tables above are *_local on every server,
 * and perflens_samples/_stacks/_minutes are Distributed tables over the
 * cluster, samples sharded by session (a block lands whole on one shard),
 * stacks by their hash.  Readers and writers use the plain names in both
 * layouts.
 */
#ifndef PL_FLEET_SCHEMA_H
#define PL_FLEET_SCHEMA_H

#include "pl-clickhouse.h"

G_BEGIN_DECLS

/* Creates what is missing of the schema on the server ch (idempotent).
 * cluster: NULL for one server, else the name of the cluster in the
 * servers' remote_servers; then call this once on every server of it. */
gboolean pl_fleet_schema_apply(PlClickhouse *ch, const char *cluster, GError **error);

G_END_DECLS

#endif
