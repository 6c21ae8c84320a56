/* batch.c — SAMPLE_BATCH columns; see batch.h and msg.h. */
#include "batch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "writer.h"

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The value row i puts in column c.  The per-thread state (prev_*) is
 * advanced for TIME and PERIOD, so each column is walked once, in order. */
static uint64_t column_value(int c, const struct pl_batch_row *r, uint32_t flags,
			     uint64_t *prev_time, uint64_t *prev_delta, uint64_t *prev_period)
{
	uint32_t t = r->thread;
	uint64_t unit = flags & PL_BATCH_TIME_US ? 1000 : 1;
	switch (c) {
	case PL_BATCH_THREAD:
		return t;
	case PL_BATCH_TIME: {
		uint64_t now = r->time / unit, d = now - prev_time[t];
		uint64_t guess = flags & PL_BATCH_TIME_PERIOD ? r->period / unit : prev_delta[t];
		prev_time[t] = now;
		prev_delta[t] = d;
		return zigzag((int64_t)(d - guess));
	}
	case PL_BATCH_STACK:
		return r->stack_id;
	case PL_BATCH_IP:
		return zigzag((int64_t)(r->ip - r->ip_base));
	case PL_BATCH_PERIOD: {
		uint64_t v = zigzag((int64_t)(r->period - prev_period[t]));
		prev_period[t] = r->period;
		return v;
	}
	case PL_BATCH_EVENT:
		return r->event;
	case PL_BATCH_CPU:
		return r->cpu;
	default:
		return r->cpumode;
	}
}

/* Column c's bytes: counted (w == NULL) or written. */
static size_t put_column(struct pl_writer *w, int c, const struct pl_batch_row *rows, uint32_t n,
			 uint32_t nthreads, uint64_t base_time, uint32_t flags)
{
	uint64_t prev_time[PL_MAX_BATCH_THREADS], prev_delta[PL_MAX_BATCH_THREADS],
		prev_period[PL_MAX_BATCH_THREADS];
	for (uint32_t t = 0; t < nthreads; t++) {
		prev_time[t] = base_time / (flags & PL_BATCH_TIME_US ? 1000 : 1);
		prev_delta[t] = prev_period[t] = 0;
	}
	size_t len = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = column_value(c, &rows[i], flags, prev_time, prev_delta, prev_period);
		if (w)
			pl_w_varint(w, v);
		else
			len += varint_len(v);
	}
	return len;
}

/* The DEFS column holds its definitions field by field (msg.h): the count,
 * then every id delta, every base, head, drop and count, then all the
 * differences.  The agent writes them one after another
 * (pl_batch_def_put); defs_field transposes.  Laid out so, the fields that
 * hardly change (a new leaf under known callers: id delta 0, head 1, drop
 * 1, count 1) are runs that zstd codes in a few bits each; interleaved with
 * the differences they are literals (three captures re-encoded, fewer bytes
 * in all: 1.2 / 0.6 / 0.1% alone, bench/results/wire.md row L1; 2.2 / 2.5 /
 * 0.6% with rows L2-L3, whose bases make the differences smaller). */
#define DEF_FIELDS PL_BATCH_DEF_FIELDS
/* Field f (0..DEF_FIELDS-1) of every definition in defs[0..len), or with
 * f == DEF_FIELDS their differences, to w (NULL: only count); returns
 * the number of definitions. */
static uint32_t defs_field(struct pl_writer *w, const uint8_t *defs, size_t len, int f)
{
	struct pl_cursor c;
	pl_cur_init(&c, defs, len);
	uint32_t n = 0;
	while (pl_cur_left(&c) && pl_cur_ok(&c)) {
		uint64_t v[DEF_FIELDS];
		for (int k = 0; k < DEF_FIELDS; k++) {
			v[k] = pl_cur_varint(&c);
			if (w && k == f && pl_cur_ok(&c))
				pl_w_varint(w, v[k]);
		}
		for (uint64_t i = 0; i < v[DEF_FIELDS - 1] && pl_cur_ok(&c); i++) {
			uint64_t d = pl_cur_varint(&c);
			if (w && f == DEF_FIELDS && pl_cur_ok(&c))
				pl_w_varint(w, d);
		}
		n += pl_cur_ok(&c);
	}
	return n;
}

void pl_batch_def_put(struct pl_writer *w, uint32_t *prev_id, const struct pl_msg_stack_delta *d)
{
	pl_w_svarint(w, (int64_t)d->id - (int64_t)*prev_id - 1);
	pl_w_varint(w, d->base ? zigzag((int64_t)d->id - (int64_t)d->base) + 1 : 0);
	pl_w_varint(w, d->head);
	pl_w_varint(w, d->drop);
	pl_w_varint(w, d->nr);
	for (uint32_t i = 0; i < d->nr; i++)
		pl_w_svarint(w, (int64_t)d->diff[i]);
	*prev_id = d->id;
}

