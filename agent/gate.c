/* gate.c — connections that have not authenticated yet; see gate.h. */
#include "gate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "block.h"
#include "util.h"
#include "version.h"

#define REJECT_DELAY_NS (1000ull * 1000000)

/* Frames already encoded at p + PL_BLOCK_HEADER_SIZE (n bytes) get their
 * raw block header; returns the block's size. */
static size_t seal_raw_block(uint8_t *p, size_t n)
{
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)n, (uint32_t)n,
				     pl_crc32(0, p + PL_BLOCK_HEADER_SIZE, n) };
	pl_block_header_put(p, &h);
	return PL_BLOCK_HEADER_SIZE + n;
}

void pla_gate_init(struct pla_gate *g, const char *token)
{
	memset(g, 0, sizeof(*g));
	g->token = token;
	for (int i = 0; i < PLA_GATE_SLOTS; i++)
		g->slot[i].fd = -1;
	/* The greeting is the same for every peer: encoded once.  What a
	 * viewer needs to authenticate, nothing about the board. */
	struct pl_msg m = { .type = PL_MSG_HELLO };
	m.u.hello.protocol_version = PL_PROTOCOL_VERSION;
	m.u.hello.agent_version = pl_str_c(PL_VERSION);
	m.u.hello.flags = PL_HELLO_PARTIAL | (token ? PL_HELLO_AUTH_REQUIRED : 0);
	pl_stream_header_put(g->hello, PL_STREAM_FROM_AGENT);
	uint8_t *b = g->hello + PL_STREAM_HEADER_SIZE;
	struct pl_writer w;
	pl_w_init(&w, b + PL_BLOCK_HEADER_SIZE,
		  sizeof(g->hello) - PL_STREAM_HEADER_SIZE - PL_BLOCK_HEADER_SIZE);
	pl_msg_encode(&w, &m); /* fits: asserted by the agent's tests */
	g->hello_len = PL_STREAM_HEADER_SIZE + seal_raw_block(b, pl_w_len(&w));
}

