/* collect.c — one profiling session, start to end: prepare the
 * configuration, open the events (events.c) on the target's threads or a
 * command it starts (spawn.c), announce the session, let the command run,
 * snapshot what existed before (proc-snapshot.c); then drain the rings into
 * messages (records.c), tick counters and liveness, and stop.  See
 * collect.h for the lifecycle. */
#include "collect-private.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"
#include "procfs.h"
#include "spawn.h"
#include "util.h"

/* ─── start ────────────────────────────────────────────────────────────── */

int pla_collect_start(struct pla_collector *c, const struct pla_collect_config *cfg,
		      struct pla_stream *out, char *err, size_t errlen)
{
	static uint32_t session_counter;
	int go_fd = -1, err_fd = -1, rc;
	pid_t *tids = NULL;
	int ntids = 0;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	/* markers or slow calls alone (--markers, --syscalls) still profile: the default event first */
	int only_markers = c->cfg.nevents > 0 && c->cfg.nevents < PL_MAX_EVENTS;
	for (uint32_t e = 0; e < c->cfg.nevents; e++)
		only_markers &= c->cfg.events[e].marker | c->cfg.events[e].syscalls;
	if (only_markers) {
		memmove(&c->cfg.events[1], &c->cfg.events[0],
			c->cfg.nevents * sizeof(c->cfg.events[0]));
		pla_event_parse("cycles", &c->cfg.events[0], err, errlen);
		c->cfg.nevents++;
	}
	pla_raise_nofile();
	c->session_id = ++session_counter;
	c->ncpus = pla_cpu_ids();
	if (c->ncpus > PLA_MAX_CPUS)
		c->ncpus = PLA_MAX_CPUS;
	if (!c->cfg.frequency)
		c->cfg.frequency = 99;
	if (c->cfg.callgraph == PL_CG_DWARF) {
		if (!c->cfg.stack_size)
			c->cfg.stack_size = 8192;
		c->cfg.stack_size = (c->cfg.stack_size + 7) & ~7u;
		if (c->cfg.stack_size > PL_MAX_STACK_COPY)
			c->cfg.stack_size = PL_MAX_STACK_COPY;
	}
	if (!c->cfg.stacks)
		c->cfg.stacks = PL_STACKS_USER;
	if (!c->cfg.ring_pages) {
		c->cfg.ring_pages = pla_ring_pages_for(c->cfg.callgraph, c->cfg.stack_size,
						       c->cfg.frequency);
		/* markers come in bursts, each with a stack copy (msg.h),
		 * often right at the start, while the agent snapshots /proc:
		 * room for ~100 per CPU (16 pages with 8 KiB copies lost 15 of
		 * 200 in bursts of 12 from 4 threads on a busy 2-CPU machine) */
		for (uint32_t e = 0; e < c->cfg.nevents; e++) {
			if (c->cfg.events[e].tracepoint && c->cfg.ring_pages < 32)
				c->cfg.ring_pages = 32; /* tracepoints burst too */
			/* every exit of a timed call carries its stack copy
			 * (msg.h, PL_EVENT_STACK), the fast ones too until the
			 * pairing drops them: among 0.1 ms naps with kernel
			 * stacks on, 32 pages (128 KiB) lost 17 of 20 slow calls,
			 * 128 pages up to 6, 256 pages none in 4 runs.  A
			 * dwarf session's copies are its stack size: as many
			 * times the pages (8 KiB: 1,024), for the calls made
			 * while the agent is still starting wait in the ring
			 * (an emulated arm64 board's kallsyms takes it 1.4 s
			 * of CPU: 32 pages there kept 45 of 120 calls) */
			uint32_t sys = 256;
			while (sys < 256 * (pla_event_stack(c) / PL_EVENT_STACK))
				sys *= 2;
			if (c->cfg.events[e].syscalls && c->cfg.ring_pages < sys)
				c->cfg.ring_pages = sys;
		}
	}
	c->cfg.ring_pages = pla_ring_pages_fit(c, c->cfg.ring_pages);
	if (!c->cfg.counter_interval_ms)
		c->cfg.counter_interval_ms = 1000;
	c->regs_mask = PLA_REGS_USER_MASK;
	c->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	/* In dwarf mode the user stack comes from the copy; the kernel's call
	 * chain is only wanted for kernel frames. */
	if (c->cfg.callgraph != PL_CG_NONE &&
	    !(c->cfg.callgraph == PL_CG_DWARF && c->cfg.stacks == PL_STACKS_USER))
		c->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (c->cfg.callgraph == PL_CG_DWARF)
		c->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	/* LBR: the branch stack is asked of hardware events only (events.c,
	 * c->lbr); the callchain stays on for the kernel part and the fp
	 * frames beyond the LBR's depth (common/lbr.h) */
	if (c->cfg.callgraph == PL_CG_LBR) {
		/* the LBR's depth, as perf reads it (unknown on hybrid CPUs,
		 * cpu_core: then fp frames beyond the LBR are always kept) */
		long depth = 0;
		pla_read_int_file("/sys/bus/event_source/devices/cpu/caps/branches", &depth);
		c->lbr_depth = depth > 0 && depth <= 1024 ? (uint32_t)depth : 0;
	}

