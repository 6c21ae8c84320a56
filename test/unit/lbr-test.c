/* lbr-test.c — LBR call stacks (`--callgraph lbr`) through the agent's real
 * record parser (agent/records.c, pla_on_record) and the conversion both
 * it and the perf.data importer use (common/lbr.c).
 *
 * This machine has no LBR (a VM): every record here is built byte by byte
 * as include/uapi/linux/perf_event.h lays it out — a PERF_RECORD_SAMPLE
 * with sample_type IDENTIFIER IP TID TIME CPU PERIOD CALLCHAIN BRANCH_STACK,
 * in that order; struct perf_branch_entry is 24 bytes (u64 from, u64 to,
 * u64 flags bitfield) — in the host's byte order, as the kernel writes its
 * rings.  What goes out is read back through the capture reader.  The
 * shapes: user only, kernel + user, truncated (the LBR full, fp frames
 * beyond its depth), an empty branch stack, counts larger than the record
 * (refused, nothing read past it: ASan in the SAN=1 build), and an event
 * without the branch stack (the off-CPU sampler) in the same session. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect-private.h"
#include "lbr.h"
#include "pl-test.h"
#include "perf-record-buf.h"
#include "probe.h"
#include "reader.h"
#include "stream.h"

#define KCTX PERF_CONTEXT_KERNEL
#define UCTX PERF_CONTEXT_USER

/* ─── a record, byte by byte (perf-record-buf.h) ─────────────────────── */

struct br {
	uint64_t from, to;
};

/* A sample of event id `id`: header, then the fields in sample_type order;
 * branch stack when nbr >= 0, its nr field set to nr_field (the count the
 * record claims) while nbr entries are really written. */
static struct perf_event_header *sample_rec(struct recbuf *r, uint64_t id, uint16_t misc,
					    uint64_t ip, const uint64_t *chain, uint64_t nchain,
					    uint64_t chain_nr_field, const struct br *br, int nbr,
					    uint64_t nr_field)
{
	r->n = 0;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, misc, 0 };
	put(r, &h, sizeof(h));
	put64(r, id);            /* PERF_SAMPLE_IDENTIFIER */
	put64(r, ip);            /* PERF_SAMPLE_IP */
	put32(r, 4242);          /* PERF_SAMPLE_TID: pid */
	put32(r, 4243);          /*                  tid */
	put64(r, 1000000123ull); /* PERF_SAMPLE_TIME */
	put32(r, 1);             /* PERF_SAMPLE_CPU: cpu */
	put32(r, 0);             /*                  res */
	put64(r, 250000);        /* PERF_SAMPLE_PERIOD */
	put64(r, chain_nr_field); /* PERF_SAMPLE_CALLCHAIN: nr, ips[nr] */
	for (uint64_t i = 0; i < nchain; i++)
		put64(r, chain[i]);
	if (nbr >= 0) {
		put64(r, nr_field); /* PERF_SAMPLE_BRANCH_STACK: nr, entries[nr] */
		for (int i = 0; i < nbr; i++) {
			put64(r, br[i].from);
			put64(r, br[i].to);
			/* flags: mispred:1 predicted:1 in_tx:1 abort:1 cycles:16
			 * type:4 … — set, never read */
			put64(r, 0x2ull | (12ull << 4));
		}
	}
	return rec_finish(r);
}

/* ─── the agent's parser, its output read back ────────────────────────── */

static struct pla_collector col;
static struct pl_msg got;

enum { ID_CYCLES = 101, ID_SWITCH = 102 };

/* A collector as events.c leaves it in LBR mode: event 0 "cycles" with the
 * branch stack, event 1 the off-CPU sampler (software) without it. */
static void collector_init(uint32_t depth)
{
	memset(&col, 0, sizeof(col));
	col.cfg.callgraph = PL_CG_LBR;
	col.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			  PERF_SAMPLE_CALLCHAIN;
	col.nevents = 2;
	col.desc[0].role = PL_ROLE_SAMPLED;
	col.desc[1].role = PL_ROLE_SWITCH;
	col.event_sample_type[0] = col.sample_type | PERF_SAMPLE_BRANCH_STACK;
	col.event_sample_type[1] = col.sample_type;
	col.lbr_depth = depth;
	static struct pla_id_map ids[2] = { { ID_CYCLES, 0 }, { ID_SWITCH, 1 } };
	col.ids = ids;
	col.nids = col.ids_cap = 2;
}

