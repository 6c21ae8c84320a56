/* pl-reorder.c — held messages in sorted runs; see pl-reorder.h. */
#include "pl-reorder.h"
#include "pl-msg-pack.h"

#include <string.h>

typedef struct {
	guint64 time, seq;
	gsize off; /* of the packed message in the run's data */
} Item;

typedef struct {
	Item *items;
	gsize head, n, cap; /* items[head, n) are held */
	guint8 *data;
	gsize dlen, dcap;
	gboolean in_heap;
} Run;

/* runs kept for reuse, their buffers with them */
#define FREE_RUNS 32
/* runs a new message may join: the most recently used */
#define MRU 4

struct _PlReorder {
	GPtrArray *heap; /* Run*, a binary min-heap on their heads' (time, seq) */
	GPtrArray *spare;
	Run *mru[MRU];
	guint64 seq;
	gsize len;
	/* the heap's first head's time, kept beside the heap: it is asked for
	 * at every push, and that head was written a window ago (a cache
	 * miss through the run and its items) */
	guint64 first_time;
};

static void run_free(Run *run)
{
	g_free(run->items);
	g_free(run->data);
	g_free(run);
}

PlReorder *pl_reorder_new(void)
{
	PlReorder *r = g_new0(PlReorder, 1);
	r->heap = g_ptr_array_new_with_free_func((GDestroyNotify)run_free);
	r->spare = g_ptr_array_new_with_free_func((GDestroyNotify)run_free);
	return r;
}

void pl_reorder_free(PlReorder *r)
{
	if (!r)
		return;
	g_ptr_array_free(r->heap, TRUE);
	g_ptr_array_free(r->spare, TRUE);
	g_free(r);
}

gsize pl_reorder_len(const PlReorder *r)
{
	return r->len;
}

/* ─── the heap of runs ───────────────────────────────────────────────── */

