/* pl-fleet-block.h — a session's samples cut into insert blocks for the
 * fleet store, encoded as ClickHouse RowBinary rows.
 *
 * A block is the store's unit of insert and of retry: its rows go in one
 * INSERT, all in one month (one partition, so one part: ClickHouse writes
 * it whole or not at all), keyed by (session, block number).  It carries
 * the definitions of the stacks its samples are the first to use.
 */
#ifndef PL_FLEET_BLOCK_H
#define PL_FLEET_BLOCK_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct {
	char *session;
	guint32 number;
	char *event;
	GByteArray *samples; /* RowBinary rows of PL_FLEET_SAMPLE_COLUMNS */
	guint64 n_samples;
	guint64 value;       /* the sum of the rows' values */
	GByteArray *stacks;  /* RowBinary rows of PL_FLEET_STACK_COLUMNS */
	guint64 n_stacks;
} PlFleetBlock;

#define PL_FLEET_SAMPLE_COLUMNS \
	"(time, time_ns, session, block, event, labels.key, labels.value, pid, tid, cpu, stack, value)"
#define PL_FLEET_STACK_COLUMNS "(stack, frames)"

void pl_fleet_block_free(PlFleetBlock *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlFleetBlock, pl_fleet_block_free)

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
