/* net.h — sockets for the agent: listen, accept, dial, backoff.
 * Functions return an fd or -errno and write the reason into err. */
#ifndef PLA_NET_H
#define PLA_NET_H

#include <stddef.h>
#include <stdint.h>

int pla_net_listen(const char *bind_addr, int port, char *err, size_t errlen);
/* The port a listening socket is bound to (what --port 0 got), or -errno. */
int pla_net_local_port(int fd);
/* Accepts one connection (non-blocking fd).  peer gets "addr:port". */
int pla_net_accept(int lfd, char *peer, size_t peerlen);
/* Connects to host:port, waiting at most timeout_ms. */
int pla_net_dial(const char *host, int port, int timeout_ms, char *err, size_t errlen);
/* "host:port" or "host" (default port) → host, port. "[v6]:port" too. */
int pla_net_split(const char *spec, int default_port, char *host, size_t hostlen, int *port);

/* Exponential backoff with ±25% jitter, from 250 ms, capped at cap_ms. */
struct pla_backoff {
	uint32_t next_ms, cap_ms;
	uint32_t seed;
};
void pla_backoff_init(struct pla_backoff *b, uint32_t cap_ms);
uint32_t pla_backoff_next(struct pla_backoff *b);
void pla_backoff_reset(struct pla_backoff *b);

#endif
