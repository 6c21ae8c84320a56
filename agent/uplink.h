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
/* START with PL_TARGET_OWN: own (the command line's) for one period. */
int pla_uplink_start(const struct pla_uplink *u, const struct pla_collect_config *own,
		     uint8_t callgraph, struct pla_collector *c, struct pla_stream *out, char *err,
		     size_t errlen);

#endif
