/* syscalls.c — slow system calls (`--syscalls LIST --slower-than
 * DUR`): raw_syscalls:sys_enter and sys_exit, paired per
 * thread on the board, and only the calls over the threshold sent, as
 * SAMPLEs of one TRACEPOINT event "slow-syscalls" whose payload is
 * msg.h's struct pl_slow_syscall and whose stack is the call chain at
 * entry with the registers and stack copy of the exit (msg.h,
 * PL_EVENT_STACK).
 *
 * The entry of each thread inside a call waits in a slot of a table
 * allocated at start (no allocation on the hot path).  When every slot is
 * taken, the new entry is not timed and counted; an entry whose exit never
 * comes (exit, a lost record) is replaced by the thread's next one and
 * counted; an exit without its entry (a call begun before the session) is
 * counted.  The counts go to the viewer in a LOG at the end (msg.h,
 * PL_SLOW_SYSCALLS_NOTE).  Pairing needs each thread's records in time
 * order across CPUs: collect.c drains the rings merged by time in such a
 * session, up to the drain's start. */
#include "collect-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SLOTS 512 /* threads inside a call at the same time */
/* raw_syscalls samples, whatever the session's mode */
#define PLA_SYS_SAMPLE_TYPE                                                                   \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |          \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

struct slot {
	uint32_t tid, pid, nframes, cpu;
	uint64_t time, nr, args[6];
	uint64_t frames[PLA_SYS_FRAMES];
};

/* ─── opening ──────────────────────────────────────────────────────────── */

/* The byte offset of `field` in a tracefs format text, else dflt. */
static unsigned field_at(const char *fmt, const char *field, const char *what, unsigned dflt)
{
	const char *p = pla_strfind(fmt, field);
	p = p ? pla_strfind(p, what) : NULL;
	return p ? (unsigned)pla_strtou64(p + strlen(what), NULL, 10) : dflt;
}

int pla_sys_prepare(struct pla_collector *c, const struct pla_event_spec *s,
		    struct perf_event_attr *a, char *filter, size_t len)
{
	struct pla_sys *y = calloc(1, sizeof(*y) + SLOTS * sizeof(struct slot));
	if (!y)
		return -ENOMEM;
	c->sys = y;
	y->event = c->nevents;
	y->threshold = s->config2;
	y->enter_id = s->config;
	/* where the kernel puts id, args and ret (a kernel's own layout:
	 * `long` is the kernel's word, 8 bytes under a 32-bit agent on a
	 * 64-bit kernel) */
	char fmt[2048];
	y->word = 8;
	y->id_off = 8;
	if (pla_tracepoint_format("raw_syscalls/sys_enter", fmt, sizeof(fmt)) > 0) {
		y->id_off = field_at(fmt, " id;", "offset:", 8);
		y->word = field_at(fmt, " id;", "size:", 8);
		y->args_off = field_at(fmt, " args[6];", "offset:", y->id_off + y->word);
	}
	if (y->word != 4)
		y->word = 8;
	y->ret_off = y->id_off + y->word;
	if (!y->args_off)
		y->args_off = y->ret_off;
	if (pla_tracepoint_format("raw_syscalls/sys_exit", fmt, sizeof(fmt)) > 0)
		y->ret_off = field_at(fmt, " ret;", "offset:", y->ret_off);

	/* the kernel drops the calls not asked for: "id == 0 || id == 1" */
	filter[0] = 0;
	for (const char *p = s->target; *p;) {
		size_t n = strcspn(p, ",");
		snprintf(filter + strlen(filter), len - strlen(filter), "%sid == %.*s",
			 filter[0] ? " || " : "", (int)n, p);
		p += n + (p[n] == ',');
	}
	/* a fixed layout whatever the session's mode: the entry's stack is
	 * the kernel's call chain, the exit adds the copy (pla_sys_exit_attr) */
	a->sample_type = PLA_SYS_SAMPLE_TYPE;
	a->sample_regs_user = 0;
	a->sample_stack_user = 0;
	a->exclude_kernel = 0;
	a->exclude_callchain_user = c->cfg.stacks == PL_STACKS_KERNEL;
	a->exclude_callchain_kernel = c->cfg.stacks == PL_STACKS_USER;
	return 0;
}

void pla_sys_exit_attr(const struct pla_collector *c, const struct pla_event_spec *s,
		       struct perf_event_attr *a)
{
	a->config = s->config1;
	a->exclude_callchain_user = a->exclude_callchain_kernel = 1; /* exits carry no chain */
	/* the registers and stack copy (msg.h, PL_EVENT_STACK): at the exit
	 * they are still the entry's, and only the exit of a slow call has
	 * them sent, where a copy kept per waiting entry would cost a slot
	 * of the table each */
	if (c->cfg.stacks != PL_STACKS_KERNEL) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = c->regs_mask;
		a->sample_stack_user = pla_event_stack(c);
	}
}

