/* periodic.c — a periodic task for the periods tests: a SCHED_OTHER thread
 * named "periodic" wakes every PERIOD on an absolute grid
 * (clock_nanosleep TIMER_ABSTIME on CLOCK_MONOTONIC, the clock of the
 * recording), and each activation burns WORK of its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), a known amount whatever the load.  Every
 * LATE_EVERY-th activation is deliberately late: it sleeps until 4 ms
 * after its release and burns 7 ms, so that it ends after its deadline
 * (the next release) and misses.  After a miss the next release is the
 * first one of the grid still ahead (the ones passed are skipped, as a
 * control loop that keeps its phase does).
 *
 *   periodic LOG_FILE [COUNT [LATE_EVERY [MARKERS]]]
 *     COUNT activations (default 300), LATE_EVERY (default 12, 0: none),
 *     MARKERS 1: each activation's work between pl_mark_begin("cycle") and
 *     pl_mark_end("cycle") (record with --markers).
 *
 * LOG_FILE gets, written once at the end (no I/O between activations):
 *   pid PID tid TID period_ns PERIOD
 *   act K RELEASE_NS START_NS FINISH_NS CPU_NS MISS
 * START is read when clock_nanosleep returned, FINISH before the next
 * call; CPU is the thread's CPU time between the two reads; MISS is 1 when
 * FINISH is after RELEASE + PERIOD. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../include/perflens-marker.h"

#define PERIOD_NS 10000000ull
#define WORK_NS 2000000ull
#define LATE_OFFSET_NS 4000000ull
#define LATE_WORK_NS 7000000ull

typedef struct {
	uint64_t release, start, finish, cpu;
	int miss;
} Act;

static int count = 300, late_every = 12, markers;
static Act *acts;
static pid_t worker_tid;

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* burns ns of this thread's CPU time */
__attribute__((noinline)) static void work(uint64_t ns)
{
	uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	volatile uint64_t x = 0;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i * x + 1;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ull), (long)(t % 1000000000ull) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *run(void *arg)
{
	(void)arg;
	worker_tid = gettid();
	pthread_setname_np(pthread_self(), "periodic");
	uint64_t release = (clock_ns(CLOCK_MONOTONIC) / PERIOD_NS + 2) * PERIOD_NS;
	for (int k = 0; k < count; k++) {
		int late = late_every && k % late_every == late_every - 1;
		sleep_until(release + (late ? LATE_OFFSET_NS : 0));
		Act *a = &acts[k];
		a->start = clock_ns(CLOCK_MONOTONIC);
		uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (markers)
			pl_mark_begin("cycle");
		work(late ? LATE_WORK_NS : WORK_NS);
		if (markers)
			pl_mark_end("cycle");
		a->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
		a->finish = clock_ns(CLOCK_MONOTONIC);
		a->release = release;
		a->miss = a->finish > release + PERIOD_NS;
		do
			release += PERIOD_NS;
		while (release <= a->finish);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: periodic LOG_FILE [COUNT [LATE_EVERY [MARKERS]]]\n");
		return 2;
	}
	if (argc > 2)
		count = atoi(argv[2]);
	if (argc > 3)
		late_every = atoi(argv[3]);
	if (argc > 4)
		markers = atoi(argv[4]);
	if (count <= 0 || late_every < 0) {
		fprintf(stderr, "periodic: COUNT must be positive, LATE_EVERY 0 or more\n");
		return 2;
	}
	/* allocated and touched before the loop: no page fault in it */
	acts = calloc((size_t)count, sizeof(*acts));
	if (!acts) {
		perror("periodic: calloc");
		return 1;
	}
	memset(acts, 0, (size_t)count * sizeof(*acts));
	pthread_t th;
	int e = pthread_create(&th, NULL, run, NULL);
	if (e) {
		fprintf(stderr, "periodic: pthread_create: %s\n", strerror(e));
		return 1;
	}
	pthread_join(th, NULL);
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "periodic: cannot write %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int misses = 0;
	fprintf(f, "pid %d tid %d period_ns %llu\n", (int)getpid(), (int)worker_tid,
		(unsigned long long)PERIOD_NS);
	for (int k = 0; k < count; k++) {
		const Act *a = &acts[k];
		misses += a->miss;
		fprintf(f, "act %d %llu %llu %llu %llu %d\n", k, (unsigned long long)a->release,
			(unsigned long long)a->start, (unsigned long long)a->finish,
			(unsigned long long)a->cpu, a->miss);
	}
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "periodic: writing %s failed\n", argv[1]);
		return 1;
	}
	printf("periodic: %d activations, %d deadline misses\n", count, misses);
	return 0;
}
