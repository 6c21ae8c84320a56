/* pl-live-controller.c — a live session in the window (see
 * pl-live-controller.h): the profile made at its start, the messages
 * ingested as they arrive, the refresh pace, the live bar.
 */
#include "pl-live-controller.h"

#include "pl-target-settings.h"

struct _PlLiveController {
	GObject parent_instance;

	PlConnectView *connect;
	GtkWidget *live_bar;
	GtkLabel *live_label;
	GtkWidget *live_pause, *live_stop;

	PlProfile *profile; /* borrowed: the window's */
	PlProfile *fresh;   /* while "new-profile" runs */
	char *path;	    /* the session's file */
	gboolean live, dirty;
	guint refresh_id;
};

G_DEFINE_FINAL_TYPE(PlLiveController, pl_live_controller, G_TYPE_OBJECT)

enum { SIG_NEW_PROFILE, SIG_STARTED, SIG_ENDED, SIG_REFRESH, N_SIGNALS };
static guint signals[N_SIGNALS];

/* socket → client → live session → here → the model */
static void on_recorded(PlLiveSession *session, gconstpointer m, PlLiveController *self)
{
	if (!self->profile)
		return;
	pl_profile_ingest(m, self->profile);
	self->dirty = TRUE;
}

void pl_live_controller_refreshed(PlLiveController *self)
{
	self->dirty = FALSE;
	if (self->live) {
		g_autofree char *s = g_strdup_printf(
			"Recording live — %" G_GUINT64_FORMAT " samples so far, saved as they stream to %s",
			pl_connect_view_get_samples(self->connect),
			pl_connect_view_get_session_path(self->connect)
				? pl_connect_view_get_session_path(self->connect)
				: "?");
		gtk_label_set_text(self->live_label, s);
	}
}

static gboolean on_refresh_tick(gpointer data)
{
	PlLiveController *self = data;
	if (self->dirty)
		g_signal_emit(self, signals[SIG_REFRESH], 0);
	return G_SOURCE_CONTINUE;
}