/* Feeds one record to pla_on_record; returns its result, and in got the
 * SAMPLE read back from the stream (got.type 0 when none came out). */
static int parse(const struct perf_event_header *h)
{
	char path[] = "/tmp/pl-lbr-test-XXXXXX";
	int fd = mkstemp(path);
	PL_CHECK(fd >= 0);
	struct pla_stream st;
	PL_CHECK(pla_stream_init(&st, 65536, 16, 1) == 0);
	PL_CHECK(pla_stream_attach(&st, fd, 0, PL_STREAM_CAPTURE) == 0);
	int rc = pla_on_record(&col, &st, h);
	PL_CHECK(pla_stream_flush(&st) == 0);
	pla_stream_free(&st);
	close(fd);

	memset(&got, 0, sizeof(got));
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
	while ((r = pl_reader_next(&rd, &m)) == 1)
		if (m.type == PL_MSG_SAMPLE)
			got = m;
	PL_CHECKF(r == 0, "%s", pl_reader_error(&rd));
	pl_reader_free(&rd);
	return rc;
}

static void expect_chain(const uint64_t *want, uint32_t n)
{
	PL_CHECKF(got.type == PL_MSG_SAMPLE, "no sample came out");
	char msg[400] = "";
	size_t k = 0;
	for (uint32_t i = 0; i < got.u.sample.nr_callchain && k < sizeof(msg) - 24; i++)
		k += (size_t)snprintf(msg + k, sizeof(msg) - k, " %llx",
				      (unsigned long long)got.u.sample.callchain[i]);
	PL_CHECKF(got.u.sample.nr_callchain == n, "%u entries, want %u:%s",
		  got.u.sample.nr_callchain, n, msg);
	for (uint32_t i = 0; i < n; i++)
		PL_CHECKF(got.u.sample.callchain[i] == want[i], "entry %u is %llx, want %llx:%s", i,
			  (unsigned long long)got.u.sample.callchain[i],
			  (unsigned long long)want[i], msg);
}

/* A program main → a → b → c (leaf), called at these sites; the fp walk's
 * return addresses are the call sites + 5 (a 5-byte call). */
#define LEAF 0x401234ull
#define CALL_IN_B 0x401180ull
#define CALL_IN_A 0x401080ull
#define CALL_IN_MAIN 0x400f80ull
static const struct br lbr3[] = {
	{ CALL_IN_B, 0x401200 }, /* the most recent call: b → c */
	{ CALL_IN_A, 0x401100 },
	{ CALL_IN_MAIN, 0x401000 },
};

/* ─── cases ───────────────────────────────────────────────────────────── */

/* A user-mode sample: the leaf, then the LBR's call sites.  The fp walk
 * (broken: no frame pointers, so a garbage frame) is not followed, since
 * the LBR is not full — before, every stack was the fp chain and then the
 * LBR's. */
static void test_user_only(void)
{
	collector_init(16);
	uint64_t chain[] = { UCTX, LEAF, 0x1badf00dull };
	struct recbuf r;
	PL_CHECK(parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 3, 3, lbr3, 3,
				  3)) == 0);
	uint64_t want[] = { UCTX, LEAF, CALL_IN_B, CALL_IN_A, CALL_IN_MAIN };
	expect_chain(want, 5);
	PL_CHECK(got.u.sample.ip == LEAF && got.u.sample.pid == 4242 && got.u.sample.tid == 4243);
}

/* A sample in the kernel (a syscall): the kernel part of the callchain up
 * to PERF_CONTEXT_USER, then the user pc the callchain gives, then the
 * LBR's call sites. */
static void test_kernel_and_user(void)
{
	collector_init(16);
	uint64_t k1 = 0xffffffff81234560ull, k2 = 0xffffffff81100020ull;
	uint64_t chain[] = { KCTX, k1, k2, UCTX, LEAF, 0x1badf00dull };
	struct recbuf r;
	PL_CHECK(parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_KERNEL, k1, chain, 6, 6, lbr3, 3,
				  3)) == 0);
	uint64_t want[] = { KCTX, k1, k2, UCTX, LEAF, CALL_IN_B, CALL_IN_A, CALL_IN_MAIN };
	expect_chain(want, 8);
}