	/* the threads to open events on */
	tids = calloc(MAX_THREADS, sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	if (cfg->target == PL_TARGET_COMMAND) {
		pid_t pid = pla_spawn_held(cfg->argv, out->fd == STDOUT_FILENO, &go_fd, &err_fd);
		if (pid < 0) {
			snprintf(err, errlen, "cannot start %s: %s", cfg->argv[0], strerror(-pid));
			free(tids);
			return pid;
		}
		c->child = pid;
		tids[ntids++] = pid;
	} else if (cfg->target == PL_TARGET_PID) {
		ntids = pla_proc_threads(cfg->pid, tids, MAX_THREADS);
		if (ntids <= 0) {
			snprintf(err, errlen, "no process %d: %s", (int)cfg->pid,
				 ntids < 0 ? strerror(-ntids) : "no threads");
			free(tids);
			return ntids < 0 ? ntids : -ESRCH;
		}
	} else {
		tids[ntids++] = -1;
	}

	uint32_t nev = c->cfg.nevents ? c->cfg.nevents : 1;
	c->ids_cap = (size_t)c->ncpus * (size_t)ntids * (nev + 2); /* + switch, create */
	c->ids = calloc(c->ids_cap, sizeof(*c->ids));
	if (!c->ids) {
		rc = -ENOMEM;
		goto fail;
	}

	rc = pla_open_sampled(c, tids, ntids, err, errlen);
	if (rc < 0)
		goto fail;
	/* SESSION says what is in force: no event with an LBR (software
	 * events, no LBR here: the note says why) is an fp session */
	if (c->cfg.callgraph == PL_CG_LBR) {
		uint64_t any = 0;
		for (uint32_t e = 0; e < c->nevents; e++)
			any |= c->event_sample_type[e];
		if (!(any & PERF_SAMPLE_BRANCH_STACK))
			c->cfg.callgraph = PL_CG_FP;
	}
	/* counting events for the perf-stat style counters */
	if (cfg->flags & PL_START_COUNTERS) {
		rc = pla_open_counters(c, tids, ntids, err, errlen);
		if (rc < 0)
			goto fail;
	}

	/* tell the viewer what is in force; a session may be saved on its own,
	 * so it must not lean on stacks defined before it */
	pla_stream_reset_stacks(out);
	/* samples of the sampling events may go out with µs times; those of
	 * the switch event keep their ns, to line up with SWITCH records */
	out->coarse_events = 0;
	for (uint32_t e = 0; e < c->nevents && e < 32; e++)
		if (c->desc[e].role == PL_ROLE_SAMPLED)
			out->coarse_events |= 1u << e;
	c->start_ns = c->last_counter_ns = pla_now_ns();
	struct pl_msg *m = &c->msg;
	m->type = PL_MSG_SESSION;
	m->u.session = (struct pl_msg_session){
		.session_id = c->session_id,
		.target = cfg->target,
		.pid = (uint32_t)(c->child ? c->child : (cfg->target == PL_TARGET_PID ? cfg->pid : 0)),
		.callgraph = c->cfg.callgraph,
		.stack_size = c->cfg.callgraph == PL_CG_DWARF ? c->cfg.stack_size : 0,
		.stacks = c->cfg.stacks,
		/* dwarf samples and thread-creation ones carry these registers */
		.sample_regs_user = c->regs_mask,
		.frequency = c->cfg.frequency,
		.duration_ms = c->cfg.duration_ms,
		.ring_pages = c->cfg.ring_pages,
		.start_ns = c->start_ns,
	};
	char cmdline[512] = "";
	if (cfg->argv)
		for (int i = 0; cfg->argv[i]; i++)
			snprintf(cmdline + strlen(cmdline), sizeof(cmdline) - strlen(cmdline),
				 "%s%s", i ? " " : "", cfg->argv[i]);
	m->u.session.command = pl_str_c(cmdline);
	/* A failed write is the stream's for good (out->dead): checked before
	 * the command runs, and by the last flush for the rest of the start
	 * (the frames between stop at the first failure). */
	pla_stream_msg(out, m);
	pla_send_event_descs(c, out, 0);
	pla_send_irq_counts(c, out); /* the events are on since their open */
	if (c->cfg.track_interval_ms && (c->tracks = calloc(1, sizeof(*c->tracks))))
		pla_tracks_start(c->tracks, c->cfg.track_interval_ms,
				 c->child ? c->child : cfg->target == PL_TARGET_PID ? cfg->pid : 0,
				 c->ncpus, out, &c->msg);
	if (c->note[0])
		pla_stream_log(out, &c->msg, PL_LOG_WARN, c->note);
	if (c->attach_skipped) {
		char why[200];
		snprintf(why, sizeof(why),
			 "Attaching to %d %s took %llu ms: the %llu samples taken meanwhile "
			 "were left out, the session begins with all of them watched.",
			 cfg->target == PL_TARGET_ALL ? c->ncpus : ntids,
			 cfg->target == PL_TARGET_ALL ? "CPUs" : "threads",
			 (unsigned long long)((c->start_ns - c->attach_ns) / 1000000),
			 (unsigned long long)c->attach_skipped);
		pla_stream_log(out, &c->msg, PL_LOG_INFO, why);
	}
	if ((rc = out->dead) < 0)
		goto write_failed;

	/* go (a running target's events are on since their open) */
	if (go_fd >= 0) {
		if (write(go_fd, "g", 1) != 1) {
			rc = -EPIPE;
			snprintf(err, errlen, "the spawned command died before exec");
			goto fail;
		}
		close(go_fd);
		go_fd = -1;
		int e = 0;
		ssize_t r = read(err_fd, &e, sizeof(e)); /* EOF: exec succeeded */
		close(err_fd);
		err_fd = -1;
		if (r == (ssize_t)sizeof(e)) {
			snprintf(err, errlen, "cannot execute %s: %s", cfg->argv[0], strerror(e));
			rc = -e;
			goto fail;
		}
	}

	c->running = 1;

	/* what existed before.  Reading kallsyms takes a slow board's CPU
	 * seconds with the events on: the rings are drained between its chunks,
	 * or they fill (an emulated arm64 board's --all lost 2,676 samples in
	 * one stretch); the processes' records are out before it */
	pla_snapshot_before(c, cfg, out, tids, pla_collect_drain);
	if ((rc = pla_stream_flush(out)) == 0) {
		free(tids);
		return 0;
	}

write_failed:
	snprintf(err, errlen, "writing the stream failed: %s", strerror(-rc));
fail:
	if (go_fd >= 0)
		close(go_fd);
	if (err_fd >= 0)
		close(err_fd);
	free(tids);
	pla_collect_stop(c, NULL, PL_END_ERROR, err);
	return rc;
}

int pla_collect_pollfds(struct pla_collector *c, struct pollfd *p, int max)
{
	int n = 0;
	for (int i = 0; i < c->nrings && n < max; i++)
		p[n++] = (struct pollfd){ c->rings[i].fd, POLLIN, 0 };
	return n;
}

/* ─── draining the rings ───────────────────────────────────────────────── */

/* A record's time: a sample's 4th word (every sample_type here begins
 * IDENTIFIER IP TID TIME), else the sample_id trailer's. */
static uint64_t rec_time(const struct perf_event_header *h)
{
	uint64_t t = 0;
	if (h->size >= sizeof(*h) + 32)
		memcpy(&t, h->type == PERF_RECORD_SAMPLE ? (const uint8_t *)(h + 1) + 24
							 : (const uint8_t *)h + h->size - 24, 8);
	return t;
}

/* Drains every ring.  A session timing slow system calls pairs each
 * thread's entries and exits (syscalls.c), which land in the ring of
 * whichever CPU ran the thread: there the rings are read merged by time,
 * as perf report sorts them; otherwise one ring after the other.  And
 * there the merge stops at the drain's start: a thread's exit on one CPU
 * may reach its ring after the heads were read, while its next entry on
 * another CPU, read later, is already in; a record stamped before `until`
 * was whole in its ring before any head was read.  The newer ones are
 * left for the next drain (the last one, after the events closed, takes
 * all).  (One loop for both: pla_on_record, inlined here, is
 * the agent's largest function.) */
int pla_collect_drain(struct pla_collector *c, struct pla_stream *out)
{
	const struct perf_event_header *head[PLA_MAX_CPUS];
	int n = 0;
	uint64_t until = c->sys && c->sys->mono ? pla_now_ns() : UINT64_MAX;
	for (int i = 0; i < c->nrings; i++)
		head[i] = pla_ring_start(&c->rings[i]) ? pla_ring_next(&c->rings[i]) : NULL;
	for (;;) {
		/* the oldest head (by time only where pairing needs it: else
		 * every time is 0 and the rings go one after the other) */
		int best = -1;
		uint64_t at = 0;
		for (int i = 0; i < c->nrings; i++) {
			uint64_t t = head[i] && c->sys ? rec_time(head[i]) : 0;
			if (head[i] && (best < 0 || t < at))
				best = i, at = t;
		}
		if (best < 0 || out->dead || at > until)
			break; /* the rest is for a later drain, or none */
		pla_on_record(c, out, head[best]); /* a malformed one: a LOST */
		n++;
		pla_ring_release(&c->rings[best]); /* before the next is read: see unread below */
		head[best] = pla_ring_next(&c->rings[best]);
	}
	for (int i = 0; i < c->nrings; i++) {
		if (head[i]) /* not taken: read again next time */
			pla_ring_unread(&c->rings[i], head[i]);
		pla_ring_end(&c->rings[i]);
	}
	return out->dead ? out->dead : n;
}

/* ─── periodic work ───────────────────────────────────────────────────── */

static int read_counters(struct pla_collector *c, struct pla_stream *out, uint64_t now)
{
	struct pl_msg *m = &c->msg;
	m->type = PL_MSG_COUNTERS;
	struct pl_msg_counters *k = &m->u.counters;
	/* stamp the read itself: `now` may be a loop round old, and rates
	 * are deltas over these stamps */
	(void)now;
	k->time = pla_now_ns();
	k->n = 0;
	for (uint32_t e = 0; e < c->nevents && k->n < PL_MAX_COUNTERS; e++) {
		if (c->desc[e].role != PL_ROLE_COUNTED)
			continue;
		struct pl_counter_value v = { e, 0, 0, 0 };
		for (size_t i = 0; i < c->nfds; i++) {
			if (c->fds[i].event != e)
				continue;
			uint64_t buf[3];
			if (read(c->fds[i].fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf)) {
				v.value += buf[0];
				v.enabled_ns += buf[1];
				v.running_ns += buf[2];
			}
		}
		k->v[k->n++] = v;
	}
	return k->n ? pla_stream_msg(out, m) : 0;
}

int pla_collect_tick(struct pla_collector *c, struct pla_stream *out, uint64_t now,
		     uint8_t *reason)
{
	if (c->ncounters && now > c->last_counter_ns &&
	    now - c->last_counter_ns >= (uint64_t)c->cfg.counter_interval_ms * 1000000ull) {
		c->last_counter_ns = now;
		read_counters(c, out, now); /* a dead stream: the caller sees out->dead */
	}
	if (c->tracks)
		pla_tracks_tick(c->tracks, now, out, &c->msg);
	if (c->child && !c->child_reaped) {
		int st;
		if (waitpid(c->child, &st, WNOHANG) == c->child) {
			c->child_reaped = 1;
			c->child_status = st;
			c->target_gone = 1;
		}
	}
	if (c->cfg.target == PL_TARGET_PID && !c->target_gone && kill(c->cfg.pid, 0) < 0 &&
	    errno == ESRCH)
		c->target_gone = 1;
	if (c->target_gone) {
		*reason = PL_END_TARGET_EXITED;
		return 1;
	}
	/* `now` may predate a session started later in the same loop round */
	if (c->cfg.duration_ms && now > c->start_ns &&
	    now - c->start_ns >= (uint64_t)c->cfg.duration_ms * 1000000ull) {
		*reason = PL_END_DURATION;
		return 1;
	}
	return 0;
}

int pla_collect_pause(struct pla_collector *c, int pause)
{
	for (size_t i = 0; i < c->nfds; i++)
		if (ioctl(c->fds[i].fd, pause ? PERF_EVENT_IOC_DISABLE : PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	c->paused = pause;
	return 0;
}

int pla_collect_set_events(struct pla_collector *c, const struct pla_event_spec *specs,
			   uint32_t n, struct pla_stream *out, char *err, size_t errlen)
{
	if (n == 0 || n > PL_MAX_EVENTS)
		return -EINVAL;
	/* Finish what the old events sampled, then drop them (counters stay). */
	for (size_t i = 0; i < c->nfds; i++)
		if (c->desc[c->fds[i].event].role != PL_ROLE_COUNTED)
			ioctl(c->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	pla_collect_drain(c, out);
	for (int i = 0; i < c->nrings; i++)
		pla_ring_unmap(&c->rings[i]);
	c->nrings = 0;
	size_t kept = 0;
	for (size_t i = 0; i < c->nfds; i++) {
		if (c->desc[c->fds[i].event].role == PL_ROLE_COUNTED)
			c->fds[kept++] = c->fds[i];
		else
			close(c->fds[i].fd);
	}
	c->nfds = kept;
	c->nids = 0;
	if (c->sys)
		pla_sys_note(c, out); /* its counts, before the new events */
	free(c->sys);
	c->sys = NULL;

	/* the threads as they are now; a spawned command is past its exec */
	pid_t pid = c->child ? c->child : c->cfg.pid;
	int ntids = 1;
	pid_t *tids = calloc(MAX_THREADS, sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	if (c->cfg.target == PL_TARGET_ALL)
		tids[0] = -1;
	else if ((ntids = pla_proc_threads(pid, tids, MAX_THREADS)) <= 0) {
		free(tids);
		snprintf(err, errlen, "the target is gone");
		return -ESRCH;
	}
	size_t need = (size_t)c->ncpus * (size_t)ntids * (n + 2);
	if (need > c->ids_cap) {
		struct pla_id_map *ids = realloc(c->ids, need * sizeof(*ids));
		if (!ids) {
			free(tids);
			return -ENOMEM;
		}
		c->ids = ids;
		c->ids_cap = need;
	}
	memcpy(c->cfg.events, specs, n * sizeof(*specs));
	c->cfg.nevents = n;
	uint32_t first = c->nevents;
	int rc = pla_open_sampled(c, tids, ntids, err, errlen);
	free(tids);
	if (rc < 0)
		return rc;
	pla_send_event_descs(c, out, first); /* the new events are on unless paused */
	return 0;
}

int pla_collect_set_frequency(struct pla_collector *c, uint32_t freq)
{
	uint64_t v = freq;
	for (size_t i = 0; i < c->nfds; i++) {
		struct pl_msg_event_desc *d = &c->desc[c->fds[i].event];
		if (d->role != PL_ROLE_SAMPLED || !d->freq)
			continue;
		/* for a frequency-mode event the kernel takes this as sample_freq */
		if (ioctl(c->fds[i].fd, PERF_EVENT_IOC_PERIOD, &v) < 0)
			return -errno;
	}
	c->cfg.frequency = freq;
	return 0;
}

int pla_collect_stop(struct pla_collector *c, struct pla_stream *out, uint8_t reason,
		     const char *message)
{
	int rc = 0, live = out && pla_stream_open(out);
	/* Counters first; then sampling ends as the events close, and the
	 * rings, still mapped, are drained.  (A DISABLE before the close
	 * would double the IPIs to busy CPUs, one per thread, CPU and event.) */
	if (live && c->ncounters)
		rc = read_counters(c, out, pla_now_ns());
	/* and the tracks once more: a session shorter than their interval
	 * (or one whose loop never came round) still has its values */
	if (live && rc == 0 && c->tracks)
		rc = pla_tracks_tick(c->tracks, UINT64_MAX - (1ull << 40), out, &c->msg);
	/* while the events are still on: what /proc counts after this read
	 * could not be recorded */
	if (live && rc == 0)
		rc = pla_send_irq_counts(c, out);
	for (size_t i = 0; i < c->nfds; i++)
		close(c->fds[i].fd);
	c->nfds = 0;
	if (c->sys)
		c->sys->mono = 0; /* the last drain takes every record */
	if (live && rc == 0 && (rc = pla_collect_drain(c, out)) >= 0)
		rc = pla_send_perf_map(c, out);
	if (live && rc >= 0 && c->sys)
		rc = pla_sys_note(c, out);
	free(c->sys);
	c->sys = NULL;
	if (c->tracks)
		pla_tracks_stop(c->tracks);
	free(c->tracks);
	c->tracks = NULL;
	if (c->child && !c->child_reaped) {
		/* we started it: it does not outlive the session */
		kill(c->child, SIGTERM);
		for (int i = 0; i < 50 && waitpid(c->child, &c->child_status, WNOHANG) == 0; i++)
			usleep(10000);
		if (waitpid(c->child, &c->child_status, WNOHANG) == 0) {
			kill(c->child, SIGKILL);
			waitpid(c->child, &c->child_status, 0);
		}
		c->child_reaped = 1;
	}
	if (live) {
		struct pl_msg *m = &c->msg;
		m->type = PL_MSG_END;
		int status = 0;
		if (c->child)
			status = WIFEXITED(c->child_status) ? WEXITSTATUS(c->child_status)
							    : 128 + WTERMSIG(c->child_status);
		m->u.end = (struct pl_msg_end){ reason, status, pla_now_ns(),
						pl_str_c(message ? message : "") };
		int wrc = pla_stream_msg(out, m);
		if (wrc == 0)
			wrc = pla_stream_flush(out);
		if (rc >= 0)
			rc = wrc;
		/* a viewer may save the next session from here on */
		pla_stream_reset_stacks(out);
	}
	for (int i = 0; i < c->nrings; i++)
		pla_ring_unmap(&c->rings[i]);
	c->nrings = 0;
	free(c->fds);
	free(c->ids);
	c->fds = NULL;
	c->ids = NULL;
	c->nfds = c->fds_cap = c->nids = 0;
	return rc < 0 ? rc : 0;
}

void pla_collect_trigger_events(const struct pla_collector *c, struct pla_trigger_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->marker = ev->syscall = -1;
	ev->regs_mask = c->regs_mask;
	for (uint32_t e = 0; e < c->nevents && e < PL_MAX_EVENTS + 1; e++) {
		if (c->marker[e])
			ev->marker = (int32_t)e;
		ev->names[e] = c->names[e];
		ev->nnames = e + 1;
	}
	if (c->sys)
		ev->syscall = (int32_t)c->sys->event;
}
