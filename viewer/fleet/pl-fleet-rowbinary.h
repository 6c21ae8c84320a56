/* pl-fleet-rowbinary.h — ClickHouse's RowBinary, written and read: integers
 * little-endian, strings and arrays a LEB128 length then the bytes or the
 * elements, DateTime a UInt32 of seconds.  The reader is a bounds-checked
 * cursor: every length is checked against the bytes left before it is
 * used, and a short or malformed answer fails the read, never the program. */
#ifndef PL_FLEET_ROWBINARY_H
#define PL_FLEET_ROWBINARY_H

#include <glib.h>
#include <string.h>

/* v's n low bytes, little-endian, at p. */
static inline void pl_rb_le(guint8 *p, guint64 v, guint n)
{
	for (guint i = 0; i < n; i++)
		p[i] = (guint8)(v >> (8 * i));
}

static inline void pl_rb_put_int(GByteArray *b, guint64 v, guint n)
{
	guint8 x[8];
	pl_rb_le(x, v, n);
	g_byte_array_append(b, x, n);
}

static inline void pl_rb_put_len(GByteArray *b, guint64 n)
{
	do {
		guint8 x = n & 0x7f;
		n >>= 7;
		if (n)
			x |= 0x80;
		g_byte_array_append(b, &x, 1);
	} while (n);
}

static inline void pl_rb_put_str(GByteArray *b, const char *s)
{
	gsize n = s ? strlen(s) : 0;
	pl_rb_put_len(b, n);
	g_byte_array_append(b, (const guint8 *)(s ? s : ""), (guint)n);
}

typedef struct {
	const guint8 *p, *end;
	gboolean bad; /* a read ran past the end or met a malformed length */
} PlRbCursor;

static inline guint64 pl_rb_int(PlRbCursor *c, guint n)
{
	guint64 v = 0;
	if (c->bad || (gsize)(c->end - c->p) < n) {
		c->bad = TRUE;
		return 0;
	}
	for (guint i = 0; i < n; i++)
		v |= (guint64)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static inline guint64 pl_rb_len(PlRbCursor *c)
{
	guint64 v = 0;
	for (guint shift = 0; !c->bad; shift += 7) {
		if (c->p >= c->end || shift > 56) {
			c->bad = TRUE;
			break;
		}
		guint8 x = *c->p++;
		v |= (guint64)(x & 0x7f) << shift;
		if (!(x & 0x80))
			return v;
	}
	return 0;
}

/* A string's bytes (not 0-terminated) and *len; NULL when c is bad. */
static inline const char *pl_rb_str(PlRbCursor *c, gsize *len)
{
	guint64 n = pl_rb_len(c);
	if (c->bad || n > (guint64)(c->end - c->p)) {
		c->bad = TRUE;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p += n;
	*len = (gsize)n;
	return s;
}

#endif
