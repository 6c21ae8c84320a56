/* perfdata-dump — prints what the perf.data reader makes of a file.
 *
 *   perfdata-dump [-q] [-r] [-o OUT.data] FILE
 *
 * One line per message (-q: only the closing statistics and the rate);
 * -r sorts by time within FINISHED_ROUND windows; -o also writes the
 * messages back out with the perf.data writer (round-trip checks).
 * A debugging and measuring aid for the tests, not the user's CLI.
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perf-data-reader.h"
#include "perf-data-writer.h"

typedef struct {
	gboolean quiet;
	PlPerfDataWriter *writer;
	guint64 msgs;
} Dump;

static void print_str(const char *k, struct pl_str s)
{
	printf(" %s=%.*s", k, (int)s.len, s.p);
}

static void print_bid(const uint8_t *id, unsigned len)
{
	printf(" build_id=");
	for (unsigned i = 0; i < len; i++)
		printf("%02x", id[i]);
}

static gboolean sink(const struct pl_msg *m, gpointer user, GError **error)
{
	Dump *d = user;
	d->msgs++;
	if (d->writer && !pl_perf_data_writer_add(d->writer, m, error))
		return FALSE;
	if (d->quiet)
		return TRUE;
	printf("%s", pl_msg_type_name(m->type));
	switch (m->type) {
	case PL_MSG_HELLO: {
		const struct pl_msg_hello *h = &m->u.hello;
		print_str("agent", h->agent_version);
		print_str("machine", h->machine);
		printf(" e_machine=%u order=%u word=%u", h->e_machine, h->byte_order, h->word_size);
		print_str("release", h->kernel_release);
		print_str("host", h->hostname);
		printf(" ncpus=%u clock=%u flags=0x%x", h->ncpus, h->clock_id, h->flags);
		break;
	}
	case PL_MSG_SESSION: {
		const struct pl_msg_session *s = &m->u.session;
		printf(" target=%u pid=%u cg=%u stack=%u stacks=%u regs=0x%" PRIx64
		       " freq=%u duration_ms=%u start=%" PRIu64,
		       s->target, s->pid, s->callgraph, s->stack_size, s->stacks,
		       s->sample_regs_user, s->frequency, s->duration_ms, s->start_ns);
		print_str("command", s->command);
		break;
	}
	case PL_MSG_EVENT_DESC: {
		const struct pl_msg_event_desc *e = &m->u.event_desc;
		printf(" index=%u role=%u", e->index, e->role);
		print_str("name", e->name);
		printf(" type=%u config=%" PRIu64 " freq=%u period=%" PRIu64, e->type, e->config,
		       e->freq, e->period_or_freq);
		break;
	}
	case PL_MSG_BUILD_ID:
		printf(" pid=%u source=%u", m->u.build_id.pid, m->u.build_id.source);
		print_bid(m->u.build_id.id, m->u.build_id.len);
		print_str("path", m->u.build_id.path);
		break;
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *s = &m->u.sample;
		printf(" ev=%u pid=%u tid=%u time=%" PRIu64 " cpu=%u period=%" PRIu64
		       " ip=0x%" PRIx64 " mode=%u chain=%u regs=%u stack=%u",
		       s->event, s->pid, s->tid, s->time, s->cpu, s->period, s->ip, s->cpumode,
		       s->nr_callchain, s->nr_regs, s->stack_size);
		for (uint32_t i = 0; i < s->nr_callchain; i++)
			printf(" %" PRIx64, s->callchain[i]);
		break;
	}
	case PL_MSG_MMAP: {
		const struct pl_msg_mmap *o = &m->u.mmap;
		printf(" pid=%u tid=%u time=%" PRIu64 " start=0x%" PRIx64 " len=0x%" PRIx64
		       " pgoff=0x%" PRIx64 " prot=%u mode=%u",
		       o->pid, o->tid, o->time, o->start, o->len, o->pgoff, o->prot, o->cpumode);
		print_bid(o->build_id, o->build_id_len);
		print_str("file", o->filename);
		break;
	}
	case PL_MSG_COMM:
		printf(" pid=%u tid=%u time=%" PRIu64 " exec=%u", m->u.comm.pid, m->u.comm.tid,
		       m->u.comm.time, m->u.comm.exec);
		print_str("comm", m->u.comm.comm);
		break;
	case PL_MSG_TASK:
		printf(" kind=%u pid=%u ppid=%u tid=%u ptid=%u time=%" PRIu64, m->u.task.kind,
		       m->u.task.pid, m->u.task.ppid, m->u.task.tid, m->u.task.ptid,
		       m->u.task.time);
		break;
	case PL_MSG_SWITCH:
		printf(" pid=%u tid=%u cpu=%u time=%" PRIu64 " flags=%u other=%u/%u", m->u.sw.pid,
		       m->u.sw.tid, m->u.sw.cpu, m->u.sw.time, m->u.sw.flags, m->u.sw.other_pid,
		       m->u.sw.other_tid);
		break;
	case PL_MSG_LOST:
		printf(" kind=%u cpu=%u count=%" PRIu64, m->u.lost.kind, m->u.lost.cpu,
		       m->u.lost.count);
		break;
	case PL_MSG_THROTTLE:
		printf(" event=%u unthrottle=%u time=%" PRIu64, m->u.throttle.event,
		       m->u.throttle.unthrottle, m->u.throttle.time);
		break;
	default:
		break;
	}
	printf("\n");
	return TRUE;
}

int main(int argc, char **argv)
{
	Dump d = { 0 };
	PlPerfDataReadOptions opts = { 0 };
	const char *out = NULL, *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q"))
			d.quiet = TRUE;
		else if (!strcmp(argv[i], "-r"))
			opts.reorder = TRUE;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: perfdata-dump [-q] [-r] [-o OUT.data] FILE\n");
		return 2;
	}
	g_autoptr(GError) error = NULL;
	if (out && !(d.writer = pl_perf_data_writer_new(out, &error))) {
		fprintf(stderr, "perfdata-dump: %s\n", error->message);
		return 1;
	}
	PlPerfDataStats st;
	gint64 t0 = g_get_monotonic_time();
	gboolean ok = pl_perf_data_read(path, &opts, sink, &d, &st, &error);
	double secs = (double)(g_get_monotonic_time() - t0) / 1e6;
	if (ok && d.writer)
		ok = pl_perf_data_writer_finish(d.writer, &error);
	if (d.writer)
		pl_perf_data_writer_free(d.writer);
	fprintf(stderr,
		"file=%" G_GUINT64_FORMAT " pipe=%d be=%d records=%" G_GUINT64_FORMAT
		" samples=%" G_GUINT64_FORMAT " msgs=%" G_GUINT64_FORMAT " attrs=%u build_ids=%u"
		" rounds=%" G_GUINT64_FORMAT " compressed=%" G_GUINT64_FORMAT
		" unknown=%" G_GUINT64_FORMAT " unknown_ids=%" G_GUINT64_FORMAT
		" time=%.3fs rate=%.1fMB/s\n",
		st.file_size, st.pipe_mode, st.big_endian, st.records, st.samples, d.msgs,
		st.nr_attrs, st.nr_build_ids, st.rounds, st.compressed_records, st.unknown_records,
		st.unknown_ids, secs, secs > 0 ? (double)st.file_size / secs / 1e6 : 0.0);
	if (!ok) {
		fprintf(stderr, "perfdata-dump: %s\n", error->message);
		return 1;
	}
	return 0;
}
