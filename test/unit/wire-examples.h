/* wire-examples.h — the wire tests' fixtures: one filled example of every
 * message type (SAMPLE_BATCH's rows with it) and the field-by-field
 * comparison of a decoded message with its example.  Header-only, included
 * by the wire-*-test.c programs (messages, blocks, compaction); a new
 * message type needs an example and a comparison here, or
 * test_every_type_round_trips fails. */
#ifndef PL_WIRE_EXAMPLES_H
#define PL_WIRE_EXAMPLES_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "msg.h"
#include "pl-test.h"
#include "wire.h"

static uint8_t stack_bytes[4000];
static uint8_t chunk_bytes[3000];

/* The SAMPLE_BATCH example: three rows over two threads, one naming the
 * STACK example's id (defined before it in the types list). */
#define BATCH_ROWS 3
#define BATCH_T0 7000000000123ull
static const struct pl_batch_thread batch_threads[] = { { 100, 101 }, { 100, 102 } };
static const struct pl_batch_row batch_rows[BATCH_ROWS] = {
	{ .thread = 0, .stack_id = PL_MAX_STACK_IDS, .event = 0, .cpu = 1, .cpumode = 2,
	  .time = BATCH_T0, .ip = 0x400123, .ip_base = 0x400123, .period = 1001001 },
	{ .thread = 1, .stack_id = 0, .event = 0, .cpu = 0, .cpumode = 2,
	  .time = BATCH_T0 + 999000, .ip = 0x7f0000001234ull, .ip_base = 0, .period = 1001001 },
	{ .thread = 0, .stack_id = PL_MAX_STACK_IDS, .event = 1, .cpu = 1, .cpumode = 2,
	  .time = BATCH_T0 + 1001500, .ip = 0x400100, .ip_base = 0x400123, .period = 2000000 },
};
static uint8_t batch_bytes[512];

/* The SAMPLE the reader makes of batch row i. */
static inline void batch_sample(int i, struct pl_msg *m)
{
	const struct pl_batch_row *r = &batch_rows[i];
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_SAMPLE;
	struct pl_msg_sample *s = &m->u.sample;
	s->event = r->event;
	s->pid = batch_threads[r->thread].pid;
	s->tid = batch_threads[r->thread].tid;
	s->time = r->time;
	s->stack_id = r->stack_id;
	s->cpu = r->cpu;
	s->period = r->period;
	s->ip = r->ip;
	s->cpumode = r->cpumode;
	if (r->stack_id) {
		uint64_t chain[] = { (uint64_t)-512, 0x400123, 0x400100, 0x7f0000001000ull };
		s->nr_callchain = 4;
		memcpy(s->callchain, chain, sizeof(chain));
	}
}

/* One filled example per type.  A new type without an example fails
 * test_every_type_round_trips. */
