/* b.c — the other file defining a static helper (see a.c); its body
 * differs so that the two cannot be folded into one by the linker. */
#include "statics.h"

static volatile unsigned long sink_b;

/* placed lower in its file than a.c's, so that the lines differ too:
 * the files alone tell the two apart in the profile, the oracle (nm -l)
 * gives both */

__attribute__((noinline)) static unsigned long helper(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < 20000; i++)
		x ^= (x << 7) + (x >> 3) + i;
	return x;
}

unsigned long run_b(unsigned long n)
{
	sink_b = helper(n);
	return sink_b;
}
