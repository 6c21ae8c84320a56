/* gate.h — connections that have not authenticated yet.
 *
 * As sshd keeps its pre-authentication connections apart from its
 * sessions (MaxStartups, LoginGraceTime), the agent keeps a fixed table of
 * PLA_GATE_SLOTS pending connections beside the one controller slot.  A
 * pending connection is told only what a viewer needs to authenticate: a
 * HELLO with the protocol and agent versions and whether a token is needed,
 * flagged PL_HELLO_PARTIAL (no host name, kernel, PMUs, paranoid, nor who
 * controls the agent).  It must send its first command within
 * PLA_GATE_DEADLINE_MS; with a token that command must be a right AUTH.
 * Then pla_gate_poll() hands it over (PLA_GATE_PROMOTE) and the session
 * decides whether it becomes the controller.  A silent peer, or a loop of
 * them, thus never holds the controller slot: when the table is full the
 * oldest pending connection that has sent nothing is dropped (else the
 * oldest), so a viewer, which sends its stream header as soon as it
 * connects, keeps its place while a flood of silent peers rotates.
 *
 * Nothing here allocates: the table, the input of each slot (a stream
 * header and one small block) and the partial HELLO (encoded once) are
 * fixed.  Frames to a pending peer are sent as one raw block with a
 * non-blocking send: they are a few hundred bytes to a socket that has
 * sent nothing back yet.  The token is compared in constant time and a
 * wrong one is answered only after a second (the slot is held meanwhile,
 * not the event loop); it is logged with the peer's address, never with
 * what was sent.  Not thread-safe: the session's loop owns it. */
#ifndef PLA_GATE_H
#define PLA_GATE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "token.h"
#include "wire.h"

#define PLA_GATE_SLOTS 8
#define PLA_GATE_DEADLINE_MS 5000
#define PLA_GATE_IN 1024 /* a stream header and an AUTH block with the longest token */
_Static_assert(PLA_GATE_IN >= PL_STREAM_HEADER_SIZE + PL_BLOCK_HEADER_SIZE + PL_FRAME_HEADER_SIZE +
			       5 + 2 + PLA_TOKEN_MAX,
	       "an AUTH with the longest token fits");

struct pla_pending {
	int fd; /* -1: free */
	int spoke;  /* a valid stream header arrived: a viewer, not a silent peer */
	uint64_t since, deadline;
	uint64_t reject_at; /* wrong token: when to answer and hang up (0: none) */
	uint32_t reject_req;
	uint32_t in_len;
	uint32_t first_req;   /* request id and type of its first command, */
	uint16_t first_type;  /* for the session's refusal (busy) */
	char peer[64];
	uint8_t in[PLA_GATE_IN];
};

struct pla_gate {
	const char *token; /* NULL: --no-auth */
	struct pla_pending slot[PLA_GATE_SLOTS];
	uint8_t hello[128]; /* stream header + the partial HELLO block */
	size_t hello_len;
	uint64_t evicted, evicted_logged_at;
};

void pla_gate_init(struct pla_gate *g, const char *token);
/* Takes a new connection (non-blocking fd; peer "addr:port"), dropping
 * the oldest pending one when the table is full, and greets it.  Returns
 * its slot, or -1 when it could not be greeted (closed). */
int pla_gate_add(struct pla_gate *g, int fd, const char *peer, uint64_t now);
int pla_gate_count(const struct pla_gate *g);
/* Fills pollfds for the pending connections; slot_of[i] is the slot of
 * pfd[i].  Returns how many were filled (≤ max). */
int pla_gate_pollfds(struct pla_gate *g, struct pollfd *pfd, int *slot_of, int max);

enum { PLA_GATE_KEEP = 0, PLA_GATE_CLOSED = 1, PLA_GATE_PROMOTE = 2 };
/* Reads what slot i has sent.  PLA_GATE_PROMOTE: its first block is
 * complete and (with a token) began with the right AUTH; the slot is
 * still in the table for pla_gate_take().  scratch: a decode target the
 * caller owns. */
int pla_gate_read(struct pla_gate *g, int i, struct pl_msg *scratch, uint64_t now);
/* Removes slot i from the table without closing it: fd, peer and the
 * bytes it sent (stream header and first block, to be fed to the
 * controller's reader) stay valid until the next pla_gate call. */
struct pla_pending *pla_gate_take(struct pla_gate *g, int i);
/* Answers req of a pending or taken peer with a REPLY (one raw block,
 * not waiting), for the refusals the session decides (busy). */
void pla_gate_reply(int fd, uint32_t req, uint16_t cmd, int32_t status, const char *text);
/* Deadlines and delayed rejections.  Returns how many connections of
 * those it closed. */
int pla_gate_tick(struct pla_gate *g, uint64_t now);
void pla_gate_close_all(struct pla_gate *g);
/* Constant-time: the time taken does not depend on where the first
 * difference is. */
int pla_token_equal(const char *want, const struct pl_str *got);

#endif
