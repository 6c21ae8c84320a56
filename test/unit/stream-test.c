/* stream-test.c — the agent's outgoing stream: compaction that the reader
 * undoes exactly, and backpressure that drops whole blocks, reports the
 * loss and never leaves a sample pointing at a lost stack definition. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pl-test.h"
#include "reader.h"
#include "stream.h"

static struct pl_msg m, got;

/* sample i: one of 5 stacks, time advancing unevenly, two "CPUs" */
static void make_sample(uint32_t i)
{
	memset(&m.u.sample, 0, offsetof(struct pl_msg_sample, callchain));
	m.type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &m.u.sample;
	s->pid = 100;
	s->tid = 100 + i % 3;
	s->cpu = i % 2;
	s->time = 1000000000ull + (uint64_t)i * 1000000 - (i % 2) * 400000;
	s->period = 1001001;
	s->nr_callchain = 2 + i % 5;
	s->callchain[0] = (uint64_t)-512;
	for (uint32_t k = 1; k < s->nr_callchain; k++)
		s->callchain[k] = 0x400000 + (i % 5) * 0x100 + k * 8;
	s->ip = s->callchain[1];
	s->regs_abi = 0;
	s->nr_regs = 0;
	s->stack_size = 0;
	s->stack = NULL;
}

static void check_sample(const struct pl_msg_sample *s, uint32_t i)
{
	make_sample(i);
	PL_CHECKF(s->time == m.u.sample.time, "sample %u time %llu want %llu", i,
		  (unsigned long long)s->time, (unsigned long long)m.u.sample.time);
	PL_CHECK(s->tid == m.u.sample.tid && s->flags == 0);
	PL_CHECKF(s->nr_callchain == m.u.sample.nr_callchain, "sample %u chain %u", i,
		  s->nr_callchain);
	PL_CHECK(!memcmp(s->callchain, m.u.sample.callchain, s->nr_callchain * 8));
}

/* Reads the capture at path through the reader (then removes it), calling
 * check() on each sample with its index; returns the samples read. */
static uint32_t read_back(const char *path, void (*check)(const struct pl_msg_sample *, uint32_t),
			  uint64_t *unresolved, uint64_t *blocks)
{
	struct pl_reader r;
	pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	FILE *f = fopen(path, "rb");
	PL_CHECK(f != NULL);
	uint8_t buf[8192];
	size_t n;
	uint32_t i = 0;
	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		PL_CHECK(pl_reader_feed(&r, buf, n) == 0);
		int rc;
		while ((rc = pl_reader_next(&r, &got)) == 1)
			check(&got.u.sample, i++);
		PL_CHECKF(rc == 0, "%s", pl_reader_error(&r));
	}
	if (f)
		fclose(f);
	unlink(path);
	*unresolved = r.unresolved_stacks;
	*blocks = r.blocks;
	pl_reader_free(&r);
	return i;
}

/* batched: samples of event 0 go out as SAMPLE_BATCH (µs times: the
 * samples' times are whole µs); else one SAMPLE frame each */
static void compaction_round_trip(int batched)
{
	char path[] = "/tmp/pl-stream-test-XXXXXX";
	int fd = mkstemp(path);
	PL_CHECK(fd >= 0);
	struct pla_stream st;
	PL_CHECK(pla_stream_init(&st, 4096 /* small blocks: many boundaries */, 16, 1) == 0);
	PL_CHECK(pla_stream_attach(&st, fd, 0, PL_STREAM_CAPTURE) == 0);
	st.coarse_events = batched ? 1 : 0;
	const uint32_t N = 5000;
	for (uint32_t i = 0; i < N; i++) {
		make_sample(i);
		PL_CHECK(pla_stream_msg(&st, &m) == 0);
		/* the caller's message is left as it was */
		PL_CHECK(m.u.sample.nr_callchain == 2 + i % 5 && m.u.sample.flags == 0);
	}
	PL_CHECK(pla_stream_flush(&st) == 0);
	PL_CHECKF(st.stacks_defined == 5 && st.stacks_reused == N - 5, "defined %llu reused %llu",
		  (unsigned long long)st.stacks_defined, (unsigned long long)st.stacks_reused);
	uint64_t sent = st.bytes_sent, st_batches = st.batches;
	pla_stream_free(&st);
	close(fd);

	uint64_t unresolved, blocks;
	uint32_t i = read_back(path, check_sample, &unresolved, &blocks);
	PL_CHECK(i == N && unresolved == 0 && blocks > 10);
	/* interning and deltas make these samples small, batches smaller */
	PL_CHECKF(sent < N * (batched ? 4 : 12), "%llu bytes for %u samples",
		  (unsigned long long)sent, N);
	PL_CHECK(batched ? st_batches > 0 : st_batches == 0);
}

