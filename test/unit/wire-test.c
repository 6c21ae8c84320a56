/* wire-test.c — round trips of every message type, blocks, the stream
 * reader, and malformed input. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "block.h"
#include "msg.h"
#include "pl-test.h"
#include "reader.h"
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
static void batch_sample(int i, struct pl_msg *m)
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
static int example(uint16_t type, struct pl_msg *m)
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
	case PL_MSG_LIST:
	case PL_MSG_PROBE:
	case PL_MSG_PAUSE:
	case PL_MSG_RESUME:
	case PL_MSG_STOP:
	case PL_MSG_BYE:
		m->u.request.request_id = 4000000000u;
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
static int str_eq(struct pl_str a, struct pl_str b)
{
	return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
}

static void check_equal(const struct pl_msg *a, const struct pl_msg *b)
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
	case PL_MSG_LIST:
	case PL_MSG_PROBE:
	case PL_MSG_PAUSE:
	case PL_MSG_RESUME:
	case PL_MSG_STOP:
	case PL_MSG_BYE:
		PL_CHECK(a->u.request.request_id == b->u.request.request_id);
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

static uint8_t big[2u << 20];
static struct pl_msg ma, mb;

static void test_every_type_round_trips(void)
{
	for (size_t i = 0; i < pl_msg_type_count; i++) {
		uint16_t t = pl_msg_types[i];
		PL_CHECKF(example(t, &ma), "no example for message type %u (%s)", t,
			  pl_msg_type_name(t));
		struct pl_writer w;
		pl_w_init(&w, big, sizeof(big));
		PL_CHECKF(pl_msg_encode(&w, &ma) == 0, "encode %s", pl_msg_type_name(t));
		struct pl_frame_header fh;
		char err[160];
		PL_CHECK(pl_frame_header_parse(big, pl_w_len(&w), &fh, err, sizeof(err)) == 0);
		PL_CHECK(fh.type == t && fh.len + PL_FRAME_HEADER_SIZE == pl_w_len(&w));
		PL_CHECKF(pl_msg_decode(t, big + PL_FRAME_HEADER_SIZE, fh.len, &mb, err,
					sizeof(err)) == 0,
			  "%s: %s", pl_msg_type_name(t), err);
		check_equal(&ma, &mb);
		/* every proper prefix of the body is rejected, never read past;
		 * but a SAMPLE cut right before its raw payload (an optional
		 * last field: 1 length byte + 36 bytes here) is a sample without */
		uint32_t tail = t == PL_MSG_SAMPLE ? fh.len - 1 - ma.u.sample.raw_size : UINT32_MAX;
		for (uint32_t cut = 0; cut < fh.len; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);
			memcpy(copy, big + PL_FRAME_HEADER_SIZE, cut);
			int rc = pl_msg_decode(t, copy, cut, &mb, err, sizeof(err));
			free(copy);
			PL_CHECKF(rc == (cut == tail ? 0 : -EBADMSG), "%s cut at %u/%u gave %d",
				  pl_msg_type_name(t), cut, fh.len, rc);
		}
	}
}

static void test_trailing_fields_ignored(void)
{
	/* a newer writer appends fields: still readable */
	example(PL_MSG_COMM, &ma);
	struct pl_writer w;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n = pl_w_len(&w);
	big[n] = 0x05;
	big[n + 1] = 0x7f;
	char err[160];
	PL_CHECK(pl_msg_decode(PL_MSG_COMM, big + 8, n - 8 + 2, &mb, err, sizeof(err)) == 0);
	check_equal(&ma, &mb);
}

/* issue 19: a SAMPLE without raw payload is encoded exactly as before the
 * field existed (a capture of an older agent), and decodes with none; a
 * raw payload cut short is malformed, not silently dropped. */
static void test_sample_raw_optional(void)
{
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.raw_size = 0;
	ma.u.sample.raw = NULL;
	struct pl_writer w;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n0 = pl_w_len(&w);
	char err[160];
	PL_CHECK(pl_msg_decode(PL_MSG_SAMPLE, big + 8, n0 - 8, &mb, err, sizeof(err)) == 0);
	PL_CHECK(mb.u.sample.raw_size == 0 && mb.u.sample.raw == NULL);
	check_equal(&ma, &mb);
	example(PL_MSG_SAMPLE, &ma);
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t n1 = pl_w_len(&w);
	PL_CHECKF(n1 == n0 + 1 + 36, "raw adds its length and bytes: %zu vs %zu", n1, n0);
	PL_CHECK(pl_msg_decode(PL_MSG_SAMPLE, big + 8, n1 - 8 - 1, &mb, err, sizeof(err)) < 0);
	ma.u.sample.raw_size = PL_MAX_RAW + 1;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL);
}

