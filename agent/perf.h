/* perf.h — the one perf_event_open(2) wrapper, event specs, and the
 * fallback policy.
 *
 * Every event the agent opens goes through pla_perf_open(); every decision
 * to open something else instead (cycles → cpu-clock, kernel → user only)
 * lives in pla_perf_open_fallback(), and each fallback leaves a sentence for
 * the user in the caller's buffer.
 */
#ifndef PLA_PERF_H
#define PLA_PERF_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An event as the user names it: "cycles", "cpu-clock:freq=999",
 * "r00c0:period=100000", "armv8_pmuv3_0/config=0x11/", "cpu_core/cycles/". */
struct pla_event_spec {
	char name[256];
	uint32_t type;
	uint64_t config, config1, config2;
	uint8_t has_freq, has_period;
	uint64_t freq, period;
	uint8_t hardware; /* may be missing on VMs: eligible for the cpu-clock fallback */
	uint8_t tracepoint; /* "SUBSYS:NAME": type TRACEPOINT, config its tracefs id */
	uint8_t marker;     /* "markers": perflens-marker.h's writes (PL_MARKER_TRACEPOINT) */
	/* "u:PATH:SYM[+OFF][%return]", "k:SYM[+OFF][%return]": the uprobe /
	 * kprobe PMU (config: the retprobe bit for %return), with
	 * config1 pointing at target (the path, or the kernel symbol) and
	 * config2 the file offset (resolved here, from the board's file) or
	 * the offset into the kernel function; recorded as a tracepoint */
	uint8_t probe; /* 'u', 'k' or 0 */
	/* "slow-syscalls:DUR[:NR,NR…]" (--syscalls, --slower-than): config and
	 * config1 the raw_syscalls sys_enter and sys_exit ids, config2 the
	 * threshold in ns, target the numbers (empty: every call) */
	uint8_t syscalls;
	char target[200];
};

/* Parses a spec.  Returns 0, or -EINVAL with the reason in err. */
int pla_event_parse(const char *spec, struct pla_event_spec *out, char *err, size_t errlen);
/* The named generic events the probe tries, in order. */
extern const char *const pla_named_events[];
extern const size_t pla_named_event_count;

/* "1ms", "250us", "2s", "500000ns", "3" (ms) → ns; -1 when not one. */
int64_t pla_parse_duration(const char *s);
#define PLA_SYS_LIST 190 /* room for the numbers in pla_event_spec.target */
/* Appends the numbers of system call `name` (one, or two where a _time64
 * variant answers to it too) to out, comma-separated; returns how many (0:
 * a name this agent does not know). */
int pla_syscall_numbers(const char *name, char *out, size_t len);

/* Raw syscall; returns fd or -errno. */
int pla_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		  unsigned long flags);

/* Opens attr, retrying with the documented fallbacks:
 *   EACCES/EPERM with kernel sampling → exclude_kernel + exclude_hv;
 *   ENOENT/EOPNOTSUPP/ENODEV for a hardware event and allow_sw set →
 *     cpu-clock (attr is rewritten, *fell_back set);
 *   EINVAL with build_id → without build_id (old kernels);
 *   EINVAL with context_switch/use_clockid → without them.
 * Each change appends a sentence to note.  Returns fd or -errno of the last
 * attempt, with explain() text in note. */
int pla_perf_open_fallback(struct perf_event_attr *attr, pid_t pid, int cpu, int allow_sw,
			   int *fell_back, char *note, size_t notelen);

/* What errno means for perf_event_open here and what to do: for users. */
const char *pla_perf_explain(int err, int paranoid);

/* "ENOSYS" for -ENOSYS (musl has no strerrorname_np). */
const char *pla_errno_name(int err);

/* The perf id of tracepoint "group/name" (e.g. "sched/sched_process_fork")
 * from tracefs (/sys/kernel/tracing, else /sys/kernel/debug/tracing); when
 * neither has it, mounts tracefs on /sys/kernel/tracing (root only) and
 * looks again.  Returns the id, or -ENOENT with a sentence in why, or
 * -EMFILE (no descriptor left: the caller explains). */
long pla_tracepoint_id(const char *event, char *why, size_t whylen);

/* The tracefs `format` text of tracepoint "group/name" into buf
 * (NUL-terminated), from where pla_tracepoint_id found it.  Returns its
 * length, or -errno (-E2BIG: larger than buf). */
long pla_tracepoint_format(const char *event, char *buf, size_t len);


#endif
