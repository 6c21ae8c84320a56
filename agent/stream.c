/* stream.c — outgoing stream with bounded queue; see stream.h. */
#include "stream.h"
#include "io.h"

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
	/* a batch always fits an empty block, at its worst-case size: a
	 * quarter of the block (at most PLA_DEFS_BYTES) for its definitions */
	s->defs_cap = block_raw / 4 < PLA_DEFS_BYTES ? block_raw / 4 : PLA_DEFS_BYTES;
	size_t fixed = 128 + PLA_BATCH_THREADS * 10 + s->defs_cap;
	size_t fit = block_raw > fixed + 48 ? (block_raw - fixed) / 48 : 1;
	s->batch_max = fit < PLA_BATCH_ROWS ? (uint32_t)fit : PLA_BATCH_ROWS;
	/* one zstd frame across blocks: later blocks match against earlier
	 * ones, with the latency of a block each (block.h) */
	pl_block_enc_set_chain(&s->enc, 1);
	s->qcap = queue_cap;
	s->queue = malloc(queue_cap);
	s->chains = malloc(sizeof(uint64_t) * PLA_STACK_SLOTS * PLA_STACK_DEPTH);
	s->stack_msg = malloc(sizeof(*s->stack_msg));
	s->lost_msg = malloc(sizeof(*s->lost_msg));
	s->rows = malloc(sizeof(*s->rows) * PLA_BATCH_ROWS);
	s->batch_buf = malloc(PLA_BATCH_BYTES + PLA_DEFS_BYTES);
	s->defs = malloc(PLA_DEFS_BYTES);
	s->batch_msg = malloc(sizeof(*s->batch_msg));
	if (!s->queue || !s->chains || !s->stack_msg || !s->lost_msg || !s->rows ||
	    !s->batch_buf || !s->batch_msg || !s->defs) {
		pla_stream_free(s);
		return -ENOMEM;
	}
	pl_w_init(&s->defs_w, s->defs, s->defs_cap);
	s->batch_gen = 1;
	return 0;
}

void pla_stream_reset_stacks(struct pla_stream *s)
{
	memset(s->slots, 0, sizeof(s->slots));
	s->next_stack_id = 0;
	s->nrecent = s->recent_next = 0;
	pl_w_init(&s->defs_w, s->defs, s->defs_cap); /* they defined forgotten ids */
	s->defs_prev_id = 0;
	pl_block_enc_restart(&s->enc);
}