static void test_caps_enforced(void)
{
	char err[160];
	/* a callchain count over the cap, before any entry */
	uint8_t body[64];
	struct pl_writer w;
	pl_w_init(&w, body, sizeof(body));
	for (int i = 0; i < 8; i++)
		pl_w_varint(&w, 1); /* event..cpumode */
	pl_w_varint(&w, PL_MAX_CALLCHAIN + 1);
	PL_CHECK(pl_msg_decode(PL_MSG_SAMPLE, body, pl_w_len(&w), &mb, err, sizeof(err)) ==
		 -E2BIG);
	/* a string length of 2^62 */
	pl_w_init(&w, body, sizeof(body));
	pl_w_varint(&w, 1);
	pl_w_varint(&w, 1ull << 62);
	PL_CHECK(pl_msg_decode(PL_MSG_AUTH, body, pl_w_len(&w), &mb, err, sizeof(err)) < 0);
	/* an 11-byte varint */
	memset(body, 0xff, 11);
	PL_CHECK(pl_msg_decode(PL_MSG_LIST, body, 11, &mb, err, sizeof(err)) == -EBADMSG);
	/* a u8 field holding 256 */
	pl_w_init(&w, body, sizeof(body));
	pl_w_varint(&w, 256);
	pl_w_varint(&w, 1);
	PL_CHECK(pl_msg_decode(PL_MSG_LOG, body, pl_w_len(&w), &mb, err, sizeof(err)) == -E2BIG);
	/* an int32 field out of range */
	pl_w_init(&w, body, sizeof(body));
	pl_w_varint(&w, 1);
	pl_w_varint(&w, 1);
	pl_w_svarint(&w, (int64_t)INT32_MAX + 1);
	PL_CHECK(pl_msg_decode(PL_MSG_REPLY, body, pl_w_len(&w), &mb, err, sizeof(err)) ==
		 -E2BIG);
	/* the encoder refuses over-cap input rather than writing it */
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.nr_callchain = PL_MAX_CALLCHAIN + 1;
	pl_w_init(&w, big, sizeof(big));
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL && pl_w_len(&w) == 0);
	ma.type = 999;
	PL_CHECK(pl_msg_encode(&w, &ma) == -EINVAL);
	PL_CHECK(pl_msg_decode(999, body, 0, &mb, err, sizeof(err)) == -ENOENT);
}

static void test_writer_full_leaves_nothing(void)
{
	uint8_t small[100];
	struct pl_writer w;
	pl_w_init(&w, small, sizeof(small));
	example(PL_MSG_LOG, &ma);
	PL_CHECK(pl_msg_encode(&w, &ma) == 0);
	size_t used = pl_w_len(&w);
	example(PL_MSG_SAMPLE, &ma);
	PL_CHECK(pl_msg_encode(&w, &ma) == -ENOBUFS);
	PL_CHECK(pl_w_len(&w) == used && !w.overflow);
}

/* Build a stream of blocks holding every example, for the reader tests. */
static size_t build_stream(uint8_t *out, size_t cap, int level, int nblocks)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 256 * 1024, level) == 0);
	size_t n = 0;
	pl_stream_header_put(out, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE);
	n = PL_STREAM_HEADER_SIZE;
	for (int b = 0; b < nblocks; b++) {
		for (size_t i = 0; i < pl_msg_type_count; i++) {
			example(pl_msg_types[i], &ma);
			PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
		}
		const uint8_t *blk;
		size_t bn;
		PL_CHECK(pl_block_enc_finish(&e, &blk, &bn) == 0);
		PL_CHECK(n + bn <= cap);
		memcpy(out + n, blk, bn);
		n += bn;
	}
	pl_block_enc_free(&e);
	return n;
}

static uint8_t stream[1u << 20];

/* The reader keeps STACK and STACK_DELTA frames to itself and turns the
 * SAMPLE_BATCH into its samples: messages per copy of the types list. */
#define PER_LIST (pl_msg_type_count - 3 + BATCH_ROWS)

/* The n-th message the reader returns: into *m (example or batch row). */
static void expected(size_t n, struct pl_msg *m)
{
	size_t k = n % PER_LIST;
	for (size_t i = 0; i < pl_msg_type_count; i++) {
		if (pl_msg_types[i] == PL_MSG_STACK || pl_msg_types[i] == PL_MSG_STACK_DELTA)
			continue;
		if (pl_msg_types[i] == PL_MSG_SAMPLE_BATCH) {
			if (k < BATCH_ROWS) {
				batch_sample((int)k, m);
				return;
			}
			k -= BATCH_ROWS;
			continue;
		}
		if (k-- == 0) {
			example(pl_msg_types[i], m);
			return;
		}
	}
}

static int read_all(const uint8_t *p, size_t n, size_t step, size_t *msgs, char *why)
{
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) == 0);
	int rc = 0;
	*msgs = 0;
	for (size_t off = 0; off < n && rc >= 0; off += step) {
		size_t k = n - off < step ? n - off : step;
		PL_CHECK(pl_reader_feed(&r, p + off, k) == 0);
		while ((rc = pl_reader_next(&r, &mb)) == 1) {
			expected(*msgs, &ma);
			PL_CHECKF(mb.type == ma.type, "message %zu type %u want %u", *msgs, mb.type,
				  ma.type);
			check_equal(&ma, &mb);
			(*msgs)++;
		}
	}
	if (rc < 0)
		snprintf(why, 200, "%s", pl_reader_error(&r));
	else if (pl_reader_pending(&r))
		rc = 1; /* torn tail */
	pl_reader_free(&r);
	return rc;
}

