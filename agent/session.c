/* session.c — the controller's event loop; see session.h. */
#include "session.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "arch.h"
#include "gate.h"
#include "net.h"
#include "probe.h"
#include "procfs.h"
#include "reader.h"
#include "token.h"
#include "util.h"
#include "version.h"

/* A block closes at FLUSH_MS_MIN if it holds PLA_FLUSH_SAMPLES samples or
 * PLA_FLUSH_BYTES (stream.h), else at FLUSH_MS_MAX; --flush-ms N closes
 * every block at N ms.  Each block costs ≈ 50 bytes (its header, and the
 * zstd flush that makes it decodable on arrival): at 99 Hz, sparse
 * blocks closing at 500 ms would be a fifth of the stream.  At 750 ms
 * the sample-to-viewer latency stays within its goal (p99 ≤ 1 s; see
 * docs/PERFORMANCE.md), and busy streams still close every 100 ms. */
#define FLUSH_MS_MIN 100
#define FLUSH_MS_MAX 750
#define HEALTH_NS (1000ull * 1000000)  /* device health period */
#define CMD_BLOCK_MAX (64 * 1024)      /* commands are small: cap what a peer can make us buffer */
#define SEND_QUEUE (1u << 20)
#define BLOCK_RAW (128u * 1024)
/* every frame fits an empty block (stream.h): file chunks, and a sample
 * with the longest call chain and stack copy */
_Static_assert(2 * PLA_CHUNK_MAX <= BLOCK_RAW &&
		       PL_MAX_STACK_COPY + PL_MAX_CALLCHAIN * 10 + PL_MAX_REGS * 10 + 256 <= BLOCK_RAW,
	       "a frame larger than a block could never be sent");
#define READS_PER_ROUND 16 /* x 16 KiB: a flooding peer cannot starve sampling */
/* Fewer than the gate's slots per round: a viewer accepted in this round
 * cannot be pushed out of the gate by peers accepted after it before its
 * next read (which marks it as speaking, gate.h). */
#define ACCEPTS_PER_ROUND (PLA_GATE_SLOTS / 2)
#define MAX_POLL (PLA_MAX_CPUS + 4 + PLA_GATE_SLOTS)

volatile int pla_stop_requested;
volatile int pla_snapshot_requested;

struct agent {
	struct pla_options *o;
	struct pla_probe probe;
	struct pla_stream out;
	struct pl_reader cmd;
	struct pla_collector col;
	struct pla_flight flight; /* --flight */
	struct pla_stream_tap flight_tap;
	struct pla_hold hold; /* --label: sessions recorded while the collector is away */
	uint64_t cpu_prev_ns, cpu_prev_at; /* cpu: triggers: the target's CPU time, when read */
	int active;      /* a collection runs */
	int client;      /* socket of the controller (authenticated), -1 none */
	struct pla_gate gate; /* connections not authenticated yet */
	char peer[300];
	struct pla_health_state hs;
	uint64_t last_health;
	struct pl_msg msg;
	struct pl_msg *cmd_msg; /* the command being handled (allocated once) */
	char *argv_store[PL_MAX_ARGV + 1];
	char argv_buf[8192];
};

static void send_hello(struct agent *a, uint32_t extra_flags)
{
	struct utsname u;
	char host[256] = "";
	uname(&u);
	gethostname(host, sizeof(host) - 1);
	struct timespec mono, wall;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &wall);
	struct pl_msg *m = &a->msg;
	m->type = PL_MSG_HELLO;
	m->u.hello = (struct pl_msg_hello){
		.protocol_version = PL_PROTOCOL_VERSION,
		.agent_version = pl_str_c(PL_VERSION),
		.machine = pl_str_c(u.machine),
		.e_machine = PLA_E_MACHINE,
		.byte_order = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? PL_BIG_ENDIAN : PL_LITTLE_ENDIAN,
		.word_size = (uint8_t)sizeof(void *),
		.page_size = (uint32_t)pla_page_size(),
		.kernel_release = pl_str_c(u.release),
		.hostname = pl_str_c(host),
		.ncpus = (uint32_t)pla_ncpus(),
		.clock_id = CLOCK_MONOTONIC,
		.clock_now_ns = (uint64_t)mono.tv_sec * 1000000000ull + (uint64_t)mono.tv_nsec,
		.wall_now_ns = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec,
		.flags = a->probe.hello_flags | extra_flags | (a->o->token ? PL_HELLO_AUTH_REQUIRED : 0),
		.perf_errno = a->probe.summary.perf_errno,
	};
	pla_stream_msg(&a->out, m);
	/* The probe's details are for a viewer choosing what to record (its
	 * connect page, or a PROBE command).  A capture (--output) is read
	 * after the fact and nothing reads them there: HELLO's flags and the
	 * session's LOG notes say what was in force, and the 12-20 frames of
	 * advice text would be a sizable share of a short, sparse capture. */
	if (a->o->mode != PLA_MODE_OUTPUT)
		pla_probe_send(&a->probe, &a->out);
	pla_stream_flush(&a->out);
}

