/* batch.h — the columns of a SAMPLE_BATCH (layout in msg.h).
 *
 * The agent fills rows and a thread table in its own fixed arrays and
 * builds the column bytes into a caller-owned buffer (no allocation); the
 * reader walks them row by row with an iterator that lives in the reader
 * (no allocation either).  Both sides compute the same predictions (time
 * delta of delta, period delta, ip from the stack) from the same state, so
 * they are defined once, here.
 */
#ifndef PL_BATCH_H
#define PL_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "msg.h"

enum pl_batch_col {
	PL_BATCH_THREAD,
	PL_BATCH_TIME,
	PL_BATCH_STACK,
	PL_BATCH_IP,
	PL_BATCH_PERIOD,
	PL_BATCH_EVENT,
	PL_BATCH_CPU,
	PL_BATCH_CPUMODE,
	PL_BATCH_COLS,
	PL_BATCH_DEFS = PL_BATCH_COLS /* the stack definitions column (protocol 4) */
};

/* data starts with these flags */
enum pl_batch_flags {
	PL_BATCH_TIME_PERIOD = 1u << 0, /* TIME predicts the interval by the period, not
					 * by the previous interval */
	PL_BATCH_TIME_US = 1u << 1,     /* TIME counts µs: times are truncated to µs */
	PL_BATCH_NO_LENS = 1u << 2,     /* no column lengths: each column is count varints,
					 * DEFS (the last) its own count's worth (msg.h) */
};

struct pl_batch_thread {
	uint32_t pid, tid;
};

struct pl_batch_row {
	uint32_t thread; /* index into the thread table */
	uint32_t stack_id;
	uint32_t event;
	uint32_t cpu;
	uint8_t cpumode;
	uint64_t time;
	uint64_t ip;
	uint64_t ip_base; /* pl_batch_ip_base() of the row's call chain */
	uint64_t period;
};

/* The first entry of a call chain that is not a context marker
 * (PERF_CONTEXT_*, ≥ (u64)-4095), or 0: what a sample's ip usually is. */
static inline uint64_t pl_batch_ip_base(const uint64_t *chain, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (chain[i] < (uint64_t)-4095)
			return chain[i];
	return 0;
}

/* Writes the `data` of a SAMPLE_BATCH for rows[0..n) into out (cap bytes),
 * with defs[0..defs_len) (pl_batch_def_put) as its DEFS column when
 * defs_len > 0.  flags: PL_BATCH_TIME_US or 0 (the predictor is chosen
 * here).  Returns its length, or 0 if it does not fit or a row names a
 * thread index ≥ nthreads.  n ≤ PL_MAX_BATCH, nthreads ≤
 * PL_MAX_BATCH_THREADS. */
size_t pl_batch_build(uint8_t *out, size_t cap, const struct pl_batch_thread *threads,
		      uint32_t nthreads, const struct pl_batch_row *rows, uint32_t n,
		      uint64_t base_time, uint32_t flags, const uint8_t *defs, size_t defs_len);

/* Appends one stack definition (a STACK_DELTA; base 0: none, the entries
 * then predicted by the previous one) to the definitions of a batch being
 * held, which pl_batch_build lays out as its DEFS column; *prev_id is the
 * id defined before it (0 at the batch's start).  The bytes, one definition
 * after another (pl_batch_build transposes them, msg.h): id - prev_id - 1
 * (zig-zag), base as 0 or zig-zag(id - base) + 1, head, drop, nr, then nr
 * zig-zag differences: the next id and a recent base cost a byte each.
 * Worst case PL_BATCH_DEF_MAX(nr) bytes. */
#define PL_BATCH_DEF_MAX(nr) (5 * 10 + (size_t)(nr) * 10)
#define PL_BATCH_DEF_FIELDS 5 /* id, base, head, drop, nr: each a column of its own (msg.h) */
void pl_batch_def_put(struct pl_writer *w, uint32_t *prev_id, const struct pl_msg_stack_delta *d);

/* Walks a decoded SAMPLE_BATCH.  The columns borrow the batch's bytes. */
struct pl_batch_iter {
	uint32_t left; /* rows still to read */
	uint32_t flags; /* enum pl_batch_flags */
	uint64_t unit;  /* ns per TIME unit */
	uint32_t nthreads;
	struct pl_cursor col[PL_BATCH_COLS];
	struct pl_batch_thread threads[PL_MAX_BATCH_THREADS];
	uint64_t prev_time[PL_MAX_BATCH_THREADS];
	uint64_t prev_delta[PL_MAX_BATCH_THREADS];
	uint64_t prev_period[PL_MAX_BATCH_THREADS];
	uint32_t defs_left;           /* definitions of the DEFS column still to read */
	struct pl_cursor def_col[PL_BATCH_DEF_FIELDS + 1]; /* its fields, then the differences */
	uint32_t defs_prev_id;
};
/* Returns 0 or -EBADMSG / -E2BIG with a reason in err. */
int pl_batch_iter_init(struct pl_batch_iter *it, const struct pl_msg_sample_batch *b, char *err,
		       size_t errlen);
/* The next definition of the DEFS column into *d, which the reader applies
 * (pl_stack_delta_apply) before any row: 1, 0 at the end, or -EBADMSG /
 * -E2BIG with a reason in err. */
int pl_batch_iter_next_def(struct pl_batch_iter *it, struct pl_msg_stack_delta *d, char *err,
			   size_t errlen);
/* Fills the next row into s (event pid tid time stack_id cpu cpumode period;
 * ip = *ip_delta + the ip base of the stack, which the caller resolves; the
 * rest zero).  Returns 1, 0 at the end, or -EBADMSG with a reason in err. */
int pl_batch_iter_next(struct pl_batch_iter *it, struct pl_msg_sample *s, int64_t *ip_delta,
		       char *err, size_t errlen);

#endif
