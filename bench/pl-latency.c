/* pl-latency.c — sample-to-screen latency: for every sample, the time from
 * its timestamp (taken by the kernel when it fired) to the moment its bytes
 * are decoded by a viewer-side reader on the same host.
 *
 *   pl-latency agent PORT TOKEN PID HZ fp|dwarf SECONDS
 *       connects to `perflens-agent --listen` on 127.0.0.1:PORT like a
 *       viewer (AUTH, START --pid PID, STOP after SECONDS) and decodes the
 *       stream with common/reader.c, the viewer core's reader.
 *   pl-latency perf-script SECONDS
 *       reads `perf script` output from stdin (perf record -k
 *       CLOCK_MONOTONIC) for SECONDS: the same measure for the pipeline
 *       `perf record -o - | perf script -i -`.
 *
 * The agent stamps samples with CLOCK_MONOTONIC (HELLO.clock_id, checked);
 * perf with -k CLOCK_MONOTONIC; both are compared with this process's
 * CLOCK_MONOTONIC taken right after decoding.  Prints one line:
 *   samples N p50_ms X p90_ms X p99_ms X max_ms X lost N
 * Exit 1 on a usage or connection error, with the reason on stderr.
 */
#include <inttypes.h>
#include <math.h>

#include "pl-test-agent.h"

/* pl-test-agent.h brings the test harness (pl-test.h), whose globals a test
 * program defines with PL_TEST_MAIN; this is no test, so define them here. */
jmp_buf pl_test_jmp;
void (*pl_test_after_case)(void);
char pl_test_why[512];
int pl_test_outcome;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int64_t *lat;
static size_t nlat, caplat;
static uint64_t lost;

