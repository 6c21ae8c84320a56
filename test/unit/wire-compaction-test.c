/* wire-compaction-test.c — samples as the agent compacts them, expanded by
 * the reader (common/reader.c, common/batch.c): time deltas and STACK
 * definitions, STACK_DELTA chains rebuilt from their base, and
 * SAMPLE_BATCH columns (both time predictors, µs times, the DEFS column);
 * each with the malformed forms the reader must refuse.  Examples:
 * wire-examples.h. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "block.h"
#include "msg.h"
#include "pl-test.h"
#include "reader.h"
#include "wire-examples.h"
#include "wire.h"

/* Samples compacted as the agent sends them come out of the reader whole:
 * absolute times from deltas, call chains from STACK definitions. */
static void test_reader_expands_compact_samples(void)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 65536, 1) == 0);
	uint8_t out[1 << 16];
	size_t n = PL_STREAM_HEADER_SIZE;
	pl_stream_header_put(out, 0);
	struct pl_msg st = { .type = PL_MSG_STACK };
	st.u.stack.id = 7;
	st.u.stack.nr = 3;
	st.u.stack.chain[0] = (uint64_t)-512;
	st.u.stack.chain[1] = 0x401000;
	st.u.stack.chain[2] = 0x400500;
	uint64_t times[] = { 5000000000ull, 5001000000ull, 4999000000ull /* other CPU */ };
	for (int blk = 0; blk < 2; blk++) {
		if (blk == 0)
			PL_CHECK(pl_msg_encode(&e.w, &st) == 0);
		for (int i = 0; i < 3; i++) {
			example(PL_MSG_SAMPLE, &ma);
			ma.u.sample.nr_callchain = 0;
			ma.u.sample.stack_id = 7;
			ma.u.sample.flags = i ? PL_SAMPLE_TIME_DELTA : 0;
			ma.u.sample.time = i ? times[i] - times[i - 1] : times[0];
			PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
		}
		const uint8_t *b;
		size_t bn;
		pl_block_enc_finish(&e, &b, &bn);
		memcpy(out + n, b, bn);
		n += bn;
	}
	/* a sample naming a stack never defined */
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.nr_callchain = 0;
	ma.u.sample.stack_id = 9;
	PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
	const uint8_t *b;
	size_t bn;
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + n, b, bn);
	n += bn;
	pl_block_enc_free(&e);

	struct pl_reader r;
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, n);
	for (int blk = 0; blk < 2; blk++)
		for (int i = 0; i < 3; i++) {
			PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.type == PL_MSG_SAMPLE);
			PL_CHECK(mb.u.sample.time == times[i] && mb.u.sample.flags == 0);
			PL_CHECK(mb.u.sample.nr_callchain == 3);
			PL_CHECK(!memcmp(mb.u.sample.callchain, st.u.stack.chain, 24));
		}
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 0);
	PL_CHECK(r.unresolved_stacks == 1);
	PL_CHECK(pl_reader_next(&r, &mb) == 0);
	pl_reader_free(&r);

	/* a delta with no base in its block is corrupt, and so is STACK id 0 */
	pl_block_enc_init(&e, 65536, 0);
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.flags = PL_SAMPLE_TIME_DELTA;
	pl_msg_encode(&e.w, &ma);
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + PL_STREAM_HEADER_SIZE, b, bn);
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, PL_STREAM_HEADER_SIZE + bn);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	pl_reader_free(&r);
	st.u.stack.id = 0;
	pl_msg_encode(&e.w, &st);
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + PL_STREAM_HEADER_SIZE, b, bn);
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, PL_STREAM_HEADER_SIZE + bn);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECK(strstr(pl_reader_error(&r), "STACK id") != NULL);
	pl_reader_free(&r);
	pl_block_enc_free(&e);
}

/* STACK_DELTA: chains rebuilt from their base (kept head, dropped entries
 * predicted, the rest kept), an id redefined from its own old chain, and
 * the deltas that do not fit refused. */
static size_t one_block(struct pl_msg *msgs, int n, int level, uint8_t *out)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 65536, level) == 0);
	pl_stream_header_put(out, 0);
	for (int i = 0; i < n; i++)
		PL_CHECK(pl_msg_encode(&e.w, &msgs[i]) == 0);
	const uint8_t *b;
	size_t bn;
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + PL_STREAM_HEADER_SIZE, b, bn);
	pl_block_enc_free(&e);
	return PL_STREAM_HEADER_SIZE + bn;
}

