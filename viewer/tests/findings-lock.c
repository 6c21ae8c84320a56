/* findings-lock.c — a lock-contended program for viewer-findings-test.sh:
 * `findings-lock SECONDS` runs two threads (main and "locker") that each,
 * until SECONDS have passed, take one mutex, hold it 4 ms sleeping, let it
 * go and sleep 1 ms.  Each thread measures the time it waited in
 * pthread_mutex_lock (CLOCK_MONOTONIC around the call) and prints
 * "lockwait_ms THREAD MS" at the end: the oracle for the report's lock
 * waits. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static double seconds;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *loop(void *arg)
{
	double end = now() + seconds, waited = 0;
	while (now() < end) {
		double t0 = now();
		pthread_mutex_lock(&m);
		waited += now() - t0;
		usleep(4000);
		pthread_mutex_unlock(&m);
		usleep(1000);
	}
	printf("lockwait_ms %s %.1f\n", (const char *)arg, waited * 1e3);
	return NULL;
}

int main(int argc, char **argv)
{
	seconds = argc > 1 ? atof(argv[1]) : 2;
	pthread_t t;
	if (pthread_create(&t, NULL, loop, "locker") != 0)
		return 1;
	pthread_setname_np(t, "locker");
	loop("main");
	pthread_join(t, NULL);
	return 0;
}
