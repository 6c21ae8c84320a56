/* viewer-model-irq-test.c — the pairing of pl-irq.h and pl-block-io.h on
 * streams whose answer is known by construction: the messages an agent
 * sends (EVENT_DESC, the tracefs formats as FILE_CHUNKs, SAMPLEs with raw
 * payloads laid out by those formats) fed to a real PlProfile.
 *   irq_nesting      a hardirq inside a softirq on one CPU: the softirq's
 *                    time is its own, the hardirq's is counted once, the
 *                    nesting counted; per-CPU counts land on their CPU
 *   irq_edges        an exit before any entry (the recording began inside
 *                    a handler), an entry never closed, an exit of another
 *                    vector than the one open: each counted, none timed
 *   block_pairing    issue → complete by (dev, sector) with latency and
 *                    size; a completion in two parts; a completion whose
 *                    issue came before; a request still in flight; an
 *                    issue again of a (dev, sector) in flight; percentiles
 *   kernel_fields    the running kernel's formats of the five tracepoints
 *                    carry every field the models read (tracefs) */
#include <string.h>

#include "viewer-test-util.h"

#include "pl-block-io.h"
#include "pl-irq.h"
#include "pl-tracepoint.h"

/* this kernel's formats (6.18), common fields elided as the agent's
 * formats never lack them but the models do not read them */
static const char hentry_fmt[] =
	"name: irq_handler_entry\nID: 1\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n";
static const char hexit_fmt[] =
	"name: irq_handler_exit\nID: 2\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n";
static const char sentry_fmt[] =
	"name: softirq_entry\nID: 3\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n";
static const char sexit_fmt[] =
	"name: softirq_exit\nID: 4\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned int vec;\toffset:8;\tsize:4;\tsigned:0;\n";
static const char issue_fmt[] =
	"name: block_rq_issue\nID: 5\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:44;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:60;\tsize:4;\tsigned:0;\n";
static const char complete_fmt[] =
	"name: block_rq_complete\nID: 6\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;\n";

enum { HENTRY, HEXIT, SENTRY, SEXIT, ISSUE, COMPLETE, N_EV };
static const char *const ev_names[N_EV] = {
	"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry",
	"irq:softirq_exit",      "block:block_rq_issue", "block:block_rq_complete",
};
static const char *const ev_fmts[N_EV] = { hentry_fmt, hexit_fmt,  sentry_fmt,
					   sexit_fmt,  issue_fmt,  complete_fmt };

#define T0 1000000000ull

static void put(guint8 *p, guint64 v, guint size)
{
	for (guint i = 0; i < size; i++)
		p[i] = (guint8)(v >> (8 * i));
}

static PlProfile *new_profile(void)
{
	PlProfile *p = pl_profile_new(NULL);
	struct pl_msg m = { .type = PL_MSG_SESSION };
	m.u.session.target = PL_TARGET_ALL;
	pl_profile_ingest(&m, p);
	for (guint i = 0; i < N_EV; i++) {
		struct pl_msg d = { .type = PL_MSG_EVENT_DESC };
		d.u.event_desc.index = i;
		d.u.event_desc.role = PL_ROLE_TRACEPOINT;
		d.u.event_desc.name = pl_str_c(ev_names[i]);
		pl_profile_ingest(&d, p);
		struct pl_msg c = { .type = PL_MSG_FILE_CHUNK };
		c.u.chunk.kind = PL_CHUNK_TRACE_FORMAT;
		c.u.chunk.pid = i;
		c.u.chunk.name = pl_str_c(ev_names[i]);
		c.u.chunk.len = (guint32)strlen(ev_fmts[i]);
		c.u.chunk.total = c.u.chunk.len;
		c.u.chunk.data = (const guint8 *)ev_fmts[i];
		pl_profile_ingest(&c, p);
	}
	return p;
}

static void sample(PlProfile *p, guint ev, guint64 t, guint cpu, const guint8 *raw, guint len)
{
	struct pl_msg m = { .type = PL_MSG_SAMPLE };
	m.u.sample.event = ev;
	m.u.sample.pid = m.u.sample.tid = 100 + cpu;
	m.u.sample.time = T0 + t;
	m.u.sample.cpu = cpu;
	m.u.sample.period = 1;
	m.u.sample.raw_size = len;
	m.u.sample.raw = raw;
	pl_profile_ingest(&m, p);
}

