/* pl-profile.h — the session model: everything the viewer knows about one
 * recording, fed message by message from any source (capture file, live
 * agent, perf.data), and the analyses over it.
 *
 * Ingesting (pl_profile_ingest) keeps:
 *   - processes and threads: names from COMM (snapshot or live), the
 *     fork/exit tree, on/off-CPU intervals from SWITCH records;
 *   - mappings, handed to a PlSymbols (one per profile);
 *   - stacks: each sample's PCs (fp callchain or DWARF unwind of the
 *     copied stack) are interned in an address trie; each new trie node is
 *     symbolized once (inline frames expanded) into a function trie.  Both
 *     tries grow with distinct stacks, not with samples;
 *   - per sample only what the timeline needs: time, tid, stack id, weight
 *     (24 bytes);
 *   - counters over time; HEALTH reports and LOST / THROTTLE marks over
 *     time (capped) as well as their totals.
 * Symbolizing at ingest time uses the mappings in force when the sample
 * was taken, so exec and dlclose do not mislabel earlier samples.  Because
 * agents (and perf) emit records per CPU ring, not in time order, timed
 * records (SAMPLE, MMAP, COMM, TASK, SWITCH) are held back up to 0.5 s of
 * stream time and ingested in time order; pl_profile_finish() flushes them,
 * so between ingest calls the analyses lag the stream by that window.
 *
 * Queries (pl_profile_aggregate) select samples by thread, event and time
 * range and give self/total per call-tree node, per function and per source
 * line.  Weight is the sample period (event units: ns for cpu-clock), or,
 * for context-switch samples, the off-CPU time that followed.
 *
 * Ownership: strings and structs returned by _get functions are owned by the
 * profile and live as long as it.  One thread at a time (but see
 * pl_profile_prepare_readers).  No GTK.
 */
#ifndef PL_PROFILE_H
#define PL_PROFILE_H

#include <glib.h>

#include "msg.h"
#include "pl-proc-irq-reads.h"
#include "pl-counter-tracks.h"
#include "pl-symbols.h"

G_BEGIN_DECLS

#define PL_NO_ID G_MAXUINT32

typedef struct _PlProfile PlProfile;

typedef struct {
	guint64 samples;
	guint64 weight;
} PlCount;

/* A function is one (name, module, inlined, file): file is where the
 * DWARF says it is defined, so two static functions of one name in two
 * source files of a module are two functions, while a static inline one
 * of a header, copied into many objects, stays one; without DWARF (file
 * NULL) the name alone decides within a module, as it did before.  Names
 * never merge across modules. */
typedef struct {
	const char *name;   /* NULL: unknown function (then see module) */
	const char *module; /* basename, "[kernel]", "[unknown]" … */
	gboolean inlined;   /* this frame was inlined into its caller */
	const char *file;   /* defining source file (DW_AT_decl_file, as PlLocation.file
			     * names files), NULL when unknown */
	guint line;         /* its DW_AT_decl_line, 0 when unknown */
} PlFunction;

/* A node of the interned call tree.  Node 0 is the root (func PL_NO_ID). */
typedef struct {
	guint32 parent;
	guint32 func; /* PlFunction id */
	guint32 first_child;
	guint32 next_sibling;
} PlNode;

typedef struct {
	const char *file;
	guint line;
} PlLocation;

typedef struct {
	guint64 start, end;
	gboolean on_cpu;
	gboolean preempted; /* off-CPU because preempted (runnable), not blocked */
} PlInterval;

typedef struct {
	guint32 tid, pid;
	guint32 ptid; /* the thread that created it, 0 when unknown */
	char *name;
	guint64 start, end; /* 0 when unknown */
	gboolean exited;
	guint64 samples;
	guint64 on_cpu_ns, off_cpu_ns;
	GArray *intervals; /* PlInterval, in time order */
	/* private: switch bookkeeping */
	guint64 last_switch;
	int state; /* 0 unknown, 1 on-CPU, 2 off-CPU */
	gboolean last_preempt;
	GArray *pending; /* guint: indices of switch samples awaiting their off-CPU time */
	/* the stack that created it (address-trie leaf, as PlSample.stack),
	 * PL_NO_ID when none: see pl_profile_thread_creation_stack() */
	guint32 creation_stack;
} PlThread;

