/* naps.c — slow system calls made through libc, for the tests of stacks
 * at events: sleep_long() naps 5 ms LONG times and sleep_short() 0.1 ms
 * SHORT times, each with libc's nanosleep() (clock_nanosleep underneath),
 * all on the main thread.  libc has no frame pointers, so the kernel's
 * frame chain at the call reads `clock_nanosleep < main`: the caller of
 * libc, sleep_long or sleep_short, is skipped; the stack copy unwound with
 * CFI (or EHABI) names it.
 *
 *   naps EXPECT_FILE
 *
 * EXPECT_FILE says what the program did, for the test to compare:
 *   pid PID
 *   long N                           sleep_long() calls (5 ms each)
 *   short N                          sleep_short() calls (0.1 ms each)
 *   slow MEASURED_NS                 each sleep_long, measured around it */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define LONG 20
#define SHORT 100

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the call site the slow calls' stacks must show */
__attribute__((noinline)) void sleep_long(void)
{
	struct timespec d = { 0, 5000000 };
	while (nanosleep(&d, &d) != 0)
		;
}

__attribute__((noinline)) void sleep_short(void)
{
	struct timespec d = { 0, 100000 };
	while (nanosleep(&d, &d) != 0)
		;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: naps EXPECT_FILE\n");
		return 2;
	}
	FILE *expect = fopen(argv[1], "w");
	if (!expect)
		return 1;
	uint64_t slow_ns[LONG];
	for (int k = 0, s = 0; k < SHORT; k++) {
		sleep_short();
		if (k % (SHORT / LONG) == SHORT / LONG / 2) {
			uint64_t t0 = now_ns();
			sleep_long();
			slow_ns[s++] = now_ns() - t0;
		}
	}
	fprintf(expect, "pid %d\nlong %d\nshort %d\n", (int)getpid(), LONG, SHORT);
	for (int s = 0; s < LONG; s++)
		fprintf(expect, "slow %llu\n", (unsigned long long)slow_ns[s]);
	return fclose(expect) == 0 ? 0 : 1;
}
