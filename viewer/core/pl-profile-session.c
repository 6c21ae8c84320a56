/* pl-profile-session.c — the open profile, its loading, the live
 * recording feeding it and the selection, as properties (see the header).
 */
#include "pl-profile-session.h"

#include "pl-findings-job.h"
#include "pl-load-job.h"
#include "pl-stack-filter.h"
#include "pl-target-settings.h"

/* how often a live profile's views are made again at most */
#define REFRESH_MS 1000

struct _PlProfileSession {
	GObject parent_instance;

	PlProfile *profile;
	PlAggregate *agg;
	char *path;
	PlFilter filter; /* event: the one aggregated */
	char *search;
	gboolean offcpu, short_names;
	PlViewState *state;

	PlLoadJob *loader;
	char *load_error;
	char *load_status;

	/* the findings of a file's profile: computed by a worker while the
	 * views draw; the profile is not changed while it runs */
	PlFindingsJob *findings_job;
	PlFindingsResult *findings;

	PlLiveSession *live_session;
	gboolean live;	 /* the profile is the followed recording's */
	gboolean dirty;	 /* messages ingested since the last refresh */
	GSource *tick;
};

G_DEFINE_FINAL_TYPE(PlProfileSession, pl_profile_session, G_TYPE_OBJECT)

enum {
	PROP_0,
	PROP_PROFILE,
	PROP_PATH,
	PROP_LOADING,
	PROP_LOAD_PROGRESS,
	PROP_LOAD_STATUS,
	PROP_LOAD_ERROR,
	PROP_LIVE,
	PROP_THREAD,
	PROP_TIME_START,
	PROP_TIME_END,
	PROP_SEARCH,
	PROP_OFFCPU,
	PROP_SHORT_NAMES,
	PROP_AGGREGATE,
	PROP_FINDINGS,
	N_PROPS
};
static GParamSpec *props[N_PROPS];

enum { SIG_UPDATED, SIG_REC_STARTED, SIG_REC_ENDED, SIG_PROBLEM, N_SIGNALS };
static guint signals[N_SIGNALS];

/* ─── the findings ───────────────────────────────────────────────────── */

static void publish_findings(PlProfileSession *self, PlFindingsResult *r)
{
	if (!r)
		return;
	pl_findings_result_free(self->findings);
	self->findings = r;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_FINDINGS]);
}

static void on_findings_done(PlFindingsResult *r, gpointer data)
{
	PlProfileSession *self = data;
	pl_findings_job_free(g_steal_pointer(&self->findings_job));
	publish_findings(self, r);
}

/* Before the profile changes or goes: the worker reading it is waited
 * for, and what it found published now. */
static void finish_findings(PlProfileSession *self)
{
	if (self->findings_job)
		publish_findings(self, pl_findings_job_wait(g_steal_pointer(&self->findings_job)));
}

/* ─── the aggregate ──────────────────────────────────────────────────── */

static guint32 switch_event(PlProfile *p)
{
	GPtrArray *evs = pl_profile_get_events(p);
	for (guint i = 0; i < evs->len; i++) {
		PlEvent *e = evs->pdata[i];
		if (e->role == PL_ROLE_SWITCH && e->samples)
			return e->index;
	}
	return PL_NO_ID;
}

static void reaggregate(PlProfileSession *self)
{
	PlAggregate *old = self->agg;
	self->agg = NULL;
	self->filter.event = PL_NO_ID;
	if (self->profile) {
		/* a stack filter interns its rewritten tree into the profile */
		if (!pl_stack_filter_is_empty(pl_view_state_get_stack_filter(self->state)))
			finish_findings(self);
		self->filter.event = self->offcpu ? switch_event(self->profile)
						  : pl_profile_get_main_event(self->profile);
		self->agg = pl_profile_aggregate_filtered(self->profile, &self->filter,
							  pl_view_state_get_stack_filter(self->state));
	}
	/* the old one stays valid until every view has the new one */
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_AGGREGATE]);
	if (old)
		pl_aggregate_free(old);
}

