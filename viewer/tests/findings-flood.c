/* findings-flood.c — a TCP flood between two processes on loopback, for
 * the irq finding (viewer-findings-test.sh): the sender writes 64-byte
 * messages with TCP_NODELAY (one segment each, received by the kernel in
 * the NET_RX softirq), the receiver reads them; the sender is pinned to
 * CPU (default 0) and the receiver to the other one of the first two, so
 * both stay busy for SECONDS.
 *
 *   findings-flood SECONDS [CPU]
 *
 * Prints "sent N" and "received N" (bytes) at the end. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set); /* one CPU: both share it */
}

static int die(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: findings-flood SECONDS [CPU]\n");
		return 2;
	}
	double secs = atof(argv[1]);
	int cpu = argc == 3 ? atoi(argv[2]) != 0 : 0;
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&a, &al))
		return die("listen on 127.0.0.1");
	pid_t child = fork();
	if (child < 0)
		return die("fork");
	if (child == 0) { /* the receiver */
		pin(!cpu);
		int c = accept(ls, NULL, NULL);
		if (c < 0)
			return die("accept");
		static char buf[65536];
		long long got = 0;
		ssize_t n;
		while ((n = read(c, buf, sizeof(buf))) > 0)
			got += n;
		printf("received %lld\n", got);
		return 0;
	}
	pin(cpu);
	close(ls);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	if (s < 0 || setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		return die("connect to the receiver");
	char msg[64];
	memset(msg, 'x', sizeof(msg));
	long long sent = 0;
	double end = now() + secs;
	while (now() < end) {
		for (int i = 0; i < 64; i++) {
			ssize_t n = write(s, msg, sizeof(msg));
			if (n < 0)
				return die("write");
			sent += n;
		}
	}
	close(s);
	int st;
	waitpid(child, &st, 0);
	printf("sent %lld\n", sent);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
