/* rss.c — a process whose resident set grows by known steps, and which
 * says what its own /proc/self/statm reads at each.
 *
 *   rss STEPS MIB HOLD_MS
 *
 * STEPS times: allocates MIB MiB (mmap, so that free memory is not reused
 * from an earlier step), writes every page, reads /proc/self/statm and
 * prints "step N T_NS RSS_BYTES" (T_NS: CLOCK_MONOTONIC, the agent's
 * session clock, right after the read), then sleeps HOLD_MS and prints
 * "held N T_NS RSS_BYTES" read again at the end of the hold; then exits.
 * Between a step line and its held line the program touches no new
 * memory: a counter track of its RSS polled inside that window must read
 * what the program read (tests allow the few pages of the printing).
 * Output is line-buffered (stdout may be a pipe or a file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static unsigned long long rss_bytes(void)
{
	unsigned long long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%llu %llu", &size, &resident) != 2) {
		fprintf(stderr, "rss: cannot read /proc/self/statm\n");
		exit(1);
	}
	fclose(f);
	return resident * (unsigned long long)sysconf(_SC_PAGESIZE);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: rss STEPS MIB HOLD_MS\n");
		return 2;
	}
	int steps = atoi(argv[1]);
	size_t bytes = (size_t)atoi(argv[2]) << 20;
	long hold_ms = atol(argv[3]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("start 0 %llu %llu\n", now_ns(), rss_bytes());
	for (int i = 1; i <= steps; i++) {
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("rss: mmap");
			return 1;
		}
		memset(p, i, bytes);
		unsigned long long r = rss_bytes();
		printf("step %d %llu %llu\n", i, now_ns(), r);
		struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
		r = rss_bytes();
		printf("held %d %llu %llu\n", i, now_ns(), r);
	}
	return 0;
}