static void reply(struct agent *a, uint32_t req, uint16_t cmd, int status, const char *text)
{
	struct pl_msg *m = &a->msg;
	m->type = PL_MSG_REPLY;
	m->u.reply = (struct pl_msg_reply){ req, cmd, status, pl_str_c(text ? text : "") };
	pla_stream_msg(&a->out, m);
	pla_stream_flush(&a->out);
}

static void send_health(struct agent *a)
{
	struct pl_msg *m = &a->msg;
	memset(&m->u.health, 0, sizeof(m->u.health));
	m->type = PL_MSG_HEALTH;
	pla_health_read(&a->hs, &m->u.health);
	m->u.health.samples = a->col.samples;
	m->u.health.lost = a->col.lost;
	m->u.health.throttled = a->col.throttled;
	m->u.health.dropped = a->out.dropped_samples;
	m->u.health.bytes_raw = a->out.bytes_raw;
	m->u.health.bytes_sent = a->out.bytes_sent;
	pla_stream_msg(&a->out, m);
}

/* Returns 0, or -errno when the session's last frames could not be
 * written. */
static int end_session(struct agent *a, uint8_t reason, const char *text)
{
	if (!a->active)
		return 0;
	send_health(a);
	a->active = 0;
	return pla_collect_stop(&a->col, pla_stream_open(&a->out) ? &a->out : NULL, reason, text);
}

/* The agent's own recording (--label), for the collector or held. */
static int start_own(struct agent *a, char *err, size_t errlen)
{
	return pla_uplink_start(a->o->uplink, &a->hold, &a->o->collect,
				a->o->callgraph_requested == PL_CG_AUTO
					? pla_probe_auto_callgraph(&a->probe)
					: a->o->callgraph_requested,
				&a->col, &a->out, err, errlen);
}

struct list_ctx {
	struct agent *a;
	uint32_t req;
};
static int list_cb(const struct pl_msg_proc *p, void *user)
{
	struct list_ctx *x = user;
	struct pl_msg *m = &x->a->msg;
	m->type = PL_MSG_PROC;
	m->u.proc = *p;
	m->u.proc.request_id = x->req;
	return pla_stream_msg(&x->a->out, m) < 0;
}

static char *dup_str(struct agent *a, size_t *used, struct pl_str s)
{
	if (*used + s.len + 1 > sizeof(a->argv_buf))
		return NULL;
	char *d = a->argv_buf + *used;
	memcpy(d, s.p, s.len);
	d[s.len] = 0;
	*used += s.len + 1;
	return d;
}

/* START from a viewer → a collect config, validated. */
static int start_from_msg(struct agent *a, const struct pl_msg_start *s, char *err, size_t errlen)
{
	struct pla_collect_config cfg = { 0 };
	size_t used = 0;
	cfg.target = s->target;
	cfg.pid = (pid_t)s->pid;
	if (s->target == PL_TARGET_COMMAND) {
		if (s->argc == 0) {
			snprintf(err, errlen, "START with no command");
			return -EINVAL;
		}
		for (uint32_t i = 0; i < s->argc; i++)
			if (!(a->argv_store[i] = dup_str(a, &used, s->argv[i]))) {
				snprintf(err, errlen, "command line too long");
				return -E2BIG;
			}
		a->argv_store[s->argc] = NULL;
		cfg.argv = a->argv_store;
	} else if (s->target == PL_TARGET_PID) {
		if (s->pid == 0 || kill((pid_t)s->pid, 0) < 0) {
			snprintf(err, errlen, "no process %u on the board (pick one from the list)",
				 s->pid);
			return -ESRCH;
		}
	} else if (s->target != PL_TARGET_ALL) {
		snprintf(err, errlen, "unknown target kind %u", s->target);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < s->nevents; i++) {
		char spec[256];
		snprintf(spec, sizeof(spec), "%.*s", (int)s->events[i].len, s->events[i].p);
		if (pla_event_parse(spec, &cfg.events[i], err, errlen) < 0)
			return -EINVAL;
	}
	cfg.nevents = s->nevents;
	cfg.frequency = s->frequency;
	cfg.callgraph = s->callgraph == PL_CG_AUTO ? pla_probe_auto_callgraph(&a->probe) : s->callgraph;
	if (cfg.callgraph > PL_CG_LBR) {
		snprintf(err, errlen, "unknown call-graph mode %u", s->callgraph);
		return -EINVAL;
	}
	cfg.stack_size = s->stack_size;
	cfg.stacks = s->stacks;
	cfg.duration_ms = s->duration_ms;
	cfg.flags = s->flags;
	cfg.counter_interval_ms = s->counter_interval_ms;
	cfg.track_interval_ms = s->track_interval_ms;
	if (a->probe.summary.max_sample_rate && cfg.frequency > a->probe.summary.max_sample_rate) {
		snprintf(err, errlen,
			 "frequency %u Hz is above this board's perf_event_max_sample_rate (%u): "
			 "lower --frequency",
			 cfg.frequency, a->probe.summary.max_sample_rate);
		return -EINVAL;
	}
	return pla_collect_start(&a->col, &cfg, &a->out, err, errlen);
}

