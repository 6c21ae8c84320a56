/* burn.c — a multi-threaded workload with known hot functions.
 *
 *   burn [--cpu] [--spawn-every MS] [SECONDS] [THREADS]
 *
 * Threads are named (pthread_setname_np) "burn-N"; each spends most of its
 * time in hot_leaf() under a fixed call path main-or-thread_main →
 * worker_loop → compute_outer → compute_mid → hot_leaf, and some in
 * sort_step() (qsort with a callback, so stacks pass through libc).
 * One extra thread, "sleeper", blocks in nanosleep so it context-switches
 * off-CPU.  The main thread works too.  Tests look for these names.
 *
 * --spawn-every MS adds a "spawner" thread that creates a short-lived
 * thread ("spawned-N", 10 ms in the hot path) every MS ms from
 * spawn_worker() → start_one(), so that thread creations happen
 * while a profiler attached to a running burn records (thread-creation
 * stacks); it prints "spawned N" after the Nth has ended (its own count,
 * which a test waits on).  Without the flag nothing changes.
 *
 * --cpu: SECONDS of CPU time, the process's (all its threads), not of the
 * wall clock: a test that counts samples of cpu-clock (F per second of a
 * thread's CPU time) gets the same work however loaded the machine is,
 * which only stretches the run.
 *
 * The emulated boards (test/boards/mkinitramfs.sh) cross-build this same
 * file with two switches:
 *   BURN_LFIND      the path through libc is search_step → lfind →
 *                   cmp_key → key_of instead of qsort.  Debian's armhf libc
 *                   marks memcpy, malloc and other code built without
 *                   unwind tables EXIDX_CANTUNWIND, and glibc's qsort (a
 *                   merge sort) calls memcpy after every merge, so samples
 *                   there cannot be unwound by anyone; lfind is a plain C
 *                   loop with unwind tables whose callback does real work:
 *                   the stacks the EHABI unwinder must carry back to main.
 *                   BURN_LFIND_EVERY=N takes that path every N calls of
 *                   compute_outer instead of 150 (viewer-baseline-test
 *                   wants it a tenth of the samples or more).
 *   BURN_HOT_ONLY   only the hot path (hot_leaf … compute_outer), for the
 *                   boards' libboardhot.so;
 *   BURN_HOT_EXTERN the program without the hot path, linked against that
 *                   library: the viewer must find a workload library by
 *                   its mapping and build-id, not only the executable.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the hot path: exported, so that the boards' library variant can hold it */
unsigned long hot_leaf(unsigned long x);
unsigned long compute_mid(unsigned long x);
unsigned long compute_outer(unsigned long x);

#ifndef BURN_HOT_EXTERN
__attribute__((noinline)) unsigned long hot_leaf(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 1664525ul + 1013904223ul; /* fits 32-bit longs too (armv7 boards) */
	return x;
}

static inline unsigned long inlined_mix(unsigned long x)
{
	/* inlined into compute_mid: its lines must show up as inline frames */
	for (int i = 0; i < 200; i++)
		x ^= x >> 7, x ^= x << 9;
	return x;
}

__attribute__((noinline)) unsigned long compute_mid(unsigned long x)
{
	x = hot_leaf(x);
	return inlined_mix(x);
}

__attribute__((noinline)) unsigned long compute_outer(unsigned long x)
{
	return compute_mid(x) + 1;
}
#endif

#ifndef BURN_HOT_ONLY
static volatile int stop;
static volatile unsigned long sink;

#ifndef BURN_LFIND
static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
	return x < y ? -1 : x > y;
}

__attribute__((noinline)) void sort_step(unsigned long seed)
{
	unsigned long v[256];
	for (int i = 0; i < 256; i++)
		v[i] = seed = seed * 2862933555777941757ul + 3037000493ul;
	qsort(v, 256, sizeof(v[0]), cmp_ulong);
	sink += v[128];
}

#define libc_step sort_step
#define COMPUTE_PER_LIBC_STEP 50
#else
__attribute__((noinline)) static unsigned long key_of(unsigned long x)
{
	for (int i = 0; i < 48; i++)
		x = (x ^ (x >> 5)) * 2654435761ul;
	return x;
}

static int cmp_key(const void *a, const void *b)
{
	unsigned long x = key_of(*(const unsigned long *)a);
	unsigned long y = key_of(*(const unsigned long *)b);
	return x != y;
}