size_t pl_batch_build(uint8_t *out, size_t cap, const struct pl_batch_thread *threads,
		      uint32_t nthreads, const struct pl_batch_row *rows, uint32_t n,
		      uint64_t base_time, uint32_t flags, const uint8_t *defs, size_t defs_len)
{
	if (n > PL_MAX_BATCH || nthreads > PL_MAX_BATCH_THREADS)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (rows[i].thread >= nthreads)
			return 0;
	/* times follow the sampling period (timer events, steady rates) or
	 * the previous interval (anything else): whichever is smaller */
	flags = (flags & PL_BATCH_TIME_US) | PL_BATCH_NO_LENS;
	if (put_column(NULL, PL_BATCH_TIME, rows, n, nthreads, base_time,
		       flags | PL_BATCH_TIME_PERIOD) <
	    put_column(NULL, PL_BATCH_TIME, rows, n, nthreads, base_time, flags))
		flags |= PL_BATCH_TIME_PERIOD;
	struct pl_writer w;
	pl_w_init(&w, out, cap);
	pl_w_varint(&w, flags);
	pl_w_varint(&w, nthreads);
	for (uint32_t t = 0; t < nthreads; t++) {
		pl_w_varint(&w, threads[t].pid);
		pl_w_varint(&w, threads[t].tid);
	}
	pl_w_varint(&w, PL_BATCH_COLS + (defs_len ? 1 : 0));
	/* no column lengths (PL_BATCH_NO_LENS): a reader finds each column
	 * by walking the one before */
	for (int c = 0; c < PL_BATCH_COLS; c++)
		put_column(&w, c, rows, n, nthreads, base_time, flags);
	if (defs_len) {
		pl_w_varint(&w, defs_field(NULL, defs, defs_len, 0));
		for (int f = 0; f <= DEF_FIELDS; f++)
			defs_field(&w, defs, defs_len, f);
	}
	return w.overflow ? 0 : pl_w_len(&w);
}

