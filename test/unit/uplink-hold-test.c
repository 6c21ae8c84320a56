/* uplink-hold-test.c — what an agent reporting to a collector holds while
 * the collector is away (agent/uplink.h): sessions recorded into the ring
 * through the real stream, then sent over a real socket (a socketpair)
 * among the controller's own uncompressed frames and read back by the
 * viewer's reader: every held session whole and in order, each sample as
 * it was sent, none twice; when the ring is too small, whole sessions
 * dropped and counted exactly (read + dropped = recorded); a cut while a
 * held session is being sent drops its rest, counted. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pl-test.h"
#include "reader.h"
#include "stream.h"
#include "uplink.h"

static struct pl_msg m, got;
static struct pla_stream out;
static struct pla_hold hold;
static struct pla_uplink up;
static int sv[2] = { -1, -1 };

static void cleanup(void)
{
	pla_hold_free(&hold);
	pla_stream_free(&out);
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	sv[0] = sv[1] = -1;
}

/* sample i: one of 7 stacks (some deep, so blocks fill), two "CPUs" */
static void make_sample(uint32_t i)
{
	memset(&m.u.sample, 0, offsetof(struct pl_msg_sample, callchain));
	m.type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &m.u.sample;
	s->pid = 100;
	s->tid = 100 + i % 3;
	s->cpu = i % 2;
	s->time = 1000000000ull + (uint64_t)i * 1000000;
	s->period = 1001001;
	s->nr_callchain = 2 + (i * 7919) % 40;
	s->callchain[0] = (uint64_t)-512;
	for (uint32_t k = 1; k < s->nr_callchain; k++)
		s->callchain[k] = 0x400000 + ((i * 2654435761u) % 977) * 0x40 + k * 8;
	s->ip = s->callchain[1];
}

static void put(uint16_t type, uint32_t id)
{
	memset(&m, 0, sizeof(m));
	m.type = type;
	if (type == PL_MSG_SESSION) {
		m.u.session.session_id = id;
		m.u.session.command = pl_str_c("");
	} else if (type == PL_MSG_REPLY) {
		m.u.reply.request_id = id;
		m.u.reply.message = pl_str_c("");
	} else if (type == PL_MSG_END) {
		m.u.end.message = pl_str_c("");
	}
	PL_CHECK(pla_stream_msg(&out, &m) == 0);
}

/* One session as collect.c makes it: the stream forgets its stacks, SESSION,
 * samples first .. first + n - 1 (a block closed every 100), END. */
static void record_session(uint32_t id, uint32_t first, uint32_t n)
{
	pla_stream_reset_stacks(&out);
	put(PL_MSG_SESSION, id);
	for (uint32_t i = first; i < first + n; i++) {
		make_sample(i);
		PL_CHECK(pla_stream_msg(&out, &m) == 0);
		if ((i - first) % 100 == 99)
			PL_CHECK(pla_stream_flush(&out) == 0);
	}
	put(PL_MSG_END, 0);
	PL_CHECK(pla_stream_flush(&out) == 0);
	pla_stream_reset_stacks(&out);
	put(PL_MSG_HEALTH, 0); /* between sessions: not held */
	PL_CHECK(pla_stream_flush(&out) == 0);
}

static void setup(uint64_t ring, size_t queue)
{
	pl_test_after_case = cleanup;
	PL_CHECK(pla_stream_init(&out, 128 * 1024, queue, 1) == 0);
	out.coarse_events = 1; /* event 0 batched, as a session's sampled event */
	up.hold_bytes = ring;
	char err[256];
	PL_CHECK(pla_hold_init(&hold, &up, &out, err, sizeof(err)) == 0);
	pla_hold_away(&hold);
	PL_CHECK(pla_hold_is_away(&hold));
}

/* The collector is back: a socket; the controller's greeting goes first. */
static void back(struct pl_reader *r)
{
	PL_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	pla_hold_back(&hold);
	PL_CHECK(!pla_hold_is_away(&hold));
	PL_CHECK(pla_stream_attach(&out, sv[0], 1, 0) == 0);
	put(PL_MSG_REPLY, 1);
	PL_CHECK(pla_stream_flush(&out) == 0);
	pl_reader_init(r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_FROM_AGENT);
	PL_CHECK(pl_reader_feed(r, hdr, sizeof(hdr)) == 0);
}

