/* wire.h — the PerfLens byte stream: stream header, blocks, frames.
 *
 * This header is the specification. One format serves the live connection
 * (agent → viewer, viewer → agent) and the capture file on disk: a capture
 * file is exactly the byte stream an agent sends, so saving a session is
 * appending what arrived.
 *
 *   stream  := stream_header block*
 *   block   := block_header payload(stored_len)      payload is zstd or raw
 *   payload := frame*                                after decompression
 *   frame   := frame_header body(len)                body: see msg.h
 *
 * Every fixed-width field is little-endian on the wire, whatever the host;
 * message bodies use LEB128 varints (byte-order free).  Nothing is ever read
 * by casting a struct onto wire bytes: encoders put bytes, decoders go
 * through the bounds-checked cursor (cursor.h).  Every length is checked
 * against the caps below before anything is allocated or copied.
 *
 * Forward compatibility: readers skip frames of unknown type by length and
 * ignore trailing bytes at the end of a known frame body (newer writers may
 * append fields).  An incompatible change bumps PL_FORMAT_VERSION.
 */
#ifndef PL_WIRE_H
#define PL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define PL_MAGIC "PERFLENS"          /* 8 bytes, no NUL on the wire */
#define PL_FORMAT_VERSION 2u         /* stream/block/frame layout and msg.h bodies */
#define PL_FORMAT_VERSION_MIN 1u     /* oldest version readers still accept */

/* stream header: 16 bytes, at offset 0 of a capture file and of each
 * direction of a connection. */
#define PL_STREAM_HEADER_SIZE 16u
enum pl_stream_flags {
	PL_STREAM_FROM_AGENT = 1u << 0, /* agent → viewer direction */
	PL_STREAM_FROM_VIEWER = 1u << 1,
	PL_STREAM_CAPTURE = 1u << 2, /* written to a file (agent --output or viewer save) */
};
struct pl_stream_header {
	uint16_t version;     /* PL_FORMAT_VERSION */
	uint16_t header_size; /* PL_STREAM_HEADER_SIZE; readers skip extra bytes */
	uint32_t flags;       /* enum pl_stream_flags */
};

/* block header: 20 bytes.
 *   u32 magic 'PLBK'  u8 codec  u8 0  u16 0  u32 stored_len  u32 raw_len  u32 crc32
 * crc32 (IEEE, zlib's) covers the stored payload, so a torn or garbage tail
 * of a capture file is detected and reading stops at the last good block.
 *
 * Codecs: RAW and ZSTD (one whole zstd frame) stand alone.  Version 2 adds
 * a zstd frame that runs across blocks: ZSTD_NEW starts it, each ZSTD_MORE
 * continues it (the compressor flushes at every block end, ZSTD_e_flush, so
 * each block decodes completely when it arrives and its matches may reach
 * back into earlier blocks).  The agent starts a new frame wherever a
 * reader could join: a new connection, a new session, after a dropped
 * block, after END.  A reader that meets ZSTD_MORE without having decoded
 * the frame's start (a file saved from the middle of a connection) skips
 * the block and counts it; it never guesses. */
#define PL_BLOCK_MAGIC 0x4b424c50u /* "PLBK" as little-endian bytes */
#define PL_BLOCK_HEADER_SIZE 20u
#define PL_BLOCK_MAX_RAW (4u << 20)                  /* decompressed payload cap */
#define PL_BLOCK_MAX_STORED (PL_BLOCK_MAX_RAW + 65536u) /* > ZSTD_compressBound(raw) */
enum pl_codec { PL_CODEC_RAW = 0, PL_CODEC_ZSTD = 1, PL_CODEC_ZSTD_NEW = 2, PL_CODEC_ZSTD_MORE = 3 };
struct pl_block_header {
	uint8_t codec;
	uint32_t stored_len;
	uint32_t raw_len;
	uint32_t crc32;
};

/* frame header: 8 bytes.  u16 type  u16 flags(0)  u32 len.  A frame never
 * spans two blocks. */
#define PL_FRAME_HEADER_SIZE 8u
#define PL_FRAME_MAX (1u << 20) /* body cap; a 64 KiB dwarf stack copy fits easily */
struct pl_frame_header {
	uint16_t type; /* enum pl_msg_type (msg.h) */
	uint16_t flags;
	uint32_t len;
};

/* Encoding and decoding of the three headers.  The put functions write
 * exactly *_SIZE bytes.  The parse functions return 0, or -EBADMSG /
 * -EPROTO / -E2BIG with a reason in err (caller-owned, errlen bytes). */
void pl_stream_header_put(uint8_t out[PL_STREAM_HEADER_SIZE], uint32_t flags);
int pl_stream_header_parse(const uint8_t *p, size_t n, struct pl_stream_header *h, char *err,
			   size_t errlen);
void pl_block_header_put(uint8_t out[PL_BLOCK_HEADER_SIZE], const struct pl_block_header *h);
int pl_block_header_parse(const uint8_t *p, size_t n, struct pl_block_header *h, char *err,
			  size_t errlen);
void pl_frame_header_put(uint8_t out[PL_FRAME_HEADER_SIZE], const struct pl_frame_header *h);
int pl_frame_header_parse(const uint8_t *p, size_t n, struct pl_frame_header *h, char *err,
			  size_t errlen);

uint32_t pl_crc32(uint32_t crc, const void *data, size_t n);

/* Little-endian stores and loads: the only place byte order is decided. */
static inline void pl_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void pl_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void pl_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t pl_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t pl_get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t pl_get_le64(const uint8_t *p)
{
	return (uint64_t)pl_get_le32(p) | (uint64_t)pl_get_le32(p + 4) << 32;
}

#endif