static inline gboolean run_before(const Run *a, const Run *b)
{
	const Item *x = &a->items[a->head], *y = &b->items[b->head];
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

static void heap_up(PlReorder *r, guint i)
{
	Run **v = (Run **)r->heap->pdata;
	while (i > 0) {
		guint up = (i - 1) / 2;
		if (!run_before(v[i], v[up]))
			break;
		Run *t = v[i];
		v[i] = v[up];
		v[up] = t;
		i = up;
	}
}

static void heap_down(PlReorder *r, guint i)
{
	Run **v = (Run **)r->heap->pdata;
	guint n = r->heap->len;
	for (;;) {
		guint l = 2 * i + 1, rr = l + 1, m = i;
		if (l < n && run_before(v[l], v[m]))
			m = l;
		if (rr < n && run_before(v[rr], v[m]))
			m = rr;
		if (m == i)
			break;
		Run *t = v[i];
		v[i] = v[m];
		v[m] = t;
		i = m;
	}
}

static inline void note_first(PlReorder *r)
{
	if (r->heap->len) {
		const Run *run = r->heap->pdata[0];
		r->first_time = run->items[run->head].time;
	}
}

/* ─── runs ───────────────────────────────────────────────────────────── */

/* A run's buffers larger than this are given back when they hold a
 * quarter of it or less: a run that held a burst keeps its peak size
 * otherwise, and at 100 kHz on 2 CPUs the runs of a 500 ms window are
 * tens of MB beside the samples (a 10.6 M-sample load's peak). */
#define RUN_KEEP_BYTES (64u << 10)

/* The capacity (in units of size bytes) a buffer of cap holding used
 * shrinks to: halved while over RUN_KEEP_BYTES and a quarter full or less. */
static gsize shrunk_cap(gsize cap, gsize used, gsize size)
{
	while (cap * size > RUN_KEEP_BYTES && used * 4 <= cap)
		cap /= 2;
	return cap;
}

static void run_shrink(Run *run)
{
	gsize dcap = shrunk_cap(run->dcap, run->dlen, 1);
	if (dcap != run->dcap) {
		run->data = g_realloc(run->data, dcap);
		run->dcap = dcap;
	}
	gsize cap = shrunk_cap(run->cap, run->n, sizeof(Item));
	if (cap != run->cap) {
		run->items = g_renew(Item, run->items, cap);
		run->cap = cap;
	}
}

/* Drops what was given out from the front of a run's buffers (only in a
 * push: a popped message borrows them until then), once that is as much
 * as what it still holds: the moves cost at most what was given out. */
static void run_compact(Run *run)
{
	if (run->head == run->n) {
		run->head = run->n = 0;
		run->dlen = 0;
		run_shrink(run);
		return;
	}
	if (run->head < 1024 || run->head * 2 < run->n)
		return;
	gsize base = run->items[run->head].off;
	memmove(run->items, run->items + run->head, (run->n - run->head) * sizeof(Item));
	run->n -= run->head;
	run->head = 0;
	for (gsize i = 0; i < run->n; i++)
		run->items[i].off -= base;
	memmove(run->data, run->data + base, run->dlen - base);
	run->dlen -= base;
	run_shrink(run);
}

static void run_append(Run *run, guint64 t, guint64 seq, const struct pl_msg *m)
{
	run_compact(run);
	if (run->n == run->cap) {
		run->cap = run->cap ? run->cap * 2 : 64;
		run->items = g_renew(Item, run->items, run->cap);
	}
	gsize need = pl_msg_packed_size(m);
	if (run->dlen + need > run->dcap) {
		gsize cap = run->dcap ? run->dcap : 16384;
		while (cap < run->dlen + need)
			cap *= 2;
		run->data = g_realloc(run->data, cap);
		run->dcap = cap;
	}
	run->items[run->n++] = (Item){ t, seq, run->dlen };
	pl_msg_pack(run->data + run->dlen, m);
	run->dlen += need;
}

static void mru_front(PlReorder *r, Run *run)
{
	guint i = 0;
	while (i < MRU - 1 && r->mru[i] != run)
		i++;
	memmove(r->mru + 1, r->mru, i * sizeof(Run *));
	r->mru[0] = run;
}

/* Frees the spare runs past FREE_RUNS, and gives back the large buffers
 * of the one the last pop emptied (no message borrows them now). */
static void trim_spare(PlReorder *r)
{
	if (r->spare->len) {
		Run *last = r->spare->pdata[r->spare->len - 1];
		last->head = last->n = last->dlen = 0;
		run_shrink(last);
	}
	if (r->spare->len > FREE_RUNS)
		g_ptr_array_remove_range(r->spare, 0, r->spare->len - FREE_RUNS);
}

void pl_reorder_push(PlReorder *r, guint64 t, const struct pl_msg *m)
{
	trim_spare(r);
	/* the held run, among the most recent, that ends latest at or before t */
	Run *best = NULL;
	for (guint i = 0; i < MRU; i++) {
		Run *c = r->mru[i];
		if (!c || !c->in_heap)
			continue;
		guint64 tail = c->items[c->n - 1].time;
		if (tail <= t && (!best || tail > best->items[best->n - 1].time))
			best = c;
	}
	guint64 seq = r->seq++;
	r->len++;
	if (best) { /* its head stays: the heap is unchanged */
		run_append(best, t, seq, m);
		mru_front(r, best);
		return;
	}
	Run *run = r->spare->len ? g_ptr_array_steal_index_fast(r->spare, r->spare->len - 1)
				 : g_new0(Run, 1);
	run->head = run->n = run->dlen = 0;
	run_append(run, t, seq, m);
	run->in_heap = TRUE;
	g_ptr_array_add(r->heap, run);
	heap_up(r, r->heap->len - 1);
	if (r->heap->pdata[0] == run)
		r->first_time = t;
	mru_front(r, run);
}

gboolean pl_reorder_peek_time(const PlReorder *r, guint64 *t)
{
	if (!r->heap->len)
		return FALSE;
	*t = r->first_time;
	return TRUE;
}

/* Takes the earliest held message off the heap: its packed bytes, which
 * stay in the run's buffers until the next push or pop. */
static gboolean pop_bytes(PlReorder *r, const guint8 **p, gsize *len)
{
	trim_spare(r);
	if (!r->heap->len)
		return FALSE;
	Run *run = r->heap->pdata[0];
	gsize off = run->items[run->head].off;
	*p = run->data + off;
	*len = (run->head + 1 < run->n ? run->items[run->head + 1].off : run->dlen) - off;
	run->head++;
	r->len--;
	if (run->head < run->n) {
		heap_down(r, 0);
		note_first(r);
		return TRUE;
	}
	/* emptied: out of the heap, kept for reuse (its buffers still hold *p) */
	run->in_heap = FALSE;
	Run *last = g_ptr_array_steal_index_fast(r->heap, r->heap->len - 1);
	if (last != run) {
		r->heap->pdata[0] = last;
		heap_down(r, 0);
	}
	note_first(r);
	for (guint i = 0; i < MRU; i++)
		if (r->mru[i] == run)
			r->mru[i] = NULL;
	/* past FREE_RUNS, freed at the next push or pop (*p borrows it) */
	g_ptr_array_add(r->spare, run);
	return TRUE;
}

gboolean pl_reorder_pop(PlReorder *r, struct pl_msg *m)
{
	const guint8 *p;
	gsize len;
	if (!pop_bytes(r, &p, &len))
		return FALSE;
	pl_msg_unpack(p, m);
	return TRUE;
}

gboolean pl_reorder_pop_packed(PlReorder *r, const guint8 **p, gsize *len)
{
	return pop_bytes(r, p, len);
}
