/* syscalls.c — a program whose calls are known, for the uprobe, kprobe
 * and slow-system-call tests (issue 19):
 *   - counted_call() is called exactly CALLS times (a uprobe on it must
 *     count that many hits);
 *   - slow_sleep() sleeps 5 ms with clock_nanosleep exactly 20 times, among
 *     100 sleeps of 0.1 ms in short_sleep() and fast calls (getppid, a
 *     write to /dev/null) on the main thread, while a second thread makes
 *     100 sleeps of 0.2 ms and fast calls of its own.
 *
 *   syscalls EXPECT_FILE [CALLS]
 *
 * EXPECT_FILE says what the program did, for the test to compare:
 *   pid PID
 *   calls N                          counted_call() calls
 *   nanosleeps N                     clock_nanosleep calls, both threads
 *   slow TID MEASURED_NS             each 5 ms sleep, measured around it
 * The program's stdout says the same count ("counted_call: N calls"). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define SLOW 20
#define SHORT 100

static volatile unsigned long sink;
static int devnull = -1;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the function the uprobe test counts */
__attribute__((noinline)) void counted_call(unsigned long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

static void nap(long ns)
{
	struct timespec d = { 0, ns };
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, &d) != 0)
		;
}

/* the call site the slow calls' stacks must show */
__attribute__((noinline)) void slow_sleep(void)
{
	nap(5000000);
}

__attribute__((noinline)) void short_sleep(long ns)
{
	nap(ns);
}

__attribute__((noinline)) static void fast_calls(void)
{
	char c = 'x';
	(void)getppid();
	if (write(devnull, &c, 1) != 1)
		abort();
}

static void *helper(void *arg)
{
	(void)arg;
	for (int i = 0; i < SHORT; i++) {
		short_sleep(200000);
		fast_calls();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: syscalls EXPECT_FILE [CALLS]\n");
		return 2;
	}
	unsigned long calls = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
	FILE *expect = fopen(argv[1], "w");
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!expect || devnull < 0)
		return 1;
	fprintf(expect, "pid %d\n", (int)getpid());
	for (unsigned long i = 0; i < calls; i++)
		counted_call(i);
	fprintf(expect, "calls %lu\n", calls);
	printf("counted_call: %lu calls\n", calls);

	pthread_t t;
	if (pthread_create(&t, NULL, helper, NULL) != 0)
		return 1;
	uint64_t slow_ns[SLOW];
	for (int k = 0, s = 0; k < SHORT; k++) {
		short_sleep(100000);
		fast_calls();
		if (k % (SHORT / SLOW) == SHORT / SLOW / 2) {
			uint64_t t0 = now_ns();
			slow_sleep();
			slow_ns[s++] = now_ns() - t0;
		}
	}
	pthread_join(t, NULL);
	fprintf(expect, "nanosleeps %d\n", SLOW + 2 * SHORT);
	for (int s = 0; s < SLOW; s++)
		fprintf(expect, "slow %d %llu\n", (int)gettid(), (unsigned long long)slow_ns[s]);
	return fclose(expect) == 0 ? 0 : 1;
}
