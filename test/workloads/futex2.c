/* futex2.c — waits on lock words through the newer futex calls, whose
 * pattern is known by construction, for the lock tests: futex_waitv
 * (syscall 449, Linux 5.16), futex_wait and futex_wake (455 and 454, Linux
 * 6.7).  glibc has no wrappers: syscall(2) is called directly.
 *   - holder_thread() holds both words word_a and word_b (value 1) from the
 *     start of every 10 ms period to 5 ms into it, then releases one
 *     (value 0, futex_wake on it) and the other a little later: word_a
 *     first in even periods, word_b first in odd ones;
 *   - waitv_thread() waits in futex_waitv on both words while both are
 *     held: the call returns the index of the word whose wake woke it.  It
 *     sums its time in futex_waitv by that word, with
 *     clock_gettime(CLOCK_MONOTONIC) around every call;
 *   - wait_thread() waits in futex_wait on word_a while it is held, and
 *     sums its time in futex_wait likewise (every call, also those that
 *     found the word changed).
 * Each waiter naps 1 ms between waits, until the holder is done.
 *
 *   futex2 EXPECT_FILE [PERIODS]      (PERIODS of 10 ms, default 100)
 *
 * EXPECT_FILE (and stdout):
 *   pid PID
 *   word_a ADDRESS
 *   word_b ADDRESS
 *   holder TID PERIODS
 *   waitv TID NS_WOKEN_BY_A NS_WOKEN_BY_B CALLS_A CALLS_B OTHER_CALLS
 *   wait TID NS CALLS
 * A call that fails with ENOSYS ends the program with status 3 and a line
 * on stderr naming the call. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000L
#define HOLD_NS 5000000L
#define GAP_NS 200000L /* between the two releases */

#define NR_FUTEX_WAITV 449
#define NR_FUTEX_WAKE 454
#define NR_FUTEX_WAIT 455
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE 128

/* include/uapi/linux/futex.h */
struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

uint32_t word_a = 1, word_b = 1;

static volatile int done;
static long periods = 100;
static pid_t holder_tid, waitv_tid, wait_tid;
static uint64_t waitv_ns[2], waitv_calls[2], waitv_other;
static uint64_t wait_ns, wait_calls;

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

static void nosys(const char *call)
{
	fprintf(stderr, "futex2: %s: %s (syscall not in this kernel)\n", call, strerror(errno));
	exit(3);
}

__attribute__((noinline)) void release_word(uint32_t *w)
{
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
	if (syscall(NR_FUTEX_WAKE, w, 0xffffffffUL, 0x7fffffff, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE) < 0 &&
	    errno == ENOSYS)
		nosys("futex_wake");
}

__attribute__((noinline)) void *holder_thread(void *arg)
{
	(void)arg;
	holder_tid = gettid();
	uint64_t t = now_ns();
	for (long i = 0; i < periods; i++) {
		__atomic_store_n(&word_a, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&word_b, 1, __ATOMIC_RELEASE);
		sleep_until(t + HOLD_NS);
		release_word(i % 2 ? &word_b : &word_a);
		sleep_until(t + HOLD_NS + GAP_NS);
		release_word(i % 2 ? &word_a : &word_b);
		t += PERIOD_NS;
		sleep_until(t);
	}
	return NULL;
}

__attribute__((noinline)) void *waitv_thread(void *arg)
{
	(void)arg;
	waitv_tid = gettid();
	struct timespec nap = { 0, 1000000 };
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&word_a, __ATOMIC_ACQUIRE) &&
		       __atomic_load_n(&word_b, __ATOMIC_ACQUIRE)) {
			struct waitv v[2] = {
				{ 1, (uintptr_t)&word_a, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
				{ 1, (uintptr_t)&word_b, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
			};
			uint64_t t0 = now_ns();
			long r = syscall(NR_FUTEX_WAITV, v, 2u, 0u, NULL, CLOCK_MONOTONIC);
			uint64_t d = now_ns() - t0;
			if (r < 0 && errno == ENOSYS)
				nosys("futex_waitv");
			if (r == 0 || r == 1) {
				waitv_ns[r] += d;
				waitv_calls[r]++;
			} else {
				waitv_other++;
			}
		}
		nanosleep(&nap, NULL);
	}
	return NULL;
}

__attribute__((noinline)) void *wait_thread(void *arg)
{
	(void)arg;
	wait_tid = gettid();
	struct timespec nap = { 0, 1000000 };
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&word_a, __ATOMIC_ACQUIRE)) {
			uint64_t t0 = now_ns();
			long r = syscall(NR_FUTEX_WAIT, &word_a, 1UL, 0xffffffffUL,
					 FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, NULL, CLOCK_MONOTONIC);
			wait_ns += now_ns() - t0;
			wait_calls++;
			if (r < 0 && errno == ENOSYS)
				nosys("futex_wait");
		}
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: futex2 EXPECT_FILE [PERIODS]\n");
		return 2;
	}
	if (argc > 2)
		periods = atol(argv[2]);
	FILE *exp = fopen(argv[1], "w");
	if (!exp) {
		perror(argv[1]);
		return 1;
	}
	pthread_t holder, wv, w;
	pthread_create(&wv, NULL, waitv_thread, NULL);
	pthread_create(&w, NULL, wait_thread, NULL);
	pthread_create(&holder, NULL, holder_thread, NULL);
	pthread_join(holder, NULL);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	pthread_join(wv, NULL);
	pthread_join(w, NULL);
	for (int pass = 0; pass < 2; pass++) {
		FILE *f = pass ? stdout : exp;
		fprintf(f, "pid %d\nword_a %p\nword_b %p\nholder %d %ld\n", getpid(),
			(void *)&word_a, (void *)&word_b, holder_tid, periods);
		fprintf(f, "waitv %d %llu %llu %llu %llu %llu\n", waitv_tid,
			(unsigned long long)waitv_ns[0], (unsigned long long)waitv_ns[1],
			(unsigned long long)waitv_calls[0], (unsigned long long)waitv_calls[1],
			(unsigned long long)waitv_other);
		fprintf(f, "wait %d %llu %llu\n", wait_tid, (unsigned long long)wait_ns,
			(unsigned long long)wait_calls);
	}
	if (fclose(exp) != 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
