/* viewer-model-locks-test.c — futex waits paired with the wakes that
 * ended them (pl-locks.h), on event sequences laid out by hand from what
 * glibc's mutex does, each with the answer known by construction:
 *   handoff       one holder, three waiters: each wait's releaser (through
 *                 sched_waking), the time "held by" split at the wake calls
 *                 (the holder's 5 ms charged to it for every waiter), the
 *                 per-waiter totals and the histogram;
 *   without_waking the same sequence with no sched_waking: releasers found by
 *                 time alone (the latest wake call on the word in the wait);
 *   eagain_and_ends a wait that did not sleep (-EAGAIN), an exit with no
 *                 entry, an entry with no exit, another process's word at
 *                 the same address (two locks), ops told apart (wait, wake,
 *                 requeue, the private flag). */
#include <errno.h>
#include <string.h>

#include "viewer-test-util.h"

#include "pl-locks.h"

#define MS 1000000ull
#define WAIT_P 128u /* FUTEX_WAIT_PRIVATE */
#define WAKE_P 129u /* FUTEX_WAKE_PRIVATE */
#define LOCK 0x5000ull

static PlFutexEvent enter(guint64 t, guint32 tid, guint32 op, guint64 uaddr, guint32 stack)
{
	return (PlFutexEvent){ t, 100, tid, stack, PL_FUTEX_ENTER, op, uaddr, 0, 0, 0 };
}

static PlFutexEvent leave(guint64 t, guint32 tid, gint64 ret)
{
	return (PlFutexEvent){ t, 100, tid, PL_NO_ID, PL_FUTEX_EXIT, 0, 0, 0, ret, 0 };
}

static PlFutexEvent waking(guint64 t, guint32 waker, guint32 wakee)
{
	return (PlFutexEvent){ t, 100, waker, PL_NO_ID, PL_FUTEX_WAKING, 0, 0, 0, 0, wakee };
}

/* Holder 1 unlocks at 10 ms (stack 11); waiters 2, 3, 4 entered their
 * waits at 5, 6, 7 ms.  1 wakes 2; 2 runs, takes the lock and unlocks at
 * 10.1 ms, waking 3 (stack 22); 3 unlocks at 10.2, waking 4 (stack 33). */
static GArray *handoff_events(gboolean with_waking)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(PlFutexEvent));
	PlFutexEvent e[] = {
		enter(5 * MS, 2, WAIT_P, LOCK, 2),
		enter(6 * MS, 3, WAIT_P, LOCK, 3),
		enter(7 * MS, 4, WAIT_P, LOCK, 4),
		enter(10 * MS, 1, WAKE_P, LOCK, 11),
		waking(10 * MS + 1000, 1, 2),
		leave(10 * MS + 2000, 1, 1),
		leave(10 * MS + 5000, 2, 0),
		enter(10 * MS + 100000, 2, WAKE_P, LOCK, 22),
		waking(10 * MS + 101000, 2, 3),
		leave(10 * MS + 102000, 2, 1),
		leave(10 * MS + 105000, 3, 0),
		enter(10 * MS + 200000, 3, WAKE_P, LOCK, 33),
		waking(10 * MS + 201000, 3, 4),
		leave(10 * MS + 202000, 3, 1),
		leave(10 * MS + 205000, 4, 0),
	};
	for (guint i = 0; i < G_N_ELEMENTS(e); i++)
		if (with_waking || e[i].kind != PL_FUTEX_WAKING)
			g_array_append_val(a, e[i]);
	return a;
}

static const PlLockHolder *row_of(GArray *rows, guint32 tid)
{
	for (guint i = 0; i < rows->len; i++)
		if (g_array_index(rows, PlLockHolder, i).tid == tid)
			return &g_array_index(rows, PlLockHolder, i);
	return NULL;
}

