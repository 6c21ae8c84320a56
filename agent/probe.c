/* probe.c — probing the board; see probe.h. */
#include "probe.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "lbr.h"
#include "perf.h"
#include "procfs.h"
#include "ring.h"
#include "util.h"

/* A child that burns CPU under a few frames, for the call-graph test. */
__attribute__((noinline)) static unsigned long probe_leaf(unsigned long x)
{
	for (int i = 0; i < 100000; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}
__attribute__((noinline)) static unsigned long probe_mid(unsigned long x)
{
	return probe_leaf(x) ^ 1;
}
static pid_t busy_child(void)
{
	pid_t pid = pla_fork();
	if (pid == 0) {
		volatile unsigned long x = 1;
		for (;;)
			x = probe_mid(x);
	}
	return pid;
}

static void set_msg(struct pla_probe *p, int i, const char *s)
{
	snprintf(p->event_msgs[i], sizeof(p->event_msgs[i]), "%s", s);
	p->events[i].message = pl_str_c(p->event_msgs[i]);
}

static void probe_events(struct pla_probe *p, int paranoid)
{
	for (size_t i = 0; i < pla_named_event_count && p->nevents < PLA_PROBE_MAX_EVENTS; i++) {
		struct pla_event_spec s;
		char err[160];
		int k = p->nevents++;
		struct pl_msg_probe_event *e = &p->events[k];
		pla_event_parse(pla_named_events[i], &s, err, sizeof(err));
		snprintf(p->event_names[k], sizeof(p->event_names[k]), "%s", s.name);
		e->name = pl_str_c(p->event_names[k]);
		e->pmu = pl_str_c(s.hardware ? "cpu" : "software");
		e->type = s.type;
		e->config = s.config;
		e->flags = s.hardware ? PL_PROBE_HARDWARE : 0;
		struct perf_event_attr a = { .size = sizeof(a), .type = s.type, .config = s.config };
		a.sample_period = 100000;
		a.exclude_hv = 1;
		int fd = pla_perf_open(&a, 0, -1, -1, 0);
		if (fd >= 0) {
			e->flags |= PL_PROBE_KERNEL_OK | PL_PROBE_SAMPLING_OK;
		} else if (fd == -EACCES || fd == -EPERM) {
			a.exclude_kernel = 1;
			fd = pla_perf_open(&a, 0, -1, -1, 0);
			if (fd >= 0)
				e->flags |= PL_PROBE_SAMPLING_OK;
		}
		if (fd >= 0) {
			close(fd);
			e->status = 0;
			set_msg(p, k,
				e->flags & PL_PROBE_KERNEL_OK
					? "ok"
					: "user space only (kernel refused: lower perf_event_paranoid "
					  "or run as root)");
			if (s.hardware)
				p->hello_flags |= PL_HELLO_HW_EVENTS;
		} else {
			e->status = fd;
			set_msg(p, k, pla_perf_explain(fd, paranoid));
		}
	}
	/* thread-creation stacks (collect.c): the fork tracepoint, which only
	 * fires in kernel mode */
	if (p->nevents < PLA_PROBE_MAX_EVENTS) {
		int k = p->nevents++;
		struct pl_msg_probe_event *e = &p->events[k];
		char why[160];
		snprintf(p->event_names[k], sizeof(p->event_names[k]), "sched:sched_process_fork");
		e->name = pl_str_c(p->event_names[k]);
		e->pmu = pl_str_c("tracepoint");
		e->type = PERF_TYPE_TRACEPOINT;
		long id = pla_tracepoint_id("sched/sched_process_fork", why, sizeof(why));
		int fd = -ENOENT;
		if (id >= 0) {
			struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_TRACEPOINT,
						     .config = (uint64_t)id, .sample_period = 1,
						     .exclude_hv = 1 };
			e->config = (uint64_t)id;
			fd = pla_perf_open(&a, 0, -1, -1, 0);
			snprintf(why, sizeof(why), "%s",
				 fd >= 0 ? "ok: the stacks that create threads"
					 : pla_perf_explain(fd, paranoid));
		}
		if (fd >= 0) {
			close(fd);
			e->flags = PL_PROBE_KERNEL_OK | PL_PROBE_SAMPLING_OK;
		}
		e->status = fd < 0 ? fd : 0;
		set_msg(p, k, why);
	}
	/* hybrid / extra PMUs */
	DIR *d = opendir("/sys/bus/event_source/devices");
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		n += (size_t)snprintf(p->pmus + n, n < sizeof(p->pmus) ? sizeof(p->pmus) - n : 0,
				      "%s%s", n ? "," : "", de->d_name);
		if (n >= sizeof(p->pmus))
			break;
	}
	if (d)
		closedir(d);
}

