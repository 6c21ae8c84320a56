/* perf-data-byte-order-test.c — a big-endian perf.data file: our writer's
 * copy of perf's fp recording, every field swapped by the test's own
 * layout table, reads to the same messages as the little-endian original
 * (the HELLO's byte order apart).  Fixtures: perf-data-fixtures.h. */
#include <glib.h>
#include <stdint.h>
#include <string.h>

#include "perf-data-fixtures.h"
#include "perf-data-format.h"
#include "perf-data-reader.h"
#include "perf-data-writer.h"
#include "pl-test.h"

/* A big-endian twin of a file our writer made: every field swapped by a
 * layout table written here independently of the reader (the bitfield
 * word keeps its bytes, each bit-reversed, as a big-endian compiler lays
 * it out).  Handles exactly what the writer emits; anything else fails. */
static void sw16(uint8_t *p)
{
	uint8_t t = p[0];
	p[0] = p[1];
	p[1] = t;
}
static void sw32(uint8_t *p)
{
	for (int i = 0; i < 2; i++) {
		uint8_t t = p[i];
		p[i] = p[3 - i];
		p[3 - i] = t;
	}
}
static void sw64(uint8_t *p)
{
	for (int i = 0; i < 4; i++) {
		uint8_t t = p[i];
		p[i] = p[7 - i];
		p[7 - i] = t;
	}
}
static void sw64s(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sw64(p + 8 * i);
}

static void swap_attr(uint8_t *a)
{
	sw32(a);
	sw32(a + 4);
	sw64s(a + 8, 4); /* config period sample_type read_format */
	for (int i = 0; i < 8; i++) {
		uint8_t b = a[40 + i], r = 0;
		for (int k = 0; k < 8; k++)
			r |= (uint8_t)(((b >> k) & 1) << (7 - k));
		a[40 + i] = r;
	}
	sw32(a + 48);
	sw32(a + 52);
	sw64s(a + 56, 4); /* config1 config2 branch_sample_type regs_user */
	sw32(a + 88);
	sw32(a + 92);
	sw64(a + 96);
	sw32(a + 104);
	sw16(a + 108);
	sw16(a + 110);
	sw32(a + 112);
	sw32(a + 116);
	sw64(a + 120);
}

/* u32 length + bytes; returns the bytes used */
static size_t swap_string(uint8_t *p)
{
	size_t len = pl_get_le32(p);
	sw32(p);
	return 4 + len;
}

static void swap_trailer(uint8_t *t)
{
	sw32(t);
	sw32(t + 4);
	sw64(t + 8);
	sw32(t + 16);
	sw32(t + 20);
	sw64(t + 24);
}

static void to_big_endian(uint8_t *d, size_t n)
{
	uint64_t attr_size = pl_get_le64(d + 16), attrs_off = pl_get_le64(d + 24);
	uint64_t attrs_size = pl_get_le64(d + 32), data_off = pl_get_le64(d + 40);
	uint64_t data_size = pl_get_le64(d + 48), feat = pl_get_le64(d + 72);
	PL_CHECK(attr_size == 144 && !pl_get_le64(d + 80) && !pl_get_le64(d + 88) &&
		 !pl_get_le64(d + 96));
	for (uint64_t a = attrs_off; a < attrs_off + attrs_size; a += attr_size) {
		uint64_t ids = pl_get_le64(d + a + 128), nids = pl_get_le64(d + a + 136) / 8;
		sw64s(d + ids, nids);
		swap_attr(d + a);
		sw64s(d + a + 128, 2);
	}
	uint64_t feat_off = data_off + data_size;
	int k = 0;
	for (int bit = 0; bit < 64; bit++) {
		if (!(feat >> bit & 1))
			continue;
		uint8_t *sec = d + feat_off + 16 * k++;
		uint64_t off = pl_get_le64(sec), size = pl_get_le64(sec + 8);
		sw64s(sec, 2);
		uint8_t *p = d + off;
		switch (bit) {
		case PD_FEAT_HOSTNAME:
		case PD_FEAT_OSRELEASE:
		case PD_FEAT_VERSION:
		case PD_FEAT_ARCH:
			swap_string(p);
			break;
		case PD_FEAT_NRCPUS:
			sw32(p);
			sw32(p + 4);
			break;
		case PD_FEAT_CMDLINE: {
			uint32_t nr = pl_get_le32(p);
			sw32(p);
			p += 4;
			for (uint32_t i = 0; i < nr; i++)
				p += swap_string(p);
			break;
		}
		case PD_FEAT_EVENT_DESC: {
			uint32_t nr = pl_get_le32(p), sz = pl_get_le32(p + 4);
			sw32(p);
			sw32(p + 4);
			p += 8;
			for (uint32_t i = 0; i < nr; i++) {
				swap_attr(p);
				p += sz;
				uint32_t nids = pl_get_le32(p);
				sw32(p);
				p += 4;
				p += swap_string(p);
				sw64s(p, nids);
				p += 8 * nids;
			}
			break;
		}
		case PD_FEAT_SAMPLE_TIME:
			sw64s(p, 2);
			break;
		case PD_FEAT_BUILD_ID:
			for (uint8_t *e = p; e < p + size;) {
				uint16_t esz = pl_get_le16(e + 6);
				sw32(e);
				sw16(e + 4);
				sw16(e + 6);
				sw32(e + 8);
				e += esz;
			}
			break;
		default:
			PL_CHECKF(0, "feature %d not handled by the test's swapper", bit);
		}
	}
	for (uint8_t *r = d + data_off; r < d + data_off + data_size;) {
		uint32_t type = pl_get_le32(r);
		uint16_t misc = pl_get_le16(r + 4), size = pl_get_le16(r + 6);
		uint8_t *b = r + 8, *end = r + size;
		switch (type) {
		case PD_REC_SAMPLE: /* IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN */
			sw64s(b, 2);
			sw32(b + 16);
			sw32(b + 20);
			sw64(b + 24);
			sw32(b + 32);
			sw32(b + 36);
			sw64s(b + 40, (size_t)(end - b - 40) / 8);
			break;
		case PD_REC_MMAP2:
			sw32(b);
			sw32(b + 4);
			sw64s(b + 8, 3);
			if (!(misc & PD_MISC_MMAP_BUILD_ID)) {
				sw32(b + 32);
				sw32(b + 36);
				sw64s(b + 40, 2);
			}
			sw32(b + 56);
			sw32(b + 60);
			swap_trailer(end - 32);
			break;
		case PD_REC_COMM:
			sw32(b);
			sw32(b + 4);
			swap_trailer(end - 32);
			break;
		case PD_REC_FORK:
		case PD_REC_EXIT:
			for (int i = 0; i < 4; i++)
				sw32(b + 4 * i);
			sw64(b + 16);
			swap_trailer(end - 32);
			break;
		default:
			PL_CHECKF(0, "record type %u not handled by the test's swapper", type);
		}
		sw32(r);
		sw16(r + 4);
		sw16(r + 6);
		r = end;
	}
	sw64s(d, 13); /* the header last: its fields were used above */
	PL_CHECK(!memcmp(d, "2ELIFREP", 8));
	(void)n;
}

