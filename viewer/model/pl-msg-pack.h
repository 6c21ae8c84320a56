/* pl-msg-pack.h — a decoded message (SAMPLE, MMAP, COMM, TASK, SWITCH)
 * packed into bytes that own what it borrowed, and back: the struct's
 * fixed arrays cut to their lengths, names, the copied stack and a raw
 * payload behind it.  Nothing is encoded or decoded again, so packing
 * cannot fail.  For the reorder window (pl-reorder.c) and a capture read
 * on a second thread (viewer/io/pl-capture.c).  No state; any thread. */
#ifndef PL_MSG_PACK_H
#define PL_MSG_PACK_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

/* A SAMPLE's flag (never on the wire: the reader clears the wire's flags)
 * saying that its stack_id is a serial of a PlChainStore
 * (pl-chain-store.h), not a capture's stack id: equal serials, equal
 * call chains, for the whole load.  Packed, such a sample leaves its
 * chain out (nr_callchain stays): pl_msg_unpack leaves callchain[] as it
 * was, and the unpacker fills it from the store. */
#define PL_SAMPLE_CHAIN_SERIAL (1u << 31)

/* Whether messages of this type can be packed. */
gboolean pl_msg_packable(guint32 type);
/* Bytes m packs into (m of a packable type). */
gsize pl_msg_packed_size(const struct pl_msg *m);
/* Packs m into p (pl_msg_packed_size(m) bytes, any alignment). */
void pl_msg_pack(guint8 *p, const struct pl_msg *m);
/* The packed message back in *m, borrowing from p. */
void pl_msg_unpack(const guint8 *p, struct pl_msg *m);

G_END_DECLS

#endif
