/* pl-fleet-store.h — writing blocks of samples into the fleet's ClickHouse,
 * exactly once, through outages.
 *
 * Every block is inserted only after asking whether (session, block) is
 * already stored: a block ClickHouse took just before the connection broke,
 * a spooled block replayed after a restart, or one a reconnecting agent sends
 * again is never counted twice.  That holds because a block is written as
 * one part (one month, one Native block; sharded: one shard, by session,
 * inserted synchronously), so it is stored whole or not at all,
 * and because one store writes a session (the collector that holds it).
 *
 * A block's session row (name, event, labels: perflens_sessions) goes in
 * before its first block's samples (or when its first block is found
 * stored), once per store and session: a restarted collector writes it
 * again, which readers do not see (they group by session).
 *
 * When ClickHouse cannot take a block (down, busy, a shard missing) the
 * block goes to the spool, a directory of files (0600: they hold stacks),
 * each written whole and fsynced before it counts as spooled; flush() sends
 * them oldest first.  The spool is bounded: past max_bytes the oldest blocks
 * are dropped, and the samples dropped are counted in the stats, for the
 * user to see.  A store that finds a spool left by an earlier run takes it
 * over.  Not thread-safe: one store per writer.
 */
#ifndef PL_FLEET_STORE_H
#define PL_FLEET_STORE_H

#include "pl-clickhouse.h"
#include "pl-fleet-block.h"

G_BEGIN_DECLS

typedef struct {
	guint64 blocks_inserted;
	guint64 samples_inserted;
	guint64 blocks_spooled;        /* put in the spool (ClickHouse could not take them then) */
	guint64 blocks_already_stored; /* found stored when about to insert: not inserted again */
	guint64 rollups_mended;        /* of those, per-minute rollups made again (pl-fleet-schema.h) */
	guint64 blocks_dropped;        /* the spool was full: dropped, oldest first */
	guint64 samples_dropped;
} PlFleetStoreStats;

typedef struct _PlFleetStore PlFleetStore;

/* spool_dir is created (0700) if missing; max_bytes bounds it. */
PlFleetStore *pl_fleet_store_new(PlClickhouse *ch, const char *spool_dir, guint64 max_bytes,
				 GError **error);
void pl_fleet_store_free(PlFleetStore *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFleetStore, pl_fleet_store_free)

/* Stores b: sends what the spool holds first, then b; b goes to the spool
 * when ClickHouse cannot take it now.  TRUE when b is stored or spooled;
 * FALSE with error when ClickHouse refused it for good (a statement or
 * schema error, the credentials: b is spooled all the same, for a replay
 * once that is mended) or the spool cannot be written. */
gboolean pl_fleet_store_put(PlFleetStore *self, const PlFleetBlock *b, GError **error);

/* Stores blocks as pl_fleet_store_put does each, in one batch (one
 * statement each for their sessions' rows, their stacks and their
 * samples) when none of them is stored yet: fewer, larger parts.  A batch
 * ClickHouse could not take is spooled block by block, and each is
 * checked on its own when sent again.  Keep a batch under a million
 * samples (min_insert_block_size_rows: ClickHouse may squash it whole).
 * FALSE with error as put. */
gboolean pl_fleet_store_put_all(PlFleetStore *self, GPtrArray *blocks, GError **error);

/* Sends the spool's blocks, oldest first, until one cannot go yet.  TRUE
 * when the spool is empty afterwards. */
gboolean pl_fleet_store_flush(PlFleetStore *self, GError **error);

guint pl_fleet_store_get_n_spooled(PlFleetStore *self);
const PlFleetStoreStats *pl_fleet_store_get_stats(PlFleetStore *self);

G_END_DECLS

#endif