/* Samples the busy child for ~60 ms in one call-graph mode; counts samples
 * that carry a user stack. */
static void probe_callgraph(struct pla_probe *p, uint8_t mode, int paranoid, int hw_ok)
{
	struct pl_msg_probe_callgraph *cg = &p->cg[mode - 1];
	char *msg = p->cg_msgs[mode - 1];
	cg->mode = mode;
	cg->message = pl_str_c(msg);
	struct perf_event_attr a = { .size = sizeof(a) };
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 250000; /* 4 kHz of cpu-clock */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a.exclude_callchain_kernel = 1;
	if (mode == PL_CG_DWARF) {
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_STACK_USER;
		a.sample_regs_user = PLA_REGS_USER_MASK;
		a.sample_stack_user = 4096;
	}
	if (mode == PL_CG_LBR) {
		if (!hw_ok) {
			cg->status = -EOPNOTSUPP;
			snprintf(msg, 160, "LBR needs a hardware PMU (Intel LBR), missing here");
			return;
		}
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
		a.sample_period = 1000000;
		/* the branch stack alone: a test sample proves LBR only by a
		 * non-empty LBR call stack, not by an fp chain */
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_BRANCH_STACK;
		a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
	}
	pid_t child = busy_child();
	if (child < 0) {
		cg->status = -errno;
		snprintf(msg, 160, "cannot fork a test child: %s", strerror(errno));
		return;
	}
	int fd = pla_perf_open(&a, child, -1, -1, 0);
	struct pla_ring ring;
	int mapped = -1;
	if (fd >= 0)
		mapped = pla_ring_map(&ring, fd, -1, 16);
	if (fd < 0 || mapped < 0) {
		cg->status = fd < 0 ? fd : mapped;
		snprintf(msg, 160, "%s", pla_perf_explain(cg->status, paranoid));
		goto out;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	struct timespec ts = { 0, 60 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	pla_ring_start(&ring);
	const struct perf_event_header *h;
	while ((h = pla_ring_next(&ring))) {
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		cg->samples++;
		const uint64_t *w = (const uint64_t *)(h + 1);
		size_t nw = (h->size - sizeof(*h)) / 8;
		if (mode == PL_CG_DWARF) {
			/* ip tid abi regs[n] size data[size] dyn */
			size_t nregs = (size_t)__builtin_popcountll(PLA_REGS_USER_MASK);
			size_t at = 2;
			if (at < nw && w[at])
				at += 1 + nregs;
			else
				at += 1;
			if (at < nw && w[at] && at + 1 + w[at] / 8 < nw && w[at + 1 + w[at] / 8] > 0) {
				cg->samples_with_stack++;
				/* for dwarf, "depth" is the bytes really copied */
				if (w[at + 1 + w[at] / 8] > cg->max_depth)
					cg->max_depth = (uint32_t)w[at + 1 + w[at] / 8];
			}
		} else if (mode == PL_CG_LBR) {
			/* ip, pid/tid, then the branch stack (common/lbr.h) */
			uint32_t bnr = 0;
			const uint8_t *br;
			if (nw > 2 && pl_lbr_parse((const uint8_t *)(w + 2), (nw - 2) * 8,
						   __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, 0, &bnr,
						   &br) >= 0 && bnr > 0)
				cg->samples_with_stack++;
			if (bnr > cg->max_depth)
				cg->max_depth = bnr;
		} else if (nw > 3) {
			uint64_t nr = w[2];
			uint32_t user = 0;
			for (uint64_t i = 0; i < nr && 3 + i < nw; i++)
				if (w[3 + i] < (uint64_t)-4095)
					user++;
			if (user >= 2)
				cg->samples_with_stack++;
			if (user > cg->max_depth)
				cg->max_depth = user;
		}
	}
	pla_ring_end(&ring);
	pla_ring_unmap(&ring);
	if (cg->samples_with_stack > 0 && mode == PL_CG_LBR) {
		cg->status = 0;
		snprintf(msg, 160,
			 "%u of %u test samples had an LBR call stack (up to %u entries); "
			 "conversion tested on ABI-laid-out records, not verified on Intel "
			 "hardware",
			 cg->samples_with_stack, cg->samples, cg->max_depth);
	} else if (cg->samples_with_stack > 0) {
		cg->status = 0;
		snprintf(msg, 160, "%u of %u test samples had a user stack (%s %u)",
			 cg->samples_with_stack, cg->samples,
			 mode == PL_CG_DWARF ? "bytes copied up to" : "frames up to", cg->max_depth);
	} else {
		cg->status = -ENODATA;
		snprintf(msg, 160, "%u test samples, none with a %s", cg->samples,
			 mode == PL_CG_LBR ? "non-empty LBR call stack: not offered" : "user stack");
	}
out:
	if (fd >= 0)
		close(fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

void pla_probe_run(struct pla_probe *p)
{
	long v;
	memset(p, 0, sizeof(*p));
	struct pl_msg_probe_summary *s = &p->summary;
	s->paranoid = pla_read_int_file("/proc/sys/kernel/perf_event_paranoid", &v) == 0 ? (int)v : -1;
	s->max_sample_rate =
		pla_read_int_file("/proc/sys/kernel/perf_event_max_sample_rate", &v) == 0 ? (uint32_t)v : 0;
	s->max_stack =
		pla_read_int_file("/proc/sys/kernel/perf_event_max_stack", &v) == 0 ? (uint32_t)v : 0;
	s->kptr_restrict = pla_read_int_file("/proc/sys/kernel/kptr_restrict", &v) == 0 ? (int)v : -1;

	/* can we use perf_event_open at all? */
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = pla_perf_open(&a, 0, -1, -1, 0);
	if (fd < 0) {
		s->perf_errno = fd;
		snprintf(p->message, sizeof(p->message), "perf events unavailable (%s): %s",
			 pla_errno_name(fd),
			 pla_perf_explain(fd, s->paranoid));
	} else {
		close(fd);
		p->hello_flags |= PL_HELLO_PERF_AVAILABLE;
		probe_events(p, s->paranoid);
		int hw = (p->hello_flags & PL_HELLO_HW_EVENTS) != 0;
		for (uint8_t m = PL_CG_FP; m <= PL_CG_LBR; m++)
			probe_callgraph(p, m, s->paranoid, hw);
		if (p->cg[0].status == 0)
			p->hello_flags |= PL_HELLO_CG_FP;
		if (p->cg[1].status == 0)
			p->hello_flags |= PL_HELLO_CG_DWARF;
		if (p->cg[2].status == 0)
			p->hello_flags |= PL_HELLO_CG_LBR;
		/* kernel stacks: the cycles/cpu-clock probe opened with kernel */
		for (int i = 0; i < p->nevents; i++)
			if (!strcmp(p->event_names[i], "cpu-clock"))
				s->kernel_stacks_ok = (p->events[i].flags & PL_PROBE_KERNEL_OK) != 0;
		s->user_stacks_ok = (p->hello_flags & (PL_HELLO_CG_FP | PL_HELLO_CG_DWARF)) != 0;
		if (!(p->hello_flags & PL_HELLO_HW_EVENTS))
			snprintf(p->message, sizeof(p->message),
				 "hardware events are not supported here (VM or no PMU driver): "
				 "sampling falls back to cpu-clock%s",
				 s->kernel_stacks_ok ? ""
						     : "; kernel sampling is refused (perf_event_"
						       "paranoid): user space only, run as root for "
						       "kernel stacks");
		else if (!s->kernel_stacks_ok)
			snprintf(p->message, sizeof(p->message),
				 "kernel sampling refused by perf_event_paranoid=%d: run as root "
				 "or sysctl kernel.perf_event_paranoid=1",
				 s->paranoid);
		else
			snprintf(p->message, sizeof(p->message), "ok");
	}
	snprintf(p->default_event, sizeof(p->default_event), "%s",
		 p->hello_flags & PL_HELLO_HW_EVENTS ? "cycles" : "cpu-clock");
	s->perf_errno = s->perf_errno;
	s->default_event = pl_str_c(p->default_event);
	s->pmus = pl_str_c(p->pmus);
	s->message = pl_str_c(p->message);
}

void pla_probe_send(const struct pla_probe *p, struct pla_stream *out)
{
	struct pl_msg m;
	for (int i = 0; i < p->nevents; i++) {
		m.type = PL_MSG_PROBE_EVENT;
		m.u.probe_event = p->events[i];
		pla_stream_msg(out, &m);
	}
	for (int i = 0; i < 3 && (p->hello_flags & PL_HELLO_PERF_AVAILABLE); i++) {
		m.type = PL_MSG_PROBE_CALLGRAPH;
		m.u.probe_callgraph = p->cg[i];
		pla_stream_msg(out, &m);
	}
	m.type = PL_MSG_PROBE_SUMMARY;
	m.u.probe_summary = p->summary;
	pla_stream_msg(out, &m);
}

static const char *cg_name(uint8_t m)
{
	return m == PL_CG_FP ? "fp" : m == PL_CG_DWARF ? "dwarf" : m == PL_CG_LBR ? "lbr" : "none";
}

void pla_probe_print(const struct pla_probe *p)
{
	const struct pl_msg_probe_summary *s = &p->summary;
	printf("perf_event_paranoid      %d\n", s->paranoid);
	printf("max sample rate          %u Hz\n", s->max_sample_rate);
	printf("max stack                %u frames\n", s->max_stack);
	printf("kptr_restrict            %d\n", s->kptr_restrict);
	if (s->perf_errno) {
		printf("perf events              UNAVAILABLE: %s\n", p->message);
		return;
	}
	printf("kernel stacks            %s\n", s->kernel_stacks_ok ? "yes" : "no");
	printf("default event            %s\n", p->default_event);
	printf("PMUs                     %s\n", p->pmus);
	printf("\nevents:\n");
	for (int i = 0; i < p->nevents; i++)
		printf("  %-24s %-8s %s\n", p->event_names[i],
		       p->events[i].status ? "no" : "yes", p->event_msgs[i]);
	printf("\ncall graphs (auto: %s):\n", cg_name(pla_probe_auto_callgraph(p)));
	for (int i = 0; i < 3; i++)
		printf("  %-6s %-4s %s\n", cg_name(p->cg[i].mode), p->cg[i].status ? "no" : "yes",
		       p->cg_msgs[i]);
	printf("\n%s\n", p->message);
}

uint8_t pla_probe_auto_callgraph(const struct pla_probe *p)
{
	/* LBR last: only where a test sample proved it and fp and dwarf both
	 * failed (its conversion is not verified on hardware, and it is
	 * refused on the software events a VM falls back to) */
	if (p->hello_flags & PL_HELLO_CG_FP)
		return PL_CG_FP;
	if (p->hello_flags & PL_HELLO_CG_DWARF)
		return PL_CG_DWARF;
	if (p->hello_flags & PL_HELLO_CG_LBR)
		return PL_CG_LBR;
	return PL_CG_NONE;
}
