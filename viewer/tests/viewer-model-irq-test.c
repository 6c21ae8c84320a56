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
 *   cli_report_export  the same streams saved as a capture: `perflens report
 *                    --irq` / `--block` print the model's figures in the
 *                    columns scripts read, `export --format irq-csv` /
 *                    `block-csv` write them as CSV rows
 *   proc_counts      the agent's reads of /proc/interrupts and /proc/softirqs
 *                    (FILE_CHUNKs, one in two pieces) around the nesting
 *                    stream: per line and vector and CPU, /proc's delta, the
 *                    runs recorded between the reads, missing = the
 *                    difference; a shared line, IPI rows, a total-only row;
 *                    the sentence per CPU, with losses apart; filtered: the
 *                    whole session's only; a read out of order said
 *   proc_parse       the parser on bounded, malformed and odd text
 *   kernel_fields    the running kernel's formats of the five tracepoints
 *                    carry every field the models read (tracefs) */
#include <string.h>

#include "viewer-test-util.h"

#include "pl-block-io.h"
#include "pl-findings.h"
#include "pl-irq.h"
#include "pl-proc-irq-counts.h"
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

/* Where the messages go: a profile (pl_profile_ingest) or a capture file. */
typedef struct {
	PlMsgFunc func;
	gpointer data;
} Sink;

static void emit(const Sink *k, const struct pl_msg *m)
{
	k->func(m, k->data);
}

static void setup_stream(const Sink *k)
{
	struct pl_msg m = { .type = PL_MSG_SESSION };
	m.u.session.target = PL_TARGET_ALL;
	emit(k, &m);
	for (guint i = 0; i < N_EV; i++) {
		struct pl_msg d = { .type = PL_MSG_EVENT_DESC };
		d.u.event_desc.index = i;
		d.u.event_desc.role = PL_ROLE_TRACEPOINT;
		d.u.event_desc.name = pl_str_c(ev_names[i]);
		emit(k, &d);
		struct pl_msg c = { .type = PL_MSG_FILE_CHUNK };
		c.u.chunk.kind = PL_CHUNK_TRACE_FORMAT;
		c.u.chunk.pid = i;
		c.u.chunk.name = pl_str_c(ev_names[i]);
		c.u.chunk.len = (guint32)strlen(ev_fmts[i]);
		c.u.chunk.total = c.u.chunk.len;
		c.u.chunk.data = (const guint8 *)ev_fmts[i];
		emit(k, &c);
	}
}

static PlProfile *new_profile(Sink *k)
{
	PlProfile *p = pl_profile_new(NULL);
	*k = (Sink){ pl_profile_ingest, p };
	setup_stream(k);
	return p;
}

static void sample(const Sink *p, guint ev, guint64 t, guint cpu, const guint8 *raw, guint len)
{
	struct pl_msg m = { .type = PL_MSG_SAMPLE };
	m.u.sample.event = ev;
	m.u.sample.pid = m.u.sample.tid = 100 + cpu;
	m.u.sample.time = T0 + t;
	m.u.sample.cpu = cpu;
	m.u.sample.period = 1;
	m.u.sample.raw_size = len;
	m.u.sample.raw = raw;
	emit(p, &m);
}

/* irq (hardirq, with its handler's name on entry) or vector */
static void irq_ev(const Sink *p, guint ev, guint64 t, guint cpu, guint number, const char *name)
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

