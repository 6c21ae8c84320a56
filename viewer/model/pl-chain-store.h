/* pl-chain-store.h — the distinct call chains of one load, each numbered
 * once (a serial, 1, 2, 3…) and kept where it was first put.
 *
 * A capture names a sample's chain by a stack id that the agent redefines
 * as its dictionary turns over (4,096 ids for millions of samples), so the
 * id says nothing about the chain across a whole file; a serial does:
 * equal serials, equal chains, for the life of the store.  A loader that
 * decodes on one thread and builds the model on another passes a sample's
 * serial instead of its chain (pl-msg-pack.h, PL_SAMPLE_CHAIN_SERIAL), and
 * the model finds the sample's stack again by the serial without reading
 * the chain (pl-profile-samples.c).
 *
 * Threads: one writer (pl_chain_store_intern); readers on other threads
 * may get any serial they were handed through a synchronising hand-over
 * (a mutex, an async queue) made after the intern: a chain never moves
 * and is never changed once interned.  Frees everything at once.  No GTK. */
#ifndef PL_CHAIN_STORE_H
#define PL_CHAIN_STORE_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlChainStore PlChainStore;

PlChainStore *pl_chain_store_new(void);
void pl_chain_store_free(PlChainStore *s);
/* The serial of the chain (nr entries, 1 ≤ nr ≤ PL_MAX_CALLCHAIN), made
 * at its first intern; 0 when the store is full (the caller then passes
 * the chain itself).  The writer's thread only. */
guint32 pl_chain_store_intern(PlChainStore *s, const guint64 *chain, guint32 nr);
/* The chain of serial (its entries, *nr of them), borrowed for the life of
 * the store; NULL for a serial never given out. */
const guint64 *pl_chain_store_get(const PlChainStore *s, guint32 serial, guint32 *nr);
/* Bytes held (chains, index and table). */
gsize pl_chain_store_bytes(const PlChainStore *s);

G_END_DECLS

#endif
