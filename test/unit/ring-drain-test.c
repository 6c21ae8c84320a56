/* ring-drain-test.c — the agent's drain (agent/collect.c, pla_collect_drain)
 * over a real mmap'd ring (agent/ring.c) written as the kernel lays it
 * out, its output read back through the capture reader.
 *
 * The kernel does not write a malformed record on purpose, so the ring is
 * a memfd mapped by pla_ring_map itself: one metadata page (struct
 * perf_event_mmap_page: the kernel advances data_head, the agent
 * data_tail) and a power-of-two data area right after it, where records
 * follow each other modulo its size, a record that reaches the end going
 * on at its start (include/uapi/linux/perf_event.h).  Each record here is
 * built byte by byte in that layout, in the host's byte order, and
 * data_head is stored with release semantics after it, as the kernel
 * does.  The cases:
 *   malformed_record_counted      a sample whose call chain claims more
 *                                 entries than the record holds, between
 *                                 two good records (one of them wrapping
 *                                 the end of the ring), is skipped,
 *                                 counted, and told as a LOST frame of
 *                                 kind PL_LOST_MALFORMED; the good ones
 *                                 go out, and the whole ring is consumed;
 *   newer_records_left_for_later  in a session timing system calls (merged
 *                                 by time) a record stamped after the
 *                                 drain began is left in the ring
 *                                 (pla_ring_unread): data_tail stops
 *                                 before it, and the next drain takes it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collect-private.h"
#include "perf-record-buf.h"
#include "pl-test.h"
#include "reader.h"
#include "stream.h"
#include "util.h"

#define ID 7 /* the sample id of event 0 */
#define TYPE                                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |          \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* ─── a record, byte by byte (perf-record-buf.h) ─────────────────────── */

/* A sample in TYPE's order; its call chain's nr field says nr_field while
 * nchain entries are really written. */
static void sample_rec(struct recbuf *r, uint64_t ip, const uint64_t *chain, uint64_t nchain,
		       uint64_t nr_field)
{
	r->n = 0;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	put(r, &h, sizeof(h));
	put64(r, ID);            /* PERF_SAMPLE_IDENTIFIER */
	put64(r, ip);            /* PERF_SAMPLE_IP */
	put32(r, 4242);          /* PERF_SAMPLE_TID: pid */
	put32(r, 4243);          /*                  tid */
	put64(r, 1000000123ull); /* PERF_SAMPLE_TIME */
	put32(r, 0);             /* PERF_SAMPLE_CPU: cpu */
	put32(r, 0);             /*                  res */
	put64(r, 250000);        /* PERF_SAMPLE_PERIOD */
	put64(r, nr_field);      /* PERF_SAMPLE_CALLCHAIN: nr, ips[nr] */
	for (uint64_t i = 0; i < nchain; i++)
		put64(r, chain[i]);
	(void)rec_finish(r);
}

/* A PERF_RECORD_COMM with its sample_id trailer (sample_id_all: TID TIME
 * CPU IDENTIFIER, as TYPE asks). */
static void comm_rec(struct recbuf *r, uint32_t tid, const char *name, uint64_t time)
{
	r->n = 0;
	struct perf_event_header h = { PERF_RECORD_COMM, 0, 0 };
	put(r, &h, sizeof(h));
	put32(r, 4242);
	put32(r, tid);
	char comm[16] = "";
	strncpy(comm, name, sizeof(comm) - 1);
	put(r, comm, sizeof(comm)); /* NUL-padded to 8 bytes */
	put32(r, 4242);             /* trailer: pid, tid */
	put32(r, tid);
	put64(r, time); /*          time */
	put32(r, 0);    /*          cpu, res */
	put32(r, 0);
	put64(r, ID); /*            identifier */
	(void)rec_finish(r);
}

/* ─── the ring, as the kernel writes it ───────────────────────────────── */

static struct pla_collector col;
static int ring_fd = -1;

static struct perf_event_mmap_page *meta(void)
{
	return col.rings[0].base;
}
static size_t data_size(void)
{
	return col.rings[0].mask + 1;
}

