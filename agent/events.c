/* events.c — the events of one session: their perf_event_attr, opened
 * on every thread and CPU of the target, the rings they write into, the
 * sample-id table, the counters, and the EVENT_DESC frames that announce
 * them.  The fallback policy itself is perf.c's, the ring protocol ring.c's. */
#include "collect-private.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "procfs.h"
#include "util.h"

#define MAX_FDS 65536

static const char *const counter_names[] = {
	"task-clock",	    "context-switches", "cpu-migrations", "page-faults",
	"cycles",	    "instructions",	"cache-references", "cache-misses",
	"branch-instructions", "branch-misses",
};

uint32_t pla_ring_pages_for(uint8_t callgraph, uint32_t stack_size, uint32_t freq)
{
	/* Hold ~250 ms of samples per CPU so one slow pass of the event loop
	 * loses nothing: fp samples are ~150 bytes, dwarf ones carry the stack,
	 * LBR ones their branch stack. */
	uint64_t per_sample = callgraph == PL_CG_DWARF ? stack_size + 400u
			      : callgraph == PL_CG_LBR ? 256u + 32u * 24u /* a 32-deep LBR */
							: 256u;
	uint64_t bytes = per_sample * (freq ? freq : 99) / 4 + 32768;
	uint32_t pages = 8;
	while ((uint64_t)pages * 4096 < bytes && pages < 512)
		pages *= 2;
	return pages;
}

