/* flight-serve.c — a flight recorder's viewers (--flight with --port): a
 * viewer authenticates as with --listen (gate.h), asks SNAPSHOT, and gets
 * the saved file back; see flight.h.
 *
 * One viewer at a time (others are told "busy").  The file goes out one
 * FILE_CHUNK per raw block, each sent without blocking as the socket takes
 * it, so a slow viewer never holds up the drain.  While a block is being
 * sent the viewer's commands wait in its socket.  Allocated at start: the
 * block buffer, the command reader's first block, the decode target.
 */
#include "flight.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "block.h"
#include "gate.h"
#include "net.h"
#include "reader.h"
#include "token.h"
#include "util.h"

#define CHUNK (60u * 1024)
#define OUT_CAP (CHUNK + 1024)
#define CMD_BLOCK_MAX (64 * 1024)

struct pla_flight_serve {
	int lfd;
	struct pla_gate gate;
	int fd; /* the authenticated viewer, -1: none */
	char peer[64];
	struct pl_reader cmd;
	struct pl_msg *msg;
	int slot_of[PLA_GATE_SLOTS];
	int ngate;
	/* a SNAPSHOT waiting for the recorder: its request id (0: none), and
	 * the recorder's attempts when it was asked */
	uint32_t want;
	uint64_t want_attempt;
	/* the file being sent (-1: none), then the REPLY */
	int file;
	uint64_t off, total;
	char reply[300]; /* the file's path on the board */
	uint8_t *out, *chunk;
	size_t out_len, out_pos;
};

/* One message as one raw block in s->out (empty before). */
static void put(struct pla_flight_serve *s, const struct pl_msg *m)
{
	struct pl_writer w;
	pl_w_init(&w, s->out + PL_BLOCK_HEADER_SIZE, OUT_CAP - PL_BLOCK_HEADER_SIZE);
	if (pl_msg_encode(&w, m) < 0)
		return;
	size_t n = pl_w_len(&w);
	struct pl_block_header h = { PL_CODEC_RAW, (uint32_t)n, (uint32_t)n,
				     pl_crc32(0, s->out + PL_BLOCK_HEADER_SIZE, n) };
	pl_block_header_put(s->out, &h);
	s->out_len = PL_BLOCK_HEADER_SIZE + n;
	s->out_pos = 0;
}

static void reply(struct pla_flight_serve *s, uint32_t req, int status, const char *text)
{
	struct pl_msg *m = s->msg;
	m->type = PL_MSG_REPLY;
	m->u.reply = (struct pl_msg_reply){ req, PL_MSG_SNAPSHOT, status, pl_str_c(text) };
	put(s, m);
}

static void drop_viewer(struct pla_flight_serve *s, const char *why)
{
	if (s->fd < 0)
		return;
	if (why)
		pla_log("viewer %s disconnected: %s", s->peer, why);
	close(s->fd);
	s->fd = -1;
	if (s->file >= 0)
		close(s->file);
	s->file = -1;
	s->want = 0;
	s->out_len = s->out_pos = 0;
	pl_reader_free(&s->cmd);
}

int pla_flight_serve_init(struct pla_flight *f, char *err, size_t errlen)
{
	const struct pla_flight_config *cfg = f->cfg;
	struct pla_flight_serve *s = calloc(1, sizeof(*s));
	if (!s || !(s->msg = malloc(sizeof(*s->msg))) || !(s->out = malloc(OUT_CAP)) ||
	    !(s->chunk = malloc(CHUNK))) {
		if (s) {
			free(s->msg);
			free(s->out);
		}
		free(s);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->serve = s;
	s->fd = s->file = -1;
	s->lfd = pla_net_listen(cfg->bind, cfg->port, err, errlen);
	if (s->lfd < 0)
		return s->lfd;
	int port = pla_net_local_port(s->lfd);
	fprintf(stderr, "perflens-agent: flight recorder listening on %s:%d (perflens snapshot "
			"asks it to save)\n", cfg->bind ? cfg->bind : "*", port > 0 ? port : cfg->port);
	if (cfg->token_at_bind) {
		char path[512];
		if (port <= 0 || !pla_token_default_path(port, path, sizeof(path))) {
			snprintf(err, errlen, "cannot tell which port was bound for the token file");
			return -EINVAL;
		}
		int rc = pla_token_write(path, cfg->token, err, errlen);
		if (rc < 0)
			return rc;
		fprintf(stderr, "perflens-agent: the token is in %s (mode 0600): give it to the "
				"viewer\n", path);
	}
	pla_gate_init(&s->gate, cfg->token);
	return 0;
}

void pla_flight_serve_free(struct pla_flight *f)
{
	struct pla_flight_serve *s = f->serve;
	if (!s)
		return;
	drop_viewer(s, NULL);
	pla_gate_close_all(&s->gate);
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->msg);
	free(s->out);
	free(s->chunk);
	free(s);
	f->serve = NULL;
}