/* What the reader made of the socket so far. */
struct seen {
	uint32_t sessions, ends, samples, replies, health, lost_msgs;
	uint32_t session_ids[64];
	uint32_t next;   /* the sample expected next within a session */
	int in_session;
	uint64_t lost;
};

static void drain(struct pl_reader *r, struct seen *s, const uint32_t *first)
{
	uint8_t buf[65536];
	ssize_t n;
	while ((n = read(sv[1], buf, sizeof(buf))) > 0)
		PL_CHECK(pl_reader_feed(r, buf, (size_t)n) == 0);
	int rc;
	while ((rc = pl_reader_next(r, &got)) == 1) {
		switch (got.type) {
		case PL_MSG_SESSION:
			PL_CHECK(!s->in_session && s->sessions < 64);
			s->session_ids[s->sessions] = got.u.session.session_id;
			s->next = first[got.u.session.session_id];
			s->sessions++;
			s->in_session = 1;
			break;
		case PL_MSG_SAMPLE:
			PL_CHECK(s->in_session);
			make_sample(s->next);
			PL_CHECKF(got.u.sample.time == m.u.sample.time, "sample %u: time %llu", s->next,
				  (unsigned long long)got.u.sample.time);
			PL_CHECKF(got.u.sample.nr_callchain == m.u.sample.nr_callchain &&
					  !memcmp(got.u.sample.callchain, m.u.sample.callchain,
						  m.u.sample.nr_callchain * 8),
				  "sample %u: call chain", s->next);
			s->next++;
			s->samples++;
			break;
		case PL_MSG_END:
			PL_CHECK(s->in_session);
			s->in_session = 0;
			s->ends++;
			break;
		case PL_MSG_REPLY:
			s->replies++;
			break;
		case PL_MSG_HEALTH:
			s->health++;
			break;
		case PL_MSG_LOST:
			s->lost_msgs++;
			s->lost += got.u.lost.count;
			PL_CHECK(got.u.lost.kind == PL_LOST_BACKPRESSURE);
			break;
		}
	}
	PL_CHECKF(rc == 0, "%s", pl_reader_error(r));
	PL_CHECK(r->unresolved_stacks == 0 && r->skipped_blocks == 0);
}

/* The collector's side: START until the agent has nothing held, each
 * answer read while the controller keeps sending frames of its own. */
static void replay(struct pl_reader *r, struct seen *s, const uint32_t *first, int max_rounds)
{
	for (;;) {
		int held = pla_hold_grant(&hold, &m);
		put(PL_MSG_REPLY, 2);
		PL_CHECK(pla_stream_flush(&out) == 0);
		if (!held)
			break;
		for (int round = 0; hold.granted || out.qlen; round++) {
			PL_CHECK(round < 10000);
			if (max_rounds && round == max_rounds)
				return;
			pla_hold_pump(&hold);
			put(PL_MSG_HEALTH, 0); /* the controller's own, uncompressed among them */
			PL_CHECK(pla_stream_flush(&out) == 0);
			PL_CHECK(pla_stream_pump(&out) == 0);
			drain(r, s, first);
		}
	}
	PL_CHECK(pla_stream_pump(&out) == 0 && out.qlen == 0);
	drain(r, s, first);
}

static void test_held_sessions_sent_whole_once(void)
{
	setup(4u << 20, 1u << 20);
	uint32_t first[4] = { 0 };
	for (uint32_t k = 1; k <= 3; k++) {
		first[k] = k * 10000;
		record_session(k, first[k], 700);
	}
	PL_CHECK(hold.held_sessions == 3 && hold.dropped == 0 && hold.dropped_blocks == 0);
	struct pl_reader r;
	struct seen s = { 0 };
	back(&r);
	replay(&r, &s, first, 0);
	PL_CHECKF(s.sessions == 3 && s.ends == 3 && s.samples == 2100, "%u sessions, %u ends, %u samples",
		  s.sessions, s.ends, s.samples);
	for (uint32_t k = 0; k < 3; k++)
		PL_CHECK(s.session_ids[k] == k + 1);
	PL_CHECK(s.lost_msgs == 0 && hold.tail == hold.head && !hold.granted);
	/* nothing is sent twice: a later START finds nothing held */
	PL_CHECK(pla_hold_grant(&hold, &m) == 0);
	pl_reader_free(&r);
}