static void close_client(struct agent *a, const char *why)
{
	if (a->client < 0)
		return;
	if (why)
		pla_log("controller %s disconnected: %s", a->peer, why);
	if (a->o->mode == PLA_MODE_STDIO)
		pla_stop_requested = 1; /* its one viewer is gone: no orphan on the board */
	end_session(a, PL_END_STOPPED, "controller disconnected");
	pla_stream_drain(&a->out, 200);
	close(a->client);
	a->client = -1;
	pla_stream_detach(&a->out);
	pl_reader_free(&a->cmd);
	if (!pla_stop_requested)
		pla_hold_away(&a->hold); /* a collector gone: record on, into RAM */
}

/* Returns 0 to keep the connection, -1 to close it. */
static int on_command(struct agent *a, const struct pl_msg *m)
{
	char err[512] = "";
	uint32_t req = m->type == PL_MSG_START ? m->u.start.request_id
		     : m->type == PL_MSG_CONFIGURE ? m->u.configure.request_id
		     : m->type == PL_MSG_AUTH ? m->u.auth.request_id
		     : m->u.request.request_id;
	if (m->type < 64) {
		pla_log("%s sent an agent-side message (%s): closing", a->peer,
		      pl_msg_type_name(m->type));
		return -1;
	}
	if (m->type == PL_MSG_AUTH) {
		/* the gate checked the first AUTH; this is it, or a later one */
		if (!a->o->token || pla_token_equal(a->o->token, &m->u.auth.token)) {
			reply(a, req, m->type, 0, "authenticated");
			return 0;
		}
		pla_log("wrong token from %s", a->peer);
		reply(a, req, m->type, -EACCES, "wrong token");
		return -1;
	}
	switch (m->type) {
	case PL_MSG_LIST: {
		struct list_ctx x = { a, req };
		pla_proc_each(list_cb, &x);
		reply(a, req, m->type, 0, "");
		return 0;
	}
	case PL_MSG_PROBE:
		if (a->active) {
			reply(a, req, m->type, -EBUSY, "stop the session before probing again");
			return 0;
		}
		pla_probe_run(&a->probe);
		pla_probe_send(&a->probe, &a->out);
		reply(a, req, m->type, 0, a->probe.message);
		return 0;
	case PL_MSG_START: {
		/* a collector back: the sessions recorded while it was away, one
		 * per START, before anything new */
		if (m->u.start.target == PL_TARGET_OWN && a->o->uplink && !a->active &&
		    pla_hold_grant(&a->hold, &a->msg)) {
			reply(a, req, m->type, 0, "held while away");
			return 0;
		}
		if (a->active) {
			reply(a, req, m->type, -EBUSY, "a session is already running: stop it first");
			return 0;
		}
		if (m->u.start.target == PL_TARGET_COMMAND && !a->o->token && !a->o->allow_exec) {
			/* without a token anyone who reaches the port is a controller:
			 * running programs for them needs its own consent */
			pla_log("refused to start a command for %s: --no-auth without --allow-exec",
			      a->peer);
			reply(a, req, m->type, -EPERM,
			      "the agent was started with --no-auth; add --allow-exec to let viewers "
			      "start programs");
			return 0;
		}
		if (a->probe.summary.perf_errno) {
			reply(a, req, m->type, a->probe.summary.perf_errno, a->probe.message);
			return 0;
		}
		int rc = m->u.start.target == PL_TARGET_OWN && a->o->uplink
			 ? start_own(a, err, sizeof(err))
			 : start_from_msg(a, &m->u.start, err, sizeof(err));
		if (rc < 0) {
			reply(a, req, m->type, rc, err);
			return 0;
		}
		a->active = 1;
		if (m->u.start.target == PL_TARGET_COMMAND)
			pla_log("started %s for %s", a->argv_store[0], a->peer);
		reply(a, req, m->type, 0, a->col.note[0] ? a->col.note : "started");
		return 0;
	}
	case PL_MSG_PAUSE:
	case PL_MSG_RESUME: {
		int rc = a->active ? pla_collect_pause(&a->col, m->type == PL_MSG_PAUSE) : -ENOENT;
		if (rc == 0 && m->type == PL_MSG_PAUSE) {
			pla_collect_drain(&a->col, &a->out);
		}
		reply(a, req, m->type, rc, rc == -ENOENT ? "no session running" : "");
		return 0;
	}
	case PL_MSG_CONFIGURE: {
		int rc = -ENOENT;
		if (a->active && m->u.configure.nevents) {
			struct pla_event_spec specs[PL_MAX_EVENTS];
			rc = 0;
			for (uint32_t i = 0; i < m->u.configure.nevents && rc == 0; i++) {
				char spec[256];
				snprintf(spec, sizeof(spec), "%.*s", (int)m->u.configure.events[i].len,
					 m->u.configure.events[i].p);
				rc = pla_event_parse(spec, &specs[i], err, sizeof(err));
			}
			if (rc == 0 && m->u.configure.frequency)
				a->col.cfg.frequency = m->u.configure.frequency;
			if (rc == 0)
				rc = pla_collect_set_events(&a->col, specs, m->u.configure.nevents,
							    &a->out, err, sizeof(err));
		} else if (a->active && m->u.configure.frequency) {
			rc = pla_collect_set_frequency(&a->col, m->u.configure.frequency);
			if (rc < 0)
				snprintf(err, sizeof(err), "%s", pla_perf_explain(rc, a->probe.summary.paranoid));
		} else if (!a->active) {
			snprintf(err, sizeof(err), "no session running");
		} else {
			rc = 0;
		}
		reply(a, req, m->type, rc, err);
		return 0;
	}
	case PL_MSG_STOP:
		if (!a->active) {
			reply(a, req, m->type, -ENOENT, "no session running");
			return 0;
		}
		end_session(a, PL_END_STOPPED, "stopped by the viewer");
		reply(a, req, m->type, 0, "stopped");
		return 0;
	case PL_MSG_BYE:
		reply(a, req, m->type, 0, "bye");
		return -1;
	case PL_MSG_SNAPSHOT:
		/* the flight recorder (--flight) records headless, without viewers */
		reply(a, req, m->type, -EOPNOTSUPP,
		      "this agent is not a flight recorder: start it with --flight to save "
		      "snapshots");
		return 0;
	}
	return 0; /* an unknown command type of a newer viewer: ignored */
}

