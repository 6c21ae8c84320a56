/* perf-data-records.c — the record decoder: one kernel record (sample by
 * its attr's sample_type, mmap/mmap2, comm, fork/exit, switch, lost,
 * throttle) becomes one struct pl_msg, with the sample_id fields found in
 * the kernel's order.  Pure: it reads the bytes it is given and the parsed
 * header, counts what it cut or skipped in the stats, and delivers nothing;
 * the reader decides when a record is decoded and where the message goes.
 */
#include <stddef.h>

#include "lbr.h"
#include "perf-data-private.h"

static PdDecode too_short(Reader *r, uint64_t off, const char *what, GError **error)
{
	pd_corrupt(error, r->path, off, "%s record too short", what);
	return PD_DECODE_ERROR;
}

typedef struct {
	uint32_t pid, tid, cpu;
	uint64_t time, id;
	gboolean has_time;
} PdSampleId;

/* The identifying fields at the head of a sample and in the sample_id
 * trailer of other records, read in the kernel's order (perf_output_sample
 * and __perf_event__output_id_sample): the two share TID TIME ID STREAM_ID
 * CPU; a sample also has IDENTIFIER first, IP before TID and ADDR after
 * TIME, the trailer (trailer TRUE) has no IP or ADDR and IDENTIFIER last.
 * Every read goes through the cursor: a short buffer sets c->bad. */
static void read_sample_id(PdCur *c, uint64_t st, gboolean trailer, PdSampleId *sid,
			   uint64_t *ip)
{
	if (!trailer && (st & PD_SAMPLE_IDENTIFIER))
		sid->id = cur_u64(c);
	if (!trailer && (st & PD_SAMPLE_IP))
		*ip = cur_u64(c);
	if (st & PD_SAMPLE_TID) {
		sid->pid = cur_u32(c);
		sid->tid = cur_u32(c);
	}
	if (st & PD_SAMPLE_TIME) {
		sid->time = cur_u64(c);
		sid->has_time = TRUE;
	}
	if (!trailer && (st & PD_SAMPLE_ADDR))
		cur_u64(c);
	if (st & PD_SAMPLE_ID)
		sid->id = cur_u64(c);
	if (st & PD_SAMPLE_STREAM_ID)
		cur_u64(c);
	if (st & PD_SAMPLE_CPU) {
		sid->cpu = cur_u32(c);
		cur_u32(c);
	}
	if (trailer && (st & PD_SAMPLE_IDENTIFIER))
		sid->id = cur_u64(c);
}

/* The sample_id trailer of a non-sample record: fields TID TIME ID
 * STREAM_ID CPU IDENTIFIER, in that order, at the end of the record. */
static const PdAttr *parse_trailer(Reader *r, const uint8_t *rec, size_t size, size_t *body_end,
				   PdSampleId *sid)
{
	memset(sid, 0, sizeof(*sid));
	*body_end = size;
	const PdAttr *a0 = pd_attr_at(r, 0);
	if (!attr_bit(a0, PD_ATTR_F_SAMPLE_ID_ALL))
		return a0;
	const PdAttr *a = a0;
	/* Find the attr: IDENTIFIER is the last u64; a plain ID sits before
	 * STREAM_ID and CPU.  Attrs must agree on the trailer's layout (perf
	 * refuses files where they do not), so attr 0's says where it is. */
	if (r->attrs->len > 1 && (a0->sample_type & (PD_SAMPLE_IDENTIFIER | PD_SAMPLE_ID))) {
		size_t back = 8;
		if (!(a0->sample_type & PD_SAMPLE_IDENTIFIER)) {
			back += (a0->sample_type & PD_SAMPLE_CPU) ? 8 : 0;
			back += (a0->sample_type & PD_SAMPLE_STREAM_ID) ? 8 : 0;
		}
		if (size >= PD_RECORD_HEADER_SIZE + back) {
			int i = pd_attr_for_id(r, ld64(rec + size - back, r->be));
			if (i >= 0)
				a = pd_attr_at(r, (guint)i);
		}
	}
	if (a->id_trailer > size - PD_RECORD_HEADER_SIZE)
		return NULL;
	*body_end = size - a->id_trailer;
	PdCur c;
	cur_init(&c, rec + *body_end, a->id_trailer, r->be);
	read_sample_id(&c, a->sample_type, TRUE, sid, NULL);
	return a;
}

