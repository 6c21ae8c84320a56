/* perf-data-lbr-test.c — perf.data recorded with `perf record --call-graph
 * lbr`, imported with its branch stacks.
 *
 * This machine has no LBR, so perf cannot record such a file here: the
 * test writes one byte by byte as tools/perf/Documentation/perf.data-file-
 * format.txt and include/uapi/linux/perf_event.h lay it out — the 104-byte
 * file header, one 128-byte perf_event_attr (cycles; sample_type IDENTIFIER
 * IP TID TIME CPU PERIOD CALLCHAIN BRANCH_STACK; branch_sample_type USER
 * CALL_STACK NO_FLAGS NO_CYCLES HW_INDEX, as perf sets it) with its id list,
 * then PERF_RECORD_SAMPLEs whose branch stack is u64 nr, u64 hw_idx and
 * 24-byte struct perf_branch_entry {from, to, flags} — and checks the
 * stacks the reader gives: user only, kernel + user, an LBR with fp frames
 * beyond it, an empty branch stack; and that a count larger than its record
 * is a clean error.  Both byte orders. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "perf-data-format.h"
#include "perf-data-reader.h"
#include "pl-test.h"

#define KCTX ((uint64_t)-128)
#define UCTX ((uint64_t)-512)
#define SAMPLE_TYPE                                                                              \
	(PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_CPU |  \
	 PD_SAMPLE_PERIOD | PD_SAMPLE_CALLCHAIN | PD_SAMPLE_BRANCH_STACK)
/* PERF_SAMPLE_BRANCH_USER | CALL_STACK | NO_FLAGS | NO_CYCLES | HW_INDEX */
#define BRANCH_TYPE ((1u << 1) | (1u << 11) | (1u << 14) | (1u << 15) | (1u << 17))
#define EVENT_ID 7

/* ─── the file, byte by byte ─────────────────────────────────────────── */

static GByteArray *buf;
static gboolean big;