/* Handles the messages buffered so far; returns -1 when the connection
 * was closed. */
static int handle_commands(struct agent *a)
{
	int rc;
	struct pl_msg *m = a->cmd_msg;
	while ((rc = pl_reader_next(&a->cmd, m)) == 1) {
		int r = on_command(a, m);
		if (r < 0) {
			close_client(a, "by request or refused");
			return -1;
		}
	}
	if (rc < 0) {
		pla_log("bad data from %s: %s", a->peer, pl_reader_error(&a->cmd));
		close_client(a, NULL);
		return -1;
	}
	return 0;
}

static void on_readable(struct agent *a)
{
	uint8_t buf[16384];
	/* Read, then handle, chunk by chunk: the reader never buffers more than
	 * one command block, and a peer flooding us gets READS_PER_ROUND chunks
	 * per loop round, between which the rings are drained. */
	for (int i = 0; i < READS_PER_ROUND && a->client >= 0; i++) {
		ssize_t n = read(a->client, buf, sizeof(buf)); /* non-blocking: a socket or --stdio's pipe */
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			/* a hang-up queued behind data is seen in this round, before a
			 * reconnecting viewer is accepted */
			close_client(a, n == 0 ? "closed" : strerror(errno));
			return;
		}
		if (n < 0)
			break;
		if (pl_reader_feed(&a->cmd, buf, (size_t)n) < 0) {
			close_client(a, "out of memory");
			return;
		}
		if (handle_commands(a) < 0)
			return;
		if ((size_t)n < sizeof(buf))
			break;
	}
	if (a->client < 0)
		return;
	/* a short read may hide a hang-up that arrived just after it */
	ssize_t n = recv(a->client, buf, 1, MSG_DONTWAIT | MSG_PEEK);
	if (n == 0)
		close_client(a, "closed");
}

