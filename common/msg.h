/* msg.h — the messages carried in frames, and their encoding.
 *
 * Each message type has one struct.  pl_msg_encode() appends a whole frame
 * (header + body) to a writer; pl_msg_decode() fills a struct pl_msg from
 * one frame body.  Decoded strings, stack copies and file chunks borrow the
 * frame bytes (valid as long as the caller's block buffer is); arrays of
 * integers are copied into the fixed arrays of the struct, whose sizes are
 * the caps.  Neither function allocates.
 *
 * Body encoding: fields in the order of the struct, integers as LEB128
 * varints unless noted, strings and byte arrays as varint length + bytes.
 * Call-chain entries are zig-zag deltas from the previous entry (the first
 * from 0): neighbouring return addresses are close, so this shrinks them.
 *
 * Direction: 1..63 agent → viewer, 64..127 viewer → agent.  Every command
 * carries a request id the agent echoes in its PL_MSG_REPLY.
 */
#ifndef PL_MSG_H
#define PL_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "cursor.h"
#include "writer.h"

/* 2: chained zstd blocks, SAMPLE_BATCH.  3: EVENT_DESC role CREATE (its
 * samples are thread creations, not CPU time: a viewer that does not know
 * the role must not count them, hence the bump).  4: STACK_DELTA (a viewer
 * that skipped it would leave samples without their stacks).  The byte
 * stream itself is unchanged: readers take captures of every version. */
#define PL_PROTOCOL_VERSION 4u
#define PL_PROTOCOL_VERSION_MIN 2u /* oldest agent a viewer can talk to */

/* caps (also what the agent never exceeds) */
#define PL_MAX_STR 4096u           /* any string but file chunks */
#define PL_MAX_CALLCHAIN 1024u     /* entries, kernel + user + context markers */
#define PL_MAX_REGS 64u            /* sampled user registers */
#define PL_MAX_STACK_COPY 65528u   /* perf's sample_stack_user limit */
#define PL_MAX_CHUNK (512u * 1024) /* one file chunk */
#define PL_MAX_ARGV 64u
#define PL_MAX_EVENTS 16u
#define PL_MAX_COUNTERS 32u
#define PL_MAX_BUILD_ID 20u

enum pl_msg_type {
	/* agent → viewer */
	PL_MSG_HELLO = 1,
	PL_MSG_PROBE_EVENT = 2,
	PL_MSG_PROBE_CALLGRAPH = 3,
	PL_MSG_PROBE_SUMMARY = 4,
	PL_MSG_REPLY = 5,
	PL_MSG_PROC = 6,
	PL_MSG_SESSION = 7,
	PL_MSG_EVENT_DESC = 8,
	PL_MSG_SAMPLE = 16,
	PL_MSG_MMAP = 17,
	PL_MSG_COMM = 18,
	PL_MSG_TASK = 19,
	PL_MSG_SWITCH = 20,
	PL_MSG_LOST = 21,
	PL_MSG_THROTTLE = 22,
	PL_MSG_COUNTERS = 23,
	PL_MSG_HEALTH = 24,
	PL_MSG_BUILD_ID = 25,
	PL_MSG_FILE_CHUNK = 26,
	PL_MSG_END = 27,
	PL_MSG_LOG = 28,
	PL_MSG_STACK = 29,
	PL_MSG_SAMPLE_BATCH = 30,
	PL_MSG_STACK_DELTA = 31,
	/* flight recorder (agent → viewer) */
	PL_MSG_TRIGGER = 32,
	/* counter tracks (agent → viewer) */
	PL_MSG_TRACK_DESC = 40,
	PL_MSG_TRACK_VALUES = 41,
	/* viewer → agent */
	PL_MSG_AUTH = 64,
	PL_MSG_LIST = 65,
	PL_MSG_PROBE = 66,
	PL_MSG_START = 67,
	PL_MSG_PAUSE = 68,
	PL_MSG_RESUME = 69,
	PL_MSG_CONFIGURE = 70,
	PL_MSG_STOP = 71,
	PL_MSG_BYE = 72,
	/* flight recorder (viewer → agent) */
	PL_MSG_SNAPSHOT = 73,

	/* Fleet reporting (agent → collector), kept apart from the above. */
	PL_MSG_REPORT = 96,
};

/* Every known type, in order; tests iterate it so that a new type without
 * coverage fails. */
extern const uint16_t pl_msg_types[];
extern const size_t pl_msg_type_count;
const char *pl_msg_type_name(uint16_t type); /* "SAMPLE", or NULL if unknown */

enum pl_byte_order { PL_LITTLE_ENDIAN = 1, PL_BIG_ENDIAN = 2 };
enum pl_callgraph { PL_CG_NONE = 0, PL_CG_FP = 1, PL_CG_DWARF = 2, PL_CG_LBR = 3, PL_CG_AUTO = 4 };
enum pl_stacks { PL_STACKS_USER = 1, PL_STACKS_KERNEL = 2, PL_STACKS_BOTH = 3 };
enum pl_target {
	PL_TARGET_PID = 1,
	PL_TARGET_ALL = 2,
	PL_TARGET_COMMAND = 3,
	/* Fleet reporting: what the agent's own command line says (a START's
	 * other fields are ignored); only an agent dialling a collector with
	 * --label takes it. */
	PL_TARGET_OWN = 4,
};

