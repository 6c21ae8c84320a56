/* viewer-live-session-test.c — two live sessions (viewer/core's
 * PlLiveSession, what the app's connect form and perflens record drive) side
 * by side in one main context, each recording from its own real agent
 * (perflens-agent --listen on loopback): the messages of one never reach the
 * other's listeners, each file holds what its session counted, one ends by
 * itself (the command exits) and the other by pl_live_session_stop.  The
 * files are read back by the capture reader, which is the oracle for what
 * the sessions saved. */
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "viewer-test-util.h"

#include "pl-capture.h"
#include "pl-client.h"
#include "pl-live-session.h"

static GPid agents[2];
static void stop_agents(void) { vt_stop_agents(agents, G_N_ELEMENTS(agents)); }

/* What one session's listeners heard. */
typedef struct {
	guint started, ended;
	guint64 recorded_samples; /* SAMPLEs through "recorded" */
	gboolean recorded_end;
	char *why;
} Heard;

static void on_started(PlLiveSession *s, const char *path, Heard *h) { h->started++; }
static void on_ended(PlLiveSession *s, const char *why, Heard *h)
{
	h->ended++;
	g_free(h->why);
	h->why = g_strdup(why);
}
static void on_recorded(PlLiveSession *s, gconstpointer data, Heard *h)
{
	const struct pl_msg *m = data;
	if (m->type == PL_MSG_SAMPLE)
		h->recorded_samples++;
	if (m->type == PL_MSG_END)
		h->recorded_end = TRUE;
}

/* What a saved file holds, read back by the capture reader. */
typedef struct {
	guint64 samples, hellos, ends;
	guint64 lost; /* the counts of LOST messages */
	guint8 end_reason;
} Saved;

static gboolean count_saved(const struct pl_msg *m, gpointer data)
{
	Saved *s = data;
	if (m->type == PL_MSG_SAMPLE)
		s->samples++;
	if (m->type == PL_MSG_HELLO)
		s->hellos++;
	if (m->type == PL_MSG_LOST)
		s->lost += m->u.lost.count;
	if (m->type == PL_MSG_END) {
		s->ends++;
		s->end_reason = m->u.end.reason;
	}
	return TRUE;
}

static gboolean give_up(gpointer data)
{
	g_cancellable_cancel(data);
	return G_SOURCE_REMOVE;
}

static void start(PlLiveSession *s, const char *burn, const char *secs, const char *path)
{
	g_autoptr(GError) error = NULL;
	g_autofree struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_START;
	struct pl_msg_start *st = &m->u.start;
	st->target = PL_TARGET_COMMAND;
	st->argv[st->argc++] = pl_str_c(burn);
	st->argv[st->argc++] = pl_str_c(secs);
	st->argv[st->argc++] = pl_str_c("1");
	st->frequency = 199;
	st->callgraph = PL_CG_FP;
	st->stacks = PL_STACKS_BOTH;
	PlSessionWriter *w = pl_session_writer_new(path, &error);
	PL_CHECKF(w, "%s", error->message);
	PL_CHECKF(pl_live_session_start(s, m, w, &error), "START: %s", error->message);
	PL_CHECKF(pl_live_session_wait_started(s, 10000, &error), "START: %s", error->message);
}

