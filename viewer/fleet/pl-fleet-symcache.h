/* pl-fleet-symcache.h — the collector's symbols, kept once per (build-id,
 * address) for every session and board: the PlSymCache its loads hand the
 * symbolizer (pl-symbols.h), so that the second session of a binary, on
 * any board, symbolizes only the addresses no session named before.
 *
 * It lives in ClickHouse (perflens_symbols, pl-fleet-schema.h), with a
 * copy in memory in front: the store every collector of a team shares
 * already, so one site's answers serve the others, a restarted collector
 * starts warm, and nothing else on its disk needs writing, bounding and
 * recovering.  A build-id's rows are read in one query the first time a
 * session maps it; new answers are inserted in one query per stored
 * session (pl_fleet_symcache_flush).  When ClickHouse cannot answer, the
 * memory copy goes on alone (the build-id is asked again a minute later)
 * and the new answers wait for the next flush; none is ever needed for
 * correctness, only to save work.
 *
 * Used from one thread at a time (the collector's writer); its lookups
 * come from the load running on that thread.
 */
#ifndef PL_FLEET_SYMCACHE_H
#define PL_FLEET_SYMCACHE_H

#include "pl-clickhouse.h"
#include "pl-symbols.h"

G_BEGIN_DECLS

typedef struct {
	guint64 hits;       /* addresses answered from the cache */
	guint64 symbolized; /* addresses that went to the symbolizer's sources */
	guint64 kept;       /* of those, answers kept (they name a function) */
	guint64 loaded;     /* answers read from ClickHouse */
	guint64 inserted;   /* answers written to ClickHouse */
} PlFleetSymcacheStats;

typedef struct _PlFleetSymcache PlFleetSymcache;

/* ch: borrowed (NULL: memory only), used from the caller's thread. */
PlFleetSymcache *pl_fleet_symcache_new(PlClickhouse *ch);
void pl_fleet_symcache_free(PlFleetSymcache *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFleetSymcache, pl_fleet_symcache_free)

/* Makes o's loads ask self (o->cache, o->cache_data). */
void pl_fleet_symcache_attach(PlFleetSymcache *self, PlSymOptions *o);

/* Inserts the answers kept since the last flush; FALSE with error when
 * ClickHouse cannot take them now (they wait for the next one). */
gboolean pl_fleet_symcache_flush(PlFleetSymcache *self, GError **error);

/* The counts since the last call (then zeroed), and since the start. */
void pl_fleet_symcache_take_stats(PlFleetSymcache *self, PlFleetSymcacheStats *since_last,
				  PlFleetSymcacheStats *total);

G_END_DECLS

#endif
