/* board-burn.c — the multi-threaded workload cross-built for the emulated
 * boards (test/boards/README.md).
 *
 *   burn [SECONDS] [THREADS]
 *
 * Same shape as test/workloads/burn.c, which the host tests use: threads
 * named "burn-N" spend most of their time in hot_leaf() under
 * main-or-thread_main → worker_loop → compute_outer → compute_mid →
 * hot_leaf, a "sleeper" thread blocks in nanosleep, the main thread works
 * too.  One difference, for ARM32: Debian's armhf libc marks memcpy,
 * malloc, pthread_create, mmap and other code built without unwind tables
 * EXIDX_CANTUNWIND, and glibc's qsort (a merge sort) calls memcpy after
 * every merge, so a sample there cannot be unwound by anyone.  The path
 * through libc here is lfind() instead, a plain C loop with unwind tables
 * whose comparison callback does real work (cmp_key → key_of): the stacks
 * "key_of ← cmp_key ← lfind ← search_step" are the ones the EHABI unwinder
 * must carry back to main.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board-burn.h"

static volatile int stop;
static volatile unsigned long sink;

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

__attribute__((noinline)) void worker_loop(unsigned long seed)
{
	while (!stop) {
		for (int i = 0; i < 150; i++)
			seed = compute_outer(seed);
		search_step(seed);
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

static void *timer_main(void *arg)
{
	double secs = *(double *)arg;
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	nanosleep(&ts, NULL);
	stop = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	int nthreads = argc > 2 ? atoi(argv[2]) : 2;
	pthread_t th[64], sl, tm;
	if (nthreads < 0 || nthreads > 64)
		nthreads = 2;
	pthread_create(&tm, NULL, timer_main, &secs);
	pthread_create(&sl, NULL, sleeper_main, NULL);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, thread_main, (void *)(size_t)(i + 1));
	worker_loop(0);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_join(sl, NULL);
	pthread_join(tm, NULL);
	printf("burn done %lu\n", sink & 0xff);
	return 0;
}
