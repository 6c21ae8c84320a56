/* collect.c — one profiling session: events, rings, snapshot, records →
 * frames.  See collect.h for the lifecycle. */
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "procfs.h"
#include "util.h"

#define MAX_THREADS 32768 /* threads of one target (servers run thousands) */
#define MAX_FDS 65536

static const char *const counter_names[] = {
	"task-clock",	    "context-switches", "cpu-migrations", "page-faults",
	"cycles",	    "instructions",	"cache-references", "cache-misses",
	"branch-instructions", "branch-misses",
};

uint32_t pla_ring_pages_for(uint8_t callgraph, uint32_t stack_size, uint32_t freq)
{
	/* Hold ~250 ms of samples per CPU so one slow pass of the event loop
	 * loses nothing: fp samples are ~150 bytes, dwarf ones carry the stack. */
	uint64_t per_sample = callgraph == PL_CG_DWARF ? stack_size + 400u : 256u;
	uint64_t bytes = per_sample * (freq ? freq : 99) / 4 + 32768;
	uint32_t pages = 8;
	while ((uint64_t)pages * 4096 < bytes && pages < 512)
		pages *= 2;
	return pages;
}

/* ─── opening ──────────────────────────────────────────────────────────── */

static int add_fd(struct pla_collector *c, int fd, uint32_t event, int cpu)
{
	if (c->nfds == c->fds_cap) {
		size_t cap = c->fds_cap ? c->fds_cap * 2 : 64;
		if (cap > MAX_FDS)
			return -EMFILE;
		struct pla_fd *n = realloc(c->fds, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->fds = n;
		c->fds_cap = cap;
	}
	c->fds[c->nfds++] = (struct pla_fd){ fd, event, cpu };
	return 0;
}

static void base_attr(struct pla_collector *c, struct perf_event_attr *a,
		      const struct pla_event_spec *s)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = s->type;
	a->config = s->config;
	a->config1 = s->config1;
	a->config2 = s->config2;
	/* A running target's events start at open: enabling each later is
	 * one more IPI to a busy CPU per thread, CPU and event (seconds for
	 * hundreds of threads); a command's wait for its exec. */
	a->enable_on_exec = c->cfg.target == PL_TARGET_COMMAND && !c->running;
	a->disabled = a->enable_on_exec || c->paused;
	a->inherit = c->cfg.target != PL_TARGET_ALL;
	a->exclude_kernel = c->cfg.stacks == PL_STACKS_USER;
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

static void sampling_attr(struct pla_collector *c, struct perf_event_attr *a, int tracking)
{
	a->sample_type = c->sample_type;
	a->sample_id_all = 1;
	/* wake the agent when a quarter of the ring is used; the event loop's
	 * flush timer bounds latency when samples are sparse */
	a->watermark = 1;
	a->wakeup_watermark = c->cfg.ring_pages * (uint32_t)pla_page_size() / 4;
	if (c->cfg.callgraph == PL_CG_DWARF) {
		a->sample_regs_user = c->regs_mask;
		a->sample_stack_user = c->cfg.stack_size;
	}
	if (c->cfg.callgraph == PL_CG_LBR) {
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
	}
	if (c->cfg.stacks == PL_STACKS_USER)
		a->exclude_callchain_kernel = 1;
	if (c->cfg.stacks == PL_STACKS_KERNEL || c->cfg.callgraph == PL_CG_DWARF)
		a->exclude_callchain_user = 1; /* dwarf: the stack copy is the user stack */
	if (tracking) {
		a->mmap = 1;
		a->mmap2 = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->task = 1;
		a->context_switch = !(c->cfg.flags & PL_START_NO_SWITCHES);
		a->build_id = 1;
	}
}

/* Closes the fds opened from index `from` on (an event given up). */
static void drop_fds(struct pla_collector *c, size_t from)
{
	while (c->nfds > from)
		close(c->fds[--c->nfds].fd);
}

/* Opens attr for every thread, as `perf record -p` does.  A sampled event
 * is opened on every CPU: its records go to one ring per CPU (the first
 * fd on a CPU owns it, later ones are redirected into it), since an event
 * of one thread cannot write into another thread's ring; `inherit` carries
 * it into threads created later.  A counting event has no ring: one per
 * thread on any CPU (cpu -1), a CPU count fewer descriptors.  When the
 * first opens fail, the failure is the event's (unsupported, refused):
 * repeating it for every thread would only cost time; running out of
 * descriptors is an error whenever it happens. */
static int open_everywhere(struct pla_collector *c, struct perf_event_attr *attr,
			   uint32_t event, const pid_t *tids, int ntids, int sampled,
			   int allow_sw, int *fell_back, char *err, size_t errlen)
{
	int opened = 0, last_err = 0;
	size_t before = c->nfds;
	int any_cpu = !sampled && tids[0] != -1;
	for (int cpu = -any_cpu; cpu < (any_cpu ? 0 : c->ncpus); cpu++) {
		for (int t = 0; t < ntids; t++) {
			int fd = pla_perf_open_fallback(attr, tids[t], cpu, allow_sw, fell_back,
							c->note, sizeof(c->note));
			if (fd == -ENODEV && t == 0 && cpu >= 0)
				break; /* offline CPU */
			if (fd == -ESRCH)
				continue; /* thread exited meanwhile */
			if (fd < 0) {
				last_err = fd;
				if (!opened || fd == -EMFILE || fd == -ENFILE)
					goto done;
				continue;
			}
			int rc = add_fd(c, fd, event, cpu);
			if (rc < 0) {
				close(fd);
				snprintf(err, errlen, "too many events: %s", strerror(-rc));
				return rc;
			}
			opened++;
			if (!sampled)
				continue;
			uint64_t id;
			if (ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && c->nids < c->ids_cap)
				c->ids[c->nids++] = (struct pla_id_map){ id, event };
			struct pla_ring *ring = NULL;
			for (int r = 0; r < c->nrings; r++)
				if (c->rings[r].cpu == cpu)
					ring = &c->rings[r];
			if (!ring) {
				if (c->nrings == PLA_MAX_CPUS)
					return -E2BIG;
				ring = &c->rings[c->nrings];
				rc = pla_ring_map(ring, fd, cpu, c->cfg.ring_pages);
				if (rc < 0) {
					snprintf(err, errlen,
						 "cannot map a %u-page ring on CPU %d: %s (raise "
						 "kernel.perf_event_mlock_kb or lower --frequency)",
						 c->cfg.ring_pages, cpu, strerror(-rc));
					return rc;
				}
				c->nrings++;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) < 0) {
				rc = -errno;
				snprintf(err, errlen, "cannot join event to CPU %d's ring: %s", cpu,
					 strerror(errno));
				return rc;
			}
		}
	}
done:
	if (!opened || last_err == -EMFILE || last_err == -ENFILE) {
		drop_fds(c, before);
		long paranoid = -1;
		pla_read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		snprintf(err, errlen, "cannot open %s: %s (%s)", c->names[event],
			 strerror(-last_err), pla_perf_explain(last_err, (int)paranoid));
		return last_err ? last_err : -ENOENT;
	}
	return opened;
}