static void on_transforms_changed(PlViewState *st, PlProfileSession *self)
{
	reaggregate(self);
	if (pl_view_state_get_error(st))
		g_signal_emit(self, signals[SIG_PROBLEM], 0, pl_view_state_get_error(st));
}

/* ─── the profile ────────────────────────────────────────────────────── */

static void set_path(PlProfileSession *self, const char *path)
{
	if (!g_strcmp0(self->path, path))
		return;
	g_free(self->path);
	self->path = g_strdup(path);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PATH]);
}

static void set_live(PlProfileSession *self, gboolean live)
{
	if (self->live == live)
		return;
	self->live = live;
	if (!live && self->tick) {
		g_source_destroy(self->tick);
		g_clear_pointer(&self->tick, g_source_unref);
	}
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_LIVE]);
}

static void replace_profile(PlProfileSession *self, PlProfile *p, const char *path)
{
	/* the old profile's findings are of no use now */
	pl_findings_job_free(g_steal_pointer(&self->findings_job));
	gboolean had_findings = self->findings != NULL;
	g_clear_pointer(&self->findings, pl_findings_result_free);
	g_object_freeze_notify(G_OBJECT(self));
	/* the views let the old one go at notify::profile, before it is freed */
	PlProfile *old = self->profile;
	PlAggregate *old_agg = self->agg;
	self->profile = p;
	self->agg = NULL;
	self->dirty = FALSE;
	if (p)
		pl_profile_set_short_names(p, self->short_names);
	/* the session's transforms come with it: aggregated once, below */
	g_signal_handlers_block_by_func(self->state, on_transforms_changed, self);
	pl_view_state_set_session(self->state, path);
	g_signal_handlers_unblock_by_func(self->state, on_transforms_changed, self);
	if (pl_view_state_get_error(self->state))
		g_signal_emit(self, signals[SIG_PROBLEM], 0, pl_view_state_get_error(self->state));
	set_path(self, path);
	self->filter = PL_FILTER_ALL;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_THREAD]);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_TIME_START]);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_TIME_END]);
	if (had_findings)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_FINDINGS]);
	g_object_thaw_notify(G_OBJECT(self));
	/* outside the freeze: "profile" before "aggregate", each at once */
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_PROFILE]);
	reaggregate(self);
	if (old_agg)
		pl_aggregate_free(old_agg);
	if (old)
		pl_profile_free(old);
}

void pl_profile_session_set_profile(PlProfileSession *self, PlProfile *p, const char *path)
{
	set_live(self, FALSE);
	replace_profile(self, p, path);
	/* a file's profile changes no more: its findings are computed beside
	 * the views' first drawing (a live one's by the Findings page) */
	if (p)
		self->findings_job = pl_findings_job_start(p, on_findings_done, self);
}

void pl_profile_session_rename(PlProfileSession *self, const char *from, const char *to)
{
	if (!self->path || g_strcmp0(self->path, from))
		return;
	pl_view_state_keep_in(self->state, to); /* its file moved along */
	set_path(self, to);
}

PlProfile *pl_profile_session_get_profile(PlProfileSession *self) { return self->profile; }
const char *pl_profile_session_get_path(PlProfileSession *self) { return self->path; }

/* ─── loading a file ─────────────────────────────────────────────────── */

static void set_load_status(PlProfileSession *self, char *text)
{
	g_free(self->load_status);
	self->load_status = text;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_LOAD_STATUS]);
}

static void set_load_error(PlProfileSession *self, char *text)
{
	if (!text && !self->load_error)
		return;
	g_free(self->load_error);
	self->load_error = text;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_LOAD_ERROR]);
}

static void load_done(PlLoadJob *loader, const char *path, PlProfileSession *self)
{
	const GError *error = pl_load_job_get_error(loader);
	PlProfile *p = pl_load_job_take_profile(loader);
	g_object_freeze_notify(G_OBJECT(self));
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_LOADING]);
	if (!p && !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
		set_load_error(self, g_strdup_printf("Cannot open %s: %s", path, error->message));
	g_object_thaw_notify(G_OBJECT(self));
	if (p)
		pl_profile_session_set_profile(self, p, path);
}

