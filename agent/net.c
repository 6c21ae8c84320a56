/* net.c — sockets; see net.h. */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void tune(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
}

int pla_net_listen(const char *bind_addr, int port, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	char ports[16];
	snprintf(ports, sizeof(ports), "%d", port);
	int rc = getaddrinfo(bind_addr, ports, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve bind address '%s': %s",
			 bind_addr ? bind_addr : "*", gai_strerror(rc));
		return -EINVAL;
	}
	int fd = -1, e = 0;
	/* prefer IPv4 wildcard when no address is given: boards often lack IPv6 */
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			e = errno;
			continue;
		}
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 4) == 0)
			break;
		e = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s:%d: %s%s", bind_addr ? bind_addr : "*",
			 port, strerror(e),
			 e == EADDRINUSE ? " (another agent running? use --port)" : "");
		return -e;
	}
	return fd;
}

int pla_net_accept(int lfd, char *peer, size_t peerlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -errno;
	char host[NI_MAXHOST] = "?", serv[NI_MAXSERV] = "?";
	getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(peer, peerlen, "%s:%s", host, serv);
	tune(fd);
	return fd;
}

int pla_net_dial(const char *host, int port, int timeout_ms, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res;
	char ports[16];
	snprintf(ports, sizeof(ports), "%d", port);
	int rc = getaddrinfo(host, ports, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -EHOSTUNREACH;
	}
	int fd = -1, e = ECONNREFUSED;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			e = errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			struct pollfd p = { fd, POLLOUT, 0 };
			int soerr = 0;
			socklen_t sl = sizeof(soerr);
			if (poll(&p, 1, timeout_ms) == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
				break;
			e = soerr ? soerr : ETIMEDOUT;
		} else {
			e = errno;
		}
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
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
		long p = strtol(colon + 1, &end, 10);
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
