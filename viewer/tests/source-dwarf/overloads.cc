// overloads.cc — the C++ test program of viewer-source-dwarf-test.c:
// two overloads of work() (one short name, two mangled names and entry
// addresses) and a member function defined, indented, inside its class.
#include <cstdlib>
#include <ctime>

static volatile double sink_d;
static volatile long sink_l;

__attribute__((noinline)) double work(double x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}

__attribute__((noinline)) long work(long x)
{
	for (long i = 0; i < 20000; i++)
		x = x * 31 + i;
	return x;
}

namespace calc {
	struct Acc {
		long v = 1;
		__attribute__((noinline)) long spin(long n)
		{
			for (long i = 0; i < n; i++)
				v = v * 17 + i;
			return v;
		}
	};
}

static double now()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	calc::Acc acc;
	while (now() < end)
		for (int i = 0; i < 50; i++) {
			sink_d = work((double)i);
			sink_l = work((long)i);
			sink_l = acc.spin(20000);
		}
	return 0;
}
