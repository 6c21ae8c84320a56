/* reader.c — incremental stream reader; see reader.h. */
#include "reader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pl_reader_init(struct pl_reader *r, size_t max_block)
{
	memset(r, 0, sizeof(*r));
	if (max_block < PL_BLOCK_HEADER_SIZE + 64 ||
	    max_block > PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED)
		return -EINVAL;
	r->max_cap = max_block;
	pl_cur_init(&r->frames, NULL, 0);
	return pl_block_dec_init(&r->dec);
}

void pl_reader_free(struct pl_reader *r)
{
	if (r->stacks)
		for (uint32_t i = 0; i < PL_MAX_STACK_IDS; i++)
			free(r->stacks[i]);
	free(r->stacks);
	free(r->stack_info);
	free(r->chain_tmp);
	free(r->def_tmp);
	free(r->batch);
	free(r->buf);
	pl_block_dec_free(&r->dec);
	memset(r, 0, sizeof(*r));
}

static int fail(struct pl_reader *r, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->errmsg, sizeof(r->errmsg), fmt, ap);
	va_end(ap);
	r->err = err;
	return err;
}

int pl_reader_feed(struct pl_reader *r, const void *p, size_t n)
{
	if (r->err)
		return r->err;
	/* Compact first.  Decoded frames live in the block decoder's buffer,
	 * so unread frames survive this; only the stored-block view (r->block)
	 * is invalidated, as documented. */
	if (r->consumed) {
		memmove(r->buf, r->buf + r->consumed, r->len - r->consumed);
		r->len -= r->consumed;
		r->consumed = 0;
		r->block = NULL;
		r->block_len = 0;
	}
	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		while (cap < r->len + n)
			cap *= 2;
		uint8_t *nb = realloc(r->buf, cap);
		if (!nb)
			return fail(r, -ENOMEM, "out of memory buffering %zu bytes", r->len + n);
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
	return 0;
}

void pl_reader_set_block_hook(struct pl_reader *r, pl_reader_block_fn fn, void *data)
{
	r->on_block = fn;
	r->on_block_data = data;
}

size_t pl_reader_pending(const struct pl_reader *r)
{
	return r->len - r->consumed;
}

const char *pl_reader_error(const struct pl_reader *r)
{
	return r->err ? r->errmsg : NULL;
}

/* Loads the next complete block into r->frames; 1 loaded, 0 need more. */
static int next_block(struct pl_reader *r)
{
	const uint8_t *p = r->buf + r->consumed;
	size_t avail = r->len - r->consumed;
	struct pl_block_header h;
	int rc;

	if (!r->have_header) {
		if (avail < PL_STREAM_HEADER_SIZE)
			return 0;
		rc = pl_stream_header_parse(p, avail, &r->header, r->errmsg, sizeof(r->errmsg));
		if (rc < 0)
			return r->err = rc;
		if (avail < r->header.header_size)
			return 0;
		r->consumed += r->header.header_size;
		r->bytes += r->header.header_size;
		r->have_header = 1;
		p += r->header.header_size;
		avail -= r->header.header_size;
	}
	if (avail < PL_BLOCK_HEADER_SIZE)
		return 0;
	rc = pl_block_header_parse(p, avail, &h, r->errmsg, sizeof(r->errmsg));
	if (rc < 0)
		return r->err = rc;
	if (PL_BLOCK_HEADER_SIZE + (size_t)h.stored_len > r->max_cap)
		return fail(r, -E2BIG, "block of %u bytes exceeds this reader's %zu-byte limit",
			    h.stored_len, r->max_cap);
	if (avail < PL_BLOCK_HEADER_SIZE + (size_t)h.stored_len)
		return 0;
	const uint8_t *raw;
	size_t raw_len;
	char why[120];
	rc = pl_block_decode(&r->dec, &h, p + PL_BLOCK_HEADER_SIZE, &raw, &raw_len, why,
			     sizeof(why));
	if (rc == -ENOMSG) {
		/* the tail of a zstd frame whose start is elsewhere (block.h) */
		r->skipped_blocks++;
		raw = NULL;
		raw_len = 0;
		rc = 0;
	}
	if (rc < 0)
		return fail(r, rc, "block %llu at byte %llu: %s", (unsigned long long)r->blocks,
			    (unsigned long long)r->bytes, why);
	r->block = p;
	r->block_len = PL_BLOCK_HEADER_SIZE + h.stored_len;
	r->consumed += r->block_len;
	r->bytes += r->block_len;
	r->blocks++;
	r->have_prev_time = 0; /* time deltas restart in every block */
	if (r->on_block)
		r->on_block(r->block, r->block_len, r->on_block_data);
	pl_cur_init(&r->frames, raw, raw_len);
	return 1;
}

