/* block.c — zstd batches; see block.h for the contract. */
#include "block.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

int pl_block_enc_init(struct pl_block_enc *e, size_t raw_cap, int zstd_level)
{
	memset(e, 0, sizeof(*e));
	if (raw_cap == 0 || raw_cap > PL_BLOCK_MAX_RAW)
		return -EINVAL;
	e->raw_cap = raw_cap;
	e->out_cap = PL_BLOCK_HEADER_SIZE + ZSTD_compressBound(raw_cap);
	e->raw = malloc(raw_cap);
	e->out = malloc(e->out_cap);
	e->level = zstd_level;
	if (zstd_level > 0) {
		e->zctx = ZSTD_createCCtx();
		if (e->zctx) {
			ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_compressionLevel, zstd_level);
			/* a chained frame keeps this much history in the agent
			 * (128 KiB of window + a block): thousands of samples */
			ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_windowLog, PL_BLOCK_WINDOW_LOG);
#ifdef PL_ZSTD_FAST_ONLY
			/* the static agent links only zstd's fast match finder
			 * (agent/static/zstd-fast-only.c): a level picks its
			 * hash and window sizes, never another strategy; fast
			 * reads targetLength as a step that skips input, so it
			 * stays 1 (levels >= 5 set it for their own finders) */
			ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_strategy, ZSTD_fast);
			ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_targetLength, 1);
#endif
		}
	}
	if (!e->raw || !e->out || (zstd_level > 0 && !e->zctx)) {
		pl_block_enc_free(e);
		return -ENOMEM;
	}
	pl_w_init(&e->w, e->raw, raw_cap);
	return 0;
}

void pl_block_enc_free(struct pl_block_enc *e)
{
	free(e->raw);
	free(e->out);
	if (e->zctx)
		ZSTD_freeCCtx(e->zctx);
	memset(e, 0, sizeof(*e));
}

void pl_block_enc_set_chain(struct pl_block_enc *e, int on)
{
	e->chain = on;
	e->restart = 1;
}

/* One piece of the chained frame: everything fed so far comes out
 * (ZSTD_e_flush), so the block decodes on its own given its predecessors.
 * Returns the stored size, or 0 when zstd failed (the frame is abandoned). */
static size_t chain_piece(struct pl_block_enc *e, uint8_t *dst, size_t cap, size_t raw_len)
{
	if (e->restart && ZSTD_isError(ZSTD_CCtx_reset(e->zctx, ZSTD_reset_session_only)))
		return 0;
	ZSTD_inBuffer in = { e->raw, raw_len, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t left;
	do
		left = ZSTD_compressStream2(e->zctx, &out, &in, ZSTD_e_flush);
	while (!ZSTD_isError(left) && left && out.pos < out.size);
	if (ZSTD_isError(left) || left || in.pos != raw_len)
		return 0;
	return out.pos;
}

int pl_block_enc_finish(struct pl_block_enc *e, const uint8_t **out, size_t *n)
{
	size_t raw_len = pl_w_len(&e->w);
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)raw_len, (uint32_t)raw_len, 0 };
	uint8_t *payload = e->out + PL_BLOCK_HEADER_SIZE;
	size_t cap = e->out_cap - PL_BLOCK_HEADER_SIZE;

	if (e->zctx && raw_len > 0 && e->chain) {
		/* the piece is sent even when larger than raw: its bytes are
		 * history the next blocks' matches refer to */
		size_t z = chain_piece(e, payload, cap, raw_len);
		if (z) {
			h.codec = e->restart ? PL_CODEC_ZSTD_NEW : PL_CODEC_ZSTD_MORE;
			h.stored_len = (uint32_t)z;
			e->restart = 0;
		} else {
			e->restart = 1; /* this block goes raw; the next starts afresh */
		}
	}
#ifndef PL_BLOCK_NO_DECOMPRESS /* the agent always chains (agent/stream.c): size */
	else if (e->zctx && raw_len > 0) {
		size_t z = ZSTD_compress2(e->zctx, payload, cap, e->raw, raw_len);
		if (!ZSTD_isError(z) && z < raw_len) {
			h.codec = PL_CODEC_ZSTD;
			h.stored_len = (uint32_t)z;
		}
	}
#endif
	if (h.codec == PL_CODEC_RAW)
		memcpy(payload, e->raw, raw_len);
	h.crc32 = pl_crc32(0, payload, h.stored_len);
	pl_block_header_put(e->out, &h);
	*out = e->out;
	*n = PL_BLOCK_HEADER_SIZE + h.stored_len;
	pl_w_init(&e->w, e->raw, e->raw_cap);
	return 0;
}

/* The agent is built with PL_BLOCK_NO_DECOMPRESS: it links only zstd's
 * compressor (most of its size budget), and viewers send it raw blocks,
 * since commands are too small to gain from compression. */
int pl_block_dec_init(struct pl_block_dec *d)
{
	memset(d, 0, sizeof(*d));
#ifndef PL_BLOCK_NO_DECOMPRESS
	d->dctx = ZSTD_createDCtx();
	if (!d->dctx)
		return -ENOMEM;
#endif
	return 0;
}