/* irq (hardirq, with its handler's name on entry) or vector */
static void irq_ev(PlProfile *p, guint ev, guint64 t, guint cpu, guint number, const char *name)
{
	guint8 raw[64] = { 0 };
	put(raw, 1 + ev, 2);
	put(raw + 8, number, 4);
	guint len = 16;
	if (ev == HENTRY) {
		guint n = (guint)strlen(name) + 1;
		put(raw + 12, (n << 16) | 16, 4);
		memcpy(raw + 16, name, n);
		len = 16 + n;
	}
	sample(p, ev, t, cpu, raw, len);
}

static void blk_ev(PlProfile *p, guint ev, guint64 t, guint32 dev, guint64 sector, guint nr,
		   const char *rwbs)
{
	guint8 raw[72] = { 0 };
	put(raw, 1 + ev, 2);
	put(raw + 8, dev, 4);
	put(raw + 16, sector, 8);
	put(raw + 24, nr, 4);
	if (ev == ISSUE)
		put(raw + 28, nr * 512u, 4);
	memcpy(raw + 34, rwbs, strlen(rwbs));
	sample(p, ev, t, 0, raw, ev == ISSUE ? 64 : 48);
}

static const PlIrqSource *find(const PlIrqStats *s, PlIrqKind kind, guint number)
{
	for (guint i = 0; i < s->sources->len; i++) {
		const PlIrqSource *src = s->sources->pdata[i];
		if (src->kind == kind && src->number == number)
			return src;
	}
	return NULL;
}

static void irq_nesting(void)
{
	g_autoptr(PlProfile) p = new_profile();
	/* CPU 0: NET_RX 100..200 with IRQ 36 inside at 120..130; then IRQ 36
	 * again alone 300..305; CPU 1: TIMER 400..450 */
	irq_ev(p, SENTRY, 100, 0, 3, NULL);
	irq_ev(p, HENTRY, 120, 0, 36, "virtio1-req.0");
	irq_ev(p, HEXIT, 130, 0, 36, NULL);
	irq_ev(p, SEXIT, 200, 0, 3, NULL);
	irq_ev(p, HENTRY, 300, 0, 36, "virtio1-req.0");
	irq_ev(p, HEXIT, 305, 0, 36, NULL);
	irq_ev(p, SENTRY, 400, 1, 1, NULL);
	irq_ev(p, SEXIT, 450, 1, 1, NULL);
	pl_profile_finish(p);
	g_autoptr(PlIrqStats) s = pl_irq_stats_new(p);
	PL_CHECK(s->have_hard && s->have_soft && !s->per_task);
	PL_CHECKF(s->ncpus == 2, "%u CPUs", s->ncpus);
	const PlIrqSource *net = find(s, PL_IRQ_SOFT, 3), *timer = find(s, PL_IRQ_SOFT, 1);
	const PlIrqSource *disk = find(s, PL_IRQ_HARD, 36);
	PL_CHECK(net && timer && disk);
	PL_CHECKF(!strcmp(net->name, "NET_RX") && !strcmp(timer->name, "TIMER") &&
			  !strcmp(disk->name, "virtio1-req.0"),
		  "%s %s %s", net->name, timer->name, disk->name);
	PL_CHECKF(net->count == 1 && net->time_ns == 90, "NET_RX %" G_GUINT64_FORMAT " runs, %"
		  G_GUINT64_FORMAT " ns (want 1, 100 less the 10 of IRQ 36)", net->count,
		  net->time_ns);
	PL_CHECKF(disk->count == 2 && disk->time_ns == 15 && disk->max_ns == 10,
		  "IRQ 36: %" G_GUINT64_FORMAT " runs, %" G_GUINT64_FORMAT " ns", disk->count,
		  disk->time_ns);
	PL_CHECK(timer->count == 1 && timer->time_ns == 50);
	PL_CHECK(g_array_index(timer->cpus, PlIrqCpu, 1).count == 1 &&
		 g_array_index(timer->cpus, PlIrqCpu, 0).count == 0);
	PL_CHECK(pl_irq_stats_count(s, PL_IRQ_HARD, 36, 0) == 2 &&
		 pl_irq_stats_count(s, PL_IRQ_HARD, 36, 1) == 0 &&
		 pl_irq_stats_count(s, PL_IRQ_SOFT, 1, G_MAXUINT) == 1);
	PL_CHECK(s->nested == 1 && !s->mismatched && !s->exit_before_start && !s->open_at_end);
	PL_CHECK(s->hard_count == 2 && s->soft_count == 2 && s->hard_ns == 15 && s->soft_ns == 140);
	/* the spans: four, by start, the nested one marked */
	PL_CHECKF(s->spans->len == 4, "%u spans", s->spans->len);
	const PlIrqSpan *sp = &g_array_index(s->spans, PlIrqSpan, 1);
	PL_CHECK(sp->start == T0 + 120 && sp->end == T0 + 130 && sp->depth == 1 && sp->cpu == 0 &&
		 s->sources->pdata[sp->source] == disk);
	/* hardirqs first, then by time */
	PL_CHECK(((PlIrqSource *)s->sources->pdata[0])->kind == PL_IRQ_HARD);
}