void pla_stream_free(struct pla_stream *s)
{
	pl_block_enc_free(&s->enc);
	free(s->queue);
	free(s->chains);
	free(s->stack_msg);
	free(s->lost_msg);
	free(s->rows);
	free(s->batch_buf);
	free(s->batch_msg);
	free(s->defs);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
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
	if (s->tap) {
		int rc = s->tap->block(s->tap->ctx, p, n);
		if (rc < 0)
			return s->dead = rc;
		s->bytes_sent += n;
		return 0;
	}
	if (!s->is_socket) {
		int rc = pl_write_all(s->fd, p, n);
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
	s->nrows = s->nthreads = 0;
	pla_stream_reset_stacks(s); /* the new peer knows none */
	if (!header_flags)
		return 0; /* it has the header already (gate.c sent it) */
	pl_stream_header_put(hdr, header_flags);
	return emit(s, hdr, sizeof(hdr));
}

void pla_stream_detach(struct pla_stream *s)
{
	s->fd = -1;
	s->qstart = s->qlen = 0;
	pl_w_init(&s->enc.w, s->enc.raw, s->enc.raw_cap);
	s->frames_in_block = s->samples_in_block = 0;
	s->nrows = s->nthreads = 0;
}

static int batch_flush(struct pla_stream *s);

int pla_stream_flush(struct pla_stream *s)
{
	int brc = batch_flush(s);
	if (brc < 0 && brc != -ENOBUFS)
		return brc;
	if (pl_block_enc_empty(&s->enc))
		return s->dead;
	const uint8_t *blk;
	size_t n;
	s->bytes_raw += pl_w_len(&s->enc.w);
	pl_block_enc_finish(&s->enc, &blk, &n);
	int rc = emit(s, blk, n);
	if (rc == -ENOBUFS) {
		/* backpressure: the network is slower than the samples.  The
		 * block may itself have carried an earlier loss report: that
		 * count must be reported again. */
		s->dropped_frames += s->frames_in_block;
		s->dropped_samples += s->samples_in_block;
		s->pending_drop_report += s->samples_in_block + s->reported_in_block;
		pla_stream_reset_stacks(s); /* the lost block may have defined some */
		rc = 0;
	}
	s->frames_in_block = s->samples_in_block = 0;
	s->reported_in_block = 0;
	return rc;
}

int pla_stream_maybe_flush(struct pla_stream *s, uint64_t now_ns, uint64_t min_age_ns,
			   uint64_t max_age_ns)
{
	if (pl_block_enc_empty(&s->enc) && !s->nrows)
		return s->dead;
	/* the caller's clock reading may predate the block's first frame
	 * (frames encoded since it was taken): that block is young, not old */
	uint64_t age = now_ns > s->block_start_ns ? now_ns - s->block_start_ns : 0;
	if (age >= max_age_ns ||
	    (age >= min_age_ns && (s->samples_in_block + s->nrows >= PLA_FLUSH_SAMPLES ||
				   pl_w_len(&s->enc.w) >= PLA_FLUSH_BYTES)))
		return pla_stream_flush(s);
	return s->dead;
}

static int encode(struct pla_stream *s, const struct pl_msg *m)
{
	int rc = pl_msg_encode(&s->enc.w, m);
	if (rc == -ENOBUFS && !pl_block_enc_empty(&s->enc)) {
		if ((rc = pla_stream_flush(s)) < 0)
			return rc;
		rc = pl_msg_encode(&s->enc.w, m);
	}
	if (rc == -ENOBUFS)
		return -EMSGSIZE; /* larger than an empty block (stream.h): never sent */
	if (rc < 0)
		return rc;
	if (s->frames_in_block++ == 0 && !s->nrows)
		s->block_start_ns = pla_now_ns();
	s->frames++;
	return 0;
}

/* Sends the pending rows as one SAMPLE_BATCH (a full block is flushed
 * first).  The rows are taken off before encoding, since encoding may
 * flush the block, which comes back here. */
static int batch_flush(struct pla_stream *s)
{
	uint32_t n = s->nrows;
	size_t ndefs = pl_w_len(&s->defs_w);
	if (!n && !ndefs)
		return 0;
	uint64_t base = n ? s->rows[0].time : s->prev_time, last = n ? s->rows[n - 1].time : base;
	size_t len = pl_batch_build(s->batch_buf, PLA_BATCH_BYTES + PLA_DEFS_BYTES, s->threads,
				    s->nthreads, s->rows, n, base, PL_BATCH_TIME_US, s->defs, ndefs);
	s->nrows = s->nthreads = 0;
	pl_w_init(&s->defs_w, s->defs, s->defs_cap);
	s->defs_prev_id = 0;
	s->batch_gen++; /* no definition is pending any more */
	if (!len)
		return -EINVAL; /* the buffer is sized for the worst case */
	struct pl_msg *m = s->batch_msg;
	m->type = PL_MSG_SAMPLE_BATCH;
	m->u.batch = (struct pl_msg_sample_batch){ n, base, (uint32_t)len, s->batch_buf };
	uint64_t start = s->block_start_ns;
	int empty = pl_block_enc_empty(&s->enc);
	int rc = encode(s, m);
	if (rc < 0)
		return rc;
	if (empty)
		s->block_start_ns = start; /* the block is as old as its oldest sample */
	/* counted as n frames, as they would have been one by one: the drop
	 * statistics compare frames and samples */
	if (n) {
		s->frames += n - 1;
		s->frames_in_block += n - 1;
	}
	s->samples_in_block += n;
	s->prev_time = last;
	s->batches++;
	return 0;
}

static uint32_t thread_index(struct pla_stream *s, uint32_t pid, uint32_t tid)
{
	for (uint32_t i = s->nthreads; i-- > 0;)
		if (s->threads[i].tid == tid && s->threads[i].pid == pid)
			return i;
	if (s->nthreads == PLA_BATCH_THREADS)
		return UINT32_MAX;
	s->threads[s->nthreads] = (struct pl_batch_thread){ pid, tid };
	return s->nthreads++;
}

/* Holds a plain sample (stack interned as id, or none) for the batch. */
static int batch_add(struct pla_stream *s, const struct pl_msg_sample *x, uint32_t id)
{
	int rc;
	uint32_t t = s->nrows < s->batch_max ? thread_index(s, x->pid, x->tid) : UINT32_MAX;
	if (t == UINT32_MAX) {
		if ((rc = batch_flush(s)) < 0)
			return rc;
		t = thread_index(s, x->pid, x->tid);
	}
	if (s->nrows == 0 && s->frames_in_block == 0)
		s->block_start_ns = pla_now_ns();
	s->rows[s->nrows++] = (struct pl_batch_row){
		.thread = t,
		.stack_id = id,
		.event = x->event,
		.cpu = x->cpu,
		.cpumode = x->cpumode,
		.time = x->time,
		.ip = x->ip,
		.ip_base = pl_batch_ip_base(x->callchain, x->nr_callchain),
		.period = x->period,
	};
	return 0;
}

static uint64_t chain_hash(const uint64_t *v, uint32_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a over the entries */
	for (uint32_t i = 0; i < n; i++) {
		h ^= v[i];
		h *= 1099511628211ull;
	}
	return h ^ n;
}

/* Fills m as a STACK_DELTA of chain v (n entries) from the recent
 * definition that shares most entries with it at its two ends, or as a
 * plain STACK when none shares two.  Samples of one thread differ mostly
 * at the leaf, so a new chain usually costs its first entry or two. */
static void stack_frame(const struct pla_stream *s, struct pl_msg *m, uint32_t id,
			const uint64_t *v, uint32_t n, int batched)
{
	/* the best base so far: none (an empty chain, id 0) until one keeps two */
	const uint64_t *base = NULL;
	uint32_t base_nr = 0, base_id = 0, head = 0, tail = 0;
	uint64_t near = UINT64_MAX;
	for (uint32_t k = 0; k < s->nrecent; k++) {
		uint32_t i = s->recent[(s->recent_next + PLA_STACK_RECENT - 1 - k) % PLA_STACK_RECENT];
		const uint64_t *b = s->chains + (size_t)i * PLA_STACK_DEPTH;
		uint32_t bn = s->slots[i].nr, most = bn < n ? bn : n, h = 0, t = 0;
		while (h < most && b[h] == v[h])
			h++;
		while (t < most - h && b[bn - 1 - t] == v[n - 1 - t])
			t++;
		/* among bases that keep as much, the one whose first replaced
		 * entry is nearest: a new leaf in a hot loop then differs from
		 * a neighbouring instruction's by a byte, not two */
		uint64_t gap = h < most ? (b[h] > v[h] ? b[h] - v[h] : v[h] - b[h]) : 0;
		if (h + t >= 2 && (h + t > head + tail || (h + t == head + tail && gap < near))) {
			base = b, base_nr = bn, base_id = s->slots[i].id;
			head = h, tail = t, near = gap;
		}
	}
	if (!base && !batched) {
		m->type = PL_MSG_STACK;
		m->u.stack.id = id;
		m->u.stack.nr = n;
		memcpy(m->u.stack.chain, v, n * sizeof(uint64_t));
		return;
	}
	/* with no base (a DEFS entry), every entry is predicted by the one before */
	struct pl_msg_stack_delta *d = &m->u.stack_delta;
	m->type = PL_MSG_STACK_DELTA;
	d->id = id;
	d->base = base_id;
	d->head = head;
	d->drop = base_nr - head - tail;
	d->nr = n - head - tail;
	for (uint32_t i = 0; i < d->nr; i++)
		d->diff[i] = v[head + i] - pl_stack_delta_guess(base, v, head, d->drop, i);
}

/* Returns the stack id (1 .. PLA_STACK_SLOTS) of this chain, defining it first if
 * needed; 0 when the chain is not interned (too short or too deep).  batched:
 * the sample goes into the pending batch, whose DEFS column then defines a
 * new chain (unless the column could never hold it: a frame does). */
static uint32_t intern(struct pla_stream *s, const struct pl_msg_sample *x, int batched,
		       int *rc)
{
	*rc = 0;
	if (x->nr_callchain < 2 || x->nr_callchain > PLA_STACK_DEPTH)
		return 0;
	int in_defs = batched && PL_BATCH_DEF_MAX(x->nr_callchain) <= s->defs_cap;
	uint64_t h = chain_hash(x->callchain, x->nr_callchain);
	uint32_t slot = (uint32_t)(h % PLA_STACK_SLOTS);
	uint64_t *stored = s->chains + (size_t)slot * PLA_STACK_DEPTH;
	struct pla_stack_slot *sl = &s->slots[slot];
	if (sl->nr == x->nr_callchain && sl->hash == h &&
	    !memcmp(stored, x->callchain, x->nr_callchain * sizeof(uint64_t))) {
		/* a SAMPLE frame must not come before the batch defining its stack */
		if (!batched && sl->gen == s->batch_gen && (*rc = batch_flush(s)) < 0)
			return 0;
		return sl->id;
	}
	/* pending rows may name the slot's old chain, and a frame's definition
	 * may take a base whose own is pending: they go out first */
	if ((sl->nr || (!in_defs && pl_w_len(&s->defs_w))) && (*rc = batch_flush(s)) < 0)
		return 0;
	/* make room first: a flush may drop the block and forget every id,
	 * and the id must be chosen after that */
	if (in_defs) {
		if (pl_w_room(&s->defs_w) < PL_BATCH_DEF_MAX(x->nr_callchain) &&
		    (*rc = batch_flush(s)) < 0)
			return 0;
	} else if (pl_w_room(&s->enc.w) < PL_FRAME_HEADER_SIZE + 16 + (size_t)x->nr_callchain * 10 &&
		   (*rc = pla_stream_flush(s)) < 0) {
		return 0;
	}
	/* ids in order of first use, not of slot: the stacks that recur
	 * most are met first, and small ids are one-byte varints */
	uint32_t id = sl->nr ? sl->id : ++s->next_stack_id;
	struct pl_msg *d = s->stack_msg;
	stack_frame(s, d, id, x->callchain, x->nr_callchain, in_defs);
	if (in_defs)
		pl_batch_def_put(&s->defs_w, &s->defs_prev_id, &d->u.stack_delta);
	else if ((*rc = encode(s, d)) < 0)
		return 0;
	sl->gen = in_defs ? s->batch_gen : 0;
	memcpy(stored, x->callchain, x->nr_callchain * sizeof(uint64_t));
	sl->nr = x->nr_callchain;
	sl->hash = h;
	sl->id = id;
	s->stacks_defined++;
	s->stacks_delta += d->type == PL_MSG_STACK_DELTA && d->u.stack_delta.base;
	s->recent[s->recent_next] = (uint16_t)slot;
	s->recent_next = (s->recent_next + 1) % PLA_STACK_RECENT;
	if (s->nrecent < PLA_STACK_RECENT)
		s->nrecent++;
	return id;
}

static int put_sample(struct pla_stream *s, struct pl_msg *m)
{
	struct pl_msg_sample *x = &m->u.sample;
	uint64_t t = x->time;
	uint32_t nr = x->nr_callchain;
	uint64_t defined_before = s->stacks_defined;
	int rc = 0;
	/* (x->flags is the wire's business, set below: not an input) */
	if (!x->regs_abi && !x->nr_regs && !x->stack_size && !x->stack_requested && !x->raw_size &&
	    x->event < 32 && (s->coarse_events >> x->event & 1)) {
		uint32_t id = intern(s, x, 1, &rc);
		if (rc < 0)
			return rc;
		if (id || nr == 0) {
			if (id && s->stacks_defined == defined_before)
				s->stacks_reused++;
			return batch_add(s, x, id);
		}
		defined_before = s->stacks_defined;
	}
	/* A SAMPLE frame (a context-switch sample, a dwarf stack copy) may
	 * overtake the held rows: samples were never in time order on the
	 * wire (rings of different CPUs interleave), time deltas follow the
	 * order written, and flushing here would cut the batch at every
	 * context switch. */
	/* Twice at most: if the sample does not fit, the block is flushed and
	 * the sample becomes the first of the next one (absolute time), and
	 * its stack is looked up again, since a dropped block forgets them. */
	for (int attempt = 0; attempt < 2; attempt++) {
		x->nr_callchain = nr;
		uint32_t id = intern(s, x, 0, &rc);
		if (rc < 0)
			break;
		x->stack_id = id;
		if (id)
			x->nr_callchain = 0;
		int first = s->samples_in_block == 0;
		x->flags = first ? 0 : PL_SAMPLE_TIME_DELTA;
		x->time = first ? t : t - s->prev_time;
		size_t before = pl_w_len(&s->enc.w);
		rc = pl_msg_encode(&s->enc.w, m);
		if (rc != -ENOBUFS || before == 0)
			break;
		if ((rc = pla_stream_flush(s)) < 0)
			break;
		rc = -ENOBUFS;
	}
	uint64_t defined = s->stacks_defined;
	x->time = t;
	x->nr_callchain = nr;
	x->flags = 0;
	if (rc < 0) {
		x->stack_id = 0;
		return rc;
	}
	if (x->stack_id && defined == defined_before)
		s->stacks_reused++;
	x->stack_id = 0;
	if (s->frames_in_block++ == 0)
		s->block_start_ns = pla_now_ns();
	s->frames++;
	s->samples_in_block++;
	s->prev_time = t;
	return 0;
}

static int put(struct pla_stream *s, struct pl_msg *m)
{
	if (m->type == PL_MSG_SAMPLE)
		return put_sample(s, m);
	/* Held samples go out before the side band, in order, except before
	 * records that carry their own time or totals and that no sample
	 * depends on: SWITCH (every context switch; readers order it and
	 * samples by time), and the periodic HEALTH and COUNTERS and the
	 * LOST / THROTTLE reports.  Cutting the batch at each of those cost a
	 * batch header (thread table, column lengths, base time) per second. */
	int rc = 0;
	switch (m->type) {
	case PL_MSG_SWITCH:
	case PL_MSG_HEALTH:
	case PL_MSG_COUNTERS:
	case PL_MSG_LOST:
	case PL_MSG_THROTTLE:
		break;
	default:
		rc = batch_flush(s);
	}
	return rc < 0 ? rc : encode(s, m);
}

/* Puts a LOST(BACKPRESSURE) for the samples dropped so far. */
static void report_drops(struct pla_stream *s)
{
	s->lost_msg->type = PL_MSG_LOST;
	s->lost_msg->u.lost = (struct pl_msg_lost){ PL_LOST_BACKPRESSURE, 0, pla_now_ns(),
						     s->pending_drop_report };
	if (put(s, s->lost_msg) == 0) {
		s->reported_in_block += s->pending_drop_report;
		s->pending_drop_report = 0;
	}
}

int pla_stream_msg(struct pla_stream *s, struct pl_msg *m)
{
	if (s->dead)
		return s->dead;
	if (!pla_stream_open(s))
		return -ENOTCONN;
	if (s->tap)
		s->tap->see(s->tap->ctx, m);
	if (s->pending_drop_report && m->type == PL_MSG_SAMPLE)
		report_drops(s);
	return put(s, m);
}

int pla_stream_pump(struct pla_stream *s)
{
	if (!s->is_socket || s->dead)
		return s->dead;
	while (s->qlen) {
		size_t first = s->qcap - s->qstart < s->qlen ? s->qcap - s->qstart : s->qlen;
		ssize_t w = send(s->fd, s->queue + s->qstart, first, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno == ENOTSOCK) /* --stdio's pipe: non-blocking, SIGPIPE ignored */
			w = write(s->fd, s->queue + s->qstart, first);
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
	/* the network caught up: tell the viewer what it missed, now */
	if (s->pending_drop_report && pla_stream_open(s)) {
		report_drops(s);
		return pla_stream_flush(s);
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

int pla_stream_log(struct pla_stream *s, struct pl_msg *m, uint8_t level, const char *text)
{
	m->type = PL_MSG_LOG;
	m->u.log = (struct pl_msg_log){ level, pl_str_c(text) };
	return pla_stream_msg(s, m);
}
