/* pl-profile-private.h — what the files of viewer/model share beyond
 * pl-profile.h: the profile's struct and the internals its files call
 * across, interning into the profile's function and call-tree tables (the
 * stack filter builds its rewritten tree there) and the aggregation over
 * such a rewritten tree.  Not installed; included by .c files only.
 *
 *   pl-profile.c            the object: new/free, symbolizer, stats;
 *                           processes, threads, events (found or created by
 *                           id) and the accessors of what it keeps
 *   pl-profile-ingest.c     messages in: reorder window (pl-reorder.c), dispatch, COMM /
 *                           TASK / SWITCH, counters, losses, finish
 *   pl-profile-samples.c    SAMPLE: a sample's stack (callchain, DWARF
 *                           unwind) and the timeline; creation samples
 *   pl-stack-table.c        interning: functions, call-tree nodes,
 *                           locations, the address trie (pl-id-table.c)
 *   pl-modules.c            the mapped files (PlModule)
 *   pl-profile-aggregate.c  aggregates and the tables built from them
 *
 * Calls go one way: ingest → samples → stack table → the object →
 * modules and the id table; the aggregate and pl-stack-filter.c read the
 * tables and call down too, nothing calls up. */
#ifndef PL_PROFILE_PRIVATE_H
#define PL_PROFILE_PRIVATE_H

#include "pl-id-table.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define MAX_INLINE 32 /* frames one address expands to */

enum { AF_RETURN = 1, AF_KERNEL = 2, AF_ROOT = 4 };

typedef struct {
	guint32 parent;
	guint32 fnode;     /* call-tree node of the innermost frame of this address */
	guint32 loc_first; /* into self->node_locs */
	guint16 loc_n;
	guint16 event;
	guint64 pc;        /* the address (a root: the pid) */
	guint8 flags;      /* AF_* */
} AddrNode;

/* A stack seen before: its hash and address-trie leaf (pl-profile-samples.c). */
typedef struct {
	guint64 hash;
	guint32 leaf;
} PlStackMemo;
#define PL_STACK_MEMO_SIZE (1u << 16)

/* A call chain by its load-wide serial (pl-chain-store.h): the stack it
 * gave last, for the event, pid and mode it came with
 * (pl-profile-samples.c).  leaf PL_NO_ID: none yet. */
typedef struct {
	guint32 pid;
	guint32 leaf, outer;
	guint16 event;
	guint16 n;     /* frames */
	guint8 kernel; /* the sample's cpumode said kernel */
	guint8 user;   /* a frame outside the kernel */
} PlSerialMemo;

struct _PlProfile {
	PlSymOptions opts;
	PlSymbols *syms;
	PlTargetArch arch;
	gboolean have_arch;
	GStringChunk *strings;

	GArray *funcs; /* PlFunction */
	PlIdTable func_tab;
	GPtrArray *func_labels; /* char*, lazily */
	gboolean short_names;   /* labels with C++ templates and parameters folded */
	/* pl_function_names_label(): the names of every function, made for
	 * shown_n functions and shown_short, and per function its label
	 * (lazily, in strings) */
	struct _PlFunctionNames *shown_names;
	GDestroyNotify shown_names_free; /* set with it: the profile frees it
					  * without calling into its file */
	GPtrArray *shown_labels;
	guint shown_n;
	gboolean shown_short;
	GArray *nodes; /* PlNode */
	GArray *last_child; /* guint32 per node: append children in order */
	PlIdTable node_tab;
	GArray *addrs; /* AddrNode */
	PlIdTable addr_tab;
	GArray *locs; /* PlLocation */
	PlIdTable loc_tab;
	GArray *node_locs; /* guint32 location ids, innermost first per addr node */

