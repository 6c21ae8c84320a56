/* pl-flight-snapshot.h — "Save now": asks an agent recording as a flight
 * recorder (perflens-agent --flight ... --port N) to save its ring, and
 * receives the snapshot it writes on the board (SNAPSHOT, then the file as
 * FILE_CHUNKs of kind PL_CHUNK_SNAPSHOT and the REPLY; common/msg.h).
 *
 * Headless (GLib only): `perflens snapshot` and the app share it.  The
 * client must be connected and authenticated; its handler is borrowed for
 * the call and cleared after it.  Blocking, up to timeout_ms in all.
 */
#ifndef PL_FLIGHT_SNAPSHOT_H
#define PL_FLIGHT_SNAPSHOT_H

#include "pl-client.h"

G_BEGIN_DECLS

/* The most a snapshot may be (the agent caps its directory at
 * --snapshot-bytes, 256 MiB by default). */
#define PL_FLIGHT_SNAPSHOT_MAX (4ull << 30)

/* Writes the snapshot to path (mode 0600; written under a temporary name
 * beside it, synced, then renamed: path is whole or absent).  board_path
 * (may be NULL) gets where the agent saved it (owned); size its bytes.
 * Errors: the agent's refusal (not a flight recorder, still starting, the
 * disk's reserve), TIMED_OUT, CLOSED, INVALID_DATA (chunks out of order
 * or over the cap), or the local file's error. */
gboolean pl_flight_snapshot_fetch(PlClient *client, const char *path, guint timeout_ms,
				  char **board_path, guint64 *size, GError **error);

G_END_DECLS

#endif