static void put(uint64_t v, int n)
{
	uint8_t b[8];
	for (int i = 0; i < n; i++)
		b[big ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	g_byte_array_append(buf, b, (guint)n);
}
static void put_at(size_t off, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		buf->data[off + (big ? (size_t)(n - 1 - i) : (size_t)i)] = (uint8_t)(v >> (8 * i));
}

typedef struct {
	uint16_t misc;
	uint64_t ip;
	const uint64_t *chain;
	uint32_t nchain;
	const uint64_t *from; /* with to = from + 0x100 */
	uint32_t nbr;
	uint64_t nr_field; /* the count the record claims (nbr unless lying) */
} Sample;

static void put_sample(const Sample *s)
{
	size_t start = buf->len;
	put(PD_REC_SAMPLE, 4);
	put(s->misc, 2);
	put(0, 2); /* size, set below */
	put(EVENT_ID, 8);
	put(s->ip, 8);
	put(1234, 4), put(1235, 4);
	put(5000000000ull + start, 8);
	put(0, 4), put(0, 4);
	put(100003, 8);
	put(s->nchain, 8);
	for (uint32_t i = 0; i < s->nchain; i++)
		put(s->chain[i], 8);
	put(s->nr_field, 8);
	put(3, 8); /* hw_idx */
	for (uint32_t i = 0; i < s->nbr; i++) {
		put(s->from[i], 8);
		put(s->from[i] + 0x100, 8);
		put(0, 8); /* flags (NO_FLAGS, NO_CYCLES) */
	}
	put_at(start + 6, buf->len - start, 2);
}

/* Writes header, attr, ids and the samples; returns the file's path. */
static char *write_file(const char *name, const Sample *samples, guint n)
{
	buf = g_byte_array_new();
	const uint64_t attr_size = PD_ATTR_SIZE_VER7, attrs_off = 104, ids_off = 104 + 128 + 16;
	const uint64_t data_off = ids_off + 8;
	g_byte_array_append(buf, (const guint8 *)(big ? PD_MAGIC_BE : PD_MAGIC_LE), 8);
	put(104, 8);                   /* header size */
	put(attr_size + 16, 8);        /* attr entry: attr + ids section */
	put(attrs_off, 8), put(attr_size + 16, 8);
	put(data_off, 8), put(0, 8);   /* data size, set below */
	put(0, 8), put(0, 8);          /* event_types */
	put(0, 8), put(0, 8), put(0, 8), put(0, 8); /* no features */
	g_assert(buf->len == 104);
	/* perf_event_attr */
	put(0, 4);                     /* PERF_TYPE_HARDWARE */
	put(attr_size, 4);
	put(0, 8);                     /* cycles */
	put(4000, 8);                  /* sample_freq */
	put(SAMPLE_TYPE, 8);
	put(0, 8);                     /* read_format */
	put((1ull << PD_ATTR_F_FREQ) | (1ull << PD_ATTR_F_SAMPLE_ID_ALL) |
		    (1ull << PD_ATTR_F_EXCLUDE_HV),
	    8);
	put(0, 4), put(0, 4);          /* wakeup, bp_type */
	put(0, 8), put(0, 8);          /* config1, config2 */
	put(BRANCH_TYPE, 8);           /* branch_sample_type */
	while (buf->len < attrs_off + attr_size)
		put(0, 1);
	put(ids_off, 8), put(8, 8);    /* the attr's ids */
	put(EVENT_ID, 8);
	g_assert(buf->len == data_off);
	for (guint i = 0; i < n; i++)
		put_sample(&samples[i]);
	put_at(48, buf->len - data_off, 8);
	char *path = g_build_filename(g_get_tmp_dir(), name, NULL);
	PL_CHECK(g_file_set_contents(path, (const char *)buf->data, buf->len, NULL));
	g_byte_array_unref(buf);
	return path;
}

/* ─── reading it back ─────────────────────────────────────────────────── */

typedef struct {
	guint n;
	uint8_t callgraph;
	GArray *chains[8];
} Got;

static gboolean sink(const struct pl_msg *m, gpointer user, GError **error)
{
	Got *g = user;
	if (m->type == PL_MSG_SESSION)
		g->callgraph = m->u.session.callgraph;
	if (m->type == PL_MSG_SAMPLE && g->n < G_N_ELEMENTS(g->chains)) {
		GArray *a = g_array_new(FALSE, FALSE, 8);
		g_array_append_vals(a, m->u.sample.callchain, m->u.sample.nr_callchain);
		g->chains[g->n++] = a;
	}
	return TRUE;
}

static void got_free(Got *g)
{
	for (guint i = 0; i < g->n; i++)
		g_array_unref(g->chains[i]);
}

static void expect(const Got *g, guint i, const uint64_t *want, guint n)
{
	PL_CHECKF(i < g->n, "sample %u missing", i);
	GArray *a = g->chains[i];
	GString *s = g_string_new(NULL);
	for (guint k = 0; k < a->len; k++)
		g_string_append_printf(s, " %" G_GINT64_MODIFIER "x", g_array_index(a, uint64_t, k));
	gboolean same = a->len == n && !memcmp(a->data, want, n * 8);
	PL_CHECKF(same, "sample %u (%s-endian file):%s (want %u entries)", i, big ? "big" : "little",
		  s->str, n);
	g_string_free(s, TRUE);
}

/* main → a → b → leaf: the call sites, and the fp walk's return addresses
 * (call site + 5) with a garbage frame where fp broke */
#define LEAF 0x401234ull
static const uint64_t from3[] = { 0x401180, 0x401080, 0x400f80 };

static void import_shapes(gboolean big_endian)
{
	big = big_endian;
	uint64_t k1 = 0xffffffff81234560ull;
	uint64_t user_chain[] = { UCTX, LEAF, 0x1badf00d };
	uint64_t kernel_chain[] = { KCTX, k1, UCTX, LEAF, 0x1badf00d };
	uint64_t deep_chain[] = { UCTX, LEAF, 0x401185, 0x401085, 0x400f85, 0x7f0000029d90, 0x401045 };
	uint64_t plain_chain[] = { UCTX, LEAF, 0x401185 };
	Sample s[] = {
		{ PD_MISC_USER, LEAF, user_chain, 3, from3, 3, 3 },
		{ PD_MISC_KERNEL, k1, kernel_chain, 5, from3, 3, 3 },
		{ PD_MISC_USER, LEAF, deep_chain, 7, from3, 3, 3 },
		{ PD_MISC_USER, LEAF, plain_chain, 3, NULL, 0, 0 },
	};
	g_autofree char *path = write_file(big ? "pl-lbr-be.data" : "pl-lbr-le.data", s, 4);
	Got g = { 0 };
	g_autoptr(GError) error = NULL;
	PlPerfDataStats st;
	gboolean ok = pl_perf_data_read(path, NULL, sink, &g, &st, &error);
	g_unlink(path);
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	PL_CHECK(st.big_endian == big && st.samples == 4);
	PL_CHECK(g.callgraph == PL_CG_LBR);
	uint64_t want0[] = { UCTX, LEAF, 0x401180, 0x401080, 0x400f80 };
	expect(&g, 0, want0, 5);
	uint64_t want1[] = { KCTX, k1, UCTX, LEAF, 0x401180, 0x401080, 0x400f80 };
	expect(&g, 1, want1, 7);
	/* the file does not give the LBR's depth: fp frames beyond its
	 * entries are kept (main's callers) */
	uint64_t want2[] = { UCTX, LEAF, 0x401180, 0x401080, 0x400f80, 0x7f0000029d90, 0x401045 };
	expect(&g, 2, want2, 7);
	expect(&g, 3, plain_chain, 3);
	got_free(&g);
}

static void test_lbr_stacks_little_endian(void)
{
	import_shapes(FALSE);
}

static void test_lbr_stacks_big_endian(void)
{
	import_shapes(TRUE);
}

/* A branch count larger than its record: a corrupt file, said so. */
static void test_branch_count_larger_than_record(void)
{
	uint64_t chain[] = { UCTX, LEAF };
	static const uint64_t lies[] = { 4, 1000, 1ull << 61, ~0ull };
	for (gsize i = 0; i < G_N_ELEMENTS(lies); i++) {
		big = FALSE;
		Sample s = { PD_MISC_USER, LEAF, chain, 2, from3, 3, lies[i] };
		g_autofree char *path = write_file("pl-lbr-bad.data", &s, 1);
		Got g = { 0 };
		g_autoptr(GError) error = NULL;
		gboolean ok = pl_perf_data_read(path, NULL, sink, &g, NULL, &error);
		g_unlink(path);
		PL_CHECKF(!ok && error && error->code == PL_PERF_DATA_ERROR_CORRUPT,
			  "nr %" G_GUINT64_FORMAT ": %s", lies[i], ok ? "read" : error->message);
		PL_CHECK(g.n == 0);
		got_free(&g);
	}
}

PL_TEST_MAIN(PL_CASE(test_lbr_stacks_little_endian), PL_CASE(test_lbr_stacks_big_endian),
	     PL_CASE(test_branch_count_larger_than_record))