/* HELLO: first frame from the agent; PROBE_* frames follow it. */
enum pl_hello_flags {
	PL_HELLO_AUTH_REQUIRED = 1u << 0,
	PL_HELLO_PERF_AVAILABLE = 1u << 1, /* perf_event_open works at all */
	PL_HELLO_HW_EVENTS = 1u << 2,      /* a hardware event opened */
	PL_HELLO_CG_FP = 1u << 3,          /* call-graph modes that yielded stacks */
	PL_HELLO_CG_DWARF = 1u << 4,
	PL_HELLO_CG_LBR = 1u << 5,
	PL_HELLO_BUSY = 1u << 6, /* another controller holds the agent */
	/* The greeting before AUTH: only the protocol and agent versions and
	 * AUTH_REQUIRED are filled in.  The full HELLO and the probe follow an
	 * accepted AUTH, before its REPLY (with --no-auth: any AUTH, or the
	 * first command).  Earlier agents of protocol 4 send the full HELLO at
	 * once; no version bump, as the frames are unchanged and a viewer that
	 * ignores the flag still has the full HELLO when its AUTH returns. */
	PL_HELLO_PARTIAL = 1u << 7,
};
struct pl_msg_hello {
	uint32_t protocol_version;
	struct pl_str agent_version;
	struct pl_str machine; /* uname -m */
	uint32_t e_machine;    /* ELF EM_* of the agent's own build */
	uint8_t byte_order;    /* enum pl_byte_order of the board */
	uint8_t word_size;     /* 4 or 8 */
	uint32_t page_size;
	struct pl_str kernel_release;
	struct pl_str hostname;
	uint32_t ncpus;
	uint32_t clock_id;       /* CLOCK_* used for every timestamp (perf's use_clockid) */
	uint64_t clock_now_ns;   /* that clock at HELLO time */
	uint64_t wall_now_ns;    /* CLOCK_REALTIME at HELLO time: dates the session */
	uint32_t flags;          /* enum pl_hello_flags */
	int32_t perf_errno;      /* 0, or why perf_event_open is unusable (ENOSYS, EACCES…) */
};

enum pl_probe_event_flags {
	PL_PROBE_HARDWARE = 1u << 0,
	PL_PROBE_KERNEL_OK = 1u << 1, /* opened without exclude_kernel */
	PL_PROBE_SAMPLING_OK = 1u << 2,
	PL_PROBE_FALLBACK = 1u << 3, /* this event is the fallback default */
};
struct pl_msg_probe_event {
	struct pl_str name; /* "cycles", "cpu-clock", "cpu_core/cycles/" … */
	struct pl_str pmu;  /* "cpu", "software", "armv8_pmuv3_0", "cpu_atom" … */
	uint32_t type;      /* perf_event_attr.type */
	uint64_t config;
	int32_t status; /* 0 or -errno */
	uint32_t flags; /* enum pl_probe_event_flags */
	struct pl_str message; /* what it means and what to do, when refused */
};

struct pl_msg_probe_callgraph {
	uint8_t mode; /* enum pl_callgraph */
	int32_t status;
	uint32_t samples;
	uint32_t samples_with_stack; /* non-empty user stack (fp/lbr) or stack copy (dwarf) */
	uint32_t max_depth;
	struct pl_str message;
};

struct pl_msg_probe_summary {
	int32_t paranoid;
	uint32_t max_sample_rate;
	uint32_t max_stack;
	int32_t kptr_restrict;
	int32_t perf_errno;
	uint8_t kernel_stacks_ok;
	uint8_t user_stacks_ok;
	struct pl_str default_event; /* what `auto` samples here */
	struct pl_str pmus;          /* comma-separated /sys/bus/event_source/devices */
	struct pl_str message;       /* the advice, e.g. about paranoid */
};

struct pl_msg_reply {
	uint32_t request_id;
	uint16_t command; /* the PL_MSG_* it answers */
	int32_t status;   /* 0 or -errno */
	struct pl_str message;
};

struct pl_msg_proc {
	uint32_t request_id;
	uint32_t pid;
	uint32_t ppid;
	uint32_t uid;
	uint32_t threads;
	uint64_t rss_kb;
	uint64_t cpu_ms; /* utime + stime */
	struct pl_str comm;
	struct pl_str cmdline; /* NUL separators replaced by spaces, capped */
};

struct pl_msg_session {
	uint32_t session_id;
	uint8_t target;     /* enum pl_target */
	uint32_t pid;       /* target or spawned pid; 0 for --all */
	uint8_t callgraph;  /* enum pl_callgraph really in force */
	uint32_t stack_size;
	uint8_t stacks; /* enum pl_stacks */
	uint64_t sample_regs_user;
	uint32_t frequency;
	uint32_t duration_ms;
	uint32_t ring_pages;
	uint64_t start_ns; /* clock_id time */
	struct pl_str command;
};