static void on_load_progress(PlLoadJob *loader, PlProfileSession *self)
{
	const char *path = pl_load_job_get_path(loader);
	g_autofree char *fetch = pl_load_job_dup_fetch_status(loader);
	set_load_status(self, g_strdup_printf("Loading %s… %" G_GSIZE_FORMAT " records read%s%s",
					      path ? path : "", pl_load_job_get_progress(loader),
					      fetch ? "\n" : "", fetch ? fetch : ""));
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_LOAD_PROGRESS]);
}

void pl_profile_session_open(PlProfileSession *self, const char *path)
{
	g_object_freeze_notify(G_OBJECT(self));
	set_load_error(self, NULL);
	set_load_status(self, g_strdup_printf("Loading %s…", path));
	pl_load_job_load(self->loader, path);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_LOADING]);
	g_object_thaw_notify(G_OBJECT(self));
}

void pl_profile_session_cancel_load(PlProfileSession *self) { pl_load_job_cancel(self->loader); }
gboolean pl_profile_session_is_loading(PlProfileSession *self)
{
	return pl_load_job_is_loading(self->loader);
}
const char *pl_profile_session_get_load_error(PlProfileSession *self) { return self->load_error; }
const char *pl_profile_session_get_load_status(PlProfileSession *self)
{
	return self->load_status;
}

/* ─── live ───────────────────────────────────────────────────────────── */

/* socket → client → live session → here → the model */
static void on_recorded(PlLiveSession *live, gconstpointer m, PlProfileSession *self)
{
	if (!self->live || !self->profile)
		return;
	finish_findings(self); /* none runs on a live profile; a guard */
	pl_profile_ingest(m, self->profile);
	self->dirty = TRUE;
}

void pl_profile_session_refresh(PlProfileSession *self)
{
	if (!self->profile)
		return;
	finish_findings(self);
	self->dirty = FALSE;
	pl_profile_finish(self->profile);
	g_signal_emit(self, signals[SIG_UPDATED], 0);
	reaggregate(self);
}

static gboolean on_tick(gpointer data)
{
	PlProfileSession *self = data;
	if (self->dirty)
		pl_profile_session_refresh(self);
	return G_SOURCE_CONTINUE;
}

/* A profile for a recording of the board live is connected to: its symbol
 * settings, and its HELLO (consumed by the connect) for the architecture
 * and names. */
static PlProfile *live_profile_new(const PlAgentInfo *a)
{
	/* the board is this host when it has our name: its paths are readable
	 * here; the rest comes from the board's symbol settings */
	g_autoptr(PlTargetSettings) ts = pl_target_settings_load(a ? a->hostname : NULL);
	PlSymOptions o;
	pl_target_settings_to_options(ts, a && a->hostname &&
						  !g_strcmp0(a->hostname, g_get_host_name()),
				      &o);
	/* a live profile symbolizes where the messages arrive, a window's
	 * main thread: a debuginfod fetch (seconds, megabytes) would freeze
	 * it, so none here; opening or re-symbolizing the session (a worker
	 * thread) fetches */
	g_free(o.debuginfod_urls);
	o.debuginfod_urls = g_strdup("");
	PlProfile *p = pl_profile_new(&o);
	pl_sym_options_clear(&o);
	if (a) {
		struct pl_msg *m = g_new0(struct pl_msg, 1);
		m->type = PL_MSG_HELLO;
		struct pl_msg_hello *h = &m->u.hello;
		h->protocol_version = a->protocol_version;
		h->agent_version = pl_str_c(a->agent_version);
		h->machine = pl_str_c(a->machine);
		h->e_machine = a->e_machine;
		h->byte_order = a->byte_order;
		h->word_size = a->word_size;
		h->kernel_release = pl_str_c(a->kernel_release);
		h->hostname = pl_str_c(a->hostname);
		h->ncpus = a->ncpus;
		h->flags = a->flags;
		h->perf_errno = a->perf_errno;
		pl_profile_ingest(m, p);
		g_free(m);
	}
	return p;
}