int pla_flight_pollfds(struct pla_flight *f, struct pollfd *pfd, int max)
{
	struct pla_flight_serve *s = f->serve;
	int n = 0;
	if (!s || max < 2 + PLA_GATE_SLOTS)
		return 0;
	pfd[n++] = (struct pollfd){ s->lfd, POLLIN, 0 };
	/* the viewer: its commands only when nothing is being sent */
	pfd[n++] = (struct pollfd){ s->fd, s->out_len ? POLLOUT : POLLIN, 0 };
	s->ngate = pla_gate_pollfds(&s->gate, pfd + n, s->slot_of, PLA_GATE_SLOTS);
	return n + s->ngate;
}

/* A command of the viewer; -1 closes it. */
static int command(struct pla_flight *f, struct pla_flight_serve *s, const struct pl_msg *m,
		   uint64_t now)
{
	uint32_t req = m->u.request.request_id; /* every command's first field */
	switch (m->type) {
	case PL_MSG_AUTH:
		/* the gate checked the first one; a later one is checked here */
		if (f->cfg->token && !pla_token_equal(f->cfg->token, &m->u.auth.token)) {
			pla_gate_reply(s->fd, req, m->type, -EACCES, "wrong token");
			return -1;
		}
		pla_gate_reply(s->fd, req, m->type, 0, "authenticated");
		return 0;
	case PL_MSG_SNAPSHOT:
		if (s->want) {
			reply(s, req, -EBUSY, "a snapshot is being saved for this viewer already");
		} else if (f->cfg->boot && f->snapshots && !f->last_rc) {
			/* --boot: the boot's recording, saved once, is what a
			 * viewer comes for (boot.h); it goes out as it is */
			s->want = req;
			s->want_attempt = f->attempts - 1;
		} else if (!pla_flight_fire(f, PL_TRIGGER_VIEWER, now, s->peer)) {
			reply(s, req, -EAGAIN, "the flight recorder has not started recording yet: "
					       "ask again in a moment");
		} else {
			s->want = req;
			s->want_attempt = f->attempts;
			pla_log("flight recorder: %s asked for a snapshot", s->peer);
		}
		return 0;
	case PL_MSG_BYE:
		pla_gate_reply(s->fd, req, m->type, 0, "bye");
		return -1;
	default:
		if (m->type < 64)
			return -1; /* an agent-side message: not a viewer */
		pla_gate_reply(s->fd, req, m->type, -EOPNOTSUPP,
			       "this agent is a flight recorder (--flight): it records on its own; "
			       "ask it for a snapshot (perflens snapshot) or restart it without "
			       "--flight to record from a viewer");
		return 0;
	}
}

/* The commands read so far, while nothing is being sent. */
static void commands(struct pla_flight *f, struct pla_flight_serve *s, uint64_t now)
{
	int rc;
	while (s->fd >= 0 && !s->out_len && (rc = pl_reader_next(&s->cmd, s->msg)) != 0) {
		if (rc < 0) {
			pla_log("bad data from %s: %s", s->peer, pl_reader_error(&s->cmd));
			drop_viewer(s, NULL);
		} else if (command(f, s, s->msg, now) < 0) {
			drop_viewer(s, "by request or refused");
		}
	}
}

static void readable(struct pla_flight *f, struct pla_flight_serve *s, uint64_t now)
{
	uint8_t buf[4096];
	ssize_t n = read(s->fd, buf, sizeof(buf));
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
		drop_viewer(s, n == 0 ? "closed" : strerror(errno));
		return;
	}
	if (n < 0)
		return;
	if (pl_reader_feed(&s->cmd, buf, (size_t)n) < 0) {
		drop_viewer(s, "out of memory");
		return;
	}
	commands(f, s, now);
}

/* The next block of the file, or the REPLY after its last one. */
static void next_block(struct pla_flight *f, struct pla_flight_serve *s)
{
	if (s->off >= s->total) {
		close(s->file);
		s->file = -1;
		reply(s, s->want, 0, s->reply);
		s->want = 0;
		return;
	}
	size_t n = s->total - s->off < CHUNK ? (size_t)(s->total - s->off) : CHUNK;
	ssize_t got = pread(s->file, s->chunk, n, (off_t)s->off);
	if (got != (ssize_t)n) {
		close(s->file);
		s->file = -1;
		char text[300];
		snprintf(text, sizeof(text), "reading the snapshot %s/%s back failed: %s",
			 f->cfg->dir, f->last_name, got < 0 ? strerror(errno) : "it shrank");
		reply(s, s->want, got < 0 ? -errno : -EIO, text);
		s->want = 0;
		return;
	}
	struct pl_msg *m = s->msg;
	m->type = PL_MSG_FILE_CHUNK;
	m->u.chunk = (struct pl_msg_file_chunk){ PL_CHUNK_SNAPSHOT, 0, 0, s->off, s->total,
						 pl_str_c(f->last_name), (uint32_t)n, s->chunk };
	put(s, m);
	s->off += n;
}

