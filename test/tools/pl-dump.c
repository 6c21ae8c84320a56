/* pl-dump.c — prints a PerfLens stream (capture file or stdin) as text, one
 * message per line, for tests and debugging.  `pl-dump -c FILE` prints
 * only counts per message type; `pl-dump -w FILE` adds to each SAMPLE
 * line the words of its user stack copy (" words=" then hex, the board's
 * word size, little-endian boards only).  Exit 2 on a malformed stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "reader.h"

#define S(x) (int)(x).len, (x).p

static int stack_words;
static unsigned word_size = 8;

static void print(const struct pl_msg *m)
{
	const char *n = pl_msg_type_name(m->type);
	switch (m->type) {
	case PL_MSG_HELLO:
		printf("%s machine=%.*s e_machine=%u order=%u word=%u host=%.*s kernel=%.*s cpus=%u "
		       "flags=0x%x perf_errno=%d\n",
		       n, S(m->u.hello.machine), m->u.hello.e_machine, m->u.hello.byte_order,
		       m->u.hello.word_size, S(m->u.hello.hostname), S(m->u.hello.kernel_release),
		       m->u.hello.ncpus, m->u.hello.flags, m->u.hello.perf_errno);
		word_size = m->u.hello.word_size == 4 ? 4 : 8;
		break;
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *s = &m->u.sample;
		printf("%s ev=%u pid=%u tid=%u time=%" PRIu64 " cpu=%u period=%" PRIu64
		       " ip=0x%" PRIx64 " chain=%u regs=%u stack=%u/%u", n, s->event, s->pid, s->tid,
		       s->time, s->cpu, s->period, s->ip, s->nr_callchain, s->nr_regs, s->stack_size,
		       s->stack_requested);
		for (uint32_t i = 0; i < s->nr_callchain; i++)
			printf(" %" PRIx64, s->callchain[i]);
		if (stack_words && s->stack_size) {
			printf(" words=");
			for (uint32_t i = 0; i + word_size <= s->stack_size; i += word_size) {
				uint64_t w = 0;
				for (unsigned b = 0; b < word_size; b++)
					w |= (uint64_t)s->stack[i + b] << (8 * b);
				printf("%s%" PRIx64, i ? "," : "", w);
			}
		}
		printf("\n");
		break;
	}
	case PL_MSG_MMAP:
		printf("%s pid=%u start=0x%" PRIx64 " len=0x%" PRIx64 " pgoff=0x%" PRIx64
		       " snapshot=%u buildid=", n, m->u.mmap.pid, m->u.mmap.start, m->u.mmap.len,
		       m->u.mmap.pgoff, m->u.mmap.snapshot);
		for (int i = 0; i < m->u.mmap.build_id_len; i++)
			printf("%02x", m->u.mmap.build_id[i]);
		printf(" file=%.*s\n", S(m->u.mmap.filename));
		break;
	case PL_MSG_COMM:
		printf("%s pid=%u tid=%u time=%" PRIu64 " exec=%u snapshot=%u comm=%.*s\n", n,
		       m->u.comm.pid, m->u.comm.tid, m->u.comm.time, m->u.comm.exec,
		       m->u.comm.snapshot, S(m->u.comm.comm));
		break;
	case PL_MSG_TASK:
		printf("%s %s pid=%u ppid=%u tid=%u ptid=%u\n", n,
		       m->u.task.kind == PL_TASK_FORK ? "fork" : "exit", m->u.task.pid,
		       m->u.task.ppid, m->u.task.tid, m->u.task.ptid);
		break;
	case PL_MSG_SWITCH:
		printf("%s pid=%u tid=%u cpu=%u %s%s\n", n, m->u.sw.pid, m->u.sw.tid, m->u.sw.cpu,
		       m->u.sw.flags & PL_SWITCH_OUT ? "out" : "in",
		       m->u.sw.flags & PL_SWITCH_PREEMPT ? " preempt" : "");
		break;
	case PL_MSG_EVENT_DESC:
		printf("%s index=%u role=%u name=%.*s type=%u config=%" PRIu64 "\n", n,
		       m->u.event_desc.index, m->u.event_desc.role, S(m->u.event_desc.name),
		       m->u.event_desc.type, m->u.event_desc.config);
		break;
	case PL_MSG_COUNTERS:
		printf("%s n=%u", n, m->u.counters.n);
		for (uint32_t i = 0; i < m->u.counters.n; i++)
			printf(" %u=%" PRIu64, m->u.counters.v[i].event, m->u.counters.v[i].value);
		printf("\n");
		break;
	case PL_MSG_REPLY:
		printf("%s req=%u cmd=%u status=%d msg=%.*s\n", n, m->u.reply.request_id,
		       m->u.reply.command, m->u.reply.status, S(m->u.reply.message));
		break;
	case PL_MSG_END:
		printf("%s reason=%u status=%d time=%" PRIu64 " msg=%.*s\n", n, m->u.end.reason,
		       m->u.end.status, m->u.end.time, S(m->u.end.message));
		break;
	case PL_MSG_LOG:
		printf("%s level=%u %.*s\n", n, m->u.log.level, S(m->u.log.message));
		break;
	case PL_MSG_LOST:
		printf("%s kind=%u count=%" PRIu64 "\n", n, m->u.lost.kind, m->u.lost.count);
		break;
	case PL_MSG_HEALTH:
		printf("%s cpu=%u‰ mem_avail=%" PRIu64 "kB agent_cpu=%" PRIu64 "ns agent_rss=%" PRIu64
		       "kB samples=%" PRIu64 " lost=%" PRIu64 " dropped=%" PRIu64 " raw=%" PRIu64
		       " sent=%" PRIu64 "\n",
		       n, m->u.health.cpu_busy_permille, m->u.health.mem_available_kb,
		       m->u.health.agent_cpu_ns, m->u.health.agent_rss_kb, m->u.health.samples,
		       m->u.health.lost, m->u.health.dropped, m->u.health.bytes_raw,
		       m->u.health.bytes_sent);
		break;
	case PL_MSG_FILE_CHUNK:
		printf("%s kind=%u pid=%u addr=0x%" PRIx64 " off=%" PRIu64 " len=%u total=%" PRIu64
		       " name=%.*s\n", n, m->u.chunk.kind, m->u.chunk.pid, m->u.chunk.addr,
		       m->u.chunk.offset, m->u.chunk.len, m->u.chunk.total, S(m->u.chunk.name));
		break;
	case PL_MSG_SESSION:
		printf("%s id=%u target=%u pid=%u callgraph=%u stack=%u freq=%u start=%" PRIu64
		       " cmd=%.*s\n",
		       n, m->u.session.session_id, m->u.session.target, m->u.session.pid,
		       m->u.session.callgraph, m->u.session.stack_size, m->u.session.frequency,
		       m->u.session.start_ns, S(m->u.session.command));
		break;
	case PL_MSG_PROBE_EVENT:
		printf("%s name=%.*s pmu=%.*s type=%u config=%" PRIu64 " status=%d flags=0x%x msg=%.*s\n",
		       n, S(m->u.probe_event.name), S(m->u.probe_event.pmu), m->u.probe_event.type,
		       m->u.probe_event.config, m->u.probe_event.status, m->u.probe_event.flags,
		       S(m->u.probe_event.message));
		break;
	case PL_MSG_PROBE_SUMMARY:
		printf("%s paranoid=%d kptr_restrict=%d kernel_stacks=%u user_stacks=%u default=%.*s "
		       "pmus=%.*s msg=%.*s\n",
		       n, m->u.probe_summary.paranoid, m->u.probe_summary.kptr_restrict,
		       m->u.probe_summary.kernel_stacks_ok, m->u.probe_summary.user_stacks_ok,
		       S(m->u.probe_summary.default_event), S(m->u.probe_summary.pmus),
		       S(m->u.probe_summary.message));
		break;
	case PL_MSG_PROC:
		printf("%s pid=%u comm=%.*s\n", n, m->u.proc.pid, S(m->u.proc.comm));
		break;
	default:
		printf("%s\n", n);
	}
}

int main(int argc, char **argv)
{
	int counts_only = argc > 1 && !strcmp(argv[1], "-c");
	stack_words = argc > 1 && !strcmp(argv[1], "-w");
	int opt = counts_only || stack_words;
	const char *path = argc > 1 + opt ? argv[1 + opt] : "-";
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "pl-dump: %s: %s\n", path, strerror(errno));
		return 2;
	}
	struct pl_reader r;
	pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	static struct pl_msg m;
	static uint64_t counts[128];
	uint8_t buf[65536];
	size_t n;
	int rc = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		pl_reader_feed(&r, buf, n);
		while ((rc = pl_reader_next(&r, &m)) == 1) {
			if (m.type < 128)
				counts[m.type]++;
			if (!counts_only)
				print(&m);
		}
		if (rc < 0)
			break;
	}
	if (counts_only)
		for (int t = 0; t < 128; t++)
			if (counts[t])
				printf("%s %" PRIu64 "\n", pl_msg_type_name((uint16_t)t), counts[t]);
	int status = 0;
	if (rc < 0) {
		fprintf(stderr, "pl-dump: %s\n", pl_reader_error(&r));
		status = 2;
	} else if (pl_reader_pending(&r)) {
		fprintf(stderr, "pl-dump: %zu bytes after the last complete block ignored\n",
			pl_reader_pending(&r));
	}
	/* freed before exit, and stdout flushed here: under ASan a leak ends
	 * the process inside exit(), before stdio's buffers are written, and
	 * the tests would read a dump cut short */
	pl_reader_free(&r);
	if (f != stdin)
		fclose(f);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pl-dump: writing the dump: %s\n", strerror(errno));
		return 2;
	}
	return status;
}