/* A peer that authenticated (the gate's PLA_GATE_PROMOTE): the controller
 * if the slot is free.  It has had the stream header and the partial
 * HELLO; now the board's facts, then its first block is handled (the AUTH
 * is answered after the full HELLO, so a viewer has the facts when its
 * AUTH returns). */
static void promote(struct agent *a, struct pla_pending *p)
{
	if (a->client >= 0) {
		/* authenticated, so it may know who holds the agent */
		char text[400];
		snprintf(text, sizeof(text), "busy: another viewer (%s) controls this agent", a->peer);
		pla_gate_reply(p->fd, p->first_req, p->first_type, -EBUSY, text);
		pla_log("refused %s: busy", p->peer);
		close(p->fd);
		return;
	}
	a->client = p->fd;
	snprintf(a->peer, sizeof(a->peer), "%s", p->peer);
	pl_reader_init(&a->cmd, CMD_BLOCK_MAX);
	if (pla_hold_is_away(&a->hold)) {
		/* what it recorded meanwhile is held whole: the collector asks */
		end_session(a, PL_END_STOPPED, "the collector is back");
		pla_hold_back(&a->hold);
	}
	pla_stream_attach(&a->out, p->fd, 1, 0);
	send_hello(a, 0);
	pla_log("controller %s connected", a->peer);
	if (pl_reader_feed(&a->cmd, p->in, p->in_len) < 0)
		close_client(a, "out of memory");
	else
		handle_commands(a);
}

/* --flight's cpu: triggers, each health period: the target's share of
 * one CPU since the last period, or with --all the board's (HEALTH's). */
static void flight_cpu(struct agent *a, uint64_t now)
{
	pid_t pid = a->col.child ? a->col.child : a->col.cfg.target == PL_TARGET_PID ? a->col.cfg.pid : 0;
	uint64_t ns = 0, since = a->cpu_prev_at;
	uint32_t permille;
	if (!pid) {
		permille = a->msg.u.health.cpu_busy_permille; /* send_health's, just read */
	} else if (pla_proc_cpu_ns(pid, &ns) < 0) {
		return;
	} else {
		permille = since && now > since && ns >= a->cpu_prev_ns
				   ? (uint32_t)((ns - a->cpu_prev_ns) * 1000 / (now - since))
				   : 0;
		a->cpu_prev_ns = ns;
	}
	a->cpu_prev_at = now;
	if (since)
		pla_flight_cpu(&a->flight, permille, since, now);
}

/* --flight: the command ended; a signal or a non-zero status is the exit
 * trigger, told (TRIGGER) before the session's END. */
static void flight_target_ended(struct agent *a, uint64_t now)
{
	char what[64];
	int st = a->col.child_status;
	if (!a->col.child || !a->col.child_reaped || (WIFEXITED(st) && WEXITSTATUS(st) == 0))
		return;
	if (WIFEXITED(st))
		snprintf(what, sizeof(what), "exit status %d", WEXITSTATUS(st));
	else
		snprintf(what, sizeof(what), "killed by signal %d", WTERMSIG(st));
	char err[256];
	if (pla_flight_fire(&a->flight, PL_TRIGGER_EXIT, now, what))
		pla_flight_tick(&a->flight, &a->out, now, 0, err, sizeof(err));
}

/* The one agent, reachable from here to the end: an early return (main
 * exits at once) need not free it, and leak checkers agree. */
static struct agent *volatile the_agent; /* (volatile: a store never read is kept) */

