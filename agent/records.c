/* records.c — kernel perf records → messages: a bounds-checked reader
 * of one record, the sample id → event lookup, and one message built and
 * sent per record the viewer uses (samples, mappings, names, tasks,
 * switches, losses, throttling).  No allocation. */
#include "collect-private.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "lbr.h"
#include "procfs.h"

/* ─── records → frames ────────────────────────────────────────────────── */

/* Bounds-checked reader of a kernel record (native byte order). */
struct rec {
	const uint8_t *p, *end;
	int bad;
};
static uint64_t rd64(struct rec *r)
{
	uint64_t v = 0;
	if (r->end - r->p < 8) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, 8);
	r->p += 8;
	return v;
}
static uint32_t rd32(struct rec *r)
{
	uint32_t v = 0;
	if (r->end - r->p < 4) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, 4);
	r->p += 4;
	return v;
}
static const uint8_t *rdn(struct rec *r, uint64_t n)
{
	if ((uint64_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += n;
	return p;
}

/* n items of size bytes, n from the record itself: checked before the
 * multiplication, so a huge n cannot wrap into a small size */
static const uint8_t *rdarr(struct rec *r, uint64_t n, uint64_t size)
{
	if (n > (uint64_t)(r->end - r->p) / size) {
		r->bad = 1;
		return NULL;
	}
	return rdn(r, n * size);
}

#define HOST_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static uint32_t event_of(const struct pla_collector *c, uint64_t id)
{
	/* The kernel numbers events in the order it creates them, and they
	 * are added in that order: a binary search, since hundreds of
	 * threads make thousands of ids and this runs for every sample. */
	size_t lo = 0, hi = c->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nids && c->ids[lo].id == id ? c->ids[lo].event : 0;
}

/* sample_id trailer of non-sample records: TID TIME CPU IDENTIFIER */
struct sample_id {
	uint32_t pid, tid, cpu;
	uint64_t time;
};
static void trailer(const struct perf_event_header *h, struct sample_id *s)
{
	const uint8_t *end = (const uint8_t *)h + h->size;
	memset(s, 0, sizeof(*s));
	if (h->size < sizeof(*h) + 32)
		return;
	memcpy(&s->pid, end - 32, 4);
	memcpy(&s->tid, end - 28, 4);
	memcpy(&s->time, end - 24, 8);
	memcpy(&s->cpu, end - 16, 4);
}

static int on_sample(struct pla_collector *c, struct pla_stream *out,
		     const struct perf_event_header *h)
{
	struct rec r = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size, 0 };
	struct pl_msg *m = &c->msg;
	struct pl_msg_sample *s = &m->u.sample;
	m->type = PL_MSG_SAMPLE;
	s->event = event_of(c, rd64(&r));
	uint8_t role = c->desc[s->event].role;
	uint64_t type = c->event_sample_type[s->event]; /* as opened (events.c) */
	int sys = c->sys && s->event == c->sys->event;
	s->ip = rd64(&r);
	s->pid = rd32(&r);
	s->tid = rd32(&r);
	s->time = rd64(&r);
	s->cpu = rd32(&r);
	rd32(&r);
	s->period = rd64(&r);
	s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	s->nr_callchain = 0;
	s->regs_abi = 0;
	s->nr_regs = 0;
	s->stack_size = 0;
	s->stack_requested = 0;
	s->stack = NULL;
	s->raw_size = 0;
	s->raw = NULL;
	if (type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = rd64(&r);
		const uint8_t *ips = rdarr(&r, nr, 8);
		if (nr > PL_MAX_CALLCHAIN)
			nr = PL_MAX_CALLCHAIN;
		if (ips)
			memcpy(s->callchain, ips, nr * 8);
		s->nr_callchain = ips ? (uint32_t)nr : 0;
	}
	if (type & PERF_SAMPLE_RAW) {
		/* u32 size, then size bytes (the kernel pads them so that the
		 * record stays 8-byte aligned): borrowed, never copied */
		uint32_t size = rd32(&r);
		const uint8_t *raw = rdn(&r, size);
		if (raw && size <= PL_MAX_RAW) {
			s->raw = raw;
			s->raw_size = size;
		}
	}
	if (sys) /* entries and exits differ: the exit has the stack copy */
		type = pla_sys_record_type(c, s->raw, s->raw_size);
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		/* the LBR call stack, merged with the chain as perf shows it
		 * (common/lbr.h); a count the record cannot hold is refused */
		uint32_t bnr;
		const uint8_t *br;
		long used = pl_lbr_parse(r.p, (size_t)(r.end - r.p), HOST_BE, 0, &bnr, &br);
		if (used < 0)
			return -EBADMSG;
		r.p += used;
		s->nr_callchain = pl_lbr_merge(s->callchain, s->nr_callchain, PL_MAX_CALLCHAIN, br,
					       bnr, HOST_BE,
					       s->ip, s->cpumode == PERF_RECORD_MISC_USER,
					       c->lbr_depth);
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		s->regs_abi = rd64(&r);
		if (s->regs_abi) {
			uint32_t n = (uint32_t)__builtin_popcountll(c->regs_mask);
			const uint8_t *regs = rdn(&r, (uint64_t)n * 8);
			if (regs && n <= PL_MAX_REGS) {
				memcpy(s->regs, regs, (size_t)n * 8);
				s->nr_regs = n;
			}
		}
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		uint64_t size = rd64(&r);
		const uint8_t *data = rdn(&r, size);
		uint64_t dyn = size ? rd64(&r) : 0;
		if (data && dyn <= size && dyn <= PL_MAX_STACK_COPY) {
			/* send only what the kernel really copied */
			s->stack = data;
			s->stack_size = (uint32_t)dyn;
			s->stack_requested = (uint32_t)size;
		}
	}
	if (r.bad)
		return -EBADMSG;
	if (sys)
		return pla_sys_sample(c, out);
	c->samples += role != PL_ROLE_CREATE && role != PL_ROLE_TRACEPOINT; /* HEALTH: CPU ones */
	int rc = pla_stream_msg(out, m);
	if (c->vdso_len) {
		int hit = s->ip - c->vdso_lo < c->vdso_len;
		for (uint32_t i = 0; i < s->nr_callchain && !hit; i++)
			hit = s->callchain[i] - c->vdso_lo < c->vdso_len;
		if (hit)
			pla_send_vdso(c, out, c->cfg.pid, c->vdso_lo); /* a failure: out->dead */
	}
	return rc;
}

