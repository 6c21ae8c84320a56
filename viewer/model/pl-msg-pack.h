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