/* CREATE: the sched:sched_process_fork tracepoint, one sample per clone()
 * or fork() with the creating thread's registers and user stack copy
 * (always, whatever the call-graph mode: libc's clone has no frame
 * pointers); pid/tid are the parent's.  The kernel fires it after the
 * child's PERF_RECORD_FORK (TASK frame) on the same CPU, so a viewer pairs
 * each such sample with the latest FORK whose ptid is the sample's tid.
 * These samples are not CPU time. */
enum pl_event_role {
	PL_ROLE_SAMPLED = 0,
	PL_ROLE_COUNTED = 1,
	PL_ROLE_SWITCH = 2,
	PL_ROLE_CREATE = 3,
	PL_ROLE_TRACEPOINT = 4, /* see "tracepoints" below */
};
/* When the agent cannot record thread creations, the LOG note it sends
 * after SESSION contains this sentence start, then the reason up to ". ". */
#define PL_NOTE_NO_CREATE "No thread-creation stacks: "
struct pl_msg_event_desc {
	uint32_t index; /* referred to by samples and counters */
	uint8_t role;   /* enum pl_event_role */
	struct pl_str name;
	uint32_t type;
	uint64_t config;
	uint64_t config1;
	uint64_t config2;
	uint8_t freq; /* 1: sample_freq, 0: sample_period */
	uint64_t period_or_freq;
	uint8_t exclude_kernel;
};

/* SAMPLE: cpumode values follow PERF_RECORD_MISC_CPUMODE_MASK.
 *
 * Two encodings make samples small on the wire; pl_reader undoes both, so
 * its callers always see absolute times and full call chains:
 *  - PL_SAMPLE_TIME_DELTA: time is the difference (zig-zag, may be
 *    negative: rings of different CPUs interleave) from the previous SAMPLE
 *    of the same block; the first SAMPLE of a block is absolute.
 *  - stack_id != 0 with nr_callchain == 0: the call chain is the one last
 *    defined for that id by a STACK frame earlier in the stream.
 * The agent sends most samples in SAMPLE_BATCH frames (below) instead. */
enum pl_sample_flags { PL_SAMPLE_TIME_DELTA = 1u << 0 };
struct pl_msg_sample {
	uint32_t event;
	uint32_t pid;
	uint32_t tid;
	uint32_t flags;    /* enum pl_sample_flags (wire level; pl_reader clears them) */
	uint64_t time;     /* absolute after pl_reader; raw delta from pl_msg_decode */
	uint32_t stack_id; /* 0: none; else a PL_MSG_STACK id */
	uint32_t cpu;
	uint64_t period;
	uint64_t ip;
	uint8_t cpumode;
	uint32_t nr_callchain;
	uint64_t callchain[PL_MAX_CALLCHAIN]; /* as the kernel gives it, with context markers */
	uint64_t regs_abi;                    /* PERF_SAMPLE_REGS_ABI_*; 0 = no registers */
	uint32_t nr_regs;
	uint64_t regs[PL_MAX_REGS]; /* in the order of the session's sample_regs_user bits */
	uint32_t stack_size;        /* bytes really copied (dyn_size), ≤ requested */
	uint32_t stack_requested;   /* the session's stack size: equal → maybe truncated */
	const uint8_t *stack;       /* borrowed */
	/* PERF_SAMPLE_RAW of a tracepoint sample (role TRACEPOINT),
	 * as the kernel laid it out (board byte order); sent last and only
	 * when non-empty, so earlier captures decode with raw_size 0 */
	uint32_t raw_size;
	const uint8_t *raw; /* borrowed */
};

/* STACK: defines (or redefines) a call chain id for later SAMPLEs.  The
 * reader keeps at most PL_MAX_STACK_IDS ids. */
#define PL_MAX_STACK_IDS 4096u
struct pl_msg_stack {
	uint32_t id; /* 1 .. PL_MAX_STACK_IDS */
	uint32_t nr;
	uint64_t chain[PL_MAX_CALLCHAIN];
};

/* STACK_DELTA (protocol 4): defines (or redefines) id as a chain that
 * shares its first `head` entries with the chain of `base` (an id already
 * defined, possibly id itself; 0: none, an empty chain, so head and drop
 * are 0 and every entry is predicted by the one before) and all of base's
 * entries after the
 * following `drop` ones.  In place of the dropped entries come nr entries,
 * each sent as its difference from a prediction: the dropped entry at the
 * same index while there is one, else the previous entry of the new chain
 * (0 before the first).  (drop, not the kept tail's length: it is small
 * and repeats, so it compresses.)  Call chains
 * sampled from one thread differ mostly near the leaf (another
 * instruction of the same function, another callee): such a chain costs
 * a few bytes instead of its whole length.  The reader rebuilds the full
 * chain; its callers never see this message. */