static void test_reader_stack_delta(void)
{
	static struct pl_msg msgs[5];
	static uint8_t out[1 << 16];
	const uint64_t M = (uint64_t)-512;
	const uint64_t base[] = { M, 0x401010, 0x400500, 0x400100, 0x7f0000001000ull };
	const uint64_t want4[] = { M, 0x401020, 0x402000, 0x400500, 0x400100, 0x7f0000001000ull };
	const uint64_t want3[] = { 0x1234, M, 0x401010, 0x400500, 0x400100, 0x7f0000001000ull };
	msgs[0].type = PL_MSG_STACK;
	msgs[0].u.stack.id = 3;
	msgs[0].u.stack.nr = 5;
	memcpy(msgs[0].u.stack.chain, base, sizeof(base));
	/* id 4: the marker kept, the leaf replaced (predicted by the dropped
	 * leaf), one caller added (predicted by the new leaf) */
	msgs[1].type = PL_MSG_STACK_DELTA;
	msgs[1].u.stack_delta =
		(struct pl_msg_stack_delta){ .id = 4, .base = 3, .head = 1, .drop = 1, .nr = 2 };
	msgs[1].u.stack_delta.diff[0] = 0x10;
	msgs[1].u.stack_delta.diff[1] = 0x402000 - 0x401020;
	/* id 3 again, from its own chain: one entry before it all */
	msgs[2].type = PL_MSG_STACK_DELTA;
	msgs[2].u.stack_delta =
		(struct pl_msg_stack_delta){ .id = 3, .base = 3, .head = 0, .drop = 0, .nr = 1 };
	msgs[2].u.stack_delta.diff[0] = 0x1234;
	for (int k = 3; k < 5; k++) {
		example(PL_MSG_SAMPLE, &msgs[k]);
		msgs[k].u.sample.nr_callchain = 0;
		msgs[k].u.sample.stack_id = k == 3 ? 4 : 3;
	}
	size_t n = one_block(msgs, 5, 1, out);
	struct pl_reader r;
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, n);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 6);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want4, sizeof(want4)));
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 6);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want3, sizeof(want3)));
	PL_CHECK(pl_reader_next(&r, &mb) == 0 && r.unresolved_stacks == 0);
	pl_reader_free(&r);

	/* a base never defined; more kept and dropped than the base has */
	for (int bad = 0; bad < 2; bad++) {
		msgs[1].u.stack_delta = (struct pl_msg_stack_delta){
			.id = 4, .base = bad ? 3 : 9, .head = 3, .drop = bad ? 3 : 0, .nr = 1
		};
		n = one_block(msgs, 2, 1, out);
		pl_reader_init(&r, 65536);
		pl_reader_feed(&r, out, n);
		PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
		PL_CHECKF(strstr(pl_reader_error(&r), bad ? "drops 3 entries of a 5-entry"
							  : "base 9, never defined") != NULL,
			  "%s", pl_reader_error(&r));
		pl_reader_free(&r);
	}
}

/* SAMPLE_BATCH columns: both time predictors and µs times come back as
 * built; a bad thread index, short columns, too few columns or too many
 * rows are errors, never reads past the data. */
static void batch_stream(const uint8_t *data, size_t len, uint32_t count, uint64_t base,
			 struct pl_reader *r)
{
	static uint8_t out[1 << 16];
	struct pl_msg *m = &ma;
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_SAMPLE_BATCH;
	m->u.batch = (struct pl_msg_sample_batch){ count, base, (uint32_t)len, data };
	size_t n = one_block(m, 1, 0, out);
	PL_CHECK(pl_reader_init(r, 65536) == 0);
	PL_CHECK(pl_reader_feed(r, out, n) == 0);
}

/* A batch's DEFS column: stacks defined with no base, from a base in the
 * same column, and an id redefined, all applied before the rows; then the
 * definitions a reader must refuse. */