typedef struct {
	guint32 pid, ppid;
	char *name;
	guint64 start, end;
	gboolean exited;
} PlProcess;

typedef struct {
	guint32 index;
	guint8 role; /* enum pl_event_role */
	char *name;
	guint64 samples;
	gboolean everywhere; /* a uprobe or kprobe: opened for every process */
} PlEvent;

/* A sample's thread and weight.  CPU samples share them: a thread's
 * period is steady (a 10.6 M-sample session of 17 threads at 100 kHz has
 * 34 pairs), so a sample is 16 bytes, not 24: 85 MB at 10 M samples.  An
 * off-CPU sample's weight is its own (the time its thread stayed off):
 * 32 bytes with its pair. */
typedef struct {
	guint64 weight;
	guint32 tid;
} PlSampleCtx;

typedef struct {
	guint64 time;
	guint32 stack; /* address-trie leaf; pl_profile_get_stack_node() gives the call-tree node */
	guint32 ctx;   /* its thread and weight: pl_sample_tid(), pl_sample_weight() */
} PlSample;

typedef struct {
	guint64 time;
	guint64 value;
	guint64 enabled_ns, running_ns;
} PlCounterPoint;

typedef struct {
	guint64 samples;
	guint64 samples_no_stack;  /* only the IP */
	guint64 dwarf_samples;
	guint64 dwarf_truncated;   /* unwinding ran off the copied stack */
	guint64 dwarf_failed;      /* nothing unwound: fell back to the IP */
	guint64 lost[6];           /* by enum pl_lost_kind */
	guint64 throttled, unthrottled;
	guint64 switches;
	gboolean have_health;
	struct pl_msg_health health; /* the last one */
	guint64 first_time, last_time; /* of samples and switches */
	guint8 end_reason;  /* enum pl_end_reason, 0 while running */
	gint32 end_status;
	char *end_message;
	/* HELLO / SESSION */
	char *hostname, *machine, *kernel_release, *agent_version;
	char *command;
	guint32 target_pid;
	guint8 callgraph; /* enum pl_callgraph */
	guint64 sample_regs_user;
	guint64 session_start;
	guint32 duration_ms;
	guint32 frequency;
	GPtrArray *log; /* char*: LOG messages and problems met while ingesting */
	/* thread creations (EVENT_DESC role CREATE): not CPU samples, never
	 * in samples, aggregates or any total above */
	gboolean creation_recorded;  /* the agent opened its creation event */
	char *creation_missing;      /* else why not, when the agent said so */
	guint64 creation_samples;    /* received */
	guint64 creation_unpaired;   /* no FORK of a new thread to give them to */
	/* unwinding (pl-unwind-quality.c): CPU samples with user frames, and
	 * those whose stack reaches the program's or a thread's start */
	guint64 unwind_user_samples;
	guint64 unwind_rooted;
	/* tracepoint hits (EVENT_DESC role TRACEPOINT, pl-tracepoint.h): not
	 * CPU samples either */
	guint64 trace_events;
	guint64 trace_dropped; /* past PL_MAX_TRACE_EVENTS or without their payload */
	guint8 target;              /* enum pl_target of the session */
	guint64 probe_hits_elsewhere; /* probe hits of processes outside a --pid or
				       * --command session (probes are opened for every
				       * process: agent/events.c), left out */
} PlProfileStats;

/* opts may be NULL (host files, defaults).  Copied. */
PlProfile *pl_profile_new(const PlSymOptions *opts);
void pl_profile_free(PlProfile *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlProfile, pl_profile_free)

/* Takes one message (a PlMsgFunc: always returns TRUE).  Borrowed data in m
 * is copied as needed. */
gboolean pl_profile_ingest(const struct pl_msg *m, gpointer profile);
/* Takes one message of a stream already put in ingest order by a
 * PlTimeOrder (pl-time-order.h; a loader orders on its decoding thread):
 * ingested at once.  The same stream through pl_profile_ingest gives the
 * same profile.  Not to be mixed with pl_profile_ingest for timed
 * messages (what that still holds is ingested first). */
