/* fuzz-util.h — what the PerfLens libFuzzer harnesses share.
 *
 * Why these helpers exist: a capture's blocks carry a CRC-32, so almost
 * every mutation of a real capture dies at the checksum and the fuzzer never
 * reaches the frames and messages behind it.  Each harness therefore runs
 * the real parser on the input as it is (the checksum path, torn tails,
 * bad magic) and then on a *repaired* copy:
 *
 *   input starts with "PERFLENS"  → the same stream with every block's
 *                                    CRC (and a raw block's raw_len)
 *                                    recomputed, so mutations inside blocks
 *                                    get past the checksum;
 *   anything else                 → the input taken as a block payload
 *                                    (a run of frames), wrapped in a stream
 *                                    header and one raw block: mutations of
 *                                    frames and message bodies go straight
 *                                    to the frame parser and decoders.
 *
 * The repair is done on the harness's copy with the project's own header
 * writers (common/wire.h); the parsing is always the real code.
 *
 * Also: a deterministic "random" split of the input into pieces (to drive
 * the incremental reader the way short socket reads do), and the message
 * round-trip check (decode → encode → decode → encode must be a fixpoint,
 * and anything the decoder accepts must be encodable again).
 */
#ifndef PL_FUZZ_UTIL_H
#define PL_FUZZ_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "wire.h"
#include "writer.h"

/* A finding the sanitizers cannot see (a broken invariant): print it and
 * abort, which libFuzzer records as a crash with the input saved. */
#define FZ_CHECK(cond, ...)                                                                       \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "fuzz invariant failed at %s:%d: %s: ", __FILE__,         \
				__LINE__, #cond);                                                 \
			fprintf(stderr, __VA_ARGS__);                                             \
			fputc('\n', stderr);                                                      \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

static inline uint64_t fz_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* xorshift64*: piece sizes derived from the input, so a crash replays. */
static inline uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Next piece size: mostly small (1..16 bytes, every boundary inside a
 * header), sometimes a block's worth, capped at max. */
static inline size_t fz_piece(uint64_t *s, size_t left, size_t max)
{
	uint64_t r = fz_rand(s);
	size_t n;
	switch (r % 4) {
	case 0:
		n = 1 + (r >> 8) % 16;
		break;
	case 1:
		n = 1 + (r >> 8) % 512;
		break;
	case 2:
		n = 1 + (r >> 8) % 8192;
		break;
	default:
		n = max;
		break;
	}
	if (n > max)
		n = max;
	return n < left ? n : left;
}

static inline int fz_is_plens(const uint8_t *p, size_t n)
{
	return n >= 8 && memcmp(p, PL_MAGIC, 8) == 0;
}

/* Repairs, in place, the CRC of every complete block of a PerfLens stream
 * (and raw_len of raw blocks).  Stops at the first thing that is not a
 * block header.  Returns how many blocks were repaired. */
static inline unsigned fz_fix_crcs(uint8_t *p, size_t n)
{
	size_t off = PL_STREAM_HEADER_SIZE;
	unsigned fixed = 0;
	if (n >= PL_STREAM_HEADER_SIZE) {
		uint16_t hs = pl_get_le16(p + 10);
		if (hs >= PL_STREAM_HEADER_SIZE && hs <= 4096)
			off = hs;
	}
	while (off + PL_BLOCK_HEADER_SIZE <= n && pl_get_le32(p + off) == PL_BLOCK_MAGIC) {
		uint8_t *h = p + off;
		uint32_t stored = pl_get_le32(h + 8);
		if (stored > n - off - PL_BLOCK_HEADER_SIZE)
			break;
		if (h[4] == PL_CODEC_RAW)
			pl_put_le32(h + 12, stored);
		pl_put_le32(h + 16, pl_crc32(0, h + PL_BLOCK_HEADER_SIZE, stored));
		off += PL_BLOCK_HEADER_SIZE + stored;
		fixed++;
	}
	return fixed;
}

/* The input as the payload of one raw block in a fresh stream.  Returns a
 * malloc'd buffer of *out_n bytes, or NULL when the payload is over the
 * block cap. */
