/* main.c — the "statics" test program: calls a.c's and b.c's helper in
 * turn for SECONDS (argv[1], default 1) seconds; with a second argument
 * "a", a.c's alone (the recording a diff compares with both). */
#include <stdlib.h>
#include <string.h>
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
	int only_a = argc > 2 && !strcmp(argv[2], "a");
	unsigned long v = 1;
	while (now() < end)
		for (int i = 0; i < 50; i++)
			v += run_a(v) + (only_a ? 0 : run_b(v));
	return v == 42;
}
