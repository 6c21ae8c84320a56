/* agent-test.c — the real perflens-agent on the real kernel (software
 * events), checked through its capture files and its TCP protocol. */
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <sys/socket.h>

#include "pl-test-agent.h"
#include "pl-test-nm.h"

static char agent[PATH_MAX + 32], burn[PATH_MAX + 32], burn_nofp[PATH_MAX + 32];
static char tmpdir[256];

static void paths(void)
{
	char dir[PATH_MAX];
	pl_agent_paths(dir, agent, sizeof(agent), tmpdir, sizeof(tmpdir), "pl-agent-test");
	snprintf(burn, sizeof(burn), "%s/workloads/burn", dir);
	snprintf(burn_nofp, sizeof(burn_nofp), "%s/workloads/burn-nofp", dir);
}

/* Skips only when the kernel itself refuses perf events; where it allows
 * them, an agent whose probe fails is the failure. */
static void need_perf(void)
{
	paths();
	pl_need_kernel_perf();
	char out[16384];
	char *argv[] = { agent, "--probe", NULL };
	int rc = pl_run_capture(argv, out, sizeof(out), 30000);
	PL_CHECKF(rc == 0, "the kernel allows perf events, but %s --probe exits %d: %.400s", agent,
		  rc, out);
}

/* The REPLY to request req (other messages pass by): its status, after
 * checking that it answers the command sent. */
static int reply_to(struct pl_conn *c, uint32_t req, uint16_t command, int timeout_ms)
{
	uint64_t end = pl_ms_now() + (uint64_t)timeout_ms;
	for (;;) {
		int left = (int)(end - pl_ms_now());
		PL_CHECKF(left > 0, "no REPLY to request %u within %d ms", req, timeout_ms);
		int rc = pl_conn_wait(c, PL_MSG_REPLY, left);
		PL_CHECKF(rc == 1, "no REPLY to request %u: %s", req, rc == 0 ? "timeout" : "closed");
		if (c->m.u.reply.request_id != req)
			continue;
		PL_CHECKF(c->m.u.reply.command == command, "REPLY %u answers command %u, not %u", req,
			  c->m.u.reply.command, command);
		return c->m.u.reply.status;
	}
}

static int read_build_id(const char *bin, char *hex, size_t len)
{
	char cmd[PATH_MAX + 100], line[512];
	snprintf(cmd, sizeof(cmd), "readelf -n %s", bin);
	FILE *p = popen(cmd, "r");
	int found = 0;
	while (p && fgets(line, sizeof(line), p)) {
		char *b = strstr(line, "Build ID: ");
		if (b) {
			snprintf(hex, len, "%s", b + 10);
			hex[strcspn(hex, "\n ")] = 0;
			found = 1;
		}
	}
	if (p)
		pclose(p);
	return found;
}

/* ─── what a capture holds ─────────────────────────────────────────────── */

#define MAXT 64
struct summary {
	int hello_first, nmsgs, hello;
	uint32_t hello_flags;
	struct pl_msg_session session;
	int has_session;
	uint32_t switch_event; /* index of the switch sampler, or ~0 */
	long samples, switch_samples;
	long sample_with_chain, dwarf_ok, dwarf_bad;
	/* dwarf samples without a stack copy taken in the kernel, and whether
	 * one came before a thread's last sample with a copy */
	long dwarf_exit, dwarf_exit_early;
	uint64_t dwarf_exit_first[MAXT], dwarf_last_ok[MAXT];
	uint32_t tids[MAXT];
	long tid_samples[MAXT];
	int ntids;
	char comms[16][32];
	int ncomms;
	int forks, exits, comm_snapshots, mmap_snapshots;
	int switches_out_voluntary[MAXT], switches_any;
	int counters;
	uint64_t task_clock;
	uint32_t task_clock_index;
	int end, end_reason, end_status;
	char burn_build_id[64];
	uint64_t burn_bias;
	int have_burn_map;
	const char *burn_path;
	/* fp check: sample chains that pass through these functions */
	uint64_t wl_lo, wl_hi, cm_lo, cm_hi;
	long chain_hits_worker, chain_hits_mid;
	long first_sample_ms;
	int lost_msgs;
	uint64_t health;
};

static int tid_slot(struct summary *s, uint32_t tid)
{
	for (int i = 0; i < s->ntids; i++)
		if (s->tids[i] == tid)
			return i;
	if (s->ntids == MAXT)
		return MAXT - 1;
	s->tids[s->ntids] = tid;
	return s->ntids++;
}

