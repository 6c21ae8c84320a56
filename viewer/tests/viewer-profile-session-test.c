/* viewer-profile-session-test.c — viewer/core's PlProfileSession with no
 * GTK, as a collector or `perflens record` would hold it: two sessions,
 * each following its own live session recording from its own real agent
 * (perflens-agent --listen on loopback) in one main context, each making
 * its profile when the recording starts and ingesting only its own
 * recording; then a third opens one of the saved files in its worker, and
 * its selection (thread, time range) reaches the aggregate.  The oracles:
 * the saved files read back by the capture reader (SAMPLE messages, the
 * threads and times of the samples), and the live sessions' own counts. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "viewer-test-util.h"

#include "pl-capture.h"
#include "pl-client.h"
#include "pl-live-session.h"
#include "pl-profile-session.h"

static GPid agents[2];
static void stop_agents(void) { vt_stop_agents(agents, G_N_ELEMENTS(agents)); }

/* What a profile session said. */
typedef struct {
	guint live_on, live_off; /* notify::live, by the value after */
	guint profiles;		 /* notify::profile */
	guint aggregates;	 /* notify::aggregate */
	guint updated, started, ended;
	char *started_path;
} Heard;

static void on_live(PlProfileSession *s, GParamSpec *ps, Heard *h)
{
	if (pl_profile_session_is_live(s))
		h->live_on++;
	else
		h->live_off++;
}
static void on_profile(PlProfileSession *s, GParamSpec *ps, Heard *h) { h->profiles++; }
static void on_aggregate(PlProfileSession *s, GParamSpec *ps, Heard *h) { h->aggregates++; }
static void on_updated(PlProfileSession *s, Heard *h) { h->updated++; }
static void on_started(PlProfileSession *s, const char *path, Heard *h)
{
	h->started++;
	g_free(h->started_path);
	h->started_path = g_strdup(path);
}
static void on_ended(PlProfileSession *s, const char *why, Heard *h) { h->ended++; }

static void listen_to(PlProfileSession *s, Heard *h)
{
	g_signal_connect(s, "notify::live", G_CALLBACK(on_live), h);
	g_signal_connect(s, "notify::profile", G_CALLBACK(on_profile), h);
	g_signal_connect(s, "notify::aggregate", G_CALLBACK(on_aggregate), h);
	g_signal_connect(s, "updated", G_CALLBACK(on_updated), h);
	g_signal_connect(s, "recording-started", G_CALLBACK(on_started), h);
	g_signal_connect(s, "recording-ended", G_CALLBACK(on_ended), h);
}

/* What a saved file holds, read back by the capture reader: its SAMPLEs,
 * and those of one thread inside one time range. */
typedef struct {
	guint64 samples;
	guint64 by_event[16]; /* the aggregate counts its event's alone */
	guint64 first, last;
	guint32 tid, event;
	guint64 t0, t1, in_range;
} Saved;

/* the samples of the event the session aggregates */
static guint64 event_samples(const Saved *sv, PlProfileSession *s)
{
	guint32 e = pl_profile_session_get_filter(s).event;
	return e < G_N_ELEMENTS(sv->by_event) ? sv->by_event[e] : 0;
}

