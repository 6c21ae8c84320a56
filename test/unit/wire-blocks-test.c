/* wire-blocks-test.c — streams of blocks (common/block.c, common/reader.c):
 * every example read back through the reader fed in any step size,
 * uncompressed and zstd; a torn tail keeps the complete blocks; checksum,
 * version, garbage and oversized blocks refused; unknown frames skipped;
 * the agent's small reader limit; blocks chained in one zstd frame, read
 * whole and from the middle; version-1 streams and a real version-1
 * capture; the CRC.  Examples: wire-examples.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "msg.h"
#include "pl-test.h"
#include "reader.h"
#include "wire-examples.h"
#include "wire.h"

/* Build a stream of blocks holding every example, for the reader tests. */
static size_t build_stream(uint8_t *out, size_t cap, int level, int nblocks)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 256 * 1024, level) == 0);
	size_t n = 0;
	pl_stream_header_put(out, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE);
	n = PL_STREAM_HEADER_SIZE;
	for (int b = 0; b < nblocks; b++) {
		for (size_t i = 0; i < pl_msg_type_count; i++) {
			example(pl_msg_types[i], &ma);
			PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
		}
		const uint8_t *blk;
		size_t bn;
		PL_CHECK(pl_block_enc_finish(&e, &blk, &bn) == 0);
		PL_CHECK(n + bn <= cap);
		memcpy(out + n, blk, bn);
		n += bn;
	}
	pl_block_enc_free(&e);
	return n;
}

static uint8_t stream[1u << 20];

/* The reader keeps STACK and STACK_DELTA frames to itself and turns the
 * SAMPLE_BATCH into its samples: messages per copy of the types list. */
#define PER_LIST (pl_msg_type_count - 3 + BATCH_ROWS)

/* The n-th message the reader returns: into *m (example or batch row). */
static void expected(size_t n, struct pl_msg *m)
{
	size_t k = n % PER_LIST;
	for (size_t i = 0; i < pl_msg_type_count; i++) {
		if (pl_msg_types[i] == PL_MSG_STACK || pl_msg_types[i] == PL_MSG_STACK_DELTA)
			continue;
		if (pl_msg_types[i] == PL_MSG_SAMPLE_BATCH) {
			if (k < BATCH_ROWS) {
				batch_sample((int)k, m);
				return;
			}
			k -= BATCH_ROWS;
			continue;
		}
		if (k-- == 0) {
			example(pl_msg_types[i], m);
			return;
		}
	}
}

static int read_all(const uint8_t *p, size_t n, size_t step, size_t *msgs, char *why)
{
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) == 0);
	int rc = 0;
	*msgs = 0;
	for (size_t off = 0; off < n && rc >= 0; off += step) {
		size_t k = n - off < step ? n - off : step;
		PL_CHECK(pl_reader_feed(&r, p + off, k) == 0);
		while ((rc = pl_reader_next(&r, &mb)) == 1) {
			expected(*msgs, &ma);
			PL_CHECKF(mb.type == ma.type, "message %zu type %u want %u", *msgs, mb.type,
				  ma.type);
			check_equal(&ma, &mb);
			(*msgs)++;
		}
	}
	if (rc < 0)
		snprintf(why, 200, "%s", pl_reader_error(&r));
	else if (pl_reader_pending(&r))
		rc = 1; /* torn tail */
	pl_reader_free(&r);
	return rc;
}

static void test_stream_round_trip(void)
{
	for (int level = 0; level <= 3; level += 3) {
		size_t n = build_stream(stream, sizeof(stream), level, 3);
		size_t steps[] = { 1, 7, 4096, n };
		for (size_t s = 0; s < 4; s++) {
			size_t msgs;
			char why[200];
			int rc = read_all(stream, n, steps[s], &msgs, why);
			PL_CHECKF(rc == 0, "level %d step %zu: rc %d %s", level, steps[s], rc,
				  rc < 0 ? why : "");
			PL_CHECK(msgs == 3 * PER_LIST);
		}
	}
}

static void test_torn_tail_keeps_complete_blocks(void)
{
	size_t n = build_stream(stream, sizeof(stream), 3, 3);
	/* cut inside the third block: two blocks' messages, then a pending tail */
	for (size_t cut = n - 1; cut > n - 40; cut -= 13) {
		size_t msgs;
		char why[200];
		int rc = read_all(stream, cut, 1000, &msgs, why);
		PL_CHECK(rc == 1);
		PL_CHECK(msgs == 2 * PER_LIST);
	}
}