static void add(int64_t ns)
{
	if (nlat == caplat) {
		caplat = caplat ? caplat * 2 : 65536;
		lat = realloc(lat, caplat * sizeof(*lat));
		if (!lat) {
			fprintf(stderr, "pl-latency: out of memory\n");
			exit(1);
		}
	}
	lat[nlat++] = ns;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static double pct(double p)
{
	size_t i = (size_t)ceil(p * (double)nlat) - 1;
	if (i >= nlat)
		i = nlat - 1;
	return (double)lat[i] / 1e6;
}

static int report(void)
{
	if (!nlat) {
		fprintf(stderr, "pl-latency: no samples received\n");
		return 1;
	}
	qsort(lat, nlat, sizeof(*lat), cmp_i64);
	printf("samples %zu p50_ms %.1f p90_ms %.1f p99_ms %.1f max_ms %.1f lost %" PRIu64 "\n",
	       nlat, pct(0.50), pct(0.90), pct(0.99), (double)lat[nlat - 1] / 1e6, lost);
	return 0;
}

static int run_agent(int port, const char *token, uint32_t pid, uint32_t hz, uint8_t cg,
		     double seconds)
{
	static struct pl_conn c;
	if (pl_conn_open(&c, port, 5000) < 0) {
		fprintf(stderr, "pl-latency: cannot connect to 127.0.0.1:%d: is the agent listening?\n",
			port);
		return 1;
	}
	if (pl_conn_wait(&c, PL_MSG_HELLO, 5000) != 1) {
		fprintf(stderr, "pl-latency: no HELLO from the agent\n");
		return 1;
	}
	if (c.m.u.hello.clock_id != CLOCK_MONOTONIC) {
		fprintf(stderr, "pl-latency: the agent's clock is %u, not CLOCK_MONOTONIC: latencies "
				"would be meaningless\n", c.m.u.hello.clock_id);
		return 1;
	}
	int st = pl_conn_auth(&c, token);
	if (st != 0) {
		fprintf(stderr, "pl-latency: AUTH refused (%d)\n", st);
		return 1;
	}
	static struct pl_msg m;
	m.type = PL_MSG_START;
	m.u.start.request_id = 100;
	m.u.start.target = PL_TARGET_PID;
	m.u.start.pid = pid;
	m.u.start.frequency = hz;
	m.u.start.callgraph = cg;
	m.u.start.stacks = PL_STACKS_USER;
	m.u.start.flags = PL_START_NO_SWITCHES; /* like perf record -g: samples only */
	if (pl_conn_send(&c, &m) < 0) {
		fprintf(stderr, "pl-latency: sending START failed\n");
		return 1;
	}
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	int started = 0;
	while (now_ns() < end) {
		int rc = pl_conn_next(&c, 200);
		if (rc < 0) {
			fprintf(stderr, "pl-latency: connection closed: %s\n", pl_reader_error(&c.r));
			break;
		}
		if (rc == 0)
			continue;
		uint64_t t = now_ns();
		switch (c.m.type) {
		case PL_MSG_REPLY:
			if (c.m.u.reply.request_id == 100) {
				if (c.m.u.reply.status != 0) {
					fprintf(stderr, "pl-latency: START refused: %.*s\n",
						(int)c.m.u.reply.message.len, c.m.u.reply.message.p);
					return 1;
				}
				started = 1;
			}
			break;
		case PL_MSG_SAMPLE:
			add((int64_t)(t - c.m.u.sample.time));
			break;
		case PL_MSG_LOST:
			lost += c.m.u.lost.count;
			break;
		case PL_MSG_END:
			end = 0;
			break;
		}
	}
	if (started)
		pl_conn_request(&c, PL_MSG_STOP);
	pl_conn_close(&c);
	return report();
}

/* perf script prints each sample's time as a token "12345.678901:"
 * (seconds, µs) among the first few of its first line ("comm tid time:
 * period event: ..." by default, alone with -F time); call-chain lines
 * ("\t  6b3ff sym+0x10 (dso)") have no such token. */
static int time_token(const char *p, uint64_t *ns)
{
	for (int tok = 0; tok < 4 && *p && *p != '\t'; tok++) {
		while (*p == ' ')
			p++;
		const char *q = p;
		uint64_t s = 0, us = 0;
		int nd = 0;
		while (*q >= '0' && *q <= '9')
			s = s * 10 + (uint64_t)(*q++ - '0'), nd++;
		if (nd && *q == '.') {
			q++;
			int nf = 0;
			while (*q >= '0' && *q <= '9' && nf < 9)
				us = us * 10 + (uint64_t)(*q++ - '0'), nf++;
			if (nf == 6 && *q == ':') {
				*ns = s * 1000000000ull + us * 1000ull;
				return 1;
			}
		}
		while (*p && *p != ' ')
			p++;
	}
	return 0;
}

/* Lines are split by hand over read(2) so that a quiet pipe (perf record
 * has not filled its ring yet) cannot keep us past the deadline. */
static int run_perf_script(double seconds)
{
	static char buf[1 << 16];
	size_t len = 0;
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	for (;;) {
		uint64_t t = now_ns();
		if (t >= end)
			break;
		struct pollfd p = { 0, POLLIN, 0 };
		if (poll(&p, 1, (int)((end - t) / 1000000) + 1) <= 0)
			continue;
		ssize_t n = read(0, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		t = now_ns();
		len += (size_t)n;
		buf[len] = 0;
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			uint64_t ts;
			if (time_token(line, &ts))
				add((int64_t)(t - ts));
			line = nl + 1;
		}
		len = (size_t)(buf + len - line);
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)
			len = 0; /* an absurdly long line: drop it */
	}
	if (!nlat) {
		/* nothing arrived in time: every sample is older than the window */
		printf("samples 0 p50_ms >%.0f p90_ms >%.0f p99_ms >%.0f max_ms >%.0f lost 0\n",
		       seconds * 1e3, seconds * 1e3, seconds * 1e3, seconds * 1e3);
		return 0;
	}
	return report();
}

int main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[1], "agent")) {
		uint8_t cg = !strcmp(argv[6], "dwarf") ? PL_CG_DWARF : PL_CG_FP;
		return run_agent(atoi(argv[2]), argv[3], (uint32_t)atoi(argv[4]),
				 (uint32_t)atoi(argv[5]), cg, atof(argv[7]));
	}
	if (argc == 3 && !strcmp(argv[1], "perf-script"))
		return run_perf_script(atof(argv[2]));
	fprintf(stderr, "usage: pl-latency agent PORT TOKEN PID HZ fp|dwarf SECONDS\n"
			"       pl-latency perf-script SECONDS   (stdin: perf script output)\n");
	return 1;
}