static void irq_edges(void)
{
	g_autoptr(PlProfile) p = new_profile();
	irq_ev(p, SEXIT, 10, 0, 7, NULL);       /* SCHED began before */
	irq_ev(p, HEXIT, 11, 1, 40, NULL);      /* so did IRQ 40 */
	irq_ev(p, SENTRY, 20, 0, 1, NULL);      /* TIMER opens… */
	irq_ev(p, SEXIT, 30, 0, 3, NULL);       /* …and NET_RX's exit comes: lost events */
	irq_ev(p, HENTRY, 40, 1, 41, "eth0");   /* never closed */
	irq_ev(p, SENTRY, 50, 0, 9, NULL);      /* RCU */
	irq_ev(p, SENTRY, 60, 0, 9, NULL);      /* RCU again without the exit: dropped */
	irq_ev(p, SEXIT, 70, 0, 9, NULL);
	pl_profile_finish(p);
	g_autoptr(PlIrqStats) s = pl_irq_stats_new(p);
	PL_CHECKF(s->exit_before_start == 2, "%" G_GUINT64_FORMAT, s->exit_before_start);
	PL_CHECKF(s->mismatched == 2, "%" G_GUINT64_FORMAT, s->mismatched);
	PL_CHECKF(s->open_at_end == 1, "%" G_GUINT64_FORMAT, s->open_at_end);
	const PlIrqSource *rcu = find(s, PL_IRQ_SOFT, 9), *timer = find(s, PL_IRQ_SOFT, 1);
	const PlIrqSource *eth = find(s, PL_IRQ_HARD, 41);
	PL_CHECK(rcu && rcu->count == 2 && rcu->paired == 1 && rcu->time_ns == 10);
	PL_CHECK(timer && timer->count == 1 && timer->paired == 0 && timer->time_ns == 0);
	PL_CHECK(eth && eth->count == 1 && !eth->paired && !strcmp(eth->name, "eth0"));
	PL_CHECK(!find(s, PL_IRQ_SOFT, 7) && !find(s, PL_IRQ_HARD, 40)); /* exits alone: no count */
}

