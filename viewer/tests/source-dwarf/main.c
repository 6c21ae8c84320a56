/* main.c — the "statics" test program: calls a.c's and b.c's helper in
 * turn for SECONDS (argv[1], default 1) seconds. */
#include <stdlib.h>
#include <time.h>

#include "statics.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	unsigned long v = 1;
	while (now() < end)
		for (int i = 0; i < 50; i++)
			v += run_a(v) + run_b(v);
	return v == 42;
}