/* Which attr a sample belongs to: IDENTIFIER is its first u64, a plain ID
 * comes after IP TID TIME ADDR. */
static int sample_attr(Reader *r, const uint8_t *body, size_t n)
{
	if (r->attrs->len == 1)
		return 0;
	uint64_t st = pd_attr_at(r, 0)->sample_type;
	size_t pos;
	if (st & PD_SAMPLE_IDENTIFIER)
		pos = 0;
	else if (st & PD_SAMPLE_ID)
		pos = 8u * (guint)__builtin_popcountll(st & (PD_SAMPLE_IP | PD_SAMPLE_TID |
							      PD_SAMPLE_TIME | PD_SAMPLE_ADDR));
	else
		return 0;
	if (n < pos + 8)
		return -2;
	return pd_attr_for_id(r, ld64(body + pos, r->be));
}

static gboolean skip_read_values(PdCur *c, const PdAttr *a)
{
	uint64_t rf = a->read_format;
	uint64_t per = 1 + !!(rf & PD_READ_ID) + !!(rf & PD_READ_LOST);
	uint64_t nr = 1;
	if (rf & PD_READ_GROUP)
		nr = cur_u64(c);
	if (rf & PD_READ_TOTAL_TIME_ENABLED)
		cur_u64(c);
	if (rf & PD_READ_TOTAL_TIME_RUNNING)
		cur_u64(c);
	if (nr > cur_left(c) / 8 / per)
		c->bad = TRUE;
	else
		cur_take_u64s(c, nr * per);
	return !c->bad;
}

