/* wire-messages-test.c — the message codec (common/msg.c): every message
 * type round trips field by field and refuses every cut of its body; a
 * newer writer's trailing fields are ignored; caps on counts, lengths and
 * field ranges hold in the decoder and the encoder; a full writer keeps
 * nothing of a message that does not fit.  Examples: wire-examples.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "pl-test.h"
#include "wire-examples.h"
#include "wire.h"

static uint8_t big[2u << 20];

static void test_every_type_round_trips(void)
{
	for (size_t i = 0; i < pl_msg_type_count; i++) {
		uint16_t t = pl_msg_types[i];
		PL_CHECKF(example(t, &ma), "no example for message type %u (%s)", t,
			  pl_msg_type_name(t));
		struct pl_writer w;
		pl_w_init(&w, big, sizeof(big));
		PL_CHECKF(pl_msg_encode(&w, &ma) == 0, "encode %s", pl_msg_type_name(t));
		struct pl_frame_header fh;
		char err[160];
		PL_CHECK(pl_frame_header_parse(big, pl_w_len(&w), &fh, err, sizeof(err)) == 0);
		PL_CHECK(fh.type == t && fh.len + PL_FRAME_HEADER_SIZE == pl_w_len(&w));
		PL_CHECKF(pl_msg_decode(t, big + PL_FRAME_HEADER_SIZE, fh.len, &mb, err,
					sizeof(err)) == 0,
			  "%s: %s", pl_msg_type_name(t), err);
		check_equal(&ma, &mb);
		/* every proper prefix of the body is rejected, never read past;
		 * but a SAMPLE cut right before its raw payload (an optional
		 * last field: 1 length byte + 36 bytes here) is a sample without */
		uint32_t tail = t == PL_MSG_SAMPLE ? fh.len - 1 - ma.u.sample.raw_size : UINT32_MAX;
		/* and a START cut before its track interval (one byte, last) is
		 * an older viewer's, which asks for no counter tracks */
		if (t == PL_MSG_START)
			tail = fh.len - 1;
		for (uint32_t cut = 0; cut < fh.len; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);
			memcpy(copy, big + PL_FRAME_HEADER_SIZE, cut);
			int rc = pl_msg_decode(t, copy, cut, &mb, err, sizeof(err));
			free(copy);
			PL_CHECKF(rc == (cut == tail ? 0 : -EBADMSG), "%s cut at %u/%u gave %d",
				  pl_msg_type_name(t), cut, fh.len, rc);
		}
	}
}

static void test_trailing_fields_ignored(void)
{
	/* a newer writer appends fields: still readable */
	example(PL_MSG_COMM, &ma);
	struct pl_writer w;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n = pl_w_len(&w);
	big[n] = 0x05;
	big[n + 1] = 0x7f;
	char err[160];
	PL_CHECK(pl_msg_decode(PL_MSG_COMM, big + 8, n - 8 + 2, &mb, err, sizeof(err)) == 0);
	check_equal(&ma, &mb);
}

/* issue 19: a SAMPLE without raw payload is encoded exactly as before the
 * field existed (a capture of an older agent), and decodes with none; a
 * raw payload cut short is malformed, not silently dropped. */
static void test_sample_raw_optional(void)
{
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.raw_size = 0;
	ma.u.sample.raw = NULL;
	struct pl_writer w;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n0 = pl_w_len(&w);
	char err[160];
	PL_CHECK(pl_msg_decode(PL_MSG_SAMPLE, big + 8, n0 - 8, &mb, err, sizeof(err)) == 0);
	PL_CHECK(mb.u.sample.raw_size == 0 && mb.u.sample.raw == NULL);
	check_equal(&ma, &mb);
	example(PL_MSG_SAMPLE, &ma);
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n1 = pl_w_len(&w);
	PL_CHECKF(n1 == n0 + 1 + 36, "raw adds its length and bytes: %zu vs %zu", n1, n0);
	PL_CHECK(pl_msg_decode(PL_MSG_SAMPLE, big + 8, n1 - 8 - 1, &mb, err, sizeof(err)) < 0);
	ma.u.sample.raw_size = PL_MAX_RAW + 1;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL);
}

/* A START without counter tracks is encoded as before the field existed
 * (what an older agent reads), and an older viewer's START decodes with
 * none. */
static void test_start_tracks_optional(void)
{
	example(PL_MSG_START, &ma);
	ma.u.start.track_interval_ms = 0;
	struct pl_writer w;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n0 = pl_w_len(&w);
	char err[160];
	PL_CHECK(pl_msg_decode(PL_MSG_START, big + 8, n0 - 8, &mb, err, sizeof(err)) == 0);
	PL_CHECK(mb.u.start.track_interval_ms == 0);
	example(PL_MSG_START, &ma);
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	PL_CHECKF(pl_w_len(&w) == n0 + 1, "the interval adds one byte: %zu vs %zu", pl_w_len(&w), n0);
	PL_CHECK(pl_msg_decode(PL_MSG_START, big + 8, pl_w_len(&w) - 8, &mb, err, sizeof(err)) == 0);
	PL_CHECK(mb.u.start.track_interval_ms == 100);
}