static void test_corruption_detected(void)
{
	size_t n = build_stream(stream, sizeof(stream), 3, 2);
	size_t msgs;
	char why[200];
	/* flip a payload byte of the second block: CRC catches it */
	stream[n - 5] ^= 0x40;
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) < 0);
	PL_CHECKF(strstr(why, "checksum") != NULL, "%s", why);
	PL_CHECK(msgs == PER_LIST);
	/* wrong version */
	n = build_stream(stream, sizeof(stream), 3, 1);
	stream[8] = 9;
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == -EPROTO);
	PL_CHECKF(strstr(why, "version") != NULL, "%s", why);
	/* garbage */
	for (size_t i = 0; i < 4096; i++)
		stream[i] = (uint8_t)(i * 31 + 7);
	PL_CHECK(read_all(stream, 4096, 100, &msgs, why) < 0 && msgs == 0);
	/* an oversized block header is refused before buffering it */
	n = build_stream(stream, sizeof(stream), 3, 1);
	pl_put_le32(stream + PL_STREAM_HEADER_SIZE + 8, PL_BLOCK_MAX_STORED + 1);
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == -E2BIG);
}

static void test_unknown_frames_skipped(void)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 65536, 1) == 0);
	uint8_t *h = pl_w_reserve(&e.w, PL_FRAME_HEADER_SIZE + 5);
	struct pl_frame_header fh = { 4000, 0, 5 };
	pl_frame_header_put(h, &fh);
	memset(h + PL_FRAME_HEADER_SIZE, 0xee, 5);
	example(pl_msg_types[0], &ma);
	PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
	const uint8_t *blk;
	size_t bn;
	pl_block_enc_finish(&e, &blk, &bn);
	uint8_t out[8192];
	pl_stream_header_put(out, 0);
	memcpy(out + PL_STREAM_HEADER_SIZE, blk, bn);
	pl_block_enc_free(&e);
	struct pl_reader r;
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, PL_STREAM_HEADER_SIZE + bn);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.type == pl_msg_types[0]);
	PL_CHECK(r.skipped_frames == 1);
	PL_CHECK(pl_reader_next(&r, &mb) == 0);
	pl_reader_free(&r);
}

static void test_small_reader_limit(void)
{
	/* the agent reads commands with a small limit: a big block is refused */
	size_t n = build_stream(stream, sizeof(stream), 0, 1);
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, 1024) == 0);
	pl_reader_feed(&r, stream, n);
	PL_CHECK(pl_reader_next(&r, &mb) == -E2BIG);
	PL_CHECK(strstr(pl_reader_error(&r), "limit") != NULL);
	pl_reader_free(&r);
}

/* Blocks that continue one zstd frame (codecs ZSTD_NEW / ZSTD_MORE, as the
 * agent sends them): read whole, and read from the middle as a viewer that
 * saves a later session does, where the orphan tail is skipped. */
static size_t build_chain(uint8_t *out, size_t cap, size_t *starts)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 256 * 1024, 1) == 0);
	pl_block_enc_set_chain(&e, 1);
	pl_stream_header_put(out, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE);
	size_t n = PL_STREAM_HEADER_SIZE;
	for (int b = 0; b < 4; b++) {
		if (b == 2)
			pl_block_enc_restart(&e); /* a new session: a reader may join */
		for (size_t i = 0; i < pl_msg_type_count; i++) {
			example(pl_msg_types[i], &ma);
			PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
		}
		const uint8_t *blk;
		size_t bn;
		PL_CHECK(pl_block_enc_finish(&e, &blk, &bn) == 0);
		PL_CHECK(n + bn <= cap);
		starts[b] = n;
		memcpy(out + n, blk, bn);
		n += bn;
	}
	pl_block_enc_free(&e);
	return n;
}

