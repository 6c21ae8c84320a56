/* net.c — sockets; see net.h.
 *
 * Addresses are numeric (IPv4 or IPv6) or "localhost": the static agent
 * carries no DNS resolver (musl's costs ~10 KB of a 160 KB budget), and a
 * board's viewer is normally reached by address anyway.  The error says so.
 */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

static void tune(int fd)
{
	int one = 1, idle = 30, intvl = 10, cnt = 3;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a viewer that vanished (laptop closed, cable pulled) is noticed in
	 * about a minute, and the board is free for the next one */
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

/* host (NULL: any) + port → sockaddr.  Returns 0 or -EINVAL. */
static int make_addr(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	if (!host || !*host || !strcmp(host, "*") || !strcmp(host, "0.0.0.0")) {
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_ANY);
	} else if (!strcmp(host, "localhost")) {
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
	} else if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	} else {
		return -EINVAL;
	}
	a4->sin_port = htons((uint16_t)port);
	*len = sizeof(*a4);
	return 0;
}

int pla_net_listen(const char *bind_addr, int port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (make_addr(bind_addr, port, &ss, &len) < 0) {
		snprintf(err, errlen, "--bind needs a numeric IPv4 or IPv6 address, not '%s'",
			 bind_addr);
		return -EINVAL;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
		return -errno;
	}
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 64) < 0) {
		int e = errno;
		close(fd);
		snprintf(err, errlen, "cannot listen on %s:%d: %s%s", bind_addr ? bind_addr : "*",
			 port, strerror(e),
			 e == EADDRINUSE ? " (another agent running? use --port)" : "");
		return -e;
	}
	return fd;
}

int pla_net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return -errno;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int pla_net_accept(int lfd, char *peer, size_t peerlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -errno;
	char host[INET6_ADDRSTRLEN] = "?";
	int port = 0;
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		port = ntohs(a->sin_port);
	} else if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		port = ntohs(a->sin6_port);
	}
	snprintf(peer, peerlen, "%s:%d", host, port);
	tune(fd);
	return fd;
}

int pla_net_dial(const char *host, int port, int timeout_ms, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (make_addr(host, port, &ss, &len) < 0) {
		snprintf(err, errlen,
			 "'%s' is not a numeric address: give the viewer's IP address (the agent "
			 "has no DNS resolver)",
			 host);
		return -EINVAL;
	}
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a socket: %s", strerror(errno));
		return -errno;
	}
	int e = 0;
	if (connect(fd, (struct sockaddr *)&ss, len) < 0) {
		e = errno;
		if (e == EINPROGRESS) {
			struct pollfd p = { fd, POLLOUT, 0 };
			int soerr = 0;
			socklen_t sl = sizeof(soerr);
			if (poll(&p, 1, timeout_ms) != 1)
				e = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
				e = errno;
			else
				e = soerr;
		}
	}
	if (e) {
		close(fd);
		snprintf(err, errlen, "cannot connect to %s:%d: %s", host, port, strerror(e));
		return -e;
	}
	tune(fd);
	return fd;
}

int pla_net_split(const char *spec, int default_port, char *host, size_t hostlen, int *port)
{
	const char *colon;
	*port = default_port;
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end)
			return -EINVAL;
		snprintf(host, hostlen, "%.*s", (int)(end - spec - 1), spec + 1);
		colon = end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strrchr(spec, ':');
		if (colon && strchr(spec, ':') != colon)
			colon = NULL; /* bare IPv6 */
		snprintf(host, hostlen, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec),
			 spec);
	}
	if (colon) {
		char *end;
		long p = (long)pla_strtou64(colon + 1, &end, 10);
		if (*end || p <= 0 || p > 65535)
			return -EINVAL;
		*port = (int)p;
	}
	return host[0] ? 0 : -EINVAL;
}

void pla_backoff_init(struct pla_backoff *b, uint32_t cap_ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	b->cap_ms = cap_ms;
	b->seed = (uint32_t)ts.tv_nsec ^ (uint32_t)getpid();
	pla_backoff_reset(b);
}

void pla_backoff_reset(struct pla_backoff *b)
{
	b->next_ms = 250;
}

uint32_t pla_backoff_next(struct pla_backoff *b)
{
	uint32_t base = b->next_ms;
	b->next_ms = base * 2 > b->cap_ms ? b->cap_ms : base * 2;
	/* xorshift: jitter so that a fleet of boards does not reconnect in step */
	b->seed ^= b->seed << 13;
	b->seed ^= b->seed >> 17;
	b->seed ^= b->seed << 5;
	uint32_t span = base / 2 + 1;
	return base - base / 4 + b->seed % span;
}