static void check_handoff(gboolean with_waking)
{
	g_autoptr(GArray) a = handoff_events(with_waking);
	g_autoptr(PlLocks) l = pl_locks_pair((const PlFutexEvent *)(gpointer)a->data, a->len);
	PL_CHECKF(l->locks->len == 1 && l->waits->len == 3, "%u locks, %u waits", l->locks->len,
		  l->waits->len);
	const PlLock *k = &g_array_index(l->locks, PlLock, 0);
	PL_CHECK(k->pid == 100 && k->uaddr == LOCK && k->waits == 3 && k->slept == 3);
	PL_CHECKF(k->wake_calls == 3, "%u wake calls", k->wake_calls);
	/* waits: 2 from 5 to 10.005, 3 from 6 to 10.105, 4 from 7 to 10.205 */
	guint64 want[] = { 5 * MS + 5000, 4 * MS + 105000, 3 * MS + 205000 };
	guint32 waker[] = { 1, 2, 3 }, wstack[] = { 11, 22, 33 };
	for (guint i = 0; i < 3; i++) {
		const PlLockWait *w = &g_array_index(l->waits, PlLockWait, i);
		PL_CHECKF(w->tid == i + 2 && w->end - w->start == want[i] && w->ret == 0 &&
				  w->stack == i + 2 && w->lock == 0,
			  "wait %u: tid %u, %" G_GUINT64_FORMAT " ns", i, w->tid,
			  w->end - w->start);
		PL_CHECKF(w->waker_tid == waker[i] && w->waker_stack == wstack[i] &&
				  w->by_waking == with_waking,
			  "wait of %u: released by %u (stack %u, by waking %d)", w->tid,
			  w->waker_tid, w->waker_stack, w->by_waking);
	}
	PL_CHECK(k->total_ns == want[0] + want[1] + want[2] && k->max_ns == want[0]);
	/* waiters: each its own wait */
	for (guint i = 0; i < 3; i++) {
		const PlLockHolder *r = row_of(k->waiters, i + 2);
		PL_CHECKF(r && r->ns == want[i], "waiter %u", i + 2);
	}
	PL_CHECK(g_array_index(k->waiters, PlLockHolder, 0).tid == 2); /* most first */
	/* held by: the holder until its wake at 10 ms in all three waits
	 * (5 + 4 + 3 ms), plus the tail of 2's wait (5 us); 2 from 10 ms to
	 * 10.1 in 3's and 4's waits, plus the tail of 3's (5 us); 3 from 10.1
	 * to 10.2 in 4's wait and its tail (5 us) */
	const PlLockHolder *h1 = row_of(k->holders, 1), *h2 = row_of(k->holders, 2),
			   *h3 = row_of(k->holders, 3);
	PL_CHECKF(h1 && h1->ns == 12 * MS + 5000 && h1->stack == 11 && h1->wakes == 3,
		  "holder 1: %" G_GUINT64_FORMAT " ns, %u wakes", h1 ? h1->ns : 0,
		  h1 ? h1->wakes : 0);
	PL_CHECKF(h2 && h2->ns == 200000 + 5000 && h2->stack == 22 && h2->wakes == 2,
		  "holder 2: %" G_GUINT64_FORMAT " ns", h2 ? h2->ns : 0);
	PL_CHECKF(h3 && h3->ns == 100000 + 5000 && h3->stack == 33 && h3->wakes == 1,
		  "holder 3: %" G_GUINT64_FORMAT " ns", h3 ? h3->ns : 0);
	PL_CHECK(k->holders->len == 3 && g_array_index(k->holders, PlLockHolder, 0).tid == 1);
	guint64 sum = 0;
	for (guint i = 0; i < k->holders->len; i++)
		sum += g_array_index(k->holders, PlLockHolder, i).ns;
	PL_CHECKF(sum == k->total_ns, "held-by time %" G_GUINT64_FORMAT " != wait time", sum);
	/* 5.005 ms: [2^22, 2^23) ns; 4.105 ms and 3.205 ms: [2^21, 2^22) */
	PL_CHECKF(k->hist[22] == 1 && k->hist[21] == 2, "hist %u %u", k->hist[21], k->hist[22]);
}

static void handoff(void)
{
	check_handoff(TRUE);
}

static void without_waking(void)
{
	check_handoff(FALSE);
}