static void test_caps_enforced(void)
{
	char err[160];
	/* a callchain count over the cap, before any entry */
	uint8_t body[64];
	struct pl_writer w;
	pl_w_init(&w, body, sizeof(body));
	for (int i = 0; i < 8; i++)
		pl_w_varint(&w, 1); /* event..cpumode */
	pl_w_varint(&w, PL_MAX_CALLCHAIN + 1);
	PL_CHECK(pl_msg_decode(PL_MSG_SAMPLE, body, pl_w_len(&w), &mb, err, sizeof(err)) ==
		 -E2BIG);
	/* a string length of 2^62 */
	pl_w_init(&w, body, sizeof(body));
	pl_w_varint(&w, 1);
	pl_w_varint(&w, 1ull << 62);
	PL_CHECK(pl_msg_decode(PL_MSG_AUTH, body, pl_w_len(&w), &mb, err, sizeof(err)) < 0);
	/* an 11-byte varint */
	memset(body, 0xff, 11);
	PL_CHECK(pl_msg_decode(PL_MSG_LIST, body, 11, &mb, err, sizeof(err)) == -EBADMSG);
	/* a u8 field holding 256 */
	pl_w_init(&w, body, sizeof(body));
	pl_w_varint(&w, 256);
	pl_w_varint(&w, 1);
	PL_CHECK(pl_msg_decode(PL_MSG_LOG, body, pl_w_len(&w), &mb, err, sizeof(err)) == -E2BIG);
	/* an int32 field out of range */
	pl_w_init(&w, body, sizeof(body));
	pl_w_varint(&w, 1);
	pl_w_varint(&w, 1);
	pl_w_svarint(&w, (int64_t)INT32_MAX + 1);
	PL_CHECK(pl_msg_decode(PL_MSG_REPLY, body, pl_w_len(&w), &mb, err, sizeof(err)) ==
		 -E2BIG);
	/* the encoder refuses over-cap input rather than writing it */
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.nr_callchain = PL_MAX_CALLCHAIN + 1;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL && pl_w_len(&w) == 0);
	ma.type = 999;
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL);
	PL_CHECK(pl_msg_decode(999, body, 0, &mb, err, sizeof(err)) == -ENOENT);
}

/* A flight recorder's snapshot sent back to the viewer that asked for it
 * (FILE_CHUNK, PL_CHUNK_SNAPSHOT): a chunk at the cap with offsets past
 * 4 GiB round-trips; one byte over the cap is refused both ways. */
static void test_snapshot_chunk(void)
{
	static uint8_t data[PL_MAX_CHUNK + 1];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	ma.type = PL_MSG_FILE_CHUNK;
	ma.u.chunk = (struct pl_msg_file_chunk){ PL_CHUNK_SNAPSHOT, 0, 0, 5ull << 30, 6ull << 30,
						 pl_str_c("flight-1795827131-0001.plens"),
						 PL_MAX_CHUNK, data };
	struct pl_writer w;
	char err[160];
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	struct pl_frame_header fh;
	PL_CHECK(pl_frame_header_parse(big, pl_w_len(&w), &fh, err, sizeof(err)) == 0);
	PL_CHECK(pl_msg_decode(PL_MSG_FILE_CHUNK, big + PL_FRAME_HEADER_SIZE, fh.len, &mb, err,
			       sizeof(err)) == 0);
	PL_CHECK(mb.u.chunk.kind == PL_CHUNK_SNAPSHOT);
	check_equal(&ma, &mb);
	ma.u.chunk.len = PL_MAX_CHUNK + 1;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL && pl_w_len(&w) == 0);
	/* the same body written by hand, its length one over */
	uint8_t *body = big;
	pl_w_init(&w, body, sizeof(big));
	pl_w_varint(&w, PL_CHUNK_SNAPSHOT);
	pl_w_varint(&w, 0);
	pl_w_varint(&w, 0);
	pl_w_varint(&w, 0);
	pl_w_varint(&w, PL_MAX_CHUNK + 1);
	pl_w_varint(&w, 1);
	pl_w_bytes(&w, "f", 1);
	pl_w_varint(&w, PL_MAX_CHUNK + 1);
	pl_w_bytes(&w, data, PL_MAX_CHUNK + 1);
	PL_CHECK(pl_msg_decode(PL_MSG_FILE_CHUNK, body, pl_w_len(&w), &mb, err, sizeof(err)) ==
		 -E2BIG);
}

static void test_writer_full_leaves_nothing(void)
{
	uint8_t small[100];
	struct pl_writer w;
	pl_w_init(&w, small, sizeof(small));
	example(PL_MSG_LOG, &ma);
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t used = pl_w_len(&w);
	example(PL_MSG_SAMPLE, &ma);
	PL_CHECK(pl_msg_encode(&w, &ma) == -ENOBUFS);
	PL_CHECK(pl_w_len(&w) == used && !w.overflow);
}

PL_TEST_MAIN(PL_CASE(test_every_type_round_trips), PL_CASE(test_trailing_fields_ignored),
	     PL_CASE(test_caps_enforced), PL_CASE(test_writer_full_leaves_nothing),
	     PL_CASE(test_sample_raw_optional), PL_CASE(test_snapshot_chunk),
	     PL_CASE(test_start_tracks_optional))
