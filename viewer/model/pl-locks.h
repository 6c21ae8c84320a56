/* pl-locks.h — lock contention: the futex waits of a recording, grouped
 * by lock (process and futex word address), each paired with the
 * FUTEX_WAKE that released it ("who held it").
 *
 * What is recorded (`perflens record --locks`, the Record form's "Lock
 * contention"): the tracepoints pl_locks_events() names, as any other
 * tracepoint (PlTraceEvent with its raw payload and its stack):
 *   syscalls:sys_enter_futex  uaddr, op, val: a wait (FUTEX_WAIT…, LOCK_PI)
 *                             or a wake (FUTEX_WAKE…, UNLOCK_PI) begins;
 *   syscalls:sys_exit_futex   ret: the call that thread was in ends;
 *   sched:sched_waking        in the waker's context: which thread it wakes.
 * Nothing here needs the agent's help: the fields are decoded with the
 * format files the agent sent, so the same code reads every architecture.
 *
 * Pairing (pl_locks_pair, a pure function over decoded events):
 *   - a wait is a thread's futex call of a wait op, from its entry to its
 *     exit (ret 0: woken; -EAGAIN: the word had changed, no sleep;
 *     -ETIMEDOUT, -EINTR);
 *   - its releaser is the wake call on the same (process, uaddr) that woke
 *     it: the one the sched_waking of that thread (pid = waiter) names by
 *     its waker's tid, the waker's latest wake call on that word before
 *     the waking; without a sched_waking in the wait, the latest wake call
 *     on that word by another thread that entered during the wait;
 *   - "held by": the wait's time is charged to the threads whose wake
 *     calls on that word fall inside it, each the slice from the previous
 *     one (or the wait's start) to its own entry; what follows the last
 *     one (the waiter being scheduled again) goes to that last one.  With
 *     glibc's mutex, the thread that held a lock 5 ms while three waited
 *     is charged those 5 ms three times, the waiters passing the lock on
 *     to each other only microseconds.
 *   - futex_waitv waits on several words and returns the index of the one
 *     woken (the last in its array, when two were released before the
 *     waiter ran): its word is the one of the wake call that woke it
 *     (sched_waking in the waker's context, the waker's latest wake call
 *     of that process before it), unless the process woke other words
 *     before the waiter's exit: then the word the same index had at the
 *     same call site (tid, stack) in the waits where the process woke one
 *     word only (waitv_words); a futex_waitv that did not sleep, or whose
 *     waking was not seen, is grouped under uaddr 0 ("futex_waitv, word
 *     not known").
 * Grouping: by (pid, uaddr): a private futex is one word in one process.
 * A lock is named by the data symbol that holds the address (a global
 * mutex) when the address lies in a mapped object's symbols.
 *
 * No GTK.  Owned results; strings are the structs' own. */
#ifndef PL_LOCKS_H
#define PL_LOCKS_H

#include <glib.h>

#include "pl-profile.h"
#include "pl-tracepoint.h"

G_BEGIN_DECLS

/* The events to record, NULL-terminated (what --locks adds). */
const char *const *pl_locks_events(void);
/* How many of pl_locks_events() a kernel of that release has (the first
 * ones): futex_waitv's from 5.16, futex_wait's and futex_wake's from 6.7;
 * an unreadable release: futex(2)'s only. */
guint pl_locks_events_for(const char *kernel_release);

/* ─── decoded events, the pairing's input ─────────────────────────────── */

typedef enum {
	PL_FUTEX_ENTER, /* sys_enter_futex: op, uaddr, val */
	PL_FUTEX_EXIT,  /* sys_exit_futex: ret */
	PL_FUTEX_WAKING /* sched_waking: tid is the waker, wakee the woken */
} PlFutexKind;

typedef struct {
	guint64 time;
	guint32 pid, tid;
	guint32 stack; /* PlSample.stack, PL_NO_ID when none */
	guint8 kind;   /* PlFutexKind */
	guint32 op;    /* the futex op (with its flags) */
	guint64 uaddr;
	guint32 val;
	gint64 ret;
	guint32 wakee;
} PlFutexEvent;

/* The futex2 calls as ops of their own, beside futex(2)'s (op & 0xff00
 * is 0 for those): futex_wait, futex_wake and futex_waitv, with the
 * FUTEX2_PRIVATE flag (128, FUTEX_PRIVATE_FLAG's bit). */
#define PL_FUTEX2_WAIT 0x1000u
#define PL_FUTEX2_WAKE 0x1001u
#define PL_FUTEX2_WAITV 0x1002u