struct pl_msg_stack_delta {
	uint32_t id;
	uint32_t base;
	uint32_t head;
	uint32_t drop;
	uint32_t nr;
	uint64_t diff[PL_MAX_CALLCHAIN]; /* entry minus prediction, mod 2^64 */
};
/* The prediction of entry head + i of the chain a STACK_DELTA defines: the
 * dropped base entry at that index while there is one, else the chain's
 * previous entry (0 before the first).  The agent subtracts it, readers
 * add it back: one definition for both. */
static inline uint64_t pl_stack_delta_guess(const uint64_t *base, const uint64_t *chain,
					    uint32_t head, uint32_t drop, uint32_t i)
{
	uint32_t j = head + i;
	return i < drop ? base[j] : j ? chain[j - 1] : 0;
}
/* The chain a STACK_DELTA defines, from its base's chain (base_nr entries).
 * Returns its length, or 0 when the delta does not fit the base (head +
 * drop > base_nr), or the result would be empty or exceed PL_MAX_CALLCHAIN. */
uint32_t pl_stack_delta_apply(const struct pl_msg_stack_delta *d, const uint64_t *base,
			      uint32_t base_nr, uint64_t out[PL_MAX_CALLCHAIN]);

/* SAMPLE_BATCH (protocol 2): plain samples (interned stack or none; no
 * registers, no stack copy) stored as columns, which compress far better
 * than one frame per sample.  pl_reader expands it into SAMPLE messages,
 * one per pl_reader_next(), as if they had come one by one at the batch's
 * place (SAMPLE and SWITCH frames written while the agent held the rows
 * come before it: samples were never in time order on the wire, readers
 * order by time); batch.h encodes and decodes `data`:
 *
 *   data := flags nthreads (pid tid)*nthreads  ncols  len*ncols  column*ncols
 *
 * all varints; with flag NO_LENS (protocol 4 agents) there are no lens: a
 * column is count varints, DEFS below its own count's worth, and a reader
 * finds each column by walking the ones before.  ncols ≥ PL_BATCH_COLS; a
 * reader ignores columns past the ones it knows.  Row i takes one varint
 * from each column:
 *   THREAD  index into the thread table
 *   TIME    zig-zag (time - prev_time) - guess, per thread index, in units
 *           of 1 ns, or of 1 µs with flag TIME_US (times truncated); guess
 *           is the row's period in those units with flag TIME_PERIOD (a
 *           cpu-clock thread that runs is sampled every period ns), else
 *           the previous interval of the thread index (from 0); prev_time
 *           starts at base_time (sampling timers tick regularly)
 *   STACK   stack id (0: no call chain)
 *   IP      zig-zag ip - the first entry of the stack's chain that is not
 *           a context marker (0 if none): usually 0
 *   PERIOD  zig-zag delta from the previous period of the thread index
 *           (from 0): constant periods cost nothing
 *   EVENT, CPU, CPUMODE  as in SAMPLE
 * A ninth column (protocol 4), DEFS, holds the definitions of the stacks
 * the rows introduce, each a STACK_DELTA with its id coded from the
 * previous definition's and its base from its id, field by field:
 *   DEFS := n  id_delta*n  base*n  head*n  drop*n  nr*n  diff*(sum of nr)
 * (batch.h, pl_batch_def_put: the id delta is zig-zag(id - prev_id - 1),
 * the base 0 or zig-zag(id - base) + 1, the differences zig-zag).
 * The reader applies them all before the first row; a sample that needs
 * one of them and goes out as a SAMPLE frame makes the agent send the
 * batch first. */
#define PL_MAX_BATCH 4096u          /* samples in one batch */
#define PL_MAX_BATCH_THREADS 256u   /* thread table entries */
#define PL_MAX_BATCH_BYTES (PL_FRAME_MAX - 64u)
struct pl_msg_sample_batch {
	uint32_t count;
	uint64_t base_time;
	uint32_t len;
	const uint8_t *data; /* borrowed */
};

struct pl_msg_mmap {
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint64_t start;
	uint64_t len;
	uint64_t pgoff;
	uint32_t prot;
	uint32_t flags;
	uint32_t maj, min;
	uint64_t ino;
	uint8_t cpumode;  /* kernel vs user mapping */
	uint8_t snapshot; /* from /proc/PID/maps at start, not from the kernel */
	uint8_t build_id_len;
	uint8_t build_id[PL_MAX_BUILD_ID];
	struct pl_str filename;
};

struct pl_msg_comm {
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	uint8_t exec;     /* renamed by exec */
	uint8_t snapshot; /* from /proc at start */
	struct pl_str comm;
};

enum pl_task_kind { PL_TASK_FORK = 1, PL_TASK_EXIT = 2 };
struct pl_msg_task {
	uint8_t kind;
	uint32_t pid, ppid;
	uint32_t tid, ptid;
	uint64_t time;
};

enum pl_switch_flags { PL_SWITCH_OUT = 1u << 0, PL_SWITCH_PREEMPT = 1u << 1 };
struct pl_msg_switch {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint8_t flags;
	uint32_t other_pid, other_tid; /* next/prev task in CPU-wide mode, else 0 */
};