static void test_stream_round_trip(void)
{
	for (int level = 0; level <= 3; level += 3) {
		size_t n = build_stream(stream, sizeof(stream), level, 3);
		size_t steps[] = { 1, 7, 4096, n };
		for (size_t s = 0; s < 4; s++) {
			size_t msgs;
			char why[200];
			int rc = read_all(stream, n, steps[s], &msgs, why);
			PL_CHECKF(rc == 0, "level %d step %zu: rc %d %s", level, steps[s], rc,
				  rc < 0 ? why : "");
			PL_CHECK(msgs == 3 * PER_LIST);
		}
	}
}

static void test_torn_tail_keeps_complete_blocks(void)
{
	size_t n = build_stream(stream, sizeof(stream), 3, 3);
	/* cut inside the third block: two blocks' messages, then a pending tail */
	for (size_t cut = n - 1; cut > n - 40; cut -= 13) {
		size_t msgs;
		char why[200];
		int rc = read_all(stream, cut, 1000, &msgs, why);
		PL_CHECK(rc == 1);
		PL_CHECK(msgs == 2 * PER_LIST);
	}
}

static void test_corruption_detected(void)
{
	size_t n = build_stream(stream, sizeof(stream), 3, 2);
	size_t msgs;
	char why[200];
	/* flip a payload byte of the second block: CRC catches it */
	stream[n - 5] ^= 0x40;
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) < 0);
	PL_CHECKF(strstr(why, "checksum") != NULL, "%s", why);
	PL_CHECK(msgs == PER_LIST);
	/* wrong version */
	n = build_stream(stream, sizeof(stream), 3, 1);
	stream[8] = 9;
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == -EPROTO);
	PL_CHECKF(strstr(why, "version") != NULL, "%s", why);
	/* garbage */
	for (size_t i = 0; i < 4096; i++)
		stream[i] = (uint8_t)(i * 31 + 7);
	PL_CHECK(read_all(stream, 4096, 100, &msgs, why) < 0 && msgs == 0);
	/* an oversized block header is refused before buffering it */
	n = build_stream(stream, sizeof(stream), 3, 1);
	pl_put_le32(stream + PL_STREAM_HEADER_SIZE + 8, PL_BLOCK_MAX_STORED + 1);
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == -E2BIG);
}

static void test_unknown_frames_skipped(void)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 65536, 1) == 0);
	uint8_t *h = pl_w_reserve(&e.w, PL_FRAME_HEADER_SIZE + 5);
	struct pl_frame_header fh = { 4000, 0, 5 };
	pl_frame_header_put(h, &fh);
	memset(h + PL_FRAME_HEADER_SIZE, 0xee, 5);
	example(pl_msg_types[0], &ma);
	PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
	const uint8_t *blk;
	size_t bn;
	pl_block_enc_finish(&e, &blk, &bn);
	uint8_t out[8192];
	pl_stream_header_put(out, 0);
	memcpy(out + PL_STREAM_HEADER_SIZE, blk, bn);
	pl_block_enc_free(&e);
	struct pl_reader r;
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, PL_STREAM_HEADER_SIZE + bn);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.type == pl_msg_types[0]);
	PL_CHECK(r.skipped_frames == 1);
	PL_CHECK(pl_reader_next(&r, &mb) == 0);
	pl_reader_free(&r);
}

static void test_small_reader_limit(void)
{
	/* the agent reads commands with a small limit: a big block is refused */
	size_t n = build_stream(stream, sizeof(stream), 0, 1);
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, 1024) == 0);
	pl_reader_feed(&r, stream, n);
	PL_CHECK(pl_reader_next(&r, &mb) == -E2BIG);
	PL_CHECK(strstr(pl_reader_error(&r), "limit") != NULL);
	pl_reader_free(&r);
}

/* Samples compacted as the agent sends them come out of the reader whole:
 * absolute times from deltas, call chains from STACK definitions. */