static int on_record(struct pla_collector *c, struct pla_stream *out,
		     const struct perf_event_header *h)
{
	struct rec r = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size, 0 };
	struct pl_msg *m = &c->msg;
	struct sample_id sid;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(c, out, h);
	case PERF_RECORD_MMAP2: {
		struct pl_msg_mmap *mm = &m->u.mmap;
		memset(mm, 0, sizeof(*mm));
		m->type = PL_MSG_MMAP;
		mm->pid = rd32(&r);
		mm->tid = rd32(&r);
		mm->start = rd64(&r);
		mm->len = rd64(&r);
		mm->pgoff = rd64(&r);
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			const uint8_t *b = rdn(&r, 4);
			const uint8_t *id = rdn(&r, 20);
			if (b && id) {
				mm->build_id_len = b[0] <= PL_MAX_BUILD_ID ? b[0] : PL_MAX_BUILD_ID;
				memcpy(mm->build_id, id, mm->build_id_len);
			}
		} else {
			mm->maj = rd32(&r);
			mm->min = rd32(&r);
			mm->ino = rd64(&r);
			rd64(&r); /* ino_generation */
		}
		mm->prot = rd32(&r);
		mm->flags = rd32(&r);
		trailer(h, &sid);
		if (r.bad || r.end - r.p < 32)
			return -EBADMSG;
		size_t room = (size_t)(r.end - r.p) - 32;
		mm->filename.p = (const char *)r.p;
		mm->filename.len = (uint32_t)strnlen((const char *)r.p, room);
		mm->time = sid.time;
		mm->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		if (!(mm->prot & PROT_EXEC))
			return 0; /* data mappings: not needed for symbolization */
		if (!mm->build_id_len && mm->filename.len && mm->filename.p[0] == '/' &&
		    mm->filename.len < 1024) {
			char path[1024];
			memcpy(path, mm->filename.p, mm->filename.len);
			path[mm->filename.len] = 0;
			int n = pla_elf_build_id(path, mm->build_id);
			if (n > 0)
				mm->build_id_len = (uint8_t)n;
		}
		int rc = pla_stream_msg(out, m);
		/* a vDSO mapped elsewhere (a child's exec): its addresses are not
		 * watched, so the held image goes out now, for that mapping */
		if (c->vdso_len && mm->filename.len == 6 && !memcmp(mm->filename.p, "[vdso]", 6) &&
		    mm->start != c->vdso_lo)
			pla_send_vdso(c, out, (pid_t)mm->pid, mm->start);
		return rc;
	}
	case PERF_RECORD_COMM: {
		m->type = PL_MSG_COMM;
		struct pl_msg_comm *cm = &m->u.comm;
		cm->pid = rd32(&r);
		cm->tid = rd32(&r);
		trailer(h, &sid);
		if (r.bad || r.end - r.p < 32)
			return -EBADMSG;
		cm->comm.p = (const char *)r.p;
		cm->comm.len = (uint32_t)strnlen((const char *)r.p, (size_t)(r.end - r.p) - 32);
		cm->time = sid.time;
		cm->exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0;
		cm->snapshot = 0;
		return pla_stream_msg(out, m);
	}
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: {
		m->type = PL_MSG_TASK;
		struct pl_msg_task *t = &m->u.task;
		t->kind = h->type == PERF_RECORD_FORK ? PL_TASK_FORK : PL_TASK_EXIT;
		t->pid = rd32(&r);
		t->ppid = rd32(&r);
		t->tid = rd32(&r);
		t->ptid = rd32(&r);
		t->time = rd64(&r);
		if (r.bad)
			return -EBADMSG;
		if (t->kind == PL_TASK_EXIT)
			pla_sys_thread_gone(c, t->tid);
		if (t->kind == PL_TASK_EXIT && c->cfg.target == PL_TARGET_PID &&
		    t->pid == (uint32_t)c->cfg.pid && t->tid == t->pid)
			c->target_gone = 1;
		return pla_stream_msg(out, m);
	}
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		m->type = PL_MSG_SWITCH;
		struct pl_msg_switch *sw = &m->u.sw;
		memset(sw, 0, sizeof(*sw));
		if (h->type == PERF_RECORD_SWITCH_CPU_WIDE) {
			sw->other_pid = rd32(&r);
			sw->other_tid = rd32(&r);
		}
		trailer(h, &sid);
		sw->pid = sid.pid;
		sw->tid = sid.tid;
		sw->time = sid.time;
		sw->cpu = sid.cpu;
		sw->flags = (h->misc & PERF_RECORD_MISC_SWITCH_OUT ? PL_SWITCH_OUT : 0) |
			    (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? PL_SWITCH_PREEMPT : 0);
		return pla_stream_msg(out, m);
	}
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES: {
		m->type = PL_MSG_LOST;
		if (h->type == PERF_RECORD_LOST)
			rd64(&r); /* id */
		uint64_t n = rd64(&r);
		trailer(h, &sid);
		m->u.lost = (struct pl_msg_lost){
			h->type == PERF_RECORD_LOST ? PL_LOST_RING : PL_LOST_SAMPLES, sid.cpu,
			sid.time, n
		};
		c->lost += n;
		return pla_stream_msg(out, m);
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		m->type = PL_MSG_THROTTLE;
		uint64_t t = rd64(&r), id = rd64(&r);
		m->u.throttle = (struct pl_msg_throttle){ t, event_of(c, id),
							  h->type == PERF_RECORD_UNTHROTTLE };
		if (h->type == PERF_RECORD_THROTTLE)
			c->throttled++;
		return pla_stream_msg(out, m);
	}
	}
	return 0; /* other records: nothing the viewer uses */
}

int pla_on_record(struct pla_collector *c, struct pla_stream *out,
		  const struct perf_event_header *h)
{
	int rc = on_record(c, out, h);
	if (rc == -EBADMSG) {
		/* skipped, and told as a loss: none of its fields is trusted,
		 * so its time is when it was read and its CPU unknown (0) */
		c->msg.type = PL_MSG_LOST;
		c->msg.u.lost = (struct pl_msg_lost){ PL_LOST_MALFORMED, 0, pla_now_ns(), 1 };
		pla_stream_msg(out, &c->msg); /* a failure: out->dead */
	}
	return rc;
}
