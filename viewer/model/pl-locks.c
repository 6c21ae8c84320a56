/* pl-locks.c — futex waits paired with the wakes that ended them, grouped
 * by lock (pl-locks.h). */
#include "pl-locks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The futex(2) tracepoints, then futex_waitv's (Linux 5.16), then
 * futex_wait's and futex_wake's (6.7): a kernel without a tracepoint would
 * refuse the whole recording, so the list is cut by the kernel's release.
 * futex_wake's exit is not needed (a wake is paired by its entry), nor
 * futex_requeue's: its words lie in a user array no tracepoint copies. */
enum { EV_FUTEX_ENTER, EV_FUTEX_EXIT, EV_WAKING, EV_WAITV_ENTER, EV_WAITV_EXIT,
       EV_WAIT_ENTER, EV_WAIT_EXIT, EV_WAKE_ENTER, EV_COUNT };
static const char *const lock_events[] = {
	"syscalls:sys_enter_futex",
	"syscalls:sys_exit_futex",
	"sched:sched_waking",
	"syscalls:sys_enter_futex_waitv",
	"syscalls:sys_exit_futex_waitv",
	"syscalls:sys_enter_futex_wait",
	"syscalls:sys_exit_futex_wait",
	"syscalls:sys_enter_futex_wake",
	NULL,
};

const char *const *pl_locks_events(void)
{
	return lock_events;
}

guint pl_locks_events_for(const char *kernel_release)
{
	guint major = 0, minor = 0;
	if (!kernel_release || sscanf(kernel_release, "%u.%u", &major, &minor) != 2)
		return EV_WAITV_ENTER;
	if (major > 6 || (major == 6 && minor >= 7))
		return EV_COUNT;
	if (major == 6 || (major == 5 && minor >= 16))
		return EV_WAIT_ENTER;
	return EV_WAITV_ENTER;
}

/* ─── futex ops (include/uapi/linux/futex.h) ──────────────────────────── */

#define FUTEX_CMD_MASK (~(128u | 256u)) /* ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME) */

static const char *const op_names[] = {
	"FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_FD", "FUTEX_REQUEUE", "FUTEX_CMP_REQUEUE",
	"FUTEX_WAKE_OP", "FUTEX_LOCK_PI", "FUTEX_UNLOCK_PI", "FUTEX_TRYLOCK_PI",
	"FUTEX_WAIT_BITSET", "FUTEX_WAKE_BITSET", "FUTEX_WAIT_REQUEUE_PI",
	"FUTEX_CMP_REQUEUE_PI", "FUTEX_LOCK_PI2",
};

gboolean pl_futex_op_is_wait(guint32 op)
{
	switch (op & FUTEX_CMD_MASK) {
	case 0: case 6: case 9: case 11: case 13: case PL_FUTEX2_WAIT: case PL_FUTEX2_WAITV:
		return TRUE;
	}
	return FALSE;
}

gboolean pl_futex_op_is_wake(guint32 op)
{
	switch (op & FUTEX_CMD_MASK) {
	case 1: case 3: case 4: case 5: case 7: case 10: case PL_FUTEX2_WAKE:
		return TRUE;
	}
	return FALSE;
}

const char *pl_futex_op_name(guint32 op, char *buf, gsize len)
{
	guint32 cmd = op & FUTEX_CMD_MASK;
	static const char *const calls[] = { "futex_wait", "futex_wake", "futex_waitv" };
	if (cmd >= PL_FUTEX2_WAIT && cmd <= PL_FUTEX2_WAITV) {
		g_snprintf(buf, len, "%s%s", calls[cmd - PL_FUTEX2_WAIT],
			   op & 128 ? " (FUTEX2_PRIVATE)" : "");
		return buf;
	}
	if (cmd >= G_N_ELEMENTS(op_names)) {
		g_snprintf(buf, len, "op 0x%x", op);
		return buf;
	}
	g_snprintf(buf, len, "%s%s%s", op_names[cmd], op & 128 ? "_PRIVATE" : "",
		   op & 256 ? "|FUTEX_CLOCK_REALTIME" : "");
	return buf;
}

guint pl_lock_hist_bucket(guint64 ns)
{
	return ns ? 63 - (guint)__builtin_clzll(ns) : 0;
}

/* ─── pairing ──────────────────────────────────────────────────────────── */