/* The recorder tried to save the snapshot this viewer asked for. */
static void saved(struct pla_flight *f, struct pla_flight_serve *s)
{
	char path[4200];
	if (f->last_rc < 0) {
		reply(s, s->want, f->last_rc, f->last_err);
		s->want = 0;
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", f->cfg->dir, f->last_name);
	s->file = open(path, O_RDONLY | O_CLOEXEC);
	off_t end = s->file >= 0 ? lseek(s->file, 0, SEEK_END) : -1;
	if (end < 0) {
		char text[300];
		snprintf(text, sizeof(text), "the snapshot %.200s was saved but cannot be read back: "
			 "%s", path, strerror(errno));
		reply(s, s->want, -errno, text);
		s->want = 0;
		return;
	}
	s->off = 0;
	s->total = (uint64_t)end;
	snprintf(s->reply, sizeof(s->reply), "%.299s", path);
	next_block(f, s);
}

/* A peer that authenticated: the viewer, unless one is there. */
static void promote(struct pla_flight *f, struct pla_flight_serve *s, struct pla_pending *p,
		    uint64_t now)
{
	if (s->fd >= 0) {
		char text[200];
		snprintf(text, sizeof(text), "busy: another viewer (%s) is talking to this flight "
					     "recorder", s->peer);
		pla_gate_reply(p->fd, p->first_req, p->first_type, -EBUSY, text);
		close(p->fd);
		return;
	}
	s->fd = p->fd;
	snprintf(s->peer, sizeof(s->peer), "%s", p->peer);
	pl_reader_init(&s->cmd, CMD_BLOCK_MAX);
	pla_log("viewer %s connected to the flight recorder", s->peer);
	if (pl_reader_feed(&s->cmd, p->in, p->in_len) < 0) {
		drop_viewer(s, "out of memory");
		return;
	}
	commands(f, s, now);
}

void pla_flight_serve(struct pla_flight *f, const struct pollfd *pfd, int n, uint64_t now)
{
	struct pla_flight_serve *s = f->serve;
	if (!s || n < 2)
		return;
	short le = pfd[0].revents, ve = pfd[1].revents;
	for (int i = 0; i < s->ngate && 2 + i < n; i++) {
		if (!(pfd[2 + i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		int slot = s->slot_of[i];
		if (pla_gate_read(&s->gate, slot, s->msg, now) == PLA_GATE_PROMOTE) {
			int had = s->fd;
			promote(f, s, pla_gate_take(&s->gate, slot), now);
			if (had != s->fd)
				ve = 0; /* the entry polled was not this connection */
		}
	}
	pla_gate_tick(&s->gate, now);
	/* fewer than the gate's slots a round, as the session does: one
	 * accepted now cannot be pushed out by those after it */
	for (int k = 0; (le & POLLIN) && k < PLA_GATE_SLOTS / 2; k++) {
		char peer[128];
		int fd = pla_net_accept(s->lfd, peer, sizeof(peer));
		if (fd < 0)
			break;
		/* its stream header and AUTH are often there already */
		int slot = pla_gate_add(&s->gate, fd, peer, now);
		if (slot >= 0 && pla_gate_read(&s->gate, slot, s->msg, now) == PLA_GATE_PROMOTE) {
			int had = s->fd;
			promote(f, s, pla_gate_take(&s->gate, slot), now);
			if (had != s->fd)
				ve = 0;
		}
	}
	if (s->fd >= 0 && !s->out_len && (ve & (POLLIN | POLLHUP | POLLERR)))
		readable(f, s, now);
	if (s->fd >= 0 && s->want && s->file < 0 && !s->out_len && f->attempts > s->want_attempt)
		saved(f, s);
	/* send what the socket takes */
	while (s->fd >= 0 && s->out_len) {
		ssize_t w = send(s->fd, s->out + s->out_pos, s->out_len - s->out_pos,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				drop_viewer(s, strerror(errno));
			break;
		}
		s->out_pos += (size_t)w;
		if (s->out_pos < s->out_len)
			break;
		s->out_len = s->out_pos = 0;
		if (s->file >= 0)
			next_block(f, s);
		else
			commands(f, s, now); /* those that waited */
	}
}
