/* irqload.c — /irqload DELAY_S LOAD_S: the boards' interrupt row
 * (test/integration/boards.sh, irq_check).  After DELAY_S seconds (the
 * host starts `perflens record --all --irq` meanwhile), it reads
 * /proc/interrupts and /proc/softirqs with the board's CLOCK_MONOTONIC (the
 * session clock) read before and after each read, makes LOAD_S seconds of
 * interrupts, reads both files again, and writes the two snapshots and
 * their times to /dev/console (or OUT), where the host reads them:
 *
 *   IRQLOAD T 0 BEFORE_NS AFTER_NS        the first snapshot's read
 *   IRQLOAD 0 <a line of /proc/interrupts or /proc/softirqs>
 *   IRQLOAD T 1 BEFORE_NS AFTER_NS        the second
 *   IRQLOAD 1 <...>
 *   IRQLOAD END DATAGRAMS
 *
 * Every interrupt the kernel counted between the snapshots ran between
 * the first's BEFORE and the second's AFTER; every one that ran between
 * the first's AFTER and the second's BEFORE was counted: the host holds
 * the recording's runs in each window to the counts' deltas.
 *
 * The load: UDP datagrams to a socket on 127.0.0.1 (loopback delivers
 * them in the NET_RX softirq) in bursts between 1 ms naps (timer
 * interrupts), beside a spinning child at nice 19 that keeps the CPU from idling
 * (an interrupt taken in the idle loop is counted all the same, but the
 * recording must not depend on how a board's idle state reports it). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* the whole file into buf (NUL-terminated); its length, or -1 */
static long slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, size - 1 - n);
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == size - 1) {
			close(fd);
			return -1; /* larger than the buffer: a count would be cut */
		}
	}
	close(fd);
	buf[n] = 0;
	return (long)n;
}

typedef struct {
	unsigned long long before, after;
	char interrupts[65536], softirqs[16384];
} Snapshot;

static int snapshot(Snapshot *s)
{
	s->before = now_ns();
	long a = slurp("/proc/interrupts", s->interrupts, sizeof(s->interrupts));
	long b = slurp("/proc/softirqs", s->softirqs, sizeof(s->softirqs));
	s->after = now_ns();
	return a < 0 || b < 0 ? -1 : 0;
}

/* each line of text as "IRQLOAD TAG line", one write each so that the
 * kernel's own console lines fall between them, not inside */
static int put_lines(int fd, const char *tag, const char *text)
{
	char line[1024];
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		int n = snprintf(line, sizeof(line), "IRQLOAD %s %.*s\n", tag, (int)len, text);
		if (n < 0 || (size_t)n >= sizeof(line) || write(fd, line, (size_t)n) != n)
			return -1;
		text += len + (nl != NULL);
	}
	return 0;
}

static int put_snapshot(int fd, const char *tag, const Snapshot *s)
{
	char line[128];
	int n = snprintf(line, sizeof(line), "IRQLOAD T %s %llu %llu\n", tag, s->before, s->after);
	if (write(fd, line, (size_t)n) != n)
		return -1;
	return put_lines(fd, tag, s->interrupts) || put_lines(fd, tag, s->softirqs) ? -1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: irqload DELAY_S LOAD_S [OUT]\n");
		return 2;
	}
	unsigned delay = (unsigned)atoi(argv[1]);
	unsigned long long load_ns = (unsigned long long)atoi(argv[2]) * 1000000000ull;
	static Snapshot s0, s1;
	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(to);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&to, sizeof(to)) < 0 ||
	    getsockname(rx, (struct sockaddr *)&to, &len) < 0) {
		perror("irqload: a UDP socket on 127.0.0.1");
		return 1;
	}
	sleep(delay);
	pid_t hog = fork();
	if (hog == 0) {
		/* below everyone: it fills idle time only, so the agent keeps
		 * the CPU it needs to drain the kernel's rings */
		if (nice(19) < 0)
			_exit(1);
		for (;;)
			;
	}
	if (hog < 0 || snapshot(&s0)) {
		perror("irqload: the spinning child or the first read of /proc");
		return 1;
	}
	unsigned long long end = s0.after + load_ns, sent = 0;
	char buf[64] = "irqload";
	const struct timespec nap = { 0, 1000000 };
	while (now_ns() < end) {
		for (int i = 0; i < 5; i++)
			if (sendto(tx, buf, sizeof(buf), 0, (struct sockaddr *)&to, sizeof(to)) ==
			    (ssize_t)sizeof(buf))
				sent++;
		while (recv(rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		nanosleep(&nap, NULL);
	}
	int rc = snapshot(&s1);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	if (rc) {
		perror("irqload: the second read of /proc");
		return 1;
	}
	int con = open(argc == 4 ? argv[3] : "/dev/console", O_WRONLY | O_NOCTTY | O_CREAT | O_TRUNC,
		       0644);
	char line[64];
	int n = snprintf(line, sizeof(line), "IRQLOAD END %llu\n", sent);
	if (con < 0 || put_snapshot(con, "0", &s0) || put_snapshot(con, "1", &s1) ||
	    write(con, line, (size_t)n) != n || close(con)) {
		perror("irqload: writing to /dev/console");
		return 1;
	}
	return 0;
}
