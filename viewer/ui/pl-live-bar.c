/* pl-live-bar.c — a live recording's bar (see the header). */
#include "pl-live-bar.h"

struct _PlLiveBar {
	GtkBox parent_instance;

	GtkLabel *label;
	GtkToggleButton *pause;
	GtkWidget *stop;
	PlProfileSession *session;
};

G_DEFINE_FINAL_TYPE(PlLiveBar, pl_live_bar, GTK_TYPE_BOX)

enum { SIG_PAUSE, SIG_STOP, N_SIGNALS };
static guint signals[N_SIGNALS];

static void on_live(PlProfileSession *s, GParamSpec *ps, PlLiveBar *self)
{
	gboolean live = pl_profile_session_is_live(s);
	/* not live any more: another file is shown, unless "recording-ended"
	 * says next how the recording ended */
	gtk_widget_set_visible(GTK_WIDGET(self), live);
	if (!live)
		return;
	gtk_widget_set_visible(GTK_WIDGET(self->pause), TRUE);
	gtk_widget_set_visible(self->stop, TRUE);
	gtk_label_set_text(self->label, "Starting…");
}

/* the bar told about a live recording: not about the file shown now */
static void on_profile(PlProfileSession *s, GParamSpec *ps, PlLiveBar *self)
{
	if (!pl_profile_session_is_live(s))
		gtk_widget_set_visible(GTK_WIDGET(self), FALSE);
}

static void on_updated(PlProfileSession *s, PlLiveBar *self)
{
	if (!pl_profile_session_is_live(s))
		return;
	PlLiveSession *live = pl_profile_session_get_live_session(s);
	const char *path = live && pl_live_session_is_recording(live)
				   ? pl_live_session_get_path(live)
				   : NULL;
	g_autofree char *text = g_strdup_printf(
		"Recording live — %" G_GUINT64_FORMAT " samples so far, saved as they stream to %s",
		live ? pl_live_session_get_samples(live) : 0, path ? path : "?");
	gtk_label_set_text(self->label, text);
}

static void on_ended(PlProfileSession *s, const char *why, PlLiveBar *self)
{
	const char *path = pl_profile_session_get_path(s);
	g_autofree char *text = g_strdup_printf("Session ended%s%s — saved in %s",
						why && *why ? ": " : "", why ? why : "",
						path ? path : "?");
	gtk_widget_set_visible(GTK_WIDGET(self->pause), FALSE);
	gtk_widget_set_visible(self->stop, FALSE);
	gtk_label_set_text(self->label, text);
	gtk_widget_set_visible(GTK_WIDGET(self), TRUE);
}

static void on_pause_toggled(GtkToggleButton *b, PlLiveBar *self)
{
	gboolean paused = gtk_toggle_button_get_active(b);
	gtk_button_set_label(GTK_BUTTON(b), paused ? "Resume" : "Pause");
	g_signal_emit(self, signals[SIG_PAUSE], 0, paused);
}

static void on_stop_clicked(GtkButton *b, PlLiveBar *self)
{
	g_signal_emit(self, signals[SIG_STOP], 0);
}

void pl_live_bar_set_session(PlLiveBar *self, PlProfileSession *session)
{
	if (self->session)
		g_signal_handlers_disconnect_by_data(self->session, self);
	self->session = session;
	if (!session)
		return;
	g_signal_connect(session, "notify::live", G_CALLBACK(on_live), self);
	g_signal_connect(session, "notify::profile", G_CALLBACK(on_profile), self);
	g_signal_connect(session, "updated", G_CALLBACK(on_updated), self);
	g_signal_connect(session, "recording-ended", G_CALLBACK(on_ended), self);
}

GtkWidget *pl_live_bar_new(void)
{
	return g_object_new(PL_TYPE_LIVE_BAR, NULL);
}

static void pl_live_bar_init(PlLiveBar *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

static void pl_live_bar_dispose(GObject *obj)
{
	pl_live_bar_set_session(PL_LIVE_BAR(obj), NULL);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_LIVE_BAR);
	G_OBJECT_CLASS(pl_live_bar_parent_class)->dispose(obj);
}

static void pl_live_bar_class_init(PlLiveBarClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_live_bar_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-live-bar.ui");
	gtk_widget_class_bind_template_child(wc, PlLiveBar, label);
	gtk_widget_class_bind_template_child(wc, PlLiveBar, pause);
	gtk_widget_class_bind_template_child(wc, PlLiveBar, stop);
	gtk_widget_class_bind_template_callback(wc, on_pause_toggled);
	gtk_widget_class_bind_template_callback(wc, on_stop_clicked);
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_PAUSE] = g_signal_new("pause-toggled", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
					  NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
	signals[SIG_STOP] = g_signal_new("stop", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					 G_TYPE_NONE, 0);
}