/* The LBR full (depth 3 here, 3 entries): its call sites, then the fp
 * walk's frames beyond its depth (main's callers). */
static void test_truncated_lbr_full_fp_beyond(void)
{
	collector_init(3);
	uint64_t libc_start = 0x7f0000029d90ull, start = 0x401045ull;
	uint64_t chain[] = { UCTX,		LEAF,	    CALL_IN_B + 5, CALL_IN_A + 5,
			     CALL_IN_MAIN + 5, libc_start, start };
	struct recbuf r;
	PL_CHECK(parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 7, 7, lbr3, 3,
				  3)) == 0);
	uint64_t want[] = { UCTX, LEAF, CALL_IN_B, CALL_IN_A, CALL_IN_MAIN, libc_start, start };
	expect_chain(want, 7);
	/* the same sample with a 16-deep LBR: not full, nothing beyond */
	collector_init(16);
	PL_CHECK(parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 7, 7, lbr3, 3,
				  3)) == 0);
	expect_chain(want, 5);
}

/* An empty branch stack: nothing to merge, the fp chain stays as it is. */
static void test_empty_branch_stack(void)
{
	collector_init(16);
	uint64_t chain[] = { UCTX, LEAF, CALL_IN_B + 5, CALL_IN_A + 5 };
	struct recbuf r;
	PL_CHECK(parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 4, 4, NULL, 0,
				  0)) == 0);
	expect_chain(chain, 4);
}

/* No user part in the callchain (exclude_callchain_user, or a user-mode
 * sample whose callchain the kernel cut): the sample ip is the leaf. */
static void test_no_user_callchain(void)
{
	collector_init(16);
	struct recbuf r;
	PL_CHECK(parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, NULL, 0, 0, lbr3, 3,
				  3)) == 0);
	uint64_t want[] = { UCTX, LEAF, CALL_IN_B, CALL_IN_A, CALL_IN_MAIN };
	expect_chain(want, 5);
}

/* Counts larger than the record: refused (-EBADMSG, no sample sent), and
 * nothing read past the record — counts that would wrap a 64-bit size
 * (2^61 x 24 and 2^61 x 8 are 0 mod 2^64) included. */
static void test_counts_larger_than_the_record(void)
{
	collector_init(16);
	uint64_t chain[] = { UCTX, LEAF };
	struct recbuf r;
	static const uint64_t bad_br[] = { 4, 1000, 1ull << 61, 3ull << 62, ~0ull };
	for (size_t i = 0; i < sizeof(bad_br) / sizeof(bad_br[0]); i++) {
		int rc = parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 2, 2,
					  lbr3, 3, bad_br[i]));
		PL_CHECKF(rc == -EBADMSG && got.type == 0, "branch nr %llu: rc %d",
			  (unsigned long long)bad_br[i], rc);
	}
	static const uint64_t bad_chain[] = { 3, 1ull << 61, ~0ull };
	for (size_t i = 0; i < sizeof(bad_chain) / sizeof(bad_chain[0]); i++) {
		int rc = parse(sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 2,
					  bad_chain[i], NULL, -1, 0));
		PL_CHECKF(rc == -EBADMSG && got.type == 0, "callchain nr %llu: rc %d",
			  (unsigned long long)bad_chain[i], rc);
	}
	/* the branch stack's nr cut off by the record's end */
	sample_rec(&r, ID_CYCLES, PERF_RECORD_MISC_USER, LEAF, chain, 2, 2, NULL, -1, 0);
	put32(&r, 1); /* half of nr */
	((struct perf_event_header *)r.b)->size = (uint16_t)r.n;
	PL_CHECK(parse((struct perf_event_header *)r.b) == -EBADMSG && got.type == 0);
}

/* The off-CPU sampler is a software event: its samples carry no branch
 * stack, and are parsed without one in an LBR session. */
static void test_event_without_branch_stack(void)
{
	collector_init(16);
	uint64_t chain[] = { UCTX, LEAF, CALL_IN_B + 5 };
	struct recbuf r;
	PL_CHECK(parse(sample_rec(&r, ID_SWITCH, PERF_RECORD_MISC_USER, LEAF, chain, 3, 3, NULL, -1,
				  0)) == 0);
	expect_chain(chain, 3);
	PL_CHECK(got.u.sample.event == 1);
}