static void summarize(const struct pl_msg *m, void *user)
{
	struct summary *s = user;
	if (s->nmsgs++ == 0)
		s->hello_first = m->type == PL_MSG_HELLO;
	switch (m->type) {
	case PL_MSG_HELLO:
		s->hello++;
		s->hello_flags = m->u.hello.flags;
		break;
	case PL_MSG_SESSION:
		s->session = m->u.session;
		s->has_session = 1;
		break;
	case PL_MSG_EVENT_DESC:
		if (m->u.event_desc.role == PL_ROLE_SWITCH)
			s->switch_event = m->u.event_desc.index;
		if (m->u.event_desc.name.len == 10 && !memcmp(m->u.event_desc.name.p, "task-clock", 10))
			s->task_clock_index = m->u.event_desc.index;
		break;
	case PL_MSG_SAMPLE: {
		const struct pl_msg_sample *x = &m->u.sample;
		if (x->event == s->switch_event) {
			s->switch_samples++;
			break;
		}
		s->samples++;
		s->tid_samples[tid_slot(s, x->tid)]++;
		if (x->nr_callchain > 2)
			s->sample_with_chain++;
		int in_wl = 0, in_cm = 0;
		for (uint32_t i = 0; i < x->nr_callchain; i++) {
			uint64_t a = x->callchain[i] - s->burn_bias;
			in_wl |= a >= s->wl_lo && a < s->wl_hi;
			in_cm |= a >= s->cm_lo && a < s->cm_hi;
		}
		s->chain_hits_worker += in_wl;
		s->chain_hits_mid += in_cm;
		if (s->session.callgraph == PL_CG_DWARF) {
			if (x->regs_abi == PERF_SAMPLE_REGS_ABI_64 && x->nr_regs == 20 &&
			    x->stack_size > 0 && x->stack_size <= s->session.stack_size &&
			    x->stack_requested == s->session.stack_size) {
				s->dwarf_ok++;
				int k = tid_slot(s, x->tid);
				if (x->time > s->dwarf_last_ok[k])
					s->dwarf_last_ok[k] = x->time;
			} else if (x->stack_size == 0 && x->cpumode == PERF_RECORD_MISC_KERNEL) {
				/* a thread on its way out has no user memory to
				 * copy: allowed only after its last whole sample */
				int k = tid_slot(s, x->tid);
				s->dwarf_exit++;
				if (!s->dwarf_exit_first[k] || x->time < s->dwarf_exit_first[k])
					s->dwarf_exit_first[k] = x->time;
			} else {
				s->dwarf_bad++;
			}
		}
		break;
	}
	case PL_MSG_COMM:
		if (m->u.comm.snapshot)
			s->comm_snapshots++;
		if (s->ncomms < 16)
			snprintf(s->comms[s->ncomms++], 32, "%.*s", (int)m->u.comm.comm.len,
				 m->u.comm.comm.p);
		break;
	case PL_MSG_TASK:
		if (m->u.task.kind == PL_TASK_FORK)
			s->forks++;
		else
			s->exits++;
		break;
	case PL_MSG_SWITCH:
		s->switches_any++;
		if ((m->u.sw.flags & PL_SWITCH_OUT) && !(m->u.sw.flags & PL_SWITCH_PREEMPT))
			s->switches_out_voluntary[tid_slot(s, m->u.sw.tid)]++;
		break;
	case PL_MSG_MMAP:
		if (m->u.mmap.snapshot)
			s->mmap_snapshots++;
		if (s->burn_path && m->u.mmap.filename.len == strlen(s->burn_path) &&
		    !memcmp(m->u.mmap.filename.p, s->burn_path, m->u.mmap.filename.len) &&
		    (m->u.mmap.prot & 4 /* PROT_EXEC */)) {
			s->have_burn_map = 1;
			s->burn_bias = m->u.mmap.start - m->u.mmap.pgoff;
			for (int i = 0; i < m->u.mmap.build_id_len; i++)
				snprintf(s->burn_build_id + 2 * i, 3, "%02x", m->u.mmap.build_id[i]);
		}
		break;
	case PL_MSG_COUNTERS:
		s->counters++;
		for (uint32_t i = 0; i < m->u.counters.n; i++)
			if (m->u.counters.v[i].event == s->task_clock_index)
				s->task_clock = m->u.counters.v[i].value;
		break;
	case PL_MSG_END:
		s->end++;
		s->end_reason = m->u.end.reason;
		s->end_status = m->u.end.status;
		break;
	case PL_MSG_LOST:
		s->lost_msgs++;
		break;
	case PL_MSG_HEALTH:
		s->health++;
		break;
	}
}

static void summary_init(struct summary *s, const char *bin)
{
	memset(s, 0, sizeof(*s));
	s->switch_event = ~0u;
	s->task_clock_index = ~0u;
	s->burn_path = bin;
	PL_CHECK(pl_sym_range(bin, "worker_loop", &s->wl_lo, &s->wl_hi));
	PL_CHECK(pl_sym_range(bin, "compute_outer", &s->cm_lo, &s->cm_hi));
}

static int comm_seen(const struct summary *s, const char *name)
{
	for (int i = 0; i < s->ncomms; i++)
		if (!strcmp(s->comms[i], name))
			return 1;
	return 0;
}