#ifndef PL_BLOCK_NO_DECOMPRESS /* the agent reads commands only: no stacks, no samples */
static int define_stack(struct pl_reader *r, uint32_t id, const uint64_t *entries, uint32_t nr)
{
	if (id == 0 || id > PL_MAX_STACK_IDS)
		return fail(r, -EBADMSG, "block %llu: STACK id %u out of range 1..%u",
			    (unsigned long long)r->blocks, id, PL_MAX_STACK_IDS);
	if (!r->stacks) {
		r->stacks = calloc(PL_MAX_STACK_IDS, sizeof(*r->stacks));
		r->stack_info = calloc(PL_MAX_STACK_IDS, sizeof(*r->stack_info));
		if (!r->stacks || !r->stack_info)
			return fail(r, -ENOMEM, "out of memory for the stack dictionary");
	}
	uint32_t i = id - 1;
	uint64_t *chain = realloc(r->stacks[i], (nr ? nr : 1) * sizeof(uint64_t));
	if (!chain)
		return fail(r, -ENOMEM, "out of memory for a %u-entry stack", nr);
	memcpy(chain, entries, nr * sizeof(uint64_t));
	r->stacks[i] = chain;
	r->stack_info[i] = (struct pl_reader_stack){ ++r->stack_defs, nr };
	return 0;
}

/* A STACK_DELTA: the chain is rebuilt from its base's, then defined. */
static int define_stack_delta(struct pl_reader *r, const struct pl_msg_stack_delta *d)
{
	uint32_t b = d->base - 1;
	if (d->base &&
	    (d->base > PL_MAX_STACK_IDS || !r->stacks || !r->stacks[b]))
		return fail(r, -EBADMSG, "block %llu: STACK_DELTA %u names base %u, never defined",
			    (unsigned long long)r->blocks, d->id, d->base);
	if (!r->chain_tmp && !(r->chain_tmp = malloc(PL_MAX_CALLCHAIN * sizeof(uint64_t))))
		return fail(r, -ENOMEM, "out of memory for a stack");
	const uint64_t *base = d->base ? r->stacks[b] : NULL;
	uint32_t base_nr = d->base ? r->stack_info[b].len : 0;
	uint32_t n = pl_stack_delta_apply(d, base, base_nr, r->chain_tmp);
	if (n == 0)
		return fail(r, -EBADMSG,
			    "block %llu: STACK_DELTA %u keeps %u and drops %u entries of a %u-entry "
			    "base and adds %u",
			    (unsigned long long)r->blocks, d->id, d->head, d->drop, base_nr, d->nr);
	return define_stack(r, d->id, r->chain_tmp, n);
}

/* Absolute time and full call chain for a compacted SAMPLE. */
static int expand_sample(struct pl_reader *r, struct pl_msg_sample *s)
{
	if (s->flags & PL_SAMPLE_TIME_DELTA) {
		if (!r->have_prev_time)
			return fail(r, -EBADMSG, "block %llu: a time delta with no sample before it",
				    (unsigned long long)r->blocks);
		s->time = r->prev_time + s->time;
	}
	s->flags = 0; /* wire-level only (msg.h): none reaches a consumer */
	r->prev_time = s->time;
	r->have_prev_time = 1;
	r->chain_def = 0;
	if (s->stack_id && s->nr_callchain == 0) {
		uint32_t i = s->stack_id - 1;
		if (s->stack_id <= PL_MAX_STACK_IDS && r->stacks && r->stacks[i]) {
			s->nr_callchain = r->stack_info[i].len;
			r->chain_def = r->stack_info[i].def;
			if (!r->chains_by_ref)
				memcpy(s->callchain, r->stacks[i], s->nr_callchain * sizeof(uint64_t));
		} else {
			r->unresolved_stacks++;
		}
	}
	return 0;
}

