/* threads — many busy threads, as in a real server: `threads N [SECONDS]`
 * starts N threads that each spin in spin_leaf() (called from spin_loop())
 * until SECONDS (default 60) have passed, then exits.  Prints "ready"
 * once every thread runs.  For attaching (--pid) to a process with
 * hundreds of threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long spin_leaf(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static void *spin_loop(void *arg)
{
	unsigned long x = (unsigned long)arg;
	while (!stop)
		x = spin_leaf(x);
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	int seconds = argc > 2 ? atoi(argv[2]) : 60;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], &a, spin_loop, (void *)(unsigned long)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	printf("ready\n");
	fflush(stdout);
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL);
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