static int run_agent(char *const argv[], int timeout_ms)
{
	char log[300];
	snprintf(log, sizeof(log), "%s/agent.log", tmpdir);
	pid_t pid = pl_spawn(argv, log);
	int st = pl_wait(pid, timeout_ms);
	if (st < 0) {
		pl_kill(pid);
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Two passes over a capture: the first learns the load bias of the
 * workload, the second counts. */
static void read_capture(const char *path, struct summary *s)
{
	char err[200];
	long n = pl_capture_each(path, summarize, s, err, sizeof(err));
	PL_CHECKF(n > 0, "%s", err);
	uint64_t bias = s->burn_bias;
	const char *bin = s->burn_path;
	summary_init(s, bin);
	s->burn_bias = bias;
	PL_CHECK(pl_capture_each(path, summarize, s, err, sizeof(err)) == n);
}

/* The capture as it is on the wire (protocol 2): blocks of one zstd frame
 * (ZSTD_NEW, then ZSTD_MORE), and plain samples in SAMPLE_BATCH frames. */
struct wire_form {
	long blocks, new_blocks, more_blocks, batches, batched, sample_frames;
};

static void read_wire_form(const char *path, struct wire_form *w)
{
	memset(w, 0, sizeof(*w));
	FILE *f = fopen(path, "rb");
	PL_CHECK(f != NULL);
	static uint8_t buf[8u << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	char err[200];
	struct pl_stream_header sh;
	PL_CHECKF(pl_stream_header_parse(buf, n, &sh, err, sizeof(err)) == 0, "%s", err);
	PL_CHECK(sh.version == PL_FORMAT_VERSION);
	struct pl_block_dec dec;
	PL_CHECK(pl_block_dec_init(&dec) == 0);
	static struct pl_msg m;
	size_t pos = sh.header_size;
	struct pl_block_header bh;
	while (pl_block_header_parse(buf + pos, n - pos, &bh, err, sizeof(err)) == 0 &&
	       pos + PL_BLOCK_HEADER_SIZE + bh.stored_len <= n) {
		const uint8_t *raw;
		size_t raw_len;
		PL_CHECKF(pl_block_decode(&dec, &bh, buf + pos + PL_BLOCK_HEADER_SIZE, &raw, &raw_len,
					  err, sizeof(err)) == 0,
			  "block %ld: %s", w->blocks, err);
		w->blocks++;
		w->new_blocks += bh.codec == PL_CODEC_ZSTD_NEW;
		w->more_blocks += bh.codec == PL_CODEC_ZSTD_MORE;
		pos += PL_BLOCK_HEADER_SIZE + bh.stored_len;
		for (size_t off = 0; off + PL_FRAME_HEADER_SIZE <= raw_len;) {
			struct pl_frame_header fh;
			PL_CHECK(pl_frame_header_parse(raw + off, raw_len - off, &fh, err,
						       sizeof(err)) == 0);
			if (fh.type == PL_MSG_SAMPLE)
				w->sample_frames++;
			if (fh.type == PL_MSG_SAMPLE_BATCH) {
				PL_CHECK(pl_msg_decode(fh.type, raw + off + PL_FRAME_HEADER_SIZE, fh.len,
						       &m, err, sizeof(err)) == 0);
				w->batches++;
				w->batched += m.u.batch.count;
			}
			off += PL_FRAME_HEADER_SIZE + fh.len;
		}
	}
	PL_CHECK(pos == n); /* the agent finished every block it started */
	pl_block_dec_free(&dec);
}

/* ─── tests ─────────────────────────────────────────────────────────── */

static void test_version_help_and_bad_options(void)
{
	paths();
	char *v[] = { agent, "--version", NULL };
	PL_CHECK(run_agent(v, 5000) == 0);
	char *h[] = { agent, "--help", NULL };
	PL_CHECK(run_agent(h, 5000) == 0);
	char *bad[] = { agent, "--frequency", "lots", NULL };
	PL_CHECK(run_agent(bad, 5000) == 2);
	char *noout[] = { agent, "--output", "/tmp/x.plens", NULL };
	PL_CHECK(run_agent(noout, 5000) == 2);
	char *badev[] = { agent, "--event", "nonsense", "--output", "/tmp/x", "--all", NULL };
	PL_CHECK(run_agent(badev, 5000) == 2);
}

static void test_probe_reports_fallback(void)
{
	need_perf();
	char cmd[PATH_MAX + 100], out[8192] = "";
	snprintf(cmd, sizeof(cmd), "%s --probe 2>&1", agent);
	FILE *p = popen(cmd, "r");
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = 0;
	pclose(p);
	PL_CHECKF(strstr(out, "cpu-clock") && strstr(out, "call graphs"), "%s", out);
	PL_CHECKF(strstr(out, "fp     yes"), "fp call graphs should work here:\n%s", out);
	PL_CHECKF(strstr(out, "dwarf  yes"), "dwarf call graphs should work here:\n%s", out);
	/* auto is fp wherever fp works; LBR is offered only when a test
	 * sample had an LBR call stack, which this VM cannot give */
	PL_CHECKF(strstr(out, "call graphs (auto: fp)"), "%s", out);
	PL_CHECKF(strstr(out, "lbr    no"), "LBR offered on a VM:\n%s", out);
	/* this VM has no hardware events: the probe must say it falls back */
	if (strstr(out, "cycles                 no"))
		PL_CHECKF(strstr(out, "falls back to cpu-clock"), "%s", out);
}

static void test_output_command_fp(void)
{
	need_perf();
	char file[300];
	snprintf(file, sizeof(file), "%s/fp.plens", tmpdir);
	char *argv[] = { agent, "--output", file, "--frequency", "999", "--callgraph", "fp", "--",
			 burn, "--cpu", "1.5", "2", NULL };
	PL_CHECK(run_agent(argv, 20000) == 0);
	static struct summary s;
	summary_init(&s, burn);
	read_capture(file, &s);
	PL_CHECK(s.hello_first && s.hello == 1 && s.has_session);
	PL_CHECK(s.session.callgraph == PL_CG_FP && s.session.target == PL_TARGET_COMMAND);
	PL_CHECKF(s.samples > 300, "only %ld samples", s.samples);
	/* main, burn-1, burn-2 burn CPU: each has samples */
	int busy = 0;
	for (int i = 0; i < s.ntids; i++)
		busy += s.tid_samples[i] > 20;
	PL_CHECKF(busy >= 3, "%d threads with samples", busy);
	PL_CHECK(comm_seen(&s, "burn-1") && comm_seen(&s, "burn-2") && comm_seen(&s, "sleeper"));
	PL_CHECK(s.forks >= 4 && s.exits >= 4);
	/* the workload's mapping with the build-id of the file */
	char want[64];
	PL_CHECK(read_build_id(burn, want, sizeof(want)));
	PL_CHECK(s.have_burn_map);
	PL_CHECKF(!strcmp(s.burn_build_id, want), "build-id %s, file has %s", s.burn_build_id, want);
	/* fp chains carry the workload's own return addresses */
	PL_CHECKF(s.chain_hits_worker > s.samples / 2, "%ld of %ld chains through worker_loop",
		  s.chain_hits_worker, s.samples);
	/* (compute_mid, the caller of the frameless leaf hot_leaf, is skipped
	 * by fp unwinding: that is what DWARF mode is for) */
	PL_CHECKF(s.chain_hits_mid > s.samples / 2, "%ld of %ld chains through compute_outer",
		  s.chain_hits_mid, s.samples);
	/* the sleeper thread switches out voluntarily, often */
	int sleeper_switches = 0;
	for (int i = 0; i < s.ntids; i++)
		if (s.switches_out_voluntary[i] > sleeper_switches)
			sleeper_switches = s.switches_out_voluntary[i];
	PL_CHECKF(sleeper_switches > 50, "max voluntary switch-outs of a thread: %d",
		  sleeper_switches);
	PL_CHECKF(s.switch_samples > 50, "%ld context-switch samples", s.switch_samples);
	PL_CHECK(s.counters >= 1 && s.task_clock > 100000000ull); /* > 0.1 s of task-clock */
	PL_CHECK(s.health >= 1);
	PL_CHECK(s.end == 1 && s.end_reason == PL_END_TARGET_EXITED && s.end_status == 0);
}

static void test_output_command_dwarf(void)
{
	need_perf();
	char file[300];
	snprintf(file, sizeof(file), "%s/dwarf.plens", tmpdir);
	char *argv[] = { agent, "--output", file, "--frequency", "499", "--callgraph", "dwarf",
			 "--stack-size", "8192", "--no-offcpu", "--", burn_nofp, "--cpu", "1", "1", NULL };
	PL_CHECK(run_agent(argv, 20000) == 0);
	static struct summary s;
	summary_init(&s, burn_nofp);
	read_capture(file, &s);
	PL_CHECK(s.session.callgraph == PL_CG_DWARF && s.session.stack_size == 8192);
	PL_CHECK(s.session.sample_regs_user != 0);
	PL_CHECKF(s.samples > 100, "%ld samples", s.samples);
	for (int i = 0; i < s.ntids; i++)
		s.dwarf_exit_early += s.dwarf_exit_first[i] && s.dwarf_exit_first[i] < s.dwarf_last_ok[i];
	PL_CHECKF(s.dwarf_ok + s.dwarf_exit == s.samples && s.dwarf_bad == 0 &&
			  s.dwarf_exit_early == 0,
		  "%ld ok, %ld bad, %ld in the kernel without a copy (%ld of them before the "
		  "thread's last whole sample), %d threads", s.dwarf_ok, s.dwarf_bad, s.dwarf_exit,
		  s.dwarf_exit_early, s.ntids);
	PL_CHECK(s.switch_samples == 0);
}

/* --callgraph lbr where LBR cannot be had (this VM): a software event
 * never asks for the branch stack, cycles falls back to cpu-clock without
 * it, and the session records fp stacks, says so, and says why; the
 * off-CPU sampler (software, never with a branch stack) still opens. */
static char lbr_log[1024];
static void summarize_and_log(const struct pl_msg *m, void *user)
{
	summarize(m, user);
	if (m->type == PL_MSG_LOG)
		snprintf(lbr_log + strlen(lbr_log), sizeof(lbr_log) - strlen(lbr_log), "%.*s|",
			 (int)m->u.log.message.len, m->u.log.message.p);
}

static void lbr_run(const char *event, const char *mode, const char *why)
{
	char file[300], err[200];
	snprintf(file, sizeof(file), "%s/lbr-%s-%s.plens", tmpdir, event, mode);
	char *argv[] = { agent, "--output", file, "--event", (char *)event, "--frequency", "999",
			 "--callgraph", (char *)mode, "--no-counters", "--", burn, "--cpu", "1", "2", NULL };
	PL_CHECK(run_agent(argv, 20000) == 0);
	static struct summary s;
	summary_init(&s, burn);
	lbr_log[0] = 0;
	PL_CHECK(pl_capture_each(file, summarize_and_log, &s, err, sizeof(err)) > 0);
	uint64_t bias = s.burn_bias;
	summary_init(&s, burn);
	s.burn_bias = bias;
	lbr_log[0] = 0;
	PL_CHECK(pl_capture_each(file, summarize_and_log, &s, err, sizeof(err)) > 0);
	PL_CHECKF(s.session.callgraph == PL_CG_FP, "%s: session call graph %u", event,
		  s.session.callgraph);
	if (why)
		PL_CHECKF(strstr(lbr_log, why), "%s: the log says: %s", event, lbr_log);
	else
		PL_CHECKF(!strstr(lbr_log, "LBR"), "%s %s: the log says: %s", event, mode, lbr_log);
	PL_CHECKF(s.samples > 100, "%s: only %ld samples", event, s.samples);
	PL_CHECKF(s.chain_hits_worker > s.samples / 2, "%s: %ld of %ld fp chains through worker_loop",
		  event, s.chain_hits_worker, s.samples);
	PL_CHECKF(s.switch_samples > 10, "%s: %ld off-CPU samples", event, s.switch_samples);
	PL_CHECK(s.end == 1 && s.end_reason == PL_END_TARGET_EXITED && s.end_status == 0);
}

static void test_lbr_without_lbr_records_fp_and_says_why(void)
{
	need_perf();
	lbr_run("cpu-clock", "lbr", "cpu-clock is a software event, LBR needs a hardware one");
	/* cycles: on this VM no PMU at all; on a board with one but no LBR,
	 * the same sentence and cycles kept */
	lbr_run("cycles", "lbr", "No LBR call stack here");
	/* auto (the default, what the app sends): fp here, LBR never tried */
	lbr_run("cycles", "auto", NULL);
}

struct ev_counts {
	long by_event[8];
	char names[8][32];
};
static void count_events(const struct pl_msg *m, void *user)
{
	struct ev_counts *e = user;
	if (m->type == PL_MSG_EVENT_DESC && m->u.event_desc.index < 8)
		snprintf(e->names[m->u.event_desc.index], 32, "%.*s", (int)m->u.event_desc.name.len,
			 m->u.event_desc.name.p);
	if (m->type == PL_MSG_SAMPLE && m->u.sample.event < 8)
		e->by_event[m->u.sample.event]++;
}

static void test_several_events_with_their_own_rates(void)
{
	need_perf();
	char file[300], err[200];
	snprintf(file, sizeof(file), "%s/events.plens", tmpdir);
	char *argv[] = { agent, "--output", file, "--event", "cpu-clock:freq=999",
			 "--event", "task-clock:period=5000000", "--event", "page-faults:period=1",
			 "--no-offcpu", "--no-counters", "--callgraph", "fp", "--", burn, "--cpu", "1", "2", NULL };
	PL_CHECK(run_agent(argv, 20000) == 0);
	static struct ev_counts e;
	memset(&e, 0, sizeof(e));
	PL_CHECK(pl_capture_each(file, count_events, &e, err, sizeof(err)) > 0);
	PL_CHECK(!strcmp(e.names[0], "cpu-clock") && !strcmp(e.names[1], "task-clock"));
	PL_CHECK(!strcmp(e.names[2], "page-faults"));
	/* 999 Hz vs one per 5 ms of task time: about 5x fewer */
	PL_CHECKF(e.by_event[0] > 100 && e.by_event[1] > 20 && e.by_event[1] * 2 < e.by_event[0],
		  "cpu-clock %ld task-clock %ld", e.by_event[0], e.by_event[1]);
	PL_CHECKF(e.by_event[2] > 10, "page-faults %ld", e.by_event[2]);
}

static void test_attach_to_running_pid(void)
{
	need_perf();
	char *bargv[] = { burn, "--cpu", "2.5", "2", NULL };
	pid_t target = pl_spawn(bargv, "/dev/null");
	usleep(300000); /* let it start its threads */
	char file[300], pidarg[16];
	snprintf(file, sizeof(file), "%s/attach.plens", tmpdir);
	snprintf(pidarg, sizeof(pidarg), "%d", (int)target);
	char *argv[] = { agent, "--output", file, "--pid", pidarg, "--frequency", "499",
			 "--callgraph", "fp", NULL };
	/* the agent ends when its target does (END reason below), within
	 * run_agent's bound, however slowly a loaded machine runs either */
	int rc = run_agent(argv, 20000);
	int st = pl_wait(target, 5000);
	PL_CHECK(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0); /* unharmed */
	PL_CHECKF(rc == 0, "agent exit %d (-1: still running 20 s after its start)", rc);
	static struct summary s;
	summary_init(&s, burn);
	read_capture(file, &s);
	PL_CHECK(s.session.target == PL_TARGET_PID && s.session.pid == (uint32_t)target);
	PL_CHECK(s.comm_snapshots >= 4 && s.mmap_snapshots >= 2);
	PL_CHECK(comm_seen(&s, "burn-1") && comm_seen(&s, "sleeper"));
	PL_CHECK(s.have_burn_map);
	PL_CHECKF(s.samples > 200, "%ld samples", s.samples);
	int busy = 0;
	for (int i = 0; i < s.ntids; i++)
		busy += s.tid_samples[i] > 20;
	PL_CHECKF(busy >= 3, "%d busy threads", busy);
	PL_CHECK(s.chain_hits_worker > s.samples / 2);
	PL_CHECK(s.end == 1 && s.end_reason == PL_END_TARGET_EXITED);
	/* compactly: the HELLO block and the session each start a zstd frame,
	 * the session's later blocks continue it; its fp samples are batched */
	struct wire_form w;
	read_wire_form(file, &w);
	PL_CHECKF(w.new_blocks == 2 && w.more_blocks == w.blocks - 2 && w.more_blocks >= 1,
		  "%ld blocks: %ld new, %ld more", w.blocks, w.new_blocks, w.more_blocks);
	/* (context-switch samples stay SAMPLE frames, with ns times; they do
	 * not cut the batches) */
	PL_CHECKF(w.batched >= s.samples * 9 / 10 && w.batched >= 5 * w.batches,
		  "%ld samples: %ld batched in %ld batches; %ld SAMPLE frames", s.samples,
		  w.batched, w.batches, w.sample_frames);
}

/* ─── the TCP protocol ──────────────────────────────────────────────── */

static pid_t start_listener(int port, const char *token)
{
	char portarg[16], log[300];
	snprintf(portarg, sizeof(portarg), "%d", port);
	snprintf(log, sizeof(log), "%s/listen.log", tmpdir);
	char *argv[] = { agent, "--listen", "--bind", "127.0.0.1", "--port", portarg, "--token",
			 (char *)token, NULL };
	return pl_spawn(argv, log);
}

struct proc_seen {
	int ours, count;
};

static void test_listen_full_session(void)
{
	need_perf();
	int port = pl_free_port();
	pid_t ag = start_listener(port, "s3cret");
	struct pl_conn c;
	PL_CHECK(pl_conn_open(&c, port, 5000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 5000) == 1);
	PL_CHECK(c.m.u.hello.flags & PL_HELLO_AUTH_REQUIRED);
	PL_CHECK(c.m.u.hello.flags & PL_HELLO_PARTIAL); /* the facts after AUTH (access-test) */
	struct pl_msg m = { .type = PL_MSG_AUTH };
	m.u.auth.request_id = 76;
	m.u.auth.token = pl_str_c("s3cret");
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 5000) == 1);
	PL_CHECK(!(c.m.u.hello.flags & PL_HELLO_PARTIAL));
	PL_CHECK(c.m.u.hello.flags & PL_HELLO_PERF_AVAILABLE);
	PL_CHECK(c.m.u.hello.e_machine == 62 /* EM_X86_64 */ && c.m.u.hello.word_size == 8);
	PL_CHECK(c.m.u.hello.ncpus >= 1 && c.m.u.hello.kernel_release.len > 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_PROBE_SUMMARY, 5000) == 1);
	PL_CHECK(reply_to(&c, 76, PL_MSG_AUTH, 3000) == 0);

	/* the process list includes this test */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_LIST;
	m.u.request.request_id = 77;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	int procs = 0, ours = 0;
	for (;;) {
		PL_CHECK(pl_conn_next(&c, 5000) == 1);
		if (c.m.type == PL_MSG_PROC) {
			procs++;
			ours |= c.m.u.proc.pid == (uint32_t)getpid();
		}
		if (c.m.type == PL_MSG_REPLY && c.m.u.reply.request_id == 77)
			break;
	}
	PL_CHECKF(procs > 3 && ours, "%d processes, ours %d", procs, ours);

	/* start a command; samples arrive within a second */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_START;
	struct pl_msg_start *st = &m.u.start;
	st->request_id = 78;
	st->target = PL_TARGET_COMMAND;
	st->argc = 3;
	st->argv[0] = pl_str_c(burn);
	st->argv[1] = pl_str_c("20");
	st->argv[2] = pl_str_c("1");
	st->frequency = 499;
	st->callgraph = PL_CG_FP;
	st->stacks = PL_STACKS_USER;
	st->flags = PL_START_COUNTERS;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	uint64_t t_start = pl_ms_now();
	int got_reply = 0;
	while (!got_reply) {
		PL_CHECK(pl_conn_next(&c, 5000) == 1);
		if (c.m.type == PL_MSG_REPLY && c.m.u.reply.request_id == 78) {
			PL_CHECKF(c.m.u.reply.status == 0, "START: %.*s", (int)c.m.u.reply.message.len,
				  c.m.u.reply.message.p);
			got_reply = 1;
		}
	}
	/* samples flow while the command runs, not at its end (a sparse
	 * block closes within 750 ms; this asserts the stream, bench/latency.sh
	 * times it): the first arrives well inside the command's 20 s, however
	 * slowly a loaded machine starts it */
	PL_CHECK(pl_conn_wait(&c, PL_MSG_SAMPLE, 15000) == 1);
	uint64_t first = pl_ms_now() - t_start;
	printf("# first sample %llu ms after START\n", (unsigned long long)first);

	/* pause: no sample is taken after the reply.  The agent stops its
	 * events before it replies, and its samples carry CLOCK_MONOTONIC
	 * (perf's use_clockid): what is still in flight after the reply was
	 * taken before it, and a sample stamped later than the reply's
	 * arrival here was taken while paused, however late it arrives. */
	PL_CHECK(pl_conn_request(&c, PL_MSG_PAUSE) == 0);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t replied_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	uint64_t watch_until = pl_ms_now() + 750;
	int after = 0, in_flight = 0;
	uint64_t latest = 0;
	while (pl_ms_now() < watch_until) {
		if (pl_conn_next(&c, 100) == 1 && c.m.type == PL_MSG_SAMPLE) {
			if (c.m.u.sample.time > replied_ns)
				after++;
			else
				in_flight++;
			latest = c.m.u.sample.time > latest ? c.m.u.sample.time : latest;
		}
	}
	printf("# pause: %d samples in flight after the reply, taken before it\n", in_flight);
	PL_CHECKF(after == 0, "%d samples taken while paused (the latest %.3f ms after the reply)",
		  after, (double)(latest - replied_ns) / 1e6);
	PL_CHECK(pl_conn_request(&c, PL_MSG_RESUME) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_SAMPLE, 1000) == 1);

	/* frequency change while running */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_CONFIGURE;
	m.u.configure.request_id = 90;
	m.u.configure.frequency = 199;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(reply_to(&c, 90, PL_MSG_CONFIGURE, 3000) == 0);

	/* change the event while running: new EVENT_DESC, samples follow it */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_CONFIGURE;
	m.u.configure.request_id = 91;
	m.u.configure.nevents = 1;
	m.u.configure.events[0] = pl_str_c("task-clock:freq=300");
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	int new_event = -1, replied = 0, after_change = 0;
	/* 20 samples of task-clock at 300 Hz are 67 ms of the workload's CPU
	 * time, not of the wall clock, which a loaded machine stretches: the
	 * loop ends at the 20th sample, and the wall-clock cap only keeps a
	 * broken agent from hanging the test */
	uint64_t until = pl_ms_now() + 30000;
	while (pl_ms_now() < until && after_change < 20) {
		if (pl_conn_next(&c, 500) != 1)
			continue;
		if (c.m.type == PL_MSG_EVENT_DESC && c.m.u.event_desc.name.len == 10 &&
		    !memcmp(c.m.u.event_desc.name.p, "task-clock", 10))
			new_event = (int)c.m.u.event_desc.index;
		if (c.m.type == PL_MSG_REPLY && c.m.u.reply.request_id == 91) {
			PL_CHECKF(c.m.u.reply.status == 0, "CONFIGURE events: %.*s",
				  (int)c.m.u.reply.message.len, c.m.u.reply.message.p);
			replied = 1;
		}
		if (replied && c.m.type == PL_MSG_SAMPLE) {
			PL_CHECKF((int)c.m.u.sample.event == new_event, "sample of event %u, new is %d",
				  c.m.u.sample.event, new_event);
			after_change++;
		}
	}
	PL_CHECKF(new_event > 0 && replied && after_change >= 20, "event %d replied %d samples %d",
		  new_event, replied, after_change);

	/* a second viewer is told the agent is busy, once it has authenticated
	 * (before, it learns nothing about who holds the agent) */
	struct pl_conn c2;
	PL_CHECK(pl_conn_open(&c2, port, 2000) == 0);
	PL_CHECK(pl_conn_wait(&c2, PL_MSG_HELLO, 3000) == 1);
	PL_CHECK(pl_conn_auth(&c2, "s3cret") == -EBUSY);
	PL_CHECK(strstr(c2.m.u.reply.message.p, "busy") != NULL);
	PL_CHECK(pl_conn_next(&c2, 2000) == -1); /* and hung up on */
	pl_conn_close(&c2);

	/* stop: END (stopped) arrives and the STOP's own REPLY says ok */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_STOP;
	m.u.request.request_id = 92;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	int ended = 0, stopped = 1000;
	while (stopped == 1000) {
		PL_CHECK(pl_conn_next(&c, 5000) == 1);
		if (c.m.type == PL_MSG_END) {
			PL_CHECKF(c.m.u.end.reason == PL_END_STOPPED, "END reason %u", c.m.u.end.reason);
			ended = 1;
		}
		if (c.m.type == PL_MSG_REPLY && c.m.u.reply.request_id == 92) {
			PL_CHECK(c.m.u.reply.command == PL_MSG_STOP);
			stopped = c.m.u.reply.status;
		}
	}
	PL_CHECKF(stopped == 0 && ended, "STOP: status %d, END seen %d", stopped, ended);
	PL_CHECK(pl_conn_request(&c, PL_MSG_BYE) == 0);
	pl_conn_close(&c);

	/* a wrong token is refused and the connection closed */
	PL_CHECK(pl_conn_open(&c, port, 2000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 3000) == 1);
	PL_CHECK(pl_conn_auth(&c, "guess") == -EACCES);
	PL_CHECK(pl_conn_next(&c, 3000) == -1);
	pl_conn_close(&c);

	/* and an unauthenticated command too */
	PL_CHECK(pl_conn_open(&c, port, 2000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 3000) == 1);
	PL_CHECK(pl_conn_request(&c, PL_MSG_LIST) == -EACCES);
	pl_conn_close(&c);

	/* garbage where a block should be (after the viewer's stream header,
	 * which pl_conn_open sent; longer than a block header): that
	 * connection is closed after the HELLO sent on accepting it, the agent
	 * says why and serves the next one */
	PL_CHECK(pl_conn_open(&c, port, 2000) == 0);
	static const char http[] = "GET / HTTP/1.0\r\nHost: board\r\n\r\n";
	PL_CHECK(sizeof(http) - 1 > PL_BLOCK_HEADER_SIZE);
	PL_CHECK(send(c.fd, http, sizeof(http) - 1, MSG_NOSIGNAL) == (ssize_t)sizeof(http) - 1);
	int rc, before_close = 0;
	while ((rc = pl_conn_next(&c, 3000)) == 1)
		before_close++;
	PL_CHECKF(rc == -1, "after garbage: %s, %d messages", rc == 0 ? "still open" : "?",
		  before_close);
	pl_conn_close(&c);
	char logpath[300], text[16384];
	snprintf(logpath, sizeof(logpath), "%s/listen.log", tmpdir);
	FILE *lf = fopen(logpath, "r");
	size_t tn = lf ? fread(text, 1, sizeof(text) - 1, lf) : 0;
	text[tn] = 0;
	if (lf)
		fclose(lf);
	PL_CHECKF(strstr(text, "bad data from"), "the agent's log does not name the garbage: %s",
		  text);
	PL_CHECK(pl_conn_open(&c, port, 2000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 3000) == 1);
	PL_CHECK(pl_conn_auth(&c, "s3cret") == 0);
	pl_conn_close(&c);
	pl_kill(ag);
}

