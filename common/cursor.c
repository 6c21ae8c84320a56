/* cursor.c — out-of-line parts of the bounds-checked reader. */
#include "cursor.h"

#include <errno.h>

void pl_cur_fail(struct pl_cursor *c, int err)
{
	if (!c->err)
		c->err = err;
	c->p = c->end; /* nothing more is read after a failure */
}

uint64_t pl_cur_varint_long(struct pl_cursor *c)
{
	/* Two-byte varints (and one-byte ones reached here) are read
	 * without the loop's per-byte checks. */
	const uint8_t *q = c->p;
	if (!c->err && c->end - q >= 2) {
		if (!(q[0] & 0x80)) {
			c->p = q + 1;
			return q[0];
		}
		if (!(q[1] & 0x80)) {
			c->p = q + 2;
			return (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
		}
	}
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		const uint8_t *p = pl_cur_take(c, 1);
		if (!p)
			return 0;
		if (shift == 63 && *p > 1) {
			pl_cur_fail(c, -EBADMSG);
			return 0;
		}
		v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p & 0x80))
			return v;
	}
	pl_cur_fail(c, -EBADMSG);
	return 0;
}

const uint8_t *pl_cur_blob(struct pl_cursor *c, size_t max, uint32_t *len)
{
	uint64_t n = pl_cur_varint_max(c, max);
	const uint8_t *p = pl_cur_take(c, (size_t)n);
	*len = p ? (uint32_t)n : 0;
	return p;
}

struct pl_str pl_cur_str(struct pl_cursor *c, size_t max)
{
	struct pl_str s;
	s.p = (const char *)pl_cur_blob(c, max, &s.len);
	if (!s.p) {
		s.p = "";
		s.len = 0;
	}
	return s;
}
