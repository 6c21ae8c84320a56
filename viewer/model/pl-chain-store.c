/* pl-chain-store.c — distinct call chains by serial; see pl-chain-store.h. */
#include "pl-chain-store.h"

#include <string.h>

#include "msg.h"

/* Chains are packed into slabs that never move; the index from serial to
 * chain is two-level (pages of entries that never move either), so a
 * reader on another thread never sees an array being reallocated. */
#define SLAB_WORDS (128u * 1024)      /* 1 MiB of entries */
#define PAGE_ENTRIES 4096u
#define PAGES 65536u                  /* up to 268 M distinct chains */

typedef struct {
	const guint64 *chain;
	guint32 nr;
	guint32 hash;
} Entry;

struct _PlChainStore {
	Entry *pages[PAGES];
	guint32 count; /* serials given out: 1..count */
	GPtrArray *slabs;
	guint64 *slab;
	gsize slab_used;
	/* the writer's dedup table: serials, open addressing, 0 = empty */
	guint32 *table;
	guint32 table_mask;
	gsize bytes;
};

PlChainStore *pl_chain_store_new(void)
{
	PlChainStore *s = g_new0(PlChainStore, 1);
	s->slabs = g_ptr_array_new_with_free_func(g_free);
	s->table_mask = 4096 - 1;
	s->table = g_new0(guint32, s->table_mask + 1);
	s->bytes = sizeof(*s) + (s->table_mask + 1) * sizeof(guint32);
	return s;
}

void pl_chain_store_free(PlChainStore *s)
{
	if (!s)
		return;
	for (guint i = 0; i < PAGES; i++)
		g_free(s->pages[i]);
	g_ptr_array_free(s->slabs, TRUE);
	g_free(s->table);
	g_free(s);
}

gsize pl_chain_store_bytes(const PlChainStore *s)
{
	return s->bytes;
}

static guint32 chain_hash(const guint64 *chain, guint32 nr)
{
	guint64 h = 0x9e3779b97f4a7c15ull ^ nr;
	for (guint32 i = 0; i < nr; i++) {
		h ^= chain[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return (guint32)h;
}

static inline Entry *entry(const PlChainStore *s, guint32 serial)
{
	guint32 i = serial - 1;
	return &s->pages[i / PAGE_ENTRIES][i % PAGE_ENTRIES];
}

static void table_grow(PlChainStore *s)
{
	guint32 mask = s->table_mask * 2 + 1;
	guint32 *t = g_new0(guint32, mask + 1);
	for (guint32 serial = 1; serial <= s->count; serial++) {
		guint32 k = entry(s, serial)->hash & mask;
		while (t[k])
			k = (k + 1) & mask;
		t[k] = serial;
	}
	s->bytes += (gsize)(mask - s->table_mask) * sizeof(guint32);
	g_free(s->table);
	s->table = t;
	s->table_mask = mask;
}

guint32 pl_chain_store_intern(PlChainStore *s, const guint64 *chain, guint32 nr)
{
	if (nr == 0 || nr > PL_MAX_CALLCHAIN)
		return 0;
	guint32 h = chain_hash(chain, nr);
	guint32 k = h & s->table_mask;
	for (guint32 x; (x = s->table[k]); k = (k + 1) & s->table_mask) {
		const Entry *e = entry(s, x);
		if (e->hash == h && e->nr == nr && !memcmp(e->chain, chain, nr * sizeof(guint64)))
			return x;
	}
	if (s->count >= PAGES * PAGE_ENTRIES)
		return 0;
	if (!s->slab || s->slab_used + nr > SLAB_WORDS) {
		s->slab = g_new(guint64, SLAB_WORDS);
		s->slab_used = 0;
		g_ptr_array_add(s->slabs, s->slab);
		s->bytes += SLAB_WORDS * sizeof(guint64);
	}
	guint64 *copy = s->slab + s->slab_used;
	memcpy(copy, chain, nr * sizeof(guint64));
	s->slab_used += nr;
	guint32 serial = s->count + 1;
	guint32 page = (serial - 1) / PAGE_ENTRIES;
	if (!s->pages[page]) {
		s->pages[page] = g_new(Entry, PAGE_ENTRIES);
		s->bytes += PAGE_ENTRIES * sizeof(Entry);
	}
	*entry(s, serial) = (Entry){ copy, nr, h };
	/* readers only ask for serials handed to them: the hand-over orders
	 * the entry before the read; atomic so the bound check is no race */
	__atomic_store_n(&s->count, serial, __ATOMIC_RELEASE);
	s->table[k] = serial;
	if (s->count * 2 > s->table_mask)
		table_grow(s);
	return serial;
}

const guint64 *pl_chain_store_get(const PlChainStore *s, guint32 serial, guint32 *nr)
{
	if (serial == 0 || serial > __atomic_load_n(&s->count, __ATOMIC_ACQUIRE))
		return NULL;
	const Entry *e = entry(s, serial);
	*nr = e->nr;
	return e->chain;
}