static void eagain_and_ends(void)
{
	PlFutexEvent e[] = {
		leave(1 * MS, 9, 0),                        /* began before the recording */
		enter(2 * MS, 2, WAIT_P, LOCK, 2),
		leave(2 * MS + 700, 2, -EAGAIN),             /* the word had changed */
		enter(3 * MS, 3, 137 /* WAIT_BITSET_PRIVATE */, LOCK, 3),
		enter(3 * MS + 10, 5, 4 /* CMP_REQUEUE */, 0x6000, 5),
		leave(3 * MS + 20, 5, 0),
		enter(4 * MS, 1, WAKE_P, LOCK, 11),
		leave(4 * MS + 500, 3, 0),
		leave(4 * MS + 600, 1, 1),
		enter(5 * MS, 4, WAIT_P, LOCK, 4),           /* never ends */
	};
	/* the same address in another process is another lock */
	PlFutexEvent other[G_N_ELEMENTS(e) + 2];
	memcpy(other, e, sizeof(e));
	other[G_N_ELEMENTS(e)] = enter(6 * MS, 7, WAIT_P, LOCK, 7);
	other[G_N_ELEMENTS(e)].pid = 200;
	other[G_N_ELEMENTS(e) + 1] = leave(9 * MS, 7, 0);
	other[G_N_ELEMENTS(e) + 1].pid = 200;
	g_autoptr(PlLocks) l = pl_locks_pair(other, G_N_ELEMENTS(other));
	PL_CHECKF(l->orphan_exits == 1 && l->unended == 1, "orphans %u, unended %u",
		  l->orphan_exits, l->unended);
	PL_CHECKF(l->waits->len == 3 && l->locks->len == 2, "%u waits, %u locks", l->waits->len,
		  l->locks->len);
	/* by wait time: pid 200's (3 ms) before pid 100's (0.7 us + 1.0005 ms) */
	const PlLock *a = &g_array_index(l->locks, PlLock, 0), *b = &g_array_index(l->locks, PlLock, 1);
	PL_CHECKF(a->pid == 200 && a->total_ns == 3 * MS && a->wake_calls == 0, "first lock pid %u",
		  a->pid);
	PL_CHECKF(b->pid == 100 && b->waits == 2 && b->slept == 1 && b->wake_calls == 1 &&
			  b->total_ns == 700 + MS + 500,
		  "second lock: %u waits, %u slept, %u wakes, %" G_GUINT64_FORMAT " ns", b->waits,
		  b->slept, b->wake_calls, b->total_ns);
	const PlLockWait *w0 = &g_array_index(l->waits, PlLockWait, 0);
	PL_CHECK(w0->tid == 2 && w0->ret == -EAGAIN && w0->waker_tid == 0 && w0->lock == 1);
	const PlLockWait *w1 = &g_array_index(l->waits, PlLockWait, 1);
	PL_CHECK(w1->tid == 3 && w1->waker_tid == 1 && w1->waker_stack == 11 && !w1->by_waking);
	const PlLockWait *w2 = &g_array_index(l->waits, PlLockWait, 2);
	PL_CHECK(w2->tid == 7 && w2->pid == 200 && w2->waker_tid == 0 && w2->lock == 0);
	/* no wake call in it: the time is nobody's we saw */
	const PlLockHolder *h = &g_array_index(a->holders, PlLockHolder, 0);
	PL_CHECK(a->holders->len == 1 && h->tid == 0 && h->stack == PL_NO_ID && h->ns == 3 * MS);
	char buf[48];
	PL_CHECK(!strcmp(pl_futex_op_name(137, buf, sizeof(buf)), "FUTEX_WAIT_BITSET_PRIVATE"));
	PL_CHECK(!strcmp(pl_futex_op_name(393, buf, sizeof(buf)),
			 "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME"));
	PL_CHECK(!strcmp(pl_futex_op_name(4, buf, sizeof(buf)), "FUTEX_CMP_REQUEUE"));
	PL_CHECK(!strcmp(pl_futex_op_name(99, buf, sizeof(buf)), "op 0x63"));
	PL_CHECK(pl_futex_op_is_wait(WAIT_P) && !pl_futex_op_is_wake(WAIT_P) &&
		 pl_futex_op_is_wake(WAKE_P) && !pl_futex_op_is_wait(WAKE_P) &&
		 pl_futex_op_is_wait(6) && pl_futex_op_is_wake(7) && !pl_futex_op_is_wait(8));
}

PL_TEST_MAIN(PL_CASE(handoff), PL_CASE(without_waking), PL_CASE(eagain_and_ends))