/* Events the session can do without (off-CPU stacks, creation stacks,
 * counters) are skipped when they cannot open, except for want of
 * descriptors: that ends the start rather than leave threads half
 * watched. */
static int out_of_fds(int rc)
{
	return rc == -EMFILE || rc == -ENFILE;
}

static void describe(struct pla_collector *c, uint32_t idx, uint8_t role,
		     const struct perf_event_attr *a, const char *name)
{
	struct pl_msg_event_desc *d = &c->desc[idx];
	snprintf(c->names[idx], sizeof(c->names[idx]), "%s", name);
	memset(d, 0, sizeof(*d));
	d->index = idx;
	d->role = role;
	d->name = pl_str_c(c->names[idx]);
	d->type = a->type;
	d->config = a->config;
	d->config1 = a->config1;
	d->config2 = a->config2;
	d->freq = a->freq;
	d->period_or_freq = a->sample_period;
	d->exclude_kernel = a->exclude_kernel;
}

/* ─── snapshot of what existed before the events ──────────────────────── */

struct snap_ctx {
	struct pla_collector *c;
	struct pla_stream *out;
	pid_t pid;
	uint64_t vdso_addr;
	uint64_t time; /* when the process's snapshot began: all its records carry it */
	pid_t *tids;   /* room for MAX_THREADS */
};