	GArray *samples; /* PlSample */
	GArray *sample_ctx;  /* PlSampleCtx, each (tid, weight) once */
	PlIdTable ctx_tab;   /* (tid, weight) → index in sample_ctx */
	guint32 last_ctx;    /* the last one interned: samples come in runs */
	GArray *trace_events;    /* PlTraceEvent (pl-tracepoint.h), not CPU samples */
	GByteArray *trace_raw;   /* their payloads, one after the other */
	GHashTable *trace_formats; /* event index → PlTraceFormat* */
	GPtrArray *modules;       /* PlModule*, in order of first mapping */
	GHashTable *module_names; /* basename → PlModule* (the first of that name) */
	GHashTable *threads;   /* tid → PlThread* */
	GHashTable *processes; /* pid → PlProcess* */
	GHashTable *events;    /* index → PlEvent* */
	GHashTable *counters;  /* event index → GArray<PlCounterPoint> */
	GHashTable *forks;     /* parent tid → ForkMark: its latest child without a stack */
	GHashTable *unwind_stops; /* module basename → guint64[PL_N_STOPS] (pl-unwind-quality.c) */
	GArray *uq_top;      /* guint32 per call-tree node: its outermost function (pl-unwind-quality.c) */
	GByteArray *uq_root; /* per function: 0 not known yet, 1 a stack's root, 2 not */
	struct PlUnwindStarts *uq_starts; /* made at the first ask (pl-unwind-starts.c) */
	GDestroyNotify uq_starts_free;    /* set with it: the profile calls no file above it */
	PlThread *last_thread; /* the last pl_profile_thread_get found */
	PlEvent *last_event;   /* the last pl_profile_event_get found, for last_event_index */
	guint32 last_event_index;
	PlStackMemo *stack_memo; /* PL_STACK_MEMO_SIZE, made at the first sample */
	GArray *serial_memo;     /* PlSerialMemo by chain serial; made at the first */
	GHashTable *perf_map_partial; /* pids whose perf map is still coming: resolved
				       * again at the end (a torn capture) */
	GPtrArray *sorted_threads, *sorted_processes, *sorted_events;
	PlProfileStats stats;
	GArray *health;     /* struct pl_msg_health, in arrival order (capped) */
	GArray *loss_marks; /* PlLossMark, in arrival order (capped) */
	GArray *triggers;   /* PlTrigger, in arrival order (capped) */
	PlProcIrqReads *proc_irq_reads;
	struct _PlCounterTracks *counter_tracks;
	/* the ingest order (pl-time-order.h) */
	struct _PlTimeOrder *order;
	guint64 pcs[PL_MAX_CALLCHAIN + 8];
	guint8 pc_flags[PL_MAX_CALLCHAIN + 8];
};

/* A FORK waiting for its creation sample (pl_profile_thread_creation_stack),
 * and a creation sample waiting for its FORK: the two are stamped by
 * different kernel paths, and the sample's time may come first, by up to
 * 289 ns seen on a 6.18 VM (the ingest is in time order). */
typedef struct {
	guint32 child;
	guint64 time;
	gboolean early;	    /* a creation sample came before its FORK: */
	guint32 early_stack; /* its stack */
	guint64 early_time;
} ForkMark;
#define CREATION_MAX_DELAY_NS (100ull * 1000 * 1000)
#define CREATION_EARLY_NS (10ull * 1000)

/* ─── pl-profile.c ───────────────────────────────────────────────────── */

/* Widens the stats' first/last time to t (0: unknown, ignored). */
void pl_profile_see_time(PlProfile *self, guint64 t);
/* Found, or created empty (a thread creates its process too). */
PlProcess *pl_profile_process_get(PlProfile *self, guint32 pid);
PlThread *pl_profile_thread_get(PlProfile *self, guint32 pid, guint32 tid);
/* Found, or created as "eventN"; past 4096 events every new index is 4095. */
PlEvent *pl_profile_event_get(PlProfile *self, guint32 index);

/* ─── pl-profile-samples.c ───────────────────────────────────────────── */

