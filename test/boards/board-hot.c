/* board-hot.c — the hot path of the board workload (see board-burn.c).
 *
 * Built into the program for the "burn" and "burn-nofp" variants and into
 * libboardhot.so for "burn-lib", so one variant's hot frames live in a
 * shared library of the workload's own: the viewer must find that library
 * by its mapping and build-id, not only the main executable.
 */
#include "board-burn.h"

__attribute__((noinline)) unsigned long hot_leaf(unsigned long x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 1664525ul + 1013904223ul;
	return x;
}

static inline unsigned long inlined_mix(unsigned long x)
{
	/* inlined into compute_mid: its lines must show up as inline frames */
	for (int i = 0; i < 200; i++)
		x ^= x >> 7, x ^= x << 9;
	return x;
}

__attribute__((noinline)) unsigned long compute_mid(unsigned long x)
{
	x = hot_leaf(x);
	return inlined_mix(x);
}

__attribute__((noinline)) unsigned long compute_outer(unsigned long x)
{
	return compute_mid(x) + 1;
}
