/* block.h — batches of frames, compressed with zstd.
 *
 * The agent encodes frames into a block encoder's raw buffer, and when it
 * is full or old enough, finishes the block: header + zstd payload in one
 * contiguous output buffer, ready to send or append to a file.  Both
 * buffers and the zstd context are allocated once at init; finishing a
 * block does not allocate (the agent's hot path).
 *
 * The decoder checks the header's caps and the CRC before zstd sees a
 * byte, and insists that the payload decompresses to exactly raw_len.
 *
 * Direction rule: agent → viewer blocks may be zstd; viewer → agent blocks
 * are always raw (level 0), because the agent links no decompressor.
 */
#ifndef PL_BLOCK_H
#define PL_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"
#include "writer.h"

#define PL_BLOCK_WINDOW_LOG 17     /* zstd history of a chained frame: 128 KiB */
#define PL_BLOCK_WINDOW_LOG_MAX 23 /* what a reader accepts: 8 MiB */

struct pl_block_enc {
	uint8_t *raw;
	size_t raw_cap;
	struct pl_writer w; /* frames go here */
	uint8_t *out;       /* header + stored payload of the last finished block */
	size_t out_cap;
	void *zctx; /* ZSTD_CCtx */
	int level;  /* 0: store raw */
	int chain;   /* compressed blocks continue one zstd frame (ZSTD_NEW/MORE) */
	int restart; /* the next compressed block starts a new frame */
};

/* raw_cap ≤ PL_BLOCK_MAX_RAW.  Returns 0 or -ENOMEM / -EINVAL. */
int pl_block_enc_init(struct pl_block_enc *e, size_t raw_cap, int zstd_level);
void pl_block_enc_free(struct pl_block_enc *e);
static inline int pl_block_enc_empty(const struct pl_block_enc *e)
{
	return pl_w_len(&e->w) == 0;
}
/* Compresses the frames written so far into e->out and resets the raw
 * writer.  *out and *n describe the whole block (header included).  Falls back
 * to a raw block when compression does not help (standalone blocks) or
 * fails (chained blocks: the frame then restarts).  Returns 0 or -EIO. */
int pl_block_enc_finish(struct pl_block_enc *e, const uint8_t **out, size_t *n);
/* Chaining (wire.h, codecs ZSTD_NEW/MORE): on, the following compressed
 * blocks form one zstd frame, starting with a new one; off, every block
 * stands alone.  The caller restarts the frame wherever a reader may join
 * or a finished block was not delivered: a reader cannot decode a block
 * whose predecessors it missed. */
void pl_block_enc_set_chain(struct pl_block_enc *e, int on);
static inline void pl_block_enc_restart(struct pl_block_enc *e)
{
	e->restart = 1;
}

struct pl_block_dec {
	void *dctx; /* ZSTD_DCtx for standalone blocks */
	void *sctx; /* ZSTD_DCtx for the frame chained across blocks, made on first use */
	int in_chain; /* sctx decoded the chain's start and every block since */
	uint8_t *raw;
	size_t raw_cap;
};
int pl_block_dec_init(struct pl_block_dec *d);
void pl_block_dec_free(struct pl_block_dec *d);
/* Verifies and decompresses one block.  *raw borrows the decoder's buffer
 * until the next call.  Returns 0, -ENOMSG for a ZSTD_MORE block whose
 * frame start this decoder has not seen (skip it: nothing is lost that the
 * reader could have had), or -EBADMSG with the reason in err. */
int pl_block_decode(struct pl_block_dec *d, const struct pl_block_header *h,
		    const uint8_t *payload, const uint8_t **raw, size_t *raw_len, char *err,
		    size_t errlen);

#endif