static void test_full_ring_drops_whole_sessions_counted(void)
{
	/* a ring far smaller than what is recorded: a session larger than
	 * the ring (dropped as it comes), then the oldest sessions go whole */
	setup(96 * 1024, 1u << 20);
	uint32_t first[14] = { 0 }, total = 30000;
	first[1] = 500000;
	record_session(1, first[1], 30000);
	PL_CHECK(hold.dropped == 30000 && hold.dropped_sessions == 1);
	for (uint32_t k = 2; k <= 13; k++) {
		first[k] = k * 10000;
		record_session(k, first[k], 2000 + 500 * (k % 3));
		total += 2000 + 500 * (k % 3);
		PL_CHECK(hold.head - hold.tail <= hold.cap);
	}
	PL_CHECKF(hold.dropped_sessions >= 3, "%llu sessions, %llu samples dropped",
		  (unsigned long long)hold.dropped_sessions, (unsigned long long)hold.dropped);
	struct pl_reader r;
	struct seen s = { 0 };
	back(&r);
	replay(&r, &s, first, 0);
	PL_CHECKF(s.samples + hold.dropped == total, "%u read + %llu dropped, %u recorded", s.samples,
		  (unsigned long long)hold.dropped, total);
	PL_CHECK(s.sessions >= 1 && s.ends == s.sessions && s.session_ids[s.sessions - 1] == 13);
	for (uint32_t k = 1; k < s.sessions; k++)
		PL_CHECK(s.session_ids[k] == s.session_ids[k - 1] + 1);
	/* the drop is told once, in the stream, as LOST of that many samples */
	PL_CHECK(s.lost_msgs == 1 && s.lost == hold.dropped && hold.told == hold.dropped);
	pl_reader_free(&r);
}

static void test_cut_while_sending_drops_the_rest(void)
{
	/* a small send queue: the held session goes a few blocks at a time */
	setup(4u << 20, 16 * 1024);
	uint32_t first[3] = { 0, 10000, 50000 };
	record_session(1, first[1], 8000);
	record_session(2, first[2], 500);
	struct pl_reader r;
	struct seen s = { 0 };
	back(&r);
	replay(&r, &s, first, 2);
	PL_CHECKF(hold.granted && s.samples > 0 && s.samples < 8000 && s.ends == 0, "%u read",
		  s.samples);
	/* the link is cut: what was read stays; the rest of session 1 is
	 * dropped (it would not decode without its start); session 2 stays */
	PL_CHECK(pla_stream_pump(&out) == 0 && out.qlen == 0);
	drain(&r, &s, first);
	pla_stream_detach(&out);
	pla_hold_away(&hold);
	PL_CHECKF(s.samples + hold.dropped == 8000, "%u read + %llu dropped", s.samples,
		  (unsigned long long)hold.dropped);
	PL_CHECK(hold.dropped_sessions == 1 && !hold.granted);
	close(sv[0]);
	close(sv[1]);
	sv[0] = sv[1] = -1;
	pl_reader_free(&r);
	struct seen t = { 0 };
	back(&r);
	replay(&r, &t, first, 0);
	PL_CHECK(t.sessions == 1 && t.session_ids[0] == 2 && t.ends == 1 && t.samples == 500);
	PL_CHECK(t.lost_msgs == 1 && t.lost == hold.dropped);
	pl_reader_free(&r);
}

PL_TEST_MAIN(PL_CASE(test_held_sessions_sent_whole_once),
	     PL_CASE(test_full_ring_drops_whole_sessions_counted),
	     PL_CASE(test_cut_while_sending_drops_the_rest))
