/* ring.h — reading a perf mmap ring buffer.
 *
 * The protocol, as in the kernel's tools/lib/perf/mmap.c: start (load the
 * head with acquire semantics), read records between tail and head, end
 * (store the tail with release semantics so the kernel may reuse the
 * space).  The two barriers live in ring.c and nowhere else.  A record
 * that wraps the end of the buffer is copied into the ring's own scratch
 * buffer, so callers always see a contiguous record.  No allocation after
 * pla_ring_map().
 */
#ifndef PLA_RING_H
#define PLA_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct pla_ring {
	int fd;
	int cpu;
	void *base;   /* metadata page + data pages */
	size_t pages; /* data pages (power of two) */
	size_t mask;  /* data size - 1 */
	uint64_t head, tail;
	uint64_t published; /* the tail as the kernel last saw it */
	uint8_t *scratch; /* for wrapped records, 64 KiB (max record size) */
};

/* Maps 1 + data_pages pages of fd.  Returns 0 or -errno. */
int pla_ring_map(struct pla_ring *r, int fd, int cpu, size_t data_pages);
void pla_ring_unmap(struct pla_ring *r);

/* Starts a read pass: snapshots head.  Returns bytes available. */
size_t pla_ring_start(struct pla_ring *r);
/* Next record of this pass, or NULL when the pass is done.  The pointer is
 * valid until the next call. */
const struct perf_event_header *pla_ring_next(struct pla_ring *r);
/* Leaves h, the record pla_ring_next returned last, in the ring: the
 * next call returns it again, or, after pla_ring_end, the next pass. */
void pla_ring_unread(struct pla_ring *r, const struct perf_event_header *h);
/* Ends the pass: hands the space back to the kernel.  May be called
 * within a pass too, after a record is done with: the space read so far
 * goes back at once, and the pass goes on (pla_ring_unread may then not
 * step back over it). */
void pla_ring_end(struct pla_ring *r);
/* Within a pass, once the records read so far are done with: hands their
 * space back when it is an eighth of the ring or more, so that a long
 * pass (a full ring of DWARF samples to compress) does not hold the
 * kernel off the whole ring until it ends. */
void pla_ring_release(struct pla_ring *r);
/* Empties the ring, unread: for records taken before a session began.
 * Returns how many of them were samples. */
uint64_t pla_ring_discard(struct pla_ring *r);

#endif