gboolean pl_profile_ingest_ordered(const struct pl_msg *m, gpointer profile);
/* Ingests everything held for reordering and closes open on/off-CPU
 * intervals at the last time seen.  Call when the input ended (or before
 * showing a live profile); ingesting more afterwards is allowed. */
void pl_profile_finish(PlProfile *self);

PlSymbols *pl_profile_get_symbols(PlProfile *self); /* created at HELLO or first need */
const PlProfileStats *pl_profile_get_stats(PlProfile *self);

guint pl_profile_get_n_functions(PlProfile *self);
const PlFunction *pl_profile_get_function(PlProfile *self, guint32 id);
/* "name", or "[module]" / "0x…" when unknown.  Owned by the profile. */
const char *pl_profile_get_function_label(PlProfile *self, guint32 id);
/* With short names on, labels have C++ template arguments and parameter
 * lists folded (pl-name-shorten.h): every view and report that shows
 * labels follows.  Names (PlFunction.name) stay whole. */
void pl_profile_set_short_names(PlProfile *self, gboolean on);
gboolean pl_profile_get_short_names(PlProfile *self);
/* First function with that name, PL_NO_ID when none. */
guint32 pl_profile_find_function(PlProfile *self, const char *name);

guint pl_profile_get_n_nodes(PlProfile *self);
const PlNode *pl_profile_get_node(PlProfile *self, guint32 id);
guint32 pl_profile_get_stack_node(PlProfile *self, guint32 stack);
guint32 pl_profile_get_stack_event(PlProfile *self, guint32 stack);

guint pl_profile_get_n_locations(PlProfile *self);
const PlLocation *pl_profile_get_location(PlProfile *self, guint32 id);

/* Builds now every table the analyses would otherwise make at their first
 * ask (sorted threads, processes and events, the functions' labels, where
 * stacks start): afterwards, until the profile changes (ingest, finish,
 * short names, a stack filter's interning), the findings and periods
 * (pl-findings.h, pl-periods.h) and the aggregates only read it, so one
 * worker may run them while the owner's thread reads it too. */
void pl_profile_prepare_readers(PlProfile *self);

/* Sorted by tid / pid / index.  Borrowed arrays of borrowed structs. */
GPtrArray *pl_profile_get_threads(PlProfile *self);
PlThread *pl_profile_lookup_thread(PlProfile *self, guint32 tid);
GPtrArray *pl_profile_get_processes(PlProfile *self);
GPtrArray *pl_profile_get_events(PlProfile *self);
/* The event most samples belong to (the default for reports), or PL_NO_ID. */
guint32 pl_profile_get_main_event(PlProfile *self);
const PlEvent *pl_profile_lookup_event(PlProfile *self, guint32 index);

const PlSample *pl_profile_get_samples(PlProfile *self, guint *n);
/* The pairs the samples' ctx index; like the samples, read again after the
 * profile grew. */
const PlSampleCtx *pl_profile_get_sample_ctx(PlProfile *self);
static inline guint32 pl_sample_tid(const PlSampleCtx *c, const PlSample *s)
{
	return c[s->ctx].tid;
}
static inline guint64 pl_sample_weight(const PlSampleCtx *c, const PlSample *s)
{
	return c[s->ctx].weight;
}
/* Counter series: event index → GArray of PlCounterPoint; NULL when none. */
GArray *pl_profile_get_counter(PlProfile *self, guint32 event);
/* Event indices that have counter series, sorted. */
GArray *pl_profile_dup_counter_events(PlProfile *self);

/* ─── thread creation ────────────────────────────────────────────────── */

