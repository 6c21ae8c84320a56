/* perf.c — perf_event_open wrapper, event specs, fallback policy. */
#include "perf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "elf-sym.h"
#include "msg.h"
#include "procfs.h"
#include "util.h"

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct named named_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	/* aliases perf accepts */
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};
const char *const pla_named_events[] = {
	"cycles",     "instructions", "cache-misses", "cache-references",
	"branch-misses", "branch-instructions", "cpu-clock", "task-clock",
	"page-faults", "context-switches", "cpu-migrations",
};
const size_t pla_named_event_count = sizeof(pla_named_events) / sizeof(pla_named_events[0]);

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	uint64_t x = pla_strtou64(s, &end, 0);
	if (errno || end == s || *end)
		return -1;
	*v = x;
	return 0;
}

/* /sys/bus/event_source/devices/PMU/type */
static int pmu_type(const char *pmu, uint32_t *type)
{
	char path[320];
	long v;
	if (strchr(pmu, '/') || pla_strfind(pmu, ".."))
		return -1;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	if (pla_read_int_file(path, &v) < 0)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

static const struct named *find_named(const char *name)
{
	for (size_t i = 0; i < sizeof(named_events) / sizeof(named_events[0]); i++)
		if (strcmp(named_events[i].name, name) == 0)
			return &named_events[i];
	return NULL;
}

/* "freq=N" / "period=N" modifiers after ':' */
static int parse_modifiers(char *mods, struct pla_event_spec *e, char *err, size_t errlen)
{
	for (char *tok = strtok(mods, ":,"); tok; tok = strtok(NULL, ":,")) {
		uint64_t v;
		if (!strncmp(tok, "freq=", 5) && parse_u64(tok + 5, &v) == 0 && v > 0) {
			e->has_freq = 1;
			e->freq = v;
		} else if (!strncmp(tok, "period=", 7) && parse_u64(tok + 7, &v) == 0 && v > 0) {
			e->has_period = 1;
			e->period = v;
		} else {
			snprintf(err, errlen,
				 "bad event modifier '%s': use :freq=HZ or :period=N", tok);
			return -EINVAL;
		}
	}
	return 0;
}

/* "SUBSYS:NAME[:period=N]": a tracepoint when what follows the
 * first ':' is a name, not a modifier.  Returns 0 when spec is not one;
 * 1 when it is, with out->tracepoint set, or clear and err filled when it
 * cannot be used. */
static int tracepoint_spec(char *buf, struct pla_event_spec *out, char *err, size_t errlen)
{
	char *colon = strchr(buf, ':');
	if (!colon || colon == buf || !colon[1])
		return 0;
	char *mods = strchr(colon + 1, ':');
	size_t n2 = mods ? (size_t)(mods - colon - 1) : strlen(colon + 1);
	if (memchr(colon + 1, '=', n2))
		return 0; /* "cycles:freq=99": a modifier */
	if (mods)
		*mods++ = 0;
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";
	*colon = 0;
	if (!strcmp(buf, "ftrace")) {
		snprintf(err, errlen, "the kernel never sends ftrace:%s to perf_event_open (it is "
			 "ftrace's own record): for trace_marker lines use --markers with "
			 "include/perflens-marker.h", colon + 1);
		return 1;
	}
	if (strspn(buf, ok) != strlen(buf) || strspn(colon + 1, ok) != strlen(colon + 1) ||
	    strlen(buf) + strlen(colon + 1) > 200) {
		snprintf(err, errlen, "bad tracepoint '%s:%s': use SUBSYS:NAME as in "
			 "/sys/kernel/tracing/events/SUBSYS/NAME", buf, colon + 1);
		return 1;
	}
	char path[520], why[256];
	snprintf(path, sizeof(path), "%s/%s", buf, colon + 1);
	long id = pla_tracepoint_id(path, why, sizeof(why));
	if (id < 0) {
		snprintf(err, errlen, "cannot record %s:%s: %s", buf, colon + 1,
			 id == -EMFILE ? "no file descriptor left" : why);
		return 1;
	}
	if (mods && parse_modifiers(mods, out, err, errlen) < 0)
		return 1;
	if (out->has_freq) {
		snprintf(err, errlen, "a tracepoint records every hit: use :period=N, not :freq");
		return 1;
	}
	snprintf(out->name, sizeof(out->name), "%s:%s", buf, colon + 1);
	out->type = PERF_TYPE_TRACEPOINT;
	out->config = (uint64_t)id;
	out->tracepoint = 1;
	if (!out->has_period) {
		out->has_period = 1;
		out->period = 1;
	}
	return 1;
}

/* "u:PATH:SYM[+OFF][%return]" and "k:SYM[+OFF][%return]": the
 * uprobe and kprobe PMUs of perf_event_open, so nothing is written to
 * tracefs.  A uprobe's place is a file offset: the symbol is looked up in
 * the board's own file.  "%return" probes the function's return: the
 * PMU's retprobe bit, which its format/retprobe file gives ("config:0"). */
static int probe_spec(char *buf, struct pla_event_spec *out, char *err, size_t errlen)
{
	const char *pmu = buf[0] == 'u' ? "uprobe" : "kprobe";
	/* the last '%' and "return" after it (a '%' literal here would read
	 * as a format to fmt-test's scan of the agent's strings) */
	char *sym = buf + 2, *plus, *ret = strrchr(buf, '%');
	uint64_t add = 0;
	if (ret && strcmp(ret + 1, "return")) /* part of a name: refused below */
		ret = NULL;
	else if (ret)
		*ret = 0;
	if (buf[0] == 'u') {
		sym = strrchr(buf + 2, ':');
		if (!sym || sym == buf + 2 || buf[2] != '/') {
			snprintf(err, errlen, "use u:/path/to/binary:SYMBOL[+OFF]");
			return -EINVAL;
		}
		*sym++ = 0;
	}
	if ((plus = strchr(sym, '+'))) {
		*plus = 0;
		if (parse_u64(plus + 1, &add) < 0) {
			goto bad;
		}
	}
	if (!*sym || strlen(buf + 2) >= sizeof(out->target)) {
bad:
		snprintf(err, errlen, "bad probe '%s'", out->name);
		return -EINVAL;
	}
	if (pmu_type(pmu, &out->type) < 0) {
		snprintf(err, errlen, "no %s PMU: the kernel needs CONFIG_%s_EVENTS (4.17+)", pmu,
			 buf[0] == 'u' ? "UPROBE" : "KPROBE");
		return -ENOENT;
	}
	if (ret) {
		char path[64];
		long bit;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/format/retprobe", pmu);
		if (pla_read_int_file(path, &bit) < 0 || bit < 0 || bit > 63) {
			snprintf(err, errlen, "no return probes here (no bit in %s)", path);
			return -ENOENT;
		}
		out->config = 1ull << bit;
	}
	if (buf[0] == 'u') {
		int rc = pla_elf_sym_offset(buf + 2, sym, &out->config2, err, errlen);
		if (rc < 0)
			return rc;
		snprintf(out->target, sizeof(out->target), "%s", buf + 2);
	} else {
		snprintf(out->target, sizeof(out->target), "%s", sym);
	}
	out->config2 += add;
	out->probe = (uint8_t)buf[0];
	out->tracepoint = 1;
	out->has_period = 1;
	out->period = 1;
	return 0;
}

int64_t pla_parse_duration(const char *s)
{
	char *end;
	errno = 0;
	uint64_t v = pla_strtou64(s, &end, 10);
	static const char units[] = "ns\0\0us\0\0ms\0\0s\0\0\0";
	uint64_t scale = 1;
	for (int i = 0; i < 4; i++, scale *= 1000)
		if (!strcmp(end, units + 4 * i) || (!*end && i == 2))
			return errno || end == s || v > (uint64_t)INT64_MAX / scale ? -1
										 : (int64_t)(v * scale);
	return -1;
}

/* The common calls by name, for `perflens-agent --syscalls` typed on the
 * board; the viewer sends numbers (it has every architecture's whole
 * table), and any number is taken here.  Packed as one string and one
 * array: no pointers, which a static-pie pays a relocation each for.  On
 * 32-bit ARM libc calls the _time64 variants: both numbers answer to the
 * name. */
#if !defined(SYS_clock_nanosleep) && defined(SYS_clock_nanosleep_time32)
#define SYS_clock_nanosleep SYS_clock_nanosleep_time32 /* musl's name on 32-bit */
#endif
#ifdef SYS_open
#define OPT1(X) X(open, SYS_open) X(poll, SYS_poll) X(epoll_wait, SYS_epoll_wait)
#else
#define OPT1(X)
#endif
#if defined(SYS_clock_nanosleep_time64) && SYS_clock_nanosleep_time64 != SYS_clock_nanosleep
#define OPT2(X)                                                                                \
	X(clock_nanosleep, SYS_clock_nanosleep_time64) X(futex, SYS_futex_time64)              \
	X(ppoll, SYS_ppoll_time64)
#else
#define OPT2(X)
#endif
#define CALLS(X)                                                                               \
	X(read, SYS_read) X(write, SYS_write) X(readv, SYS_readv) X(writev, SYS_writev)        \
	X(pread64, SYS_pread64) X(pwrite64, SYS_pwrite64) X(openat, SYS_openat)                \
	X(close, SYS_close) X(fsync, SYS_fsync) X(fdatasync, SYS_fdatasync)                    \
	X(ioctl, SYS_ioctl) X(ppoll, SYS_ppoll) X(epoll_pwait, SYS_epoll_pwait)                \
	X(nanosleep, SYS_nanosleep) X(clock_nanosleep, SYS_clock_nanosleep)                    \
	X(futex, SYS_futex) X(connect, SYS_connect) X(accept4, SYS_accept4)                    \
	X(recvfrom, SYS_recvfrom) X(sendto, SYS_sendto) X(wait4, SYS_wait4) OPT1(X) OPT2(X)
#define NAME(n, nr) #n "\0"
#define NUMBER(n, nr) nr,
static const char call_names[] = CALLS(NAME);
static const uint16_t call_numbers[] = { CALLS(NUMBER) };

int pla_syscall_numbers(const char *name, char *out, size_t len)
{
	int n = 0;
	const char *p = call_names;
	for (size_t i = 0; i < sizeof(call_numbers) / sizeof(call_numbers[0]); i++, p += strlen(p) + 1)
		if (!strcmp(p, name)) {
			size_t used = strlen(out);
			snprintf(out + used, len - used, "%s%u", used ? "," : "", call_numbers[i]);
			n++;
		}
	return n;
}

/* "slow-syscalls:DUR[:LIST]": raw_syscalls:sys_enter/sys_exit
 * paired here (syscalls.c).  LIST holds numbers, or the names this agent
 * knows (syscall_numbers); none: every call. */
static int syscalls_spec(char *buf, struct pla_event_spec *out, char *err, size_t errlen)
{
	char *list = strchr(buf + 14, ':'), why[256];
	if (list)
		*list++ = 0;
	int64_t ns = pla_parse_duration(buf + 14);
	if (ns < 0) {
		snprintf(err, errlen, "bad --slower-than '%s' (1ms, 250us, 2s)", buf + 14);
		return -EINVAL;
	}
	for (char *tok = list ? strtok(list, ",") : NULL; tok; tok = strtok(NULL, ",")) {
		size_t used = strlen(out->target);
		if (*tok >= '0' && *tok <= '9' && strspn(tok, "0123456789") == strlen(tok)) {
			snprintf(out->target + used, PLA_SYS_LIST - used, "%s%s", used ? "," : "", tok);
		} else if (strcmp(tok, "all") && !pla_syscall_numbers(tok, out->target, PLA_SYS_LIST)) {
			snprintf(err, errlen, "system call '%s' unknown here: give its number", tok);
			return -EINVAL;
		} else if (!strcmp(tok, "all")) {
			out->target[0] = 0;
			break;
		}
		if (strlen(out->target) >= PLA_SYS_LIST - 8) {
			snprintf(err, errlen, "too many: use --syscalls all");
			return -E2BIG;
		}
	}
	long enter = pla_tracepoint_id("raw_syscalls/sys_enter", why, sizeof(why));
	long ex = enter < 0 ? enter : pla_tracepoint_id("raw_syscalls/sys_exit", why, sizeof(why));
	if (ex < 0) {
		snprintf(err, errlen, "cannot time system calls: %s", why);
		return -ENOENT;
	}
	snprintf(out->name, sizeof(out->name), "slow-syscalls");
	out->type = PERF_TYPE_TRACEPOINT;
	out->config = (uint64_t)enter;
	out->config1 = (uint64_t)ex;
	out->config2 = (uint64_t)ns;
	out->syscalls = out->tracepoint = 1;
	out->has_period = 1;
	out->period = 1;
	return 0;
}

int pla_event_parse(const char *spec, struct pla_event_spec *out, char *err, size_t errlen)
{
	char buf[256];
	memset(out, 0, sizeof(*out));
	if (!spec || !*spec || strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "empty or overlong event spec");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	if (!strcmp(buf, "markers")) {
		/* the kernel never gives ftrace:print (trace_marker)
		 * to perf_event_open; perflens-marker.h writes each line with a
		 * writev whose signature the viewer checks (msg.h) */
		char tp[] = PL_MARKER_TRACEPOINT;
		if (!tracepoint_spec(tp, out, err, errlen) || !out->tracepoint)
			return -EINVAL;
		snprintf(out->name, sizeof(out->name), "markers");
		out->marker = 1;
		return 0;
	}
	if (!strncmp(buf, "slow-syscalls:", 14))
		return syscalls_spec(buf, out, err, errlen);
	if ((buf[0] == 'u' || buf[0] == 'k') && buf[1] == ':') {
		snprintf(out->name, sizeof(out->name), "%s", buf);
		return probe_spec(buf, out, err, errlen);
	}
	if (!strchr(buf, '/') && tracepoint_spec(buf, out, err, errlen))
		return out->tracepoint ? 0 : -EINVAL;
	/* modifiers follow the last ':' that is outside a pmu/.../ term */
	char *slash2 = strrchr(buf, '/');
	char *colon = strchr(slash2 ? slash2 : buf, ':');
	if (colon) {
		*colon = 0;
		if (parse_modifiers(colon + 1, out, err, errlen) < 0)
			return -EINVAL;
	}
	snprintf(out->name, sizeof(out->name), "%s", buf);
	const struct named *n = find_named(buf);
	if (n) {
		out->type = n->type;
		out->config = n->config;
		out->hardware = n->type == PERF_TYPE_HARDWARE;
		return 0;
	}
	if (buf[0] == 'r' && buf[1] && strspn(buf + 1, "0123456789abcdefABCDEF") == strlen(buf + 1)) {
		out->type = PERF_TYPE_RAW;
		out->config = pla_strtou64(buf + 1, NULL, 16);
		out->hardware = 1;
		return 0;
	}
	char *s1 = strchr(buf, '/');
	if (s1 && slash2 && slash2 > s1 && slash2[1] == 0) {
		*s1 = 0;
		*slash2 = 0;
		uint32_t type;
		if (pmu_type(buf, &type) < 0) {
			snprintf(err, errlen,
				 "no PMU '%s' in /sys/bus/event_source/devices (see --probe)", buf);
			return -EINVAL;
		}
		out->type = type;
		out->hardware = 1;
		const struct named *inner = find_named(s1 + 1);
		if (inner && inner->type == PERF_TYPE_HARDWARE) {
			/* hybrid PMUs: generic hardware event on one PMU type */
			out->type = PERF_TYPE_HARDWARE;
			out->config = inner->config | ((uint64_t)type << 32);
			return 0;
		}
		for (char *t = strtok(s1 + 1, ","); t; t = strtok(NULL, ",")) {
			uint64_t v;
			char *eq = strchr(t, '=');
			if (!eq || parse_u64(eq + 1, &v) < 0)
				goto bad_term;
			*eq = 0;
			if (!strcmp(t, "config"))
				out->config = v;
			else if (!strcmp(t, "config1"))
				out->config1 = v;
			else if (!strcmp(t, "config2"))
				out->config2 = v;
			else
				goto bad_term;
		}
		return 0;
bad_term:
		snprintf(err, errlen, "bad PMU term in '%s': use pmu/config=0xNN,config1=…/", spec);
		return -EINVAL;
	}
	snprintf(err, errlen,
		 "unknown event '%s': use a name (cycles, cpu-clock, task-clock, page-faults, "
		 "context-switches, …), rNNNN or pmu/config=0xNN/",
		 spec);
	return -EINVAL;
}

int pla_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static void note_add(char *note, size_t len, const char *s)
{
	if (!note || !len)
		return;
	size_t n = strlen(note);
	if (n && pla_strfind(note, s))
		return; /* each sentence once, however many CPUs repeat it */
	snprintf(note + n, len - n, "%s%s", n ? " " : "", s);
}

int pla_perf_open_fallback(struct perf_event_attr *attr, pid_t pid, int cpu, int allow_sw,
			   int *fell_back, char *note, size_t notelen)
{
	for (int attempt = 0; attempt < 8; attempt++) {
		int fd = pla_perf_open(attr, pid, cpu, -1, 0);
		if (fd >= 0)
			return fd;
		if ((fd == -EACCES || fd == -EPERM) && !attr->exclude_kernel) {
			attr->exclude_kernel = 1;
			attr->exclude_hv = 1;
			attr->exclude_callchain_kernel = 1;
			note_add(note, notelen,
				 "Kernel sampling is not allowed: sampling user space only "
				 "(run as root or set kernel.perf_event_paranoid=1 for kernel stacks).");
			continue;
		}
		/* a PMU without the LBR call stack (or none): the event is kept,
		 * its call graphs are fp; software events refuse a branch stack
		 * with EOPNOTSUPP too (events.c never asks them) */
		if ((fd == -EOPNOTSUPP || fd == -ENOENT) &&
		    (attr->sample_type & PERF_SAMPLE_BRANCH_STACK)) {
			attr->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
			attr->branch_sample_type = 0;
			note_add(note, notelen,
				 "No LBR call stack here (it needs an Intel CPU with LBR): frame "
				 "pointers instead.");
			continue;
		}
		if ((fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV) && allow_sw &&
		    (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_RAW ||
		     attr->type >= PERF_TYPE_MAX)) {
			attr->type = PERF_TYPE_SOFTWARE;
			attr->config = PERF_COUNT_SW_CPU_CLOCK;
			attr->config1 = attr->config2 = 0;
			if (fell_back)
				*fell_back = 1;
			note_add(note, notelen,
				 "Hardware events are not supported here (a VM or no PMU driver): "
				 "falling back to cpu-clock.");
			continue;
		}
		if (fd == -EINVAL && attr->build_id) {
			attr->build_id = 0;
			note_add(note, notelen,
				 "The kernel cannot put build-ids in mmap records (older than "
				 "5.12): build-ids come from the ELF files instead.");
			continue;
		}
		if (fd == -EINVAL && attr->context_switch) {
			attr->context_switch = 0;
			note_add(note, notelen,
				 "Context-switch records are not supported by this kernel: no "
				 "off-CPU timeline.");
			continue;
		}
		if (fd == -EINVAL && attr->use_clockid) {
			attr->use_clockid = 0;
			note_add(note, notelen,
				 "The kernel cannot timestamp with CLOCK_MONOTONIC: using perf's "
				 "clock.");
			continue;
		}
		return fd;
	}
	return -EINVAL;
}

const char *pla_perf_explain(int err, int paranoid)
{
	switch (-err) {
	case ENOSYS:
		return "perf_event_open is not implemented (ENOSYS): the kernel lacks "
		       "CONFIG_PERF_EVENTS, or this runs under qemu-user; run on the real board";
	case EACCES:
	case EPERM:
		return paranoid >= 3
			       ? "perf_event_paranoid is 3 (Debian's default forbids all users): run "
				 "as root or `sysctl kernel.perf_event_paranoid=1`"
			       : "not permitted: run as root, or lower kernel.perf_event_paranoid "
				 "(1 allows user+kernel for your own processes), or grant "
				 "CAP_PERFMON";
	case ENOENT:
	case EOPNOTSUPP:
		return "this event is not supported by this CPU or kernel (hardware events are "
		       "missing on most VMs): use cpu-clock";
	case ENODEV:
		return "no such PMU on this board: see --probe for what exists";
	case EINVAL:
		return "the kernel rejected these settings (frequency above "
		       "perf_event_max_sample_rate, stack size too large, or an unsupported "
		       "option): lower --frequency or --stack-size";
	case EMFILE:
	case ENFILE:
		return "too many open files: raise `ulimit -n` (one per thread, CPU and event)";
	case ESRCH:
		return "no such process (it exited?)";
	case EBUSY:
		return "the PMU is busy (another profiler holds it)";
	}
	return "perf_event_open failed";
}

const char *pla_errno_name(int err)
{
	switch (err < 0 ? -err : err) {
	case ENOSYS: return "ENOSYS";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ESRCH: return "ESRCH";
	case EBUSY: return "EBUSY";
	case ENODATA: return "ENODATA";
	}
	return "error";
}

long pla_tracepoint_id(const char *event, char *why, size_t whylen)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	long id;
	for (int attempt = 0;; attempt++) {
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/events/%s/id", roots[i], event);
			if (pla_read_int_file(path, &id) == 0)
				return id;
		}
		if (errno == EMFILE)
			return -EMFILE; /* not the tracepoint's fault: the caller says so */
		/* systemd mounts tracefs, an initramfs or a minimal board may
		 * not: mount it where perf would, as perf does */
		if (attempt || mount("nodev", roots[0], "tracefs", 0, NULL) < 0)
			break;
	}
	int e = errno;
	snprintf(path, sizeof(path), "%s/events", roots[0]);
	if (access(path, X_OK) == 0 || access(roots[1], X_OK) == 0)
		snprintf(why, whylen, "the kernel has no %s tracepoint (CONFIG_TRACEPOINTS)", event);
	else
		snprintf(why, whylen,
			 "tracefs is unreadable or not mounted (%s): run as root, or "
			 "`mount -t tracefs nodev /sys/kernel/tracing`",
			 strerror(e));
	return -ENOENT;
}

long pla_tracepoint_format(const char *event, char *buf, size_t len)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[320];
	int fd = -1;
	for (int i = 0; i < 2 && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/events/%s/format", roots[i], event);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	size_t n = 0;
	for (;;) {
		if (n + 1 >= len) {
			close(fd);
			return -E2BIG;
		}
		ssize_t r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	return (long)n;
}