/* The conversion alone: PERF_SAMPLE_BRANCH_HW_INDEX's u64 after nr,
 * big-endian entries (a perf.data from a big-endian host), and a chain
 * that does not fit the room it has. */
static void test_parse_hw_index_and_byte_order(void)
{
	uint8_t blk[8 + 8 + 2 * 24];
	memset(blk, 0, sizeof(blk));
	/* big-endian: nr 2, hw_idx 7, entries from 0x1111 / 0x2222 */
	blk[7] = 2;
	blk[15] = 7;
	blk[16 + 6] = 0x11, blk[16 + 7] = 0x11;
	blk[40 + 6] = 0x22, blk[40 + 7] = 0x22;
	uint32_t nr;
	const uint8_t *e;
	PL_CHECK(pl_lbr_parse(blk, sizeof(blk), 1, 1, &nr, &e) == (long)sizeof(blk));
	PL_CHECK(nr == 2 && e == blk + 16);
	uint32_t nr2;
	const uint8_t *e2;
	PL_CHECK(pl_lbr_parse(blk, sizeof(blk) - 1, 1, 1, &nr2, &e2) == -1 && nr2 == 0 && !e2);
	PL_CHECK(pl_lbr_parse(blk, 15, 1, 1, &nr2, &e2) == -1);
	uint64_t chain[8] = { UCTX, 0x5555 };
	PL_CHECK(pl_lbr_merge(chain, 2, 8, e, 2, 1, 0x5555, 1, 0) == 4);
	PL_CHECK(chain[2] == 0x1111 && chain[3] == 0x2222);
	/* room for 3: cut at 3 */
	uint64_t small[3] = { UCTX, 0x5555, 0 };
	PL_CHECK(pl_lbr_merge(small, 2, 3, e, 2, 1, 0x5555, 1, 0) == 3 && small[2] == 0x1111);
	/* a kernel-mode sample with no user chain: the innermost callee's
	 * entry (from[0]'s "to") stands for the leaf, as perf takes it */
	uint8_t le[24] = { 0 };
	le[0] = 0x10, le[1] = 0x12, le[8] = 0x00, le[9] = 0x12; /* from 0x1210, to 0x1200 */
	uint64_t k[6] = { KCTX, 0xffffffff81000000ull };
	PL_CHECK(pl_lbr_merge(k, 2, 6, le, 1, 0, 0xffffffff81000000ull, 0, 16) == 5);
	PL_CHECK(k[2] == UCTX && k[3] == 0x1200 && k[4] == 0x1210);
}

/* auto never takes LBR while fp or dwarf work (the probe proved them on
 * this board): LBR only when it alone was proven. */
static void test_auto_takes_lbr_last(void)
{
	static struct pla_probe p;
	static const struct {
		uint32_t flags;
		uint8_t want;
	} t[] = {
		{ PL_HELLO_CG_FP | PL_HELLO_CG_DWARF | PL_HELLO_CG_LBR, PL_CG_FP },
		{ PL_HELLO_CG_DWARF | PL_HELLO_CG_LBR, PL_CG_DWARF },
		{ PL_HELLO_CG_FP | PL_HELLO_CG_LBR, PL_CG_FP },
		{ PL_HELLO_CG_LBR, PL_CG_LBR },
		{ 0, PL_CG_NONE },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&p, 0, sizeof(p));
		p.hello_flags = t[i].flags;
		PL_CHECKF(pla_probe_auto_callgraph(&p) == t[i].want, "flags %#x: auto %u, want %u",
			  t[i].flags, pla_probe_auto_callgraph(&p), t[i].want);
	}
}

PL_TEST_MAIN(PL_CASE(test_auto_takes_lbr_last), PL_CASE(test_user_only), PL_CASE(test_kernel_and_user),
	     PL_CASE(test_truncated_lbr_full_fp_beyond), PL_CASE(test_empty_branch_stack),
	     PL_CASE(test_no_user_callchain), PL_CASE(test_counts_larger_than_the_record),
	     PL_CASE(test_event_without_branch_stack),
	     PL_CASE(test_parse_hw_index_and_byte_order))
