/* uplink.c — fleet reporting to a collector; see uplink.h. */
#include "uplink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "block.h"
#include "util.h"
#include "wire.h"

static int key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-';
}

int pla_uplink_add_label(struct pla_uplink *u, const char *kv, size_t len, const char *what,
			 char *err, size_t errlen)
{
	const char *eq = memchr(kv, '=', len);
	size_t klen = eq ? (size_t)(eq - kv) : 0;
	int ok = eq && klen > 0 && eq + 1 < kv + len && len <= PL_MAX_LABEL;
	for (size_t i = 0; ok && i < klen; i++)
		ok = key_char(kv[i]);
	for (size_t i = klen + 1; ok && i < len; i++)
		ok = (unsigned char)kv[i] >= 0x20 && kv[i] != 0x7f;
	if (!ok) {
		/* the label itself is not secret, but may be long: show its start */
		snprintf(err, errlen,
			 "%s: a label is KEY=VALUE (KEY of letters, digits, '_', '.', '-'; VALUE "
			 "printable; at most %u bytes), not '%.*s'",
			 what, PL_MAX_LABEL, (int)(len < 60 ? len : 60), kv);
		return -EINVAL;
	}
	uint32_t slot = u->nlabels;
	for (uint32_t i = 0; i < u->nlabels; i++)
		if (!strncmp(u->label[i], kv, klen + 1))
			slot = i; /* the same key: the last value given wins */
	if (slot == PL_MAX_LABELS || u->used + len + 1 > sizeof(u->buf)) {
		snprintf(err, errlen, "%s: too many labels (at most %u, %u bytes in all)", what,
			 PL_MAX_LABELS, PLA_UPLINK_LABEL_BYTES);
		return -E2BIG;
	}
	char *d = u->buf + u->used;
	memcpy(d, kv, len);
	d[len] = 0;
	u->used += (uint32_t)len + 1;
	u->label[slot] = d;
	if (slot == u->nlabels)
		u->nlabels++;
	return 0;
}

