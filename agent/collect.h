/* collect.h — one profiling session on the board: opens the events for a
 * target, snapshots what existed before, drains the rings into frames.
 *
 * Lifecycle: pla_collect_start() (allocates everything the session needs:
 * fds, rings, id table), then from the event loop pla_collect_drain() when
 * a ring fd is readable or the flush timer fires, pla_collect_tick() for
 * counters and target liveness, and pla_collect_stop().  Drain and tick
 * do not allocate.  Errors are -errno with a sentence for the user in the
 * caller's buffer.
 */
#ifndef PLA_COLLECT_H
#define PLA_COLLECT_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "counters.h"
#include "msg.h"
#include "perf.h"
#include "ring.h"
#include "stream.h"
#include "trigger.h"

#define PLA_MAX_CPUS 256

struct pla_collect_config {
	uint8_t target; /* enum pl_target */
	pid_t pid;
	char *const *argv; /* PL_TARGET_COMMAND; NULL-terminated */
	struct pla_event_spec events[PL_MAX_EVENTS];
	uint32_t nevents; /* 0: the probe's default event */
	uint32_t frequency;
	uint8_t callgraph; /* enum pl_callgraph, resolved (no AUTO) */
	uint32_t stack_size;
	uint8_t stacks; /* enum pl_stacks */
	uint32_t duration_ms;
	uint32_t flags; /* enum pl_start_flags */
	uint32_t counter_interval_ms;
	uint32_t ring_pages; /* 0: sized from mode and frequency */
	uint32_t track_interval_ms; /* counter tracks (counters.h), 0: none */
};

struct pla_fd {
	int fd;
	uint32_t event; /* index into the session's events */
	int cpu;
};

struct pla_id_map {
	uint64_t id;
	uint32_t event;
};

struct pla_counter {
	struct pla_event_spec spec;
	uint32_t index; /* event index in the session */
};

struct pla_collector {
	struct pla_collect_config cfg;
	uint32_t session_id;
	int ncpus;
	pid_t child; /* spawned command, or 0 */
	int child_status;
	int child_reaped;
	int target_gone;
	int paused;
	/* events: sampled ones first, then the switch sampler, then counters */
	uint32_t nevents;
	struct pl_msg_event_desc desc[PL_MAX_EVENTS + 1 + PL_MAX_COUNTERS];
	char names[PL_MAX_EVENTS + 1 + PL_MAX_COUNTERS][128]; /* u:PATH:SYM is long */
	uint32_t ncounters; /* events with role PL_ROLE_COUNTED */
	int running;        /* events enabled (a spawned command is past exec) */
	struct pla_fd *fds;
	size_t nfds, fds_cap;
	struct pla_id_map *ids;
	size_t nids, ids_cap;
	struct pla_ring rings[PLA_MAX_CPUS];
	int nrings;
	uint64_t sample_type; /* the sampled events', before each event's own additions */
	uint64_t regs_mask;
	uint32_t lbr_depth; /* LBR mode: the LBR's depth (0: unknown) */
	/* markers (msg.h, PL_MARKER_TRACEPOINT): events whose samples carry
	 * registers and a stack copy of marker_stack bytes */
	uint8_t marker[PL_MAX_EVENTS + 1 + PL_MAX_COUNTERS];
	uint32_t marker_stack;
	struct pla_sys *sys; /* --syscalls (syscalls.c), or NULL */
	uint64_t start_ns, last_counter_ns;
	/* the target's vDSO [lo, lo + len), its image not sent yet (fp, --pid):
	 * it goes out after the first sample that touches it */
	uint64_t vdso_lo, vdso_len;
	/* statistics */
	uint64_t samples, lost, throttled;
	char note[512]; /* fallbacks taken, for the user */
	struct pl_msg msg; /* scratch: one message being built (8 KiB callchain) */
	/* each event's sample_type as the kernel took it at open (events.c),
	 * which is how its samples are laid out (records.c); last, so that
	 * the fields above keep the short offsets the static agent's ARM
	 * code reaches in one instruction */
	uint64_t event_sample_type[PL_MAX_EVENTS + 1 + PL_MAX_COUNTERS];
	/* Attaching to a running target: its events sample from their open,
	 * and opening them on hundreds of threads takes seconds, while no
	 * message may go out before SESSION.  What the rings took meanwhile
	 * is emptied as the opening goes (events.c): the session begins
	 * when every thread is watched, and the rings never overflow.
	 * attach_ns: the first open; attach_skipped: the samples left out. */
	uint64_t attach_ns, attach_skipped;
	struct pla_tracks *tracks; /* counter tracks (counters.h), or NULL */
};

int pla_collect_start(struct pla_collector *c, const struct pla_collect_config *cfg,
		      struct pla_stream *out, char *err, size_t errlen);
/* Adds pollfds for the rings (POLLIN); returns how many were added. */
int pla_collect_pollfds(struct pla_collector *c, struct pollfd *p, int max);
/* Drains every ring into out.  A record that cannot be parsed is
 * skipped and told as a LOST frame of kind PL_LOST_MALFORMED (count 1),
 * which the viewer adds to its losses.  Returns records drained, or the stream's -errno
 * when it died (a failed write). */
int pla_collect_drain(struct pla_collector *c, struct pla_stream *out);
/* Periodic work: counters, target liveness.  Returns 1 when the session
 * is over (target exited or duration reached): *reason is enum
 * pl_end_reason. */
int pla_collect_tick(struct pla_collector *c, struct pla_stream *out, uint64_t now,
		     uint8_t *reason);
int pla_collect_pause(struct pla_collector *c, int pause);
int pla_collect_set_frequency(struct pla_collector *c, uint32_t freq);
/* Replaces the sampled events while running: the old ones are drained and
 * closed, the new ones get new indices (announced by EVENT_DESC frames);
 * target, counters and a spawned command are kept. */
int pla_collect_set_events(struct pla_collector *c, const struct pla_event_spec *specs,
			   uint32_t n, struct pla_stream *out, char *err, size_t errlen);
/* Final drain, counters, perf map, END frame, close everything,
 * kill/reap a spawned child.  Returns 0, or -errno when those last writes
 * failed (a file capture is then incomplete). */
int pla_collect_stop(struct pla_collector *c, struct pla_stream *out, uint8_t reason,
		     const char *message);

/* The session's events as the flight recorder's triggers need them. */
void pla_collect_trigger_events(const struct pla_collector *c, struct pla_trigger_events *ev);

/* The kernel's sample frequency cap, and ring sizing helper (exposed for tests). */
uint32_t pla_ring_pages_for(uint8_t callgraph, uint32_t stack_size, uint32_t freq);
/* pages (a power of two), halved until every CPU's ring fits what this
 * process may lock and a 32nd of the board's memory; the reason, when
 * halved, in c->note. */
uint32_t pla_ring_pages_fit(struct pla_collector *c, uint32_t pages);

#endif