static int snap_map(const struct pla_map *m, void *user)
{
	struct snap_ctx *x = user;
	if (!(m->prot & PROT_EXEC))
		return 0; /* only code is looked up */
	struct pl_msg *msg = &x->c->msg;
	memset(&msg->u.mmap, 0, sizeof(msg->u.mmap));
	msg->type = PL_MSG_MMAP;
	struct pl_msg_mmap *mm = &msg->u.mmap;
	mm->pid = mm->tid = (uint32_t)x->pid;
	mm->time = x->time;
	mm->start = m->start;
	mm->len = m->end - m->start;
	mm->pgoff = m->pgoff;
	mm->prot = m->prot;
	mm->flags = m->flags;
	mm->maj = m->maj;
	mm->min = m->min;
	mm->ino = m->ino;
	mm->cpumode = PERF_RECORD_MISC_USER;
	mm->snapshot = 1;
	mm->filename = pl_str_c(m->path);
	if (m->path[0] == '/') {
		int n = pla_elf_build_id(m->path, mm->build_id);
		if (n > 0)
			mm->build_id_len = (uint8_t)n;
	}
	if (!strcmp(m->path, "[vdso]"))
		x->vdso_addr = m->start;
	return pla_stream_msg(x->out, msg); /* a dead stream ends the walk */
}

/* The names of pid's threads and its code mappings; tids: room for
 * MAX_THREADS.  Returns 0, or the stream's -errno (the rest not sent). */
static int snapshot_process(struct pla_collector *c, struct pla_stream *out, pid_t pid,
			    uint64_t *vdso_addr, pid_t *tids)
{
	/* One time for the whole snapshot, the moment it began: each record's
	 * own clock reading told nothing (it is what existed before), and
	 * identical headers cost the wire next to nothing (≈ 8 bytes a
	 * record otherwise) */
	struct snap_ctx x = { c, out, pid, 0, pla_now_ns(), tids };
	char comm[64];
	int n = pla_proc_threads(pid, tids, MAX_THREADS);
	for (int i = 0; i < n; i++) {
		if (pla_proc_comm(pid, tids[i], comm, sizeof(comm)) < 0)
			continue;
		struct pl_msg *m = &c->msg;
		m->type = PL_MSG_COMM;
		m->u.comm = (struct pl_msg_comm){ (uint32_t)pid, (uint32_t)tids[i], x.time, 0, 1,
						  pl_str_c(comm) };
		if (pla_stream_msg(out, m) < 0)
			return out->dead;
	}
	pla_proc_maps_each(pid, snap_map, &x);
	if (vdso_addr && x.vdso_addr)
		*vdso_addr = x.vdso_addr;
	return out->dead;
}

static int snap_all(const struct pl_msg_proc *p, void *user)
{
	struct snap_ctx *x = user;
	return snapshot_process(x->c, x->out, (pid_t)p->pid, &x->vdso_addr, x->tids);
}

/* One FILE_CHUNK; total 0 while more follow.  Returns pla_stream_msg's. */
static int send_chunk(struct pla_collector *c, struct pla_stream *out, uint8_t kind, pid_t pid,
		      uint64_t addr, const char *name, const uint8_t *data, size_t n, uint64_t off,
		      uint64_t total)
{
	struct pl_msg *m = &c->msg;
	m->type = PL_MSG_FILE_CHUNK;
	m->u.chunk = (struct pl_msg_file_chunk){ kind, (uint32_t)pid, addr, off, total,
						 pl_str_c(name), (uint32_t)n, data };
	return pla_stream_msg(out, m);
}

/* An image in chunks that fit a block (PLA_CHUNK_MAX), each carrying the
 * total.  Returns 0 or the stream's -errno. */
static int send_chunks(struct pla_collector *c, struct pla_stream *out, uint8_t kind,
		       pid_t pid, uint64_t addr, const char *name, const uint8_t *data,
		       size_t len)
{
	size_t off = 0;
	int rc;
	do {
		size_t n = len - off < PLA_CHUNK_MAX ? len - off : PLA_CHUNK_MAX;
		rc = send_chunk(c, out, kind, pid, addr, name, data + off, n, off, len);
		off += n;
	} while (rc == 0 && off < len);
	return rc;
}

/* The held vDSO image (collect.h), now; c->msg is overwritten. */
static int send_vdso(struct pla_collector *c, struct pla_stream *out, pid_t pid, uint64_t addr)
{
	const uint8_t *vdso;
	size_t vlen = pla_vdso_image(&vdso);
	c->vdso_len = 0;
	return send_chunks(c, out, PL_CHUNK_VDSO, pid, addr, "[vdso]", vdso, vlen);
}

