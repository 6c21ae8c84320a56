/* pl-record-extras.h — the kernel tracepoints a recording adds beside its
 * sampling: interrupts (--irq, pl-irq.h), block requests (--block,
 * pl-block-io.h) and lock contention (--locks, pl-locks.h), as `perflens
 * record` and the app's Record form ask for them.
 *
 * They are extras: "also record interrupts" must not stop the profile.
 * The agent samples its default event only when no event is named at all
 * (perf's rule: `-e irq:…` alone records that tracepoint alone), so where
 * the user chose no sampling event the default one ("cycles", which the
 * agent turns into cpu-clock where the board has no PMU) goes first.
 */
#ifndef PL_RECORD_EXTRAS_H
#define PL_RECORD_EXTRAS_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

typedef enum {
	PL_RECORD_IRQ = 1 << 0,
	PL_RECORD_BLOCK = 1 << 1,
	PL_RECORD_LOCKS = 1 << 2,
} PlRecordExtras;

/* How many events pl_record_extras_add() adds for extras at most (on the
 * newest kernels). */
guint pl_record_extras_count(PlRecordExtras extras, gboolean sampling_chosen);

/* Appends the extras' tracepoints to s->events, and the default sampling
 * event first when !sampling_chosen and there are extras.  FALSE (s
 * unchanged) when they would not fit in PL_MAX_EVENTS.  kernel_release
 * (the agent's HELLO, NULL: unknown): the lock tracepoints that kernel has
 * (pl_locks_events_for), a missing one refusing the whole recording. */
gboolean pl_record_extras_add(struct pl_msg_start *s, PlRecordExtras extras,
			      gboolean sampling_chosen, const char *kernel_release);

G_END_DECLS

#endif
