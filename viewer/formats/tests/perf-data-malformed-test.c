/* perf-data-malformed-test.c — the perf.data reader fed truncated,
 * garbage, patched and randomly mutated files (from perf's own fp and
 * pipe-mode recordings), which must each give a clean error in our error
 * domain, never a crash (run under ASan/UBSan in the SAN=1 build).
 * Fixtures: perf-data-fixtures.h. */
#include <glib.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "perf-data-fixtures.h"
#include "perf-data-format.h"
#include "perf-data-reader.h"
#include "pl-test.h"

/* Reads a file that must be refused: FALSE, our error domain, a message. */
static void expect_error(const char *path, int code, const char *what)
{
	g_autoptr(GError) error = NULL;
	guint64 n = 0;
	gboolean ok = pl_perf_data_read(path, NULL, null_sink, &n, NULL, &error);
	PL_CHECKF(!ok, "%s: accepted", what);
	PL_CHECKF(error && error->domain == PL_PERF_DATA_ERROR && *error->message, "%s", what);
	PL_CHECKF(code < 0 || error->code == code, "%s: code %d (%s)", what, error->code,
		  error->message);
}

static void test_malformed_truncated(void)
{
	const char *src = recording(&rec_fp);
	gsize n;
	g_autofree uint8_t *d = load(src, &n);
	uint64_t data_off = pl_get_le64(d + 40), data_size = pl_get_le64(d + 48);
	uint64_t cuts[] = { 0, 5, 12, 60, 103, 104, 150, data_off + 3, data_off + data_size / 2,
			    data_off + data_size, n - 1 };
	const char *t = tmp_path("trunc.data");
	for (size_t i = 0; i < G_N_ELEMENTS(cuts); i++) {
		save(t, d, cuts[i]);
		g_autofree char *what = g_strdup_printf("cut at %" PRIu64, cuts[i]);
		expect_error(t, -1, what);
	}
	/* pipe mode: cut inside a record */
	const char *psrc = recording(&rec_pipe);
	g_autofree uint8_t *p = load(psrc, &n);
	save(t, p, n - 5);
	expect_error(t, PL_PERF_DATA_ERROR_CORRUPT, "pipe cut");
}

static void test_malformed_garbage(void)
{
	const char *t = tmp_path("garbage.data");
	uint8_t buf[4096];
	GRand *rnd = g_rand_new_with_seed(42);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)g_rand_int(rnd);
	g_rand_free(rnd);
	save(t, buf, sizeof(buf));
	expect_error(t, PL_PERF_DATA_ERROR_NOT_PERF, "garbage");
	save(t, "", 0);
	expect_error(t, PL_PERF_DATA_ERROR_NOT_PERF, "empty");
	memcpy(buf, "PERFFILE", 8);
	save(t, buf, sizeof(buf));
	expect_error(t, PL_PERF_DATA_ERROR_UNSUPPORTED, "v1 magic");
	expect_error(tmp_path("does-not-exist.data"), PL_PERF_DATA_ERROR_IO, "missing");
	expect_error(tmpdir, PL_PERF_DATA_ERROR_UNSUPPORTED, "directory");
}

