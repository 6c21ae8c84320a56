/* locks.c — lock contention whose pattern is known by construction, for
 * the lock tests (issue 30): one thread holds a pthread mutex 5 ms of
 * every 10, three others want it.
 *   - holder_thread() calls hold_lock() once every 10 ms (absolute times
 *     on CLOCK_MONOTONIC): it locks contended_lock, sleeps until 5 ms into
 *     the period, and unlocks;
 *   - each of the three waiter_thread()s takes the lock in take_lock()
 *     (lock, count, unlock at once) and naps 1 ms, until the holder is
 *     done; it measures the time spent in pthread_mutex_lock with
 *     clock_gettime(CLOCK_MONOTONIC) around every call and sums it.
 *
 *   locks EXPECT_FILE [PERIODS]      (PERIODS of 10 ms, default 100)
 *
 * EXPECT_FILE says what the program did, for the test to compare:
 *   pid PID
 *   lock ADDRESS                     &contended_lock, 0x… (the futex word)
 *   holder TID PERIODS
 *   waiter TID WAIT_NS ACQUISITIONS  each waiter's own measure
 * The same lines go to stdout. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define WAITERS 3
#define PERIOD_NS 10000000L
#define HOLD_NS 5000000L

pthread_mutex_t contended_lock = PTHREAD_MUTEX_INITIALIZER;

static volatile int done;
static long periods = 100;
static pid_t holder_tid;

struct waiter {
	pthread_t thread;
	pid_t tid;
	uint64_t wait_ns;
	unsigned long acquisitions;
};
static struct waiter waiters[WAITERS];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

/* the function that holds the lock: its unlock wakes the waiters */
__attribute__((noinline)) void hold_lock(uint64_t until)
{
	pthread_mutex_lock(&contended_lock);
	sleep_until(until);
	pthread_mutex_unlock(&contended_lock);
}

__attribute__((noinline)) void *holder_thread(void *arg)
{
	(void)arg;
	holder_tid = gettid();
	uint64_t t = now_ns();
	for (long i = 0; i < periods; i++) {
		hold_lock(t + HOLD_NS);
		t += PERIOD_NS;
		sleep_until(t);
	}
	return NULL;
}

/* the waiters' call site */
__attribute__((noinline)) void take_lock(struct waiter *w)
{
	uint64_t t0 = now_ns();
	pthread_mutex_lock(&contended_lock);
	w->wait_ns += now_ns() - t0;
	w->acquisitions++;
	pthread_mutex_unlock(&contended_lock);
}

__attribute__((noinline)) void *waiter_thread(void *arg)
{
	struct waiter *w = arg;
	w->tid = gettid();
	struct timespec nap = { 0, 1000000 };
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		take_lock(w);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: locks EXPECT_FILE [PERIODS]\n");
		return 2;
	}
	if (argc > 2)
		periods = atol(argv[2]);
	FILE *exp = fopen(argv[1], "w");
	if (!exp) {
		perror(argv[1]);
		return 1;
	}
	pthread_t holder;
	for (int i = 0; i < WAITERS; i++)
		pthread_create(&waiters[i].thread, NULL, waiter_thread, &waiters[i]);
	pthread_create(&holder, NULL, holder_thread, NULL);
	pthread_join(holder, NULL);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < WAITERS; i++)
		pthread_join(waiters[i].thread, NULL);
	for (int pass = 0; pass < 2; pass++) {
		FILE *f = pass ? stdout : exp;
		fprintf(f, "pid %d\nlock %p\nholder %d %ld\n", getpid(), (void *)&contended_lock,
			holder_tid, periods);
		for (int i = 0; i < WAITERS; i++)
			fprintf(f, "waiter %d %llu %lu\n", waiters[i].tid,
				(unsigned long long)waiters[i].wait_ns, waiters[i].acquisitions);
	}
	if (fclose(exp) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