static void test_compaction_round_trip_through_a_file(void)
{
	compaction_round_trip(0);
	compaction_round_trip(1);
}

/* Chains as one thread's samples make them: the same outer frames, a
 * varying middle, and a leaf anywhere in a function (seeded, repeatable). */
static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}
static void make_tree_sample(uint64_t t)
{
	make_sample(0);
	struct pl_msg_sample *s = &m.u.sample;
	s->time = t;
	uint32_t n = 0, mid = rnd() % 4;
	s->callchain[n++] = (uint64_t)-512;
	s->callchain[n++] = 0x401000 + rnd() % 4096;       /* the leaf */
	for (uint32_t k = 0; k < mid; k++)                  /* a few callers */
		s->callchain[n++] = 0x402000 + (rnd() % 3) * 0x40 + k;
	if (rnd() % 8 == 0)                                  /* now and then deeper */
		s->callchain[n++] = 0x7f0000003000ull + rnd() % 64;
	if (rnd() % 64 == 0)                                 /* rarely, recursion */
		for (uint32_t k = 0; k < 50; k++)
			s->callchain[n++] = 0x402400 + k % 2;
	s->callchain[n++] = 0x400300;                        /* main, _start … */
	s->callchain[n++] = 0x400200;
	s->callchain[n++] = 0x7f0000001000ull;
	if (rnd() % 97 == 0) /* frame pointers through code built without: garbage */
		for (n = 2; n < 62; n++)
			s->callchain[n] = (uint64_t)rnd() << 40 ^ (uint64_t)rnd() << 16 ^ rnd();
	s->nr_callchain = n;
	s->ip = s->callchain[1];
}

/* Stack deltas: thousands of distinct chains (slots reused, so ids are
 * redefined, sometimes from their own old chain), every one rebuilt
 * exactly by the reader; most are sent as deltas, and they are smaller.
 * Every 7th sample is of an event that is not batched: it goes out as a
 * SAMPLE frame, with its chain defined by a STACK or STACK_DELTA frame,
 * while the batched ones define theirs in their batch's DEFS column; each
 * must find its stack defined before it, whichever way it came. */
#define TREE_N 20000u
static uint64_t tree_chain[TREE_N][64];
static uint32_t tree_nr[TREE_N];

static uint32_t tree_wrong;
static void check_tree_sample(const struct pl_msg_sample *s, uint32_t i)
{
	(void)i; /* frames overtake held rows: the sample is found by its time */
	uint64_t k = (s->time - 1000000000ull) / 1000000;
	tree_wrong += k >= TREE_N || s->nr_callchain != tree_nr[k] ||
		      memcmp(s->callchain, tree_chain[k], tree_nr[k] * 8) ||
		      s->ip != tree_chain[k][1] || s->event != (k % 7 == 0);
}

static void stack_deltas_round_trip(size_t block)
{
	uint64_t sent[2];
	for (int use_delta = 1; use_delta >= 0; use_delta--) {
		char path[] = "/tmp/pl-stream-test-XXXXXX";
		int fd = mkstemp(path);
		PL_CHECK(fd >= 0);
		struct pla_stream st;
		PL_CHECK(pla_stream_init(&st, block, 16, 1) == 0);
		PL_CHECK(pla_stream_attach(&st, fd, 0, PL_STREAM_CAPTURE) == 0);
		st.coarse_events = 1;
		const uint32_t N = TREE_N;
		rnd_state = 12345;
		for (uint32_t i = 0; i < N; i++) {
			make_tree_sample(1000000000ull + (uint64_t)i * 1000000);
			m.u.sample.event = i % 7 == 0;
			tree_nr[i] = m.u.sample.nr_callchain;
			memcpy(tree_chain[i], m.u.sample.callchain, tree_nr[i] * 8);
			if (!use_delta)
				st.nrecent = 0; /* nothing to compare with: no deltas */
			PL_CHECK(pla_stream_msg(&st, &m) == 0);
		}
		PL_CHECK(pla_stream_flush(&st) == 0);
		PL_CHECKF(st.stacks_defined > 2000, "%llu definitions",
			  (unsigned long long)st.stacks_defined);
		if (use_delta)
			PL_CHECKF(st.stacks_delta * 10 > st.stacks_defined * 9,
				  "%llu of %llu definitions are deltas",
				  (unsigned long long)st.stacks_delta,
				  (unsigned long long)st.stacks_defined);
		else
			PL_CHECK(st.stacks_delta == 0);
		sent[use_delta] = st.bytes_sent;
		pla_stream_free(&st);
		close(fd);

		uint64_t unresolved, blocks;
		tree_wrong = 0;
		uint32_t i = read_back(path, check_tree_sample, &unresolved, &blocks);
		PL_CHECKF(i == N && tree_wrong == 0 && unresolved == 0, "%u samples, %u wrong", i,
			  tree_wrong);
	}
	PL_CHECKF(sent[1] < sent[0], "with deltas %llu bytes, without %llu",
		  (unsigned long long)sent[1], (unsigned long long)sent[0]);
}

