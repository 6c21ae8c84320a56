/* pl-time-order.h — the order in which the session model ingests a
 * stream: timed records (SAMPLE, MMAP, COMM, TASK, SWITCH that are not
 * snapshots) held back until the stream is REORDER_WINDOW past them, then
 * given out earliest first; everything else given out at once.
 *
 * Records reach us in the order the agent drained its per-CPU rings (or
 * perf wrote them), not in time order: a worker's samples can precede the
 * MMAP and exec COMM of its process.  pl_profile_ingest runs its stream
 * through one of these; a loader may run it on another thread instead and
 * hand the output to pl_profile_ingest_ordered: the profile ingests the
 * same messages in the same order either way.
 *
 * Not thread-safe (one thread at a time); no GTK. */
#ifndef PL_TIME_ORDER_H
#define PL_TIME_ORDER_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

typedef struct _PlTimeOrder PlTimeOrder;

/* Receives a message given out; m borrows the orderer's memory until the
 * callback returns.  FALSE stops the output (push and flush return FALSE). */
typedef gboolean (*PlTimeOrderFunc)(const struct pl_msg *m, gpointer data);

/* Receives a held message as it was held: len bytes in the form of
 * pl_msg_pack (pl-msg-pack.h), borrowed as above. */
typedef gboolean (*PlTimeOrderPackedFunc)(const guint8 *packed, gsize len, gpointer data);

PlTimeOrder *pl_time_order_new(void);
void pl_time_order_free(PlTimeOrder *o);
/* From now on held (timed) messages are given out packed through fn (with
 * the data of the push or flush) instead of out, which still gets the
 * messages given out at once: no unpacking for a consumer that copies them
 * on as bytes.  The order is the same. */
void pl_time_order_set_packed_out(PlTimeOrder *o, PlTimeOrderPackedFunc fn);
/* Takes m (copied as needed) and gives out, through out, what is ready. */
gboolean pl_time_order_push(PlTimeOrder *o, const struct pl_msg *m, PlTimeOrderFunc out,
			    gpointer data);
/* Gives out everything held. */
gboolean pl_time_order_flush(PlTimeOrder *o, PlTimeOrderFunc out, gpointer data);
/* Messages held. */
gsize pl_time_order_len(const PlTimeOrder *o);

G_END_DECLS

#endif