static void test_chained_blocks(void)
{
	size_t starts[4];
	size_t n = build_chain(stream, sizeof(stream), starts);
	static const uint8_t codecs[] = { PL_CODEC_ZSTD_NEW, PL_CODEC_ZSTD_MORE, PL_CODEC_ZSTD_NEW,
					  PL_CODEC_ZSTD_MORE };
	for (int b = 0; b < 4; b++)
		PL_CHECKF(stream[starts[b] + 4] == codecs[b], "block %d codec %u", b,
			  stream[starts[b] + 4]);
	/* later blocks lean on earlier ones: the second is much smaller */
	PL_CHECK(starts[2] - starts[1] < (starts[1] - starts[0]) / 2);
	size_t steps[] = { 1, 999, n };
	for (size_t i = 0; i < 3; i++) {
		size_t msgs;
		char why[200];
		int rc = read_all(stream, n, steps[i], &msgs, why);
		PL_CHECKF(rc == 0, "step %zu: %s", steps[i], rc < 0 ? why : "torn");
		PL_CHECK(msgs == 4 * PER_LIST);
	}
	/* a file saved from block 1 on: its header, then MORE (skipped), NEW, MORE */
	static uint8_t mid[1u << 20];
	memcpy(mid, stream, PL_STREAM_HEADER_SIZE);
	memcpy(mid + PL_STREAM_HEADER_SIZE, stream + starts[1], n - starts[1]);
	size_t mn = PL_STREAM_HEADER_SIZE + n - starts[1];
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) == 0);
	PL_CHECK(pl_reader_feed(&r, mid, mn) == 0);
	size_t msgs = 0;
	int rc;
	while ((rc = pl_reader_next(&r, &mb)) == 1) {
		expected(msgs++, &ma);
		PL_CHECK(mb.type == ma.type);
		check_equal(&ma, &mb);
	}
	PL_CHECKF(rc == 0, "%s", pl_reader_error(&r));
	PL_CHECK(msgs == 2 * PER_LIST && r.skipped_blocks == 1 && r.blocks == 3);
	pl_reader_free(&r);
	/* a chained payload that does not decompress (CRC made right) is an error */
	memcpy(mid, stream, n);
	uint32_t st = pl_get_le32(mid + starts[3] + 8);
	memset(mid + starts[3] + PL_BLOCK_HEADER_SIZE, 0xa5, st);
	pl_put_le32(mid + starts[3] + 16, pl_crc32(0, mid + starts[3] + PL_BLOCK_HEADER_SIZE, st));
	char why[200];
	PL_CHECK(read_all(mid, n, n, &msgs, why) == -EBADMSG);
	PL_CHECKF(strstr(why, "zstd") != NULL, "%s", why);
	PL_CHECK(msgs == 3 * PER_LIST);
}

/* Version 1 streams (captures made before chained blocks and batches) stay
 * readable; a version from the future is refused with advice. */
static void test_version_1_stream_read(void)
{
	size_t n = build_stream(stream, sizeof(stream), 3, 2);
	pl_put_le16(stream + 8, 1);
	size_t msgs;
	char why[200];
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == 0 && msgs == 2 * PER_LIST);
	pl_put_le16(stream + 8, PL_FORMAT_VERSION + 1);
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == -EPROTO);
	PL_CHECKF(strstr(why, "matching agent and viewer") != NULL, "%s", why);
}

/* A real version-1 capture (fp, zstd blocks, STACK and time-delta
 * compaction), as agents before protocol 2 wrote it. */
static void test_version_1_capture_file(void)
{
	/* the source tree: PL_TOP (test/run.sh), else the current directory */
	char path[4096];
	const char *top = getenv("PL_TOP");
	snprintf(path, sizeof(path), "%s/test/unit/data/v1-fp-zstd.plens", top ? top : ".");
	int fd = open(path, O_RDONLY);
	PL_CHECKF(fd >= 0, "%s: %s (run from the source tree)", path, strerror(errno));
	static uint8_t buf[1u << 20];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	PL_CHECK(n > PL_STREAM_HEADER_SIZE && pl_get_le16(buf + 8) == 1);
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) == 0);
	PL_CHECK(pl_reader_feed(&r, buf, (size_t)n) == 0);
	size_t samples = 0, with_chain = 0, hello = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	int rc;
	while ((rc = pl_reader_next(&r, &mb)) == 1) {
		hello += mb.type == PL_MSG_HELLO;
		if (mb.type != PL_MSG_SAMPLE)
			continue;
		samples++;
		with_chain += mb.u.sample.nr_callchain >= 2;
		lo = mb.u.sample.time < lo ? mb.u.sample.time : lo;
		hi = mb.u.sample.time > hi ? mb.u.sample.time : hi;
	}
	PL_CHECKF(rc == 0, "%s", pl_reader_error(&r));
	/* absolute times (deltas undone), within one short recording */
	int near = hi - lo < 60000000000ull;
	PL_CHECKF(hello == 1 && samples > 10 && with_chain == samples && near,
		  "hello %zu samples %zu with chain %zu times %llu..%llu", hello, samples,
		  with_chain, (unsigned long long)lo, (unsigned long long)hi);
	PL_CHECK(r.unresolved_stacks == 0 && pl_reader_pending(&r) == 0);
	pl_reader_free(&r);
}

static void test_crc32_known_value(void)
{
	PL_CHECK(pl_crc32(0, "123456789", 9) == 0xcbf43926u);
}

PL_TEST_MAIN(PL_CASE(test_stream_round_trip), PL_CASE(test_torn_tail_keeps_complete_blocks),
	     PL_CASE(test_corruption_detected), PL_CASE(test_unknown_frames_skipped),
	     PL_CASE(test_small_reader_limit), PL_CASE(test_chained_blocks),
	     PL_CASE(test_version_1_stream_read), PL_CASE(test_version_1_capture_file),
	     PL_CASE(test_crc32_known_value))