/* The stack that created thread tid (an address-trie leaf: walk it with
 * pl_profile_get_stack_frame, or pl_profile_dup_stack_functions), or
 * PL_NO_ID.  Then *why (if why) says why, owned by the profile:
 *   NULL  the thread existed before the session started (no FORK seen);
 *   else  a sentence: the agent could not record creations (its reason),
 *         the recording predates creation stacks, or the sample was lost.
 * Pairing: the agent's creation samples (pid/tid of the parent) follow
 * the child's FORK record; each goes to the latest FORK by that parent
 * thread at most 100 ms before it that has no stack yet. */
guint32 pl_profile_thread_creation_stack(PlProfile *self, guint32 tid, const char **why);
/* The functions of an address stack, innermost first (inline frames
 * expanded), as PlFunction ids; at most max (0: all).  New GArray of
 * guint32. */
GArray *pl_profile_dup_stack_functions(PlProfile *self, guint32 stack, guint max);

/* ─── aggregation ────────────────────────────────────────────────────── */

typedef struct {
	guint32 tid;   /* 0: every thread */
	guint32 event; /* PL_NO_ID: every event */
	guint64 t0, t1; /* sample time in [t0, t1); t1 == 0: no upper bound */
} PlFilter;
#define PL_FILTER_ALL ((PlFilter){ 0, PL_NO_ID, 0, 0 })

/* Whether what thread tid did at time t is f's by its thread and range
 * (its event is not looked at); a NULL filter keeps everything. */
static inline gboolean pl_filter_keeps(const PlFilter *f, guint32 tid, guint64 t)
{
	if (!f)
		return TRUE;
	if (f->tid && tid != f->tid)
		return FALSE;
	return t >= f->t0 && (!f->t1 || t < f->t1);
}

/* Sets *to to from's thread and range, every event (the pages that follow
 * the window's pick read events, not samples of its event); TRUE when that
 * changed *to. */
static inline gboolean pl_filter_take_range(PlFilter *to, const PlFilter *from)
{
	if (from->tid == to->tid && from->t0 == to->t0 && from->t1 == to->t1)
		return FALSE;
	*to = (PlFilter){ from->tid, PL_NO_ID, from->t0, from->t1 };
	return TRUE;
}

typedef struct {
	PlProfile *profile;
	PlFilter filter;
	PlCount all;     /* every selected sample */
	guint n_nodes;
	PlCount *self;   /* per call-tree node */
	PlCount *total;
	guint n_functions;
	PlCount *func_self;  /* per function: leaf samples */
	PlCount *func_total; /* per function: samples with it anywhere (recursion once) */
	guint n_locations;
	PlCount *line_self;  /* per location: innermost frame's line */
	PlCount *line_total; /* per location: any frame's line (once per sample) */
	GHashTable *threads; /* tid → PlCount* */
	/* added later (appended, so older users are unaffected): */
	guint n_stacks;
	PlCount *stack_self; /* per address stack (PlSample.stack): samples ending there */
	guint32 *node_map;   /* with a stack filter: plain call-tree node → shown node
			      * (PL_NO_ID: left out); NULL without one */
} PlAggregate;

PlAggregate *pl_profile_aggregate(PlProfile *self, const PlFilter *filter);
void pl_aggregate_free(PlAggregate *agg);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlAggregate, pl_aggregate_free)

typedef struct {
	guint32 id; /* function or location */
	PlCount self, total;
} PlRow;

/* Functions with samples, sorted by weight (by_total: total, else self)
 * then name.  GArray of PlRow. */
GArray *pl_aggregate_functions(PlAggregate *agg, gboolean by_total);
/* Callers (who called func) and callees (what func called), with the
 * weight of the paths through them; GArray of PlRow (.total set), sorted. */
GArray *pl_aggregate_callers(PlAggregate *agg, guint32 func);
GArray *pl_aggregate_callees(PlAggregate *agg, guint32 func);
/* Source lines with samples, sorted by self weight.  GArray of PlRow whose
 * id is a location. */
GArray *pl_aggregate_lines(PlAggregate *agg);
/* Calls func for every call-tree node with self samples, with the node's
 * path from the root (function ids, outermost first). */
typedef void (*PlStackFunc)(const guint32 *funcs, guint depth, const PlCount *self,
			    gpointer user_data);
void pl_aggregate_foreach_stack(PlAggregate *agg, PlStackFunc func, gpointer user_data);

