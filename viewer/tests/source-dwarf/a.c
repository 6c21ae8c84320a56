/* a.c — one of two files of the "statics" test program
 * (viewer-source-dwarf-test.c, viewer-cli-statics-test.sh) that each
 * define a static function named helper: two functions for the profile,
 * each opened at its own file.  This one loops four times as long as
 * b.c's, so that its row has about four times the samples: the CLI test
 * tells the two rows apart by that too. */
#include "statics.h"

static volatile unsigned long sink_a;

__attribute__((noinline)) static unsigned long
helper(unsigned long n)
{
	unsigned long x = n;
	for (unsigned long i = 0; i < 80000; i++)
		x = x * 6364136223846793005ul + i;
	return x;
}

unsigned long run_a(unsigned long n)
{
	sink_a = helper(n);
	return sink_a;
}