static void test_reader_expands_compact_samples(void)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 65536, 1) == 0);
	uint8_t out[1 << 16];
	size_t n = PL_STREAM_HEADER_SIZE;
	pl_stream_header_put(out, 0);
	struct pl_msg st = { .type = PL_MSG_STACK };
	st.u.stack.id = 7;
	st.u.stack.nr = 3;
	st.u.stack.chain[0] = (uint64_t)-512;
	st.u.stack.chain[1] = 0x401000;
	st.u.stack.chain[2] = 0x400500;
	uint64_t times[] = { 5000000000ull, 5001000000ull, 4999000000ull /* other CPU */ };
	for (int blk = 0; blk < 2; blk++) {
		if (blk == 0)
			PL_CHECK(pl_msg_encode(&e.w, &st) == 0);
		for (int i = 0; i < 3; i++) {
			example(PL_MSG_SAMPLE, &ma);
			ma.u.sample.nr_callchain = 0;
			ma.u.sample.stack_id = 7;
			ma.u.sample.flags = i ? PL_SAMPLE_TIME_DELTA : 0;
			ma.u.sample.time = i ? times[i] - times[i - 1] : times[0];
			PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
		}
		const uint8_t *b;
		size_t bn;
		pl_block_enc_finish(&e, &b, &bn);
		memcpy(out + n, b, bn);
		n += bn;
	}
	/* a sample naming a stack never defined */
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.nr_callchain = 0;
	ma.u.sample.stack_id = 9;
	PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
	const uint8_t *b;
	size_t bn;
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + n, b, bn);
	n += bn;
	pl_block_enc_free(&e);

	struct pl_reader r;
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, n);
	for (int blk = 0; blk < 2; blk++)
		for (int i = 0; i < 3; i++) {
			PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.type == PL_MSG_SAMPLE);
			PL_CHECK(mb.u.sample.time == times[i] && mb.u.sample.flags == 0);
			PL_CHECK(mb.u.sample.nr_callchain == 3);
			PL_CHECK(!memcmp(mb.u.sample.callchain, st.u.stack.chain, 24));
		}
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 0);
	PL_CHECK(r.unresolved_stacks == 1);
	PL_CHECK(pl_reader_next(&r, &mb) == 0);
	pl_reader_free(&r);

	/* a delta with no base in its block is corrupt, and so is STACK id 0 */
	pl_block_enc_init(&e, 65536, 0);
	example(PL_MSG_SAMPLE, &ma);
	ma.u.sample.flags = PL_SAMPLE_TIME_DELTA;
	pl_msg_encode(&e.w, &ma);
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + PL_STREAM_HEADER_SIZE, b, bn);
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, PL_STREAM_HEADER_SIZE + bn);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	pl_reader_free(&r);
	st.u.stack.id = 0;
	pl_msg_encode(&e.w, &st);
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + PL_STREAM_HEADER_SIZE, b, bn);
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, PL_STREAM_HEADER_SIZE + bn);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECK(strstr(pl_reader_error(&r), "STACK id") != NULL);
	pl_reader_free(&r);
	pl_block_enc_free(&e);
}

/* STACK_DELTA: chains rebuilt from their base (kept head, dropped entries
 * predicted, the rest kept), an id redefined from its own old chain, and
 * the deltas that do not fit refused. */
static size_t one_block(struct pl_msg *msgs, int n, int level, uint8_t *out)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 65536, level) == 0);
	pl_stream_header_put(out, 0);
	for (int i = 0; i < n; i++)
		PL_CHECK(pl_msg_encode(&e.w, &msgs[i]) == 0);
	const uint8_t *b;
	size_t bn;
	pl_block_enc_finish(&e, &b, &bn);
	memcpy(out + PL_STREAM_HEADER_SIZE, b, bn);
	pl_block_enc_free(&e);
	return PL_STREAM_HEADER_SIZE + bn;
}

static void test_reader_stack_delta(void)
{
	static struct pl_msg msgs[5];
	static uint8_t out[1 << 16];
	const uint64_t M = (uint64_t)-512;
	const uint64_t base[] = { M, 0x401010, 0x400500, 0x400100, 0x7f0000001000ull };
	const uint64_t want4[] = { M, 0x401020, 0x402000, 0x400500, 0x400100, 0x7f0000001000ull };
	const uint64_t want3[] = { 0x1234, M, 0x401010, 0x400500, 0x400100, 0x7f0000001000ull };
	msgs[0].type = PL_MSG_STACK;
	msgs[0].u.stack.id = 3;
	msgs[0].u.stack.nr = 5;
	memcpy(msgs[0].u.stack.chain, base, sizeof(base));
	/* id 4: the marker kept, the leaf replaced (predicted by the dropped
	 * leaf), one caller added (predicted by the new leaf) */
	msgs[1].type = PL_MSG_STACK_DELTA;
	msgs[1].u.stack_delta =
		(struct pl_msg_stack_delta){ .id = 4, .base = 3, .head = 1, .drop = 1, .nr = 2 };
	msgs[1].u.stack_delta.diff[0] = 0x10;
	msgs[1].u.stack_delta.diff[1] = 0x402000 - 0x401020;
	/* id 3 again, from its own chain: one entry before it all */
	msgs[2].type = PL_MSG_STACK_DELTA;
	msgs[2].u.stack_delta =
		(struct pl_msg_stack_delta){ .id = 3, .base = 3, .head = 0, .drop = 0, .nr = 1 };
	msgs[2].u.stack_delta.diff[0] = 0x1234;
	for (int k = 3; k < 5; k++) {
		example(PL_MSG_SAMPLE, &msgs[k]);
		msgs[k].u.sample.nr_callchain = 0;
		msgs[k].u.sample.stack_id = k == 3 ? 4 : 3;
	}
	size_t n = one_block(msgs, 5, 1, out);
	struct pl_reader r;
	pl_reader_init(&r, 65536);
	pl_reader_feed(&r, out, n);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 6);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want4, sizeof(want4)));
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 6);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want3, sizeof(want3)));
	PL_CHECK(pl_reader_next(&r, &mb) == 0 && r.unresolved_stacks == 0);
	pl_reader_free(&r);

	/* a base never defined; more kept and dropped than the base has */
	for (int bad = 0; bad < 2; bad++) {
		msgs[1].u.stack_delta = (struct pl_msg_stack_delta){
			.id = 4, .base = bad ? 3 : 9, .head = 3, .drop = bad ? 3 : 0, .nr = 1
		};
		n = one_block(msgs, 2, 1, out);
		pl_reader_init(&r, 65536);
		pl_reader_feed(&r, out, n);
		PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
		PL_CHECKF(strstr(pl_reader_error(&r), bad ? "drops 3 entries of a 5-entry"
							  : "base 9, never defined") != NULL,
			  "%s", pl_reader_error(&r));
		pl_reader_free(&r);
	}
}