typedef struct {
	GByteArray *enc;
	uint8_t *buf;
	uint8_t byte_order;
} Encode;

/* Every message but HELLO (which must differ in byte order and may in the
 * file date) encoded with the wire encoder: equal bytes, equal messages. */
static gboolean encode_sink(const struct pl_msg *m, gpointer user, GError **error)
{
	Encode *e = user;
	if (m->type == PL_MSG_HELLO) {
		e->byte_order = m->u.hello.byte_order;
		return TRUE;
	}
	struct pl_writer w;
	pl_w_init(&w, e->buf, PL_FRAME_MAX + 64);
	PL_CHECK(pl_msg_encode(&w, m) == 0);
	g_byte_array_append(e->enc, e->buf, (guint)pl_w_len(&w));
	return TRUE;
}

static void test_big_endian_file(void)
{
	const char *src = recording(&rec_fp);
	const char *le = tmp_path("le.data"), *be = tmp_path("be.data");
	g_autoptr(GError) error = NULL;
	Tee t = { pl_perf_data_writer_new(le, &error) };
	PL_CHECK(t.w);
	gboolean ok = pl_perf_data_read(src, NULL, tee_sink, &t, NULL, &error) &&
		      pl_perf_data_writer_finish(t.w, &error);
	pl_perf_data_writer_free(t.w);
	PL_CHECKF(ok, "%s", error->message);
	gsize n;
	g_autofree uint8_t *d = load(le, &n);
	to_big_endian(d, n);
	save(be, d, n);

	Encode a = { g_byte_array_new(), g_malloc(PL_FRAME_MAX + 64), 0 };
	Encode b = { g_byte_array_new(), g_malloc(PL_FRAME_MAX + 64), 0 };
	PlPerfDataStats sa, sb;
	ok = pl_perf_data_read(le, NULL, encode_sink, &a, &sa, &error) &&
	     pl_perf_data_read(be, NULL, encode_sink, &b, &sb, &error);
	PL_CHECKF(ok, "%s", error->message);
	PL_CHECK(!sa.big_endian && sb.big_endian);
	PL_CHECK(a.byte_order == PL_LITTLE_ENDIAN && b.byte_order == PL_BIG_ENDIAN);
	PL_CHECK(sa.samples > 100 && sa.samples == sb.samples);
	if (a.enc->len != b.enc->len || memcmp(a.enc->data, b.enc->data, a.enc->len)) {
		/* name the first frame that differs */
		guint off = 0;
		while (off + PL_FRAME_HEADER_SIZE <= a.enc->len && off + PL_FRAME_HEADER_SIZE <= b.enc->len) {
			uint32_t len = pl_get_le32(a.enc->data + off + 4);
			if (memcmp(a.enc->data + off, b.enc->data + off, PL_FRAME_HEADER_SIZE + len))
				break;
			off += PL_FRAME_HEADER_SIZE + len;
		}
		g_autofree char *ha = hex(a.enc->data + off, MIN(64u, a.enc->len - off));
		g_autofree char *hb = hex(b.enc->data + off, MIN(64u, b.enc->len - off));
		PL_CHECKF(0, "messages differ from byte %u, a %s frame:\n le %s\n be %s", off,
			  pl_msg_type_name(pl_get_le16(a.enc->data + off)), ha, hb);
	}
	g_byte_array_unref(a.enc);
	g_byte_array_unref(b.enc);
	g_free(a.buf);
	g_free(b.buf);
}

PL_TEST_MAIN(PL_CASE(test_big_endian_file))