/* Sends a text file in chunks that fit a block (PLA_CHUNK_MAX), keeping
 * only the lines keep() accepts; the last chunk carries the total (the
 * viewer uses the file only when it is whole).  A file that cannot be
 * read is not sent (0); returns the stream's -errno. */
static int send_text_file(struct pla_collector *c, struct pla_stream *out, uint8_t kind,
			  pid_t pid, const char *path, int (*keep)(const char *line))
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	static char buf[PLA_CHUNK_MAX]; /* static: this runs at start/stop, not per sample */
	char line[512];
	size_t n = 0;
	uint64_t off = 0;
	int rc = 0, eof = 0;
	while (rc == 0 && !eof) {
		eof = !fgets(line, sizeof(line), f);
		if (!eof && keep && !keep(line))
			continue;
		size_t l = eof ? 0 : strlen(line);
		if (eof || n + l > sizeof(buf)) {
			rc = send_chunk(c, out, kind, pid, 0, path, (const uint8_t *)buf, n, off,
					eof ? off + n : 0);
			off += n;
			n = 0;
		}
		memcpy(buf + n, line, l);
		n += l;
	}
	fclose(f);
	return rc;
}

static int kallsyms_keep(const char *line)
{
	/* "ffffffff81000000 T _stext": text symbols only */
	const char *sp = strchr(line, ' ');
	return sp && (sp[1] == 't' || sp[1] == 'T' || sp[1] == 'w' || sp[1] == 'W');
}

static int log_msg(struct pla_collector *c, struct pla_stream *out, uint8_t level,
		   const char *text)
{
	struct pl_msg *m = &c->msg;
	m->type = PL_MSG_LOG;
	m->u.log = (struct pl_msg_log){ level, pl_str_c(text) };
	return pla_stream_msg(out, m);
}

static int send_perf_map(struct pla_collector *c, struct pla_stream *out)
{
	pid_t pid = c->child ? c->child : c->cfg.pid;
	char path[64];
	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	return send_text_file(c, out, PL_CHUNK_PERF_MAP, pid, path, NULL);
}

/* ─── spawning a command ───────────────────────────────────────────────── */

/* The descriptor limit the agent was started with: raised to the hard
 * limit for the events (one per thread, CPU and event, as perf does), and
 * given back to a command the agent starts. */
static struct rlimit nofile_found; /* rlim_max 0: not raised */

static void raise_nofile(void)
{
	/* prlimit: musl's setrlimit brings a 1.5 KB all-threads machinery
	 * the single-threaded agent does not need */
	struct rlimit r;
	if (nofile_found.rlim_max || prlimit(0, RLIMIT_NOFILE, NULL, &r) < 0)
		return;
	nofile_found = r;
	r.rlim_cur = r.rlim_max;
	prlimit(0, RLIMIT_NOFILE, &r, NULL);
}

/* Starts argv held before exec until *go_fd is written.  stdout_taken:
 * the agent's stdout is the stream (--output -), so the command writes
 * its own to the agent's stderr instead. */