static inline int example(uint16_t type, struct pl_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	for (size_t i = 0; i < sizeof(stack_bytes); i++)
		stack_bytes[i] = (uint8_t)(i * 7);
	for (size_t i = 0; i < sizeof(chunk_bytes); i++)
		chunk_bytes[i] = (uint8_t)(i * 13 + 1);
	switch (type) {
	case PL_MSG_HELLO: {
		struct pl_msg_hello *h = &m->u.hello;
		h->protocol_version = PL_PROTOCOL_VERSION;
		h->agent_version = pl_str_c("0.1.0");
		h->machine = pl_str_c("aarch64_be");
		h->e_machine = 183;
		h->byte_order = PL_BIG_ENDIAN;
		h->word_size = 8;
		h->page_size = 65536;
		h->kernel_release = pl_str_c("6.1.0-13-arm64");
		h->hostname = pl_str_c("board-7");
		h->ncpus = 4;
		h->clock_id = 1;
		h->clock_now_ns = 123456789012345ull;
		h->wall_now_ns = 1763700000000000000ull;
		h->flags = PL_HELLO_AUTH_REQUIRED | PL_HELLO_CG_FP;
		h->perf_errno = -38;
		return 1;
	}
	case PL_MSG_PROBE_EVENT: {
		struct pl_msg_probe_event *e = &m->u.probe_event;
		e->name = pl_str_c("cycles");
		e->pmu = pl_str_c("cpu");
		e->type = 0;
		e->config = 0;
		e->status = -EOPNOTSUPP;
		e->flags = PL_PROBE_HARDWARE;
		e->message = pl_str_c("hardware events not supported (VM?)");
		return 1;
	}
	case PL_MSG_PROBE_CALLGRAPH: {
		struct pl_msg_probe_callgraph *c = &m->u.probe_callgraph;
		c->mode = PL_CG_DWARF;
		c->status = 0;
		c->samples = 40;
		c->samples_with_stack = 39;
		c->max_depth = 12;
		c->message = pl_str_c("ok");
		return 1;
	}
	case PL_MSG_PROBE_SUMMARY: {
		struct pl_msg_probe_summary *s = &m->u.probe_summary;
		s->paranoid = 3;
		s->max_sample_rate = 100000;
		s->max_stack = 127;
		s->kptr_restrict = 1;
		s->perf_errno = 0;
		s->kernel_stacks_ok = 1;
		s->user_stacks_ok = 1;
		s->default_event = pl_str_c("cpu-clock");
		s->pmus = pl_str_c("cpu,software,tracepoint");
		s->message = pl_str_c("run as root");
		return 1;
	}
	case PL_MSG_REPLY:
		m->u.reply = (struct pl_msg_reply){ 77, PL_MSG_START, -ESRCH,
						    pl_str_c("no such process 4242") };
		return 1;
	case PL_MSG_PROC:
		m->u.proc = (struct pl_msg_proc){ 3,	     1234, 1,		   0, 5,
						  8000,	     99999, pl_str_c("burn"),
						  pl_str_c("./burn 3 2") };
		return 1;
	case PL_MSG_SESSION:
		m->u.session = (struct pl_msg_session){
			9, PL_TARGET_COMMAND, 555, PL_CG_DWARF, 8192, PL_STACKS_BOTH,
			0xff0fffull, 999, 10000, 129, 5550000000ull, pl_str_c("burn 3 2")
		};
		return 1;
	case PL_MSG_EVENT_DESC:
		m->u.event_desc = (struct pl_msg_event_desc){ 1, PL_ROLE_SAMPLED,
							      pl_str_c("cpu-clock"),
							      1, 0, 0, 0, 1, 999, 1 };
		return 1;
	case PL_MSG_SAMPLE: {
		struct pl_msg_sample *s = &m->u.sample;
		s->event = 2;
		s->pid = 100;
		s->tid = 101;
		s->time = 1000000000123ull;
		s->cpu = 1;
		s->period = 1001001;
		s->ip = 0x55555555a123ull;
		s->cpumode = 2;
		s->nr_callchain = 6;
		uint64_t chain[] = { (uint64_t)-128 /* PERF_CONTEXT_KERNEL */, 0xffffffff81000010ull,
				     (uint64_t)-512 /* PERF_CONTEXT_USER */, 0x55555555a123ull,
				     0x55555555a000ull, 0x7ffff7a00000ull };
		memcpy(s->callchain, chain, sizeof(chain));
		s->regs_abi = 2;
		s->nr_regs = 3;
		s->regs[0] = 1;
		s->regs[1] = UINT64_MAX;
		s->regs[2] = 0x7ffffffde000ull;
		s->stack_size = sizeof(stack_bytes);
		s->stack_requested = 8192;
		s->stack = stack_bytes;
		s->raw_size = 36;
		s->raw = stack_bytes + 100;
		return 1;
	}
	case PL_MSG_STACK:
		m->u.stack.id = PL_MAX_STACK_IDS;
		m->u.stack.nr = 4;
		m->u.stack.chain[0] = (uint64_t)-512;
		m->u.stack.chain[1] = 0x400123;
		m->u.stack.chain[2] = 0x400100;
		m->u.stack.chain[3] = 0x7f0000001000ull;
		return 1;
	case PL_MSG_STACK_DELTA:
		/* from the STACK above (which comes first in the types list) */
		m->u.stack_delta = (struct pl_msg_stack_delta){
			.id = PL_MAX_STACK_IDS - 1, .base = PL_MAX_STACK_IDS, .head = 1, .drop = 2, .nr = 3
		};
		m->u.stack_delta.diff[0] = 5;
		m->u.stack_delta.diff[1] = (uint64_t)-3;
		m->u.stack_delta.diff[2] = 0x1000;
		return 1;
	case PL_MSG_SAMPLE_BATCH: {
		size_t len = pl_batch_build(batch_bytes, sizeof(batch_bytes), batch_threads, 2,
					    batch_rows, BATCH_ROWS, BATCH_T0 - 77, 0, NULL, 0);
		PL_CHECK(len > 0);
		m->u.batch = (struct pl_msg_sample_batch){ BATCH_ROWS, BATCH_T0 - 77, (uint32_t)len,
							   batch_bytes };
		return 1;
	}
	case PL_MSG_MMAP: {
		struct pl_msg_mmap *p = &m->u.mmap;
		*p = (struct pl_msg_mmap){ .pid = 1,	      .tid = 2,	   .time = 3,
					   .start = 0x400000, .len = 0x1000, .pgoff = 0x2000,
					   .prot = 5,	      .flags = 2,  .maj = 8,
					   .min = 1,	      .ino = 77,   .cpumode = 2,
					   .snapshot = 1,     .build_id_len = 20 };
		for (int i = 0; i < 20; i++)
			p->build_id[i] = (uint8_t)(0xa0 + i);
		p->filename = pl_str_c("/usr/lib/libc.so.6");
		return 1;
	}
	case PL_MSG_COMM:
		m->u.comm = (struct pl_msg_comm){ 10, 11, 12, 1, 0, pl_str_c("burn-1") };
		return 1;
	case PL_MSG_TASK:
		m->u.task = (struct pl_msg_task){ PL_TASK_EXIT, 10, 1, 11, 10, 99 };
		return 1;
	case PL_MSG_SWITCH:
		m->u.sw = (struct pl_msg_switch){ 10, 11, 500, 1, PL_SWITCH_OUT | PL_SWITCH_PREEMPT,
						  0, 0 };
		return 1;
	case PL_MSG_LOST:
		m->u.lost = (struct pl_msg_lost){ PL_LOST_RING, 1, 9, 1234 };
		return 1;
	case PL_MSG_THROTTLE:
		m->u.throttle = (struct pl_msg_throttle){ 77, 0, 1 };
		return 1;
	case PL_MSG_COUNTERS: {
		struct pl_msg_counters *c = &m->u.counters;
		c->time = 42;
		c->n = 3;
		for (uint32_t i = 0; i < 3; i++)
			c->v[i] = (struct pl_counter_value){ i, 1000 * i + 7, 5000, 4000 };
		return 1;
	}
	case PL_MSG_HEALTH:
		m->u.health = (struct pl_msg_health){ 1, 4, 250, 1 << 20, 1 << 19, 12, 34, 56,
						      777, 3000, 100, 2, 3, 4, 50000, 9000 };
		return 1;
	case PL_MSG_BUILD_ID: {
		struct pl_msg_build_id *b = &m->u.build_id;
		b->pid = 5;
		b->source = PL_BUILD_ID_ELF_NOTE;
		b->len = 20;
		for (int i = 0; i < 20; i++)
			b->id[i] = (uint8_t)i;
		b->path = pl_str_c("/bin/busybox");
		return 1;
	}
	case PL_MSG_FILE_CHUNK:
		m->u.chunk = (struct pl_msg_file_chunk){ PL_CHUNK_VDSO, 9, 0x7fff0000, 0, 8192,
							 pl_str_c("[vdso]"), sizeof(chunk_bytes),
							 chunk_bytes };
		return 1;
	case PL_MSG_END:
		m->u.end = (struct pl_msg_end){ PL_END_TARGET_EXITED, 0, 1234,
						pl_str_c("target exited") };
		return 1;
	case PL_MSG_LOG:
		m->u.log = (struct pl_msg_log){ PL_LOG_WARN, pl_str_c("falling back to cpu-clock") };
		return 1;
	case PL_MSG_AUTH:
		m->u.auth = (struct pl_msg_auth){ 1, pl_str_c("s3cret-token") };
		return 1;
	case PL_MSG_REPORT:
		m->u.report.token = pl_str_c("s3cret-token");
		m->u.report.nlabels = 2;
		m->u.report.labels[0] = pl_str_c("fw=2.3.1");
		m->u.report.labels[1] = pl_str_c("board=imx8mp");
		m->u.report.session_period_ms = 60000;
		return 1;
	case PL_MSG_LIST:
	case PL_MSG_PROBE:
	case PL_MSG_PAUSE:
	case PL_MSG_RESUME:
	case PL_MSG_STOP:
	case PL_MSG_BYE:
	case PL_MSG_SNAPSHOT:
		m->u.request.request_id = 4000000000u;
		return 1;
	case PL_MSG_TRIGGER:
		m->u.trigger = (struct pl_msg_trigger){ PL_TRIGGER_MARKER, 5000000000ull, 3000000000ull,
							6000000000ull, pl_str_c("marker:gl.tch"),
							pl_str_c("glitch at frame 7") };
		return 1;
	case PL_MSG_START: {
		struct pl_msg_start *s = &m->u.start;
		s->request_id = 12;
		s->target = PL_TARGET_COMMAND;
		s->pid = 0;
		s->argc = 3;
		s->argv[0] = pl_str_c("./burn");
		s->argv[1] = pl_str_c("3");
		s->argv[2] = pl_str_c("2");
		s->nevents = 2;
		s->events[0] = pl_str_c("cpu-clock/999/");
		s->events[1] = pl_str_c("r00c0");
		s->frequency = 999;
		s->callgraph = PL_CG_FP;
		s->stack_size = 0;
		s->stacks = PL_STACKS_USER;
		s->duration_ms = 3000;
		s->flags = PL_START_COUNTERS;
		s->counter_interval_ms = 100;
		s->track_interval_ms = 100; /* one varint byte, last (the truncation test) */
		return 1;
	}
	case PL_MSG_TRACK_DESC:
		m->u.track_desc = (struct pl_msg_track_desc){
			3, PL_TRACK_POWER, -6, 0, -1, 100, pl_str_c("hwmon ina226 power1 VDD_CPU"),
			pl_str_c("W"), pl_str_c("/sys/class/hwmon/hwmon0/power1_input")
		};
		return 1;
	case PL_MSG_TRACK_VALUES: {
		struct pl_msg_track_values *v = &m->u.track_values;
		v->time = 7000000123456ull;
		v->first = 1;
		v->n = 4;
		v->v[0] = 104857600;              /* an RSS in bytes */
		v->v[1] = (uint64_t)(int64_t)-5500; /* a temperature below zero (m°C) */
		v->v[2] = (uint64_t)PL_TRACK_NONE;  /* not read */
		v->v[3] = 1800000;                /* kHz */
		return 1;
	}
	case PL_MSG_CONFIGURE:
		m->u.configure.request_id = 5;
		m->u.configure.frequency = 4999;
		m->u.configure.nevents = 1;
		m->u.configure.events[0] = pl_str_c("task-clock");
		return 1;
	}
	return 0;
}