void pl_profile_ingest_sample(PlProfile *self, const struct pl_msg_sample *s);
/* The index in sample_ctx of (tid, weight), added when new. */
guint32 pl_profile_sample_ctx_intern(PlProfile *self, guint32 tid, guint64 weight);
/* A new pair for a weight no other sample has (an off-CPU time): not
 * interned, so a session of many switches holds no table of them. */
guint32 pl_profile_sample_ctx_add(PlProfile *self, guint32 tid, guint64 weight);

/* ─── pl-stack-table.c ───────────────────────────────────────────────── */

/* Existing id, or a new function / node appended to the profile's tables
 * (ids of existing ones never change, so earlier aggregates stay valid). */
guint32 pl_profile_function_intern(PlProfile *self, const char *name, const char *module,
				   gboolean inlined, const char *file, guint line);
guint32 pl_profile_node_intern(PlProfile *self, guint32 parent, guint32 func);
/* The address-trie root of (event, pid), and the child of parent for pc
 * (flags: AF_*), symbolized the first time it is seen. */
guint32 pl_profile_addr_root(PlProfile *self, guint32 event, guint32 pid);
guint32 pl_profile_addr_intern(PlProfile *self, guint32 parent, guint32 pid, guint64 pc,
			       guint8 flags);
/* pid's perf map has arrived whole: its addresses are named again. */
void pl_profile_addrs_resolve_again(PlProfile *self, guint32 pid);

/* ─── pl-unwind-quality.c ───────────────────────────────────────────── */

/* How a CPU sample's user stack was obtained and how its walk ended. */
typedef enum {
	UQ_DWARF_DONE,      /* the unwinder reached a frame with no caller */
	UQ_DWARF_FAILED,    /* nothing unwound */
	UQ_DWARF_COPY_FULL, /* cut short, and the whole stack copy was used */
	UQ_DWARF_ENDED,     /* cut short otherwise */
	UQ_CHAIN,           /* the kernel's frame-pointer chain: judged by its end */
} UqWalk;
/* Counts one sample: outer is the address-trie node of its outermost
 * frame, n its number of frames, user whether any frame is in user space
 * (kernel-only stacks are not counted). */
void pl_profile_note_unwind(PlProfile *self, guint32 outer, guint n, gboolean user, UqWalk walk);

/* ─── pl-unwind-starts.c ─────────────────────────────────────────────── */

/* Stacks that reached a start no name marks: a thread's, at one return
 * address in libc where no function is named (Debian armhf's stripped
 * start_thread), or a process's start-up in a stripped dynamic loader,
 * before main (the file says how each is told). */
typedef struct PlUnwindStarts PlUnwindStarts;
typedef struct {
	guint64 stacks;   /* samples whose stack ends there */
	guint threads;    /* the threads they are of (libc) */
	guint processes;  /* or the processes whose start-up they are (the loader) */
} PlThreadStarts;
/* module basename (PlFunction.module) → PlThreadStarts, for the modules
 * holding such a start; brought up to date with the samples (each sample
 * is read once).  Borrowed: valid until the next call. */
GHashTable *pl_profile_thread_starts(PlProfile *self);

/* ─── pl-modules.c ───────────────────────────────────────────────────── */

void pl_profile_note_module(PlProfile *self, const char *path, const guint8 *id, gsize id_len);
void pl_profile_module_free(gpointer p); /* a PlModule, for self->modules */

/* ─── pl-profile-aggregate.c ─────────────────────────────────────────── */

/* As pl_profile_aggregate, but each stack's call-tree leaf n is counted at
 * node_map[n] instead (PL_NO_ID: the sample is left out).  node_map has
 * one entry per node at the time of the call and is taken (freed with the
 * aggregate); NULL: the plain tree. */
PlAggregate *pl_profile_aggregate_mapped(PlProfile *self, const PlFilter *filter,
					 guint32 *node_map);

G_END_DECLS

#endif