int pla_uplink_read_labels(struct pla_uplink *u, const char *path, char *err, size_t errlen)
{
	static char text[PLA_UPLINK_LABEL_BYTES + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read the labels file %s: %s", path, strerror(errno));
		return -errno;
	}
	size_t n = 0;
	ssize_t r;
	while (n < sizeof(text) - 1 && (r = read(fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += (size_t)r;
	int rerr = r < 0 ? errno : 0;
	close(fd);
	if (rerr || n == sizeof(text) - 1) {
		snprintf(err, errlen, "cannot read the labels file %s: %s", path,
			 rerr ? strerror(rerr) : "larger than 4 KiB");
		return rerr ? -rerr : -E2BIG;
	}
	char what[300];
	int line = 0;
	for (size_t at = 0; at < n;) {
		const char *l = text + at, *nl = memchr(l, '\n', n - at);
		size_t len = nl ? (size_t)(nl - l) : n - at;
		at += len + 1;
		line++;
		if (len && l[len - 1] == '\r')
			len--;
		if (!len || l[0] == '#')
			continue;
		snprintf(what, sizeof(what), "%s line %d", path, line);
		int rc = pla_uplink_add_label(u, l, len, what, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pla_uplink_greet(const struct pla_uplink *u, int fd, const char *token)
{
	static uint8_t buf[PL_BLOCK_HEADER_SIZE + PL_FRAME_HEADER_SIZE + PLA_UPLINK_LABEL_BYTES +
			   PL_MAX_LABELS * 5 + 512];
	static struct pl_msg m;
	m.type = PL_MSG_REPORT;
	m.u.report.token = pl_str_c(token);
	m.u.report.nlabels = u->nlabels;
	for (uint32_t i = 0; i < u->nlabels; i++)
		m.u.report.labels[i] = pl_str_c(u->label[i]);
	m.u.report.session_period_ms = u->period_ms;
	struct pl_writer w;
	pl_w_init(&w, buf + PL_BLOCK_HEADER_SIZE, sizeof(buf) - PL_BLOCK_HEADER_SIZE);
	int rc = pl_msg_encode(&w, &m);
	if (rc < 0)
		return rc;
	size_t n = pl_w_len(&w);
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)n, (uint32_t)n,
				     pl_crc32(0, buf + PL_BLOCK_HEADER_SIZE, n) };
	pl_block_header_put(buf, &h);
	n += PL_BLOCK_HEADER_SIZE;
	/* a fresh connection's send buffer takes a few KiB at once */
	ssize_t s = send(fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	return s == (ssize_t)n ? 0 : s < 0 ? -errno : -EAGAIN;
}

int pla_uplink_start(const struct pla_uplink *u, struct pla_hold *h,
		     const struct pla_collect_config *own, uint8_t callgraph,
		     struct pla_collector *c, struct pla_stream *out, char *err, size_t errlen)
{
	struct pla_collect_config cfg = *own;
	h->recorded += c->samples; /* the session c held last */
	cfg.callgraph = callgraph;
	/* the session period is the collection's duration: the agent ends it
	 * (END, "duration reached") and the collector starts the next */
	if (!cfg.duration_ms || cfg.duration_ms > u->period_ms)
		cfg.duration_ms = u->period_ms;
	return pla_collect_start(c, &cfg, out, err, errlen);
}

/* ─── held while the collector is away ────────────────────────────────── */

/* n bytes at position pos of a ring of cap bytes (pos only grows), as
 * flight.c's ring does; out of line: inlined at each call (or shared with
 * flight.c, whose calls it inlines) they cost the static agent 160-190
 * bytes more */
__attribute__((noinline)) static void ring_put(uint8_t *ring, uint64_t cap, uint64_t pos,
					       const void *p, size_t n)
{
	size_t at = (size_t)(pos % cap), first = cap - at < n ? (size_t)(cap - at) : n;
	memcpy(ring + at, p, first);
	memcpy(ring, (const uint8_t *)p + first, n - first);
}

__attribute__((noinline)) static void ring_get(const uint8_t *ring, uint64_t cap, uint64_t pos,
					       void *p, size_t n)
{
	size_t at = (size_t)(pos % cap), first = cap - at < n ? (size_t)(cap - at) : n;
	memcpy(p, ring + at, first);
	memcpy((uint8_t *)p + first, ring, n - first);
}

/* A held block, before its bytes. */
struct held {
	uint32_t len;
	uint32_t serial;  /* its session */
	uint32_t samples; /* in it */
	uint32_t last;    /* it holds the session's END */
};

static struct held peek(const struct pla_hold *h)
{
	struct held e;
	ring_get(h->ring, h->cap, h->tail, &e, sizeof(e));
	return e;
}

/* Drops the oldest held session whole (a part of it would not decode);
 * when that is the open one (or none is held), its later blocks too. */
static void drop_oldest(struct pla_hold *h)
{
	uint32_t serial = h->tail < h->head ? peek(h).serial : h->open;
	while (h->tail < h->head) {
		struct held e = peek(h);
		if (e.serial != serial)
			break;
		h->tail += sizeof(e) + e.len;
		h->dropped += e.samples;
		h->dropped_blocks++;
	}
	h->dropped_sessions++;
	if (serial == h->open)
		h->broken = serial;
}

static int on_held_block(void *ctx, const uint8_t *p, size_t n)
{
	struct pla_hold *h = ctx;
	const struct pla_stream *s = h->out;
	/* (a full block flushed while END is encoded comes before END's) */
	int last = h->ending && s->frames >= h->end_frame;
	struct held e = { (uint32_t)n, h->open, s->samples_in_block, (uint32_t)last };
	if (!h->open)
		return 0; /* between sessions (HEALTH): nothing a collector stores */
	while (h->open != h->broken && h->cap - (h->head - h->tail) < sizeof(e) + n)
		drop_oldest(h);
	if (h->open == h->broken) {
		h->dropped += e.samples;
		h->dropped_blocks++;
	} else {
		ring_put(h->ring, h->cap, h->head, &e, sizeof(e));
		ring_put(h->ring, h->cap, h->head + sizeof(e), p, n);
		h->head += sizeof(e) + n;
		h->open_bytes += sizeof(e) + n;
	}
	if (last)
		h->open = h->ending = 0;
	return 0;
}

static void on_held_msg(void *ctx, const struct pl_msg *m)
{
	struct pla_hold *h = ctx;
	if (m->type == PL_MSG_SESSION) {
		h->open = ++h->serial;
		h->open_bytes = 0;
		h->held_sessions++;
	} else if (m->type == PL_MSG_END && h->open) {
		/* END's number: after the held rows, which go out before it as
		 * a batch (counted a frame a row; an empty one with only stack
		 * definitions, one) */
		const struct pla_stream *s = h->out;
		h->ending = 1;
		h->end_frame = s->frames + 1 + (s->nrows ? s->nrows : pl_w_len(&s->defs_w) ? 1 : 0);
	}
}

int pla_hold_init(struct pla_hold *h, const struct pla_uplink *u, struct pla_stream *out,
		  char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	h->cap = u->hold_bytes;
	h->out = out;
	h->tap = (struct pla_stream_tap){ on_held_block, on_held_msg, h };
	if (!(h->ring = malloc(h->cap))) {
		snprintf(err, errlen, "out of memory for --flight-size");
		return -ENOMEM;
	}
	return 0;
}

void pla_hold_free(struct pla_hold *h)
{
	free(h->ring);
	h->ring = NULL;
}

void pla_hold_away(struct pla_hold *h)
{
	struct pla_stream *out = h->out;
	if (!out || out->tap == &h->tap)
		return; /* not reporting, or away already */
	if (h->granted) /* cut while sending it: the rest would not decode alone */
		drop_oldest(h);
	h->granted = 0;
	out->tap = &h->tap;
	out->dead = 0; /* the socket's error: the ring takes what follows */
	pl_block_enc_set_chain(&out->enc, 1);
}

void pla_hold_back(struct pla_hold *h)
{
	struct pla_stream *out = h->out;
	pla_stream_flush(out);
	out->tap = NULL;
	h->open = h->ending = 0;
	if (h->tail < h->head)
		pl_block_enc_set_chain(&out->enc, 0);
}

int pla_hold_grant(struct pla_hold *h, struct pl_msg *m)
{
	struct pla_stream *out = h->out;
	if (h->dropped > h->told) {
		/* what the collector could not get: LOST, as the stream's own
		 * drops are told (the collector logs it) */
		m->type = PL_MSG_LOST;
		m->u.lost = (struct pl_msg_lost){ PL_LOST_BACKPRESSURE, 0, pla_now_ns(),
						 h->dropped - h->told };
		pla_stream_msg(out, m);
		pla_stream_flush(out);
		h->told = h->dropped;
	}
	if (h->tail == h->head) {
		pl_block_enc_set_chain(&out->enc, 1); /* a new frame */
		return 0;
	}
	h->granted = peek(h).serial;
	return 1;
}

void pla_hold_pump(struct pla_hold *h)
{
	struct pla_stream *out = h->out;
	while (h->granted) {
		if (h->tail == h->head) {
			h->granted = 0;
			break;
		}
		struct held e = peek(h);
		if (out->qcap - out->qlen < e.len)
			return; /* whole blocks only: wait for room */
		/* into the stream's send queue, a ring too */
		uint64_t pos = h->tail + sizeof(e), q = out->qstart + out->qlen;
		size_t at = (size_t)(pos % h->cap), first = e.len;
		if (first > h->cap - at)
			first = (size_t)(h->cap - at);
		ring_put(out->queue, out->qcap, q, h->ring + at, first);
		ring_put(out->queue, out->qcap, q + first, h->ring, e.len - first);
		out->qlen += e.len;
		h->tail = pos + e.len;
		if (e.last)
			h->granted = 0;
	}
}

void pla_hold_report(const struct pla_hold *h, uint64_t last_samples)
{
	uint64_t held = 0;
	for (uint64_t pos = h->tail; pos < h->head;) {
		struct held e;
		ring_get(h->ring, h->cap, pos, &e, sizeof(e));
		held += e.samples;
		pos += sizeof(e) + e.len;
	}
	pla_log("held: %llu samples recorded, %llu dropped in %llu sessions, %llu unsent",
		(unsigned long long)(h->recorded + last_samples), (unsigned long long)h->dropped,
		(unsigned long long)h->dropped_sessions, (unsigned long long)held);
}