static void on_starting(PlLiveSession *live, PlProfileSession *self)
{
	PlProfile *p = live_profile_new(pl_live_session_get_agent(live));
	set_live(self, FALSE);
	replace_profile(self, p, NULL);
	set_live(self, TRUE);
	if (!self->tick) {
		self->tick = g_timeout_source_new(REFRESH_MS);
		g_source_set_callback(self->tick, on_tick, self, NULL);
		g_source_attach(self->tick, g_main_context_get_thread_default());
	}
}

static void on_started(PlLiveSession *live, const char *path, PlProfileSession *self)
{
	if (!self->live)
		return;
	set_path(self, path);
	/* the transforms made before the file existed belong to it now */
	pl_view_state_keep_in(self->state, path);
	g_signal_emit(self, signals[SIG_REC_STARTED], 0, path);
}

static void on_ended(PlLiveSession *live, const char *why, PlProfileSession *self)
{
	if (!self->live)
		return;
	set_live(self, FALSE);
	pl_profile_session_refresh(self);
	g_signal_emit(self, signals[SIG_REC_ENDED], 0, why);
}

void pl_profile_session_follow(PlProfileSession *self, PlLiveSession *live)
{
	if (self->live_session) {
		g_signal_handlers_disconnect_by_data(self->live_session, self);
		g_clear_object(&self->live_session);
	}
	set_live(self, FALSE);
	if (!live)
		return;
	self->live_session = g_object_ref(live);
	g_signal_connect(live, "starting", G_CALLBACK(on_starting), self);
	g_signal_connect(live, "started", G_CALLBACK(on_started), self);
	g_signal_connect(live, "recorded", G_CALLBACK(on_recorded), self);
	g_signal_connect(live, "ended", G_CALLBACK(on_ended), self);
}

PlLiveSession *pl_profile_session_get_live_session(PlProfileSession *self)
{
	return self->live_session;
}
gboolean pl_profile_session_is_live(PlProfileSession *self) { return self->live; }

/* ─── the selection ──────────────────────────────────────────────────── */

void pl_profile_session_set_range(PlProfileSession *self, guint32 tid, guint64 t0, guint64 t1)
{
	g_object_freeze_notify(G_OBJECT(self));
	if (self->filter.tid != tid)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_THREAD]);
	if (self->filter.t0 != t0)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_TIME_START]);
	if (self->filter.t1 != t1)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_TIME_END]);
	self->filter.tid = tid;
	self->filter.t0 = t0;
	self->filter.t1 = t1;
	g_object_thaw_notify(G_OBJECT(self));
	reaggregate(self);
}

PlFilter pl_profile_session_get_filter(PlProfileSession *self) { return self->filter; }
gboolean pl_profile_session_is_filtered(PlProfileSession *self)
{
	return self->filter.tid || self->filter.t1 > self->filter.t0;
}

void pl_profile_session_set_search(PlProfileSession *self, const char *search)
{
	if (!search)
		search = "";
	if (!g_strcmp0(self->search, search))
		return;
	g_free(self->search);
	self->search = g_strdup(search);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SEARCH]);
}
const char *pl_profile_session_get_search(PlProfileSession *self) { return self->search; }

void pl_profile_session_set_offcpu(PlProfileSession *self, gboolean on)
{
	on = !!on;
	if (self->offcpu == on)
		return;
	self->offcpu = on;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_OFFCPU]);
	reaggregate(self);
}
gboolean pl_profile_session_get_offcpu(PlProfileSession *self) { return self->offcpu; }
gboolean pl_profile_session_has_offcpu(PlProfileSession *self)
{
	return self->profile && switch_event(self->profile) != PL_NO_ID;
}

void pl_profile_session_set_short_names(PlProfileSession *self, gboolean on)
{
	on = !!on;
	if (self->short_names == on)
		return;
	self->short_names = on;
	finish_findings(self); /* the labels are made again */
	if (self->profile)
		pl_profile_set_short_names(self->profile, on);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SHORT_NAMES]);
	reaggregate(self);
}
gboolean pl_profile_session_get_short_names(PlProfileSession *self) { return self->short_names; }