static void test_two_sessions_one_context(void)
{
	pl_test_after_case = stop_agents;
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) c0 = vt_agent_client(&agents[0], &error);
	PL_CHECKF(c0, "agent 0: %s", error->message);
	g_autoptr(PlClient) c1 = vt_agent_client(&agents[1], &error);
	PL_CHECKF(c1, "agent 1: %s", error->message);

	PlLiveSession *s[2] = { pl_live_session_new(), pl_live_session_new() };
	Heard h[2] = { { 0 } };
	for (guint i = 0; i < 2; i++) {
		g_signal_connect(s[i], "started", G_CALLBACK(on_started), &h[i]);
		g_signal_connect(s[i], "ended", G_CALLBACK(on_ended), &h[i]);
		g_signal_connect(s[i], "recorded", G_CALLBACK(on_recorded), &h[i]);
	}
	pl_live_session_set_client(s[0], g_steal_pointer(&c0));
	pl_live_session_set_client(s[1], g_steal_pointer(&c1));
	PL_CHECK(pl_live_session_is_connected(s[0]) && pl_live_session_is_connected(s[1]));

	g_autofree char *burn = vt_build_path("workloads/burn");
	g_autofree char *p0 = vt_tmp("short.plens"), *p1 = vt_tmp("stopped.plens");
	/* the first ends by itself (its command exits), the second runs until
	 * stopped */
	start(s[0], burn, "1", p0);
	start(s[1], burn, "60", p1);
	PL_CHECK(h[0].started == 1 && h[1].started == 1);

	g_autoptr(GCancellable) cancel = g_cancellable_new();
	guint guard = g_timeout_add_seconds(60, give_up, cancel);
	PL_CHECKF(pl_live_session_wait(s[0], cancel, &error), "waiting for the first: %s",
		  error->message);
	PL_CHECKF(pl_live_session_is_recording(s[1]), "the second session ended too: %s",
		  h[1].why ? h[1].why : "?");
	/* the same context reads the second one (its agent flushes samples
	 * at its own pace) */
	while (pl_live_session_get_samples(s[1]) == 0 && pl_live_session_is_recording(s[1]) &&
	       !g_cancellable_is_cancelled(cancel))
		g_main_context_iteration(NULL, TRUE);
	PL_CHECKF(pl_live_session_get_samples(s[1]) > 0, "no samples reached the second session%s",
		  g_cancellable_is_cancelled(cancel) ? " in 60 s" : "");
	PL_CHECKF(pl_live_session_stop(s[1], &error), "STOP: %s", error->message);
	PL_CHECKF(pl_live_session_wait(s[1], cancel, &error), "waiting for the second: %s",
		  error->message);
	g_source_remove(guard);

	const char *paths[2] = { p0, p1 };
	const guint8 reasons[2] = { PL_END_TARGET_EXITED, PL_END_STOPPED };
	for (guint i = 0; i < 2; i++) {
		PL_CHECKF(h[i].ended == 1 && h[i].recorded_end, "session %u: %u \"ended\", END %s", i,
			  h[i].ended, h[i].recorded_end ? "recorded" : "not recorded");
		PL_CHECKF(!g_strcmp0(pl_live_session_get_path(s[i]), paths[i]), "session %u saved in %s",
			  i, pl_live_session_get_path(s[i]));
		PL_CHECKF(!pl_live_session_get_save_error(s[i]), "session %u: %s", i,
			  pl_live_session_get_save_error(s[i]));
		Saved sv = { 0 };
		PlCaptureInfo info;
		PL_CHECKF(pl_capture_load(paths[i], count_saved, &sv, &info, &error), "%s: %s",
			  paths[i], error->message);
		PL_CHECKF(sv.hellos == 1 && sv.ends == 1, "%s: %" G_GUINT64_FORMAT " HELLO, %"
			  G_GUINT64_FORMAT " END", paths[i], sv.hellos, sv.ends);
		PL_CHECKF(sv.end_reason == reasons[i], "%s ended for reason %u, expected %u",
			  paths[i], sv.end_reason, reasons[i]);
		PL_CHECKF(sv.samples > 0 && sv.samples == pl_live_session_get_samples(s[i]) &&
				  sv.samples == h[i].recorded_samples,
			  "session %u: %" G_GUINT64_FORMAT " samples saved, %" G_GUINT64_FORMAT
			  " counted, %" G_GUINT64_FORMAT " to its listener",
			  i, sv.samples, pl_live_session_get_samples(s[i]), h[i].recorded_samples);
		PL_CHECKF(info.file_size == pl_live_session_get_bytes(s[i]),
			  "%s: %" G_GUINT64_FORMAT " bytes on disk, the session wrote %" G_GUINT64_FORMAT,
			  paths[i], info.file_size, pl_live_session_get_bytes(s[i]));
	}
	g_free(h[0].why);
	g_free(h[1].why);
	for (guint i = 0; i < 2; i++) {
		pl_live_session_disconnect(s[i], NULL);
		g_object_unref(s[i]);
	}
	stop_agents();
}

