/* probe.h — what this board allows: perf_event_paranoid and limits, which
 * events open, and which call-graph modes really yield stacks on a short
 * test sampling of a busy child.  Runs once at start (about 0.3 s) and on
 * the viewer's PROBE command; the result travels in the handshake. */
#ifndef PLA_PROBE_H
#define PLA_PROBE_H

#include <stdint.h>

#include "msg.h"
#include "stream.h"

#define PLA_PROBE_MAX_EVENTS 24

struct pla_probe {
	struct pl_msg_probe_summary summary;
	char message[512];
	char pmus[512];
	char default_event[32];
	int nevents;
	struct pl_msg_probe_event events[PLA_PROBE_MAX_EVENTS];
	char event_names[PLA_PROBE_MAX_EVENTS][256];
	char event_msgs[PLA_PROBE_MAX_EVENTS][160];
	struct pl_msg_probe_callgraph cg[3]; /* fp dwarf lbr */
	char cg_msgs[3][160];
	uint32_t hello_flags; /* PL_HELLO_* bits the probe decides */
};

void pla_probe_run(struct pla_probe *p);
/* Sends PROBE_EVENT, PROBE_CALLGRAPH and PROBE_SUMMARY frames. */
void pla_probe_send(const struct pla_probe *p, struct pla_stream *out);
/* Human-readable report for --probe. */
void pla_probe_print(const struct pla_probe *p);
/* The call-graph mode `auto` means here. */
uint8_t pla_probe_auto_callgraph(const struct pla_probe *p);

#endif