PlViewState *pl_profile_session_get_view_state(PlProfileSession *self) { return self->state; }
PlAggregate *pl_profile_session_get_aggregate(PlProfileSession *self) { return self->agg; }

PlFindingsResult *pl_profile_session_get_findings(PlProfileSession *self)
{
	return self->findings;
}

gboolean pl_profile_session_findings_pending(PlProfileSession *self)
{
	return self->findings_job != NULL;
}

/* ─── GObject ────────────────────────────────────────────────────────── */

PlProfileSession *pl_profile_session_new(void)
{
	return g_object_new(PL_TYPE_PROFILE_SESSION, NULL);
}

static void pl_profile_session_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
	PlProfileSession *self = PL_PROFILE_SESSION(obj);
	switch (id) {
	case PROP_PROFILE: g_value_set_pointer(v, self->profile); break;
	case PROP_PATH: g_value_set_string(v, self->path); break;
	case PROP_LOADING: g_value_set_boolean(v, pl_load_job_is_loading(self->loader)); break;
	case PROP_LOAD_PROGRESS: g_value_set_uint64(v, pl_load_job_get_progress(self->loader)); break;
	case PROP_LOAD_STATUS: g_value_set_string(v, self->load_status); break;
	case PROP_LOAD_ERROR: g_value_set_string(v, self->load_error); break;
	case PROP_LIVE: g_value_set_boolean(v, self->live); break;
	case PROP_THREAD: g_value_set_uint(v, self->filter.tid); break;
	case PROP_TIME_START: g_value_set_uint64(v, self->filter.t0); break;
	case PROP_TIME_END: g_value_set_uint64(v, self->filter.t1); break;
	case PROP_SEARCH: g_value_set_string(v, self->search); break;
	case PROP_OFFCPU: g_value_set_boolean(v, self->offcpu); break;
	case PROP_SHORT_NAMES: g_value_set_boolean(v, self->short_names); break;
	case PROP_AGGREGATE: g_value_set_pointer(v, self->agg); break;
	case PROP_FINDINGS: g_value_set_pointer(v, self->findings); break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
	}
}

static void pl_profile_session_set_property(GObject *obj, guint id, const GValue *v,
					    GParamSpec *ps)
{
	PlProfileSession *self = PL_PROFILE_SESSION(obj);
	switch (id) {
	case PROP_THREAD:
		pl_profile_session_set_range(self, g_value_get_uint(v), self->filter.t0,
					     self->filter.t1);
		break;
	case PROP_TIME_START:
		pl_profile_session_set_range(self, self->filter.tid, g_value_get_uint64(v),
					     self->filter.t1);
		break;
	case PROP_TIME_END:
		pl_profile_session_set_range(self, self->filter.tid, self->filter.t0,
					     g_value_get_uint64(v));
		break;
	case PROP_SEARCH: pl_profile_session_set_search(self, g_value_get_string(v)); break;
	case PROP_OFFCPU: pl_profile_session_set_offcpu(self, g_value_get_boolean(v)); break;
	case PROP_SHORT_NAMES: pl_profile_session_set_short_names(self, g_value_get_boolean(v)); break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
	}
}

static void pl_profile_session_init(PlProfileSession *self)
{
	self->filter = PL_FILTER_ALL;
	self->search = g_strdup(""); /* an entry's text is never NULL */
	self->state = pl_view_state_new();
	g_signal_connect(self->state, "changed", G_CALLBACK(on_transforms_changed), self);
	self->loader = pl_load_job_new();
	g_signal_connect(self->loader, "finished", G_CALLBACK(load_done), self);
	g_signal_connect(self->loader, "progress", G_CALLBACK(on_load_progress), self);
}

