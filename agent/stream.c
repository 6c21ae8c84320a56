/* stream.c — outgoing stream with bounded queue; see stream.h. */
#include "stream.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

uint64_t pla_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pla_stream_init(struct pla_stream *s, size_t block_raw, size_t queue_cap, int zstd_level)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	int rc = pl_block_enc_init(&s->enc, block_raw, zstd_level);
	if (rc < 0)
		return rc;
	s->qcap = queue_cap;
	s->queue = malloc(queue_cap);
	if (!s->queue) {
		pl_block_enc_free(&s->enc);
		return -ENOMEM;
	}
	return 0;
}

void pla_stream_free(struct pla_stream *s)
{
	pl_block_enc_free(&s->enc);
	free(s->queue);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copies into the byte ring; the caller checked room. */
static void queue_put(struct pla_stream *s, const uint8_t *p, size_t n)
{
	size_t end = (s->qstart + s->qlen) % s->qcap;
	size_t first = s->qcap - end < n ? s->qcap - end : n;
	memcpy(s->queue + end, p, first);
	memcpy(s->queue, p + first, n - first);
	s->qlen += n;
}

static int emit(struct pla_stream *s, const uint8_t *p, size_t n)
{
	if (s->dead)
		return s->dead;
	if (!s->is_socket) {
		int rc = write_all(s->fd, p, n);
		if (rc < 0)
			return s->dead = rc;
		s->bytes_sent += n;
		return 0;
	}
	if (s->qcap - s->qlen < n) {
		pla_stream_pump(s);
		if (s->qcap - s->qlen < n)
			return -ENOBUFS;
	}
	queue_put(s, p, n);
	return pla_stream_pump(s);
}

int pla_stream_attach(struct pla_stream *s, int fd, int is_socket, uint32_t header_flags)
{
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	s->fd = fd;
	s->is_socket = is_socket;
	s->dead = 0;
	s->qstart = s->qlen = 0;
	pl_w_init(&s->enc.w, s->enc.raw, s->enc.raw_cap); /* drop a half block of a past peer */
	s->frames_in_block = s->samples_in_block = 0;
	pl_stream_header_put(hdr, header_flags);
	return emit(s, hdr, sizeof(hdr));
}

void pla_stream_detach(struct pla_stream *s)
{
	s->fd = -1;
	s->qstart = s->qlen = 0;
	pl_w_init(&s->enc.w, s->enc.raw, s->enc.raw_cap);
	s->frames_in_block = s->samples_in_block = 0;
}

int pla_stream_flush(struct pla_stream *s)
{
	if (pl_block_enc_empty(&s->enc))
		return s->dead;
	const uint8_t *blk;
	size_t n;
	s->bytes_raw += pl_w_len(&s->enc.w);
	pl_block_enc_finish(&s->enc, &blk, &n);
	int rc = emit(s, blk, n);
	if (rc == -ENOBUFS) {
		/* backpressure: the network is slower than the samples */
		s->dropped_frames += s->frames_in_block;
		s->dropped_samples += s->samples_in_block;
		s->pending_drop_report += s->samples_in_block;
		rc = 0;
	}
	s->frames_in_block = s->samples_in_block = 0;
	return rc;
}

int pla_stream_maybe_flush(struct pla_stream *s, uint64_t now_ns, uint64_t max_age_ns)
{
	if (!pl_block_enc_empty(&s->enc) && now_ns - s->block_start_ns >= max_age_ns)
		return pla_stream_flush(s);
	return s->dead;
}

static int put(struct pla_stream *s, const struct pl_msg *m)
{
	int rc = pl_msg_encode(&s->enc.w, m);
	if (rc == -ENOBUFS && !pl_block_enc_empty(&s->enc)) {
		if ((rc = pla_stream_flush(s)) < 0)
			return rc;
		rc = pl_msg_encode(&s->enc.w, m);
	}
	if (rc < 0)
		return rc;
	if (s->frames_in_block++ == 0)
		s->block_start_ns = pla_now_ns();
	s->frames++;
	if (m->type == PL_MSG_SAMPLE)
		s->samples_in_block++;
	return 0;
}

int pla_stream_msg(struct pla_stream *s, const struct pl_msg *m)
{
	if (s->dead)
		return s->dead;
	if (s->fd < 0)
		return -ENOTCONN;
	if (s->pending_drop_report && m->type == PL_MSG_SAMPLE) {
		struct pl_msg lost = { .type = PL_MSG_LOST };
		lost.u.lost.kind = PL_LOST_BACKPRESSURE;
		lost.u.lost.time = pla_now_ns();
		lost.u.lost.count = s->pending_drop_report;
		if (put(s, &lost) == 0)
			s->pending_drop_report = 0;
	}
	return put(s, m);
}

int pla_stream_pump(struct pla_stream *s)
{
	if (!s->is_socket || s->dead)
		return s->dead;
	while (s->qlen) {
		size_t first = s->qcap - s->qstart < s->qlen ? s->qcap - s->qstart : s->qlen;
		ssize_t w = send(s->fd, s->queue + s->qstart, first, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return s->dead = w < 0 ? -errno : -EPIPE;
		s->qstart = (s->qstart + (size_t)w) % s->qcap;
		s->qlen -= (size_t)w;
		s->bytes_sent += (uint64_t)w;
	}
	return 0;
}

int pla_stream_drain(struct pla_stream *s, int timeout_ms)
{
	uint64_t deadline = pla_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int rc = pla_stream_flush(s);
	while (rc == 0 && s->is_socket && s->qlen && pla_now_ns() < deadline) {
		struct pollfd p = { s->fd, POLLOUT, 0 };
		poll(&p, 1, 50);
		rc = pla_stream_pump(s);
	}
	return rc;
}