__attribute__((noinline)) void search_step(unsigned long seed)
{
	unsigned long v[64], key;
	size_t n = 64;
	for (int i = 0; i < 64; i++)
		v[i] = seed = seed * 1664525ul + 1013904223ul;
	key = v[63] + 1; /* absent: lfind calls cmp_key for every element */
	sink += lfind(&key, v, &n, sizeof(v[0]), cmp_key) != NULL;
}
#define libc_step search_step
#ifdef BURN_LFIND_EVERY /* a heavier libc path (viewer-baseline-test) */
#define COMPUTE_PER_LIBC_STEP BURN_LFIND_EVERY
#else
#define COMPUTE_PER_LIBC_STEP 150
#endif
#endif

__attribute__((noinline)) void worker_loop(unsigned long seed)
{
	while (!stop) {
		for (int i = 0; i < COMPUTE_PER_LIBC_STEP; i++)
			seed = compute_outer(seed);
		libc_step(seed);
		sink += seed;
	}
}

static void *thread_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "burn-%ld", (long)(size_t)arg);
	pthread_setname_np(pthread_self(), name);
	worker_loop((unsigned long)(size_t)arg + 1);
	return NULL;
}

static void *sleeper_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "sleeper");
	while (!stop) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		sink += hot_leaf(sink) & 1;
	}
	return NULL;
}

static void *spawned_main(void *arg)
{
	char name[16];
	snprintf(name, sizeof(name), "spawned-%ld", (long)(size_t)arg % 100000);
	pthread_setname_np(pthread_self(), name);
	/* about 10 ms of the hot path: it shows up on the timeline */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = (unsigned long)(size_t)arg;
	do {
		x = compute_outer(x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 10000000L);
	sink += x & 1;
	return NULL;
}

/* Not static and not a tail call: the stack at clone() keeps both frames
 * (fp call chains lose the innermost caller of libc, dwarf ones do not). */
__attribute__((noinline)) pthread_t start_one(long n)
{
	pthread_t t;
	if (pthread_create(&t, NULL, spawned_main, (void *)(size_t)n) != 0)
		return 0;
	sink += (unsigned long)n;
	return t;
}

__attribute__((noinline)) void spawn_worker(long every_ms)
{
	for (long n = 1; !stop; n++) {
		pthread_t t = start_one(n);
		if (t) {
			pthread_join(t, NULL);
			/* the program's own count, for a test that waits on it */
			printf("spawned %ld\n", n);
			fflush(stdout);
		}
		struct timespec ts = { every_ms / 1000, (every_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
	sink += 1;
}

static void *spawner_main(void *arg)
{
	pthread_setname_np(pthread_self(), "spawner");
	spawn_worker((long)(size_t)arg);
	return NULL;
}

static int cpu_secs; /* --cpu: SECONDS are the process's CPU time */

static void *timer_main(void *arg)
{
	double secs = *(double *)arg;
	if (cpu_secs) {
		struct timespec tick = { 0, 10 * 1000 * 1000 }, used;
		do {
			nanosleep(&tick, NULL);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &used);
		} while (used.tv_sec + used.tv_nsec / 1e9 < secs);
		stop = 1;
		return NULL;
	}
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	nanosleep(&ts, NULL);
	stop = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	long spawn_ms = 0;
	if (argc > 1 && !strcmp(argv[1], "--cpu")) {
		cpu_secs = 1;
		argv[1] = argv[0];
		argv++;
		argc--;
	}
	if (argc > 2 && !strcmp(argv[1], "--spawn-every")) {
		spawn_ms = atol(argv[2]);
		if (spawn_ms < 1)
			spawn_ms = 1;
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
	}
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	int nthreads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t th[64], sl, tm, sp;
	if (nthreads < 0 || nthreads > 64)
		nthreads = 2;
	pthread_create(&tm, NULL, timer_main, &secs);
	pthread_create(&sl, NULL, sleeper_main, NULL);
	if (spawn_ms)
		pthread_create(&sp, NULL, spawner_main, (void *)(size_t)spawn_ms);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)(size_t)(i + 1));
	worker_loop(0);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_join(sl, NULL);
	if (spawn_ms)
		pthread_join(sp, NULL);
	pthread_join(tm, NULL);
	printf("burn done %lu\n", sink & 0xff);
	return 0;
}
#endif /* BURN_HOT_ONLY */
