/* record.c — perflens record: profile live through an agent, saving the
 * session as it streams.  The recording is a PlLiveSession
 * (viewer/core/pl-live-session.h), the very object the app's connect form
 * drives; this file is its command line: options, progress, Ctrl-C. */
#include <errno.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-cli.h"
#include "pl-client.h"
#include "pl-live-session.h"
#include "pl-record-extras.h"
#include "pl-syscalls.h"

/* While the recording runs: what ends it from this side. */
typedef struct {
	PlLiveSession *session;
	GCancellable *give_up; /* the agent did not end the session after STOP */
	GError *stop_error;    /* STOP could not be sent */
	gboolean stopping;
	guint stop_timer;
	gboolean quiet;
} Recording;

static void on_message(PlLiveSession *session, gconstpointer msg, Recording *r)
{
	const struct pl_msg *m = msg;
	switch (m->type) {
	case PL_MSG_LOG:
		if (!r->quiet)
			fprintf(stderr, "perflens: agent: %.*s\n", (int)m->u.log.message.len,
				m->u.log.message.p);
		break;
	case PL_MSG_END:
		if (!r->quiet && m->u.end.message.len)
			fprintf(stderr, "perflens: session ended: %.*s\n",
				(int)m->u.end.message.len, m->u.end.message.p);
		break;
	}
}

static gboolean on_stop_timeout(gpointer data)
{
	Recording *r = data;
	r->stop_timer = 0;
	fprintf(stderr, "perflens: the agent did not end the session after STOP; closing\n");
	g_cancellable_cancel(r->give_up);
	return G_SOURCE_REMOVE;
}

/* Ctrl-C, SIGTERM, or the backstop deadline: STOP, and 5 s for END. */
static gboolean on_stop(gpointer data)
{
	Recording *r = data;
	if (r->stopping)
		return G_SOURCE_CONTINUE;
	r->stopping = TRUE;
	if (!pl_live_session_stop(r->session, &r->stop_error)) {
		g_cancellable_cancel(r->give_up);
		return G_SOURCE_CONTINUE;
	}
	r->stop_timer = g_timeout_add_seconds(5, on_stop_timeout, r);
	return G_SOURCE_CONTINUE;
}

static gboolean on_deadline(gpointer data)
{
	on_stop(data);
	return G_SOURCE_REMOVE;
}

static gboolean on_progress(gpointer data)
{
	Recording *r = data;
	fprintf(stderr, "\r  %" G_GUINT64_FORMAT " samples, %" G_GUINT64_FORMAT " KiB",
		pl_live_session_get_samples(r->session),
		pl_live_session_get_bytes(r->session) / 1024);
	return G_SOURCE_CONTINUE;
}

static guint8 parse_callgraph(const char *s)
{
	if (!s || !strcmp(s, "auto"))
		return PL_CG_AUTO;
	if (!strcmp(s, "fp"))
		return PL_CG_FP;
	if (!strcmp(s, "dwarf"))
		return PL_CG_DWARF;
	if (!strcmp(s, "lbr"))
		return PL_CG_LBR;
	if (!strcmp(s, "none"))
		return PL_CG_NONE;
	return 0xff;
}