/* A collector as events.c leaves it: event 0 sampled, its id mapped, one
 * one-page ring whose head and tail both start at `at` bytes. */
static void collector_init(uint64_t at)
{
	memset(&col, 0, sizeof(col));
	col.nevents = 1;
	col.desc[0].role = PL_ROLE_SAMPLED;
	col.sample_type = col.event_sample_type[0] = TYPE;
	static struct pla_id_map ids[1] = { { ID, 0 } };
	col.ids = ids;
	col.nids = col.ids_cap = 1;
	long page = pla_page_size();
	ring_fd = memfd_create("pl-ring-drain-test", MFD_CLOEXEC);
	PL_CHECK(ring_fd >= 0);
	PL_CHECK(ftruncate(ring_fd, 2 * page) == 0);
	PL_CHECK(pla_ring_map(&col.rings[0], ring_fd, 0, 1) == 0);
	col.nrings = 1;
	meta()->data_head = meta()->data_tail = at;
}

static void collector_free(void)
{
	pla_ring_unmap(&col.rings[0]);
	close(ring_fd);
	free(col.sys);
	col.sys = NULL;
}

/* Appends one record at data_head, wrapping at the end of the data area,
 * then publishes the new head. */
static void kernel_write(const struct recbuf *r)
{
	uint8_t *data = (uint8_t *)col.rings[0].base + pla_page_size();
	uint64_t head = meta()->data_head;
	PL_CHECK(head + r->n - meta()->data_tail <= data_size());
	for (size_t i = 0; i < r->n; i++)
		data[(head + i) & col.rings[0].mask] = r->b[i];
	__atomic_store_n(&meta()->data_head, head + r->n, __ATOMIC_RELEASE);
}

/* ─── the drain, its output read back ─────────────────────────────────── */

struct drained {
	int rc;
	unsigned samples, comms, lost_frames;
	struct pl_msg_lost lost;
	uint64_t first_ip, chain[4];
	uint32_t nchain;
	char comm[16];
};