/* 8 KiB blocks: every definition fits a batch's DEFS column; 2 KiB blocks:
 * the column (a quarter of a block) cannot hold the deepest chains, which
 * are then defined by frames while their samples stay in the batch. */
static void test_stack_deltas_round_trip(void)
{
	stack_deltas_round_trip(8192);
	stack_deltas_round_trip(2048);
}

static void test_backpressure_drops_blocks_and_reports(void)
{
	int sv[2];
	PL_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	int small = 4096;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	struct pla_stream st;
	PL_CHECK(pla_stream_init(&st, 2048, 16384, 0) == 0);
	PL_CHECK(pla_stream_attach(&st, sv[0], 1, PL_STREAM_FROM_AGENT) == 0);
	st.coarse_events = 1; /* batched: a dropped block takes a whole batch */
	/* nobody reads: the queue fills, blocks are dropped, never blocking */
	const uint32_t N = 20000;
	for (uint32_t i = 0; i < N; i++) {
		make_sample(i);
		PL_CHECK(pla_stream_msg(&st, &m) == 0);
	}
	PL_CHECK(pla_stream_flush(&st) == 0);
	PL_CHECK(st.dropped_samples > 0 && st.dropped_frames >= st.dropped_samples);
	uint64_t dropped = st.dropped_samples;

	/* now the viewer reads everything that was queued, and more arrives */
	struct pl_reader r;
	pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	uint64_t samples = 0, lost_reported = 0;
	for (uint32_t i = N; i < N + 200; i++) {
		make_sample(i);
		PL_CHECK(pla_stream_msg(&st, &m) == 0);
	}
	for (int spins = 0; spins < 2000; spins++) {
		pla_stream_flush(&st);
		pla_stream_pump(&st);
		uint8_t buf[65536];
		ssize_t n = recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			pl_reader_feed(&r, buf, (size_t)n);
		int rc;
		while ((rc = pl_reader_next(&r, &got)) == 1) {
			if (got.type == PL_MSG_SAMPLE) {
				samples++;
				/* every sample that arrives is whole */
				PL_CHECK(got.u.sample.nr_callchain >= 2);
			}
			if (got.type == PL_MSG_LOST) {
				PL_CHECK(got.u.lost.kind == PL_LOST_BACKPRESSURE);
				lost_reported += got.u.lost.count;
			}
		}
		PL_CHECKF(rc == 0, "%s", pl_reader_error(&r));
		if (n <= 0 && !pla_stream_wants_write(&st))
			break;
	}
	PL_CHECK(r.unresolved_stacks == 0);
	PL_CHECKF(samples + st.dropped_samples == N + 200, "%llu arrived + %llu dropped",
		  (unsigned long long)samples, (unsigned long long)st.dropped_samples);
	PL_CHECKF(lost_reported >= dropped, "reported %llu of %llu dropped",
		  (unsigned long long)lost_reported, (unsigned long long)dropped);
	pl_reader_free(&r);
	pla_stream_free(&st);
	close(sv[0]);
	close(sv[1]);
}

static void test_peer_gone_is_reported(void)
{
	int sv[2];
	PL_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	struct pla_stream st;
	PL_CHECK(pla_stream_init(&st, 2048, 16384, 1) == 0);
	PL_CHECK(pla_stream_attach(&st, sv[0], 1, 0) == 0);
	close(sv[1]);
	int rc = 0;
	for (uint32_t i = 0; i < 2000 && rc == 0; i++) {
		make_sample(i);
		rc = pla_stream_msg(&st, &m);
		if (rc == 0)
			rc = pla_stream_flush(&st);
	}
	PL_CHECK(rc == -EPIPE || rc == -ECONNRESET);
	PL_CHECK(st.dead < 0);
	pla_stream_free(&st);
	close(sv[0]);
}

PL_TEST_MAIN(PL_CASE(test_compaction_round_trip_through_a_file),
	     PL_CASE(test_stack_deltas_round_trip),
	     PL_CASE(test_backpressure_drops_blocks_and_reports), PL_CASE(test_peer_gone_is_reported))
