/* pl-fleet-block.h — a session's samples cut into insert blocks for the
 * fleet store (pl-fleet-schema.h).
 *
 * A block is the store's unit of insert and of retry: its rows go in one
 * INSERT, as one ClickHouse Native block (columns of numbers: ClickHouse
 * copies them, it parses no rows), all in one month (one partition, so one
 * part: ClickHouse writes it whole or not at all), keyed by (session,
 * block number).  It carries what its session's row in perflens_sessions
 * holds (name, event, labels) and the definitions of the stacks its
 * samples are the first of the session to use.
 */
#ifndef PL_FLEET_BLOCK_H
#define PL_FLEET_BLOCK_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct {
	char *session;
	guint64 session_id;  /* pl_fleet_session_id(session) */
	guint32 number;
	char *event;
	char **labels;       /* "KEY=VALUE", NULL-terminated (never NULL) */
	GByteArray *samples; /* a Native block of PL_FLEET_SAMPLE_COLUMNS */
	guint64 n_samples;
	guint64 value;       /* the sum of the rows' values */
	GByteArray *stacks;  /* RowBinary rows of PL_FLEET_STACK_COLUMNS */
	guint64 n_stacks;
} PlFleetBlock;

void pl_fleet_block_free(PlFleetBlock *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFleetBlock, pl_fleet_block_free)

/* A block of no samples yet for session (its labels copied; NULL: none). */
PlFleetBlock *pl_fleet_block_new(const char *session, guint32 number, const char *event,
				 const char *const *labels);

/* The block's session as a RowBinary row of PL_FLEET_SESSION_COLUMNS. */
GByteArray *pl_fleet_block_session_row(const PlFleetBlock *b);

/* The blocks of profile's samples of its main event (none when no sampled
 * event has a sample: switch samples alone are not stored), at most max_rows
 * samples each.  wall_offset_ns: CLOCK_REALTIME minus the capture's clock
 * (HELLO's wall_now_ns - clock_now_ns), to date the samples.  labels:
 * "KEY=VALUE" strings, NULL-terminated (may be NULL).  GPtrArray of
 * PlFleetBlock, numbered from first_block. */
GPtrArray *pl_fleet_blocks_from_profile(PlProfile *profile, const char *session,
					const char *const *labels, gint64 wall_offset_ns,
					guint max_rows, guint32 first_block);

/* The 64-bit hash a stack is stored under: of its frames' labels,
 * innermost first, each "function module". */
guint64 pl_fleet_stack_hash(const char *const *frames, guint n);

G_END_DECLS

#endif