static void drain(struct drained *d)
{
	char path[] = "/tmp/pl-ring-drain-test-XXXXXX";
	int fd = mkstemp(path);
	PL_CHECK(fd >= 0);
	struct pla_stream st;
	PL_CHECK(pla_stream_init(&st, 65536, 16, 1) == 0);
	PL_CHECK(pla_stream_attach(&st, fd, 0, PL_STREAM_CAPTURE) == 0);
	memset(d, 0, sizeof(*d));
	d->rc = pla_collect_drain(&col, &st);
	PL_CHECK(pla_stream_flush(&st) == 0);
	pla_stream_free(&st);
	close(fd);

	struct pl_reader rd;
	pl_reader_init(&rd, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	static uint8_t buf[1 << 16];
	int in = open(path, O_RDONLY);
	ssize_t n = read(in, buf, sizeof(buf));
	close(in);
	unlink(path);
	PL_CHECK(n >= 0);
	PL_CHECK(n == 0 || pl_reader_feed(&rd, buf, (size_t)n) == 0);
	struct pl_msg m;
	int r;
	while ((r = pl_reader_next(&rd, &m)) == 1) {
		if (m.type == PL_MSG_SAMPLE && d->samples++ == 0) {
			d->first_ip = m.u.sample.ip;
			d->nchain = m.u.sample.nr_callchain < 4 ? m.u.sample.nr_callchain : 4;
			memcpy(d->chain, m.u.sample.callchain, d->nchain * 8);
		} else if (m.type == PL_MSG_COMM) {
			if (d->comms++ == 0)
				snprintf(d->comm, sizeof(d->comm), "%.*s", (int)m.u.comm.comm.len,
					 m.u.comm.comm.p);
		} else if (m.type == PL_MSG_LOST) {
			d->lost_frames++;
			d->lost = m.u.lost;
		}
	}
	PL_CHECKF(r == 0, "%s", pl_reader_error(&rd));
	pl_reader_free(&rd);
}

/* ─── cases ───────────────────────────────────────────────────────────── */

static void test_malformed_record_counted(void)
{
	/* start 56 bytes before the end: the first record (a 72-byte sample)
	 * wraps it, as the kernel writes a record that does not fit */
	collector_init(0);
	PL_CHECK(data_size() == (size_t)pla_page_size());
	meta()->data_head = meta()->data_tail = 3 * data_size() - 56;
	uint64_t chain[] = { PERF_CONTEXT_USER, 0x401234, 0x401180 };
	struct recbuf r;
	sample_rec(&r, 0x401234, chain, 3, 3);
	kernel_write(&r);
	sample_rec(&r, 0x401234, chain, 3, 1000); /* claims 1000 entries: malformed */
	kernel_write(&r);
	comm_rec(&r, 4243, "worker", 1000000200ull);
	kernel_write(&r);

	struct drained d;
	drain(&d);
	PL_CHECKF(d.rc == 3, "drain returned %d, want the 3 records read", d.rc);
	PL_CHECKF(d.samples == 1, "%u samples out, want the good one", d.samples);
	PL_CHECK(d.first_ip == 0x401234 && d.nchain == 3 && d.chain[0] == PERF_CONTEXT_USER &&
		 d.chain[1] == 0x401234 && d.chain[2] == 0x401180);
	PL_CHECKF(d.comms == 1 && !strcmp(d.comm, "worker"), "%u COMM, name '%s'", d.comms, d.comm);
	PL_CHECKF(d.lost_frames == 1, "%u LOST frames, want 1", d.lost_frames);
	PL_CHECKF(d.lost.kind == PL_LOST_MALFORMED && d.lost.count == 1 && d.lost.cpu == 0,
		  "LOST kind %u count %llu cpu %u, want kind %u count 1 cpu 0", d.lost.kind,
		  (unsigned long long)d.lost.count, d.lost.cpu, PL_LOST_MALFORMED);
	PL_CHECKF(meta()->data_tail == meta()->data_head, "tail %llu, head %llu: ring not consumed",
		  (unsigned long long)meta()->data_tail, (unsigned long long)meta()->data_head);

	/* a drain with nothing malformed tells no loss */
	comm_rec(&r, 4244, "second", 1000000300ull);
	kernel_write(&r);
	drain(&d);
	PL_CHECK(d.rc == 1 && d.comms == 1 && d.lost_frames == 0);
	collector_free();
}

static void test_newer_records_left_for_later(void)
{
	collector_init(0);
	/* a slow-call session (syscalls.c) whose event is not among these
	 * records: the drain merges by time and stops at its own start */
	col.sys = calloc(1, sizeof(*col.sys));
	PL_CHECK(col.sys != NULL);
	col.sys->event = 99;
	col.sys->mono = 1;
	struct recbuf r;
	comm_rec(&r, 4243, "old", 1);
	kernel_write(&r);
	uint64_t second = meta()->data_head;
	comm_rec(&r, 4244, "future", UINT64_MAX - 1);
	kernel_write(&r);

	struct drained d;
	drain(&d);
	PL_CHECKF(d.rc == 1 && d.comms == 1 && !strcmp(d.comm, "old"),
		  "first drain: %d records, %u COMM '%s', want 'old' alone", d.rc, d.comms, d.comm);
	PL_CHECKF(meta()->data_tail == second,
		  "tail %llu after the first drain, want %llu (the newer record left)",
		  (unsigned long long)meta()->data_tail, (unsigned long long)second);

	col.sys->mono = 0; /* the last drain of a session takes every record */
	drain(&d);
	PL_CHECKF(d.rc == 1 && d.comms == 1 && !strcmp(d.comm, "future"),
		  "second drain: %d records, %u COMM '%s', want 'future'", d.rc, d.comms, d.comm);
	PL_CHECK(meta()->data_tail == meta()->data_head);
	PL_CHECK(d.lost_frames == 0);
	collector_free();
}

PL_TEST_MAIN(PL_CASE(test_malformed_record_counted), PL_CASE(test_newer_records_left_for_later))