static inline uint8_t *fz_wrap_frames(const uint8_t *p, size_t n, uint32_t flags, size_t *out_n)
{
	if (n > PL_BLOCK_MAX_RAW)
		return NULL;
	size_t total = PL_STREAM_HEADER_SIZE + PL_BLOCK_HEADER_SIZE + n;
	uint8_t *b = malloc(total ? total : 1);
	if (!b)
		return NULL;
	pl_stream_header_put(b, flags);
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)n, (uint32_t)n, pl_crc32(0, p, n) };
	pl_block_header_put(b + PL_STREAM_HEADER_SIZE, &h);
	if (n)
		memcpy(b + PL_STREAM_HEADER_SIZE + PL_BLOCK_HEADER_SIZE, p, n);
	*out_n = total;
	return b;
}

/* Feeds one fuzz input to fn three ways: as it is; when it is a PerfLens
 * stream, once more with every block CRC repaired (so mutations reach the
 * decoder behind the CRC check); otherwise, when wrap is set, as the frames
 * of one raw block in a fresh stream with the given header flags.  seed
 * (for fn's own choices, e.g. how to cut reads) differs per way. */
typedef void (*fz_stream_fn)(const uint8_t *p, size_t n, uint64_t seed);
static inline void fz_each_stream(const uint8_t *data, size_t size, uint32_t flags, int wrap,
				  fz_stream_fn fn)
{
	uint64_t seed = fz_hash(data, size) | 1;
	fn(data, size, seed);
	if (fz_is_plens(data, size)) {
		uint8_t *copy = malloc(size);
		if (copy) {
			memcpy(copy, data, size);
			if (fz_fix_crcs(copy, size))
				fn(copy, size, seed ^ 0x5555);
			free(copy);
		}
	} else if (wrap) {
		size_t wn;
		uint8_t *w = fz_wrap_frames(data, size, flags, &wn);
		if (w) {
			fn(w, wn, seed ^ 0xaaaa);
			free(w);
		}
	}
}

/* Round trip of one decoded message.  body_len is the length of the body it
 * was decoded from: the re-encoding is canonical, never longer (SIZE_MAX:
 * unknown, e.g. a SAMPLE whose chain pl_reader filled from a STACK).  wbuf has
 * room for a whole frame (PL_FRAME_HEADER_SIZE + PL_FRAME_MAX).  scratch
 * holds a second decoded message. */
static inline void fz_roundtrip(const struct pl_msg *m, size_t body_len, uint8_t *wbuf,
				uint8_t *wbuf2, struct pl_msg *scratch)
{
	struct pl_writer w, w2;
	char err[160];
	size_t cap = PL_FRAME_HEADER_SIZE + PL_FRAME_MAX;

	pl_w_init(&w, wbuf, cap);
	int rc = pl_msg_encode(&w, m);
	FZ_CHECK(rc == 0, "%s decoded from %zu bytes but does not encode again (%d)",
		 pl_msg_type_name(m->type), body_len, rc);
	size_t n = pl_w_len(&w);
	FZ_CHECK(body_len == SIZE_MAX || n - PL_FRAME_HEADER_SIZE <= body_len,
		 "%s re-encoded to %zu bytes, longer than the %zu it came from",
		 pl_msg_type_name(m->type), n - PL_FRAME_HEADER_SIZE, body_len);
	rc = pl_msg_decode(m->type, wbuf + PL_FRAME_HEADER_SIZE, n - PL_FRAME_HEADER_SIZE, scratch,
			   err, sizeof(err));
	FZ_CHECK(rc == 0, "%s: own encoding does not decode: %s", pl_msg_type_name(m->type), err);
	pl_w_init(&w2, wbuf2, cap);
	rc = pl_msg_encode(&w2, scratch);
	FZ_CHECK(rc == 0 && pl_w_len(&w2) == n && memcmp(wbuf, wbuf2, n) == 0,
		 "%s: encode(decode(encode(m))) differs from encode(m)", pl_msg_type_name(m->type));
}

#endif
