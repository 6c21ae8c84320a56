/* cursor.h — bounds-checked reading of untrusted bytes.
 *
 * Every byte that comes from the network or a file is read through a
 * pl_cursor.  A read past the end, an overlong varint or a length over its
 * cap sets c->err (sticky) and returns zero / NULL; callers check pl_cur_ok()
 * once at the end instead of after every field.  Nothing here allocates.
 */
#ifndef PL_CURSOR_H
#define PL_CURSOR_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "wire.h"

struct pl_cursor {
	const uint8_t *p;
	const uint8_t *end;
	int err; /* 0, or -EBADMSG (truncated / malformed) or -E2BIG (cap exceeded) */
};

/* A borrowed string: points into the decoded buffer, not NUL-terminated. */
struct pl_str {
	const char *p;
	uint32_t len;
};

static inline void pl_cur_init(struct pl_cursor *c, const void *p, size_t n)
{
	c->p = p;
	c->end = n ? c->p + n : c->p; /* NULL + 0 is undefined in C */
	c->err = 0;
}
static inline size_t pl_cur_left(const struct pl_cursor *c)
{
	return (size_t)(c->end - c->p);
}
static inline int pl_cur_ok(const struct pl_cursor *c)
{
	return c->err == 0;
}
void pl_cur_fail(struct pl_cursor *c, int err);

/* Returns a pointer to the next n bytes and advances, or NULL (and err). */
static inline const uint8_t *pl_cur_take(struct pl_cursor *c, size_t n)
{
	if (c->err || pl_cur_left(c) < n) {
		pl_cur_fail(c, -EBADMSG);
		return NULL;
	}
	const uint8_t *r = c->p;
	c->p += n;
	return r;
}
static inline uint8_t pl_cur_u8(struct pl_cursor *c)
{
	const uint8_t *p = pl_cur_take(c, 1);
	return p ? p[0] : 0;
}
static inline uint16_t pl_cur_le16(struct pl_cursor *c)
{
	const uint8_t *p = pl_cur_take(c, 2);
	return p ? pl_get_le16(p) : 0;
}
static inline uint32_t pl_cur_le32(struct pl_cursor *c)
{
	const uint8_t *p = pl_cur_take(c, 4);
	return p ? pl_get_le32(p) : 0;
}
static inline uint64_t pl_cur_le64(struct pl_cursor *c)
{
	const uint8_t *p = pl_cur_take(c, 8);
	return p ? pl_get_le64(p) : 0;
}

/* LEB128: at most 10 bytes; a 10th byte above 1 is malformed.  Most
 * varints of a capture (deltas, ids, small counts) are one byte: those are
 * read inline, the rest by pl_cur_varint_long.  A failed cursor's p is its
 * end (pl_cur_fail), so it takes the long path and reads 0. */
uint64_t pl_cur_varint_long(struct pl_cursor *c);
static inline uint64_t pl_cur_varint(struct pl_cursor *c)
{
	const uint8_t *q = c->p;
	if (q < c->end && !(q[0] & 0x80)) {
		c->p = q + 1;
		return q[0];
	}
	return pl_cur_varint_long(c);
}
/* A varint that must fit `max` (inclusive); larger sets -E2BIG. */
static inline uint64_t pl_cur_varint_max(struct pl_cursor *c, uint64_t max)
{
	uint64_t v = pl_cur_varint(c);
	if (v > max) {
		pl_cur_fail(c, -E2BIG);
		return 0;
	}
	return v;
}
static inline uint32_t pl_cur_u32v(struct pl_cursor *c)
{
	return (uint32_t)pl_cur_varint_max(c, UINT32_MAX);
}
static inline int64_t pl_cur_svarint(struct pl_cursor *c)
{
	uint64_t z = pl_cur_varint(c);
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}
/* varint length (≤ max) followed by that many bytes. */
const uint8_t *pl_cur_blob(struct pl_cursor *c, size_t max, uint32_t *len);
struct pl_str pl_cur_str(struct pl_cursor *c, size_t max);

#endif