void pla_gate_reply(int fd, uint32_t req, uint16_t cmd, int32_t status, const char *text)
{
	uint8_t buf[PL_BLOCK_HEADER_SIZE + PL_FRAME_HEADER_SIZE + 512];
	struct pl_msg m = { .type = PL_MSG_REPLY };
	m.u.reply = (struct pl_msg_reply){ req, cmd, status, pl_str_c(text) };
	struct pl_writer w;
	pl_w_init(&w, buf + PL_BLOCK_HEADER_SIZE, sizeof(buf) - PL_BLOCK_HEADER_SIZE);
	if (pl_msg_encode(&w, &m) == 0)
		(void)!send(fd, buf, seal_raw_block(buf, pl_w_len(&w)), MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void drop(struct pla_pending *p)
{
	close(p->fd);
	p->fd = -1;
}

int pla_gate_count(const struct pla_gate *g)
{
	int n = 0;
	for (int i = 0; i < PLA_GATE_SLOTS; i++)
		n += g->slot[i].fd >= 0;
	return n;
}

int pla_gate_add(struct pla_gate *g, int fd, const char *peer, uint64_t now)
{
	struct pla_pending *p = NULL, *oldest = NULL, *oldest_silent = NULL;
	for (int i = 0; i < PLA_GATE_SLOTS && !p; i++) {
		struct pla_pending *s = &g->slot[i];
		if (s->fd < 0)
			p = s;
		else if (!oldest || s->since < oldest->since)
			oldest = s;
		if (s->fd >= 0 && !s->spoke && (!oldest_silent || s->since < oldest_silent->since))
			oldest_silent = s;
	}
	if (!p) {
		p = oldest_silent ? oldest_silent : oldest;
		drop(p);
		/* a flood would flood the log too: once a second at most */
		if (!g->evicted++ || now - g->evicted_logged_at >= 1000000000ull) {
			pla_log("%llu connections dropped before authenticating (table of %d full), "
			      "the latest %s",
			      (unsigned long long)g->evicted, PLA_GATE_SLOTS, p->peer);
			g->evicted_logged_at = now;
		}
	}
	p->fd = fd;
	p->spoke = 0;
	p->since = now;
	p->deadline = now + PLA_GATE_DEADLINE_MS * 1000000ull;
	p->reject_at = 0;
	p->in_len = 0;
	snprintf(p->peer, sizeof(p->peer), "%s", peer);
	if (send(fd, g->hello, g->hello_len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)g->hello_len) {
		drop(p);
		return -1;
	}
	return (int)(p - g->slot);
}

int pla_gate_pollfds(struct pla_gate *g, struct pollfd *pfd, int *slot_of, int max)
{
	int n = 0;
	for (int i = 0; i < PLA_GATE_SLOTS && n < max; i++)
		if (g->slot[i].fd >= 0) {
			slot_of[n] = i;
			pfd[n++] = (struct pollfd){ g->slot[i].fd, POLLIN, 0 };
		}
	return n;
}

/* The first block, when whole: 1 and its frames at *body (n bytes);
 * 0 not yet; -1 bad (why says so). */
static int first_block(struct pla_pending *p, const uint8_t **body, size_t *n, char *why,
		       size_t whylen)
{
	struct pl_stream_header sh;
	struct pl_block_header bh;
	if (p->in_len < PL_STREAM_HEADER_SIZE)
		return 0;
	if (pl_stream_header_parse(p->in, p->in_len, &sh, why, whylen) < 0)
		return -1;
	p->spoke = 1;
	size_t at = sh.header_size;
	if (at + PL_BLOCK_HEADER_SIZE > sizeof(p->in)) {
		snprintf(why, whylen, "a stream header of %zu bytes", at);
		return -1;
	}
	if (p->in_len < at + PL_BLOCK_HEADER_SIZE)
		return 0;
	if (pl_block_header_parse(p->in + at, p->in_len - at, &bh, why, whylen) < 0)
		return -1;
	if (bh.codec != PL_CODEC_RAW || bh.raw_len != bh.stored_len ||
	    at + PL_BLOCK_HEADER_SIZE + bh.stored_len > sizeof(p->in)) {
		snprintf(why, whylen, "a first block of %u bytes (codec %u) before authenticating",
			 bh.stored_len, bh.codec);
		return -1;
	}
	if (p->in_len < at + PL_BLOCK_HEADER_SIZE + bh.stored_len)
		return 0;
	*body = p->in + at + PL_BLOCK_HEADER_SIZE;
	*n = bh.stored_len;
	if (pl_crc32(0, *body, *n) != bh.crc32) {
		snprintf(why, whylen, "block CRC mismatch");
		return -1;
	}
	return 1;
}

int pla_token_equal(const char *want, const struct pl_str *got)
{
	size_t wl = strlen(want);
	unsigned diff = (unsigned)(wl ^ got->len);
	for (size_t i = 0; i < wl; i++)
		diff |= (unsigned char)want[i] ^ (unsigned char)(i < got->len ? got->p[i] : 0);
	return diff == 0;
}

int pla_gate_read(struct pla_gate *g, int i, struct pl_msg *m, uint64_t now)
{
	struct pla_pending *p = &g->slot[i];
	char why[160] = "";
	ssize_t r = recv(p->fd, p->in + p->in_len, sizeof(p->in) - p->in_len, MSG_DONTWAIT);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		drop(p); /* a peer that hangs up before authenticating: not worth a line */
		return PLA_GATE_CLOSED;
	}
	if (r < 0 || p->reject_at)
		return PLA_GATE_KEEP; /* a refused peer is not listened to */
	p->in_len += (uint32_t)r;
	const uint8_t *body;
	size_t n;
	int rc = first_block(p, &body, &n, why, sizeof(why));
	if (rc == 0 && p->in_len == sizeof(p->in)) {
		snprintf(why, sizeof(why), "%u bytes without a whole block", p->in_len);
		rc = -1;
	}
	if (rc == 0)
		return PLA_GATE_KEEP;
	struct pl_frame_header fh;
	if (rc > 0 && pl_frame_header_parse(body, n, &fh, why, sizeof(why)) < 0)
		rc = -1;
	if (rc > 0 && fh.len > n - PL_FRAME_HEADER_SIZE) {
		snprintf(why, sizeof(why), "a frame longer than its block");
		rc = -1;
	}
	if (rc < 0) {
		pla_log("bad data from %s: %s", p->peer, why);
		drop(p);
		return PLA_GATE_CLOSED;
	}
	int dec = pl_msg_decode(fh.type, body + PL_FRAME_HEADER_SIZE, fh.len, m, why, sizeof(why));
	p->first_type = fh.type;
	p->first_req = dec < 0 ? 0
		     : fh.type == PL_MSG_AUTH ? m->u.auth.request_id
		     : fh.type == PL_MSG_START ? m->u.start.request_id
		     : fh.type == PL_MSG_CONFIGURE ? m->u.configure.request_id
		     : fh.type >= 64 ? m->u.request.request_id : 0;
	if (!g->token)
		return PLA_GATE_PROMOTE; /* --no-auth: the controller reads its commands */
	if (fh.type != PL_MSG_AUTH || dec < 0) {
		pla_gate_reply(p->fd, p->first_req, fh.type, -EACCES,
			       "authenticate first (this agent requires a token)");
		pla_log("%s sent %s before authenticating: closing", p->peer,
		      pl_msg_type_name(fh.type) ? pl_msg_type_name(fh.type) : "an unknown command");
		drop(p);
		return PLA_GATE_CLOSED;
	}
	if (pla_token_equal(g->token, &m->u.auth.token))
		return PLA_GATE_PROMOTE;
	pla_log("wrong token from %s", p->peer);
	/* answer only after a second, holding this slot but not the loop:
	 * guessing costs the guesser, not the board */
	p->reject_req = m->u.auth.request_id;
	p->reject_at = now + REJECT_DELAY_NS;
	return PLA_GATE_KEEP;
}

struct pla_pending *pla_gate_take(struct pla_gate *g, int i)
{
	static struct pla_pending taken; /* valid until the next call */
	taken = g->slot[i];
	g->slot[i].fd = -1;
	return &taken;
}

int pla_gate_tick(struct pla_gate *g, uint64_t now)
{
	int closed = 0;
	for (int i = 0; i < PLA_GATE_SLOTS; i++) {
		struct pla_pending *p = &g->slot[i];
		if (p->fd < 0)
			continue;
		if (p->reject_at && now >= p->reject_at) {
			pla_gate_reply(p->fd, p->reject_req, PL_MSG_AUTH, -EACCES,
				       "wrong token: use the agent's token (--token, --token-file, "
				       "or the file it wrote the generated one to)");
		} else if (!p->reject_at && now > p->deadline) {
			pla_log("dropped %s: no %s within %d s", p->peer,
			      g->token ? "authentication" : "command", PLA_GATE_DEADLINE_MS / 1000);
		} else {
			continue;
		}
		drop(p);
		closed++;
	}
	return closed;
}

void pla_gate_close_all(struct pla_gate *g)
{
	for (int i = 0; i < PLA_GATE_SLOTS; i++)
		if (g->slot[i].fd >= 0)
			drop(&g->slot[i]);
}