void pl_block_dec_free(struct pl_block_dec *d)
{
#ifndef PL_BLOCK_NO_DECOMPRESS
	if (d->dctx)
		ZSTD_freeDCtx(d->dctx);
	if (d->sctx)
		ZSTD_freeDCtx(d->sctx);
#endif
	free(d->raw);
	memset(d, 0, sizeof(*d));
}

#ifndef PL_BLOCK_NO_DECOMPRESS
static int chain_decode(struct pl_block_dec *d, const struct pl_block_header *h,
			const uint8_t *payload, const uint8_t **raw, size_t *raw_len, char *err,
			size_t errlen)
{
	if (h->codec == PL_CODEC_ZSTD_MORE && !d->in_chain) {
		snprintf(err, errlen, "block continues a zstd frame whose start is not here");
		return -ENOMSG;
	}
	if (!d->sctx) {
		d->sctx = ZSTD_createDCtx();
		if (!d->sctx) {
			snprintf(err, errlen, "out of memory for a zstd decoder");
			return -ENOMEM;
		}
		/* cap the history a peer can make us keep (the agent uses 128 KiB) */
		ZSTD_DCtx_setParameter(d->sctx, ZSTD_d_windowLogMax, PL_BLOCK_WINDOW_LOG_MAX);
	}
	if (h->codec == PL_CODEC_ZSTD_NEW)
		ZSTD_DCtx_reset(d->sctx, ZSTD_reset_session_only);
	d->in_chain = 0; /* until this block decodes whole */
	ZSTD_inBuffer in = { payload, h->stored_len, 0 };
	ZSTD_outBuffer out = { d->raw, h->raw_len, 0 };
	size_t rc;
	do
		rc = ZSTD_decompressStream(d->sctx, &out, &in);
	while (!ZSTD_isError(rc) && in.pos < in.size && out.pos < out.size);
	if (ZSTD_isError(rc) || in.pos != in.size || out.pos != h->raw_len) {
		snprintf(err, errlen, "chained zstd block does not decompress to its %u bytes: %s",
			 h->raw_len, ZSTD_isError(rc) ? ZSTD_getErrorName(rc) : "size mismatch");
		return -EBADMSG;
	}
	d->in_chain = 1;
	*raw = d->raw;
	*raw_len = out.pos;
	return 0;
}
#endif

int pl_block_decode(struct pl_block_dec *d, const struct pl_block_header *h,
		    const uint8_t *payload, const uint8_t **raw, size_t *raw_len, char *err,
		    size_t errlen)
{
	/* pl_block_header_parse() already enforced the caps. */
	if (pl_crc32(0, payload, h->stored_len) != h->crc32) {
		snprintf(err, errlen, "block checksum mismatch (corrupt or torn data)");
		return -EBADMSG;
	}
	if (h->codec == PL_CODEC_RAW && h->stored_len != h->raw_len) {
		snprintf(err, errlen, "raw block with stored %u != raw %u bytes", h->stored_len,
			 h->raw_len);
		return -EBADMSG;
	}
	/* Raw blocks are copied too, so that decoded frames never borrow the
	 * caller's input buffer (which it may compact or refill). */
	if (d->raw_cap < h->raw_len) {
		/* grow to the next power of two, never past the cap */
		size_t cap = d->raw_cap ? d->raw_cap : 65536;
		while (cap < h->raw_len)
			cap *= 2;
		if (cap > PL_BLOCK_MAX_RAW)
			cap = PL_BLOCK_MAX_RAW;
		uint8_t *nb = realloc(d->raw, cap);
		if (!nb) {
			snprintf(err, errlen, "out of memory for a %u-byte block", h->raw_len);
			return -ENOMEM;
		}
		d->raw = nb;
		d->raw_cap = cap;
	}
	if (h->codec == PL_CODEC_RAW) {
		if (h->raw_len) /* an empty block may come before any buffer exists */
			memcpy(d->raw, payload, h->raw_len);
		*raw = d->raw;
		*raw_len = h->raw_len;
		return 0;
	}
#ifdef PL_BLOCK_NO_DECOMPRESS
	snprintf(err, errlen, "a zstd block sent to the agent: viewers must send raw blocks");
	return -EBADMSG;
#else
	if (h->codec == PL_CODEC_ZSTD_NEW || h->codec == PL_CODEC_ZSTD_MORE)
		return chain_decode(d, h, payload, raw, raw_len, err, errlen);
	size_t got = ZSTD_decompressDCtx(d->dctx, d->raw, h->raw_len, payload, h->stored_len);
	if (ZSTD_isError(got) || got != h->raw_len) {
		snprintf(err, errlen, "zstd block does not decompress to its %u bytes: %s",
			 h->raw_len, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
		return -EBADMSG;
	}
	*raw = d->raw;
	*raw_len = got;
	return 0;
#endif
}