static gboolean count_saved(const struct pl_msg *m, gpointer data)
{
	Saved *s = data;
	if (m->type != PL_MSG_SAMPLE)
		return TRUE;
	const struct pl_msg_sample *sm = &m->u.sample;
	s->samples++;
	if (sm->event < G_N_ELEMENTS(s->by_event))
		s->by_event[sm->event]++;
	if (!s->first || sm->time < s->first)
		s->first = sm->time;
	s->last = MAX(s->last, sm->time);
	if (s->tid && sm->tid == s->tid && sm->event == s->event && sm->time >= s->t0 &&
	    sm->time < s->t1)
		s->in_range++;
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

static guint64 profile_samples(PlProfileSession *s)
{
	PlAggregate *agg = pl_profile_session_get_aggregate(s);
	return agg ? agg->all.samples : 0;
}

static void test_live_and_file(void)
{
	pl_test_after_case = stop_agents;
	g_autoptr(GError) error = NULL;
	g_autofree char *config = vt_tmp("config");
	g_setenv("XDG_CONFIG_HOME", config, TRUE); /* no symbol settings of the host's */
	g_autoptr(PlClient) c0 = vt_agent_client(&agents[0], &error);
	PL_CHECKF(c0, "agent 0: %s", error->message);
	g_autoptr(PlClient) c1 = vt_agent_client(&agents[1], &error);
	PL_CHECKF(c1, "agent 1: %s", error->message);

	PlLiveSession *live[2] = { pl_live_session_new(), pl_live_session_new() };
	PlProfileSession *ps[2] = { pl_profile_session_new(), pl_profile_session_new() };
	Heard h[2] = { { 0 } };
	for (guint i = 0; i < 2; i++) {
		listen_to(ps[i], &h[i]);
		pl_profile_session_follow(ps[i], live[i]);
	}
	pl_live_session_set_client(live[0], g_steal_pointer(&c0));
	pl_live_session_set_client(live[1], g_steal_pointer(&c1));

	g_autofree char *burn = vt_build_path("workloads/burn");
	g_autofree char *p0 = vt_tmp("one.plens"), *p1 = vt_tmp("two.plens");
	/* the first ends by itself (its command exits), the second when stopped */
	const char *paths[2] = { p0, p1 };
	for (guint i = 0; i < 2; i++) {
		/* live from "starting" (a one-second command may have ended by
		 * the time START's answer is read) */
		start(live[i], burn, i ? "60" : "1", paths[i]);
		PL_CHECKF(h[i].live_on == 1 && (pl_profile_session_is_live(ps[i]) || h[i].ended == 1),
			  "session %u: live %u times, off %u, ended %u, now %d", i, h[i].live_on, h[i].live_off, h[i].ended,
			  pl_profile_session_is_live(ps[i]));
		PL_CHECKF(h[i].started == 1 && !g_strcmp0(h[i].started_path, i ? p1 : p0) &&
				  !g_strcmp0(pl_profile_session_get_path(ps[i]), i ? p1 : p0),
			  "session %u: %u \"recording-started\" with %s, path %s", i, h[i].started,
			  h[i].started_path, pl_profile_session_get_path(ps[i]));
		PL_CHECKF(pl_profile_session_get_profile(ps[i]), "session %u made no profile", i);
	}
	PlProfile *first_profile = pl_profile_session_get_profile(ps[1]);

	g_autoptr(GCancellable) cancel = g_cancellable_new();
	guint guard = g_timeout_add_seconds(60, give_up, cancel);
	PL_CHECKF(pl_live_session_wait(live[0], cancel, &error), "waiting for the first: %s",
		  error->message);
	/* the second refreshes by itself, once a second, while samples come */
	while (h[1].updated < 2 && pl_live_session_is_recording(live[1]) &&
	       !g_cancellable_is_cancelled(cancel))
		g_main_context_iteration(NULL, TRUE);
	PL_CHECKF(h[1].updated >= 2 && profile_samples(ps[1]) > 0,
		  "the recording still running: %u \"updated\", %" G_GUINT64_FORMAT " samples", h[1].updated,
		  profile_samples(ps[1]));
	PL_CHECKF(pl_profile_session_get_profile(ps[1]) == first_profile,
		  "the live profile was replaced while recording");
	PL_CHECKF(pl_live_session_stop(live[1], &error), "STOP: %s", error->message);
	PL_CHECKF(pl_live_session_wait(live[1], cancel, &error), "waiting for the second: %s",
		  error->message);
	g_source_remove(guard);

	Saved sv[2] = { { 0 } };
	for (guint i = 0; i < 2; i++) {
		PL_CHECKF(h[i].ended == 1 && h[i].live_off == 1 && !pl_profile_session_is_live(ps[i]),
			  "session %u: %u \"recording-ended\", live off %u times", i, h[i].ended,
			  h[i].live_off);
		PlCaptureInfo info;
		PL_CHECKF(pl_capture_load(paths[i], count_saved, &sv[i], &info, &error), "%s: %s",
			  paths[i], error->message);
		/* every sample the session's agent sent, and none of the other's */
		PL_CHECKF(event_samples(&sv[i], ps[i]) > 0 &&
				  profile_samples(ps[i]) == event_samples(&sv[i], ps[i]) &&
				  pl_live_session_get_samples(live[i]) == sv[i].samples,
			  "session %u: %" G_GUINT64_FORMAT " samples in its profile, %" G_GUINT64_FORMAT
			  " of its event saved (%" G_GUINT64_FORMAT " in all), %" G_GUINT64_FORMAT
			  " received",
			  i, profile_samples(ps[i]), event_samples(&sv[i], ps[i]), sv[i].samples,
			  pl_live_session_get_samples(live[i]));
	}

	/* the saved file, opened by a third session in its worker */
	PlProfileSession *file = pl_profile_session_new();
	Heard hf = { 0 };
	listen_to(file, &hf);
	pl_profile_session_open(file, p1);
	PL_CHECK(pl_profile_session_is_loading(file));
	g_autoptr(GCancellable) cancel_load = g_cancellable_new();
	guard = g_timeout_add_seconds(60, give_up, cancel_load);
	while (pl_profile_session_is_loading(file) && !g_cancellable_is_cancelled(cancel_load))
		g_main_context_iteration(NULL, TRUE);
	g_source_remove(guard);
	PL_CHECKF(pl_profile_session_get_profile(file), "%s did not load: %s", p1,
		  pl_profile_session_get_load_error(file));
	PL_CHECKF(!g_strcmp0(pl_profile_session_get_path(file), p1) && hf.profiles == 1 &&
			  !pl_profile_session_is_live(file),
		  "the file's session: path %s, %u profiles", pl_profile_session_get_path(file),
		  hf.profiles);
	PL_CHECKF(profile_samples(file) == event_samples(&sv[1], file),
		  "%s: %" G_GUINT64_FORMAT " samples loaded, %" G_GUINT64_FORMAT " saved", p1,
		  profile_samples(file), event_samples(&sv[1], file));

	/* a thread and the middle half of the recording, as the timeline
	 * selects them: one new aggregate, of the samples the file holds there */
	GPtrArray *threads = pl_profile_get_threads(pl_profile_session_get_profile(file));
	PL_CHECK(threads && threads->len > 0);
	Saved sel = { 0 };
	sel.tid = ((PlThread *)threads->pdata[0])->tid;
	sel.t0 = sv[1].first + (sv[1].last - sv[1].first) / 4;
	sel.t1 = sv[1].last - (sv[1].last - sv[1].first) / 4;
	sel.event = pl_profile_session_get_filter(file).event;
	PlCaptureInfo info;
	PL_CHECKF(pl_capture_load(p1, count_saved, &sel, &info, &error), "%s", error->message);
	guint aggs = hf.aggregates;
	pl_profile_session_set_range(file, sel.tid, sel.t0, sel.t1);
	PlFilter f = pl_profile_session_get_filter(file);
	PL_CHECKF(hf.aggregates == aggs + 1 && f.tid == sel.tid && f.t0 == sel.t0 && f.t1 == sel.t1,
		  "%u aggregates for one selection; filter tid %u [%" G_GUINT64_FORMAT ", %"
		  G_GUINT64_FORMAT ")", hf.aggregates - aggs, f.tid, f.t0, f.t1);
	PL_CHECKF(profile_samples(file) == sel.in_range && sel.in_range > 0,
		  "thread %u in the middle half: %" G_GUINT64_FORMAT " samples aggregated, %"
		  G_GUINT64_FORMAT " in the file",
		  sel.tid, profile_samples(file), sel.in_range);
	guint tid_prop = 0;
	g_object_get(file, "thread", &tid_prop, NULL);
	PL_CHECKF(tid_prop == sel.tid, "property thread %u, selected %u", tid_prop, sel.tid);
	g_object_set(file, "thread", 0, "time-start", (guint64)0, "time-end", (guint64)0, NULL);
	PL_CHECKF(profile_samples(file) == event_samples(&sv[1], file) &&
			  !pl_profile_session_is_filtered(file),
		  "cleared through the properties: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
		  " samples", profile_samples(file), event_samples(&sv[1], file));

	g_object_unref(file);
	for (guint i = 0; i < 2; i++) {
		g_object_unref(ps[i]);
		pl_live_session_disconnect(live[i], NULL);
		g_object_unref(live[i]);
		g_free(h[i].started_path);
	}
	stop_agents();
}

PL_TEST_MAIN({ "profile_session_live_and_file", test_live_and_file })