int pl_cli_record(int argc, char **argv)
{
	char *token = NULL, *command = NULL, *output = NULL, *listen = NULL, *callgraph = NULL;
	char *remote_dir = NULL, *syscalls = NULL, *slower = NULL;
	char **events = NULL;
	gint pid = 0, frequency = 0, stack_size = 0, timeout_s = 10, tracks_hz = 10;
	gdouble duration = 0;
	gboolean all = FALSE, switches = FALSE, counters = FALSE, quiet = FALSE, markers = FALSE;
	gboolean irq = FALSE, block = FALSE;
	gboolean locks = FALSE;
	const GOptionEntry entries[] = {
		{ "token", 't', 0, G_OPTION_ARG_STRING, &token,
		  "The agent's token (default $PERFLENS_TOKEN)", "T" },
		{ "pid", 'p', 0, G_OPTION_ARG_INT, &pid, "Profile this process", "N" },
		{ "command", 'c', 0, G_OPTION_ARG_STRING, &command,
		  "Start and profile this command on the board", "CMD" },
		{ "all", 'a', 0, G_OPTION_ARG_NONE, &all, "Profile the whole board", NULL },
		{ "duration", 'd', 0, G_OPTION_ARG_DOUBLE, &duration,
		  "Stop after S seconds (default: until the target exits or Ctrl-C)", "S" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Save to FILE (default $XDG_DATA_HOME/perflens/sessions/…)", "FILE" },
		{ "frequency", 'F', 0, G_OPTION_ARG_INT, &frequency, "Samples per second", "HZ" },
		{ "callgraph", 'g', 0, G_OPTION_ARG_STRING, &callgraph, "Stack mode",
		  "auto|fp|dwarf|lbr|none" },
		{ "stack-size", 0, 0, G_OPTION_ARG_INT, &stack_size,
		  "Bytes of stack copied per sample (dwarf)", "N" },
		{ "event", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &events, "Event to sample (repeatable)",
		  "SPEC" },
		{ "markers", 0, 0, G_OPTION_ARG_NONE, &markers,
		  "Also record the program's markers (include/perflens-marker.h; = --event markers)",
		  NULL },
		{ "syscalls", 0, 0, G_OPTION_ARG_STRING, &syscalls,
		  "Also time these system calls (names or numbers, comma-separated, or all) and "
		  "keep those slower than --slower-than, with their stacks", "LIST" },
		{ "slower-than", 0, 0, G_OPTION_ARG_STRING, &slower,
		  "With --syscalls: the threshold (default 1ms; 250us, 2s)", "DUR" },
		{ "irq", 0, 0, G_OPTION_ARG_NONE, &irq,
		  "Also record interrupt handlers and softirqs per CPU (irq:irq_handler_entry/exit, "
		  "irq:softirq_entry/exit; with --all for the whole board), and /proc/interrupts "
		  "and /proc/softirqs at the start and end, whose counts are the kernel's "
		  "totals, against which report --irq says what the samples lack",
		  NULL },
		{ "block", 0, 0, G_OPTION_ARG_NONE, &block,
		  "Also record block I/O requests from issue to completion with the issuing stack "
		  "(block:block_rq_issue/complete): report --block",
		  NULL },
		{ "locks", 0, 0, G_OPTION_ARG_NONE, &locks,
		  "Also record lock contention: futex waits and wakes with their stacks, and "
		  "which thread woke which (perflens report --locks)", NULL },
		{ "switch", 0, 0, G_OPTION_ARG_NONE, &switches,
		  "Also sample context switches with stacks (off-CPU)", NULL },
		{ "counters", 0, 0, G_OPTION_ARG_NONE, &counters, "Also count perf-stat events",
		  NULL },
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &listen,
		  "Wait for an agent started with --server to dial in on [ADDR:]PORT", "PORT" },
		{ "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s,
		  "Seconds to wait for the agent to connect / answer (default 10)", "S" },
		{ "remote-dir", 0, 0, G_OPTION_ARG_STRING, &remote_dir,
		  "ssh:// only: the board's directory for the agent (default "
		  "~/.cache/perflens)", "DIR" },
		{ "tracks", 0, 0, G_OPTION_ARG_INT, &tracks_hz,
		  "Counter tracks polled HZ times a second (default 10, at most 100; 0: none): "
		  "the target's RSS, each CPU's busy share, frequency and idle states, thermal "
		  "zones, hwmon power/current/voltage (report --counters)", "HZ" },
		{ "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No progress messages", NULL },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("HOST[:PORT]|ssh://[USER@]HOST[:PORT] — profile live through a "
				     "perflens-agent");
	pl_cli_add_entries(ctx, entries);
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(PlClient) client = NULL;
	g_autoptr(PlSessionWriter) writer = NULL;
	g_autoptr(PlLiveSession) session = NULL;
	g_autoptr(GCancellable) give_up = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	g_auto(GStrv) cmd_argv = NULL;
	Recording rec = { .give_up = give_up };
	guint sources[4] = { 0 };
	g_autofree char *path = NULL;
	g_autofree char *advice = NULL; /* pl_live_session_dup_perf_advice */
	g_autofree char *sys_spec = NULL; /* "slow-syscalls:DUR:NR,…" */

	if (!pl_cli_parse(ctx, &argc, &argv, "record"))
		goto out;
	rec.quiet = quiet;
	if ((listen == NULL) == (argc != 2)) {
		pl_cli_fail("record needs HOST[:PORT], ssh://[USER@]HOST[:PORT] or --listen PORT "
			    "(run perflens record --help)");
		goto out;
	}
	if (tracks_hz < 0 || tracks_hz > 100) {
		pl_cli_fail("record: --tracks takes 0 (none) to 100 polls a second, not %d",
			    tracks_hz);
		goto out;
	}
	if ((pid > 0) + (command != NULL) + all != 1) {
		pl_cli_fail("record: give exactly one of --pid N, --command \"CMD\", --all");
		goto out;
	}
	if (command && !g_shell_parse_argv(command, NULL, &cmd_argv, &error)) {
		pl_cli_fail("record: cannot split --command: %s", error->message);
		goto out;
	}
	if (cmd_argv && g_strv_length(cmd_argv) > PL_MAX_ARGV) {
		pl_cli_fail("record: --command has more than %u words", PL_MAX_ARGV);
		goto out;
	}
	if (slower && !syscalls) {
		pl_cli_fail("record: --slower-than goes with --syscalls LIST");
		goto out;
	}
	/* the duration now, before connecting; the names need the board's
	 * architecture (HELLO) */
	if (syscalls && !(sys_spec = pl_syscalls_event_spec(0, "all", slower, &error))) {
		pl_cli_fail("record: %s", error->message);
		goto out;
	}
	PlRecordExtras extras = (irq ? PL_RECORD_IRQ : 0) | (block ? PL_RECORD_BLOCK : 0) |
				(locks ? PL_RECORD_LOCKS : 0);
	gboolean sampling_chosen = events && events[0];
	if ((events ? g_strv_length(events) : 0) + (markers != 0) + (syscalls != NULL) +
		    pl_record_extras_count(extras, sampling_chosen) >
	    PL_MAX_EVENTS) {
		pl_cli_fail("record: at most %u events in all (--event, --markers, --syscalls; "
			    "--irq takes %u, --block %u, --locks %u, and the sampling event "
			    "without --event)",
			    PL_MAX_EVENTS, pl_record_extras_count(PL_RECORD_IRQ, TRUE),
			    pl_record_extras_count(PL_RECORD_BLOCK, TRUE),
			    pl_record_extras_count(PL_RECORD_LOCKS, TRUE));
		goto out;
	}
	guint8 cg = parse_callgraph(callgraph);
	if (cg == 0xff) {
		pl_cli_fail("record: --callgraph takes auto, fp, dwarf, lbr or none");
		goto out;
	}
	if (duration < 0 || frequency < 0 || stack_size < 0 || timeout_s <= 0) {
		pl_cli_fail("record: --duration, --frequency, --stack-size, --timeout must be "
			    "positive");
		goto out;
	}
	if (!token)
		token = g_strdup(g_getenv("PERFLENS_TOKEN"));

	guint timeout_ms = (guint)timeout_s * 1000;
	if (listen) {
		if (!quiet)
			fprintf(stderr, "perflens: waiting for an agent on %s …\n", listen);
		client = pl_client_accept(listen, 0, &error);
	} else {
		client = pl_cli_connect(argv[1], remote_dir, quiet, timeout_ms, &error);
	}
	if (!client) {
		pl_cli_fail("%s", error->message);
		goto out;
	}
	if (!pl_client_authenticate(client, token, timeout_ms, &error)) {
		pl_cli_fail("%s", error->message);
		goto out;
	}
	/* from here on the session holds the client: the board's facts, the
	 * recording and its accounting are the session's, as in the app */
	session = rec.session = pl_live_session_new();
	g_signal_connect(session, "message", G_CALLBACK(on_message), &rec);
	pl_live_session_set_client(session, g_steal_pointer(&client));
	/* after AUTH: an agent tells who it is only to a viewer with the token */
	const PlAgentInfo *agent = pl_live_session_get_agent(session);
	if (!quiet)
		fprintf(stderr, "perflens: connected to %s (%s, %s, Linux %s, agent %s)\n",
			pl_live_session_get_peer(session), agent->hostname, agent->machine,
			agent->kernel_release, agent->agent_version);
	/* over SSH as a user perf_event_paranoid refuses, START's refusal
	 * says it all in one line */
	advice = pl_live_session_dup_perf_advice(session, agent->perf_errno, all);
	if (!(agent->flags & PL_HELLO_PERF_AVAILABLE) && agent->perf_errno && !advice)
		fprintf(stderr, "perflens: warning: the agent reports perf_event_open fails there "
				"(%s); START will say more\n",
			g_strerror(ABS(agent->perf_errno)));

	if (syscalls) {
		g_free(sys_spec);
		sys_spec = pl_syscalls_event_spec(agent->e_machine, syscalls, slower, &error);
		if (!sys_spec) {
			pl_cli_fail("record: %s (board: %s)", error->message, agent->machine);
			goto out;
		}
	}

	/* a name the user gave is theirs to overwrite; a default one never
	 * replaces another session of the board made in the same second */
	if (output) {
		writer = pl_session_writer_new(output, &error);
	} else {
		g_autofree char *def = pl_session_default_path(agent->hostname);
		writer = pl_session_writer_new_unique(def, &error);
	}
	if (!writer) {
		pl_cli_fail("%s", error->message);
		goto out;
	}
	path = g_strdup(pl_session_writer_get_path(writer));

	struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_START;
	struct pl_msg_start *s = &m->u.start;
	s->target = all ? PL_TARGET_ALL : command ? PL_TARGET_COMMAND : PL_TARGET_PID;
	s->pid = (guint32)pid;
	for (guint i = 0; cmd_argv && cmd_argv[i]; i++)
		s->argv[s->argc++] = pl_str_c(cmd_argv[i]);
	for (guint i = 0; events && events[i]; i++)
		s->events[s->nevents++] = pl_str_c(events[i]);
	if (markers)
		s->events[s->nevents++] = pl_str_c("markers");
	if (sys_spec)
		s->events[s->nevents++] = pl_str_c(sys_spec);
	/* counted above: it fits */
	pl_record_extras_add(s, extras, sampling_chosen, agent->kernel_release);
	s->frequency = (guint32)frequency;
	s->callgraph = cg;
	s->stack_size = (guint32)stack_size;
	s->stacks = PL_STACKS_BOTH;
	s->duration_ms = (guint32)(duration * 1000);
	s->flags = (switches ? PL_START_SWITCH_STACKS : 0) | (counters ? PL_START_COUNTERS : 0);
	s->track_interval_ms = tracks_hz ? (guint32)(1000 / tracks_hz) : 0;
	gboolean started = pl_live_session_start(session, m, g_steal_pointer(&writer), &error) &&
			   pl_live_session_wait_started(session, timeout_ms, &error);
	g_free(m);
	if (!started) {
		g_clear_pointer(&advice, g_free);
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
			advice = pl_live_session_dup_perf_advice(session, -EACCES, all);
		const char *why = advice ? advice : error->message;
		if (!advice && irq && strstr(why, "irq:"))
			pl_cli_fail("%s (--irq needs the board's irq tracepoints: a kernel with "
				    "CONFIG_TRACEPOINTS, tracefs readable by the agent; or record "
				    "without --irq)", why);
		else if (!advice && block && strstr(why, "block:"))
			pl_cli_fail("%s (--block needs the board's block tracepoints: a kernel with "
				    "CONFIG_BLOCK and CONFIG_TRACEPOINTS, tracefs readable by the "
				    "agent; or record without --block)", why);
		else
			pl_cli_fail("%s", why);
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "perflens: recording to %s (Ctrl-C to stop)\n", path);
	if (!quiet && irq && !all)
		fprintf(stderr, "perflens: note: without --all, --irq sees only the interrupts "
				"that hit the target's threads (the tracepoints are opened per "
				"thread); --all records every CPU's\n");

	sources[0] = g_unix_signal_add(SIGINT, on_stop, &rec);
	sources[1] = g_unix_signal_add(SIGTERM, on_stop, &rec);
	/* The agent ends the session itself (duration, target exit); our
	 * deadline is a backstop in case it does not. */
	if (duration > 0)
		sources[2] = g_timeout_add((guint)((duration + 15) * 1000), on_deadline, &rec);
	gboolean progress = !quiet && isatty(2);
	if (progress)
		sources[3] = g_timeout_add_seconds(1, on_progress, &rec);
	gboolean ended = pl_live_session_wait(session, give_up, &error);
	if (rec.stop_error) {
		g_clear_error(&error);
		g_propagate_error(&error, g_steal_pointer(&rec.stop_error));
	} else if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		g_clear_error(&error); /* gave up waiting for END after STOP */
	}
	if (!ended && error && !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CLOSED)) {
		pl_cli_fail("%s (the session so far is saved in %s)", error->message, path);
		goto out;
	}
	/* the agent vanished (killed, board reset, network cut): what arrived is
	 * on disk, but the recording is incomplete, which a script must see */
	gboolean cut_short = !ended && error;
	if (cut_short)
		fprintf(stderr, "perflens: %s before the session ended; what arrived is saved\n",
			error->message);
	g_clear_error(&error);
	if (progress)
		fputc('\n', stderr);
	/* BYE, and the file closed if the agent never ended the recording */
	pl_live_session_disconnect(session, NULL);
	if (pl_live_session_get_save_error(session)) {
		pl_cli_fail("%s", pl_live_session_get_save_error(session));
		goto out;
	}
	if (!quiet) {
		fprintf(stderr,
			"perflens: saved %" G_GUINT64_FORMAT " samples (%" G_GUINT64_FORMAT
			" bytes) to %s\n",
			pl_live_session_get_samples(session), pl_live_session_get_bytes(session),
			path);
		if (pl_live_session_get_lost(session))
			fprintf(stderr, "perflens: %" G_GUINT64_FORMAT " samples were lost\n",
				pl_live_session_get_lost(session));
		fprintf(stderr, "perflens: next: perflens report %s\n", path);
	}
	rc = cut_short ? PL_EXIT_BAD_INPUT : PL_EXIT_OK;
out:
	for (guint i = 0; i < G_N_ELEMENTS(sources); i++)
		if (sources[i])
			g_source_remove(sources[i]);
	if (rec.stop_timer)
		g_source_remove(rec.stop_timer);
	g_clear_error(&rec.stop_error);
	g_free(token);
	g_free(command);
	g_free(output);
	g_free(listen);
	g_free(callgraph);
	g_free(remote_dir);
	g_free(syscalls);
	g_free(slower);
	g_strfreev(events);
	return rc;
}
