/* glitch.c — a program that misbehaves once, for the flight recorder
 * tests: it spins WARM_MS in warmup_spin() and marks "startup", sleeps
 * QUIET_MS, spins BURST_MS in burst_work() and marks "glitch now", then
 * spins AFTER_MS in after_spin() and exits with STATUS.
 *
 *   glitch EXPECT_FILE QUIET_MS BURST_MS [STATUS [WARM_MS [AFTER_MS]]]
 *
 * EXPECT_FILE gets, one line each (CLOCK_MONOTONIC ns, the samples' clock):
 *   pid PID
 *   startup NS        (the first marker)
 *   burst BEGIN END
 *   glitch NS         (the marker after the burst) */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../include/perflens-marker.h"

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* each a separate function, so the flame graph names the phase */
__attribute__((noinline)) static void spin_until(uint64_t end)
{
	uint64_t x = sink;
	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

__attribute__((noinline)) static void warmup_spin(uint64_t ms)
{
	spin_until(now_ns() + ms * 1000000u);
	__asm__ volatile("" ::: "memory"); /* keeps the frame */
}

__attribute__((noinline)) static void burst_work(uint64_t ms)
{
	spin_until(now_ns() + ms * 1000000u);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void after_spin(uint64_t ms)
{
	spin_until(now_ns() + ms * 1000000u);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: glitch EXPECT_FILE QUIET_MS BURST_MS [STATUS [WARM_MS [AFTER_MS]]]\n");
		return 2;
	}
	FILE *e = fopen(argv[1], "w");
	if (!e) {
		perror(argv[1]);
		return 2;
	}
	uint64_t quiet = strtoull(argv[2], NULL, 10), burst = strtoull(argv[3], NULL, 10);
	int status = argc > 4 ? atoi(argv[4]) : 0;
	uint64_t warm = argc > 5 ? strtoull(argv[5], NULL, 10) : 100;
	uint64_t after = argc > 6 ? strtoull(argv[6], NULL, 10) : 0;
	fprintf(e, "pid %d\n", (int)getpid());
	warmup_spin(warm);
	fprintf(e, "startup %llu\n", (unsigned long long)now_ns());
	pl_mark("startup");
	struct timespec q = { (time_t)(quiet / 1000), (long)(quiet % 1000) * 1000000L };
	while (nanosleep(&q, &q) != 0)
		;
	uint64_t b0 = now_ns();
	burst_work(burst);
	uint64_t b1 = now_ns();
	pl_mark("glitch now");
	fprintf(e, "burst %llu %llu\nglitch %llu\n", (unsigned long long)b0, (unsigned long long)b1,
		(unsigned long long)now_ns());
	after_spin(after);
	if (fclose(e) != 0) {
		perror(argv[1]);
		return 2;
	}
	return status;
}