/* Field-by-field comparison through a canonical re-encoding would hide
 * symmetric bugs; compare the decoded struct against the example instead.
 * pl_str and borrowed pointers are compared by content. */
static inline int str_eq(struct pl_str a, struct pl_str b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

static inline void check_equal(const struct pl_msg *a, const struct pl_msg *b)
{
	PL_CHECK(a->type == b->type);
	switch (a->type) {
	case PL_MSG_HELLO: {
		const struct pl_msg_hello *x = &a->u.hello, *y = &b->u.hello;
		PL_CHECK(x->protocol_version == y->protocol_version);
		PL_CHECK(str_eq(x->agent_version, y->agent_version));
		PL_CHECK(str_eq(x->machine, y->machine));
		PL_CHECK(x->e_machine == y->e_machine && x->byte_order == y->byte_order);
		PL_CHECK(x->word_size == y->word_size && x->page_size == y->page_size);
		PL_CHECK(str_eq(x->kernel_release, y->kernel_release));
		PL_CHECK(str_eq(x->hostname, y->hostname));
		PL_CHECK(x->ncpus == y->ncpus && x->clock_id == y->clock_id);
		PL_CHECK(x->clock_now_ns == y->clock_now_ns && x->wall_now_ns == y->wall_now_ns);
		PL_CHECK(x->flags == y->flags && x->perf_errno == y->perf_errno);
		return;
	}
	case PL_MSG_PROBE_EVENT: {
		const struct pl_msg_probe_event *x = &a->u.probe_event, *y = &b->u.probe_event;
		PL_CHECK(str_eq(x->name, y->name) && str_eq(x->pmu, y->pmu));
		PL_CHECK(x->type == y->type && x->config == y->config);
		PL_CHECK(x->status == y->status && x->flags == y->flags);
		PL_CHECK(str_eq(x->message, y->message));
		return;
	}
	case PL_MSG_PROBE_CALLGRAPH: {
		const struct pl_msg_probe_callgraph *x = &a->u.probe_callgraph,
						    *y = &b->u.probe_callgraph;
		PL_CHECK(x->mode == y->mode && x->status == y->status);
		PL_CHECK(x->samples == y->samples && x->samples_with_stack == y->samples_with_stack);
		PL_CHECK(x->max_depth == y->max_depth && str_eq(x->message, y->message));
		return;
	}
	case PL_MSG_PROBE_SUMMARY: {
		const struct pl_msg_probe_summary *x = &a->u.probe_summary,
						  *y = &b->u.probe_summary;
		PL_CHECK(x->paranoid == y->paranoid && x->max_sample_rate == y->max_sample_rate);
		PL_CHECK(x->max_stack == y->max_stack && x->kptr_restrict == y->kptr_restrict);
		PL_CHECK(x->perf_errno == y->perf_errno);
		PL_CHECK(x->kernel_stacks_ok == y->kernel_stacks_ok);
		PL_CHECK(x->user_stacks_ok == y->user_stacks_ok);
		PL_CHECK(str_eq(x->default_event, y->default_event));
		PL_CHECK(str_eq(x->pmus, y->pmus) && str_eq(x->message, y->message));
		return;
	}
	case PL_MSG_REPLY:
		PL_CHECK(a->u.reply.request_id == b->u.reply.request_id);
		PL_CHECK(a->u.reply.command == b->u.reply.command);
		PL_CHECK(a->u.reply.status == b->u.reply.status);
		PL_CHECK(str_eq(a->u.reply.message, b->u.reply.message));
		return;
	case PL_MSG_PROC: {
		const struct pl_msg_proc *x = &a->u.proc, *y = &b->u.proc;
		PL_CHECK(x->request_id == y->request_id && x->pid == y->pid && x->ppid == y->ppid);
		PL_CHECK(x->uid == y->uid && x->threads == y->threads && x->rss_kb == y->rss_kb);
		PL_CHECK(x->cpu_ms == y->cpu_ms && str_eq(x->comm, y->comm));
		PL_CHECK(str_eq(x->cmdline, y->cmdline));
		return;
	}
	case PL_MSG_SESSION: {
		const struct pl_msg_session *x = &a->u.session, *y = &b->u.session;
		PL_CHECK(x->session_id == y->session_id && x->target == y->target);
		PL_CHECK(x->pid == y->pid && x->callgraph == y->callgraph);
		PL_CHECK(x->stack_size == y->stack_size && x->stacks == y->stacks);
		PL_CHECK(x->sample_regs_user == y->sample_regs_user);
		PL_CHECK(x->frequency == y->frequency && x->duration_ms == y->duration_ms);
		PL_CHECK(x->ring_pages == y->ring_pages && x->start_ns == y->start_ns);
		PL_CHECK(str_eq(x->command, y->command));
		return;
	}
	case PL_MSG_EVENT_DESC: {
		const struct pl_msg_event_desc *x = &a->u.event_desc, *y = &b->u.event_desc;
		PL_CHECK(x->index == y->index && x->role == y->role && str_eq(x->name, y->name));
		PL_CHECK(x->type == y->type && x->config == y->config);
		PL_CHECK(x->config1 == y->config1 && x->config2 == y->config2);
		PL_CHECK(x->freq == y->freq && x->period_or_freq == y->period_or_freq);
		PL_CHECK(x->exclude_kernel == y->exclude_kernel);
		return;
	}
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *x = &a->u.sample, *y = &b->u.sample;
		PL_CHECK(x->event == y->event && x->pid == y->pid && x->tid == y->tid);
		PL_CHECK(x->flags == y->flags && x->stack_id == y->stack_id);
		PL_CHECK(x->time == y->time && x->cpu == y->cpu && x->period == y->period);
		PL_CHECK(x->ip == y->ip && x->cpumode == y->cpumode);
		PL_CHECK(x->nr_callchain == y->nr_callchain);
		PL_CHECK(!x->nr_callchain || !memcmp(x->callchain, y->callchain, x->nr_callchain * 8));
		PL_CHECK(x->regs_abi == y->regs_abi && x->nr_regs == y->nr_regs);
		PL_CHECK(!x->nr_regs || !memcmp(x->regs, y->regs, x->nr_regs * 8));
		PL_CHECK(x->stack_size == y->stack_size && x->stack_requested == y->stack_requested);
		/* empty arrays may be NULL: memcmp must not see them */
		PL_CHECK(!x->stack_size || !memcmp(x->stack, y->stack, x->stack_size));
		PL_CHECK(x->raw_size == y->raw_size);
		PL_CHECK(!x->raw_size || !memcmp(x->raw, y->raw, x->raw_size));
		return;
	}
	case PL_MSG_MMAP: {
		const struct pl_msg_mmap *x = &a->u.mmap, *y = &b->u.mmap;
		PL_CHECK(x->pid == y->pid && x->tid == y->tid && x->time == y->time);
		PL_CHECK(x->start == y->start && x->len == y->len && x->pgoff == y->pgoff);
		PL_CHECK(x->prot == y->prot && x->flags == y->flags);
		PL_CHECK(x->maj == y->maj && x->min == y->min && x->ino == y->ino);
		PL_CHECK(x->cpumode == y->cpumode && x->snapshot == y->snapshot);
		PL_CHECK(x->build_id_len == y->build_id_len);
		PL_CHECK(!memcmp(x->build_id, y->build_id, x->build_id_len));
		PL_CHECK(str_eq(x->filename, y->filename));
		return;
	}
	case PL_MSG_SAMPLE_BATCH:
		PL_CHECK(a->u.batch.count == b->u.batch.count);
		PL_CHECK(a->u.batch.base_time == b->u.batch.base_time);
		PL_CHECK(a->u.batch.len == b->u.batch.len);
		PL_CHECK(!memcmp(a->u.batch.data, b->u.batch.data, a->u.batch.len));
		return;
	case PL_MSG_STACK:
		PL_CHECK(a->u.stack.id == b->u.stack.id && a->u.stack.nr == b->u.stack.nr);
		PL_CHECK(!memcmp(a->u.stack.chain, b->u.stack.chain, a->u.stack.nr * 8));
		return;
	case PL_MSG_STACK_DELTA: {
		const struct pl_msg_stack_delta *x = &a->u.stack_delta, *y = &b->u.stack_delta;
		PL_CHECK(x->id == y->id && x->base == y->base && x->head == y->head);
		PL_CHECK(x->drop == y->drop && x->nr == y->nr);
		PL_CHECK(!memcmp(x->diff, y->diff, x->nr * 8));
		return;
	}
	case PL_MSG_COMM:
		PL_CHECK(a->u.comm.pid == b->u.comm.pid && a->u.comm.tid == b->u.comm.tid);
		PL_CHECK(a->u.comm.time == b->u.comm.time && a->u.comm.exec == b->u.comm.exec);
		PL_CHECK(a->u.comm.snapshot == b->u.comm.snapshot);
		PL_CHECK(str_eq(a->u.comm.comm, b->u.comm.comm));
		return;
	case PL_MSG_TASK:
		PL_CHECK(!memcmp(&a->u.task, &b->u.task, sizeof(a->u.task)));
		return;
	case PL_MSG_SWITCH:
		PL_CHECK(!memcmp(&a->u.sw, &b->u.sw, sizeof(a->u.sw)));
		return;
	case PL_MSG_LOST:
		PL_CHECK(!memcmp(&a->u.lost, &b->u.lost, sizeof(a->u.lost)));
		return;
	case PL_MSG_THROTTLE:
		PL_CHECK(!memcmp(&a->u.throttle, &b->u.throttle, sizeof(a->u.throttle)));
		return;
	case PL_MSG_COUNTERS:
		PL_CHECK(a->u.counters.time == b->u.counters.time);
		PL_CHECK(a->u.counters.n == b->u.counters.n);
		PL_CHECK(!memcmp(a->u.counters.v, b->u.counters.v,
				 a->u.counters.n * sizeof(a->u.counters.v[0])));
		return;
	case PL_MSG_HEALTH:
		PL_CHECK(!memcmp(&a->u.health, &b->u.health, sizeof(a->u.health)));
		return;
	case PL_MSG_BUILD_ID:
		PL_CHECK(a->u.build_id.pid == b->u.build_id.pid);
		PL_CHECK(a->u.build_id.source == b->u.build_id.source);
		PL_CHECK(a->u.build_id.len == b->u.build_id.len);
		PL_CHECK(!memcmp(a->u.build_id.id, b->u.build_id.id, a->u.build_id.len));
		PL_CHECK(str_eq(a->u.build_id.path, b->u.build_id.path));
		return;
	case PL_MSG_FILE_CHUNK: {
		const struct pl_msg_file_chunk *x = &a->u.chunk, *y = &b->u.chunk;
		PL_CHECK(x->kind == y->kind && x->pid == y->pid && x->addr == y->addr);
		PL_CHECK(x->offset == y->offset && x->total == y->total);
		PL_CHECK(str_eq(x->name, y->name) && x->len == y->len);
		PL_CHECK(!x->len || !memcmp(x->data, y->data, x->len));
		return;
	}
	case PL_MSG_END:
		PL_CHECK(a->u.end.reason == b->u.end.reason && a->u.end.status == b->u.end.status);
		PL_CHECK(a->u.end.time == b->u.end.time);
		PL_CHECK(str_eq(a->u.end.message, b->u.end.message));
		return;
	case PL_MSG_LOG:
		PL_CHECK(a->u.log.level == b->u.log.level);
		PL_CHECK(str_eq(a->u.log.message, b->u.log.message));
		return;
	case PL_MSG_AUTH:
		PL_CHECK(a->u.auth.request_id == b->u.auth.request_id);
		PL_CHECK(str_eq(a->u.auth.token, b->u.auth.token));
		return;
	case PL_MSG_REPORT:
		PL_CHECK(str_eq(a->u.report.token, b->u.report.token));
		PL_CHECK(a->u.report.nlabels == b->u.report.nlabels);
		for (uint32_t i = 0; i < a->u.report.nlabels; i++)
			PL_CHECK(str_eq(a->u.report.labels[i], b->u.report.labels[i]));
		PL_CHECK(a->u.report.session_period_ms == b->u.report.session_period_ms);
		return;
	case PL_MSG_LIST:
	case PL_MSG_PROBE:
	case PL_MSG_PAUSE:
	case PL_MSG_RESUME:
	case PL_MSG_STOP:
	case PL_MSG_BYE:
	case PL_MSG_SNAPSHOT:
		PL_CHECK(a->u.request.request_id == b->u.request.request_id);
		return;
	case PL_MSG_TRIGGER:
		PL_CHECK(a->u.trigger.kind == b->u.trigger.kind && a->u.trigger.time == b->u.trigger.time);
		PL_CHECK(a->u.trigger.from == b->u.trigger.from && a->u.trigger.to == b->u.trigger.to);
		PL_CHECK(str_eq(a->u.trigger.spec, b->u.trigger.spec));
		PL_CHECK(str_eq(a->u.trigger.detail, b->u.trigger.detail));
		return;
	case PL_MSG_START: {
		const struct pl_msg_start *x = &a->u.start, *y = &b->u.start;
		PL_CHECK(x->request_id == y->request_id && x->target == y->target);
		PL_CHECK(x->pid == y->pid && x->argc == y->argc && x->nevents == y->nevents);
		for (uint32_t i = 0; i < x->argc; i++)
			PL_CHECK(str_eq(x->argv[i], y->argv[i]));
		for (uint32_t i = 0; i < x->nevents; i++)
			PL_CHECK(str_eq(x->events[i], y->events[i]));
		PL_CHECK(x->frequency == y->frequency && x->callgraph == y->callgraph);
		PL_CHECK(x->stack_size == y->stack_size && x->stacks == y->stacks);
		PL_CHECK(x->duration_ms == y->duration_ms && x->flags == y->flags);
		PL_CHECK(x->counter_interval_ms == y->counter_interval_ms);
		PL_CHECK(x->track_interval_ms == y->track_interval_ms);
		return;
	}
	case PL_MSG_TRACK_DESC: {
		const struct pl_msg_track_desc *x = &a->u.track_desc, *y = &b->u.track_desc;
		PL_CHECK(x->id == y->id && x->kind == y->kind && x->exp10 == y->exp10);
		PL_CHECK(x->pid == y->pid && x->cpu == y->cpu && x->interval_ms == y->interval_ms);
		PL_CHECK(str_eq(x->name, y->name) && str_eq(x->unit, y->unit));
		PL_CHECK(str_eq(x->source, y->source));
		return;
	}
	case PL_MSG_TRACK_VALUES: {
		const struct pl_msg_track_values *x = &a->u.track_values, *y = &b->u.track_values;
		PL_CHECK(x->time == y->time && x->first == y->first && x->n == y->n);
		for (uint32_t i = 0; i < x->n && i < PL_MAX_TRACKS; i++)
			PL_CHECKF(x->v[i] == y->v[i], "track value %u", i);
		return;
	}
	case PL_MSG_CONFIGURE:
		PL_CHECK(a->u.configure.request_id == b->u.configure.request_id);
		PL_CHECK(a->u.configure.frequency == b->u.configure.frequency);
		PL_CHECK(a->u.configure.nevents == b->u.configure.nevents);
		PL_CHECK(str_eq(a->u.configure.events[0], b->u.configure.events[0]));
		return;
	}
	PL_CHECKF(0, "no comparison for type %u", a->type);
}

/* The message a case builds (often an example) and the one it decodes. */
static struct pl_msg ma, mb;

#endif
