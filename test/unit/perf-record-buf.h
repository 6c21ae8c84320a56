/* perf-record-buf.h — kernel ring records built byte by byte for the unit
 * tests of the agent's record parsing (lbr-test, ring-drain-test): the
 * fields are appended in the order perf_event_open(2) documents for the
 * sample_type at hand, and the header's size is written last. */
#ifndef PL_PERF_RECORD_BUF_H
#define PL_PERF_RECORD_BUF_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "pl-test.h"

struct recbuf {
	uint8_t b[4096];
	size_t n;
};

static inline void put(struct recbuf *r, const void *p, size_t n)
{
	PL_CHECK(r->n + n <= sizeof(r->b));
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static inline void put64(struct recbuf *r, uint64_t v)
{
	put(r, &v, 8);
}

static inline void put32(struct recbuf *r, uint32_t v)
{
	put(r, &v, 4);
}

/* Writes the record's length into its header (records are 8-byte
 * multiples in the ring) and returns the header. */
static inline struct perf_event_header *rec_finish(struct recbuf *r)
{
	PL_CHECK(r->n % 8 == 0 && r->n >= sizeof(struct perf_event_header));
	struct perf_event_header *h = (struct perf_event_header *)r->b;
	h->size = (uint16_t)r->n;
	return h;
}

#endif