uint64_t pla_sys_record_type(const struct pla_collector *c, const uint8_t *raw, uint32_t size)
{
	uint16_t type = 0;
	if (size >= 2)
		memcpy(&type, raw, 2);
	uint64_t t = PLA_SYS_SAMPLE_TYPE;
	if (type != c->sys->enter_id && c->cfg.stacks != PL_STACKS_KERNEL)
		t |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	return t;
}

/* ─── pairing ──────────────────────────────────────────────────────────── */

static uint32_t home(uint32_t tid)
{
	return (tid * 2654435761u) >> 23 & (SLOTS - 1);
}

/* tid's slot; with add, a free one is taken for it (NULL: table full) */
static struct slot *find(struct pla_sys *y, uint32_t tid, int add)
{
	struct slot *t = (struct slot *)(y + 1);
	for (uint32_t n = 0, i = home(tid); n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
		if (t[i].tid == tid)
			return &t[i];
		if (!t[i].tid) {
			if (add) {
				t[i].tid = tid;
				t[i].time = 0;
			}
			return add ? &t[i] : NULL;
		}
	}
	return NULL;
}

/* Frees a slot, moving back those of its probe run that would no
 * longer be found (linear probing's deletion without tombstones). */
static void drop(struct pla_sys *y, struct slot *s)
{
	struct slot *t = (struct slot *)(y + 1);
	uint32_t i = (uint32_t)(s - t), j = i;
	for (;;) {
		t[i].tid = 0;
		for (;;) {
			j = (j + 1) & (SLOTS - 1);
			if (!t[j].tid)
				return;
			uint32_t k = home(t[j].tid);
			/* t[j] stays when its home lies cyclically in (i, j] */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		t[i] = t[j];
		i = j;
	}
}

void pla_sys_thread_gone(struct pla_collector *c, uint32_t tid)
{
	struct slot *s = c->sys ? find(c->sys, tid, 0) : NULL;
	if (s)
		drop(c->sys, s);
}

static uint64_t word_at(const struct pla_sys *y, const uint8_t *raw, uint32_t size, unsigned off)
{
	if (off > size || size - off < y->word)
		return 0;
	if (y->word == 4) {
		uint32_t v;
		memcpy(&v, raw + off, 4);
		return v;
	}
	uint64_t v;
	memcpy(&v, raw + off, 8);
	return v;
}

int pla_sys_sample(struct pla_collector *c, struct pla_stream *out)
{
	struct pl_msg_sample *m = &c->msg.u.sample;
	struct pla_sys *y = c->sys;
	if (m->raw_size < 8)
		return 0;
	uint16_t type;
	memcpy(&type, m->raw, 2);
	uint64_t nr = word_at(y, m->raw, m->raw_size, y->id_off);
	struct slot *s = find(y, m->tid, type == y->enter_id);
	if (type == y->enter_id) {
		if (!s) {
			y->full++;
			return 0;
		}
		y->unfinished += s->time != 0;
		s->pid = m->pid;
		s->time = m->time;
		s->cpu = m->cpu;
		s->nr = nr;
		for (unsigned i = 0; i < 6; i++)
			s->args[i] = word_at(y, m->raw, m->raw_size, y->args_off + i * y->word);
		s->nframes = m->nr_callchain < PLA_SYS_FRAMES ? m->nr_callchain : PLA_SYS_FRAMES;
		memcpy(s->frames, m->callchain, s->nframes * 8);
		return 0;
	}
	if (!s || s->nr != nr || s->time > m->time) {
		y->unmatched++;
		return 0;
	}
	y->timed++;
	uint64_t took = m->time - s->time;
	int64_t ret = (int64_t)word_at(y, m->raw, m->raw_size, y->ret_off);
	if (y->word == 4)
		ret = (int32_t)ret;
	/* the sample, as the entry was: its thread, time and stack */
	struct pl_slow_syscall p = { s->nr, took, (uint64_t)ret,
				     { s->args[0], s->args[1], s->args[2], s->args[3], s->args[4],
				       s->args[5] } };
	m->pid = s->pid;
	m->time = s->time;
	m->cpu = s->cpu;
	m->nr_callchain = s->nframes;
	memcpy(m->callchain, s->frames, s->nframes * 8);
	drop(y, s);
	if (took < y->threshold)
		return 0;
	y->slow++;
	m->raw = (const uint8_t *)&p;
	m->raw_size = sizeof(p);
	return pla_stream_msg(out, &c->msg);
}

int pla_sys_note(struct pla_collector *c, struct pla_stream *out)
{
	struct pla_sys *y = c->sys;
	char text[320];
	snprintf(text, sizeof(text), PL_SLOW_SYSCALLS_NOTE "timed %llu, slow %llu, untimed %llu "
		 "(table full), no exit %llu, no entry %llu.", (unsigned long long)y->timed,
		 (unsigned long long)y->slow, (unsigned long long)y->full,
		 (unsigned long long)y->unfinished, (unsigned long long)y->unmatched);
	return pla_stream_log(out, &c->msg, y->full ? PL_LOG_WARN : PL_LOG_INFO, text);
}
