/* stream.h — the agent's outgoing stream: frames → blocks → a socket or
 * a file.
 *
 * Frames are encoded into the block encoder's buffer (no allocation); a
 * block is finished when full or when it is older than the flush interval,
 * then queued.  For a socket the queue is a fixed byte ring drained with
 * non-blocking writes: when a finished block does not fit, it is dropped
 * and its frames counted, never blocking the drain of the kernel's rings;
 * the loss travels to the viewer in a LOST(BACKPRESSURE) frame.  For a
 * file, writes are blocking (the disk is the only consumer).
 *
 * SAMPLEs are compacted on the way (msg.h): call chains are interned in a
 * fixed table of PLA_STACK_SLOTS chains (defined once, named by id after
 * that; a chain that shares entries at either end with one of the last
 * PLA_STACK_RECENT definitions is defined as a delta from it), and times
 * are deltas within a block.  A batched sample's new chain is defined in
 * its batch's DEFS column, any other's by a STACK or STACK_DELTA frame.
 * Plain samples (interned stack or none, no registers or stack copy) are
 * held back in a fixed row array and go out as one SAMPLE_BATCH when a
 * message other than a sample is sent, the array fills, or the block
 * closes; the rest go out as SAMPLE frames (which may overtake held rows).
 * The table is forgotten whenever the viewer could miss a definition: a
 * dropped block, a new connection, a new session.  So is the zstd history:
 * compressed blocks form one zstd frame (block.h), restarted at the same
 * points.
 */
#ifndef PLA_STREAM_H
#define PLA_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "block.h"
#include "msg.h"

#define PLA_STACK_SLOTS 1024
#define PLA_STACK_DEPTH 64 /* longer chains are sent inline */
#define PLA_STACK_RECENT 32 /* definitions a new chain is compared with (STACK_DELTA) */
#define PLA_BATCH_ROWS 1024 /* samples held for one SAMPLE_BATCH */
#define PLA_BATCH_THREADS 64
#define PLA_BATCH_BYTES (PLA_BATCH_ROWS * 48 + PLA_BATCH_THREADS * 10 + 64) /* worst case */
#define PLA_DEFS_BYTES 16384 /* stack definitions held for one batch's DEFS column */

struct pla_stack_slot {
	uint64_t hash;
	uint32_t nr;  /* 0: empty */
	uint32_t id;  /* on the wire: 1.. in order of definition (≤ PLA_STACK_SLOTS) */
	uint32_t gen; /* == batch_gen: defined in the pending batch's DEFS column */
};

/* Where a stream's blocks go instead of fd (the flight recorder's ring,
 * flight.h), and who sees every message before it is encoded (its
 * triggers).  Called on the drain path: neither may allocate.  block
 * returns 0 or -errno (the stream is then dead). */
struct pla_stream_tap {
	int (*block)(void *ctx, const uint8_t *p, size_t n);
	void (*see)(void *ctx, const struct pl_msg *m);
	void *ctx;
};

struct pla_stream {
	struct pl_block_enc enc;
	const struct pla_stream_tap *tap; /* NULL: blocks go to fd */
	int fd;
	int is_socket;
	int dead; /* -errno of a failed write: the peer or disk is gone */
	uint8_t *queue;
	size_t qcap, qstart, qlen;
	uint64_t block_start_ns; /* when the current block got its first frame */
	uint32_t frames_in_block, samples_in_block;
	/* statistics, cumulative */
	uint64_t bytes_raw, bytes_sent, frames, dropped_frames, dropped_samples;
	uint64_t pending_drop_report; /* samples dropped, not yet reported */
	uint64_t reported_in_block;   /* drops reported by a LOST in the current block */
	struct pl_msg *lost_msg;
	/* sample compaction */
	struct pla_stack_slot slots[PLA_STACK_SLOTS];
	uint32_t next_stack_id;
	uint64_t *chains; /* PLA_STACK_SLOTS x PLA_STACK_DEPTH */
	struct pl_msg *stack_msg;
	uint16_t recent[PLA_STACK_RECENT]; /* slots of the latest definitions, a ring */
	uint32_t nrecent, recent_next;
	uint64_t prev_time;
	uint64_t stacks_defined, stacks_reused, stacks_delta;
	/* the pending SAMPLE_BATCH */
	struct pl_batch_row *rows;
	uint32_t nrows, nthreads;
	uint32_t batch_max; /* rows whose worst-case batch fits an empty block */
	uint32_t coarse_events; /* bit e: samples of event e are batched, times in µs */
	struct pl_batch_thread threads[PLA_BATCH_THREADS];
	uint8_t *defs; /* the pending batch's stack definitions (pl_batch_def_put) */
	struct pl_writer defs_w;
	size_t defs_cap; /* ≤ PLA_DEFS_BYTES, a quarter of a block */
	uint32_t defs_prev_id;
	uint32_t batch_gen; /* counts batches sent; pla_stack_slot.gen */
	uint8_t *batch_buf; /* PLA_BATCH_BYTES + PLA_DEFS_BYTES: the columns being built */
	struct pl_msg *batch_msg;
	uint64_t batches;
};