static void test_batch_defs_column(void)
{
	const uint64_t M = (uint64_t)-512;
	static struct pl_msg_stack_delta d;
	static uint8_t defs[512], data[4096];
	struct pl_writer w;
	uint32_t prev = 0;
	pl_w_init(&w, defs, sizeof(defs));
	/* 1 := [M 0x401000 0x400100 0x7f0000001000] (no base) */
	const uint64_t c1[] = { M, 0x401000, 0x400100, 0x7f0000001000ull };
	d = (struct pl_msg_stack_delta){ .id = 1, .base = 0, .head = 0, .drop = 0, .nr = 4 };
	for (int i = 0; i < 4; i++)
		d.diff[i] = c1[i] - (i ? c1[i - 1] : 0);
	pl_batch_def_put(&w, &prev, &d);
	/* 2 := 1 with the leaf 0x20 further */
	d = (struct pl_msg_stack_delta){ .id = 2, .base = 1, .head = 1, .drop = 1, .nr = 1 };
	d.diff[0] = 0x20;
	pl_batch_def_put(&w, &prev, &d);
	/* 1 := 2 less its leaf (redefined, from a base after it) */
	d = (struct pl_msg_stack_delta){ .id = 1, .base = 2, .head = 1, .drop = 1, .nr = 0 };
	pl_batch_def_put(&w, &prev, &d);
	const uint64_t want1[] = { M, 0x400100, 0x7f0000001000ull };
	const uint64_t want2[] = { M, 0x401020, 0x400100, 0x7f0000001000ull };
	struct pl_batch_thread th = { 5, 5 };
	struct pl_batch_row rows[2] = {
		{ .stack_id = 2, .time = 2000, .ip = 0x401020, .ip_base = 0x401020, .period = 1 },
		{ .stack_id = 1, .time = 3000, .ip = 0x400100, .ip_base = 0x400100, .period = 1 },
	};
	size_t len = pl_batch_build(data, sizeof(data), &th, 1, rows, 2, 1000, 0, defs,
				    pl_w_len(&w));
	PL_CHECK(len > 0);
	struct pl_reader r;
	batch_stream(data, len, 2, 1000, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 4);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want2, sizeof(want2)));
	PL_CHECK(mb.u.sample.ip == 0x401020 && mb.u.sample.time == 2000);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 3);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want1, sizeof(want1)));
	PL_CHECK(pl_reader_next(&r, &mb) == 0 && r.unresolved_stacks == 0);
	pl_reader_free(&r);

	/* refused: a base never defined, an id 0, a column cut short (DEFS
	 * is the last column: the batch's data one byte short) */
	for (int bad = 0; bad < 3; bad++) {
		pl_w_init(&w, defs, sizeof(defs));
		prev = bad == 1 ? (uint32_t)-1 : 0; /* the next id wraps to 0 */
		d = (struct pl_msg_stack_delta){ .id = bad == 1 ? 0 : 7, .base = bad == 0 ? 9 : 0,
						 .nr = 1 };
		d.diff[0] = 0x401000;
		pl_batch_def_put(&w, &prev, &d);
		len = pl_batch_build(data, sizeof(data), &th, 1, rows, 1, 1000, 0, defs,
				     pl_w_len(&w));
		PL_CHECK(len > 0);
		batch_stream(data, len - (bad == 2), 1, 1000, &r);
		PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
		PL_CHECKF(strstr(pl_reader_error(&r), bad == 0 ? "never defined"
						     : bad == 1 ? "out of range"
								: "short") != NULL,
			  "%d: %s", bad, pl_reader_error(&r));
		pl_reader_free(&r);
	}
	/* refused: a DEFS count larger than the definitions it holds (the
	 * count is the first byte after the columns, where the same batch
	 * without definitions ends) */
	pl_w_init(&w, defs, sizeof(defs));
	prev = 0;
	d = (struct pl_msg_stack_delta){ .id = 1, .nr = 1 };
	d.diff[0] = 0x401000;
	pl_batch_def_put(&w, &prev, &d);
	size_t at = pl_batch_build(data, sizeof(data), &th, 1, rows, 1, 1000, 0, NULL, 0);
	len = pl_batch_build(data, sizeof(data), &th, 1, rows, 1, 1000, 0, defs, pl_w_len(&w));
	PL_CHECK(at > 0 && len > at && data[at] == 1);
	data[at] = 2;
	batch_stream(data, len, 1, 1000, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECKF(strstr(pl_reader_error(&r), "columns") != NULL, "%s", pl_reader_error(&r));
	pl_reader_free(&r);
}

