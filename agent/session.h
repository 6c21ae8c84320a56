/* session.h — the agent's controller: one event loop that serves a viewer
 * (accepted with --listen or dialled with --server) or writes a capture
 * (--output).  Commands in, stream out; at most one controller at a time.
 */
#ifndef PLA_SESSION_H
#define PLA_SESSION_H

#include <stdint.h>

#include "collect.h"
#include "flight.h"
#include "uplink.h"

/* The modes that take viewers come before PLA_MODE_OUTPUT; --stdio's one
 * viewer is the other end of stdin and stdout (ssh runs the agent), which
 * SSH has authenticated: no token, commands allowed. */
enum pla_mode { PLA_MODE_LISTEN = 1, PLA_MODE_SERVER = 2, PLA_MODE_OUTPUT = 3, PLA_MODE_STDIO = 4 };

struct pla_options {
	int mode;
	const char *bind_addr;
	int port;
	char server_host[256];
	int server_port;
	const char *output; /* path or "-" */
	const char *token;  /* NULL: no authentication (--no-auth) */
	int allow_exec;     /* --allow-exec: with --no-auth, START may run a command */
	int token_path_at_bind; /* write the generated token beside the port bound */
	struct pla_collect_config collect; /* for --output: what to record */
	const char *event_specs[PL_MAX_EVENTS];
	int nevent_specs;
	uint8_t callgraph_requested; /* may be PL_CG_AUTO */
	int zstd_level;
	uint32_t flush_ms; /* 0: the default */
	int verbose;
	/* --flight: record headless into the flight recorder (mode OUTPUT
	 * with no output file); NULL: off */
	const struct pla_flight_config *flight;
	/* --server with --label: reporting to a collector (uplink.h), else NULL */
	const struct pla_uplink *uplink;
};

/* Runs until the output session ends (output mode) or a signal (others).
 * Returns the process exit status. */
int pla_session_run(struct pla_options *o);
/* Set from a signal handler: stop gracefully. */
extern volatile int pla_stop_requested;
/* Set from SIGUSR1's handler: the flight recorder saves a snapshot. */
extern volatile int pla_snapshot_requested;

#endif