static void test_stop_ends_session_with_end_message(void)
{
	need_perf();
	int port = pl_free_port();
	pid_t ag = start_listener(port, "t");
	struct pl_conn c;
	PL_CHECK(pl_conn_open(&c, port, 5000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_HELLO, 5000) == 1);
	PL_CHECK(pl_conn_auth(&c, "t") == 0);
	struct pl_msg m = { .type = PL_MSG_START };
	m.u.start.request_id = 5;
	m.u.start.target = PL_TARGET_COMMAND;
	m.u.start.argc = 2;
	m.u.start.argv[0] = pl_str_c(burn);
	m.u.start.argv[1] = pl_str_c("30");
	m.u.start.frequency = 99;
	m.u.start.callgraph = PL_CG_FP;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(reply_to(&c, 5, PL_MSG_START, 5000) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_SAMPLE, 2000) == 1);
	m.type = PL_MSG_STOP;
	m.u.request.request_id = 6;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(pl_conn_wait(&c, PL_MSG_END, 5000) == 1);
	PL_CHECK(c.m.u.end.reason == PL_END_STOPPED);
	PL_CHECK(reply_to(&c, 6, PL_MSG_STOP, 5000) == 0);
	/* a start with a pid that does not exist is refused with a reason */
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_START;
	m.u.start.request_id = 7;
	m.u.start.target = PL_TARGET_PID;
	m.u.start.pid = 0x7ffffff0;
	PL_CHECK(pl_conn_send(&c, &m) == 0);
	PL_CHECK(reply_to(&c, 7, PL_MSG_START, 5000) == -ESRCH && c.m.u.reply.message.len > 10);
	pl_conn_close(&c);
	pl_kill(ag);
}

