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
	if (zstd_level > 0)
		e->zctx = ZSTD_createCCtx();
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
		size_t z = ZSTD_compressCCtx(e->zctx, payload, cap, e->raw, raw_len, e->level);
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

int pl_block_dec_init(struct pl_block_dec *d)
{
	memset(d, 0, sizeof(*d));
	d->dctx = ZSTD_createDCtx();
	return d->dctx ? 0 : -ENOMEM;
}

void pl_block_dec_free(struct pl_block_dec *d)
{
	if (d->dctx)
		ZSTD_freeDCtx(d->dctx);
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
		memcpy(d->raw, payload, h->raw_len);
		*raw = d->raw;
		*raw_len = h->raw_len;
		return 0;
	}
	size_t got = ZSTD_decompressDCtx(d->dctx, d->raw, h->raw_len, payload, h->stored_len);
	if (ZSTD_isError(got) || got != h->raw_len) {
		snprintf(err, errlen, "zstd block does not decompress to its %u bytes: %s",
			 h->raw_len, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
		return -EBADMSG;
	}
	*raw = d->raw;
	*raw_len = got;
	return 0;
}