static PdDecode decode_sample(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			     GError **error)
{
	const uint8_t *body = rec + PD_RECORD_HEADER_SIZE;
	size_t n = size - PD_RECORD_HEADER_SIZE;
	int ai = sample_attr(r, body, n);
	if (ai == -2) {
		pd_corrupt(error, r->path, off, "sample of %zu bytes has no room for its event id",
			   size);
		return PD_DECODE_ERROR;
	}
	if (ai < 0) {
		r->st->unknown_ids++;
		return PD_DECODE_NONE;
	}
	const PdAttr *a = pd_attr_at(r, (guint)ai);
	uint64_t st = a->sample_type;
	struct pl_msg *m = r->msg;
	m->type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &m->u.sample;
	/* Zero everything but the large callchain and regs arrays (only their
	 * first nr entries are meaningful), so fields added to the struct
	 * later start at 0 too. */
	memset(s, 0, offsetof(struct pl_msg_sample, callchain));
	memset(&s->regs_abi, 0, offsetof(struct pl_msg_sample, regs) -
				       offsetof(struct pl_msg_sample, regs_abi));
	memset(&s->stack_size, 0, sizeof(*s) - offsetof(struct pl_msg_sample, stack_size));
	s->event = (uint32_t)ai;
	s->cpumode = ld16(rec + 4, r->be) & PD_MISC_CPUMODE_MASK;
	s->stack_requested = a->stack_user;

	PdCur c;
	cur_init(&c, body, n, r->be);
	PdSampleId sid = { 0 };
	read_sample_id(&c, st, FALSE, &sid, &s->ip);
	s->pid = sid.pid;
	s->tid = sid.tid;
	s->time = sid.time;
	s->cpu = sid.cpu;
	if (st & PD_SAMPLE_PERIOD)
		s->period = cur_u64(&c);
	if (st & PD_SAMPLE_READ)
		skip_read_values(&c, a);
	if (st & PD_SAMPLE_CALLCHAIN) {
		uint64_t nr = cur_u64(&c);
		const uint8_t *ips = cur_take_u64s(&c, nr);
		if (ips) {
			uint64_t keep = MIN(nr, (uint64_t)PL_MAX_CALLCHAIN);
			if (keep < nr)
				r->st->truncated_callchains++;
			for (uint64_t i = 0; i < keep; i++)
				s->callchain[i] = ld64(ips + 8 * i, r->be);
			s->nr_callchain = (uint32_t)keep;
		}
	}
	if (st & PD_SAMPLE_RAW) {
		uint32_t len = cur_u32(&c);
		cur_skip(&c, len);
	}
	if (st & PD_SAMPLE_BRANCH_STACK) {
		/* common/lbr.h: the block's count checked against what is left */
		uint32_t nr = 0;
		const uint8_t *entries = NULL;
		long used = c.bad ? -1
				  : pl_lbr_parse(c.p, cur_left(&c), r->be,
						 (a->branch_sample_type & PD_BRANCH_HW_INDEX) != 0,
						 &nr, &entries);
		if (used < 0)
			c.bad = TRUE;
		else
			cur_take(&c, (size_t)used);
		if (a->branch_sample_type & PD_BRANCH_COUNTERS)
			cur_take_u64s(&c, nr);
		/* `perf record --call-graph lbr`: the LBR call stack merged
		 * with the callchain, as perf report shows it; the LBR's depth
		 * is not in the file we read, so fp frames beyond it are kept */
		if (!c.bad && (a->branch_sample_type & PD_BRANCH_CALL_STACK))
			s->nr_callchain = pl_lbr_merge(s->callchain, s->nr_callchain,
						       PL_MAX_CALLCHAIN, entries, nr, r->be, s->ip,
						       s->cpumode == PD_MISC_USER, 0);
	}
	if (st & PD_SAMPLE_REGS_USER) {
		s->regs_abi = cur_u64(&c);
		if (s->regs_abi) {
			const uint8_t *regs = cur_take_u64s(&c, a->nr_regs_user);
			if (regs) {
				s->nr_regs = MIN(a->nr_regs_user, PL_MAX_REGS);
				for (uint32_t i = 0; i < s->nr_regs; i++)
					s->regs[i] = ld64(regs + 8 * i, r->be);
			}
		}
	}
	if (st & PD_SAMPLE_STACK_USER) {
		uint64_t sz = cur_u64(&c);
		if (sz) {
			const uint8_t *data = cur_take(&c, sz > cur_left(&c) ? SIZE_MAX : (size_t)sz);
			uint64_t dyn = cur_u64(&c);
			if (data) {
				/* dyn_size is what was really copied; never more than the
				 * buffer that holds it. */
				if (dyn == 0 || dyn > sz)
					dyn = sz;
				if (dyn > PL_MAX_STACK_COPY) {
					dyn = PL_MAX_STACK_COPY;
					r->st->truncated_stacks++;
				}
				s->stack = data;
				s->stack_size = (uint32_t)dyn;
			}
		}
	}
	if (st & (PD_SAMPLE_WEIGHT | PD_SAMPLE_WEIGHT_STRUCT))
		cur_u64(&c);
	if (st & PD_SAMPLE_DATA_SRC)
		cur_u64(&c);
	if (st & PD_SAMPLE_TRANSACTION)
		cur_u64(&c);
	if (st & PD_SAMPLE_REGS_INTR) {
		if (cur_u64(&c))
			cur_take_u64s(&c, a->nr_regs_intr);
	}
	if (st & PD_SAMPLE_PHYS_ADDR)
		cur_u64(&c);
	if (st & PD_SAMPLE_CGROUP)
		cur_u64(&c);
	if (st & PD_SAMPLE_DATA_PAGE_SIZE)
		cur_u64(&c);
	if (st & PD_SAMPLE_CODE_PAGE_SIZE)
		cur_u64(&c);
	if (st & PD_SAMPLE_AUX) {
		uint64_t sz = cur_u64(&c);
		cur_skip(&c, sz);
	}
	if (c.bad) {
		pd_corrupt(error, r->path, off,
			   "sample record of %zu bytes is shorter than its fields "
			   "(sample_type 0x%" G_GINT64_MODIFIER "x) say",
			   size, st);
		return PD_DECODE_ERROR;
	}
	r->st->samples++;
	return PD_DECODE_MSG;
}

/* Linux (6.1 at least, kernel/events/core.c perf_event_mmap_output) sets
 * PERF_RECORD_MISC_MMAP_BUILD_ID in an mmap event it shares among all the
 * perf events watching that mapping and never clears it: once one consumer
 * asked for build-ids (attr.build_id, e.g. perflens-agent or `perf record
 * --buildid-mmap`), the records of the consumers after it carry the flag
 * over maj/min/ino.  A true build-id record has a size of 1 to 20 and three
 * zero bytes after it; anything else is such a stray flag, and reading it as
 * a build-id would make up an id that matches no file (no symbols at all).
 * perf 6.1's own reader asserts on these and smashes its stack. */