static void on_session_starting(PlConnectView *cv, PlLiveController *self)
{
	const PlAgentInfo *a = pl_connect_view_get_agent(cv);
	/* the board is this host when it has our name: its paths are readable
	 * here; the rest comes from the board's symbol settings */
	g_autoptr(PlTargetSettings) ts = pl_target_settings_load(a ? a->hostname : NULL);
	PlSymOptions o;
	pl_target_settings_to_options(ts, a && a->hostname &&
						  !g_strcmp0(a->hostname, g_get_host_name()),
				      &o);
	/* a live profile symbolizes on the main thread: a debuginfod fetch
	 * (seconds, megabytes) would freeze the window, so none here; opening
	 * or re-symbolizing the session (a worker thread) fetches */
	g_free(o.debuginfod_urls);
	o.debuginfod_urls = g_strdup("");
	PlProfile *p = pl_profile_new(&o);
	pl_sym_options_clear(&o);
	if (a) {
		/* HELLO was consumed by the connect; the profile needs the
		 * board's architecture and names from it */
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
	self->live = TRUE;
	g_clear_pointer(&self->path, g_free);
	self->fresh = p;
	g_signal_emit(self, signals[SIG_NEW_PROFILE], 0);
	g_clear_pointer(&self->fresh, pl_profile_free);
	gtk_widget_set_visible(self->live_bar, TRUE);
	gtk_widget_set_visible(self->live_pause, TRUE);
	gtk_widget_set_visible(self->live_stop, TRUE);
	gtk_label_set_text(self->live_label, "Starting…");
	if (!self->refresh_id)
		self->refresh_id = g_timeout_add(1000, on_refresh_tick, self);
}

static void on_session_started(PlConnectView *cv, const char *path, PlLiveController *self)
{
	g_free(self->path);
	self->path = g_strdup(path);
	g_signal_emit(self, signals[SIG_STARTED], 0, path);
}

static void on_session_ended(PlConnectView *cv, const char *why, PlLiveController *self)
{
	self->live = FALSE;
	if (self->refresh_id)
		g_source_remove(self->refresh_id);
	self->refresh_id = 0;
	g_signal_emit(self, signals[SIG_ENDED], 0, why);
	gtk_widget_set_visible(self->live_pause, FALSE);
	gtk_widget_set_visible(self->live_stop, FALSE);
	g_autofree char *s = g_strdup_printf("Session ended%s%s — saved in %s", why && *why ? ": " : "",
					     why ? why : "", self->path ? self->path : "?");
	gtk_label_set_text(self->live_label, s);
}

static void on_live_pause(GtkToggleButton *b, PlLiveController *self)
{
	gboolean p = gtk_toggle_button_get_active(b);
	pl_connect_view_pause(self->connect, p);
	gtk_button_set_label(GTK_BUTTON(b), p ? "Resume" : "Pause");
}

static void on_live_stop(GtkButton *b, PlLiveController *self)
{
	pl_connect_view_stop(self->connect);
}

PlLiveController *pl_live_controller_new(PlConnectView *connect)
{
	PlLiveController *self = g_object_new(PL_TYPE_LIVE_CONTROLLER, NULL);
	self->connect = g_object_ref(connect);
	g_signal_connect(pl_connect_view_get_session(connect), "recorded", G_CALLBACK(on_recorded),
			 self);
	g_signal_connect(connect, "session-starting", G_CALLBACK(on_session_starting), self);
	g_signal_connect(connect, "session-started", G_CALLBACK(on_session_started), self);
	g_signal_connect(connect, "session-ended", G_CALLBACK(on_session_ended), self);
	return self;
}

GtkWidget *pl_live_controller_get_bar(PlLiveController *self) { return self->live_bar; }
void pl_live_controller_set_profile(PlLiveController *self, PlProfile *p) { self->profile = p; }
PlProfile *pl_live_controller_take_profile(PlLiveController *self)
{
	return g_steal_pointer(&self->fresh);
}
gboolean pl_live_controller_is_live(PlLiveController *self) { return self->live; }

void pl_live_controller_leave(PlLiveController *self)
{
	self->live = FALSE;
	/* the bar told about a live recording: not about this file */
	gtk_widget_set_visible(self->live_bar, FALSE);
}

static void pl_live_controller_init(PlLiveController *self)
{
	self->live_bar = g_object_ref_sink(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8));
	gtk_widget_add_css_class(self->live_bar, "toolbar");
	self->live_label = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->live_label, 0);
	gtk_label_set_ellipsize(self->live_label, PANGO_ELLIPSIZE_MIDDLE);
	gtk_widget_set_hexpand(GTK_WIDGET(self->live_label), TRUE);
	gtk_box_append(GTK_BOX(self->live_bar), GTK_WIDGET(self->live_label));
	GtkWidget *pause = gtk_toggle_button_new_with_label("Pause");
	self->live_pause = pause;
	g_signal_connect(pause, "toggled", G_CALLBACK(on_live_pause), self);
	GtkWidget *stop = gtk_button_new_with_label("Stop");
	gtk_widget_add_css_class(stop, "destructive-action");
	g_signal_connect(stop, "clicked", G_CALLBACK(on_live_stop), self);
	self->live_stop = stop;
	gtk_box_append(GTK_BOX(self->live_bar), pause);
	gtk_box_append(GTK_BOX(self->live_bar), stop);
	gtk_widget_set_visible(self->live_bar, FALSE);
}

static void pl_live_controller_dispose(GObject *obj)
{
	PlLiveController *self = PL_LIVE_CONTROLLER(obj);
	if (self->refresh_id)
		g_source_remove(self->refresh_id);
	self->refresh_id = 0;
	if (self->connect) {
		g_signal_handlers_disconnect_by_data(pl_connect_view_get_session(self->connect),
						     self);
		g_signal_handlers_disconnect_by_data(self->connect, self);
		g_clear_object(&self->connect);
	}
	if (self->live_bar) {
		g_signal_handlers_disconnect_by_data(self->live_pause, self);
		g_signal_handlers_disconnect_by_data(self->live_stop, self);
		g_clear_object(&self->live_bar);
	}
	g_clear_pointer(&self->fresh, pl_profile_free);
	g_clear_pointer(&self->path, g_free);
	self->profile = NULL;
	G_OBJECT_CLASS(pl_live_controller_parent_class)->dispose(obj);
}

static void pl_live_controller_class_init(PlLiveControllerClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_live_controller_dispose;
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_NEW_PROFILE] = g_signal_new("new-profile", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
						NULL, G_TYPE_NONE, 0);
	signals[SIG_STARTED] = g_signal_new("started", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_ENDED] = g_signal_new("ended", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					  G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_REFRESH] = g_signal_new("refresh", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					    G_TYPE_NONE, 0);
}
