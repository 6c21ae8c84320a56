/* pl-fleet-collector.h — `perflens collect`'s service: many agents
 * reporting at once (agents started with --server and --label), each held
 * as a PlLiveSession, their sessions written into the fleet store.
 *
 * An agent dials in, greets, and sends REPORT (its token, labels and
 * session period; common/msg.h).  The greeting and the REPORT are read in
 * a worker thread with a deadline, so a silent or slow peer holds a
 * thread for a few seconds, never the loop; the token is compared in
 * constant time before the collector sends a byte, and a peer without the
 * right one is closed holding nothing (no session, no file).  Then the
 * collector authenticates back (AUTH) and the connection becomes a
 * PlLiveSession in the loop's context, which asks for the agent's own
 * recording (START, PL_TARGET_OWN) one session at a time: the agent ends
 * each after its period and the collector starts the next.
 *
 * Each ended session's file is loaded and symbolized (pl-loader, the
 * viewer's symbolizer, with the settings its labels choose in the boards
 * file and the symbol cache in front: pl-fleet-boards, pl-fleet-symcache)
 * and cut into blocks (pl-fleet-block) named after the file in the writer
 * thread; a sender thread puts them into the store (pl-fleet-store:
 * exactly once, spooled while ClickHouse is down, the spool flushed every
 * few seconds) while the writer loads the next session, sessions kept in
 * order.  A session is written in work_dir with
 * its labels beside it (NAME.labels) and, once its blocks are stored or
 * spooled, moved to keep_dir or deleted; a collector that starts finds
 * there what a killed one had not stored, and stores it (blocks stored
 * already are found so, not counted twice).
 *
 * Use from the thread whose thread-default GMainContext runs it.
 */
#ifndef PL_FLEET_COLLECTOR_H
#define PL_FLEET_COLLECTOR_H

#include <gio/gio.h>

#include "pl-fleet-boards.h"
#include "pl-fleet-store.h"
#include "pl-fleet-symcache.h"

G_BEGIN_DECLS

typedef struct {
	guint64 agents_accepted;
	guint64 peers_refused;    /* no REPORT, a wrong token, a bad stream */
	guint64 sessions_ended;
	guint64 sessions_stored;  /* their blocks stored or spooled */
	guint64 sessions_failed;  /* could not be loaded or stored (said on stderr) */
	guint64 samples_stored;   /* in the blocks of stored sessions */
} PlFleetCollectorStats;

typedef struct _PlFleetCollector PlFleetCollector;

/* token: what agents must present (and what the collector answers with).
 * store: taken; used only from the sender thread from here on; symbols
 * (taken): the symbol cache every load asks, only from the writer thread
 * (its ClickHouse handle must not be the store's: one handle a thread).  boards: taken, may be NULL: the symbol settings per board
 * (NULL: this host's files for every agent).  keep_dir:
 * where stored sessions' files stay (NULL: deleted once stored).  Both
 * are created (0700) if missing. */
PlFleetCollector *pl_fleet_collector_new(const char *token, PlFleetStore *store,
					 PlFleetSymcache *symbols, PlFleetBoards *boards,
					 const char *keep_dir, const char *work_dir,
					 GError **error);
/* Listens on "[ADDR:]PORT" (no ADDR: every address); the port bound
 * (PORT 0: a free one) in *port. */
gboolean pl_fleet_collector_listen(PlFleetCollector *self, const char *spec, guint16 *port,
				   GError **error);
/* Stops taking agents, asks every session to stop, waits (iterating the
 * context, up to timeout_ms) for them to end and for the writer to store
 * them, then flushes the spool once more.  TRUE when nothing was left
 * unstored but in the spool. */
gboolean pl_fleet_collector_shutdown(PlFleetCollector *self, guint timeout_ms);
void pl_fleet_collector_free(PlFleetCollector *self);

/* A copy of the counts (they change in the writer thread). */
void pl_fleet_collector_get_stats(PlFleetCollector *self, PlFleetCollectorStats *out);
guint pl_fleet_collector_get_n_agents(PlFleetCollector *self);
/* The store's counts; only after pl_fleet_collector_shutdown (before it
 * the sender thread changes them). */
const PlFleetStoreStats *pl_fleet_collector_get_store_stats(PlFleetCollector *self);

G_END_DECLS

#endif