/* Blocks that continue one zstd frame (codecs ZSTD_NEW / ZSTD_MORE, as the
 * agent sends them): read whole, and read from the middle as a viewer that
 * saves a later session does, where the orphan tail is skipped. */
static size_t build_chain(uint8_t *out, size_t cap, size_t *starts)
{
	struct pl_block_enc e;
	PL_CHECK(pl_block_enc_init(&e, 256 * 1024, 1) == 0);
	pl_block_enc_set_chain(&e, 1);
	pl_stream_header_put(out, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE);
	size_t n = PL_STREAM_HEADER_SIZE;
	for (int b = 0; b < 4; b++) {
		if (b == 2)
			pl_block_enc_restart(&e); /* a new session: a reader may join */
		for (size_t i = 0; i < pl_msg_type_count; i++) {
			example(pl_msg_types[i], &ma);
			PL_CHECK(pl_msg_encode(&e.w, &ma) == 0);
		}
		const uint8_t *blk;
		size_t bn;
		PL_CHECK(pl_block_enc_finish(&e, &blk, &bn) == 0);
		PL_CHECK(n + bn <= cap);
		starts[b] = n;
		memcpy(out + n, blk, bn);
		n += bn;
	}
	pl_block_enc_free(&e);
	return n;
}

static void test_chained_blocks(void)
{
	size_t starts[4];
	size_t n = build_chain(stream, sizeof(stream), starts);
	static const uint8_t codecs[] = { PL_CODEC_ZSTD_NEW, PL_CODEC_ZSTD_MORE, PL_CODEC_ZSTD_NEW,
					  PL_CODEC_ZSTD_MORE };
	for (int b = 0; b < 4; b++)
		PL_CHECKF(stream[starts[b] + 4] == codecs[b], "block %d codec %u", b,
			  stream[starts[b] + 4]);
	/* later blocks lean on earlier ones: the second is much smaller */
	PL_CHECK(starts[2] - starts[1] < (starts[1] - starts[0]) / 2);
	size_t steps[] = { 1, 999, n };
	for (size_t i = 0; i < 3; i++) {
		size_t msgs;
		char why[200];
		int rc = read_all(stream, n, steps[i], &msgs, why);
		PL_CHECKF(rc == 0, "step %zu: %s", steps[i], rc < 0 ? why : "torn");
		PL_CHECK(msgs == 4 * PER_LIST);
	}
	/* a file saved from block 1 on: its header, then MORE (skipped), NEW, MORE */
	static uint8_t mid[1u << 20];
	memcpy(mid, stream, PL_STREAM_HEADER_SIZE);
	memcpy(mid + PL_STREAM_HEADER_SIZE, stream + starts[1], n - starts[1]);
	size_t mn = PL_STREAM_HEADER_SIZE + n - starts[1];
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) == 0);
	PL_CHECK(pl_reader_feed(&r, mid, mn) == 0);
	size_t msgs = 0;
	int rc;
	while ((rc = pl_reader_next(&r, &mb)) == 1) {
		expected(msgs++, &ma);
		PL_CHECK(mb.type == ma.type);
		check_equal(&ma, &mb);
	}
	PL_CHECKF(rc == 0, "%s", pl_reader_error(&r));
	PL_CHECK(msgs == 2 * PER_LIST && r.skipped_blocks == 1 && r.blocks == 3);
	pl_reader_free(&r);
	/* a chained payload that does not decompress (CRC made right) is an error */
	memcpy(mid, stream, n);
	uint32_t st = pl_get_le32(mid + starts[3] + 8);
	memset(mid + starts[3] + PL_BLOCK_HEADER_SIZE, 0xa5, st);
	pl_put_le32(mid + starts[3] + 16, pl_crc32(0, mid + starts[3] + PL_BLOCK_HEADER_SIZE, st));
	char why[200];
	PL_CHECK(read_all(mid, n, n, &msgs, why) == -EBADMSG);
	PL_CHECKF(strstr(why, "zstd") != NULL, "%s", why);
	PL_CHECK(msgs == 3 * PER_LIST);
}

