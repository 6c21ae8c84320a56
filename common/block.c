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
#ifdef PL_ZSTD_FAST_ONLY
			/* the static agent links only the fast match finders
			 * (agent/static/zstd-fast-only.c) */
			ZSTD_CCtx_setParameter(e->zctx, ZSTD_c_strategy,
					       zstd_level >= 2 ? ZSTD_dfast : ZSTD_fast);
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

int pl_block_enc_finish(struct pl_block_enc *e, const uint8_t **out, size_t *n)
{
	size_t raw_len = pl_w_len(&e->w);
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)raw_len, (uint32_t)raw_len, 0 };
	uint8_t *payload = e->out + PL_BLOCK_HEADER_SIZE;
	size_t cap = e->out_cap - PL_BLOCK_HEADER_SIZE;

	if (e->zctx && raw_len > 0) {
		size_t z = ZSTD_compress2(e->zctx, payload, cap, e->raw, raw_len);
		if (!ZSTD_isError(z) && z < raw_len) {
			h.codec = PL_CODEC_ZSTD;
			h.stored_len = (uint32_t)z;
		}
	}
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
#endif
	free(d->raw);
	memset(d, 0, sizeof(*d));
}

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