static void pl_profile_session_dispose(GObject *obj)
{
	PlProfileSession *self = PL_PROFILE_SESSION(obj);
	if (self->loader) {
		/* a running load ends in its worker, unseen */
		g_signal_handlers_disconnect_by_data(self->loader, self);
		pl_load_job_cancel(self->loader);
		g_clear_object(&self->loader);
	}
	if (self->live_session) {
		/* no more messages into a profile about to be freed */
		g_signal_handlers_disconnect_by_data(self->live_session, self);
		g_clear_object(&self->live_session);
	}
	if (self->tick) {
		g_source_destroy(self->tick);
		g_clear_pointer(&self->tick, g_source_unref);
	}
	/* before the profile goes (finalize) */
	pl_findings_job_free(g_steal_pointer(&self->findings_job));
	if (self->state)
		g_signal_handlers_disconnect_by_data(self->state, self);
	g_clear_object(&self->state);
	G_OBJECT_CLASS(pl_profile_session_parent_class)->dispose(obj);
}

static void pl_profile_session_finalize(GObject *obj)
{
	PlProfileSession *self = PL_PROFILE_SESSION(obj);
	g_clear_pointer(&self->findings, pl_findings_result_free);
	g_clear_pointer(&self->agg, pl_aggregate_free);
	g_clear_pointer(&self->profile, pl_profile_free);
	g_free(self->path);
	g_free(self->search);
	g_free(self->load_error);
	g_free(self->load_status);
	G_OBJECT_CLASS(pl_profile_session_parent_class)->finalize(obj);
}

static void pl_profile_session_class_init(PlProfileSessionClass *klass)
{
	GObjectClass *oc = G_OBJECT_CLASS(klass);
	oc->get_property = pl_profile_session_get_property;
	oc->set_property = pl_profile_session_set_property;
	oc->dispose = pl_profile_session_dispose;
	oc->finalize = pl_profile_session_finalize;
	const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
	const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
	props[PROP_PROFILE] = g_param_spec_pointer("profile", NULL, NULL, ro);
	props[PROP_PATH] = g_param_spec_string("path", NULL, NULL, NULL, ro);
	props[PROP_LOADING] = g_param_spec_boolean("loading", NULL, NULL, FALSE, ro);
	props[PROP_LOAD_PROGRESS] =
		g_param_spec_uint64("load-progress", NULL, NULL, 0, G_MAXUINT64, 0, ro);
	props[PROP_LOAD_STATUS] = g_param_spec_string("load-status", NULL, NULL, NULL, ro);
	props[PROP_LOAD_ERROR] = g_param_spec_string("load-error", NULL, NULL, NULL, ro);
	props[PROP_LIVE] = g_param_spec_boolean("live", NULL, NULL, FALSE, ro);
	props[PROP_THREAD] = g_param_spec_uint("thread", NULL, NULL, 0, G_MAXUINT32, 0, rw);
	props[PROP_TIME_START] = g_param_spec_uint64("time-start", NULL, NULL, 0, G_MAXUINT64, 0, rw);
	props[PROP_TIME_END] = g_param_spec_uint64("time-end", NULL, NULL, 0, G_MAXUINT64, 0, rw);
	props[PROP_SEARCH] = g_param_spec_string("search", NULL, NULL, "", rw);
	props[PROP_OFFCPU] = g_param_spec_boolean("offcpu", NULL, NULL, FALSE, rw);
	props[PROP_SHORT_NAMES] = g_param_spec_boolean("short-names", NULL, NULL, FALSE, rw);
	props[PROP_AGGREGATE] = g_param_spec_pointer("aggregate", NULL, NULL, ro);
	props[PROP_FINDINGS] = g_param_spec_pointer("findings", NULL, NULL, ro);
	g_object_class_install_properties(oc, N_PROPS, props);

	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_UPDATED] = g_signal_new("updated", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 0);
	signals[SIG_REC_STARTED] = g_signal_new("recording-started", t, G_SIGNAL_RUN_LAST, 0, NULL,
						NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_REC_ENDED] = g_signal_new("recording-ended", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
					      NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_PROBLEM] = g_signal_new("problem", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 1, G_TYPE_STRING);
}