int pla_session_run(struct pla_options *o)
{
	struct agent *a = the_agent = calloc(1, sizeof(*a));
	int lfd = -1, status = 0, werr = 0;
	char err[512];
	if (!a)
		return 1;
	a->o = o;
	a->client = -1;
	pla_gate_init(&a->gate, o->mode == PLA_MODE_OUTPUT ? NULL : o->token);
	a->cmd_msg = malloc(sizeof(*a->cmd_msg));
	if (!a->cmd_msg) {
		fprintf(stderr, "perflens-agent: out of memory\n");
		return 1;
	}
	pla_probe_run(&a->probe);
	if (pla_stream_init(&a->out, BLOCK_RAW, o->mode == PLA_MODE_OUTPUT ? 16 : SEND_QUEUE,
			    o->zstd_level) < 0) {
		fprintf(stderr, "perflens-agent: out of memory\n");
		return 1;
	}
	pla_health_read(&a->hs, &a->msg.u.health);
	if (o->uplink) {
		if (pla_hold_init(&a->hold, o->uplink, &a->out, err, sizeof(err)) < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			return 1;
		}
	}

	if (o->flight) {
		if (pla_flight_init(&a->flight, o->flight, err, sizeof(err)) < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			return 1;
		}
		if (o->flight->listen && pla_flight_serve_init(&a->flight, err, sizeof(err)) < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			pla_flight_free(&a->flight);
			return 1;
		}
		pla_flight_tap(&a->flight, &a->flight_tap);
		a->out.tap = &a->flight_tap;
	}
	if (o->mode == PLA_MODE_OUTPUT) {
		int fd = o->flight ? -1
			 : strcmp(o->output, "-") ? open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : 1;
		if (fd < 0 && !o->flight) {
			fprintf(stderr, "perflens-agent: cannot write %s: %s\n", o->output, strerror(errno));
			return 1;
		}
		/* a file that was there keeps its mode through O_TRUNC: stack
		 * bytes must not stay readable by others */
		struct stat st;
		if (fd != 1 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
			fchmod(fd, 0600);
		pla_stream_attach(&a->out, fd, 0, PL_STREAM_FROM_AGENT | PL_STREAM_CAPTURE);
		send_hello(a, 0);
		if (a->out.dead) {
			/* before the command starts: nothing runs for a capture that
			 * cannot be written */
			fprintf(stderr, "perflens-agent: cannot write %s: %s\n", o->output,
				strerror(-a->out.dead));
			return 1;
		}
		if (a->probe.summary.perf_errno) {
			fprintf(stderr, "perflens-agent: %s\n", a->probe.message);
			return 1;
		}
		struct pla_collect_config cfg = o->collect;
		cfg.callgraph = o->callgraph_requested == PL_CG_AUTO ? pla_probe_auto_callgraph(&a->probe)
								     : o->callgraph_requested;
		if (pla_collect_start(&a->col, &cfg, &a->out, err, sizeof(err)) < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			return 1;
		}
		if (a->col.note[0])
			fprintf(stderr, "perflens-agent: %s\n", a->col.note);
		a->active = 1;
		if (o->flight) {
			struct pla_trigger_events ev;
			pla_collect_trigger_events(&a->col, &ev);
			pla_flight_go_live(&a->flight, &ev, &a->out, pla_now_ns());
		}
	} else if (o->mode == PLA_MODE_LISTEN) {
		lfd = pla_net_listen(o->bind_addr, o->port, err, sizeof(err));
		if (lfd < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			return 1;
		}
		/* the port really bound: --port 0 lets the kernel choose */
		int port = pla_net_local_port(lfd);
		fprintf(stderr, "perflens-agent: listening on %s:%d\n",
			o->bind_addr ? o->bind_addr : "*", port > 0 ? port : o->port);
		if (o->token_path_at_bind) {
			char path[512];
			if (port <= 0 || !pla_token_default_path(port, path, sizeof(path)) ||
			    pla_token_write(path, o->token, err, sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: %s\n",
					port <= 0 ? "cannot tell which port was bound for the token file"
						  : err);
				return 1;
			}
			fprintf(stderr, "perflens-agent: the token is in %s (mode 0600): give it "
					"to the viewer\n",
				path);
		}
	} else if (o->mode == PLA_MODE_STDIO) {
		/* The viewer is at the other end of stdin and stdout, and SSH
		 * has authenticated it: the controller at once, with the
		 * user's own right to run programs.  The stream takes private
		 * descriptors; 0 becomes /dev/null and 1 stderr, so neither a
		 * started command nor a stray print touches the protocol. */
		/* (raw calls: libc's fcntl and dup2 cost the size budget
		 * hundreds of bytes) */
		int in = (int)syscall(SYS_fcntl, 0, F_DUPFD_CLOEXEC, 3);
		int out = (int)syscall(SYS_fcntl, 1, F_DUPFD_CLOEXEC, 3);
		int nul = open("/dev/null", O_RDONLY);
		if (in < 0 || out < 0 || nul < 0) {
			fprintf(stderr, "perflens-agent: --stdio: %s\n", strerror(errno));
			return 1;
		}
		syscall(SYS_dup3, nul, 0, 0);
		syscall(SYS_dup3, 2, 1, 0);
		close(nul);
		syscall(SYS_fcntl, in, F_SETFL, O_NONBLOCK);
		syscall(SYS_fcntl, out, F_SETFL, O_NONBLOCK);
		o->token = NULL;
		o->allow_exec = 1;
		a->client = in;
		memcpy(a->peer, "stdio", 6);
		pl_reader_init(&a->cmd, CMD_BLOCK_MAX);
		pla_stream_attach(&a->out, out, 1, PL_STREAM_FROM_AGENT);
		send_hello(a, 0);
	}

	struct pla_backoff bo;
	pla_backoff_init(&bo, 30000);
	uint64_t next_dial = 0;
	int dialled = 0; /* a dialled connection waits in the gate */
	struct pollfd *pfd = calloc(MAX_POLL, sizeof(*pfd));
	while (!pla_stop_requested) {
		uint64_t now = pla_now_ns();
		if (o->mode == PLA_MODE_SERVER && dialled && a->client < 0 && !pla_gate_count(&a->gate)) {
			/* the viewer we dialled did not authenticate, or left */
			dialled = 0;
			next_dial = now + (uint64_t)pla_backoff_next(&bo) * 1000000ull;
			pla_hold_away(&a->hold); /* a collector refused: record on, into RAM */
		}
		if (o->mode == PLA_MODE_SERVER && a->client < 0 && !dialled && now >= next_dial) {
			int fd = pla_net_dial(o->server_host, o->server_port, 2000, err, sizeof(err));
			if (fd >= 0) {
				char peer[300];
				snprintf(peer, sizeof(peer), "%s:%d", o->server_host, o->server_port);
				pla_backoff_reset(&bo);
				/* it authenticates as an accepted viewer does */
				int slot = pla_gate_add(&a->gate, fd, peer, now);
				/* a collector hears the token before it answers */
				if (slot >= 0 && o->uplink && pla_uplink_greet(o->uplink, fd, o->token) < 0)
					pla_log("could not send REPORT to %s", peer);
				dialled = 1;
			} else {
				uint32_t ms = pla_backoff_next(&bo);
				pla_log("%s; retrying in %u ms", err, ms);
				next_dial = pla_now_ns() + (uint64_t)ms * 1000000ull;
				pla_hold_away(&a->hold); /* unreachable: record on, into RAM */
			}
		}
		int n = 0, lidx = -1, cidx = -1, slot_of[PLA_GATE_SLOTS];
		if (lfd >= 0) {
			lidx = n;
			pfd[n++] = (struct pollfd){ lfd, POLLIN, 0 };
		}
		if (a->client >= 0) {
			cidx = n;
			pfd[n++] = (struct pollfd){ a->client,
						    POLLIN | (pla_stream_wants_write(&a->out) ? POLLOUT : 0), 0 };
			if (a->out.fd != a->client) { /* --stdio writes to another pipe */
				pfd[n] = (struct pollfd){ a->out.fd, pfd[cidx].events & POLLOUT, 0 };
				n++;
			}
		}
		int gate0 = n;
		int ngate = pla_gate_pollfds(&a->gate, pfd + n, slot_of, PLA_GATE_SLOTS);
		n += ngate;
		int fl0 = n, nfl = o->flight ? pla_flight_pollfds(&a->flight, pfd + n, MAX_POLL - n) : 0;
		n += nfl;
		if (a->active)
			n += pla_collect_pollfds(&a->col, pfd + n, MAX_POLL - n);
		int r = poll(pfd, (nfds_t)n, 50);
		if (r < 0 && errno != EINTR)
			break;
		now = pla_now_ns();
		/* the controller first: a viewer that hangs up and reconnects in one
		 * poll round must not find its own old connection "busy" */
		if (cidx >= 0 && a->client >= 0 && (pfd[cidx].revents & (POLLIN | POLLHUP | POLLERR)))
			on_readable(a);
		/* then those waiting to authenticate, which may become it */
		for (int i = 0; i < ngate; i++) {
			if (!(pfd[gate0 + i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (pla_gate_read(&a->gate, slot_of[i], a->cmd_msg, now) == PLA_GATE_PROMOTE)
				promote(a, pla_gate_take(&a->gate, slot_of[i]));
		}
		pla_gate_tick(&a->gate, now);
		if (nfl) /* --flight with --port: viewers asking for snapshots */
			pla_flight_serve(&a->flight, pfd + fl0, nfl, now);
		/* new connections wait in the gate, whatever the controller does */
		for (int i = 0; lidx >= 0 && (pfd[lidx].revents & POLLIN) && i < ACCEPTS_PER_ROUND; i++) {
			char peer[128];
			int fd = pla_net_accept(lfd, peer, sizeof(peer));
			if (fd < 0)
				break;
			/* a viewer's stream header (an agent's own no-auth viewer: its
			 * first command too) is often there already */
			int slot = pla_gate_add(&a->gate, fd, peer, now);
			if (slot >= 0 && pla_gate_read(&a->gate, slot, a->cmd_msg, now) == PLA_GATE_PROMOTE)
				promote(a, pla_gate_take(&a->gate, slot));
		}
		if (a->active) {
			pla_collect_drain(&a->col, &a->out);
			uint8_t reason;
			if (pla_collect_tick(&a->col, &a->out, now, &reason)) {
				if (o->flight)
					flight_target_ended(a, now);
				werr = end_session(a, reason, reason == PL_END_TARGET_EXITED
								      ? "target exited"
								      : "duration reached");
				if (o->mode == PLA_MODE_OUTPUT)
					break; /* a failed write is reported below */
			}
		}
		if (pla_hold_is_away(&a->hold)) {
			/* no collector: record on, into RAM (uplink.h) */
			if (a->active && pla_hold_full(&a->hold))
				end_session(a, PL_END_STOPPED, "half the held RAM used");
			if (!a->active && now >= a->hold.retry_at && !pla_stop_requested) {
				if (start_own(a, err, sizeof(err)) == 0) {
					a->active = 1;
				} else {
					pla_log("%s; again in 10 s", err);
					a->hold.retry_at = now + 10000 * 1000000ull;
				}
			}
		}
		if (pla_stream_open(&a->out)) {
			/* device health goes to any viewer, sampling or not */
			if (now - a->last_health >= HEALTH_NS) {
				a->last_health = now;
				send_health(a);
				if (o->flight && a->active)
					flight_cpu(a, now);
			}
			pla_stream_maybe_flush(&a->out, now,
					       (uint64_t)(o->flush_ms ? o->flush_ms : FLUSH_MS_MIN) * 1000000ull,
					       (uint64_t)(o->flush_ms ? o->flush_ms : FLUSH_MS_MAX) * 1000000ull);
			pla_hold_pump(&a->hold); /* a held session a collector asked for */
			if (pla_stream_pump(&a->out) < 0 || a->out.dead) {
				if (o->mode == PLA_MODE_OUTPUT)
					break; /* reported below */
				close_client(a, strerror(-a->out.dead));
				if (o->mode == PLA_MODE_SERVER)
					next_dial = pla_now_ns() + (uint64_t)pla_backoff_next(&bo) * 1000000ull;
			}
		}
		if (o->mode == PLA_MODE_SERVER && a->client < 0 && next_dial == 0)
			next_dial = now;
		if (o->flight && a->active) {
			if (pla_snapshot_requested) {
				pla_snapshot_requested = 0;
				pla_flight_fire(&a->flight, PL_TRIGGER_SIGNAL, now, "SIGUSR1");
			}
			if (pla_flight_tick(&a->flight, &a->out, now, 0, err, sizeof(err)) < 0)
				pla_log("%s", err);
		}
	}
	if (a->active)
		werr = end_session(a, PL_END_STOPPED,
				   pla_stop_requested ? "agent interrupted" : "stopped");
	if (o->flight) {
		/* a window being recorded is saved with what there is */
		if (pla_flight_tick(&a->flight, &a->out, pla_now_ns(), 1, err, sizeof(err)) < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			status = 1;
		}
		if (werr < 0)
			status = 1;
		pla_log("flight recorder: %llu snapshot%s; %llu of the ring's blocks dropped as it "
			"filled or aged (--flight-size %llu)",
			(unsigned long long)a->flight.snapshots, a->flight.snapshots == 1 ? "" : "s",
			(unsigned long long)a->flight.evicted_blocks,
			(unsigned long long)a->flight.cap);
		pla_flight_serve_free(&a->flight);
		pla_flight_free(&a->flight);
		a->out.tap = NULL;
	} else if (o->mode == PLA_MODE_OUTPUT) {
		/* A capture is only as good as its last writes (END, counters,
		 * perf maps): each is checked, up to the disk (fsync; pipes and
		 * terminals have nothing to sync), and a failure is the exit
		 * status, so a script never takes an incomplete file for whole. */
		int rc = pla_stream_flush(&a->out);
		if (werr < 0)
			rc = werr;
		if (rc == 0 && syscall(SYS_fsync, a->out.fd) < 0 && errno != EINVAL &&
		    errno != EROFS)
			rc = -errno; /* (the raw call: libc's costs 30 bytes more) */
		if (a->out.fd > 1 && close(a->out.fd) < 0 && rc == 0)
			rc = -errno;
		if (rc < 0) {
			fprintf(stderr,
				"perflens-agent: writing %s failed: %s\n",
				o->output, strerror(-rc));
			status = 1;
		}
	} else {
		close_client(a, NULL);
		pla_gate_close_all(&a->gate);
	}
	if (o->uplink) {
		pla_hold_report(&a->hold, a->col.samples);
		pla_hold_free(&a->hold);
	}
	if (lfd >= 0)
		close(lfd);
	free(pfd);
	pla_stream_free(&a->out);
	free(a->cmd_msg);
	free(a);
	return status;
}