/* Version 1 streams (captures made before chained blocks and batches) stay
 * readable; a version from the future is refused with advice. */
static void test_version_1_stream_read(void)
{
	size_t n = build_stream(stream, sizeof(stream), 3, 2);
	pl_put_le16(stream + 8, 1);
	size_t msgs;
	char why[200];
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == 0 && msgs == 2 * PER_LIST);
	pl_put_le16(stream + 8, PL_FORMAT_VERSION + 1);
	PL_CHECK(read_all(stream, n, 4096, &msgs, why) == -EPROTO);
	PL_CHECKF(strstr(why, "matching agent and viewer") != NULL, "%s", why);
}

/* A real version-1 capture (fp, zstd blocks, STACK and time-delta
 * compaction), as agents before protocol 2 wrote it. */
static void test_version_1_capture_file(void)
{
	/* the source tree: PL_TOP (test/run.sh), else the current directory */
	char path[4096];
	const char *top = getenv("PL_TOP");
	snprintf(path, sizeof(path), "%s/test/unit/data/v1-fp-zstd.plens", top ? top : ".");
	int fd = open(path, O_RDONLY);
	PL_CHECKF(fd >= 0, "%s: %s (run from the source tree)", path, strerror(errno));
	static uint8_t buf[1u << 20];
	ssize_t n = read(fd, buf, sizeof(buf));
	close(fd);
	PL_CHECK(n > PL_STREAM_HEADER_SIZE && pl_get_le16(buf + 8) == 1);
	struct pl_reader r;
	PL_CHECK(pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) == 0);
	PL_CHECK(pl_reader_feed(&r, buf, (size_t)n) == 0);
	size_t samples = 0, with_chain = 0, hello = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	int rc;
	while ((rc = pl_reader_next(&r, &mb)) == 1) {
		hello += mb.type == PL_MSG_HELLO;
		if (mb.type != PL_MSG_SAMPLE)
			continue;
		samples++;
		with_chain += mb.u.sample.nr_callchain >= 2;
		lo = mb.u.sample.time < lo ? mb.u.sample.time : lo;
		hi = mb.u.sample.time > hi ? mb.u.sample.time : hi;
	}
	PL_CHECKF(rc == 0, "%s", pl_reader_error(&r));
	/* absolute times (deltas undone), within one short recording */
	int near = hi - lo < 60000000000ull;
	PL_CHECKF(hello == 1 && samples > 10 && with_chain == samples && near,
		  "hello %zu samples %zu with chain %zu times %llu..%llu", hello, samples,
		  with_chain, (unsigned long long)lo, (unsigned long long)hi);
	PL_CHECK(r.unresolved_stacks == 0 && pl_reader_pending(&r) == 0);
	pl_reader_free(&r);
}

/* SAMPLE_BATCH columns: both time predictors and µs times come back as
 * built; a bad thread index, short columns, too few columns or too many
 * rows are errors, never reads past the data. */
static void batch_stream(const uint8_t *data, size_t len, uint32_t count, uint64_t base,
			 struct pl_reader *r)
{
	static uint8_t out[1 << 16];
	struct pl_msg *m = &ma;
	memset(m, 0, sizeof(*m));
	m->type = PL_MSG_SAMPLE_BATCH;
	m->u.batch = (struct pl_msg_sample_batch){ count, base, (uint32_t)len, data };
	size_t n = one_block(m, 1, 0, out);
	PL_CHECK(pl_reader_init(r, 65536) == 0);
	PL_CHECK(pl_reader_feed(r, out, n) == 0);
}

/* A batch's DEFS column: stacks defined with no base, from a base in the
 * same column, and an id redefined, all applied before the rows; then the
 * definitions a reader must refuse. */
