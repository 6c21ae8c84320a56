/* ring.c — perf ring protocol; see ring.h. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "util.h"

#define SCRATCH_SIZE 65536 /* perf_event_header.size is a u16 */

/* The only two memory barriers.  The kernel writes records, then
 * data_head (release); we must see data_head before reading the records it
 * covers (acquire).  We must finish reading before publishing data_tail
 * (release), or the kernel could overwrite what we are still reading. */
static inline uint64_t load_head(const struct perf_event_mmap_page *pc)
{
	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}
static inline void store_tail(struct perf_event_mmap_page *pc, uint64_t tail)
{
	__atomic_store_n(&pc->data_tail, tail, __ATOMIC_RELEASE);
}

int pla_ring_map(struct pla_ring *r, int fd, int cpu, size_t data_pages)
{
	long page = pla_page_size();
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->cpu = cpu;
	if (data_pages == 0 || (data_pages & (data_pages - 1)))
		return -EINVAL;
	r->scratch = malloc(SCRATCH_SIZE);
	if (!r->scratch)
		return -ENOMEM;
	void *base = mmap(NULL, (data_pages + 1) * (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 0);
	if (base == MAP_FAILED) {
		int e = -errno;
		free(r->scratch);
		r->scratch = NULL;
		return e;
	}
	r->base = base;
	r->pages = data_pages;
	r->mask = data_pages * (size_t)page - 1;
	return 0;
}

void pla_ring_unmap(struct pla_ring *r)
{
	if (r->base)
		munmap(r->base, (r->pages + 1) * (size_t)pla_page_size());
	free(r->scratch);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

size_t pla_ring_start(struct pla_ring *r)
{
	struct perf_event_mmap_page *pc = r->base;
	r->head = load_head(pc);
	r->tail = r->published = pc->data_tail;
	return (size_t)(r->head - r->tail);
}

const struct perf_event_header *pla_ring_next(struct pla_ring *r)
{
	const uint8_t *data = (const uint8_t *)r->base + pla_page_size();
	size_t size = r->mask + 1;
	if (r->head - r->tail < sizeof(struct perf_event_header))
		return NULL;
	size_t off = r->tail & r->mask;
	const struct perf_event_header *h = (const void *)(data + off);
	struct perf_event_header hh;
	/* the header itself may wrap */
	if (off + sizeof(hh) > size) {
		size_t first = size - off;
		memcpy(&hh, data + off, first);
		memcpy((uint8_t *)&hh + first, data, sizeof(hh) - first);
	} else {
		hh = *h;
	}
	if (hh.size < sizeof(hh) || hh.size > r->head - r->tail) {
		/* a corrupt ring cannot be resynchronised: drop the rest of this pass */
		r->tail = r->head;
		return NULL;
	}
	if (off + hh.size > size) {
		size_t first = size - off;
		memcpy(r->scratch, data + off, first);
		memcpy(r->scratch + first, data, hh.size - first);
		h = (const void *)r->scratch;
	}
	r->tail += hh.size;
	return h;
}

void pla_ring_unread(struct pla_ring *r, const struct perf_event_header *h)
{
	r->tail -= h->size;
}

void pla_ring_end(struct pla_ring *r)
{
	store_tail(r->base, r->tail);
	r->published = r->tail;
}

void pla_ring_release(struct pla_ring *r)
{
	if (r->tail - r->published > (r->mask >> 3))
		pla_ring_end(r);
}

uint64_t pla_ring_discard(struct pla_ring *r)
{
	uint64_t samples = 0;
	const struct perf_event_header *h;
	if (!r->base || !pla_ring_start(r))
		return 0;
	while ((h = pla_ring_next(r)))
		samples += h->type == PERF_RECORD_SAMPLE;
	pla_ring_end(r);
	return samples;
}
