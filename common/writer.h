/* writer.h — encoding into a caller-owned buffer.
 *
 * A pl_writer never allocates: the agent's hot path encodes straight into
 * its preallocated block buffer.  Writing past the end sets `overflow`
 * (sticky) and drops the bytes; callers check it once per message and
 * rewind with pl_w_mark()/pl_w_reset() so a message is either whole or
 * absent.
 */
#ifndef PL_WRITER_H
#define PL_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wire.h"

struct pl_writer {
	uint8_t *start;
	uint8_t *p;
	uint8_t *end;
	int overflow;
};

static inline void pl_w_init(struct pl_writer *w, void *buf, size_t cap)
{
	w->start = w->p = buf;
	w->end = w->start + cap;
	w->overflow = 0;
}
static inline size_t pl_w_len(const struct pl_writer *w)
{
	return (size_t)(w->p - w->start);
}
static inline size_t pl_w_room(const struct pl_writer *w)
{
	return (size_t)(w->end - w->p);
}
static inline uint8_t *pl_w_reserve(struct pl_writer *w, size_t n)
{
	if (w->overflow || pl_w_room(w) < n) {
		w->overflow = 1;
		return NULL;
	}
	uint8_t *r = w->p;
	w->p += n;
	return r;
}
static inline void pl_w_u8(struct pl_writer *w, uint8_t v)
{
	uint8_t *p = pl_w_reserve(w, 1);
	if (p)
		*p = v;
}
static inline void pl_w_le16(struct pl_writer *w, uint16_t v)
{
	uint8_t *p = pl_w_reserve(w, 2);
	if (p)
		pl_put_le16(p, v);
}
static inline void pl_w_le32(struct pl_writer *w, uint32_t v)
{
	uint8_t *p = pl_w_reserve(w, 4);
	if (p)
		pl_put_le32(p, v);
}
static inline void pl_w_le64(struct pl_writer *w, uint64_t v)
{
	uint8_t *p = pl_w_reserve(w, 8);
	if (p)
		pl_put_le64(p, v);
}
static inline void pl_w_bytes(struct pl_writer *w, const void *src, size_t n)
{
	uint8_t *p = pl_w_reserve(w, n);
	if (p && n)
		memcpy(p, src, n);
}
/* v as a little-endian base-128 varint into out (at most 10 bytes), the
 * wire's and protobuf's encoding; returns its length. */
static inline size_t pl_varint_encode(uint8_t out[10], uint64_t v)
{
	size_t n = 0;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		out[n++] = b | (v ? 0x80 : 0);
	} while (v);
	return n;
}
static inline void pl_w_varint(struct pl_writer *w, uint64_t v)
{
	uint8_t tmp[10];
	pl_w_bytes(w, tmp, pl_varint_encode(tmp, v));
}
static inline void pl_w_svarint(struct pl_writer *w, int64_t v)
{
	pl_w_varint(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}
static inline void pl_w_blob(struct pl_writer *w, const void *p, size_t n)
{
	pl_w_varint(w, n);
	pl_w_bytes(w, p, n);
}
static inline void pl_w_str(struct pl_writer *w, const char *s)
{
	pl_w_blob(w, s ? s : "", s ? strlen(s) : 0);
}

#endif