#ifndef PL_BLOCK_NO_DECOMPRESS /* the agent encodes batches, never reads them */
int pl_batch_iter_init(struct pl_batch_iter *it, const struct pl_msg_sample_batch *b, char *err,
		       size_t errlen)
{
	struct pl_cursor c;
	pl_cur_init(&c, b->data, b->len);
	it->left = 0;
	if (b->count > PL_MAX_BATCH) {
		snprintf(err, errlen, "SAMPLE_BATCH of %u samples exceeds the cap of %u", b->count,
			 PL_MAX_BATCH);
		return -E2BIG;
	}
	it->flags = pl_cur_u32v(&c);
	it->unit = it->flags & PL_BATCH_TIME_US ? 1000 : 1;
	it->nthreads = (uint32_t)pl_cur_varint_max(&c, PL_MAX_BATCH_THREADS);
	for (uint32_t t = 0; t < it->nthreads && pl_cur_ok(&c); t++) {
		it->threads[t].pid = pl_cur_u32v(&c);
		it->threads[t].tid = pl_cur_u32v(&c);
		it->prev_time[t] = b->base_time / it->unit;
		it->prev_delta[t] = it->prev_period[t] = 0;
	}
	uint64_t ncols = pl_cur_varint_max(&c, 64);
	uint64_t lens[64];
	int no_lens = it->flags & PL_BATCH_NO_LENS;
	for (uint64_t i = 0; i < ncols && pl_cur_ok(&c) && !no_lens; i++)
		lens[i] = pl_cur_varint_max(&c, PL_MAX_BATCH_BYTES);
	if (pl_cur_ok(&c) && ncols < PL_BATCH_COLS)
		pl_cur_fail(&c, -EBADMSG);
	for (int i = 0; i < PL_BATCH_COLS && pl_cur_ok(&c); i++) {
		if (no_lens) { /* count varints each: walked to find the next */
			it->col[i] = c;
			for (uint32_t k = 0; k < b->count && pl_cur_ok(&c); k++)
				pl_cur_varint(&c);
			continue;
		}
		const uint8_t *p = pl_cur_take(&c, (size_t)lens[i]);
		pl_cur_init(&it->col[i], p, p ? (size_t)lens[i] : 0);
	}
	it->defs_left = 0;
	it->defs_prev_id = 0;
	if (ncols > PL_BATCH_DEFS && pl_cur_ok(&c)) {
		/* one cursor per field (batch.c's defs_field): the count, then
		 * DEF_FIELDS runs of count varints each, then the differences
		 * (without lengths, DEFS runs to the end: it is the last column
		 * this reader knows) */
		size_t len = no_lens ? pl_cur_left(&c) : (size_t)lens[PL_BATCH_DEFS];
		const uint8_t *p = pl_cur_take(&c, len);
		struct pl_cursor d;
		pl_cur_init(&d, p, p ? len : 0);
		uint64_t n = p ? pl_cur_varint_max(&d, len / DEF_FIELDS) : 0;
		for (int f = 0; f < DEF_FIELDS; f++) {
			it->def_col[f] = d;
			for (uint64_t i = 0; i < n && pl_cur_ok(&d); i++)
				pl_cur_varint(&d);
		}
		it->def_col[DEF_FIELDS] = d;
		if (!pl_cur_ok(&d))
			pl_cur_fail(&c, d.err);
		else
			it->defs_left = (uint32_t)n;
	}
	/* columns past the known ones belong to a newer writer: not read */
	if (!pl_cur_ok(&c)) {
		snprintf(err, errlen, "SAMPLE_BATCH of %u bytes: thread table or columns %s", b->len,
			 c.err == -E2BIG ? "over a cap" : "malformed or truncated");
		return c.err;
	}
	it->left = b->count;
	return 0;
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

int pl_batch_iter_next_def(struct pl_batch_iter *it, struct pl_msg_stack_delta *d, char *err,
			   size_t errlen)
{
	struct pl_cursor *c = it->def_col;
	if (it->defs_left == 0)
		return 0;
	it->defs_left--;
	/* unsigned arithmetic: hostile values wrap, then fail the range check */
	uint64_t id = (uint64_t)it->defs_prev_id + 1 + (uint64_t)pl_cur_svarint(&c[0]);
	uint64_t base = pl_cur_varint(&c[1]);
	d->head = pl_cur_u32v(&c[2]);
	d->drop = pl_cur_u32v(&c[3]);
	d->nr = (uint32_t)pl_cur_varint_max(&c[4], PL_MAX_CALLCHAIN);
	for (uint32_t i = 0; i < d->nr && pl_cur_ok(&c[DEF_FIELDS]); i++)
		d->diff[i] = (uint64_t)pl_cur_svarint(&c[DEF_FIELDS]);
	int ok = 1;
	for (int f = 0; f <= DEF_FIELDS; f++)
		ok &= pl_cur_ok(&c[f]);
	/* base: 0, or zig-zag(id - base) + 1 */
	uint64_t b = base ? id - (uint64_t)unzigzag(base - 1) : 0;
	if (!ok || id < 1 || id > PL_MAX_STACK_IDS || b > PL_MAX_STACK_IDS || (base && b == 0)) {
		snprintf(err, errlen, "SAMPLE_BATCH stack definition %s",
			 !ok ? "short or over a cap" : "names an id out of range");
		it->defs_left = 0;
		return -EBADMSG;
	}
	d->id = (uint32_t)id;
	d->base = (uint32_t)b;
	it->defs_prev_id = d->id;
	return 1;
}

int pl_batch_iter_next(struct pl_batch_iter *it, struct pl_msg_sample *s, int64_t *ip_delta,
		       char *err, size_t errlen)
{
	if (it->left == 0)
		return 0;
	it->left--;
	struct pl_cursor *col = it->col;
	uint32_t t = pl_cur_u32v(&col[PL_BATCH_THREAD]);
	if (pl_cur_ok(&col[PL_BATCH_THREAD]) && t >= it->nthreads) {
		snprintf(err, errlen, "SAMPLE_BATCH row names thread %u of %u", t, it->nthreads);
		it->left = 0;
		return -EBADMSG;
	}
	int64_t ddt = pl_cur_svarint(&col[PL_BATCH_TIME]);
	s->stack_id = pl_cur_u32v(&col[PL_BATCH_STACK]);
	*ip_delta = pl_cur_svarint(&col[PL_BATCH_IP]);
	int64_t dp = pl_cur_svarint(&col[PL_BATCH_PERIOD]);
	s->event = pl_cur_u32v(&col[PL_BATCH_EVENT]);
	s->cpu = pl_cur_u32v(&col[PL_BATCH_CPU]);
	s->cpumode = (uint8_t)pl_cur_varint_max(&col[PL_BATCH_CPUMODE], UINT8_MAX);
	for (int i = 0; i < PL_BATCH_COLS; i++)
		if (!pl_cur_ok(&col[i])) {
			snprintf(err, errlen, "SAMPLE_BATCH column %d is %s", i,
				 col[i].err == -E2BIG ? "over a cap" : "short or malformed");
			it->left = 0;
			return col[i].err;
		}
	s->period = it->prev_period[t] + (uint64_t)dp;
	it->prev_period[t] = s->period;
	uint64_t guess = it->flags & PL_BATCH_TIME_PERIOD ? s->period / it->unit : it->prev_delta[t];
	uint64_t d = guess + (uint64_t)ddt;
	it->prev_time[t] += d;
	it->prev_delta[t] = d;
	s->time = it->prev_time[t] * it->unit;
	s->pid = it->threads[t].pid;
	s->tid = it->threads[t].tid;
	s->flags = 0;
	s->nr_callchain = 0;
	s->regs_abi = 0;
	s->nr_regs = 0;
	s->stack_size = s->stack_requested = 0;
	s->stack = NULL;
	s->raw_size = 0;
	s->raw = NULL;
	return 1;
}
#endif