static void test_batch_defs_column(void)
{
	const uint64_t M = (uint64_t)-512;
	static struct pl_msg_stack_delta d;
	static uint8_t defs[512], data[4096];
	struct pl_writer w;
	uint32_t prev = 0;
	pl_w_init(&w, defs, sizeof(defs));
	/* 1 := [M 0x401000 0x400100 0x7f0000001000] (no base) */
	const uint64_t c1[] = { M, 0x401000, 0x400100, 0x7f0000001000ull };
	d = (struct pl_msg_stack_delta){ .id = 1, .base = 0, .head = 0, .drop = 0, .nr = 4 };
	for (int i = 0; i < 4; i++)
		d.diff[i] = c1[i] - (i ? c1[i - 1] : 0);
	pl_batch_def_put(&w, &prev, &d);
	/* 2 := 1 with the leaf 0x20 further */
	d = (struct pl_msg_stack_delta){ .id = 2, .base = 1, .head = 1, .drop = 1, .nr = 1 };
	d.diff[0] = 0x20;
	pl_batch_def_put(&w, &prev, &d);
	/* 1 := 2 less its leaf (redefined, from a base after it) */
	d = (struct pl_msg_stack_delta){ .id = 1, .base = 2, .head = 1, .drop = 1, .nr = 0 };
	pl_batch_def_put(&w, &prev, &d);
	const uint64_t want1[] = { M, 0x400100, 0x7f0000001000ull };
	const uint64_t want2[] = { M, 0x401020, 0x400100, 0x7f0000001000ull };
	struct pl_batch_thread th = { 5, 5 };
	struct pl_batch_row rows[2] = {
		{ .stack_id = 2, .time = 2000, .ip = 0x401020, .ip_base = 0x401020, .period = 1 },
		{ .stack_id = 1, .time = 3000, .ip = 0x400100, .ip_base = 0x400100, .period = 1 },
	};
	size_t len = pl_batch_build(data, sizeof(data), &th, 1, rows, 2, 1000, 0, defs,
				    pl_w_len(&w));
	PL_CHECK(len > 0);
	struct pl_reader r;
	batch_stream(data, len, 2, 1000, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 4);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want2, sizeof(want2)));
	PL_CHECK(mb.u.sample.ip == 0x401020 && mb.u.sample.time == 2000);
	PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.u.sample.nr_callchain == 3);
	PL_CHECK(!memcmp(mb.u.sample.callchain, want1, sizeof(want1)));
	PL_CHECK(pl_reader_next(&r, &mb) == 0 && r.unresolved_stacks == 0);
	pl_reader_free(&r);

	/* refused: a base never defined, an id 0, a column cut short (DEFS
	 * is the last column: the batch's data one byte short) */
	for (int bad = 0; bad < 3; bad++) {
		pl_w_init(&w, defs, sizeof(defs));
		prev = bad == 1 ? (uint32_t)-1 : 0; /* the next id wraps to 0 */
		d = (struct pl_msg_stack_delta){ .id = bad == 1 ? 0 : 7, .base = bad == 0 ? 9 : 0,
						 .nr = 1 };
		d.diff[0] = 0x401000;
		pl_batch_def_put(&w, &prev, &d);
		len = pl_batch_build(data, sizeof(data), &th, 1, rows, 1, 1000, 0, defs,
				     pl_w_len(&w));
		PL_CHECK(len > 0);
		batch_stream(data, len - (bad == 2), 1, 1000, &r);
		PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
		PL_CHECKF(strstr(pl_reader_error(&r), bad == 0 ? "never defined"
						     : bad == 1 ? "out of range"
								: "short") != NULL,
			  "%d: %s", bad, pl_reader_error(&r));
		pl_reader_free(&r);
	}
	/* refused: a DEFS count larger than the definitions it holds (the
	 * count is the first byte after the columns, where the same batch
	 * without definitions ends) */
	pl_w_init(&w, defs, sizeof(defs));
	prev = 0;
	d = (struct pl_msg_stack_delta){ .id = 1, .nr = 1 };
	d.diff[0] = 0x401000;
	pl_batch_def_put(&w, &prev, &d);
	size_t at = pl_batch_build(data, sizeof(data), &th, 1, rows, 1, 1000, 0, NULL, 0);
	len = pl_batch_build(data, sizeof(data), &th, 1, rows, 1, 1000, 0, defs, pl_w_len(&w));
	PL_CHECK(at > 0 && len > at && data[at] == 1);
	data[at] = 2;
	batch_stream(data, len, 1, 1000, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECKF(strstr(pl_reader_error(&r), "columns") != NULL, "%s", pl_reader_error(&r));
	pl_reader_free(&r);
}