/* The op with FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME masked off is a
 * wait (WAIT, WAIT_BITSET, LOCK_PI, LOCK_PI2, WAIT_REQUEUE_PI) or a wake
 * (WAKE, WAKE_BITSET, WAKE_OP, UNLOCK_PI, REQUEUE, CMP_REQUEUE). */
gboolean pl_futex_op_is_wait(guint32 op);
gboolean pl_futex_op_is_wake(guint32 op);
/* "FUTEX_WAIT_PRIVATE"…, "op 0x…" for one unknown.  Static or buf. */
const char *pl_futex_op_name(guint32 op, char *buf, gsize len);

/* ─── the result ───────────────────────────────────────────────────────── */

typedef struct {
	guint64 start, end; /* the wait call's entry and exit */
	guint32 pid, tid;   /* the waiter */
	guint64 uaddr;
	guint32 op;
	gint64 ret;
	guint32 stack;        /* the waiter's, at entry */
	guint32 lock;         /* index in PlLocks.locks */
	/* the wake call that released it; waker_tid 0 when none was seen */
	guint32 waker_tid;
	guint64 wake_time;    /* its entry */
	guint32 waker_stack;  /* PL_NO_ID when none */
	gboolean by_waking;   /* paired through sched_waking, not by time alone */
	/* futex_waitv: the index of the word that woke it (the call's return),
	 * -1 otherwise; its uaddr is that word, taken from the wake calls (the
	 * words lie in a user array no tracepoint copies), 0 when not known */
	gint32 woken_index;
} PlLockWait;

/* Who a lock's wait time is charged to: a thread and its stack at the wake
 * call ("held by"), PL_NO_ID / tid 0 for the time no wake call explains. */
typedef struct {
	guint32 tid;
	guint32 stack;
	guint64 ns;
	guint wakes; /* wake calls of this thread and stack that ended slices */
} PlLockHolder;

#define PL_LOCK_HIST 64 /* bucket b: waits of [2^b, 2^(b+1)) ns */

typedef struct {
	guint32 pid;
	guint64 uaddr;
	char *name;      /* the data symbol at uaddr ("lock_a", "lock_a+8"), NULL when none */
	char *module;    /* the object it lies in, NULL when none */
	guint waits;     /* wait calls */
	guint slept;     /* of them, woken (ret 0) */
	guint64 total_ns, max_ns;
	guint wake_calls; /* wake calls on it */
	guint hist[PL_LOCK_HIST];
	GArray *holders; /* PlLockHolder, most time first */
	GArray *waiters; /* PlLockHolder of the waiting threads (stack: PL_NO_ID), most time first */
} PlLock;

typedef struct {
	GArray *locks;  /* PlLock, most wait time first */
	GArray *waits;  /* PlLockWait, by start */
	guint unended;  /* wait entries with no exit (the recording ended inside) */
	guint orphan_exits; /* exits with no entry (began before the recording) */
	guint64 futex_events; /* events read */
	gboolean recorded; /* the recording has the futex tracepoints */
} PlLocks;

/* Pairs events given in time order (ties: in the order given).  pid of an
 * event 0: its tid's process unknown; groups by tid then.  Locks unnamed. */
PlLocks *pl_locks_pair(const PlFutexEvent *ev, guint n);
/* The futex events of a profile decoded, paired, and the locks named by
 * the profile's symbols. */
PlLocks *pl_locks_new(PlProfile *profile);
/* The same, of the waits of filter->tid (the waiter; 0: every thread)
 * whose entry lies in [filter->t0, filter->t1) (t1 0: no upper bound),
 * as the window's thread and range select them; each still paired with
 * every wake call of the recording.  filter->event is not used.  NULL:
 * every wait. */
PlLocks *pl_locks_new_filtered(PlProfile *profile, const PlFilter *filter);
/* pl_locks_pair of the filter's waits (as above). */
PlLocks *pl_locks_pair_filtered(const PlFutexEvent *ev, guint n, const PlFilter *filter);
void pl_locks_free(PlLocks *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlLocks, pl_locks_free)

/* The histogram's bucket of a wait of ns. */
guint pl_lock_hist_bucket(guint64 ns);

/* Each wait that slept as an interval [start, end] on its thread (depth 0,
 * named "wait for LOCK, held by NAME TID" PL_LOCK_WAIT_SUFFIX, the holder
 * being the thread whose wake call released it, or "wait for LOCK, no
 * release seen"), added to m->intervals, which stay sorted by start;
 * returns how many. */
guint pl_markers_add_lock_waits(PlMarkers *m, PlProfile *profile);
#define PL_LOCK_WAIT_SUFFIX " (lock wait)"
/* "lock_a (0x55…)" or "0x55…": the label of a lock.  New string. */
char *pl_lock_dup_label(const PlLock *lock);

G_END_DECLS

#endif