/* The number after needle in text, or G_MAXUINT64 when needle is absent. */
static guint64 number_after(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	return p ? g_ascii_strtoull(p + strlen(needle), NULL, 10) : G_MAXUINT64;
}

/* `perflens record` records through a PlLiveSession: what it says it saved
 * is the session's accounting of its file (SAMPLEs, bytes, the LOST counts,
 * read back by the capture reader), and a START the agent refuses leaves no
 * file behind, not even one named with -o (the session deletes a
 * recording that never started, so that no empty session is listed). */
static void test_record_cli(void)
{
	pl_test_after_case = stop_agents;
	g_autoptr(GError) error = NULL;
	int port = vt_agent_listen(&agents[0], &error);
	PL_CHECKF(port, "agent: %s", error->message);
	g_autofree char *addr = g_strdup_printf("127.0.0.1:%d", port);
	g_autofree char *burn = vt_build_path("workloads/burn");
	g_autofree char *cmd = g_strdup_printf("%s 1 1", burn);
	g_autofree char *path = vt_tmp("cli.plens");
	g_autofree char *err = NULL;
	int rc = vt_perflens(NULL, &err, "record", addr, "--token", "t0ken", "--frequency", "199",
			     "--callgraph", "fp", "--command", cmd, "-o", path, NULL);
	PL_CHECKF(rc == 0, "perflens record exited %d: %s", rc, err);
	g_autofree char *saved_to = g_strdup_printf(" bytes) to %s\n", path);
	PL_CHECKF(strstr(err, saved_to), "no 'saved … to %s' line: %s", path, err);
	guint64 samples = number_after(err, "perflens: saved ");
	guint64 bytes = number_after(err, " samples (");
	/* "perflens: N samples were lost", only when some were */
	guint64 lost = 0;
	g_auto(GStrv) lines = g_strsplit(err, "\n", -1);
	for (char **l = lines; *l; l++)
		if (g_str_has_suffix(*l, " samples were lost"))
			lost = number_after(*l, "perflens: ");
	Saved sv = { 0 };
	PlCaptureInfo info;
	PL_CHECKF(pl_capture_load(path, count_saved, &sv, &info, &error), "%s: %s", path,
		  error->message);
	PL_CHECKF(sv.hellos == 1 && sv.ends == 1 && sv.end_reason == PL_END_TARGET_EXITED,
		  "%s: %" G_GUINT64_FORMAT " HELLO, %" G_GUINT64_FORMAT " END (reason %u)", path,
		  sv.hellos, sv.ends, sv.end_reason);
	PL_CHECKF(sv.samples > 0 && sv.samples == samples,
		  "record said %" G_GUINT64_FORMAT " samples saved, %s holds %" G_GUINT64_FORMAT,
		  samples, path, sv.samples);
	PL_CHECKF(info.file_size == bytes,
		  "record said %" G_GUINT64_FORMAT " bytes, %s has %" G_GUINT64_FORMAT, bytes, path,
		  info.file_size);
	PL_CHECKF(sv.lost == lost,
		  "record said %" G_GUINT64_FORMAT " samples lost, %s's LOST count %" G_GUINT64_FORMAT,
		  lost, path, sv.lost);

	/* pids are below pid_max: this one cannot exist */
	g_autofree char *pid_max = NULL;
	PL_CHECK(g_file_get_contents("/proc/sys/kernel/pid_max", &pid_max, NULL, NULL));
	g_strstrip(pid_max);
	g_autofree char *refused = vt_tmp("refused.plens");
	g_autofree char *err2 = NULL;
	rc = vt_perflens(NULL, &err2, "record", addr, "--token", "t0ken", "--pid", pid_max, "-o",
			 refused, NULL);
	PL_CHECKF(rc != 0 && strstr(err2, "refused"), "record --pid %s exited %d: %s", pid_max,
		  rc, err2);
	PL_CHECKF(!g_file_test(refused, G_FILE_TEST_EXISTS),
		  "%s left behind by a refused START", refused);
	stop_agents();
}

PL_TEST_MAIN({ "live_session_two_at_once", test_two_sessions_one_context },
	     { "record_cli_accounts_as_the_session", test_record_cli })