static void test_batch_columns(void)
{
	static struct pl_batch_row rows[200];
	struct pl_batch_thread th[3] = { { 1, 1 }, { 1, 2 }, { 9, 9 } };
	static uint8_t data[16384];
	struct pl_reader r;
	for (int variant = 0; variant < 3; variant++) {
		/* 0: timer ticks of the period (period guess), 1: steady
		 * intervals unlike the period (previous-interval guess), 2: µs */
		uint64_t t[3] = { 1000000, 1000000, 1000000 };
		for (uint32_t i = 0; i < 200; i++) {
			uint32_t k = i % 3;
			t[k] += variant == 1 ? 3000 + i % 2 : 1001001 + (i * 37) % 900;
			rows[i] = (struct pl_batch_row){ .thread = k, .stack_id = i % 4, .event = i % 2,
							 .cpu = i % 5, .cpumode = 2, .time = t[k],
							 .ip = 0x1000 + i, .ip_base = 0,
							 .period = 1001001 + (i > 100) * 5 };
		}
		size_t len = pl_batch_build(data, sizeof(data), th, 3, rows, 200, 1000000,
					    variant == 2 ? PL_BATCH_TIME_US : 0, NULL, 0);
		PL_CHECK(len > 0);
		PL_CHECK((data[0] & PL_BATCH_TIME_PERIOD) == (variant == 1 ? 0 : PL_BATCH_TIME_PERIOD));
		batch_stream(data, len, 200, 1000000, &r);
		for (uint32_t i = 0; i < 200; i++) {
			PL_CHECK(pl_reader_next(&r, &mb) == 1 && mb.type == PL_MSG_SAMPLE);
			const struct pl_msg_sample *x = &mb.u.sample;
			uint64_t want = variant == 2 ? rows[i].time / 1000 * 1000 : rows[i].time;
			PL_CHECKF(x->time == want, "variant %d row %u time %llu want %llu", variant, i,
				  (unsigned long long)x->time, (unsigned long long)want);
			PL_CHECK(x->pid == th[i % 3].pid && x->tid == th[i % 3].tid);
			PL_CHECK(x->stack_id == i % 4 && x->event == i % 2 && x->cpu == i % 5);
			PL_CHECK(x->cpumode == 2 && x->period == rows[i].period);
			PL_CHECK(x->ip == 0x1000 + i && x->flags == 0 && x->nr_regs == 0);
		}
		PL_CHECK(pl_reader_next(&r, &mb) == 0);
		PL_CHECK(r.unresolved_stacks == 150); /* stack ids 1..3 never defined */
		pl_reader_free(&r);
	}
	/* too many rows for the columns: the reader walks the columns to find
	 * them (no lengths), so the batch is refused before its first row */
	rows[0] = (struct pl_batch_row){ .thread = 0, .time = 5 };
	size_t len = pl_batch_build(data, sizeof(data), th, 1, rows, 1, 0, 0, NULL, 0);
	PL_CHECK(data[0] & PL_BATCH_NO_LENS);
	batch_stream(data, len, 2, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECK(strstr(pl_reader_error(&r), "column") != NULL);
	pl_reader_free(&r);
	/* every cut of the data is refused, or yields no more rows than fit */
	len = pl_batch_build(data, sizeof(data), th, 3, rows + 0, 1, 0, 0, NULL, 0);
	for (size_t cut = 0; cut < len; cut++) {
		batch_stream(data, cut, 1, 0, &r);
		PL_CHECK(pl_reader_next(&r, &mb) < 0);
		pl_reader_free(&r);
	}
	/* hand-made: thread index out of the table, too few columns, too many rows */
	struct pl_writer w;
	pl_w_init(&w, data, sizeof(data));
	pl_w_varint(&w, 0);
	pl_w_varint(&w, 1);
	pl_w_varint(&w, 7);
	pl_w_varint(&w, 7);
	pl_w_varint(&w, PL_BATCH_COLS);
	for (int c = 0; c < PL_BATCH_COLS; c++)
		pl_w_varint(&w, 1);
	pl_w_varint(&w, 1); /* THREAD 1 of 1 */
	for (int c = 1; c < PL_BATCH_COLS; c++)
		pl_w_varint(&w, 0);
	batch_stream(data, pl_w_len(&w), 1, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	PL_CHECK(strstr(pl_reader_error(&r), "thread 1 of 1") != NULL);
	pl_reader_free(&r);
	data[4] = PL_BATCH_COLS - 1;
	batch_stream(data, pl_w_len(&w), 1, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -EBADMSG);
	pl_reader_free(&r);
	batch_stream(data, pl_w_len(&w), PL_MAX_BATCH + 1, 0, &r);
	PL_CHECK(pl_reader_next(&r, &mb) == -E2BIG);
	pl_reader_free(&r);
	/* a row naming a thread past the table is refused by the builder */
	rows[0].thread = 3;
	PL_CHECK(pl_batch_build(data, sizeof(data), th, 3, rows, 1, 0, 0, NULL, 0) == 0);
	/* as is a buffer too small */
	rows[0].thread = 0;
	PL_CHECK(pl_batch_build(data, 10, th, 3, rows, 1, 0, 0, NULL, 0) == 0);
}

static void test_crc32_known_value(void)
{
	PL_CHECK(pl_crc32(0, "123456789", 9) == 0xcbf43926u);
}

PL_TEST_MAIN(PL_CASE(test_every_type_round_trips), PL_CASE(test_trailing_fields_ignored),
	     PL_CASE(test_caps_enforced), PL_CASE(test_writer_full_leaves_nothing),
	     PL_CASE(test_stream_round_trip), PL_CASE(test_torn_tail_keeps_complete_blocks),
	     PL_CASE(test_corruption_detected), PL_CASE(test_unknown_frames_skipped),
	     PL_CASE(test_small_reader_limit), PL_CASE(test_reader_expands_compact_samples),
	     PL_CASE(test_reader_stack_delta), PL_CASE(test_batch_defs_column),
	     PL_CASE(test_chained_blocks), PL_CASE(test_version_1_stream_read),
	     PL_CASE(test_version_1_capture_file), PL_CASE(test_batch_columns),
	     PL_CASE(test_crc32_known_value), PL_CASE(test_sample_raw_optional))
