/* main.c — perflens-agent: arguments, signals, and the only exit. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "args.h"
#include "boot.h"
#include "counters.h"
#include "net.h"
#include "perf.h"
#include "probe.h"
#include "scan.h"
#include "session.h"
#include "token.h"
#include "util.h"
#include "version.h"

static void on_signal(int sig)
{
	(void)sig;
	pla_stop_requested = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	pla_snapshot_requested = 1;
}

static int parse_uint(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = (unsigned long)pla_strtou64(s, &end, 10);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "perflens-agent: %s needs a number up to %lu, not '%s'\n", opt, max, s);
		return -1;
	}
	*out = v;
	return 0;
}

static char token_buf[PLA_TOKEN_MAX + 2];

/* --flight's checks, and what its triggers need recorded: markers for
 * marker:, the calls of syscall: timed (unless --syscalls chose). */
static int flight_setup(struct pla_options *o, struct pla_flight_config *fl,
			const char **syscalls, const char **slower)
{
	static char list[160], dur[32];
	int markers = 0;
	uint64_t min_ns = UINT64_MAX;
	if (o->mode == PLA_MODE_OUTPUT) {
		fprintf(stderr, "perflens-agent: --flight writes snapshots, not --output: "
				"choose one\n");
		return -1;
	}
	o->mode = PLA_MODE_OUTPUT; /* headless, into the ring */
	if (fl->before_ms > fl->keep_ms) {
		fprintf(stderr, "perflens-agent: --before is longer than --flight keeps\n");
		return -1;
	}
	for (uint32_t e = 0; e < o->collect.nevents; e++)
		markers |= o->collect.events[e].marker;
	for (uint32_t i = 0; i < fl->ntriggers; i++) {
		const struct pla_trigger *t = &fl->triggers[i];
		if (t->kind == PL_TRIGGER_MARKER && !markers) {
			char err[256];
			if (o->collect.nevents == PL_MAX_EVENTS ||
			    pla_event_parse("markers", &o->collect.events[o->collect.nevents], err,
					    sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: marker trigger: %s\n",
					o->collect.nevents == PL_MAX_EVENTS ? "too many events" : err);
				return -1;
			}
			o->collect.nevents++;
			markers = 1;
		}
		if (t->kind == PL_TRIGGER_SYSCALL && !*syscalls) {
			size_t used = strlen(list);
			snprintf(list + used, sizeof(list) - used, "%s%s", used ? "," : "",
				 strcmp(t->name, "any") ? t->name : "all");
			if (t->min_ns < min_ns)
				min_ns = t->min_ns;
		}
	}
	if (list[0]) {
		snprintf(dur, sizeof(dur), "%lluus", (unsigned long long)(min_ns / 1000));
		*syscalls = list;
		*slower = dur;
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum {
		O_LISTEN = 256, O_PORT, O_BIND, O_SERVER, O_OUTPUT, O_PROBE, O_PID, O_ALL, O_FREQ,
		O_EVENT, O_CG, O_CG_FP, O_STACK, O_STACKS, O_DURATION, O_TOKEN, O_TOKEN_FILE,
		O_NOAUTH, O_NOOFF, O_NOCNT, O_VERSION, O_HELP, O_LEVEL, O_WRITE_TOKEN, O_RING,
		O_NICE, O_FLUSH, O_ALLOW_EXEC, O_STDIO, O_MARKERS, O_SYSCALLS, O_SLOWER, O_DUMP,
		/* flight recorder */
		O_FLIGHT = 400, O_FLIGHT_SIZE, O_TRIGGER, O_BEFORE, O_AFTER, O_SNAP_DIR, O_SNAP_COUNT,
		O_SNAP_BYTES, O_TRIGGER_GAP, O_BOOT,
		O_LABEL, O_LABELS_FILE, O_PERIOD,
		O_TRACKS = 450,
	};
	/* The parser's table and the help's (args.h); the letters are perf
	 * record's for the same options. */
	static const struct pla_opt opts[] = {
		{ "Usage: perflens-agent [MODE] [OPTIONS] [-- COMMAND ARGS...]", 0, 0, 0, 0, 0 },
		{ "", 0, 0, 0, 0, 0 },
		{ "Modes (default --listen):", 0, 0, 0, 0, 0 },
		{ "listen", 0, O_LISTEN, 0, NULL, "wait for a viewer on TCP (port 9999)" },
		{ "port", 1, O_PORT, 0, "N", "listening port (0: any free one, logged)" },
		{ "bind", 1, O_BIND, 0, "ADDR", "listen on this address only (e.g. 127.0.0.1)" },
		{ "server", 1, O_SERVER, 0, "HOST[:PORT]",
		  "dial out to a waiting viewer; reconnect with backoff" },
		{ "output", 1, O_OUTPUT, 0, "FILE|-", "record headless into a capture file (.plens)" },
		{ "stdio", 0, O_STDIO, 0, NULL, "serve the viewer on stdin/stdout (run by ssh)" },
		{ "probe", 0, O_PROBE, 0, NULL, "print what this board allows and exit" },
		{ "", 0, 0, 0, 0, 0 },
		{ "What to record (for --output; a viewer chooses its own):", 0, 0, 0, 0, 0 },
		{ "pid", 1, O_PID, 'p', "N", "attach to a running process (all its threads)" },
		{ "all", 0, O_ALL, 'a', NULL, "the whole system" },
		{ "  -- COMMAND ARGS         start COMMAND and profile it from exec, children too",
		  0, 0, 0, 0, 0 },
		{ "frequency", 1, O_FREQ, 'F', "HZ", "samples per second per thread (default 99)" },
		{ "event", 1, O_EVENT, 'e', "SPEC",
		  "cycles, cpu-clock, task-clock, page-faults, ...,\n"
		  "rNNNN, pmu/config=0xNN/; add :freq=HZ or :period=N;\n"
		  "repeatable (default: cycles, else cpu-clock);\n"
		  "SUBSYS:NAME: a tracepoint, every hit with its fields;\n"
		  "u:/PATH:SYMBOL[+OFF], k:SYMBOL[+OFF]: a uprobe or\n"
		  "kprobe (perf PMUs), every hit with its stack" },
		{ "markers", 0, O_MARKERS, 0, NULL,
		  "the program's writes to tracefs trace_marker\n"
		  "(include/perflens-marker.h; = --event markers)" },
		{ "syscalls", 1, O_SYSCALLS, 0, "LIST",
		  "time system calls (read,fsync,... or numbers, or all)" },
		{ "slower-than", 1, O_SLOWER, 0, "DUR", "send those taking DUR or more (default 1ms)" },
		{ "callgraph", 1, O_CG, 0, "MODE", "fp, dwarf, lbr, none or auto (default auto)" },
		{ "", 0, O_CG_FP, 'g', NULL, "frame-pointer call graphs (= --callgraph fp)" },
		{ "stack-size", 1, O_STACK, 0, "BYTES",
		  "user stack copied per sample in dwarf mode (8192)" },
		{ "stacks", 1, O_STACKS, 0, "WHICH", "user, kernel or both (default user)" },
		{ "duration", 1, O_DURATION, 0, "SECONDS", "stop after this long" },
		{ "no-offcpu", 0, O_NOOFF, 0, NULL,
		  "no context switches (no off-CPU stacks, no timeline)" },
		{ "no-counters", 0, O_NOCNT, 0, NULL, "no perf-stat style counters" },
		{ "tracks", 1, O_TRACKS, 0, "HZ",
		  "poll counter tracks HZ times a second (RSS, CPU,\n"
		  "thermal, hwmon; default 10, at most 100; 0: none)" },
		{ "", 0, 0, 0, 0, 0 },
		{ "Flight recorder (headless; a trigger saves a window around it):", 0, 0, 0, 0, 0 },
		{ "flight", 1, O_FLIGHT, 0, "SECONDS",
		  "keep the last SECONDS in RAM, compressed; nothing\n"
		  "is written until a trigger fires (SIGUSR1 saves too;\n"
		  "with --port, perflens snapshot HOST asks it to)" },
		{ "flight-size", 1, O_FLIGHT_SIZE, 0, "BYTES",
		  "the ring's size (default 4M; K, M, G); with --label,\n"
		  "what is held while the collector is away" },
		/* (\x25 is '%': help is printed as it is, but fmt-test reads
		 * every literal of the agent as a format) */
		{ "trigger", 1, O_TRIGGER, 0, "KIND:ARG",
		  "marker:REGEX, syscall:NAME>DURATION, event:NAME,\n"
		  "cpu:SHARE\x25/DURATION, exit (a signal or non-zero\n"
		  "status) or signal; repeatable" },
		{ "before", 1, O_BEFORE, 0, "SECONDS", "keep this much before a trigger (default 10)" },
		{ "after", 1, O_AFTER, 0, "SECONDS", "record this much after it (default 2)" },
		{ "snapshot-dir", 1, O_SNAP_DIR, 0, "DIR",
		  "where snapshots go (default /var/tmp/perflens)" },
		{ "snapshot-count", 1, O_SNAP_COUNT, 0, "N", "keep at most N snapshots (default 10)" },
		{ "snapshot-bytes", 1, O_SNAP_BYTES, 0, "BYTES", "and at most BYTES of them (default 256M)" },
		{ "trigger-gap", 1, O_TRIGGER_GAP, 0, "SECONDS",
		  "ignore triggers this long after a snapshot (10)" },
		{ "boot", 0, O_BOOT, 0, NULL,
		  "as the kernel's init=, with [--] /sbin/init ARGS\n"
		  "last (a kernel command line passes one --):\n"
		  "record the whole boot (--all) until a trigger\n"
		  "(proc:REGEX, marker:REGEX) or --duration; saved\n"
		  "once, by default into /run/perflens (RAM)" },
		{ "Fleet reporting (--server to a perflens collect; needs a token):", 0, 0, 0, 0, 0 },
		{ "label", 1, O_LABEL, 0, "KEY=VALUE",
		  "report to a collector, samples labelled so\n"
		  "(fw=2.3.1, board=imx8mp, device=SN123); repeatable" },
		{ "labels-file", 1, O_LABELS_FILE, 0, "FILE", "labels from FILE, one KEY=VALUE a line" },
		{ "session-period", 1, O_PERIOD, 0, "SECONDS",
		  "record in sessions this long (default 60)" },
		{ "", 0, 0, 0, 0, 0 },
		{ "Access (a generated token goes to $XDG_RUNTIME_DIR, else $HOME,", 0, 0, 0, 0, 0 },
		{ "/perflens-agent-PORT.token; it is never printed):", 0, 0, 0, 0, 0 },
		{ "token", 1, O_TOKEN, 0, "TOKEN", "viewers must present this token" },
		{ "token-file", 1, O_TOKEN_FILE, 0, "FILE", "read the token from FILE" },
		{ "write-token", 1, O_WRITE_TOKEN, 0, "FILE", "write the token to FILE (new, mode 0600)" },
		{ "no-auth", 0, O_NOAUTH, 0, NULL, "accept any viewer (trusted networks only)" },
		{ "allow-exec", 0, O_ALLOW_EXEC, 0, NULL, "with --no-auth, let viewers start programs" },
		{ "", 0, 0, 0, 0, 0 },
		{ "Tuning:", 0, 0, 0, 0, 0 },
		{ "ring-pages", 1, O_RING, 0, "N",
		  "kernel ring pages per CPU (power of two; default\n"
		  "sized from the frequency and stack size)" },
		{ "zstd-level", 1, O_LEVEL, 0, "N", "stream compression level (default 1)" },
		{ "nice", 1, O_NICE, 0, "N", "the agent's priority (default -5 when permitted)" },
		{ "flush-ms", 1, O_FLUSH, 0, "MS", NULL },
		{ "", 0, 0, 0, 0, 0 },
		{ "version", 0, O_VERSION, 'V', NULL, "print the version and the protocol" },
		{ "help", 0, O_HELP, 'h', NULL, "this help (man perflens-agent: the manual)" },
		{ "dump-options", 0, O_DUMP, 0, NULL, NULL },
		{ 0, 0, 0, 0, 0, 0 },
	};
	static struct pla_options o;
	static struct pla_uplink uplink; /* (zero: .bss, not 4 KiB of the file) */
	int reporting = 0;
	unsigned long v;
	int probe_only = 0, no_auth = 0, listen_asked = 0, boot = 0, before_set = 0, dir_set = 0;
	const char *write_token_path = NULL;
	int nice_level = -5;
	const char *syscalls = NULL, *slower = "1ms";
	char err[256];
	/* (defaults set below: an initialised table of triggers would be 1.5
	 * KiB of .data in the static agent) */
	static struct pla_flight_config fl;

	o.mode = PLA_MODE_LISTEN;
	o.port = 9999;
	uplink.period_ms = PLA_UPLINK_PERIOD_MS;
	o.zstd_level = 1;
	o.callgraph_requested = PL_CG_AUTO;
	o.collect.frequency = 99;
	o.collect.stacks = PL_STACKS_USER;
	o.collect.flags = PL_START_SWITCH_STACKS | PL_START_COUNTERS;
	o.collect.track_interval_ms = 1000 / PLA_TRACKS_HZ;
	fl.ring_bytes = 4u << 20;
	fl.before_ms = 10000;
	fl.after_ms = 2000;
	fl.dir = "/var/tmp/perflens";
	fl.max_files = 10;
	fl.max_bytes = 256u << 20;
	fl.gap_ms = 10000;
	fl.ready_fd = -1;

	struct pla_args args;
	pla_args_init(&args, argc, argv);
	int c;
	while ((c = pla_args_next(&args, opts)) != 0) {
		const char *arg = args.arg;
		switch (c) {
		case O_LISTEN:
			o.mode = PLA_MODE_LISTEN;
			listen_asked = 1;
			break;
		case O_PORT:
			if (parse_uint("--port", arg, 65535, &v) < 0)
				return 2;
			o.port = (int)v;
			listen_asked = 1;
			break;
		case O_BIND:
			o.bind_addr = arg;
			break;
		case O_SERVER:
			o.mode = PLA_MODE_SERVER;
			if (pla_net_split(arg, 9999, o.server_host, sizeof(o.server_host),
					  &o.server_port) < 0) {
				fprintf(stderr, "perflens-agent: --server needs HOST[:PORT], not '%s'\n",
					arg);
				return 2;
			}
			break;
		case O_OUTPUT:
			o.mode = PLA_MODE_OUTPUT;
			o.output = arg;
			break;
		case O_PROBE:
			probe_only = 1;
			break;
		case O_STDIO:
			o.mode = PLA_MODE_STDIO;
			break;
		case O_PID:
			if (parse_uint("--pid", arg, 0x7fffffff, &v) < 0)
				return 2;
			o.collect.target = PL_TARGET_PID;
			o.collect.pid = (pid_t)v;
			break;
		case O_ALL:
			o.collect.target = PL_TARGET_ALL;
			break;
		case O_FREQ:
			if (parse_uint("--frequency", arg, 1000000, &v) < 0 || v == 0)
				return 2;
			o.collect.frequency = (uint32_t)v;
			break;
		case O_SYSCALLS: /* → "slow-syscalls:DUR:LIST" (perf.h) at the end */
			syscalls = arg;
			break;
		case O_SLOWER:
			slower = arg;
			break;
		case O_MARKERS:
			arg = "markers";
			/* fall through */
		case O_EVENT:
			if (o.collect.nevents == PL_MAX_EVENTS) {
				fprintf(stderr, "perflens-agent: at most %u --event\n", PL_MAX_EVENTS);
				return 2;
			}
			if (pla_event_parse(arg, &o.collect.events[o.collect.nevents], err,
					    sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: %s\n", err);
				return 2;
			}
			o.collect.nevents++;
			break;
		case O_CG_FP:
			o.callgraph_requested = PL_CG_FP;
			break;
		case O_CG:
			if (!strcmp(arg, "fp"))
				o.callgraph_requested = PL_CG_FP;
			else if (!strcmp(arg, "dwarf"))
				o.callgraph_requested = PL_CG_DWARF;
			else if (!strcmp(arg, "lbr"))
				o.callgraph_requested = PL_CG_LBR;
			else if (!strcmp(arg, "none"))
				o.callgraph_requested = PL_CG_NONE;
			else if (!strcmp(arg, "auto"))
				o.callgraph_requested = PL_CG_AUTO;
			else {
				fprintf(stderr, "perflens-agent: --callgraph is fp, dwarf, lbr, none or auto\n");
				return 2;
			}
			break;
		case O_STACK:
			if (parse_uint("--stack-size", arg, PL_MAX_STACK_COPY, &v) < 0)
				return 2;
			o.collect.stack_size = (uint32_t)v;
			break;
		case O_STACKS:
			if (!strcmp(arg, "user"))
				o.collect.stacks = PL_STACKS_USER;
			else if (!strcmp(arg, "kernel"))
				o.collect.stacks = PL_STACKS_KERNEL;
			else if (!strcmp(arg, "both"))
				o.collect.stacks = PL_STACKS_BOTH;
			else {
				fprintf(stderr, "perflens-agent: --stacks is user, kernel or both\n");
				return 2;
			}
			break;
		case O_DURATION: {
			const char *q = arg;
			uint64_t ms;
			if (pla_scan_fixed(&q, 1000, &ms) < 0 || *q || ms == 0 || ms > 30ull * 86400000) {
				fprintf(stderr, "perflens-agent: --duration needs seconds (e.g. 10 or 2.5), "
						"not '%s'\n", arg);
				return 2;
			}
			o.collect.duration_ms = (uint32_t)ms;
			break;
		}
		case O_TOKEN:
			if (pla_token_check(arg, "--token", err, sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: %s\n", err);
				return 2;
			}
			o.token = arg;
			break;
		case O_TOKEN_FILE: {
			char what[300];
			snprintf(what, sizeof(what), "the token file %s", arg);
			if (pla_token_read(arg, token_buf, sizeof(token_buf), err, sizeof(err)) < 0 ||
			    pla_token_check(token_buf, what, err, sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: %s\n", err);
				return 2;
			}
			o.token = token_buf;
			break;
		}
		case O_NOAUTH:
			no_auth = 1;
			break;
		case O_ALLOW_EXEC:
			o.allow_exec = 1;
			break;
		case O_NOOFF:
			o.collect.flags &= ~(uint32_t)PL_START_SWITCH_STACKS;
			o.collect.flags |= PL_START_NO_SWITCHES;
			break;
		case O_NOCNT:
			o.collect.flags &= ~(uint32_t)PL_START_COUNTERS;
			break;
		case O_TRACKS:
			if (parse_uint("--tracks", arg, 100, &v) < 0)
				return 2;
			o.collect.track_interval_ms = v ? (uint32_t)(1000 / v) : 0;
			break;
		case O_WRITE_TOKEN:
			write_token_path = arg;
			break;
		case O_NICE: {
			char *end;
			long n = (long)pla_strtou64(arg, &end, 10);
			if (*end || n < -20 || n > 19) {
				fprintf(stderr, "perflens-agent: --nice takes -20..19\n");
				return 2;
			}
			nice_level = (int)n;
			break;
		}
		case O_FLUSH:
			if (parse_uint("--flush-ms", arg, 10000, &v) < 0 || v < 10)
				return 2;
			o.flush_ms = (uint32_t)v;
			break;
		case O_RING:
			if (parse_uint("--ring-pages", arg, 4096, &v) < 0 || !v || (v & (v - 1))) {
				fprintf(stderr, "perflens-agent: --ring-pages needs a power of two\n");
				return 2;
			}
			o.collect.ring_pages = (uint32_t)v;
			break;
		case O_LEVEL:
			if (parse_uint("--zstd-level", arg, 19, &v) < 0)
				return 2;
			o.zstd_level = (int)v;
			break;
		case O_FLIGHT:
		case O_BEFORE:
		case O_AFTER:
		case O_TRIGGER_GAP: {
			const char *q = arg;
			uint64_t ms;
			if (pla_scan_fixed(&q, 1000, &ms) < 0 || *q || ms > 86400000 ||
			    (c == O_FLIGHT && ms == 0)) {
				fprintf(stderr, "perflens-agent: %s needs seconds (e.g. 10 or 2.5), not '%s'\n",
					c == O_FLIGHT ? "--flight" : c == O_BEFORE ? "--before"
					: c == O_AFTER ? "--after" : "--trigger-gap", arg);
				return 2;
			}
			*(c == O_FLIGHT ? &fl.keep_ms : c == O_BEFORE ? &fl.before_ms
			  : c == O_AFTER ? &fl.after_ms : &fl.gap_ms) = (uint32_t)ms;
			if (c == O_FLIGHT)
				o.flight = &fl;
			before_set |= c == O_BEFORE;
			break;
		}
		case O_FLIGHT_SIZE:
		case O_SNAP_BYTES: {
			char *end;
			uint64_t n = pla_strtou64(arg, &end, 10);
			int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
				    : *end == 'G' || *end == 'g' ? 30 : 0;
			if (end == arg || (shift && end[1]) || (!shift && *end) || n > (1ull << 40) >> shift ||
			    (n << shift) < (c == O_FLIGHT_SIZE ? 256u << 10 : 1u)) {
				fprintf(stderr, "perflens-agent: %s needs bytes (K, M, G)%s, not '%s'\n",
					c == O_FLIGHT_SIZE ? "--flight-size" : "--snapshot-bytes",
					c == O_FLIGHT_SIZE ? ", 256K or more" : "", arg);
				return 2;
			}
			*(c == O_FLIGHT_SIZE ? &fl.ring_bytes : &fl.max_bytes) = n << shift;
			break;
		}
		case O_TRIGGER:
			if (fl.ntriggers == PLA_MAX_TRIGGERS) {
				fprintf(stderr, "perflens-agent: at most %u --trigger\n", PLA_MAX_TRIGGERS);
				return 2;
			}
			if (pla_trigger_parse(arg, &fl.triggers[fl.ntriggers], err, sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: %s\n", err);
				return 2;
			}
			fl.ntriggers++;
			break;
		case O_BOOT:
			boot = 1;
			break;
		case O_SNAP_DIR:
			dir_set = 1;
			fl.dir = arg;
			break;
		case O_SNAP_COUNT:
			if (parse_uint("--snapshot-count", arg, PLA_FLIGHT_FILES_MAX / 2, &v) < 0 || !v)
				return 2;
			fl.max_files = (uint32_t)v;
			break;
		case O_LABEL:
		case O_LABELS_FILE:
			reporting = 1;
			if ((c == O_LABEL ? pla_uplink_add_label(&uplink, arg, strlen(arg), "--label", err,
								 sizeof(err))
					  : pla_uplink_read_labels(&uplink, arg, err, sizeof(err))) < 0) {
				fprintf(stderr, "perflens-agent: %s\n", err);
				return 2;
			}
			break;
		case O_PERIOD: {
			const char *q = arg;
			uint64_t ms;
			if (pla_scan_fixed(&q, 1000, &ms) < 0 || *q || ms < 1000 || ms > 86400000) {
				fprintf(stderr, "perflens-agent: --session-period needs seconds from 1 to "
						"86400, not '%s'\n", arg);
				return 2;
			}
			uplink.period_ms = (uint32_t)ms;
			break;
		}
		case O_VERSION:
		case 'V':
			printf(PL_VERSION_LINE, "perflens-agent", PL_PROTOCOL_VERSION);
			return 0;
		case O_HELP:
		case 'h':
			pla_args_help(stdout, opts);
			return 0;
		case O_DUMP:
			pla_args_dump(stdout, "perflens-agent", opts);
			return 0;
		default:
			fprintf(stderr, "perflens-agent: %s (see perflens-agent --help)\n", args.err);
			return 2;
		}
	}
	/* --boot: what follows -- is the real init, the target the system */
	char **init_argv = NULL;
	if (boot) {
		if (args.next >= argc) {
			fprintf(stderr, "perflens-agent: --boot needs the real init last: "
					"--boot ... /sbin/init (or -- /sbin/init)\n");
			return 2;
		}
		init_argv = argv + args.next;
		args.next = argc;
		o.collect.target = PL_TARGET_ALL;
		if (!o.flight) {
			fl.keep_ms = 300000;
			o.flight = &fl;
		}
		if (!before_set)
			fl.before_ms = fl.keep_ms; /* the whole boot */
		if (!dir_set)
			fl.dir = PLA_BOOT_DIR;
		fl.boot = 1;
	}
	/* --flight with --port: viewers may ask it for a snapshot */
	if (o.flight && o.mode == PLA_MODE_LISTEN && listen_asked) {
		fl.listen = 1;
		fl.port = o.port;
		fl.bind = o.bind_addr;
	}
	if (o.flight && flight_setup(&o, &fl, &syscalls, &slower) < 0)
		return 2;
	if (syscalls) {
		char spec[256];
		snprintf(spec, sizeof(spec), "slow-syscalls:%s:%s", slower, syscalls);
		if (o.collect.nevents == PL_MAX_EVENTS ||
		    pla_event_parse(spec, &o.collect.events[o.collect.nevents], err, sizeof(err)) < 0) {
			fprintf(stderr, "perflens-agent: %s\n", o.collect.nevents == PL_MAX_EVENTS
							      ? "too many events" : err);
			return 2;
		}
		o.collect.nevents++;
	}
	if (args.next < argc) {
		o.collect.target = PL_TARGET_COMMAND;
		o.collect.argv = argv + args.next;
	}

	if (probe_only) {
		struct pla_probe p;
		pla_probe_run(&p);
		pla_probe_print(&p);
		return p.summary.perf_errno ? 1 : 0;
	}
	if (o.mode == PLA_MODE_OUTPUT && !o.collect.target) {
		fprintf(stderr, "perflens-agent: %s needs --pid N, --all or -- COMMAND\n",
			o.flight ? "--flight" : "--output");
		return 2;
	}
	if (reporting) {
		if (o.mode != PLA_MODE_SERVER || !o.collect.target || !o.token) {
			fprintf(stderr, "perflens-agent: --label reports to a collector: it needs "
					"--server HOST[:PORT], --token-file FILE (the collector's) and "
					"--pid N, --all or -- COMMAND\n");
			return 2;
		}
		uplink.hold_bytes = fl.ring_bytes;
		o.uplink = &uplink;
	}
	if (o.mode < PLA_MODE_OUTPUT || fl.listen) { /* viewers on the network need a token */
		char path[512];
		if (no_auth) {
			o.token = NULL;
			fprintf(stderr, "perflens-agent: WARNING: --no-auth: anyone who reaches this "
					"port can profile this board%s\n",
				o.allow_exec ? " and run programs on it (--allow-exec)" : "");
		} else if (!o.token) {
			/* generated: written to a file only the user can read, and
			 * never printed (logs are read by others, and kept) */
			pla_token_random(token_buf);
			o.token = token_buf;
			int port = o.mode == PLA_MODE_SERVER ? o.server_port : o.port;
			if (!write_token_path &&
			    !(write_token_path = pla_token_default_path(port, path, sizeof(path)))) {
				fprintf(stderr, "perflens-agent: no XDG_RUNTIME_DIR or HOME for a generated "
						"token: pass --token, --token-file or --write-token\n");
				return 2;
			}
			/* --port 0: the file is named after the port the kernel
			 * chooses, so it is written once the socket is bound */
			if ((o.mode == PLA_MODE_LISTEN || fl.listen) && port == 0 &&
			    write_token_path == path) {
				o.token_path_at_bind = 1;
				write_token_path = NULL;
			}
		}
		if (write_token_path && o.token) {
			if (pla_token_write(write_token_path, o.token, err, sizeof(err)) < 0) {
				fprintf(stderr, "perflens-agent: %s\n", err);
				return 1;
			}
			fprintf(stderr, "perflens-agent: the token is in %s (mode 0600): give it "
					"to the viewer\n",
				write_token_path);
		}
	}

	fl.token = o.token;
	fl.token_at_bind = o.token_path_at_bind;
	if (boot) {
		int fd = pla_boot_start(init_argv, err, sizeof(err));
		if (fd < 0) {
			fprintf(stderr, "perflens-agent: %s\n", err);
			return 2;
		}
		fl.ready_fd = fd;
	}

	/* Draining the rings must not wait behind the busy threads being
	 * profiled (a single-core board at 100% gives the agent a fair share
	 * only, and the kernel then drops samples): when allowed, run at a
	 * higher priority.  Spawned commands are reset to normal. */
	if (nice_level < 0 && setpriority(PRIO_PROCESS, 0, nice_level) < 0 && errno != EACCES &&
	    errno != EPERM)
		fprintf(stderr, "perflens-agent: cannot raise priority: %s\n", strerror(errno));

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.flight) {
		struct sigaction su = { .sa_handler = on_usr1 };
		sigaction(SIGUSR1, &su, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	return pla_session_run(&o);
}
