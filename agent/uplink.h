/* uplink.h — fleet reporting: an agent started with --server and --label
 * reports to a collector (`perflens collect`) instead of waiting for a
 * viewer.
 *
 * It dials as --server does and, right after the greeting, sends REPORT
 * (common/msg.h): its token, then its labels and its session period.  The
 * collector checks the token before it sends anything, authenticates back
 * with AUTH as a viewer does, and asks with START (PL_TARGET_OWN) for what
 * the agent's own command line says, one session of --session-period at a
 * time.  Everything here is fixed-size (no allocation); each function
 * returns 0 or -errno with the reason in err (caller-owned).
 *
 * While the collector is away (refused, cut, restarting) the agent goes
 * on recording its own sessions into a RAM ring (struct pla_hold,
 * --flight-size bytes, allocated at start), whole: each session's blocks
 * from the one with SESSION to the one with END, as the stream compressed
 * them (a session starts a zstd frame and forgets its stacks, so it
 * decodes on its own).  When the ring is full the oldest session is
 * dropped whole (a part would not decode), its samples and blocks
 * counted; a session held past half the ring is ended there and the next
 * one started, so that the newest always fits.  When the collector is
 * back the session being held is ended, and each START it sends is
 * answered with the oldest held session, sent as it was recorded, until
 * none is left: one session per START, as the collector stores them.
 * Each held block goes out once (it leaves the ring as it is queued); a
 * session whose sending a new cut interrupts is dropped and counted,
 * since its rest would not decode without what went before.  What was
 * dropped is told in the next START's stream (a LOST(BACKPRESSURE) of
 * that many samples), which the collector logs.
 * What a cut catches in the socket itself (sent, never read) is not
 * known to the agent and not counted: a collector stopped in order
 * (SIGTERM: STOP, END, BYE) loses nothing.
 */
#ifndef PLA_UPLINK_H
#define PLA_UPLINK_H

#include <stddef.h>
#include <stdint.h>

#include "collect.h"
#include "msg.h"

#define PLA_UPLINK_LABEL_BYTES 4096 /* all labels, each with its NUL */

struct pla_uplink {
	uint32_t nlabels;
	uint32_t used;
	uint32_t period_ms;
	uint64_t hold_bytes; /* --flight-size: the ring held while the collector is away */
	const char *label[PL_MAX_LABELS];
	char buf[PLA_UPLINK_LABEL_BYTES];
};

/* The default --session-period: a minute, the store's rollup unit. */
#define PLA_UPLINK_PERIOD_MS 60000u

/* Adds "KEY=VALUE": KEY of [A-Za-z0-9_.-], VALUE printable, not empty;
 * a KEY given again replaces its value.  what names where it came from. */
int pla_uplink_add_label(struct pla_uplink *u, const char *kv, size_t len, const char *what,
			 char *err, size_t errlen);
/* Adds the labels of a file: one KEY=VALUE a line; blank lines and lines
 * beginning with '#' are skipped. */
int pla_uplink_read_labels(struct pla_uplink *u, const char *path, char *err, size_t errlen);
/* Sends REPORT on a freshly dialled fd (after the gate's greeting), as
 * one raw block. */
int pla_uplink_greet(const struct pla_uplink *u, int fd, const char *token);
struct pla_hold;
/* START with PL_TARGET_OWN: own (the command line's) for one period.  h
 * counts the samples of the session c recorded before (c->samples). */
int pla_uplink_start(const struct pla_uplink *u, struct pla_hold *h,
		     const struct pla_collect_config *own, uint8_t callgraph,
		     struct pla_collector *c, struct pla_stream *out, char *err, size_t errlen);

/* ─── held while the collector is away ──────────────────────────────── */

struct pla_hold {
	uint8_t *ring;
	uint64_t cap, head, tail; /* byte positions, growing; the ring holds [tail, head) */
	uint32_t serial;  /* sessions seen */
	uint32_t open;    /* the session being held (its serial), 0: none */
	uint32_t broken;  /* a session partly dropped: its later blocks are too */
	uint32_t granted; /* the held session being sent, 0: none */
	int ending;       /* END seen: the block that holds it is the open session's last */
	uint64_t end_frame; /* the stream's frame count once END is in */
	uint64_t open_bytes;
	struct pla_stream *out;
	struct pla_stream_tap tap;
	uint64_t retry_at; /* when a refused own start is tried again */
	/* statistics, cumulative */
	uint64_t recorded;            /* samples of every session before the last */
	uint64_t held_sessions;       /* sessions recorded into the ring */
	uint64_t dropped, dropped_blocks, dropped_sessions;
	uint64_t told;                /* dropped samples told to a collector */
};

/* Allocates the ring (u->hold_bytes) for out's blocks.  0 or -ENOMEM. */
int pla_hold_init(struct pla_hold *h, const struct pla_uplink *u, struct pla_stream *out,
		  char *err, size_t errlen);
void pla_hold_free(struct pla_hold *h);
/* The collector is gone or cannot be reached (out detached): out's
 * blocks go to the ring.  Nothing when away already, or not reporting
 * (h zeroed, never initialised). */
void pla_hold_away(struct pla_hold *h);
static inline int pla_hold_is_away(const struct pla_hold *h)
{
	return h->out && h->out->tap == &h->tap;
}
/* The session being held is past half the ring: end it (the caller). */
static inline int pla_hold_full(const struct pla_hold *h)
{
	return pla_hold_is_away(h) && h->open && h->open_bytes >= h->cap / 2;
}
/* A collector is back; the session being held was ended.  out goes to
 * it again (its control frames uncompressed while held blocks are sent
 * among them: the held ones continue zstd frames of their own). */
void pla_hold_back(struct pla_hold *h);
/* A START (PL_TARGET_OWN) with no session running: tells what was
 * dropped (m is scratch), and returns 1 when the oldest held session is
 * to be sent as its answer, 0 when none is held (record anew). */
int pla_hold_grant(struct pla_hold *h, struct pl_msg *m);
/* Moves the granted session's blocks into out's send queue, whole
 * blocks, as they fit.  Call before pumping out (nothing when not
 * reporting). */
void pla_hold_pump(struct pla_hold *h);
/* The counts, logged at exit: what was recorded (last_samples: the last
 * session's, c->samples), dropped, left unsent. */
void pla_hold_report(const struct pla_hold *h, uint64_t last_samples);

#endif