static void block_pairing(void)
{
	g_autoptr(PlProfile) p = new_profile();
	guint32 loop0 = 7u << 20, vda = (254u << 20) | 0;
	blk_ev(p, COMPLETE, 50, vda, 999, 8, "W");       /* issued before */
	blk_ev(p, ISSUE, 100, loop0, 0, 128, "WS");      /* 64 KiB write, 2000 ns */
	blk_ev(p, ISSUE, 110, loop0, 1000, 16, "R");     /* 8 KiB read in two parts */
	blk_ev(p, COMPLETE, 500, loop0, 1000, 8, "R");
	blk_ev(p, COMPLETE, 610, loop0, 1008, 8, "R");   /* done: 500 ns */
	blk_ev(p, ISSUE, 700, loop0, 5000, 8, "W");      /* requeued… */
	blk_ev(p, ISSUE, 800, loop0, 5000, 8, "W");      /* …issued again: 100 ns from here */
	blk_ev(p, COMPLETE, 900, loop0, 5000, 8, "W");
	blk_ev(p, COMPLETE, 2100, loop0, 0, 128, "WS");
	blk_ev(p, ISSUE, 3000, vda, 77, 8, "FWS");       /* never completes */
	pl_profile_finish(p);
	g_autoptr(PlBlockIo) b = pl_block_io_new(p);
	PL_CHECK(b->recorded);
	PL_CHECKF(b->complete_without_issue == 1 && b->reissued == 1, "%" G_GUINT64_FORMAT
		  " before, %" G_GUINT64_FORMAT " reissued", b->complete_without_issue, b->reissued);
	const PlBlockDevice *d = pl_block_io_device(b, loop0);
	PL_CHECK(d);
	PL_CHECKF(d->requests == 3 && d->by_op[PL_BLOCK_WRITE] == 2 && d->by_op[PL_BLOCK_READ] == 1,
		  "%" G_GUINT64_FORMAT " requests", d->requests);
	PL_CHECK(d->bytes_written == 65536 + 4096 && d->bytes_read == 8192 && !d->in_flight_at_end);
	PL_CHECKF(d->max_ns == 2000 && d->p50_ns == 500, "max %" G_GUINT64_FORMAT " p50 %"
		  G_GUINT64_FORMAT, d->max_ns, d->p50_ns);
	PL_CHECK(d->total_ns == 2000 + 500 + 100);
	const PlBlockDevice *v = pl_block_io_device(b, vda);
	PL_CHECK(v && v->requests == 0 && v->in_flight_at_end == 1);
	g_autoptr(GPtrArray) slow = pl_block_io_slowest(b, G_MAXUINT32, 2);
	PL_CHECK(slow->len == 2);
	const PlBlockRequest *r = slow->pdata[0];
	PL_CHECK(r->sector == 0 && r->bytes == 65536 && !strcmp(r->rwbs, "WS") && r->tid == 100);
	g_autofree char *name = pl_block_dev_name(loop0);
	PL_CHECKF(!strcmp(name, "7,0 loop"), "%s", name);
	/* "FWS": a write with a cache flush before it is a write */
	const PlBlockRequest *last = &g_array_index(b->requests, PlBlockRequest, b->requests->len - 1);
	PL_CHECK(last->dev == vda && !last->complete && last->op == PL_BLOCK_WRITE);
}

static void kernel_fields(void)
{
	static const char *const want[][4] = {
		{ "irq/irq_handler_entry", "irq", "name", NULL },
		{ "irq/irq_handler_exit", "irq", NULL, NULL },
		{ "irq/softirq_entry", "vec", NULL, NULL },
		{ "irq/softirq_exit", "vec", NULL, NULL },
		{ "block/block_rq_issue", "dev", "sector", "nr_sector" },
		{ "block/block_rq_complete", "dev", "sector", "nr_sector" },
	};
	const char *root = "/sys/kernel/tracing/events";
	if (!g_file_test(root, G_FILE_TEST_IS_DIR))
		PL_SKIP("[no-kernel-feature:tracefs] %s is not readable here", root);
	for (guint i = 0; i < G_N_ELEMENTS(want); i++) {
		g_autofree char *path = g_build_filename(root, want[i][0], "format", NULL);
		g_autofree char *text = NULL;
		gsize len;
		if (!g_file_get_contents(path, &text, &len, NULL))
			PL_SKIP("[no-kernel-feature:tracefs] %s is not readable here", path);
		g_autoptr(PlTraceFormat) f = pl_trace_format_parse(text, len, NULL);
		PL_CHECKF(f, "%s does not parse", path);
		for (guint k = 1; k < 4 && want[i][k]; k++)
			PL_CHECKF(pl_trace_format_find(f, want[i][k]), "%s has no %s", path,
				  want[i][k]);
	}
}

PL_TEST_MAIN(PL_CASE(irq_nesting), PL_CASE(irq_edges), PL_CASE(block_pairing),
	     PL_CASE(kernel_fields))