enum pl_lost_kind {
	PL_LOST_RING = 1,         /* PERF_RECORD_LOST: the kernel's ring was full */
	PL_LOST_SAMPLES = 2,      /* PERF_RECORD_LOST_SAMPLES */
	PL_LOST_BACKPRESSURE = 3, /* the agent dropped encoded data: network too slow */
	PL_LOST_OVERSIZE = 4,     /* a record too large to encode */
	PL_LOST_MALFORMED = 5,    /* a kernel record the agent could not parse */
};
struct pl_msg_lost {
	uint8_t kind;
	uint32_t cpu;
	uint64_t time;
	uint64_t count;
};

struct pl_msg_throttle {
	uint64_t time;
	uint32_t event;
	uint8_t unthrottle;
};

struct pl_counter_value {
	uint32_t event;
	uint64_t value;
	uint64_t enabled_ns;
	uint64_t running_ns;
};
struct pl_msg_counters {
	uint64_t time;
	uint32_t n;
	struct pl_counter_value v[PL_MAX_COUNTERS];
};

struct pl_msg_health {
	uint64_t time;
	uint32_t ncpus;
	uint32_t cpu_busy_permille; /* whole board, since the last HEALTH */
	uint64_t mem_total_kb;
	uint64_t mem_available_kb;
	uint32_t load1_x100, load5_x100, load15_x100;
	uint64_t agent_cpu_ns; /* the agent's own CPU time, cumulative */
	uint64_t agent_rss_kb;
	uint64_t samples;   /* cumulative, this session */
	uint64_t lost;      /* kernel ring losses */
	uint64_t dropped;   /* backpressure drops */
	uint64_t throttled; /* throttle events */
	uint64_t bytes_raw; /* encoded frames before compression */
	uint64_t bytes_sent;
};

enum pl_build_id_source { PL_BUILD_ID_ELF_NOTE = 1, PL_BUILD_ID_KERNEL = 2 };
struct pl_msg_build_id {
	uint32_t pid; /* 0: system-wide path */
	uint8_t source;
	uint8_t len;
	uint8_t id[PL_MAX_BUILD_ID];
	struct pl_str path;
};

enum pl_chunk_kind {
	PL_CHUNK_VDSO = 1,     /* the vDSO image, addr = its load address in pid */
	PL_CHUNK_PERF_MAP = 2, /* /tmp/perf-PID.map text */
	PL_CHUNK_KALLSYMS = 3, /* /proc/kallsyms text (text symbols only) */
	PL_CHUNK_MODULES = 4,  /* /proc/modules text */
	PL_CHUNK_TRACE_FORMAT = 5, /* a tracepoint's format: see "tracepoints" below */
	PL_CHUNK_KERNEL_NOTES = 6, /* /sys/kernel/notes (ELF notes: the kernel's build-id),
				    * one chunk, with kernel stacks */
	/* A self-contained session (viewer only: `perflens export --format
	 * plens-symbolized`): the session's symbolization resolved where its
	 * files were — frames of every sampled address, DWARF walks, module
	 * coverage, sources and disassembly of the hottest functions, and
	 * where/when it was made — as one versioned table
	 * (viewer/symbols/pl-sym-embed.h) cut into chunks: pid 0, addr 0,
	 * offset/total over the table, name "perflens-symbols", written
	 * right after HELLO.  Viewers before it skip unknown kinds (and
	 * symbolize from local files as usual). */
	PL_CHUNK_SYMBOLIZED = 7,
	/* A flight recorder's snapshot (agent/flight.h) sent to the viewer
	 * that asked for it (SNAPSHOT): a whole .plens file, name = its name
	 * in the board's --snapshot-dir, offset/total over the file, pid 0,
	 * addr 0; the REPLY to SNAPSHOT follows the last chunk (its message:
	 * the file's path on the board). */
	PL_CHUNK_SNAPSHOT = 8,
	/* The kernel's interrupt counts, sent when a session records an irq
	 * tracepoint (`record --irq`): /proc/interrupts and /proc/softirqs
	 * as they are, once right after the events are on (after the
	 * EVENT_DESCs) and once before they close (before END), each a text
	 * file in chunks (offset/total as PERF_MAP's), pid 0, name the path,
	 * addr = when it was read (CLOCK_MONOTONIC ns, the samples' clock),
	 * the same in every chunk of one read.  An interrupt a CPU takes
	 * while it idles gives no tracepoint sample on some kernels (6.18 in
	 * a VM): the viewer holds the runs it recorded between the two reads
	 * to the difference.  Viewers before it skip unknown kinds. */
	PL_CHUNK_INTERRUPTS = 9,
	PL_CHUNK_SOFTIRQS = 10,
};
struct pl_msg_file_chunk {
	uint8_t kind;
	uint32_t pid;
	uint64_t addr;
	uint64_t offset; /* of this chunk within the file */
	uint64_t total;  /* file size, when known, else 0 */
	struct pl_str name;
	uint32_t len;
	const uint8_t *data; /* borrowed */
};