/* ─── address stacks and modules ─────────────────────────────────────── */

/* One node of the address trie (PlSample.stack is a leaf of it). */
typedef struct {
	guint64 pc;        /* 0 at a root */
	guint32 parent;    /* the caller's stack id; PL_NO_ID at a root */
	guint32 pid;
	guint32 event;
	guint32 node;      /* call-tree node of this address's innermost frame */
	gboolean is_return; /* pc is a return address (symbolize pc - 1) */
	gboolean kernel;
	gboolean root;
} PlStackFrame;
guint pl_profile_get_n_stacks(PlProfile *self);
gboolean pl_profile_get_stack_frame(PlProfile *self, guint32 stack, PlStackFrame *out);

/* A mapped file as the recording named it. */
typedef struct {
	const char *name;     /* basename: PlFunction.module */
	const char *path;     /* on the board */
	const char *build_id; /* lower-case hex, NULL when not sent */
} PlModule;
/* PlModule*, in order of first mapping (borrowed). */
GPtrArray *pl_profile_get_modules(PlProfile *self);
/* By basename (PlFunction.module); the first one of that name; NULL when none. */
const PlModule *pl_profile_lookup_module(PlProfile *self, const char *name);

/* ─── per-address counts (annotated disassembly, source of a function) ── */

typedef struct {
	const char *module;  /* basename, as PlFunction.module */
	guint64 rel_addr;    /* ELF virtual address (PlFrameInfo.rel_addr) */
	guint64 lookup_addr; /* the byte inside the instruction: rel_addr - 1 for a
			      * return address (the call), else rel_addr */
	const char *outer;   /* the real (non-inlined) function at that address */
	const char *file;    /* the line of func's own frame there, NULL if none */
	guint line;
	PlCount self;  /* samples taken at this address (func or code inlined into it) */
	PlCount total; /* samples with func's frame at this address on the stack */
} PlAddrRow;
/* Every sampled address where a frame of func's source function (its name
 * and defining file, inlined or not) runs or calls from, sorted by
 * (module, lookup_addr).
 * GArray of PlAddrRow; strings owned by the profile. */
GArray *pl_aggregate_addresses(PlAggregate *agg, guint32 func);

/* ─── off-CPU: switch reasons and runqueue latency (pl-offcpu.c) ─────── */

typedef struct {
	guint64 preempted, voluntary;       /* off-CPU intervals by reason */
	guint64 preempted_ns, voluntary_ns; /* time spent off-CPU by reason */
	/* runqueue latency: from a preempted switch-out to that thread's next
	 * switch-in (it was runnable all along); percentiles over the
	 * preempted intervals, 0 when there are none */
	guint64 rq_p50, rq_p90, rq_p99, rq_max;
} PlSwitchStats;
/* Over the off-CPU intervals of thread tid (0: every thread) that start in
 * [t0, t1) (t1 0: no bound).  Only intervals closed by a switch-in count
 * for latency (the one open at the end of the recording does not). */
void pl_profile_switch_stats(PlProfile *self, guint32 tid, guint64 t0, guint64 t1,
			     PlSwitchStats *out);

/* ─── health and losses over time ────────────────────────────────────── */

/* Every HEALTH report (the agent sends one a second), in arrival order;
 * times are the agent's CLOCK_MONOTONIC, the clock of its samples.  Up to
 * PL_MAX_HEALTH_POINTS; later ones only update stats->health.  Borrowed;
 * invalidated by the next ingest. */
#define PL_MAX_HEALTH_POINTS 200000u
const struct pl_msg_health *pl_profile_get_health_series(PlProfile *self, guint *n);

/* LOST and THROTTLE records over time, in arrival order (not sorted: the
 * agent emits them per CPU ring).  Past PL_MAX_LOSS_MARKS counts fold into
 * the last mark. */
#define PL_LOSS_THROTTLE 255 /* kind of a throttle mark; others: enum pl_lost_kind */
#define PL_MAX_LOSS_MARKS (1u << 20)
typedef struct {
	guint64 time;
	guint64 count;
	guint8 kind;
} PlLossMark;
const PlLossMark *pl_profile_get_loss_marks(PlProfile *self, guint *n);