static gboolean stray_build_id_flag(const uint8_t *u)
{
	return u[0] == 0 || u[0] > PL_MAX_BUILD_ID || u[1] || u[2] || u[3];
}

static PdDecode decode_mmap(Reader *r, const uint8_t *rec, size_t body_end, uint16_t type,
			    uint16_t misc, const PdSampleId *sid, uint64_t off, GError **error)
{
	struct pl_msg *m = r->msg;
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_MMAP;
	struct pl_msg_mmap *o = &m->u.mmap;
	PdCur c;
	cur_init(&c, rec + PD_RECORD_HEADER_SIZE, body_end - PD_RECORD_HEADER_SIZE, r->be);
	o->pid = cur_u32(&c);
	o->tid = cur_u32(&c);
	o->start = cur_u64(&c);
	o->len = cur_u64(&c);
	o->pgoff = cur_u64(&c);
	if (type == PD_REC_MMAP2) {
		const uint8_t *u = cur_take(&c, 24);
		if (u && (misc & PD_MISC_MMAP_BUILD_ID) && stray_build_id_flag(u)) {
			r->st->stray_build_id_flags++;
			misc &= (uint16_t)~PD_MISC_MMAP_BUILD_ID;
		}
		if (u && (misc & PD_MISC_MMAP_BUILD_ID)) {
			o->build_id_len = MIN(u[0], PL_MAX_BUILD_ID);
			memcpy(o->build_id, u + 4, o->build_id_len);
		} else if (u) {
			o->maj = ld32(u, r->be);
			o->min = ld32(u + 4, r->be);
			o->ino = ld64(u + 8, r->be);
		}
		o->prot = cur_u32(&c);
		o->flags = cur_u32(&c);
	} else {
		/* MMAP (v1) is only written for executable mappings. */
		o->prot = 4; /* PROT_EXEC */
	}
	if (c.bad)
		return too_short(r, off, "MMAP", error);
	o->filename = str_in(c.p, cur_left(&c));
	o->time = sid->time;
	o->cpumode = misc & PD_MISC_CPUMODE_MASK;
	/* perf synthesizes the mappings it finds in /proc with no time. */
	o->snapshot = sid->has_time && sid->time == 0;
	if (o->build_id_len == 0 && o->filename.len) {
		char name[PL_MAX_STR + 1];
		memcpy(name, o->filename.p, o->filename.len);
		name[o->filename.len] = 0;
		/* perf maps the kernel as "[kernel.kallsyms]_text" (the symbol
		 * it is relative to) but names its DSO "[kernel.kallsyms]". */
		if (g_str_has_prefix(name, "[kernel.kallsyms]"))
			name[strlen("[kernel.kallsyms]")] = 0;
		const PdBuildId *b = g_hash_table_lookup(r->bid_by_path, name);
		if (b) {
			o->build_id_len = b->len;
			memcpy(o->build_id, b->id, b->len);
		}
	}
	return PD_DECODE_MSG;
}