enum pl_end_reason {
	PL_END_TARGET_EXITED = 1,
	PL_END_STOPPED = 2,
	PL_END_DURATION = 3,
	PL_END_ERROR = 4,
};
struct pl_msg_end {
	uint8_t reason;
	int32_t status; /* exit status of a spawned command, or -errno */
	uint64_t time;
	struct pl_str message;
};

enum pl_log_level { PL_LOG_ERROR = 1, PL_LOG_WARN = 2, PL_LOG_INFO = 3 };
struct pl_msg_log {
	uint8_t level;
	struct pl_str message;
};

/* ─── flight recorder ──────────────────────────────────────────────────── */

/* TRIGGER: a flight recorder snapshot (agent/flight.h) fired here.  The
 * capture holds [from, to] of the ring (CLOCK_MONOTONIC ns, as samples);
 * spec is the trigger as the user wrote it ("marker:glitch"), detail what
 * matched (the marker's text, "fsync 73 ms", "exit status 3").  A
 * snapshot holds one TRIGGER per firing it covers, the first the one that
 * opened it.  SNAPSHOT (viewer → agent, a request id only): save the
 * whole ring now; answered by the file (FILE_CHUNKs, PL_CHUNK_SNAPSHOT)
 * and then the REPLY, or by a REPLY that says why not. */
enum pl_trigger_kind {
	PL_TRIGGER_MARKER = 1,
	PL_TRIGGER_SYSCALL = 2,
	PL_TRIGGER_EXIT = 3,
	PL_TRIGGER_SIGNAL = 4,
	PL_TRIGGER_VIEWER = 5,
	PL_TRIGGER_EVENT = 6, /* any hit of a tracepoint or probe */
	PL_TRIGGER_CPU = 7,   /* a CPU share held for a time */
	PL_TRIGGER_PROC = 8,  /* a process whose name matches starts (exec) */
	PL_TRIGGER_TIME = 9,  /* --boot: the time limit (--duration) came */
};
struct pl_msg_trigger {
	uint8_t kind; /* enum pl_trigger_kind */
	uint64_t time;
	uint64_t from, to;
	struct pl_str spec;
	struct pl_str detail;
};

struct pl_msg_auth {
	uint32_t request_id;
	struct pl_str token;
};

/* LIST, PROBE, PAUSE, RESUME, STOP, BYE carry only a request id. */
struct pl_msg_request {
	uint32_t request_id;
};

enum pl_start_flags {
	PL_START_SWITCH_STACKS = 1u << 0, /* context-switch samples with stacks (off-CPU) */
	PL_START_COUNTERS = 1u << 1,      /* the perf-stat style counting group */
	PL_START_KALLSYMS = 1u << 2,      /* send /proc/kallsyms (kernel stacks) */
	PL_START_NO_SWITCHES = 1u << 3,   /* no context-switch records (no thread timeline) */
};
struct pl_msg_start {
	uint32_t request_id;
	uint8_t target; /* enum pl_target */
	uint32_t pid;
	uint32_t argc;
	struct pl_str argv[PL_MAX_ARGV];
	uint32_t nevents;
	struct pl_str events[PL_MAX_EVENTS]; /* specs as --event takes them; none = default */
	uint32_t frequency;
	uint8_t callgraph; /* enum pl_callgraph */
	uint32_t stack_size;
	uint8_t stacks; /* enum pl_stacks */
	uint32_t duration_ms;
	uint32_t flags; /* enum pl_start_flags */
	uint32_t counter_interval_ms;
	/* counter tracks (below): poll every this many ms, 0 none; last on
	 * the wire and absent from older viewers' STARTs (none) */
	uint32_t track_interval_ms;
};

struct pl_msg_configure {
	uint32_t request_id;
	uint32_t frequency; /* 0: unchanged */
	uint32_t nevents;   /* 0: unchanged */
	struct pl_str events[PL_MAX_EVENTS];
};

/* ─── counter tracks ─────────────────────────────────────────────────────
 * Values the agent polls from /proc and sysfs every track_interval_ms
 * (START; agent --tracks) and the viewer draws under the timeline.
 * TRACK_DESC describes one track, once, right after the session's
 * EVENT_DESCs; TRACK_VALUES gives tracks first .. first + n - 1 their
 * values at `time` (the session clock, as samples).  A value times
 * 10^exp10 is in unit; PL_TRACK_NONE: not read this time (the process
 * exited, the file vanished).  The sources and their units, as the
 * kernel documents them:
 *   RSS        /proc/PID/statm resident pages × page size: bytes
 *   CPU_BUSY   /proc/stat cpuN: the share of the interval not idle nor
 *              iowait, per mille (unit %, exp10 -1)
 *   CPU_FREQ   cpufreq policyN/scaling_cur_freq, and its limit
 *              scaling_max_freq and cpuinfo_max_freq as tracks of their
 *              own (the source's file name says which; cpu: N),
 *              kHz (Documentation/admin-guide/pm/cpufreq.rst)
 *   CPU_IDLE   cpuN/cpuidle/stateK/time (µs) over the interval: the
 *              share spent in that state, per mille
 *   THERMAL    thermal_zoneN/temp, millidegrees Celsius (type: its name)
 *   POWER, CURRENT, VOLTAGE, TEMP  hwmonN/{power,curr,in,temp}M_input:
 *              µW, mA, mV, m°C (Documentation/hwmon/sysfs-interface.rst;
 *              name and the optional *_label name them) */
