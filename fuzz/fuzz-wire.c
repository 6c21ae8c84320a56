/* fuzz-wire.c — libFuzzer harness: the PerfLens stream reader and every
 * message decoder (common/reader.h, common/msg.h).
 *
 *   make -f Makefile -f fuzz/fuzz.mk build/fuzz/fuzz-wire
 *   build/fuzz/fuzz-wire fuzz/corpus/wire      (fuzz/run.sh does this)
 *
 * Per input:
 *   1. the input as a stream, fed to a pl_reader in pseudo-random pieces
 *      (short socket reads), every message pulled and round-tripped;
 *   2. the repaired stream (fuzz-util.h: CRCs fixed, or the input wrapped
 *      as the frames of one raw block), the same way;
 *   3. pl_msg_decode of the input as the body of every known type (and one
 *      unknown), each success round-tripped.
 * Invariants checked besides the sanitizers: an error is sticky, the
 * reader's byte accounting adds up, borrowed pointers stay inside the
 * body (ASan: the body is an exact-size heap copy), and decode/encode agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "reader.h"

#define MAX_BLOCK (PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED)

static struct pl_msg *msg, *scratch;
static uint8_t *wbuf, *wbuf2;

static void setup(void)
{
	if (msg)
		return;
	msg = malloc(sizeof(*msg));
	scratch = malloc(sizeof(*scratch));
	wbuf = malloc(PL_FRAME_HEADER_SIZE + PL_FRAME_MAX);
	wbuf2 = malloc(PL_FRAME_HEADER_SIZE + PL_FRAME_MAX);
	if (!msg || !scratch || !wbuf || !wbuf2)
		abort();
}

static void read_stream(const uint8_t *p, size_t n, uint64_t seed)
{
	struct pl_reader r;
	size_t fed = 0;
	int rc = 0;

	FZ_CHECK(pl_reader_init(&r, MAX_BLOCK) == 0, "reader init");
	while (fed < n && rc >= 0) {
		size_t k = fz_piece(&seed, n - fed, 1u << 16);
		if (pl_reader_feed(&r, p + fed, k) < 0) {
			rc = -1;
			break;
		}
		fed += k;
		while ((rc = pl_reader_next(&r, msg)) == 1) {
			/* the reader may have expanded it (STACK ids, time
			 * deltas): no bound on its length */
			fz_roundtrip(msg, SIZE_MAX, wbuf, wbuf2, scratch);
		}
	}
	if (rc < 0 && r.err) {
		/* errors are final */
		int again = pl_reader_next(&r, msg);
		FZ_CHECK(again == r.err, "error not sticky: %d then %d", r.err, again);
		FZ_CHECK(pl_reader_error(&r) != NULL, "error without a message");
	} else {
		FZ_CHECK(r.bytes + pl_reader_pending(&r) == fed,
			 "accounting: %llu consumed + %zu pending != %zu fed",
			 (unsigned long long)r.bytes, pl_reader_pending(&r), fed);
	}
	pl_reader_free(&r);
}

static void decode_each_type(const uint8_t *data, size_t size)
{
	/* exact-size copy: ASan flags any read or borrowed pointer past it */
	uint8_t *body = malloc(size ? size : 1);
	char err[160];
	if (!body)
		return;
	memcpy(body, data, size);
	for (size_t i = 0; i <= pl_msg_type_count; i++) {
		uint16_t type = i < pl_msg_type_count ? pl_msg_types[i] : 0x7fff;
		int rc = pl_msg_decode(type, body, size, msg, err, sizeof(err));
		if (i == pl_msg_type_count) {
			FZ_CHECK(rc == -ENOENT, "unknown type decoded: %d", rc);
			continue;
		}
		FZ_CHECK(rc == 0 || rc == -EBADMSG || rc == -E2BIG, "%s: unexpected rc %d",
			 pl_msg_type_name(type), rc);
		if (rc == 0)
			fz_roundtrip(msg, size, wbuf, wbuf2, scratch);
	}
	free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	fz_each_stream(data, size, PL_STREAM_FROM_AGENT, 1, read_stream);

	decode_each_type(data, size);
	return 0;
}