static int start_batch(struct pl_reader *r, const struct pl_msg_sample_batch *b)
{
	char why[120];
	if (!r->batch && !(r->batch = malloc(sizeof(*r->batch))))
		return fail(r, -ENOMEM, "out of memory for a sample batch");
	int rc = pl_batch_iter_init(r->batch, b, why, sizeof(why));
	if (rc < 0)
		return fail(r, rc, "block %llu: %s", (unsigned long long)r->blocks, why);
	/* the stacks the batch introduces, before any of its rows */
	if (r->batch->defs_left && !r->def_tmp &&
	    !(r->def_tmp = malloc(sizeof(*r->def_tmp))))
		return fail(r, -ENOMEM, "out of memory for a stack definition");
	while ((rc = pl_batch_iter_next_def(r->batch, r->def_tmp, why, sizeof(why))) == 1)
		if ((rc = define_stack_delta(r, r->def_tmp)) < 0)
			return rc;
	if (rc < 0)
		return fail(r, rc, "block %llu: %s", (unsigned long long)r->blocks, why);
	return 0;
}

/* 1: the batch's next sample is in *m; 0: the batch is done. */
static int batch_sample(struct pl_reader *r, struct pl_msg *m)
{
	struct pl_msg_sample *s = &m->u.sample;
	int64_t ip_delta;
	char why[120];
	m->type = PL_MSG_SAMPLE;
	int rc = pl_batch_iter_next(r->batch, s, &ip_delta, why, sizeof(why));
	if (rc < 0)
		return fail(r, rc, "block %llu: %s", (unsigned long long)r->blocks, why);
	if (rc == 0)
		return 0;
	if ((rc = expand_sample(r, s)) < 0)
		return rc;
	s->ip = pl_batch_ip_base(pl_reader_sample_chain(r, s), s->nr_callchain) + (uint64_t)ip_delta;
	return 1;
}
#endif

int pl_reader_next(struct pl_reader *r, struct pl_msg *m)
{
	if (r->err)
		return r->err;
	for (;;) {
#ifndef PL_BLOCK_NO_DECOMPRESS
		if (r->batch && r->batch->left) {
			int rc = batch_sample(r, m);
			if (rc != 0)
				return rc;
		}
#endif
		if (pl_cur_left(&r->frames) == 0) {
			int rc = next_block(r);
			if (rc <= 0)
				return rc;
			continue;
		}
		struct pl_frame_header fh;
		char why[120];
		int rc = pl_frame_header_parse(r->frames.p, pl_cur_left(&r->frames), &fh, why,
					       sizeof(why));
		if (rc < 0)
			return fail(r, rc, "block %llu: %s", (unsigned long long)r->blocks, why);
		const uint8_t *body = r->frames.p + PL_FRAME_HEADER_SIZE;
		r->frames.p += PL_FRAME_HEADER_SIZE + fh.len;
		rc = pl_msg_decode(fh.type, body, fh.len, m, why, sizeof(why));
		if (rc == -ENOENT) {
			r->skipped_frames++;
			continue;
		}
		if (rc < 0)
			return fail(r, rc, "block %llu: %s", (unsigned long long)r->blocks, why);
#ifndef PL_BLOCK_NO_DECOMPRESS
		if (m->type == PL_MSG_STACK || m->type == PL_MSG_STACK_DELTA) {
			rc = m->type == PL_MSG_STACK
				     ? define_stack(r, m->u.stack.id, m->u.stack.chain, m->u.stack.nr)
				     : define_stack_delta(r, &m->u.stack_delta);
			if (rc < 0)
				return rc;
			continue;
		}
		if (m->type == PL_MSG_SAMPLE && (rc = expand_sample(r, &m->u.sample)) < 0)
			return rc;
		if (m->type == PL_MSG_SAMPLE_BATCH) {
			if ((rc = start_batch(r, &m->u.batch)) < 0)
				return rc;
			continue;
		}
#endif
		return 1;
	}
}