uint32_t pla_ring_pages_fit(struct pla_collector *c, uint32_t pages)
{
	uint64_t page = (uint64_t)pla_page_size(), ncpus = (uint64_t)c->ncpus;
	uint64_t cap = UINT64_MAX, lock = UINT64_MAX;
	struct sysinfo si;
	if (sysinfo(&si) == 0)
		cap = (uint64_t)si.totalram * si.mem_unit / 32;
	/* perf_mmap(): perf_event_mlock_kb per CPU for each user, then the
	 * process's RLIMIT_MEMLOCK, unless CAP_IPC_LOCK (root) or paranoid -1 */
	long paranoid = 2, mlock_kb = 516;
	struct rlimit rl;
	pla_read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	if (geteuid() != 0 && paranoid > -1 && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY) {
		pla_read_int_file("/proc/sys/kernel/perf_event_mlock_kb", &mlock_kb);
		lock = (uint64_t)mlock_kb * 1024 * ncpus + rl.rlim_cur;
	}
	uint32_t want = pages;
	while (pages > 2 && (pages + 1) * page * ncpus > (cap < lock ? cap : lock))
		pages /= 2;
	if (pages < want) {
		size_t n = strlen(c->note);
		snprintf(c->note + n, sizeof(c->note) - n,
			 "%sRings of %llu KiB a CPU, not %llu: %s %llu KiB for %llu CPUs; if "
			 "samples are lost, %s.", n ? " " : "",
			 (unsigned long long)(pages * page / 1024),
			 (unsigned long long)(want * page / 1024),
			 lock < cap ? "locked memory (kernel.perf_event_mlock_kb, ulimit -l) allows"
				    : "a 32nd of the memory is", (unsigned long long)((lock < cap ? lock : cap) / 1024),
			 (unsigned long long)ncpus,
			 lock < cap ? "raise kernel.perf_event_mlock_kb or run as root"
				    : "lower --frequency or --stack-size");
	}
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
	if (s->probe) /* the kernel reads the path or symbol at open */
		a->config1 = (uint64_t)(uintptr_t)s->target;
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

/* LBR mode, for one sampled event: the branch stack as `perf record
 * --call-graph lbr` asks it (user calls, call-stack mode), on hardware
 * events only — the kernel refuses it on software ones, which keep the fp
 * chain, with the reason in the note.  perf.c's fallback drops it too,
 * with its reason, when the PMU has no LBR call stack. */
static void lbr_attr(struct pla_collector *c, struct perf_event_attr *a, const char *name)
{
	if (c->cfg.callgraph != PL_CG_LBR || c->cfg.stacks == PL_STACKS_KERNEL)
		return;
	if (a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_TRACEPOINT ||
	    a->type == PERF_TYPE_BREAKPOINT) {
		size_t n = strlen(c->note);
		snprintf(c->note + n, sizeof(c->note) - n,
			 "%s%s is a software event, LBR needs a hardware one: frame "
			 "pointers instead.",
			 n ? " " : "", name);
		return;
	}
	a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
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
 * descriptors is an error whenever it happens.  filter (or NULL): the
 * kernel filter every fd gets. */
static int open_everywhere(struct pla_collector *c, struct perf_event_attr *attr, uint32_t event,
			   const pid_t *tids, int ntids, int sampled, int allow_sw, int *fell_back,
			   const char *filter, char *err, size_t errlen)
{
	int opened = 0, last_err = 0;
	size_t before = c->nfds;
	int any_cpu = !sampled && tids[0] != -1;
	for (int cpu = -any_cpu; cpu < (any_cpu ? 0 : c->ncpus); cpu++) {
		for (int t = 0; t < ntids; t++) {
			if (!c->running) { /* before SESSION: see collect.h, attach_skipped */
				if (!c->attach_ns)
					c->attach_ns = pla_now_ns();
				for (int r = 0; r < c->nrings; r++)
					c->attach_skipped += pla_ring_discard(&c->rings[r]);
			}
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
			if (filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
				rc = -errno;
				snprintf(err, errlen, "cannot filter %s on '%s': %s",
					 c->names[event], filter, strerror(errno));
				return rc;
			}
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
				/* locked memory taken meanwhile (another perf user):
				 * smaller rings, said so, rather than no session */
				while ((rc == -EPERM || rc == -ENOMEM) && c->cfg.ring_pages > 2) {
					c->cfg.ring_pages /= 2;
					rc = pla_ring_map(ring, fd, cpu, c->cfg.ring_pages);
					if (rc == 0) {
						size_t n = strlen(c->note);
						snprintf(c->note + n, sizeof(c->note) - n,
							 "%sRings of %u KiB a CPU: the kernel refused "
							 "more locked memory (raise "
							 "kernel.perf_event_mlock_kb or run as root).",
							 n ? " " : "",
							 (unsigned)(c->cfg.ring_pages * (uint64_t)pla_page_size() / 1024));
					}
				}
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

/* The slow-call event (syscalls.c): raw_syscalls:sys_enter and sys_exit
 * opened as one event, both filtered on the calls asked for.  Returns 0,
 * or -errno with a sentence in err. */
static int open_syscalls(struct pla_collector *c, const struct pla_event_spec *s,
			 struct perf_event_attr *a, const pid_t *tids, int ntids, char *err,
			 size_t errlen)
{
	char filter[PLA_SYS_FILTER];
	int rc = pla_sys_prepare(c, s, a, filter, sizeof(filter));
	for (int pass = 0; pass < 2 && rc >= 0; pass++) {
		if (pass)
			pla_sys_exit_attr(c, s, a);
		rc = open_everywhere(c, a, c->nevents, tids, ntids, 1, 0, NULL,
				     filter[0] ? filter : NULL, err, errlen);
	}
	if (rc < 0)
		return rc;
	a->config = s->config;
	c->sys->mono = a->use_clockid; /* cleared where the kernel refused it */
	return 0;
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

/* ─── the session's events ───────────────────────────────────────────── */

/* Opens the sampled events of c->cfg (the first one also carries the
 * side-band records) and the off-CPU sampler, with indices from
 * c->nevents on. */
int pla_open_sampled(struct pla_collector *c, const pid_t *tids, int ntids, char *err,
		     size_t errlen)
{
	uint32_t nev = c->cfg.nevents ? c->cfg.nevents : 1;
	if (!c->cfg.nevents) {
		struct pla_event_spec def;
		pla_event_parse("cycles", &def, err, errlen);
		c->cfg.events[0] = def;
	}
	/* the mappings, names and tasks come with the first event that is not
	 * a probe: probes are opened for every process (below) */
	uint32_t track = 0;
	while (track < nev && c->cfg.events[track].probe)
		track++;
	if (track == nev) { /* probes alone: cpu-clock carries them */
		if (nev == PL_MAX_EVENTS || pla_event_parse("cpu-clock", &c->cfg.events[nev], err,
							      errlen) < 0)
			return -EINVAL;
		c->cfg.nevents = ++nev;
	}
	for (uint32_t i = 0; i < nev; i++) {
		struct perf_event_attr a;
		struct pla_event_spec *s = &c->cfg.events[i];
		if (c->nevents >= sizeof(c->desc) / sizeof(c->desc[0])) {
			snprintf(err, errlen, "too many events in one session: start a new one");
			return -E2BIG;
		}
		base_attr(c, &a, s);
		sampling_attr(c, &a, i == track);
		lbr_attr(c, &a, s->name);
		if (s->has_period) {
			a.sample_period = s->period;
		} else {
			a.freq = 1;
			a.sample_freq = s->has_freq ? s->freq : c->cfg.frequency;
		}
		uint8_t role = PL_ROLE_SAMPLED;
		if (s->tracepoint) {
			/* every hit (period 1 unless asked), with its raw payload
			 * for the viewer to decode by the format; it fires in
			 * kernel mode, so exclude_kernel would silence it, as for
			 * the creation sampler below */
			role = PL_ROLE_TRACEPOINT;
			a.exclude_kernel = 0;
			a.sample_type |= PERF_SAMPLE_RAW;
		}
		if (s->tracepoint && !s->syscalls &&
		    (s->marker || (c->cfg.callgraph == PL_CG_DWARF && c->cfg.stacks != PL_STACKS_KERNEL))) {
			/* registers and a stack copy, the fp chain beyond it
			 * (msg.h, PL_EVENT_STACK); a marker's text and iovecs are
			 * in the writer's frame, within PL_MARKER_STACK */
			uint32_t copy = pla_event_stack(c);
			if (s->marker && copy < PL_MARKER_STACK)
				copy = PL_MARKER_STACK;
			if (s->marker)
				c->marker_stack = copy;
			a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = c->regs_mask;
			a.sample_stack_user = copy;
			a.exclude_callchain_user = c->cfg.stacks == PL_STACKS_KERNEL;
		}
		if (s->syscalls) { /* two tracepoints paired into one event */
			describe(c, c->nevents, role, &a, s->name);
			int rc = open_syscalls(c, s, &a, tids, ntids, err, errlen);
			if (rc == 0 && a.exclude_kernel)
				rc = -EACCES;
			if (rc == -EACCES)
				snprintf(err, errlen, "cannot time system calls: %s",
					 pla_perf_explain(-EACCES, 2));
			if (rc < 0)
				return rc;
			c->event_sample_type[c->nevents++] = a.sample_type;
			continue;
		}
		int fell_back = 0;
		describe(c, c->nevents, role, &a, s->name);
		/* A probe PMU reads its path or symbol (config1: a pointer into
		 * this agent) again when an inherited event is copied into a new
		 * thread, from the task that clones: in the workload that
		 * address is garbage, the copy fails and so does its clone()
		 * (pthread_create: EAGAIN; seen on x86_64 and arm64).  Probes
		 * are opened per CPU for every process, never inherited, and
		 * enabled at once; the viewer keeps the session's processes'
		 * hits. */
		static const pid_t everyone = -1;
		if (s->probe) {
			a.inherit = a.enable_on_exec = 0;
			a.disabled = c->paused;
		}
		int rc = open_everywhere(c, &a, c->nevents, s->probe ? &everyone : tids,
					 s->probe ? 1 : ntids, 1, !s->tracepoint, &fell_back,
					 s->marker ? PL_MARKER_FILTER : NULL, err, errlen);
		if (rc < 0 && s->probe == 'k' && rc != -EACCES && rc != -EPERM && !out_of_fds(rc))
			snprintf(err, errlen, "cannot record %s: %s: no probeable kernel function %s",
				 s->name, strerror(-rc), s->target);
		if (rc < 0)
			return rc;
		if (s->tracepoint && a.exclude_kernel) {
			snprintf(err, errlen, "cannot record %s: %s", s->name,
				 pla_perf_explain(-EACCES, 2));
			return -EACCES;
		}
		c->marker[c->nevents] = s->marker;
		describe(c, c->nevents, role, &a, fell_back ? "cpu-clock" : s->name);
		/* as opened: the fallback may have dropped the branch stack */
		c->event_sample_type[c->nevents++] = a.sample_type;
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
		int rc = open_everywhere(c, &a, c->nevents, tids, ntids, 1, 0, NULL, NULL, err,
					 errlen);
		if (out_of_fds(rc))
			return rc;
		if (rc > 0)
			c->event_sample_type[c->nevents++] = a.sample_type;
		if (rc < 0) { /* the session goes on without: the reason is kept */
			size_t n = strlen(c->note);
			snprintf(c->note + n, sizeof(c->note) - n, "%sNo off-CPU stacks: %s.",
				 n ? " " : "", err);
		}
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
			 * registers and a stack copy for the viewer to unwind; the
			 * user stack only (the kernel part is always the same clone
			 * syscall path) */
			a.sample_type = (c->sample_type & ~(uint64_t)PERF_SAMPLE_CALLCHAIN) |
					PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a.sample_regs_user = c->regs_mask;
			a.sample_stack_user = c->cfg.stack_size ? c->cfg.stack_size : 4096;
			a.sample_period = 1;
			describe(c, c->nevents, PL_ROLE_CREATE, &a, "sched:sched_process_fork");
			n = open_everywhere(c, &a, c->nevents, tids, ntids, 1, 0, NULL, NULL, why,
					    sizeof(why));
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
			c->event_sample_type[c->nevents++] = a.sample_type;
		else
			snprintf(c->note + strlen(c->note), sizeof(c->note) - strlen(c->note),
				 "%s" PL_NOTE_NO_CREATE "%s.", c->note[0] ? " " : "", why);
	}
	return 0;
}

/* The perf-stat style counters (PL_START_COUNTERS), each one counted per
 * thread; one the board cannot count is left out.  Returns 0, or -EMFILE /
 * -ENFILE when descriptors ran out. */
int pla_open_counters(struct pla_collector *c, const pid_t *tids, int ntids, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < sizeof(counter_names) / sizeof(counter_names[0]); i++) {
		struct pla_event_spec s;
		struct perf_event_attr a;
		pla_event_parse(counter_names[i], &s, err, errlen);
		base_attr(c, &a, &s);
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* a switch or a migration happens in the kernel: with
		 * exclude_kernel (--stacks user) they count 0 whatever the
		 * thread did.  Counted whole; where the kernel refuses that
		 * (perf_event_paranoid), left out below rather than shown 0. */
		if (s.type == PERF_TYPE_SOFTWARE && (s.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
						     s.config == PERF_COUNT_SW_CPU_MIGRATIONS))
			a.exclude_kernel = 0;
		size_t before = c->nfds;
		describe(c, c->nevents, PL_ROLE_COUNTED, &a, counter_names[i]);
		int fb = 0;
		int rc = open_everywhere(c, &a, c->nevents, tids, ntids, 0, 0, &fb, NULL, err,
					 errlen);
		if (out_of_fds(rc))
			return rc;
		if (rc <= 0 || fb) {
			drop_fds(c, before);
			continue; /* not countable here (hardware on a VM) */
		}
		c->nevents++;
		c->ncounters++;
	}
	return 0;
}

/* A tracepoint's tracefs `format` text, whole, for the viewer to decode
 * its raw payloads (msg.h, PL_CHUNK_TRACE_FORMAT).  At start only: the
 * buffer is the one allocation.  A format that cannot be read is told,
 * and the samples still go out (their fields then undecoded). */
static int send_trace_format(struct pla_collector *c, struct pla_stream *out, uint32_t i)
{
	char event[80];
	snprintf(event, sizeof(event), "%s", c->marker[i] ? PL_MARKER_TRACEPOINT : c->names[i]);
	char *colon = strchr(event, ':');
	if (colon)
		*colon = '/';
	char *text = malloc(PL_MAX_TRACE_FORMAT);
	if (!text)
		return -ENOMEM;
	long n = pla_tracepoint_format(event, text, PL_MAX_TRACE_FORMAT);
	int rc;
	if (n < 0) {
		char why[160];
		snprintf(why, sizeof(why), "cannot read the format of %s: %s: its fields will not be "
			 "decoded", c->names[i], strerror((int)-n));
		rc = pla_stream_log(out, &c->msg, PL_LOG_WARN, why);
	} else {
		struct pl_msg *m = &c->msg;
		m->type = PL_MSG_FILE_CHUNK;
		m->u.chunk = (struct pl_msg_file_chunk){
			.kind = PL_CHUNK_TRACE_FORMAT, .pid = i, .total = (uint64_t)n,
			.name = pl_str_c(c->names[i]), .len = (uint32_t)n, .data = (const uint8_t *)text,
		};
		rc = pla_stream_msg(out, m);
	}
	free(text);
	return rc;
}

int pla_send_event_descs(struct pla_collector *c, struct pla_stream *out, uint32_t from)
{
	struct pl_msg *m = &c->msg;
	int rc = 0;
	for (uint32_t i = from; i < c->nevents && rc == 0; i++) {
		m->type = PL_MSG_EVENT_DESC;
		m->u.event_desc = c->desc[i];
		m->u.event_desc.name = pl_str_c(c->names[i]);
		rc = pla_stream_msg(out, m);
	}
	for (uint32_t i = from; i < c->nevents && rc == 0; i++)
		if (c->desc[i].role == PL_ROLE_TRACEPOINT && c->names[i][1] != ':' &&
		    !(c->sys && c->sys->event == i))
			rc = send_trace_format(c, out, i); /* not for u:/k: probes: no tracefs */
	return rc;
}

