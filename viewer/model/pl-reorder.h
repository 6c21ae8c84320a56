/* pl-reorder.h — the model's reorder window: decoded messages held back
 * and given out again earliest first (by time, then by arrival).
 *
 * Records come nearly in time order (each CPU's ring drained in turn), so
 * the held messages form a few runs already sorted; a run takes every
 * message not earlier than its last one, and the earliest message is the
 * earliest head of the runs (a small heap over runs, not over every
 * message).  A message is kept packed in its run's buffer: the decoded
 * struct's fixed arrays cut to their lengths and what it borrowed (names,
 * the copied stack, a raw payload) copied behind it, so holding neither
 * allocates per message nor fails.  The order given out is exactly that
 * of one heap over every message on (time, arrival).
 *
 * Not thread-safe; no GTK. */
#ifndef PL_REORDER_H
#define PL_REORDER_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

typedef struct _PlReorder PlReorder;

PlReorder *pl_reorder_new(void);
void pl_reorder_free(PlReorder *r);
/* Holds a copy of m (SAMPLE, MMAP, COMM, TASK or SWITCH) at time t. */
void pl_reorder_push(PlReorder *r, guint64 t, const struct pl_msg *m);
/* Messages held. */
gsize pl_reorder_len(const PlReorder *r);
/* The time of the earliest held message; FALSE when none is held. */
gboolean pl_reorder_peek_time(const PlReorder *r, guint64 *t);
/* The earliest held message into *m (FALSE when none is held); *m borrows
 * the queue's memory until the next push or pop. */
gboolean pl_reorder_pop(PlReorder *r, struct pl_msg *m);
/* As pl_reorder_pop, but the message as it is held: len bytes at *p in the
 * form of pl_msg_pack (pl-msg-pack.h), borrowed the same way. */
gboolean pl_reorder_pop_packed(PlReorder *r, const guint8 **p, gsize *len);

G_END_DECLS

#endif