/* One patched u64 (or u16) of the file header or a record at a time. */
static void test_malformed_sections_and_sizes(void)
{
	const char *src = recording(&rec_fp);
	gsize n;
	g_autofree uint8_t *orig = load(src, &n);
	g_autofree uint8_t *d = g_memdup2(orig, n);
	const char *t = tmp_path("patched.data");
	struct {
		size_t off;
		uint64_t v;
		const char *what;
	} p64[] = {
		{ 8, 4096, "header size" },
		{ 16, 1ull << 40, "attr_size huge" },
		{ 16, 8, "attr_size tiny" },
		{ 24, n + 100, "attrs offset past EOF" },
		{ 24, UINT64_MAX - 8, "attrs offset overflow" },
		{ 32, 1ull << 62, "attrs size huge" },
		{ 40, n + 1, "data offset past EOF" },
		{ 48, UINT64_MAX, "data size huge" },
		{ 48, 0, "data size zero" },
		{ 48, pl_get_le64(orig + 48) - 3, "data size not at a record boundary" },
		{ 72, UINT64_MAX, "every feature bit" },
	};
	for (size_t i = 0; i < G_N_ELEMENTS(p64); i++) {
		memcpy(d, orig, n);
		pl_put_le64(d + p64[i].off, p64[i].v);
		save(t, d, n);
		expect_error(t, -1, p64[i].what);
	}
	/* the first attr's ids section, then the feature table's first entry */
	uint64_t attrs_off = pl_get_le64(orig + 24), attr_size = pl_get_le64(orig + 16);
	uint64_t feat_off = pl_get_le64(orig + 40) + pl_get_le64(orig + 48);
	size_t p2[][2] = { { attrs_off + attr_size - 16, 0 }, { attrs_off + attr_size - 8, 1 },
			   { feat_off, 0 }, { feat_off + 8, 1 } };
	for (size_t i = 0; i < G_N_ELEMENTS(p2); i++) {
		memcpy(d, orig, n);
		pl_put_le64(d + p2[i][0], p2[i][1] ? (1ull << 60) : n + 4096);
		save(t, d, n);
		g_autofree char *what = g_strdup_printf("section patch %zu", i);
		expect_error(t, PL_PERF_DATA_ERROR_CORRUPT, what);
	}
	/* records: a size below the header, and a sample whose callchain count
	 * runs past its record */
	uint64_t data_off = pl_get_le64(orig + 40);
	memcpy(d, orig, n);
	pl_put_le16(d + data_off + 6, 4);
	save(t, d, n);
	expect_error(t, PL_PERF_DATA_ERROR_CORRUPT, "record size 4");
	uint64_t pos = data_off, end = data_off + pl_get_le64(orig + 48);
	gboolean patched = FALSE;
	while (pos + 8 <= end) {
		uint16_t size = pl_get_le16(orig + pos + 6);
		if (pl_get_le32(orig + pos) == PD_REC_SAMPLE) {
			/* IP TID TIME CALLCHAIN PERIOD: nr after IP, TID, TIME, PERIOD */
			memcpy(d, orig, n);
			pl_put_le64(d + pos + 8 + 32, 1ull << 61);
			save(t, d, n);
			expect_error(t, PL_PERF_DATA_ERROR_CORRUPT, "callchain nr huge");
			pl_put_le64(d + pos + 8 + 32, (size - 8 - 32) / 8);
			save(t, d, n);
			expect_error(t, PL_PERF_DATA_ERROR_CORRUPT, "callchain nr one too many");
			patched = TRUE;
			break;
		}
		pos += size;
	}
	PL_CHECK(patched);
}

/* Random mutations: whatever the bytes, a result or a clean error. */
static void fuzz_file(const char *src, const char *name, int rounds, guint32 seed)
{
	gsize n;
	g_autofree uint8_t *orig = load(src, &n);
	g_autofree uint8_t *d = g_malloc(n);
	const char *t = tmp_path(name);
	GRand *rnd = g_rand_new_with_seed(seed);
	int refused = 0;
	for (int i = 0; i < rounds; i++) {
		memcpy(d, orig, n);
		int flips = g_rand_int_range(rnd, 1, 9);
		for (int k = 0; k < flips; k++) {
			/* bias towards the header, attrs and early records */
			gsize at = g_rand_boolean(rnd) ? (gsize)g_rand_int_range(rnd, 0, (gint32)MIN(n, 4096u))
						       : (gsize)g_rand_int_range(rnd, 0, (gint32)n);
			switch (g_rand_int_range(rnd, 0, 3)) {
			case 0: d[at] = (uint8_t)g_rand_int(rnd); break;
			case 1: d[at] ^= (uint8_t)(1u << g_rand_int_range(rnd, 0, 8)); break;
			default: d[at] = g_rand_boolean(rnd) ? 0xff : 0; break;
			}
		}
		gsize len = g_rand_int_range(rnd, 0, 10) == 0 ? (gsize)g_rand_int_range(rnd, 0, (gint32)n) : n;
		save(t, d, len);
		g_autoptr(GError) error = NULL;
		Collect c;
		collect_init(&c);
		PlPerfDataReadOptions o = { .reorder = g_rand_boolean(rnd) };
		if (!pl_perf_data_read(t, &o, collect_sink, &c, NULL, &error)) {
			PL_CHECK(error && error->domain == PL_PERF_DATA_ERROR && *error->message);
			refused++;
		}
		collect_free(&c);
	}
	g_rand_free(rnd);
	PL_CHECK(refused > 0);
}

static void test_fuzz_file_mode(void)
{
	fuzz_file(recording(&rec_fp), "fuzz.data", 600, 1);
}

static void test_fuzz_pipe_mode(void)
{
	fuzz_file(recording(&rec_pipe), "fuzz-pipe.data", 300, 2);
}

PL_TEST_MAIN(PL_CASE(test_malformed_truncated), PL_CASE(test_malformed_garbage),
	     PL_CASE(test_malformed_sections_and_sizes), PL_CASE(test_fuzz_file_mode),
	     PL_CASE(test_fuzz_pipe_mode))
