/* reader.h — incremental reader of a PerfLens stream (socket or file).
 *
 * Feed it bytes as they arrive; pull decoded messages.  It parses the
 * stream header, then blocks (caps and CRC checked, then decompressed),
 * then frames; frames of unknown type are skipped by length.  Messages
 * borrow the reader's buffers until the next pl_reader_next()/feed().
 *
 * It also undoes the wire's sample compaction (msg.h): STACK and
 * STACK_DELTA frames are kept in a dictionary (at most PL_MAX_STACK_IDS
 * chains) and not returned;
 * SAMPLEs come out with absolute times and their full call chains (unless
 * asked to leave a dictionary chain where it is: pl_reader_set_chains_by_ref), and a
 * SAMPLE_BATCH comes out as its SAMPLEs, one per call (never itself).
 *
 * Errors are final for the stream: once pl_reader_next() returns < 0 it
 * keeps returning that error; the caller closes the connection or stops
 * reading the file (everything before the bad block stays valid).
 * Not thread-safe: one reader per stream.
 */
#ifndef PL_READER_H
#define PL_READER_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "block.h"
#include "msg.h"
#include "wire.h"

/* Called with a block's stored bytes (header and payload, as read) once the
 * block has passed its checks and been decompressed, before any of its
 * frames is returned; also for blocks that yield no message (STACK
 * definitions, frames of unknown type, the tail of a zstd frame), which
 * later blocks depend on.  A copy of the stream made from these calls is a
 * valid capture up to the last good block.  The bytes are valid only during
 * the call. */
typedef void (*pl_reader_block_fn)(const uint8_t *block, size_t len, void *data);

/* A chain of the stack dictionary: its length, and which definition it is
 * (numbered 1, 2, ... as read: an id redefined gets a new number, so the
 * number names one chain for the whole stream). */
struct pl_reader_stack {
	uint64_t def;
	uint32_t len;
};

struct pl_reader {
	uint8_t *buf; /* undecoded input */
	size_t len, cap, max_cap;
	size_t consumed; /* bytes of buf already used */
	int have_header;
	struct pl_stream_header header;
	struct pl_block_dec dec;
	struct pl_cursor frames; /* the current block's remaining frames */
	const uint8_t *block;    /* the current block's bytes as stored (header + payload) */
	size_t block_len;
	pl_reader_block_fn on_block; /* NULL: none */
	void *on_block_data;
	int err;
	char errmsg[160];
	uint64_t blocks;         /* complete blocks read */
	uint64_t bytes;          /* stream bytes consumed (header + complete blocks) */
	uint64_t skipped_frames; /* unknown types */
	uint64_t skipped_blocks; /* continuing a zstd frame whose start was not read */
	uint64_t unresolved_stacks; /* samples naming a stack id never defined */
	/* sample decompaction state */
	uint64_t **stacks; /* PL_MAX_STACK_IDS slots, allocated on first STACK */
	struct pl_reader_stack *stack_info; /* beside stacks */
	uint64_t *chain_tmp; /* PL_MAX_CALLCHAIN entries: a STACK_DELTA being rebuilt */
	struct pl_msg_stack_delta *def_tmp; /* a SAMPLE_BATCH's definition being read */
	uint64_t prev_time; /* of the previous SAMPLE in this block */
	int have_prev_time;
	struct pl_batch_iter *batch; /* the SAMPLE_BATCH being expanded; made on first use */
	uint64_t stack_defs; /* definitions read: the last one's number */
	/* the definition the last SAMPLE's chain is (its number, as in
	 * stack_info), 0 when the chain came whole on the wire or not at all */
	uint64_t chain_def;
	int chains_by_ref; /* pl_reader_set_chains_by_ref */
};

/* max_block bounds the input buffer (header + stored payload of one
 * block); ≤ PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED.  A peer that sends
 * a larger block gets -E2BIG. */
int pl_reader_init(struct pl_reader *r, size_t max_block);
void pl_reader_free(struct pl_reader *r);
/* Appends bytes.  Returns 0 or -ENOMEM. */
int pl_reader_feed(struct pl_reader *r, const void *p, size_t n);
/* Sets (fn NULL: clears) the per-block hook, for the blocks loaded from now
 * on. */
void pl_reader_set_block_hook(struct pl_reader *r, pl_reader_block_fn fn, void *data);
/* 1: *m holds a message; 0: need more bytes; < 0: stream error (see
 * pl_reader_error()). */
int pl_reader_next(struct pl_reader *r, struct pl_msg *m);
const char *pl_reader_error(const struct pl_reader *r);
/* Bytes fed but not yet part of a complete block: at end of file, a torn
 * tail that was ignored. */
size_t pl_reader_pending(const struct pl_reader *r);
/* On (nonzero): a SAMPLE whose chain comes from the stack dictionary gets
 * its nr_callchain but not its callchain, which stays in the dictionary:
 * read it with pl_reader_sample_chain (for a consumer that needs the chain
 * of a definition once, not once per sample). */
static inline void pl_reader_set_chains_by_ref(struct pl_reader *r, int on)
{
	r->chains_by_ref = on;
}
/* The call chain of the SAMPLE pl_reader_next() just returned in s, valid
 * until the next call; pl_reader_chain_def tells which definition of the
 * dictionary it is (0: none, the chain came whole in the sample). */
static inline const uint64_t *pl_reader_sample_chain(const struct pl_reader *r,
						      const struct pl_msg_sample *s)
{
	return r->chain_def ? r->stacks[s->stack_id - 1] : s->callchain;
}
static inline uint64_t pl_reader_chain_def(const struct pl_reader *r)
{
	return r->chain_def;
}
/* The stored bytes of the block the last message came from (to append it
 * verbatim to a capture file), valid until the next call. */
static inline const uint8_t *pl_reader_block(const struct pl_reader *r, size_t *n)
{
	*n = r->block_len;
	return r->block;
}

#endif