/* The largest FILE_CHUNK payload a sender puts in one frame: half of the
 * smallest block a session uses (128 KiB), so that a chunk with its frame
 * header always fits a block (as does the largest SAMPLE: session.c
 * asserts both).  A frame larger than an empty block would be refused
 * with -EMSGSIZE. */
#define PLA_CHUNK_MAX (64u * 1024)

/* queue_cap: bytes of send queue for a socket (ignored for files). */
int pla_stream_init(struct pla_stream *s, size_t block_raw, size_t queue_cap, int zstd_level);
void pla_stream_free(struct pla_stream *s);
/* Attach to fd and write the stream header (none when header_flags is 0:
 * a connection that had it before authenticating).  Resets the queue. */
int pla_stream_attach(struct pla_stream *s, int fd, int is_socket, uint32_t header_flags);
void pla_stream_detach(struct pla_stream *s);
/* Appends one message.  A SAMPLE is compacted in place (its time and call
 * chain fields are rewritten and restored).  Returns 0, or -errno: the
 * stream is dead (a failed write: a file capture is then incomplete), or
 * -EMSGSIZE for a frame no block can hold.  A socket under backpressure
 * drops whole blocks and reports them (LOST); a file never drops: its
 * writes block. */
int pla_stream_msg(struct pla_stream *s, struct pl_msg *m);
/* A LOG line for the user (level: enum pl_log_level), built in m (the
 * caller's scratch message, overwritten).  Returns pla_stream_msg's. */
int pla_stream_log(struct pla_stream *s, struct pl_msg *m, uint8_t level, const char *text);
/* Forgets what a reader joining here could not know: the interned stacks,
 * and the zstd history (the next block starts a new frame).  At a new
 * session, a new peer, after a dropped block and after END. */
void pla_stream_reset_stacks(struct pla_stream *s);
/* Finishes the current block (if any) and queues or writes it. */
int pla_stream_flush(struct pla_stream *s);
/* Flushes if the current block is older than max_age_ns, or older than
 * min_age_ns and holding PLA_FLUSH_SAMPLES samples or PLA_FLUSH_BYTES.
 * Every block costs a 20-byte header and a zstd flush (≈ 30 bytes), which
 * at low sample rates (a few samples per 100 ms) outweighs the samples
 * themselves; sparse blocks therefore wait longer, within the latency goal
 * (p99 sample-to-viewer ≤ 1 s), while busy ones keep the short interval. */
/* 128: a 99 Hz stream of two busy threads (≈ 180 samples/s) is sparse
 * too (with 64 it closed every ≈ 370 ms, twice the blocks), while 999 Hz
 * streams still close every 100–130 ms */
#define PLA_FLUSH_SAMPLES 128
#define PLA_FLUSH_BYTES 8192
int pla_stream_maybe_flush(struct pla_stream *s, uint64_t now_ns, uint64_t min_age_ns,
			   uint64_t max_age_ns);
/* Sends what the queue holds without blocking.  Returns 0 or -errno. */
int pla_stream_pump(struct pla_stream *s);
static inline int pla_stream_wants_write(const struct pla_stream *s)
{
	return s->qlen > 0;
}
/* Blocks (up to timeout_ms) until the queue is empty: before closing. */
int pla_stream_drain(struct pla_stream *s, int timeout_ms);

/* Whether messages go anywhere: a peer, a file or a tap. */
static inline int pla_stream_open(const struct pla_stream *s)
{
	return s->fd >= 0 || s->tap;
}

uint64_t pla_now_ns(void); /* CLOCK_MONOTONIC, the clock of every timestamp */

#endif