/* The agent's reads of /proc/interrupts and /proc/softirqs at a --irq
 * session's start and end (pl-proc-irq-reads.h); never NULL. */
const PlProcIrqReads *pl_profile_get_proc_irq_reads(PlProfile *self);

/* A flight recorder trigger (msg.h, TRIGGER) that fired in the capture:
 * what fired, when, and the window the snapshot was asked to hold
 * (profile times, ns).  Strings are owned by the profile. */
typedef struct {
	guint64 time, from, to;
	guint8 kind; /* enum pl_trigger_kind */
	char *spec, *detail;
} PlTrigger;
const PlTrigger *pl_profile_get_triggers(PlProfile *self, guint *n);

/* The counter tracks (pl-counter-tracks.h), owned by the profile. */
PlCounterTracks *pl_profile_get_counter_tracks(PlProfile *self);

/* ─── unwinding quality (pl-unwind-quality.c) ────────────────────────── */

/* Why a sample's stack stops short of the program's or a thread's start,
 * told for the module its outermost frame is in. */
typedef enum {
	PL_STOP_NOT_UNWOUND, /* dwarf: nothing unwound, only the sampled address */
	PL_STOP_NO_FILE,     /* dwarf: no file here for the module, so no CFI */
	PL_STOP_NO_CFI,      /* dwarf: the file has no .eh_frame/.debug_frame/EHABI */
	PL_STOP_STACK_COPY,  /* dwarf: the walk ran to the end of the copied stack */
	PL_STOP_CFI_ENDED,   /* dwarf: the CFI led no further */
	PL_STOP_FP_ENDED,    /* frame pointers: the kernel's chain ended there */
	PL_STOP_DEPTH,       /* more frames than a stack holds (PL_MAX_CALLCHAIN) */
	PL_N_STOPS
} PlUnwindStop;

typedef struct {
	const char *module;            /* basename, as PlFunction.module */
	guint64 stopped;               /* samples whose stack ends in it, short */
	guint64 by_stop[PL_N_STOPS];
	PlUnwindStop main_stop;        /* the most frequent reason */
	/* samples whose stack ends in it at a start no name marks: rooted,
	 * not in stopped.  A thread's start in a libc whose start_thread has
	 * neither name nor unwind table, as Debian armhf's (at least 90 % of
	 * the stacks of a thread that is not a main thread, and at least 10,
	 * end at one return address in libc where no function is named), or
	 * a process's start-up in a stripped dynamic loader (its main
	 * thread's stacks that end in the loader before the first that ends
	 * elsewhere) */
	guint64 at_start;
	guint start_threads;   /* the threads whose start that is (libc) */
	guint start_processes; /* the processes whose start-up (the loader) */
} PlUnwindModule;

/* Modules where stacks stopped short (or ended at a start no name marks:
 * at_start), most samples stopped first; reasons read with
 * the symbol coverage (a module without its file or its CFI says so).
 * New GArray of PlUnwindModule (strings owned by the profile). */
GArray *pl_profile_dup_unwind_stops(PlProfile *self);
/* One line on what the reason means and what to do about it. */
const char *pl_unwind_stop_describe(PlUnwindStop stop);
/* The share (0..100) of samples with user frames whose stack is rooted
 * (by a start's name, a finished DWARF walk, or a start no name marks:
 * PlUnwindModule.at_start); 100 when there are none.  What
 * `report --fail-if 'unwound<N%'` and the findings' unwound rule judge. */
double pl_profile_get_unwound_share(PlProfile *self);
/* Whether a function of this label begins stacks (a program's entry, main,
 * a thread's start): a stack whose outermost frame is one is rooted. */
gboolean pl_unwind_is_root_name(const char *label);

/* The toolchain prefix the profile was opened with (gives PREFIXobjdump),
 * NULL for the host's tools. */
const char *pl_profile_get_toolchain_prefix(PlProfile *self);

G_END_DECLS

#endif
