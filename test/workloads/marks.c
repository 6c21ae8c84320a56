/* marks.c — a program using include/perflens-marker.h, for the marker
 * tests (issue 19): THREADS threads (main included) each write ROUNDS
 * markers "t<i> step <k>" and, around a sleep of (3 + (i + k) % 4) ms, a
 * begin/end pair "sleep_t<i>" nested in an "round_t<i>" interval; then a
 * token goes RELAY times around the ring of threads through pipes, each
 * pass a write that wakes the next thread in its read (sched_wakeup in the
 * writer's context, for the tracepoint tests).
 *
 *   marks EXPECT_FILE [THREADS [ROUNDS]]
 *
 * EXPECT_FILE gets what the program did, one line each, for the test to
 * compare with what was recorded:
 *   pid PID
 *   mark TID TEXT
 *   slept TID NAME NOMINAL_NS INNER_NS OUTER_NS
 * INNER the sleep alone (after the begin marker's write returned, before
 * the end marker's began), OUTER from before the begin marker's write to
 * after the end marker's: the recorded interval lies between the two
 * however long a loaded machine keeps the thread from running between
 * a clock read and a write. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../include/perflens-marker.h"

static int rounds = 10, nthreads = 4;
#define RELAY 50
static int ring[64][2];
static FILE *expect;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&lock);
	vfprintf(expect, fmt, ap);
	pthread_mutex_unlock(&lock);
	va_end(ap);
}

/* the function the markers' stacks must show */
__attribute__((noinline)) static void step_marks(int i, int k)
{
	pl_mark("t%d step %d", i, k);
	record("mark %d t%d step %d\n", (int)gettid(), i, k);
}

__attribute__((noinline)) static void timed_sleep(int i, int k)
{
	char name[32];
	snprintf(name, sizeof(name), "sleep_t%d", i);
	long ms = 3 + (i + k) % 4;
	uint64_t outer0 = now_ns();
	pl_mark_begin(name);
	uint64_t t0 = now_ns();
	struct timespec d = { 0, ms * 1000000L };
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &d, &d) != 0)
		;
	uint64_t t1 = now_ns();
	pl_mark_end(name);
	uint64_t outer1 = now_ns();
	record("slept %d %s %ld %llu %llu\n", (int)gettid(), name, ms * 1000000L,
	       (unsigned long long)(t1 - t0), (unsigned long long)(outer1 - outer0));
}

static void *run(void *arg)
{
	int i = (int)(intptr_t)arg;
	char round[32];
	snprintf(round, sizeof(round), "round_t%d", i);
	for (int k = 0; k < rounds; k++) {
		pl_mark_begin(round);
		step_marks(i, k);
		timed_sleep(i, k);
		pl_mark_end(round);
	}
	/* the relay: thread 0 starts it, each passes the token on */
	char token = 't';
	int passes = RELAY;
	if (i == 0 && write(ring[1 % nthreads][1], &token, 1) != 1)
		return NULL;
	while (passes-- > 0) {
		if (read(ring[i][0], &token, 1) != 1)
			break;
		if ((i != 0 || passes > 0) && write(ring[(i + 1) % nthreads][1], &token, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: marks EXPECT_FILE [THREADS [ROUNDS]]\n");
		return 2;
	}
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	nthreads = threads;
	rounds = argc > 3 ? atoi(argv[3]) : 10;
	if (threads < 1 || threads > 64 || rounds < 1)
		return 2;
	expect = fopen(argv[1], "w");
	if (!expect)
		return 1;
	setvbuf(expect, NULL, _IOLBF, 0);
	fprintf(expect, "pid %d\n", (int)getpid());
	for (int i = 0; i < threads; i++)
		if (pipe(ring[i]) < 0)
			return 1;
	pthread_t t[64];
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, run, (void *)(intptr_t)i);
	run((void *)0);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	fclose(expect);
	return 0;
}
