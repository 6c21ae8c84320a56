/* fuzz-commands.c — libFuzzer harness: the agent's command path.
 *
 * What a viewer (or anyone who reaches the agent's port) sends is read by
 * agent/session.c with a pl_reader limited to 64 KiB blocks (CMD_BLOCK_MAX),
 * fed from 16 KiB recv() buffers, then dispatched by type.  This drives:
 *   - that reader, with that limit, fed in pieces of at most 16 KiB;
 *   - for every command it returns, what session.c does with untrusted
 *     fields before acting: the START event specs go through the agent's
 *     real parser, pla_event_parse (agent/perf.c), exactly as start_from_msg
 *     formats them ("%.*s" into 256 bytes);
 *   - pl_msg_decode of the input as the body of each viewer → agent type
 *     (AUTH LIST PROBE START PAUSE RESUME CONFIGURE STOP BYE);
 *   - agent/gate.c, what reads a connection before it has authenticated
 *     (its own parse of the stream header and first block, into a fixed
 *     buffer): the input as what a peer sends, through a real socket pair,
 *     in pieces of at most 700 bytes.
 * start_from_msg itself is static in session.c (and ends in
 * pla_collect_start, which opens perf events and forks): it is not called
 * here.  See fuzz/run.sh's report line for what would make it reachable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>
#include <unistd.h>

#include "fuzz-util.h"
#include "gate.h"
#include "perf.h"
#include "reader.h"

#define CMD_BLOCK_MAX (64 * 1024) /* agent/session.c */
#define RECV_MAX 16384            /* agent/session.c on_readable's buffer */

static const uint16_t commands[] = {
	PL_MSG_AUTH,	  PL_MSG_LIST, PL_MSG_PROBE, PL_MSG_START, PL_MSG_PAUSE,
	PL_MSG_RESUME, PL_MSG_CONFIGURE, PL_MSG_STOP, PL_MSG_BYE,
};

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

static void parse_events(const struct pl_str *ev, uint32_t n, uint32_t cap)
{
	FZ_CHECK(n <= cap, "%u events decoded, cap %u", n, cap);
	for (uint32_t i = 0; i < n; i++) {
		char spec[256], err[512];
		struct pla_event_spec e;
		snprintf(spec, sizeof(spec), "%.*s", (int)ev[i].len, ev[i].p);
		pla_event_parse(spec, &e, err, sizeof(err));
	}
}

/* What session.c's on_command reads from each command before acting. */
static void act(const struct pl_msg *m)
{
	switch (m->type) {
	case PL_MSG_START: {
		const struct pl_msg_start *s = &m->u.start;
		FZ_CHECK(s->argc <= PL_MAX_ARGV, "argc %u over the cap", s->argc);
		for (uint32_t i = 0; i < s->argc; i++)
			FZ_CHECK(s->argv[i].len <= PL_MAX_STR, "argv[%u] of %u bytes", i,
				 s->argv[i].len);
		parse_events(s->events, s->nevents, PL_MAX_EVENTS);
		break;
	}
	case PL_MSG_CONFIGURE:
		parse_events(m->u.configure.events, m->u.configure.nevents, PL_MAX_EVENTS);
		break;
	case PL_MSG_AUTH:
		FZ_CHECK(m->u.auth.token.len <= PL_MAX_STR, "token of %u bytes",
			 m->u.auth.token.len);
		break;
	}
}

static void read_commands(const uint8_t *p, size_t n, uint64_t seed)
{
	struct pl_reader r;
	size_t fed = 0;
	int rc = 0;

	FZ_CHECK(pl_reader_init(&r, CMD_BLOCK_MAX) == 0, "reader init");
	while (fed < n && rc >= 0) {
		size_t k = fz_piece(&seed, n - fed, RECV_MAX);
		if (pl_reader_feed(&r, p + fed, k) < 0)
			break;
		fed += k;
		while ((rc = pl_reader_next(&r, msg)) == 1) {
			fz_roundtrip(msg, SIZE_MAX, wbuf, wbuf2, scratch);
			act(msg);
		}
		/* what a peer can make the agent hold: one block at most,
		 * plus one recv() buffer not yet parsed */
		FZ_CHECK(rc < 0 || pl_reader_pending(&r) <= CMD_BLOCK_MAX + RECV_MAX,
			 "%zu bytes pending in a %u-byte command reader", pl_reader_pending(&r),
			 CMD_BLOCK_MAX);
	}
	pl_reader_free(&r);
}

/* One pending connection fed the input until the gate promotes it, closes
 * it, or the input ends. */
static void gate_read(const uint8_t *p, size_t n, uint64_t seed)
{
	static struct pla_gate g;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	pla_gate_init(&g, "fuzz-token");
	int slot = pla_gate_add(&g, sv[0], "fuzz", 1), rc = PLA_GATE_KEEP;
	size_t fed = 0;
	while (slot >= 0 && fed < n && rc == PLA_GATE_KEEP) {
		size_t k = fz_piece(&seed, n - fed, 700);
		if (send(sv[1], p + fed, k, MSG_NOSIGNAL) != (ssize_t)k)
			break;
		fed += k;
		rc = pla_gate_read(&g, slot, scratch, 2);
		FZ_CHECK(rc != PLA_GATE_KEEP || g.slot[slot].in_len <= PLA_GATE_IN,
			 "%u bytes held before AUTH", g.slot[slot].in_len);
	}
	if (rc == PLA_GATE_PROMOTE) {
		struct pla_pending *t = pla_gate_take(&g, slot);
		FZ_CHECK(t->in_len <= PLA_GATE_IN, "%u bytes handed over", t->in_len);
		close(t->fd);
	}
	pla_gate_tick(&g, UINT64_MAX); /* deadlines, and a wrong token's answer */
	pla_gate_close_all(&g);
	FZ_CHECK(pla_gate_count(&g) == 0, "pending connections left");
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	fz_each_stream(data, size, PL_STREAM_FROM_VIEWER, 1, read_commands);
	fz_each_stream(data, size, PL_STREAM_FROM_VIEWER, 1, gate_read);

	uint8_t *body = malloc(size ? size : 1);
	if (!body)
		return 0;
	memcpy(body, data, size);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char err[160];
		if (pl_msg_decode(commands[i], body, size, msg, err, sizeof(err)) == 0) {
			fz_roundtrip(msg, size, wbuf, wbuf2, scratch);
			act(msg);
		}
	}
	free(body);
	return 0;
}