static pid_t spawn_held(char *const *argv, int stdout_taken, int *go_fd, int *err_fd)
{
	int go[2], ep[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char b;
		close(go[1]);
		close(ep[0]);
		/* The command runs as it would without the agent: the agent
		 * ignores SIGPIPE (a viewer hanging up must not kill it) and
		 * catches SIGTERM, and an ignored signal or the mask survive
		 * exec; so `yes | head -1` would complain of a broken pipe.
		 * The raw call: libc refuses the signals it reserves for
		 * itself (32-34), which a parent may have left ignored too
		 * (seen: 32 and 33 under a test harness).  An all-zero kernel
		 * sigaction is SIG_DFL with no flags on every target; 32
		 * bytes cover its largest layout. */
		static uint64_t dfl[4]; /* .bss: no bytes in the file */
		for (int sig = 1; sig <= 64; sig++)
			syscall(SYS_rt_sigaction, sig, dfl, NULL, 8);
		uint64_t none = 0; /* the raw call: libc's costs the size budget 100 bytes */
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
		if (stdout_taken)
			syscall(SYS_dup3, 2, 1, 0); /* (libc's dup2: 80 bytes more) */
		if (nofile_found.rlim_max)
			prlimit(0, RLIMIT_NOFILE, &nofile_found, NULL);
		/* the agent may run at a raised priority: the command must not */
		setpriority(PRIO_PROCESS, 0, 0);
		/* wait until the parent's events exist: nothing is missed */
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	*go_fd = go[1];
	*err_fd = ep[0];
	return pid;
}

/* ─── start ────────────────────────────────────────────────────────────── */

/* Opens the sampled events of c->cfg (the first one also carries the
 * side-band records) and the off-CPU sampler, with indices from
 * c->nevents on. */
static int open_sampled(struct pla_collector *c, const pid_t *tids, int ntids, char *err,
			size_t errlen)
{
	uint32_t nev = c->cfg.nevents ? c->cfg.nevents : 1;
	if (!c->cfg.nevents) {
		struct pla_event_spec def;
		pla_event_parse("cycles", &def, err, errlen);
		c->cfg.events[0] = def;
	}
	for (uint32_t i = 0; i < nev; i++) {
		struct perf_event_attr a;
		struct pla_event_spec *s = &c->cfg.events[i];
		if (c->nevents >= sizeof(c->desc) / sizeof(c->desc[0])) {
			snprintf(err, errlen, "too many events in one session: start a new one");
			return -E2BIG;
		}
		base_attr(c, &a, s);
		sampling_attr(c, &a, i == 0);
		if (s->has_period) {
			a.sample_period = s->period;
		} else {
			a.freq = 1;
			a.sample_freq = s->has_freq ? s->freq : c->cfg.frequency;
		}
		int fell_back = 0;
		describe(c, c->nevents, PL_ROLE_SAMPLED, &a, s->name);
		int rc = open_everywhere(c, &a, c->nevents, tids, ntids, 1, 1, &fell_back, err,
					 errlen);
		if (rc < 0)
			return rc;
		describe(c, c->nevents, PL_ROLE_SAMPLED, &a, fell_back ? "cpu-clock" : s->name);
		c->nevents++;
	}
	/* the off-CPU sampler: a sample with a stack at every switch-out */
	if ((c->cfg.flags & PL_START_SWITCH_STACKS) &&
	    c->nevents < sizeof(c->desc) / sizeof(c->desc[0])) {
		struct perf_event_attr a;
		struct pla_event_spec s;
		pla_event_parse("context-switches", &s, err, errlen);
		base_attr(c, &a, &s);
		sampling_attr(c, &a, 0);
		/* the switch happens in the kernel: excluding kernel mode would
		 * filter every sample; keep only the user part of the stack */
		a.exclude_kernel = 0;
		a.exclude_callchain_kernel = c->cfg.stacks == PL_STACKS_USER;
		a.sample_period = 1;
		describe(c, c->nevents, PL_ROLE_SWITCH, &a, "context-switches");
		int rc = open_everywhere(c, &a, c->nevents, tids, ntids, 1, 0, NULL, err, errlen);
		if (out_of_fds(rc))
			return rc;
		c->nevents += rc > 0;
	}
	/* thread creation: the sched_process_fork tracepoint samples the
	 * parent's stack at every clone()/fork() (msg.h, PL_ROLE_CREATE).  It
	 * fires in kernel mode: with exclude_kernel it would never fire, so a
	 * kernel that refuses kernel mode means no creation stacks. */
	if (c->nevents < sizeof(c->desc) / sizeof(c->desc[0])) {
		char why[256];
		struct perf_event_attr a;
		struct pla_event_spec s = { .type = PERF_TYPE_TRACEPOINT };
		long id = pla_tracepoint_id("sched/sched_process_fork", why, sizeof(why));
		int n = 0;
		size_t before = c->nfds;
		if (id == -EMFILE) {
			snprintf(err, errlen, "%s", pla_perf_explain(-EMFILE, 0));
			return -EMFILE;
		}
		if (id >= 0) {
			s.config = (uint64_t)id;
			base_attr(c, &a, &s);
			sampling_attr(c, &a, 0);
			a.exclude_kernel = 0;
			/* clone() runs in libc, which has no frame pointers: an fp
			 * chain from there is garbage, so these samples always carry
			 * registers and a stack copy for the viewer to unwind */
			a.sample_type = c->create_sample_type;
			a.sample_regs_user = c->regs_mask;
			a.sample_stack_user = c->cfg.stack_size ? c->cfg.stack_size : 4096;
			a.branch_sample_type = 0;
			a.sample_period = 1;
			describe(c, c->nevents, PL_ROLE_CREATE, &a, "sched:sched_process_fork");
			n = open_everywhere(c, &a, c->nevents, tids, ntids, 1, 0, NULL, why, sizeof(why));
			if (out_of_fds(n)) {
				snprintf(err, errlen, "%s", why);
				return n;
			}
			if (n > 0 && a.exclude_kernel) {
				drop_fds(c, before);
				n = 0;
				snprintf(why, sizeof(why), "%s", pla_perf_explain(-EACCES, 2));
			}
		}
		if (n > 0)
			c->nevents++;
		else
			snprintf(c->note + strlen(c->note), sizeof(c->note) - strlen(c->note),
				 "%s" PL_NOTE_NO_CREATE "%s.", c->note[0] ? " " : "", why);
	}
	return 0;
}

static int send_event_descs(struct pla_collector *c, struct pla_stream *out, uint32_t from)
{
	struct pl_msg *m = &c->msg;
	int rc = 0;
	for (uint32_t i = from; i < c->nevents && rc == 0; i++) {
		m->type = PL_MSG_EVENT_DESC;
		m->u.event_desc = c->desc[i];
		m->u.event_desc.name = pl_str_c(c->names[i]);
		rc = pla_stream_msg(out, m);
	}
	return rc;
}

int pla_collect_start(struct pla_collector *c, const struct pla_collect_config *cfg,
		      struct pla_stream *out, char *err, size_t errlen)
{
	static uint32_t session_counter;
	int go_fd = -1, err_fd = -1, rc;
	pid_t *tids = NULL;
	int ntids = 0;

	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	raise_nofile();
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
	if (!c->cfg.ring_pages)
		c->cfg.ring_pages = pla_ring_pages_for(c->cfg.callgraph, c->cfg.stack_size,
						       c->cfg.frequency);
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
	if (c->cfg.callgraph == PL_CG_LBR)
		c->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	/* creation samples: the user stack only (the kernel part is always
	 * the same clone syscall path) */
	c->create_sample_type =
		(c->sample_type & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) |
		PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	/* the threads to open events on */
	tids = calloc(MAX_THREADS, sizeof(*tids));
	if (!tids)
		return -ENOMEM;
	if (cfg->target == PL_TARGET_COMMAND) {
		pid_t pid = spawn_held(cfg->argv, out->fd == STDOUT_FILENO, &go_fd, &err_fd);
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

	uint32_t nev = cfg->nevents ? cfg->nevents : 1;
	c->ids_cap = (size_t)c->ncpus * (size_t)ntids * (nev + 2); /* + switch, create */
	c->ids = calloc(c->ids_cap, sizeof(*c->ids));
	if (!c->ids) {
		rc = -ENOMEM;
		goto fail;
	}

	rc = open_sampled(c, tids, ntids, err, errlen);
	if (rc < 0)
		goto fail;
	/* counting events for the perf-stat style counters */
	if (cfg->flags & PL_START_COUNTERS) {
		for (size_t i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++) {
			struct pla_event_spec s;
			struct perf_event_attr a;
			pla_event_parse(counter_names[i], &s, err, errlen);
			base_attr(c, &a, &s);
			a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
			size_t before = c->nfds;
			describe(c, c->nevents, PL_ROLE_COUNTED, &a, counter_names[i]);
			int fb = 0;
			rc = open_everywhere(c, &a, c->nevents, tids, ntids, 0, 0, &fb, err, errlen);
			if (out_of_fds(rc))
				goto fail;
			if (rc <= 0 || fb) {
				drop_fds(c, before);
				continue; /* not countable here (hardware on a VM) */
			}
			c->nevents++;
			c->ncounters++;
		}
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
	send_event_descs(c, out, 0);
	if (c->note[0])
		log_msg(c, out, PL_LOG_WARN, c->note);
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

	/* what existed before */
	uint64_t vdso_addr = 0;
	if (cfg->target == PL_TARGET_PID) {
		snapshot_process(c, out, cfg->pid, &vdso_addr, tids);
	} else if (cfg->target == PL_TARGET_ALL) {
		struct snap_ctx x = { c, out, 0, 0, 0, tids };
		pla_proc_each(snap_all, &x);
		vdso_addr = x.vdso_addr;
	}
	const uint8_t *vdso;
	size_t vlen = pla_vdso_image(&vdso);
	/* The vDSO image (≈ 3 KB compressed, the largest start-up frame) is
	 * needed only to name vDSO frames.  With fp stacks of one process the
	 * agent sees every address a sample names, so the image goes out after
	 * the first sample that touches it (the viewer holds samples back for
	 * reordering, so it has the image before it uses the sample); dwarf
	 * unwinding may need it for any sample, other targets have many vDSO
	 * addresses: those get it now. */
	if (vlen && vdso_addr && cfg->target == PL_TARGET_PID && c->cfg.callgraph == PL_CG_FP) {
		c->vdso_lo = vdso_addr;
		c->vdso_len = vlen;
	} else if (vlen) {
		send_chunks(c, out, PL_CHUNK_VDSO, cfg->target == PL_TARGET_PID ? cfg->pid : 0,
			    vdso_addr, "[vdso]", vdso, vlen);
	}
	if (cfg->stacks & PL_STACKS_KERNEL) {
		long kptr = 0;
		pla_read_int_file("/proc/sys/kernel/kptr_restrict", &kptr);
		if (send_text_file(c, out, PL_CHUNK_KALLSYMS, 0, "/proc/kallsyms", kallsyms_keep) == 0)
			send_text_file(c, out, PL_CHUNK_MODULES, 0, "/proc/modules", NULL);
		if (kptr >= 2 || (kptr == 1 && geteuid() != 0))
			log_msg(c, out, PL_LOG_WARN,
				"kptr_restrict hides kernel addresses in /proc/kallsyms: kernel "
				"frames stay unnamed (sysctl kernel.kptr_restrict=0, or run as root)");
	}
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
	uint64_t type = c->desc[s->event].role == PL_ROLE_CREATE ? c->create_sample_type
								 : c->sample_type;
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
	if (type & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr = rd64(&r);
		const uint8_t *ips = rdn(&r, nr * 8);
		if (nr > PL_MAX_CALLCHAIN)
			nr = PL_MAX_CALLCHAIN;
		if (ips)
			memcpy(s->callchain, ips, nr * 8);
		s->nr_callchain = ips ? (uint32_t)nr : 0;
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		/* LBR call stack: the "from" of each entry is a call site, outermost
		 * last; append them as user return addresses after the callchain */
		uint64_t bnr = rd64(&r);
		const uint8_t *br = rdn(&r, bnr * 24);
		for (uint64_t i = 0; br && i < bnr && s->nr_callchain < PL_MAX_CALLCHAIN; i++) {
			uint64_t from;
			memcpy(&from, br + i * 24, 8);
			s->callchain[s->nr_callchain++] = from;
		}
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
	c->samples += c->desc[s->event].role != PL_ROLE_CREATE; /* HEALTH counts CPU samples */
	int rc = pla_stream_msg(out, m);
	if (c->vdso_len) {
		int hit = s->ip - c->vdso_lo < c->vdso_len;
		for (uint32_t i = 0; i < s->nr_callchain && !hit; i++)
			hit = s->callchain[i] - c->vdso_lo < c->vdso_len;
		if (hit)
			send_vdso(c, out, c->cfg.pid, c->vdso_lo); /* a failure: out->dead */
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
			send_vdso(c, out, (pid_t)mm->pid, mm->start);
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

int pla_collect_drain(struct pla_collector *c, struct pla_stream *out)
{
	int n = 0;
	for (int i = 0; i < c->nrings; i++) {
		struct pla_ring *r = &c->rings[i];
		if (!pla_ring_start(r))
			continue;
		const struct perf_event_header *h;
		while ((h = pla_ring_next(r))) {
			on_record(c, out, h); /* a malformed record is skipped */
			n++;
		}
		pla_ring_end(r);
		if (out->dead)
			return out->dead; /* the rest is for a later drain, or none */
	}
	return n;
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
	int rc = open_sampled(c, tids, ntids, err, errlen);
	free(tids);
	if (rc < 0)
		return rc;
	send_event_descs(c, out, first); /* the new events are on unless paused */
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
	int rc = 0, live = out && out->fd >= 0;
	/* Counters first; then sampling ends as the events close, and the
	 * rings, still mapped, are drained.  (A DISABLE before the close
	 * would double the IPIs to busy CPUs, one per thread, CPU and event.) */
	if (live && c->ncounters)
		rc = read_counters(c, out, pla_now_ns());
	for (size_t i = 0; i < c->nfds; i++)
		close(c->fds[i].fd);
	c->nfds = 0;
	if (live && rc == 0 && (rc = pla_collect_drain(c, out)) >= 0)
		rc = send_perf_map(c, out);
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