static int listen_on(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int accept_within(int lfd, int ms)
{
	struct pollfd p = { lfd, POLLIN, 0 };
	if (poll(&p, 1, ms) != 1)
		return -1;
	return accept(lfd, NULL, NULL);
}

static int read_hello(int fd)
{
	struct pl_conn c;
	memset(&c, 0, sizeof(c));
	c.fd = fd;
	pl_reader_init(&c.r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	int rc = pl_conn_wait(&c, PL_MSG_HELLO, 5000);
	pl_reader_free(&c.r);
	return rc;
}

static void test_server_mode_reconnects(void)
{
	paths();
	int port = pl_free_port();
	int lfd = listen_on(port);
	PL_CHECK(lfd >= 0);
	char target[64], log[300];
	snprintf(target, sizeof(target), "127.0.0.1:%d", port);
	snprintf(log, sizeof(log), "%s/server.log", tmpdir);
	char *argv[] = { agent, "--server", target, "--no-auth", NULL };
	pid_t ag = pl_spawn(argv, log);
	int fd = accept_within(lfd, 5000);
	PL_CHECK(fd >= 0);
	PL_CHECK(read_hello(fd) == 1);
	/* the viewer goes away: listener and connection */
	close(fd);
	close(lfd);
	usleep(700000);
	uint64_t t0 = pl_ms_now();
	lfd = listen_on(port);
	PL_CHECK(lfd >= 0);
	fd = accept_within(lfd, 10000);
	PL_CHECKF(fd >= 0, "no reconnection within 10 s");
	PL_CHECK(read_hello(fd) == 1);
	uint64_t took = pl_ms_now() - t0;
	close(fd);
	close(lfd);
	pl_kill(ag);
	/* the log shows the backoff */
	FILE *f = fopen(log, "r");
	char text[8192] = "";
	size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
	text[n] = 0;
	if (f)
		fclose(f);
	PL_CHECKF(strstr(text, "retrying in"), "log: %s", text);
	PL_CHECKF(took < 10000, "reconnected after %llu ms", (unsigned long long)took);
}

PL_TEST_MAIN(PL_CASE(test_version_help_and_bad_options), PL_CASE(test_probe_reports_fallback),
	     PL_CASE(test_output_command_fp), PL_CASE(test_output_command_dwarf),
	     PL_CASE(test_several_events_with_their_own_rates),
	     PL_CASE(test_lbr_without_lbr_records_fp_and_says_why),
	     PL_CASE(test_attach_to_running_pid), PL_CASE(test_listen_full_session),
	     PL_CASE(test_stop_ends_session_with_end_message),
	     PL_CASE(test_server_mode_reconnects))