#define PL_MAX_TRACKS 256u
#define PL_TRACK_NONE INT64_MIN
enum pl_track_kind {
	PL_TRACK_RSS = 1,
	PL_TRACK_CPU_BUSY = 2,
	PL_TRACK_CPU_FREQ = 3,
	PL_TRACK_CPU_IDLE = 4,
	PL_TRACK_THERMAL = 5,
	PL_TRACK_POWER = 6,
	PL_TRACK_CURRENT = 7,
	PL_TRACK_VOLTAGE = 8,
	PL_TRACK_TEMP = 9,
};
struct pl_msg_track_desc {
	uint32_t id;   /* 0, 1, … in the order described */
	uint8_t kind;  /* enum pl_track_kind */
	int32_t exp10; /* value × 10^exp10 is in unit */
	uint32_t pid;  /* RSS: the process, else 0 */
	int32_t cpu;   /* CPU_*: the (first) CPU, else -1 */
	uint32_t interval_ms;
	struct pl_str name;   /* "cpu1 busy", "thermal cpu-thermal", "hwmon ina226 power1 VDD" */
	struct pl_str unit;   /* "B", "%", "Hz", "°C", "W", "A", "V" */
	struct pl_str source; /* the file read, as the agent opened it */
};
struct pl_msg_track_values {
	uint64_t time;
	uint32_t first;
	uint32_t n;
	uint64_t v[PL_MAX_TRACKS]; /* int64_t values, each zig-zag on the wire */
};

/* ─── fleet reporting ───────────────────────────────────────────────────
 * REPORT: an agent started with --server and --label dials a collector
 * (`perflens collect`) and sends this right after its greeting, before
 * anything else: its token first (the collector checks it before it says
 * a word, so a peer that merely connects learns nothing), then the labels
 * its samples are stored under ("fw=2.3.1", "board=imx8mp") and how long
 * each of its sessions runs.  The collector then authenticates as a viewer
 * does (AUTH with the same token) and sends START with PL_TARGET_OWN: the
 * agent records what its command line says, for session_period_ms, and
 * the collector starts the next session when one ends. */
#define PL_MAX_LABELS 32u
#define PL_MAX_LABEL 256u
struct pl_msg_report {
	struct pl_str token;
	uint32_t nlabels;
	struct pl_str labels[PL_MAX_LABELS]; /* "KEY=VALUE" */
	uint32_t session_period_ms;
};

struct pl_msg {
	uint16_t type;
	union {
		struct pl_msg_hello hello;
		struct pl_msg_probe_event probe_event;
		struct pl_msg_probe_callgraph probe_callgraph;
		struct pl_msg_probe_summary probe_summary;
		struct pl_msg_reply reply;
		struct pl_msg_proc proc;
		struct pl_msg_session session;
		struct pl_msg_event_desc event_desc;
		struct pl_msg_sample sample;
		struct pl_msg_stack stack;
		struct pl_msg_stack_delta stack_delta;
		struct pl_msg_sample_batch batch;
		struct pl_msg_mmap mmap;
		struct pl_msg_comm comm;
		struct pl_msg_task task;
		struct pl_msg_switch sw;
		struct pl_msg_lost lost;
		struct pl_msg_throttle throttle;
		struct pl_msg_counters counters;
		struct pl_msg_health health;
		struct pl_msg_build_id build_id;
		struct pl_msg_file_chunk chunk;
		struct pl_msg_end end;
		struct pl_msg_log log;
		struct pl_msg_auth auth;
		struct pl_msg_request request; /* LIST PROBE PAUSE RESUME STOP BYE SNAPSHOT */
		struct pl_msg_start start;
		struct pl_msg_configure configure;
		struct pl_msg_trigger trigger;
		struct pl_msg_report report;
		struct pl_msg_track_desc track_desc;
		struct pl_msg_track_values track_values;
	} u;
};

/* Appends one whole frame.  Returns 0, -ENOBUFS if the writer is too small
 * (the writer is rewound: nothing partial is left), -EINVAL for an unknown
 * type or a field over its cap. */
int pl_msg_encode(struct pl_writer *w, const struct pl_msg *m);

/* Decodes one frame body of the given type.  Returns 0; -ENOENT for an
 * unknown type (skip it); -EBADMSG / -E2BIG for a malformed body, with a
 * reason in err.  Borrowed pointers in *m point into body. */
int pl_msg_decode(uint16_t type, const uint8_t *body, size_t len, struct pl_msg *m, char *err,
		  size_t errlen);