typedef struct {
	guint32 pid;
	guint64 uaddr;
} LockKey;

static guint key_hash(gconstpointer p)
{
	const LockKey *k = p;
	return g_int64_hash(&k->uaddr) ^ (k->pid * 2654435761u);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	const LockKey *x = a, *y = b;
	return x->pid == y->pid && x->uaddr == y->uaddr;
}

typedef struct {
	guint64 time; /* entry */
	guint32 tid, stack;
} WakeCall;

typedef struct {
	guint64 time;
	guint32 waker;
} Waking;

/* A thread's wake call on any word, for futex_waitv's word */
typedef struct {
	guint64 time;
	guint64 uaddr;
	guint32 pid;
} AnyWake;

/* A lock's wake calls (by entry time) and its index in the result. */
typedef struct {
	GArray *wakes; /* WakeCall */
	guint lock;
} LockState;

static void lock_state_free(gpointer p)
{
	LockState *s = p;
	g_array_unref(s->wakes);
	g_free(s);
}

static void lock_clear(gpointer p)
{
	PlLock *l = p;
	g_free(l->name);
	g_free(l->module);
	g_clear_pointer(&l->holders, g_array_unref);
	g_clear_pointer(&l->waiters, g_array_unref);
}

void pl_locks_free(PlLocks *l)
{
	if (!l)
		return;
	g_array_free(l->locks, TRUE);
	g_array_free(l->waits, TRUE);
	g_free(l);
}