static void test_batch_columns(void)
{
	static struct pl_batch_row rows[200];
	struct pl_batch_thread th[3] = { { 1, 1 }, { 1, 2 }, { 9, 9 } };
	static uint8_t data[16384];
	struct pl_reader r;
	for (int variant = 0; variant < 3; variant++) {
		/* 0: timer ticks of the period (period guess), 1: steady
		 * intervals unlike the period (previous-interval guess), 2: µs */
		uint64_t t[3] = { 1000000, 1000000, 1000000 };
		for (uint32_t i = 0; i < 200; i++) {
			uint32_t k = i % 3;
			t[k] += variant == 1 ? 3000 + i % 2 : 1001001 + (i * 37) % 900;
			rows[i] = (struct pl_batch_row){ .thread = k, .stack_id = i % 4, .event = i % 2,
							 .cpu = i % 5, .cpumode = 2, .time = t[k],
							 .ip = 0x1000 + i, .ip_base = 0,
							 .period = 1001001 + (i > 100) * 5 };
		}
		size_t len = pl_batch_build(data, sizeof(data), th, 3, rows, 200, 1000000,
					    variant == 2 ? PL_BATCH_TIME_US : 0, NULL, 0);
		PL_CHECK(len > 0);
		PL_CHECK((data[0] & PL_BATCH_TIME_PERIOD) == (variant == 1 ? 0 : PL_BATCH_TIME_PERIOD));
		batch_stream(data, len, 200, 1000000, &r);
		for (uint32_t i = 0; i < 200; i++) {
			PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.type == PL_MSG_SAMPLE);
			const struct pl_msg_sample *x = &mb.u.sample;
			uint64_t want = variant == 2 ? rows[i].time / 1000 * 1000 : rows[i].time;
			PL_CHECKF(x->time == want, "variant %d row %u time %llu want %llu", variant, i,
				  (unsigned long long)x->time, (unsigned long long)want);
			PL_CHECK(x->pid == th[i % 3].pid && x->tid == th[i % 3].tid);
			PL_CHECK(x->stack_id == i % 4 && x->event == i % 2 && x->cpu == i % 5);
			PL_CHECK(x->cpumode == 2 && x->period == rows[i].period);
			PL_CHECK(x->ip == 0x1000 + i && x->flags == 0 && x->nr_regs == 0);
		}
		PL_CHECK(pl_reader_next(&r, &mb) == 0);
		PL_CHECK(r.unresolved_stacks == 150); /* stack ids 1..3 never defined */
		pl_reader_free(&r);
	}
	/* too many rows for the columns: the reader walks the columns to find
	 * them (no lengths), so the batch is refused before its first row */
	rows[0] = (struct pl_batch_row){ .thread = 0, .time = 5 };
	size_t len = pl_batch_build(data, sizeof(data), th, 1, rows, 1, 0, 0, NULL, 0);
	PL_CHECK(data[0] & PL_BATCH_NO_LENS);
	batch_stream(data, len, 2, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECK(strstr(pl_reader_error(&r), "column") != NULL);
	pl_reader_free(&r);
	/* every cut of the data is refused, or yields no more rows than fit */
	len = pl_batch_build(data, sizeof(data), th, 3, rows + 0, 1, 0, 0, NULL, 0);
	for (size_t cut = 0; cut < len; cut++) {
		batch_stream(data, cut, 1, 0, &r);
		PL_CHECK(pl_reader_next(&r, &mb) < 0);
		pl_reader_free(&r);
	}
	/* hand-made: thread index out of the table, too few columns, too many rows */
	struct pl_writer w;
	pl_w_init(&w, data, sizeof(data));
	pl_w_varint(&w, 0);
	pl_w_varint(&w, 1);
	pl_w_varint(&w, 7);
	pl_w_varint(&w, 7);
	pl_w_varint(&w, PL_BATCH_COLS);
	for (int c = 0; c < PL_BATCH_COLS; c++)
		pl_w_varint(&w, 1);
	pl_w_varint(&w, 1); /* THREAD 1 of 1 */
	for (int c = 1; c < PL_BATCH_COLS; c++)
		pl_w_varint(&w, 0);
	batch_stream(data, pl_w_len(&w), 1, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECK(strstr(pl_reader_error(&r), "thread 1 of 1") != NULL);
	pl_reader_free(&r);
	data[4] = PL_BATCH_COLS - 1;
	batch_stream(data, pl_w_len(&w), 1, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	pl_reader_free(&r);
	batch_stream(data, pl_w_len(&w), PL_MAX_BATCH + 1, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -E2BIG);
	pl_reader_free(&r);
	/* a row naming a thread past the table is refused by the builder */
	rows[0].thread = 3;
	PL_CHECK(pl_batch_build(data, sizeof(data), th, 3, rows, 1, 0, 0, NULL, 0) == 0);
	/* as is a buffer too small */
	rows[0].thread = 0;
	PL_CHECK(pl_batch_build(data, 10, th, 3, rows, 1, 0, 0, NULL, 0) == 0);
}

PL_TEST_MAIN(PL_CASE(test_reader_expands_compact_samples), PL_CASE(test_reader_stack_delta),
	     PL_CASE(test_batch_defs_column), PL_CASE(test_batch_columns))