static void blk_ev(const Sink *p, guint ev, guint64 t, guint32 dev, guint64 sector, guint nr,
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

/* CPU 0: NET_RX 100..200 with IRQ 36 inside at 120..130; then IRQ 36
 * again alone 300..305; CPU 1: TIMER 400..450 */
static void nesting_stream(const Sink *p)
{
	irq_ev(p, SENTRY, 100, 0, 3, NULL);
	irq_ev(p, HENTRY, 120, 0, 36, "virtio1-req.0");
	irq_ev(p, HEXIT, 130, 0, 36, NULL);
	irq_ev(p, SEXIT, 200, 0, 3, NULL);
	irq_ev(p, HENTRY, 300, 0, 36, "virtio1-req.0");
	irq_ev(p, HEXIT, 305, 0, 36, NULL);
	irq_ev(p, SENTRY, 400, 1, 1, NULL);
	irq_ev(p, SEXIT, 450, 1, 1, NULL);
}

static void irq_nesting(void)
{
	Sink k;
	g_autoptr(PlProfile) p = new_profile(&k);
	nesting_stream(&k);
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
	Sink k, *p = &k;
	g_autoptr(PlProfile) prof = new_profile(&k);
	irq_ev(p, SEXIT, 10, 0, 7, NULL);       /* SCHED began before */
	irq_ev(p, HEXIT, 11, 1, 40, NULL);      /* so did IRQ 40 */
	irq_ev(p, SENTRY, 20, 0, 1, NULL);      /* TIMER opens… */
	irq_ev(p, SEXIT, 30, 0, 3, NULL);       /* …and NET_RX's exit comes: lost events */
	irq_ev(p, HENTRY, 40, 1, 41, "eth0");   /* never closed */
	irq_ev(p, SENTRY, 50, 0, 9, NULL);      /* RCU */
	irq_ev(p, SENTRY, 60, 0, 9, NULL);      /* RCU again without the exit: dropped */
	irq_ev(p, SEXIT, 70, 0, 9, NULL);
	/* the exits turned off first at the end: CPU 0's last softirq exit
	 * was at 70, so TIMER at 80 and 90 are the end's, not lost */
	irq_ev(p, SENTRY, 80, 0, 1, NULL);
	irq_ev(p, SENTRY, 90, 0, 1, NULL);
	pl_profile_finish(prof);
	g_autoptr(PlIrqStats) s = pl_irq_stats_new(prof);
	PL_CHECKF(s->exit_before_start == 2, "%" G_GUINT64_FORMAT, s->exit_before_start);
	PL_CHECKF(s->mismatched == 2, "%" G_GUINT64_FORMAT, s->mismatched);
	PL_CHECKF(s->open_at_end == 3, "%" G_GUINT64_FORMAT, s->open_at_end);
	const PlIrqSource *rcu = find(s, PL_IRQ_SOFT, 9), *timer = find(s, PL_IRQ_SOFT, 1);
	const PlIrqSource *eth = find(s, PL_IRQ_HARD, 41);
	PL_CHECK(rcu && rcu->count == 2 && rcu->paired == 1 && rcu->time_ns == 10);
	PL_CHECK(timer && timer->count == 3 && timer->paired == 0 && timer->time_ns == 0);
	PL_CHECK(eth && eth->count == 1 && !eth->paired && !strcmp(eth->name, "eth0"));
	PL_CHECK(!find(s, PL_IRQ_SOFT, 7) && !find(s, PL_IRQ_HARD, 40)); /* exits alone: no count */
}

static const guint32 loop0 = 7u << 20, vda = (254u << 20) | 0;

static void block_stream(const Sink *p)
{
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
}

static void block_pairing(void)
{
	Sink k;
	g_autoptr(PlProfile) p = new_profile(&k);
	block_stream(&k);
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

static gboolean capture_add(const struct pl_msg *m, gpointer c)
{
	return vt_capture_add(c, m) == 0;
}

/* The line of out that starts (after blanks) with head, NULL if none. */
static char *line_of(const char *out, const char *head)
{
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	for (guint i = 0; lines[i]; i++)
		if (g_str_has_prefix(g_strchug(lines[i]), head))
			return g_strdup(lines[i]);
	return NULL;
}

static void cli_report_export(void)
{
	g_autofree char *path = vt_tmp("irq.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	Sink k = { capture_add, c };
	setup_stream(&k);
	nesting_stream(&k);
	block_stream(&k);
	vt_capture_close(c);

	g_autofree char *out = NULL, *err = NULL;
	PL_CHECKF(vt_perflens(&out, &err, "report", "--irq", path, NULL) == 0, "%s", err);
	/* NUMBER COUNT TOTAL_MS AVG_US MAX_US SHARE% PER_CPU NAME */
	g_autofree char *net = line_of(out, "3 ");
	g_autofree char *disk = line_of(out, "36 ");
	PL_CHECKF(net && disk, "%s", out);
	g_auto(GStrv) n = g_strsplit_set(net, " ", -1), d = g_strsplit_set(disk, " ", -1);
	g_autofree char *nj = g_strdup(net), *dj = g_strdup(disk);
	/* blanks repeat: compare the words */
	g_autoptr(GPtrArray) nw = g_ptr_array_new(), dw = g_ptr_array_new();
	for (guint i = 0; n[i]; i++)
		if (*n[i])
			g_ptr_array_add(nw, n[i]);
	for (guint i = 0; d[i]; i++)
		if (*d[i])
			g_ptr_array_add(dw, d[i]);
	PL_CHECKF(nw->len == 8 && !strcmp(nw->pdata[1], "1") && !strcmp(nw->pdata[2], "0.000") &&
			  !strcmp(nw->pdata[4], "0.09") && !strcmp(nw->pdata[6], "0:1,1:0") &&
			  !strcmp(nw->pdata[7], "NET_RX"),
		  "NET_RX row: %s", nj);
	PL_CHECKF(dw->len == 8 && !strcmp(dw->pdata[1], "2") && !strcmp(dw->pdata[6], "0:2,1:0") &&
			  !strcmp(dw->pdata[7], "virtio1-req.0") && !strcmp(dw->pdata[4], "0.01"),
		  "IRQ 36 row: %s", dj);
	g_autofree char *hard = line_of(out, "hardirqs: ");
	PL_CHECKF(hard && g_str_has_prefix(hard, "hardirqs: 2,"), "%s", out);
	g_autofree char *nested = line_of(out, "nested: ");
	PL_CHECKF(nested && g_str_has_prefix(nested, "nested: 1 "), "%s", out);
	g_autofree char *unpaired = line_of(out, "unpaired: ");
	PL_CHECKF(unpaired && g_str_has_prefix(unpaired, "unpaired: 0 at the start") &&
			  strstr(unpaired, " 0 at the end") && strstr(unpaired, " 0 dropped"),
		  "%s", out);

	g_clear_pointer(&out, g_free);
	g_clear_pointer(&err, g_free);
	PL_CHECKF(vt_perflens(&out, &err, "report", "--block", "--top", "0", path, NULL) == 0, "%s",
		  err);
	/* DEV REQUESTS READS WRITES FLUSHES DISCARDS READ_KIB WRITTEN_KIB ERRORS P50 P90 P99 MAX OPEN DRIVER */
	g_autofree char *row = line_of(out, "7,0 ");
	PL_CHECKF(row, "%s", out);
	g_auto(GStrv) f = g_strsplit_set(row, " ", -1);
	g_autoptr(GPtrArray) w = g_ptr_array_new();
	for (guint i = 0; f[i]; i++)
		if (*f[i])
			g_ptr_array_add(w, f[i]);
	PL_CHECKF(w->len == 15 && !strcmp(w->pdata[1], "3") && !strcmp(w->pdata[2], "1") &&
			  !strcmp(w->pdata[3], "2") && !strcmp(w->pdata[6], "8.0") &&
			  !strcmp(w->pdata[7], "68.0") && !strcmp(w->pdata[12], "0.002") &&
			  !strcmp(w->pdata[14], "loop"),
		  "loop row: %s", row);
	PL_CHECKF(strstr(out, "1 completions whose issue came before") &&
			  strstr(out, "1 requests still in flight") && strstr(out, "1 issued again"),
		  "%s", out);
	g_autofree char *slowest = line_of(out, "Slowest 3 ");
	PL_CHECKF(slowest, "%s", out);

	g_autofree char *csv = vt_tmp("irq.csv"), *bcsv = vt_tmp("block.csv");
	PL_CHECK(vt_perflens(NULL, NULL, "export", path, "--format", "irq-csv", "-o", csv, NULL) == 0);
	PL_CHECK(vt_perflens(NULL, NULL, "export", path, "--format", "block-csv", "-o", bcsv, NULL) ==
		 0);
	g_autofree char *text = NULL, *btext = NULL;
	PL_CHECK(g_file_get_contents(csv, &text, NULL, NULL));
	PL_CHECK(g_file_get_contents(bcsv, &btext, NULL, NULL));
	/* no /proc reads in this capture: proc_count empty */
	PL_CHECKF(g_str_has_prefix(text, "kind,number,name,cpu,count,paired,time_ns,max_ns,"
					 "proc_count\n") &&
			  strstr(text, "\nsoftirq,3,NET_RX,0,1,,90,,\n") &&
			  strstr(text, "\nsoftirq,3,NET_RX,all,1,1,90,90,\n") &&
			  strstr(text, "\nhardirq,36,virtio1-req.0,all,2,2,15,10,\n") &&
			  strstr(text, "\nsoftirq,1,TIMER,1,1,,50,,\n"),
		  "%s", text);
	/* 4 requests: the requeued one counts once, the completion without
	 * its issue is none; the open one has no completion */
	g_auto(GStrv) rows = g_strsplit(btext, "\n", -1);
	PL_CHECKF(g_strv_length(rows) == 6 && !strcmp(rows[5], ""), "%s", btext);
	PL_CHECKF(g_str_has_prefix(rows[1], "7,0,write,WS,0,65536,1000000100,1000002100,2000,0,100,100,"),
		  "%s", rows[1]);
	PL_CHECKF(g_str_has_prefix(rows[4], "254,0,write,FWS,77,4096,1000003000,,,,100,100,"), "%s",
		  rows[4]);
}

/* The irq finding (pl-findings.h) on a second of interrupts laid out:
 * CPU 0 runs NET_RX 100 µs of every ms (10 % of it), CPU 1 runs IRQ 36
 * 60 µs of every ms (6 %) and TIMER 5 µs of every 4 ms (0.125 %); the
 * last TIMER run ends the second.  A quieter second (NET_RX 40 µs a ms,
 * IRQ 36 45 µs: 4 % and 4.5 %) raises nothing. */
static PlProfile *busy_second(guint net_us, guint irq_us)
{
	Sink k;
	PlProfile *p = new_profile(&k);
	for (guint ms = 0; ms < 1000; ms++) {
		guint64 t = ms * 1000000ull;
		irq_ev(&k, SENTRY, t, 0, 3, NULL);
		irq_ev(&k, SEXIT, t + net_us * 1000ull, 0, 3, NULL);
		irq_ev(&k, HENTRY, t + 200000, 1, 36, "virtio1-req.0");
		irq_ev(&k, HEXIT, t + 200000 + irq_us * 1000ull, 1, 36, NULL);
		if (ms % 4 == 3) {
			irq_ev(&k, SENTRY, t + 995000, 1, 1, NULL);
			irq_ev(&k, SEXIT, t + 1000000, 1, 1, NULL);
		}
	}
	pl_profile_finish(p);
	return p;
}

static const PlFinding *irq_finding_of(GPtrArray *fs, const char *who)
{
	for (guint i = 0; i < fs->len; i++) {
		const PlFinding *f = fs->pdata[i];
		if (!strcmp(f->rule, "irq") && g_str_has_prefix(f->what, who))
			return f;
	}
	return NULL;
}

static void irq_finding(void)
{
	g_autoptr(PlProfile) p = busy_second(100, 60);
	g_autoptr(GPtrArray) fs = pl_findings_run(p);
	guint n = 0;
	for (guint i = 0; i < fs->len; i++)
		n += !strcmp(((const PlFinding *)fs->pdata[i])->rule, "irq");
	PL_CHECKF(n == 2, "%u irq findings", n);
	const PlFinding *net = irq_finding_of(fs, "softirq NET_RX ");
	const PlFinding *dev = irq_finding_of(fs, "IRQ 36 virtio1-req.0 ");
	PL_CHECK(net && dev);
	PL_CHECKF(!strcmp(net->what, "softirq NET_RX took 10.0% of CPU 0's time (threshold 5% of a "
				     "CPU): 100.0 ms in 1000 runs over 1.000 s, mean 100.0 µs, "
				     "longest 100.0 µs"),
		  "%s", net->what);
	PL_CHECKF(g_str_has_prefix(net->detail, "CPU\truns\ttime\tshare of the CPU\n"
						"0\t1000\t100.0 ms\t10.00%\n"),
		  "%s", net->detail);
	PL_CHECKF(g_str_has_prefix(dev->what, "IRQ 36 virtio1-req.0 took 6.0% of CPU 1's time") &&
			  strstr(dev->detail, "\n1\t1000\t60.0 ms\t6.00%\n"),
		  "%s / %s", dev->what, dev->detail);
	PL_CHECK(!strcmp(net->view, "irq") && net->severity == PL_FINDING_WARNING && !net->tid);
	/* the report prints the table with its columns lined up */
	g_autofree char *path = vt_tmp("irq-busy.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	Sink k = { capture_add, c };
	setup_stream(&k);
	for (guint ms = 0; ms < 1000; ms++) {
		irq_ev(&k, SENTRY, ms * 1000000ull, 0, 3, NULL);
		irq_ev(&k, SEXIT, ms * 1000000ull + 100000, 0, 3, NULL);
	}
	vt_capture_close(c);
	g_autofree char *out = NULL, *err = NULL;
	int rc = vt_perflens(&out, &err, "report", "--findings", "--fail-on", "irq", path, NULL);
	PL_CHECKF(rc == 1 && strstr(out, "\n      CPU  runs      time  share of the CPU\n"
					 "      0    1000  100.0 ms            10.01%\n") &&
			  strstr(err, "perflens: --fail-on irq: softirq NET_RX took 10.0% of CPU 0's"),
		  "exit %d: %s%s", rc, out, err);

	g_autoptr(PlProfile) q = busy_second(40, 45);
	g_autoptr(GPtrArray) qs = pl_findings_run(q);
	for (guint i = 0; i < qs->len; i++)
		PL_CHECKF(strcmp(((const PlFinding *)qs->pdata[i])->rule, "irq"), "%s",
			  ((const PlFinding *)qs->pdata[i])->what);
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

static void proc_chunk(const Sink *k, guint kind, guint64 t, const char *text, gsize off,
		       gsize len, gsize total)
{
	struct pl_msg m = { .type = PL_MSG_FILE_CHUNK };
	m.u.chunk.kind = (guint8)kind;
	m.u.chunk.addr = T0 + t;
	m.u.chunk.offset = off;
	m.u.chunk.total = total;
	m.u.chunk.name = pl_str_c(kind == PL_CHUNK_INTERRUPTS ? "/proc/interrupts" : "/proc/softirqs");
	m.u.chunk.len = (guint32)len;
	m.u.chunk.data = (const guint8 *)text + off;
	emit(k, &m);
}

static const char int0[] =
	"           CPU0       CPU1\n"
	"  0:         10          0   IO-APIC   2-edge      timer\n"
	" 11:          5          0   IO-APIC  11-fasteoi   uhci_hcd:usb1, virtio3\n"
	" 36:        100          7   PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:       1000       2000   Local timer interrupts\n"
	"ERR:          0\n";
static const char int1[] =
	"           CPU0       CPU1\n"
	"  0:         10          0   IO-APIC   2-edge      timer\n"
	" 11:          7          0   IO-APIC  11-fasteoi   uhci_hcd:usb1, virtio3\n"
	" 36:        105          8   PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:       1300       2400   Local timer interrupts\n"
	"ERR:          3\n";
static const char soft0[] = "                    CPU0       CPU1\n"
			    "          HI:          0          0\n"
			    "       TIMER:         50         60\n"
			    "      NET_RX:         20         30\n";
static const char soft1[] = "                    CPU0       CPU1\n"
			    "          HI:          0          0\n"
			    "       TIMER:         50         61\n"
			    "      NET_RX:         21         34\n";

static void proc_counts(void)
{
	Sink k;
	g_autoptr(PlProfile) p = new_profile(&k);
	{ /* a capture without the reads: nothing said */
		g_autoptr(PlProcIrqCompare) c = pl_proc_irq_compare_new(p);
		PL_CHECK(!c->have && !pl_proc_irq_compare_dup_summary(c, FALSE));
	}
	proc_chunk(&k, PL_CHUNK_INTERRUPTS, 50, int0, 0, 60, 0); /* in two pieces */
	proc_chunk(&k, PL_CHUNK_INTERRUPTS, 50, int0, 60, strlen(int0) - 60, strlen(int0));
	proc_chunk(&k, PL_CHUNK_SOFTIRQS, 51, soft0, 0, strlen(soft0), strlen(soft0));
	nesting_stream(&k); /* CPU 0: NET_RX once, IRQ 36 twice; CPU 1: TIMER once */
	proc_chunk(&k, PL_CHUNK_INTERRUPTS, 500, int1, 0, strlen(int1), strlen(int1));
	proc_chunk(&k, PL_CHUNK_SOFTIRQS, 501, soft1, 0, strlen(soft1), strlen(soft1));
	irq_ev(&k, HENTRY, 600, 1, 36, "virtio1-req.0"); /* after the last read: not counted */
	irq_ev(&k, HEXIT, 601, 1, 36, NULL);
	pl_profile_finish(p);

	g_autoptr(PlProcIrqCompare) c = pl_proc_irq_compare_new(p);
	PL_CHECKF(c->have && c->ncpus == 2 && !c->problem, "have %d ncpus %u %s", c->have, c->ncpus,
		  c->problem ? c->problem : "");
	PL_CHECK(c->t0[PL_PROC_INTERRUPTS] == T0 + 50 && c->t1[PL_PROC_SOFTIRQS] == T0 + 501);
	const PlProcIrqRow *r36 = pl_proc_irq_compare_find(c, PL_IRQ_HARD, "36");
	PL_CHECKF(r36, "no row 36");
	PL_CHECKF(r36->traced && r36->number == 36 && r36->proc == 6 && r36->recorded == 2 &&
		 r36->missing == 4 && !strcmp(r36->desc, "PCI-MSIX-0000:00:02.0   1-edge      "
							  "virtio1-req.0"),
		  "36: traced %d number %u proc %" G_GINT64_FORMAT " recorded %" G_GUINT64_FORMAT
		  " missing %" G_GINT64_FORMAT " desc '%s'", r36->traced, r36->number, r36->proc,
		  r36->recorded, r36->missing, r36->desc);
	const PlProcIrqCpuCount *c0 = &g_array_index(r36->cpus, PlProcIrqCpuCount, 0);
	const PlProcIrqCpuCount *c1 = &g_array_index(r36->cpus, PlProcIrqCpuCount, 1);
	PL_CHECK(c0->proc == 5 && c0->recorded == 2 && c1->proc == 1 && c1->recorded == 0);
	const PlProcIrqRow *r11 = pl_proc_irq_compare_find(c, PL_IRQ_HARD, "11");
	PL_CHECK(r11 && r11->handlers == 2 && r11->proc == 2 && r11->missing == 2);
	const PlProcIrqRow *loc = pl_proc_irq_compare_find(c, PL_IRQ_HARD, "LOC");
	const PlProcIrqRow *err = pl_proc_irq_compare_find(c, PL_IRQ_HARD, "ERR");
	PL_CHECK(loc && !loc->traced && loc->proc == 700 && err && !err->traced && err->proc == 3);
	const PlProcIrqRow *net = pl_proc_irq_compare_find(c, PL_IRQ_SOFT, "NET_RX");
	const PlProcIrqRow *tim = pl_proc_irq_compare_find(c, PL_IRQ_SOFT, "TIMER");
	PL_CHECK(net && net->traced && net->number == 3 && net->proc == 5 && net->recorded == 1 &&
		 net->missing == 4);
	PL_CHECK(tim && tim->proc == 1 && tim->recorded == 1 && tim->missing == 0);
	/* per CPU: 3 (IRQ 36) + 2 (IRQ 11) on CPU 0, 1 (IRQ 36) + 4 (NET_RX) on CPU 1 */
	PL_CHECK(c->missing_total == 10 && g_array_index(c->missing, gint64, 0) == 5 &&
		 g_array_index(c->missing, gint64, 1) == 5 && c->untraced == 703 && c->lost == 0);
	g_autofree char *said = pl_proc_irq_compare_dup_summary(c, FALSE);
	PL_CHECKF(strstr(said, "/proc counted 10 interrupts") && strstr(said, "(cpu0 5, cpu1 5)") &&
			  strstr(said, "idled") && !strstr(said, "lost") && strstr(said, "703 more"),
		  "%s", said);
	g_autofree char *narrow = pl_proc_irq_compare_dup_summary(c, TRUE);
	PL_CHECKF(strstr(narrow, "whole session only"), "%s", narrow);

	/* losses before the first read (a --all session's start) or after
	 * the last are not the span's: nothing said of them */
	struct pl_msg m = { .type = PL_MSG_LOST };
	m.u.lost = (struct pl_msg_lost){ PL_LOST_RING, 0, T0 + 10, 7 };
	emit(&k, &m);
	m.u.lost.time = T0 + 700;
	emit(&k, &m);
	g_autoptr(PlProcIrqCompare) co = pl_proc_irq_compare_new(p);
	g_autofree char *outside = pl_proc_irq_compare_dup_summary(co, FALSE);
	PL_CHECKF(co->lost == 0 && !strstr(outside, "lost") && strstr(outside, "idled"), "%s",
		  outside);

	/* losses in the span are said apart: up to 4 of the 10 */
	m.u.lost = (struct pl_msg_lost){ PL_LOST_RING, 0, T0 + 300, 4 };
	emit(&k, &m);
	g_autoptr(PlProcIrqCompare) cl = pl_proc_irq_compare_new(p);
	g_autofree char *lost = pl_proc_irq_compare_dup_summary(cl, FALSE);
	PL_CHECKF(cl->lost == 4 && strstr(lost, "lost 4 samples") && strstr(lost, "the other 6") &&
			  strstr(lost, "idled"),
		  "%s", lost);
	/* as many lost as missing: idle is not blamed */
	m.u.lost.count = 6;
	emit(&k, &m);
	g_autoptr(PlProcIrqCompare) cm = pl_proc_irq_compare_new(p);
	g_autofree char *all = pl_proc_irq_compare_dup_summary(cm, FALSE);
	PL_CHECKF(cm->lost == 10 && strstr(all, "lost 10 samples") && strstr(all, "all be losses") &&
			  !strstr(all, "idled"),
		  "%s", all);

	/* a chunk out of order spoils that read, and it is said */
	Sink k2;
	g_autoptr(PlProfile) p2 = new_profile(&k2);
	proc_chunk(&k2, PL_CHUNK_SOFTIRQS, 50, soft0, 0, strlen(soft0), strlen(soft0));
	proc_chunk(&k2, PL_CHUNK_SOFTIRQS, 500, soft1, 0, 10, 0);
	proc_chunk(&k2, PL_CHUNK_SOFTIRQS, 500, soft1, 20, strlen(soft1) - 20, strlen(soft1));
	g_autoptr(PlProcIrqCompare) c2 = pl_proc_irq_compare_new(p2);
	g_autofree char *bad = pl_proc_irq_compare_dup_summary(c2, FALSE);
	PL_CHECKF(!c2->have && bad && strstr(bad, "/proc/softirqs came in pieces"), "%s",
		  bad ? bad : "(none)");
}

static void proc_parse(void)
{
	g_autoptr(GError) error = NULL;
	PL_CHECK(!pl_proc_irq_table_parse("  0: 1 2\n", 9, &error) && error);
	g_clear_error(&error);
	PL_CHECK(!pl_proc_irq_table_parse("  CPUx\n 0: 1\n", 13, &error) && error);
	g_clear_error(&error);
	PL_CHECK(!pl_proc_irq_table_parse(NULL, 0, &error) && error);
	g_clear_error(&error);
	/* bounded by len, not by a NUL: the cut row keeps the counts before it */
	static const char text[] = "  CPU0 CPU3\n 5: 1 2 desc\n"
				   " 7: 99999999999999999999999 1\n" /* too long: no counts */
				   "no colon here\n"
				   "a b: 1 1\n" /* a key with a blank */
				   "RES: 4 5\r\n"
				   " 9: 3";
	g_autoptr(PlProcIrqTable) t = pl_proc_irq_table_parse(text, strlen(text), &error);
	PL_CHECKF(t && t->ncols == 2 && t->cpu[0] == 0 && t->cpu[1] == 3, "%s",
		  error ? error->message : "");
	PL_CHECKF(t->lines->len == 3, "%u lines", t->lines->len);
	const PlProcIrqLine *l5 = t->lines->pdata[0], *res = t->lines->pdata[1],
			    *l9 = t->lines->pdata[2];
	PL_CHECK(!strcmp(l5->key, "5") && l5->n == 2 && l5->counts[1] == 2 &&
		 !strcmp(l5->desc, "desc") && l5->handlers == 1);
	PL_CHECK(!strcmp(res->key, "RES") && res->n == 2 && res->counts[0] == 4 && !*res->desc);
	PL_CHECK(!strcmp(l9->key, "9") && l9->n == 1 && l9->counts[0] == 3);
	g_autoptr(PlProcIrqTable) cut = pl_proc_irq_table_parse(text, 25, &error);
	PL_CHECK(cut && cut->lines->len == 1 &&
		 ((const PlProcIrqLine *)cut->lines->pdata[0])->n == 2);
}

PL_TEST_MAIN(PL_CASE(irq_nesting), PL_CASE(irq_edges), PL_CASE(block_pairing),
	     PL_CASE(cli_report_export), PL_CASE(irq_finding), PL_CASE(proc_counts),
	     PL_CASE(proc_parse), PL_CASE(kernel_fields))
