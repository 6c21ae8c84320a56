/* wire.c — stream, block and frame headers; CRC-32. */
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void pl_stream_header_put(uint8_t out[PL_STREAM_HEADER_SIZE], uint32_t flags)
{
	memcpy(out, PL_MAGIC, 8);
	pl_put_le16(out + 8, PL_FORMAT_VERSION);
	pl_put_le16(out + 10, PL_STREAM_HEADER_SIZE);
	pl_put_le32(out + 12, flags);
}

int pl_stream_header_parse(const uint8_t *p, size_t n, struct pl_stream_header *h, char *err,
			   size_t errlen)
{
	if (n < PL_STREAM_HEADER_SIZE) {
		snprintf(err, errlen, "stream too short for a PerfLens header (%zu bytes)", n);
		return -EBADMSG;
	}
	if (memcmp(p, PL_MAGIC, 8) != 0) {
		snprintf(err, errlen, "not a PerfLens stream (bad magic): is this a perflens agent "
				      "or .plens capture?");
		return -EBADMSG;
	}
	h->version = pl_get_le16(p + 8);
	h->header_size = pl_get_le16(p + 10);
	h->flags = pl_get_le32(p + 12);
	if (h->version < PL_FORMAT_VERSION_MIN || h->version > PL_FORMAT_VERSION) {
		snprintf(err, errlen,
			 "PerfLens format version %u, this build reads versions %u to %u: use "
			 "matching agent and viewer releases",
			 h->version, PL_FORMAT_VERSION_MIN, PL_FORMAT_VERSION);
		return -EPROTO;
	}
	if (h->header_size < PL_STREAM_HEADER_SIZE || h->header_size > 4096) {
		snprintf(err, errlen, "bad stream header size %u", h->header_size);
		return -EBADMSG;
	}
	return 0;
}

void pl_block_header_put(uint8_t out[PL_BLOCK_HEADER_SIZE], const struct pl_block_header *h)
{
	pl_put_le32(out, PL_BLOCK_MAGIC);
	out[4] = h->codec;
	out[5] = 0;
	pl_put_le16(out + 6, 0);
	pl_put_le32(out + 8, h->stored_len);
	pl_put_le32(out + 12, h->raw_len);
	pl_put_le32(out + 16, h->crc32);
}

int pl_block_header_parse(const uint8_t *p, size_t n, struct pl_block_header *h, char *err,
			  size_t errlen)
{
	if (n < PL_BLOCK_HEADER_SIZE) {
		snprintf(err, errlen, "truncated block header");
		return -EBADMSG;
	}
	if (pl_get_le32(p) != PL_BLOCK_MAGIC) {
		snprintf(err, errlen, "bad block magic 0x%08x (corrupt stream)", pl_get_le32(p));
		return -EBADMSG;
	}
	h->codec = p[4];
	h->stored_len = pl_get_le32(p + 8);
	h->raw_len = pl_get_le32(p + 12);
	h->crc32 = pl_get_le32(p + 16);
	if (h->codec > PL_CODEC_ZSTD_MORE) {
		snprintf(err, errlen, "unknown block codec %u", h->codec);
		return -EBADMSG;
	}
	if (h->raw_len > PL_BLOCK_MAX_RAW || h->stored_len > PL_BLOCK_MAX_STORED) {
		snprintf(err, errlen, "block of %u/%u bytes exceeds the %u-byte cap",
			 h->stored_len, h->raw_len, PL_BLOCK_MAX_RAW);
		return -E2BIG;
	}
	return 0;
}

void pl_frame_header_put(uint8_t out[PL_FRAME_HEADER_SIZE], const struct pl_frame_header *h)
{
	pl_put_le16(out, h->type);
	pl_put_le16(out + 2, h->flags);
	pl_put_le32(out + 4, h->len);
}

int pl_frame_header_parse(const uint8_t *p, size_t n, struct pl_frame_header *h, char *err,
			  size_t errlen)
{
	if (n < PL_FRAME_HEADER_SIZE) {
		snprintf(err, errlen, "truncated frame header (%zu bytes left in block)", n);
		return -EBADMSG;
	}
	h->type = pl_get_le16(p);
	h->flags = pl_get_le16(p + 2);
	h->len = pl_get_le32(p + 4);
	if (h->len > PL_FRAME_MAX) {
		snprintf(err, errlen, "frame of %u bytes exceeds the %u-byte cap", h->len,
			 PL_FRAME_MAX);
		return -E2BIG;
	}
	if (h->len > n - PL_FRAME_HEADER_SIZE) {
		snprintf(err, errlen, "frame of %u bytes runs past its block", h->len);
		return -EBADMSG;
	}
	return 0;
}

/* Table-driven CRC-32 (IEEE 802.3, reflected, as zlib).  The 1 KiB table
 * is built before main() so that threads never race to build it. */
static uint32_t crc_table[256];

__attribute__((constructor)) static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t pl_crc32(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