/* Convenience for C strings built from borrowed ones. */
static inline struct pl_str pl_str_c(const char *s)
{
	struct pl_str r = { s ? s : "", 0 };
	while (r.p[r.len])
		r.len++;
	return r;
}

/* ─── tracepoints ─────────────────────────────────────────────────────── */

/* TRACEPOINT (role 4): `--event SUBSYS:NAME`, sample_period 1; each
 * SAMPLE carries its stack as the session's call-graph mode gives it and
 * the tracepoint's raw payload (pl_msg_sample.raw).  These samples are
 * events, not CPU time.  Before the first of them the agent sends the
 * tracepoint's tracefs `format` file whole, once per event, as a
 * FILE_CHUNK of kind PL_CHUNK_TRACE_FORMAT: pid = the event index, name =
 * "SUBSYS:NAME", addr = offset = 0, total = len.  (ftrace:print, the
 * lines written to trace_marker, never reaches perf: markers below.) */
#define PL_MAX_RAW 65528u /* a perf record is under 64 KiB */

/* Application markers (`--markers`, EVENT_DESC name "markers").  The
 * kernel never hands ftrace:print (a write to trace_marker) to
 * perf_event_open, so include/perflens-marker.h writes each line to
 * trace_marker with writev(fd, iov, 3): iov[0] the text, iov[1] and iov[2]
 * empty with these base addresses as a signature (the kernel reads no byte
 * of an empty iovec; ftrace gets the line as usual).  The agent records
 * syscalls:sys_enter_writev filtered on vlen == 3, with registers and a
 * user stack copy of at least PL_MARKER_STACK bytes, whatever the
 * call-graph mode: the iovecs and the text lie in the writer's frame, and
 * the viewer reads them from the copy, checks the signature and drops any
 * other writev.  Its stack is that of every event (PL_EVENT_STACK), at
 * least PL_MARKER_STACK bytes of copy. */
#define PL_MARKER_TRACEPOINT "syscalls:sys_enter_writev"
#define PL_MARKER_FILTER "vlen == 3"
#define PL_MARKER_SIG1 0x504c4d4bu /* "PLMK" */
#define PL_MARKER_SIG2 0x4d41524bu /* "MARK" */
#define PL_MARKER_STACK 1024u /* the text (≤ 256 bytes) and iovecs lie ~500 bytes up */
#define PL_MAX_TRACE_FORMAT 65536u

/* Stacks at events: slow system calls and markers, and in a dwarf
 * session tracepoints and probes too, carry the user registers and a copy
 * of the user stack, as DWARF samples do (PERF_SAMPLE_REGS_USER |
 * PERF_SAMPLE_STACK_USER), and the viewer unwinds them with CFI/EHABI the
 * same way: the frame chain is broken wherever code has no frame pointers
 * (a libc called on the way to the call: `clock_nanosleep < main` without
 * the caller between).  The copy is PL_EVENT_STACK bytes, or the
 * session's stack size in a dwarf session; unless the session records
 * kernel stacks only, events also carry the user fp call chain, which the
 * viewer follows beyond where the copy ends (from the last frame the two
 * share).  A slow call's registers and copy are taken at its exit (the
 * thread has not returned to user mode, so they are the entry's), its
 * chain at its entry.  Tracepoints and probes of an fp session keep the
 * chain alone: a probe in a loop hits every few microseconds, and 2 KiB a
 * hit overflows the rings (466 of 1,234 back-to-back uprobe hits kept). */
#define PL_EVENT_STACK 2048u

/* Probes (`--event u:/PATH:SYMBOL[+OFF]`, `k:SYMBOL[+OFF]`): the uprobe and
 * kprobe PMUs, sampled as TRACEPOINT events named as the user wrote them
 * ("u:…", "k:…"), every hit with the session's stack; their raw payload is
 * the probe's (common fields and the probed address) and no format is
 * sent (the probe is not in tracefs).
 *
 * Slow system calls (`--syscalls LIST --slower-than DUR`, EVENT_DESC name
 * "slow-syscalls", role TRACEPOINT): the agent pairs raw_syscalls'
 * sys_enter and sys_exit per thread and sends only the calls that took
 * DUR or more, each a SAMPLE at the entry (its time, thread and call
 * chain: the kernel's fp chain in every call-graph mode) whose raw payload
 * is this struct, in the board's byte order (no format file is sent: the
 * viewer knows it).  At the end a LOG beginning PL_SLOW_SYSCALLS_NOTE
 * gives the counts, including the calls that could not be timed. */
struct pl_slow_syscall {
	uint64_t nr;          /* the board architecture's system call number */
	uint64_t duration_ns; /* sys_exit's time - sys_enter's */
	uint64_t ret;         /* the return value, sign-extended (-errno) */
	uint64_t args[6];
};
_Static_assert(sizeof(struct pl_slow_syscall) == 72, "wire layout");
#define PL_SLOW_SYSCALLS_EVENT "slow-syscalls"
#define PL_SLOW_SYSCALLS_NOTE "Slow system calls: "

#endif