/* The first index of a (sorted by time) whose time is > t. */
static guint wake_upper(GArray *a, guint64 t)
{
	guint lo = 0, hi = a->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (g_array_index(a, WakeCall, mid).time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds ns to the row of (tid, stack) of rows, indexed by index. */
static void charge(GArray *rows, GHashTable *index, guint32 tid, guint32 stack, guint64 ns,
		   guint wakes)
{
	guint64 key = ((guint64)tid << 32) | stack;
	gpointer v;
	if (!g_hash_table_lookup_extended(index, &key, NULL, &v)) {
		PlLockHolder h = { tid, stack, 0, 0 };
		g_array_append_val(rows, h);
		v = GUINT_TO_POINTER(rows->len - 1);
		g_hash_table_insert(index, g_memdup2(&key, sizeof(key)), v);
	}
	PlLockHolder *h = &g_array_index(rows, PlLockHolder, GPOINTER_TO_UINT(v));
	h->ns += ns;
	h->wakes += wakes;
}

/* The releaser of w among the lock's wake calls (see the header). */
static void find_waker(PlLockWait *w, GArray *wakes, GHashTable *wakings)
{
	w->waker_stack = PL_NO_ID;
	if (w->ret != 0 || !wakes)
		return;
	GArray *wk = g_hash_table_lookup(wakings, GUINT_TO_POINTER(w->tid));
	for (guint i = wk ? wk->len : 0; i-- > 0;) {
		const Waking *k = &g_array_index(wk, Waking, i);
		if (k->time > w->end)
			continue;
		if (k->time < w->start)
			break;
		/* the waker's latest wake call on this word before it woke us */
		for (guint j = wake_upper(wakes, k->time); j-- > 0;) {
			const WakeCall *c = &g_array_index(wakes, WakeCall, j);
			if (c->time < w->start)
				break;
			if (c->tid == k->waker) {
				w->waker_tid = c->tid;
				w->wake_time = c->time;
				w->waker_stack = c->stack;
				w->by_waking = TRUE;
				return;
			}
		}
		break; /* woken by something else (a signal, another word) */
	}
	for (guint j = wake_upper(wakes, w->end); j-- > 0;) {
		const WakeCall *c = &g_array_index(wakes, WakeCall, j);
		if (c->time < w->start)
			break;
		if (c->tid != w->tid) {
			w->waker_tid = c->tid;
			w->wake_time = c->time;
			w->waker_stack = c->stack;
			return;
		}
	}
}

/* Charges w's time to the wake calls inside it (see the header). */
static void charge_holders(PlLockWait *w, GArray *wakes, GArray *rows, GHashTable *index)
{
	guint64 prev = w->start;
	const WakeCall *last = NULL;
	guint j = 0;
	if (wakes) {
		/* the first wake call at or after the start */
		guint lo = 0, hi = wakes->len;
		while (lo < hi) {
			guint mid = lo + (hi - lo) / 2;
			if (g_array_index(wakes, WakeCall, mid).time < w->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		j = lo;
	}
	for (; wakes && j < wakes->len; j++) {
		const WakeCall *c = &g_array_index(wakes, WakeCall, j);
		if (c->time > w->end)
			break;
		if (c->tid == w->tid)
			continue;
		charge(rows, index, c->tid, c->stack, c->time - prev, 1);
		prev = c->time;
		last = c;
	}
	if (w->end > prev)
		charge(rows, index, last ? last->tid : 0, last ? last->stack : PL_NO_ID,
		       w->end - prev, 0);
}

static gint holder_cmp(gconstpointer a, gconstpointer b)
{
	const PlLockHolder *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static gint lock_order_cmp(gconstpointer a, gconstpointer b, gpointer locks)
{
	const PlLock *x = &g_array_index((GArray *)locks, PlLock, *(const guint *)a);
	const PlLock *y = &g_array_index((GArray *)locks, PlLock, *(const guint *)b);
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->uaddr < y->uaddr ? -1 : x->uaddr > y->uaddr;
}

static gint wait_by_start(gconstpointer a, gconstpointer b)
{
	const PlLockWait *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The GArray of elem_size elements h keeps under key (a tid or a pid),
 * made empty on first use. */
static GArray *array_at(GHashTable *h, guint32 key, guint elem_size)
{
	GArray *a = g_hash_table_lookup(h, GUINT_TO_POINTER(key));
	if (!a) {
		a = g_array_new(FALSE, FALSE, elem_size);
		g_hash_table_insert(h, GUINT_TO_POINTER(key), a);
	}
	return a;
}

/* The first index of a (AnyWake, sorted by time) whose time is >= t. */
static guint any_lower(GArray *a, guint64 t)
{
	guint lo = 0, hi = a->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (g_array_index(a, AnyWake, mid).time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The wake call that woke a futex_waitv: the waker's latest wake call in
 * the process before the sched_waking (within the wait) that names the
 * waiter; NULL when none was seen. */
static const AnyWake *waitv_waker(const PlLockWait *w, GHashTable *wakings,
				  GHashTable *by_waker)
{
	GArray *wk = g_hash_table_lookup(wakings, GUINT_TO_POINTER(w->tid));
	for (guint i = wk ? wk->len : 0; i-- > 0;) {
		const Waking *k = &g_array_index(wk, Waking, i);
		if (k->time > w->end)
			continue;
		if (k->time < w->start)
			break;
		GArray *any = g_hash_table_lookup(by_waker, GUINT_TO_POINTER(k->waker));
		for (guint j = any ? any->len : 0; j-- > 0;) {
			const AnyWake *c = &g_array_index(any, AnyWake, j);
			if (c->time > k->time)
				continue;
			if (c->time < w->start)
				break;
			if (c->pid == w->pid)
				return c;
		}
		break; /* woken by something else (a signal, a timeout) */
	}
	return NULL;
}

typedef struct {
	guint32 tid, stack;
	gint32 index;
} WaitvSite;

static guint site_hash(gconstpointer p)
{
	const WaitvSite *s = p;
	return s->tid * 2654435761u ^ s->stack * 40503u ^ (guint)s->index;
}

static gboolean site_equal(gconstpointer a, gconstpointer b)
{
	const WaitvSite *x = a, *y = b;
	return x->tid == y->tid && x->stack == y->stack && x->index == y->index;
}

/* The words of the woken futex_waitv calls.  The call returns the index of
 * the last word (in its array) whose wake found it still queued: when a
 * second word is released before the waiter runs, that is the second one,
 * not the one whose sched_waking woke it.  So: a wait during which the
 * process woke one word only (from the waking's wake call to the exit) is
 * on that word, and teaches the word of its index at its call site (tid
 * and stack); a wait with several is on the word its index has at its
 * site, when one of them, else on the waking's. */
static void waitv_words(GArray *waits, GHashTable *wakings, GHashTable *by_waker,
			GHashTable *by_pid)
{
	g_autoptr(GHashTable) learned = g_hash_table_new_full(site_hash, site_equal, g_free,
							      g_free);
	g_autoptr(GArray) words = g_array_new(FALSE, FALSE, sizeof(guint64));
	for (guint pass = 0; pass < 2; pass++)
		for (guint i = 0; i < waits->len; i++) {
			PlLockWait *w = &g_array_index(waits, PlLockWait, i);
			if (w->woken_index < 0)
				continue;
			const AnyWake *c = waitv_waker(w, wakings, by_waker);
			if (!c)
				continue;
			g_array_set_size(words, 0);
			GArray *all = g_hash_table_lookup(by_pid, GUINT_TO_POINTER(w->pid));
			for (guint j = any_lower(all, c->time); j < all->len; j++) {
				const AnyWake *d = &g_array_index(all, AnyWake, j);
				if (d->time > w->end)
					break;
				guint k = 0;
				while (k < words->len && g_array_index(words, guint64, k) != d->uaddr)
					k++;
				if (k == words->len)
					g_array_append_val(words, d->uaddr);
			}
			WaitvSite site = { w->tid, w->stack, w->woken_index };
			if (pass == 0) {
				if (words->len == 1)
					g_hash_table_insert(learned, g_memdup2(&site, sizeof(site)),
							    g_memdup2(&c->uaddr, sizeof(guint64)));
				continue;
			}
			w->uaddr = c->uaddr;
			const guint64 *known = g_hash_table_lookup(learned, &site);
			for (guint k = 0; known && k < words->len; k++)
				if (g_array_index(words, guint64, k) == *known)
					w->uaddr = *known;
		}
}

PlLocks *pl_locks_pair(const PlFutexEvent *ev, guint n)
{
	return pl_locks_pair_filtered(ev, n, NULL);
}

/* w is one of the filter's: its waiter's thread, its entry in the range */
static gboolean wait_kept(const PlLockWait *w, const PlFilter *f)
{
	return pl_filter_keeps(f, w->tid, w->start);
}

PlLocks *pl_locks_pair_filtered(const PlFutexEvent *ev, guint n, const PlFilter *filter)
{
	PlLocks *out = g_new0(PlLocks, 1);
	out->locks = g_array_new(FALSE, TRUE, sizeof(PlLock));
	g_array_set_clear_func(out->locks, lock_clear);
	out->waits = g_array_new(FALSE, TRUE, sizeof(PlLockWait));
	out->futex_events = n;
	/* tid → its futex call under way (a copy of the entry) */
	g_autoptr(GHashTable) pending = g_hash_table_new_full(NULL, NULL, NULL, g_free);
	/* (pid, uaddr) → LockState */
	g_autoptr(GHashTable) states = g_hash_table_new_full(key_hash, key_equal, g_free,
							     lock_state_free);
	/* wakee tid → GArray of Waking */
	g_autoptr(GHashTable) wakings = g_hash_table_new_full(NULL, NULL, NULL,
							      (GDestroyNotify)g_array_unref);
	/* waker tid, and process → GArray of AnyWake */
	g_autoptr(GHashTable) by_waker = g_hash_table_new_full(NULL, NULL, NULL,
							       (GDestroyNotify)g_array_unref);
	g_autoptr(GHashTable) by_pid = g_hash_table_new_full(NULL, NULL, NULL,
							     (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < n; i++) {
		const PlFutexEvent *e = &ev[i];
		gpointer tid = GUINT_TO_POINTER(e->tid);
		switch (e->kind) {
		case PL_FUTEX_ENTER: {
			const PlFutexEvent *prev = g_hash_table_lookup(pending, tid);
			if (prev && pl_futex_op_is_wait(prev->op))
				out->unended++; /* its exit was lost */
			g_hash_table_insert(pending, tid, g_memdup2(e, sizeof(*e)));
			if (!pl_futex_op_is_wake(e->op))
				break;
			LockKey k = { e->pid ? e->pid : e->tid, e->uaddr };
			LockState *s = g_hash_table_lookup(states, &k);
			if (!s) {
				s = g_new0(LockState, 1);
				s->wakes = g_array_new(FALSE, FALSE, sizeof(WakeCall));
				s->lock = G_MAXUINT;
				g_hash_table_insert(states, g_memdup2(&k, sizeof(k)), s);
			}
			WakeCall c = { e->time, e->tid, e->stack };
			g_array_append_val(s->wakes, c);
			AnyWake aw = { e->time, e->uaddr, k.pid };
			g_array_append_val(array_at(by_waker, e->tid, sizeof(AnyWake)), aw);
			g_array_append_val(array_at(by_pid, k.pid, sizeof(AnyWake)), aw);
			break;
		}
		case PL_FUTEX_EXIT: {
			const PlFutexEvent *b = g_hash_table_lookup(pending, tid);
			if (!b) {
				out->orphan_exits++;
				break;
			}
			if (pl_futex_op_is_wait(b->op)) {
				PlLockWait w = { b->time, e->time, b->pid ? b->pid : b->tid, b->tid,
						 b->uaddr, b->op, e->ret, b->stack, 0, 0, 0,
						 PL_NO_ID, FALSE, -1 };
				if ((b->op & FUTEX_CMD_MASK) == PL_FUTEX2_WAITV && e->ret >= 0) {
					w.woken_index = (gint32)e->ret;
					w.ret = 0;
				}
				g_array_append_val(out->waits, w);
			}
			g_hash_table_remove(pending, tid);
			break;
		}
		case PL_FUTEX_WAKING: {
			Waking k = { e->time, e->tid };
			g_array_append_val(array_at(wakings, e->wakee, sizeof(Waking)), k);
			break;
		}
		}
	}
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, pending);
	while (g_hash_table_iter_next(&it, NULL, &v))
		out->unended += pl_futex_op_is_wait(((PlFutexEvent *)v)->op);

	waitv_words(out->waits, wakings, by_waker, by_pid);
	/* the filter's waits only, paired with all the events */
	guint kept = 0;
	for (guint i = 0; i < out->waits->len; i++)
		if (wait_kept(&g_array_index(out->waits, PlLockWait, i), filter))
			g_array_index(out->waits, PlLockWait, kept++) =
				g_array_index(out->waits, PlLockWait, i);
	g_array_set_size(out->waits, kept);
	g_array_sort(out->waits, wait_by_start);
	/* per lock: its rows of holders and waiters, indexed */
	g_autoptr(GPtrArray) holder_index = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_hash_table_unref);
	g_autoptr(GPtrArray) waiter_index = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_hash_table_unref);
	for (guint i = 0; i < out->waits->len; i++) {
		PlLockWait *w = &g_array_index(out->waits, PlLockWait, i);
		LockKey k = { w->pid, w->uaddr };
		LockState *s = g_hash_table_lookup(states, &k);
		if (!s) {
			s = g_new0(LockState, 1);
			s->wakes = g_array_new(FALSE, FALSE, sizeof(WakeCall));
			s->lock = G_MAXUINT;
			g_hash_table_insert(states, g_memdup2(&k, sizeof(k)), s);
		}
		if (s->lock == G_MAXUINT) {
			PlLock l = { .pid = w->pid, .uaddr = w->uaddr, .wake_calls = s->wakes->len };
			l.holders = g_array_new(FALSE, FALSE, sizeof(PlLockHolder));
			l.waiters = g_array_new(FALSE, FALSE, sizeof(PlLockHolder));
			g_array_append_val(out->locks, l);
			s->lock = out->locks->len - 1;
			g_ptr_array_add(holder_index, g_hash_table_new_full(g_int64_hash,
									    g_int64_equal, g_free,
									    NULL));
			g_ptr_array_add(waiter_index, g_hash_table_new_full(g_int64_hash,
									    g_int64_equal, g_free,
									    NULL));
		}
		w->lock = s->lock;
		PlLock *l = &g_array_index(out->locks, PlLock, s->lock);
		guint64 d = w->end - w->start;
		l->waits++;
		l->slept += w->ret == 0;
		l->total_ns += d;
		l->max_ns = MAX(l->max_ns, d);
		l->hist[pl_lock_hist_bucket(d)]++;
		charge(l->waiters, waiter_index->pdata[s->lock], w->tid, PL_NO_ID, d, 0);
		find_waker(w, s->wakes, wakings);
		charge_holders(w, s->wakes, l->holders, holder_index->pdata[s->lock]);
	}
	/* most wait time first, and the waits' indices follow */
	guint nl = out->locks->len;
	g_autofree guint *order = g_new(guint, nl ? nl : 1);
	for (guint i = 0; i < nl; i++) {
		PlLock *l = &g_array_index(out->locks, PlLock, i);
		g_array_sort(l->holders, holder_cmp);
		g_array_sort(l->waiters, holder_cmp);
		order[i] = i;
	}
	g_qsort_with_data(order, (gint)nl, sizeof(guint), lock_order_cmp, out->locks);
	g_autofree guint *where = g_new(guint, nl ? nl : 1);
	GArray *sorted = g_array_sized_new(FALSE, TRUE, sizeof(PlLock), nl);
	g_array_set_clear_func(sorted, lock_clear);
	for (guint i = 0; i < nl; i++) {
		g_array_append_val(sorted, g_array_index(out->locks, PlLock, order[i]));
		where[order[i]] = i;
	}
	for (guint i = 0; i < out->waits->len; i++) {
		PlLockWait *w = &g_array_index(out->waits, PlLockWait, i);
		w->lock = where[w->lock];
	}
	/* the structs moved to sorted: the old array must not free them */
	g_array_set_clear_func(out->locks, NULL);
	g_array_free(out->locks, TRUE);
	out->locks = sorted;
	return out;
}

/* ─── from a profile ───────────────────────────────────────────────────── */

typedef struct {
	gint kind; /* PlFutexKind, -1: not ours */
	guint32 call; /* an entry's op: 0 futex(2)'s own, else PL_FUTEX2_… */
	const PlTraceField *uaddr, *op, *val, *ret, *pid;
} EventFields;

static gboolean field_int(const PlTraceField *f, const guint8 *raw, gsize len, gboolean be,
			  gint64 *out)
{
	return f && pl_trace_field_int(f, raw, len, be, out);
}

/* The lock's data symbol, when its address lies in a mapped object's. */
static void name_lock(PlLock *l, PlSymbols *sym)
{
	const char *name, *module;
	guint64 off;
	if (!pl_symbols_data_symbol(sym, l->pid, l->uaddr, &name, &off, &module))
		return;
	l->name = off ? g_strdup_printf("%s+0x%" G_GINT64_MODIFIER "x", name, off) : g_strdup(name);
	l->module = g_strdup(module);
}

PlLocks *pl_locks_new(PlProfile *profile)
{
	return pl_locks_new_filtered(profile, NULL);
}

PlLocks *pl_locks_new_filtered(PlProfile *profile, const PlFilter *filter)
{
	gboolean be = pl_profile_is_big_endian(profile);
	GPtrArray *events = pl_profile_get_events(profile);
	guint32 max_index = 0;
	for (guint i = 0; i < events->len; i++)
		max_index = MAX(max_index, ((PlEvent *)events->pdata[i])->index);
	g_autofree EventFields *by_event = g_new0(EventFields, max_index + 1);
	gboolean recorded = FALSE;
	for (guint i = 0; i <= max_index; i++)
		by_event[i].kind = -1;
	for (guint i = 0; i < events->len; i++) {
		const PlEvent *e = events->pdata[i];
		EventFields *f = &by_event[e->index];
		const PlTraceFormat *fmt = pl_profile_get_trace_format(profile, e->index);
		if (!fmt)
			continue;
		guint ev_i = 0;
		while (ev_i < EV_COUNT && g_strcmp0(e->name, lock_events[ev_i]))
			ev_i++;
		static const gint8 kinds[EV_COUNT] = {
			PL_FUTEX_ENTER, PL_FUTEX_EXIT, PL_FUTEX_WAKING, PL_FUTEX_ENTER,
			PL_FUTEX_EXIT,  PL_FUTEX_ENTER, PL_FUTEX_EXIT, PL_FUTEX_ENTER,
		};
		static const guint32 calls[EV_COUNT] = {
			[EV_WAITV_ENTER] = PL_FUTEX2_WAITV,
			[EV_WAIT_ENTER] = PL_FUTEX2_WAIT,
			[EV_WAKE_ENTER] = PL_FUTEX2_WAKE,
		};
		if (ev_i == EV_COUNT)
			continue;
		f->kind = kinds[ev_i];
		f->call = calls[ev_i];
		recorded |= ev_i == EV_FUTEX_ENTER;
		f->uaddr = pl_trace_format_find(fmt, "uaddr");
		/* futex2: the flags, of which FUTEX2_PRIVATE has
		 * FUTEX_PRIVATE_FLAG's bit */
		f->op = pl_trace_format_find(fmt, f->call ? "flags" : "op");
		f->val = pl_trace_format_find(fmt, "val");
		f->ret = pl_trace_format_find(fmt, "ret");
		f->pid = pl_trace_format_find(fmt, "pid");
	}
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	g_autoptr(GArray) fev = g_array_new(FALSE, TRUE, sizeof(PlFutexEvent));
	for (guint i = 0; i < n; i++) {
		if (ev[i].event > max_index || by_event[ev[i].event].kind < 0 || ev[i].marker)
			continue;
		const EventFields *f = &by_event[ev[i].event];
		const guint8 *raw = pl_profile_get_trace_raw(profile, &ev[i]);
		gsize len = ev[i].raw_len;
		PlFutexEvent e = { ev[i].time, ev[i].pid, ev[i].tid, ev[i].stack,
				   (guint8)f->kind, 0, 0, 0, 0, 0 };
		gint64 x;
		switch (f->kind) {
		case PL_FUTEX_ENTER:
			/* futex_waitv: its words are not in the event (uaddr 0) */
			if (f->call != PL_FUTEX2_WAITV && !field_int(f->uaddr, raw, len, be, &x))
				continue;
			e.uaddr = f->call == PL_FUTEX2_WAITV ? 0 : (guint64)x;
			if (!field_int(f->op, raw, len, be, &x))
				continue;
			/* futex_waitv's flags argument is 0: its words' flags
			 * are in the user array */
			e.op = f->call ? f->call | ((guint32)x & 128u) : (guint32)x;
			if (field_int(f->val, raw, len, be, &x))
				e.val = (guint32)x;
			break;
		case PL_FUTEX_EXIT:
			if (!field_int(f->ret, raw, len, be, &x))
				continue;
			e.ret = x;
			break;
		case PL_FUTEX_WAKING:
			if (!field_int(f->pid, raw, len, be, &x))
				continue;
			e.wakee = (guint32)x;
			break;
		}
		g_array_append_val(fev, e);
	}
	PlLocks *l = pl_locks_pair_filtered((const PlFutexEvent *)(gpointer)fev->data, fev->len,
					    filter);
	l->recorded = recorded;
	PlSymbols *sym = pl_profile_get_symbols(profile);
	for (guint i = 0; sym && i < l->locks->len; i++)
		name_lock(&g_array_index(l->locks, PlLock, i), sym);
	return l;
}

char *pl_lock_dup_label(const PlLock *lock)
{
	if (!lock->uaddr)
		return g_strdup("futex_waitv, word not known");
	if (lock->name)
		return g_strdup_printf("%s (0x%" G_GINT64_MODIFIER "x)", lock->name, lock->uaddr);
	return g_strdup_printf("0x%" G_GINT64_MODIFIER "x", lock->uaddr);
}

/* ─── on the timeline ──────────────────────────────────────────────────── */

static gint interval_by_start(gconstpointer a, gconstpointer b)
{
	const PlMarkerInterval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : (gint)x->depth - (gint)y->depth;
}

guint pl_markers_add_lock_waits(PlMarkers *m, PlProfile *profile)
{
	g_autoptr(PlLocks) l = pl_locks_new(profile);
	guint added = 0;
	for (guint i = 0; i < l->waits->len; i++) {
		const PlLockWait *w = &g_array_index(l->waits, PlLockWait, i);
		if (w->ret != 0)
			continue; /* did not sleep */
		g_autofree char *label =
			pl_lock_dup_label(&g_array_index(l->locks, PlLock, w->lock));
		/* who held it: the thread whose wake call released the waiter */
		PlThread *h = w->waker_tid ? pl_profile_lookup_thread(profile, w->waker_tid) : NULL;
		g_autofree char *holder =
			!w->waker_tid ? g_strdup(", no release seen")
			: g_strdup_printf(", held by %s %u", h && h->name ? h->name : "thread",
					  w->waker_tid);
		PlMarkerInterval iv = { w->start, w->end, w->pid, w->tid, 0,
					g_strconcat("wait for ", label, holder, PL_LOCK_WAIT_SUFFIX,
						    NULL) };
		g_array_append_val(m->intervals, iv);
		added++;
	}
	if (added)
		g_array_sort(m->intervals, interval_by_start);
	return added;
}