PdDecode pd_decode_record(Reader *r, const uint8_t *rec, size_t size, uint64_t off,
			  GError **error)
{
	uint16_t type = (uint16_t)ld32(rec, r->be);
	uint16_t misc = ld16(rec + 4, r->be);
	struct pl_msg *m = r->msg;
	PdSampleId sid;
	size_t body_end = size;
	const uint8_t *b = rec + PD_RECORD_HEADER_SIZE;
	if (type != PD_REC_SAMPLE && !parse_trailer(r, rec, size, &body_end, &sid)) {
		pd_corrupt(error, r->path, off,
			   "record type %u of %zu bytes cannot hold its sample_id fields", type,
			   size);
		return PD_DECODE_ERROR;
	}
	size_t bn = body_end - PD_RECORD_HEADER_SIZE; /* body bytes before the trailer */

	switch (type) {
	case PD_REC_SAMPLE:
		return decode_sample(r, rec, size, off, error);
	case PD_REC_MMAP:
	case PD_REC_MMAP2:
		return decode_mmap(r, rec, body_end, type, misc, &sid, off, error);
	case PD_REC_COMM:
		if (bn < 8)
			return too_short(r, off, "COMM", error);
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_COMM;
		m->u.comm.pid = ld32(b, r->be);
		m->u.comm.tid = ld32(b + 4, r->be);
		m->u.comm.comm = str_in(b + 8, bn - 8);
		m->u.comm.time = sid.time;
		m->u.comm.exec = !!(misc & PD_MISC_COMM_EXEC);
		m->u.comm.snapshot = sid.has_time && sid.time == 0;
		return PD_DECODE_MSG;
	case PD_REC_FORK:
	case PD_REC_EXIT:
		if (bn < 24)
			return too_short(r, off, "FORK/EXIT", error);
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_TASK;
		m->u.task.kind = type == PD_REC_FORK ? PL_TASK_FORK : PL_TASK_EXIT;
		m->u.task.pid = ld32(b, r->be);
		m->u.task.ppid = ld32(b + 4, r->be);
		m->u.task.tid = ld32(b + 8, r->be);
		m->u.task.ptid = ld32(b + 12, r->be);
		m->u.task.time = ld64(b + 16, r->be);
		return PD_DECODE_MSG;
	case PD_REC_SWITCH:
	case PD_REC_SWITCH_CPU_WIDE:
		if (type == PD_REC_SWITCH_CPU_WIDE && bn < 8)
			return too_short(r, off, "SWITCH_CPU_WIDE", error);
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_SWITCH;
		m->u.sw.pid = sid.pid;
		m->u.sw.tid = sid.tid;
		m->u.sw.time = sid.time;
		m->u.sw.cpu = sid.cpu;
		m->u.sw.flags = ((misc & PD_MISC_SWITCH_OUT) ? PL_SWITCH_OUT : 0) |
				((misc & PD_MISC_SWITCH_OUT_PREEMPT) ? PL_SWITCH_PREEMPT : 0);
		if (type == PD_REC_SWITCH_CPU_WIDE) {
			m->u.sw.other_pid = ld32(b, r->be);
			m->u.sw.other_tid = ld32(b + 4, r->be);
		}
		return PD_DECODE_MSG;
	case PD_REC_LOST:
	case PD_REC_LOST_SAMPLES:
		if (bn < (type == PD_REC_LOST ? 16u : 8u))
			return too_short(r, off, "LOST", error);
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_LOST;
		m->u.lost.kind = type == PD_REC_LOST ? PL_LOST_RING : PL_LOST_SAMPLES;
		m->u.lost.cpu = sid.cpu;
		m->u.lost.time = sid.time;
		m->u.lost.count = ld64(type == PD_REC_LOST ? b + 8 : b, r->be);
		return PD_DECODE_MSG;
	case PD_REC_THROTTLE:
	case PD_REC_UNTHROTTLE: {
		if (bn < 24)
			return too_short(r, off, "THROTTLE", error);
		int ai = pd_attr_for_id(r, ld64(b + 8, r->be));
		memset(m, 0, sizeof(*m));
		m->type = PL_MSG_THROTTLE;
		m->u.throttle.time = ld64(b, r->be);
		m->u.throttle.event = ai < 0 ? 0 : (uint32_t)ai;
		m->u.throttle.unthrottle = type == PD_REC_UNTHROTTLE;
		return PD_DECODE_MSG;
	}
	default:
		return PD_DECODE_NONE;
	}
}

/* (A record without one is delivered at once, as perf does.) */
gboolean pd_record_time(Reader *r, const uint8_t *rec, size_t size, uint64_t *t)
{
	uint16_t type = (uint16_t)ld32(rec, r->be);
	if (type >= PD_REC_KERNEL_MAX)
		return FALSE;
	if (type == PD_REC_SAMPLE) {
		int ai = sample_attr(r, rec + PD_RECORD_HEADER_SIZE, size - PD_RECORD_HEADER_SIZE);
		if (ai < 0)
			return FALSE;
		uint64_t st = pd_attr_at(r, (guint)ai)->sample_type;
		if (!(st & PD_SAMPLE_TIME))
			return FALSE;
		size_t pos = PD_RECORD_HEADER_SIZE +
			     8u * (guint)__builtin_popcountll(st & (PD_SAMPLE_IDENTIFIER |
								    PD_SAMPLE_IP | PD_SAMPLE_TID));
		if (size < pos + 8)
			return FALSE;
		*t = ld64(rec + pos, r->be);
		return TRUE;
	}
	PdSampleId sid;
	size_t body_end;
	if (!parse_trailer(r, rec, size, &body_end, &sid) || !sid.has_time)
		return FALSE;
	*t = sid.time;
	return TRUE;
}
