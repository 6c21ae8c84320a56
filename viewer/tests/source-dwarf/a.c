/* a.c — one of two files of the "statics" test program
 * (viewer-source-dwarf-test.c) that each define a static function named
 * helper: two functions for the profile, each opened at its own file. */
#include "statics.h"

static volatile unsigned long sink_a;

__attribute__((noinline)) static unsigned long
helper(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < 20000; i++)
		x = x * 6364136223846793005ul + i;
	return x;
}

unsigned long run_a(unsigned long n)
{
	sink_a = helper(n);
	return sink_a;
}
