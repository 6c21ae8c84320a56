/* pl-connect-view.c — connect, choose, control (see the header). */
#include "pl-connect-view.h"

#include <string.h>

#include "pl-agent-connect.h"
#include "pl-connect-options.h"
#include "pl-proc-item.h"
#include "pl-symbol-check.h"
#include "pl-ui-util.h"

#define TIMEOUT_MS 8000

/* ─── state ──────────────────────────────────────────────────────────── */

struct _PlConnectView {
	GtkWidget parent_instance;
	GtkWidget *scroll;
	/* connect form (pl-connect-view.ui) */
	GtkEntry *host, *token;
	GtkSpinButton *port;
	GtkWidget *connect_btn, *listen_btn, *disconnect_btn;
	GtkLabel *error, *status;
	GtkWidget *recent_box;
	GtkSpinner *spinner;
	/* board */
	GtkWidget *board_page;
	GtkLabel *facts, *symbols_note;
	GtkSearchEntry *filter;
	GListStore *procs;
	GtkFilterListModel *filtered;
	GtkCustomFilter *proc_filter;
	GtkSingleSelection *proc_sel; /* the column view's model */
	GtkColumnView *proc_view;
	char *filter_text;
	PlConnectOptions *options; /* the Record form */
	GtkWidget *start_btn, *pause_btn, *resume_btn, *stop_btn;

	/* the connection and its recordings: the form binds to it */
	PlLiveSession *session;
	guint timeout_ms;
	char *probe_summary;
	GPtrArray *pending_procs; /* PlProcItem* */
	gboolean connecting;
	gboolean ended_by_disconnect; /* "session-ended" waits for the disconnect */
	char *last_error;
};

G_DEFINE_FINAL_TYPE(PlConnectView, pl_connect_view, GTK_TYPE_WIDGET)

enum { SIG_CONNECTED, SIG_DISCONNECTED, SIG_STARTING, SIG_STARTED, SIG_ENDED, SIG_EDIT_SYMBOLS, N_SIGNALS };
static guint signals[N_SIGNALS];

static void update_sensitivity(PlConnectView *self);

static void show_error(PlConnectView *self, const char *msg)
{
	g_free(self->last_error);
	self->last_error = msg ? g_strdup(msg) : NULL;
	gtk_label_set_text(self->error, msg ? msg : "");
	gtk_widget_set_visible(GTK_WIDGET(self->error), msg != NULL);
}

static void set_status(PlConnectView *self, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void set_status(PlConnectView *self, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *s = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	gtk_label_set_text(self->status, s);
}

static char *pstr(struct pl_str s)
{
	return g_strndup(s.p, s.len);
}

static const PlAgentInfo *agent_info(PlConnectView *self)
{
	static const PlAgentInfo none;
	const PlAgentInfo *a = pl_live_session_get_agent(self->session);
	return a ? a : &none;
}

/* ─── board facts ────────────────────────────────────────────────────── */

static void update_facts(PlConnectView *self)
{
	const PlAgentInfo *a = agent_info(self);
	g_autofree char *text = pl_agent_describe(a, pl_live_session_get_peer(self->session),
						  self->probe_summary);
	/* over SSH as a user perf_event_paranoid refuses: what to do, before
	 * Start is even tried */
	g_autofree char *advice =
		!(a->flags & PL_HELLO_PERF_AVAILABLE)
			? pl_live_session_dup_perf_advice(self->session, a->perf_errno, FALSE)
			: NULL;
	if (advice) {
		g_autofree char *e = g_markup_escape_text(advice, -1);
		g_autofree char *with = g_strdup_printf("%s\n<b>%s</b>", text, e);
		gtk_label_set_markup(self->facts, with);
	} else {
		gtk_label_set_markup(self->facts, text);
	}

	pl_connect_options_update(self->options, a->flags);
}

/* ─── symbols, before recording ──────────────────────────────────────── */

/* The symbol coverage of the last session recorded from this board
 * (pl-symbol-check.h), shown before the next recording starts. */
static void last_session_done(GObject *src, GAsyncResult *res, gpointer data)
{
	g_autoptr(PlSessionInfo) in = pl_symbol_check_finish(res);
	PlConnectView *self = PL_CONNECT_VIEW(src);
	gboolean warning;
	g_autofree char *text = pl_symbol_check_describe(
		pl_live_session_is_connected(self->session) ? in : NULL, &warning);
	gtk_label_set_text(self->symbols_note, text);
	if (warning)
		gtk_widget_add_css_class(GTK_WIDGET(self->symbols_note), "pl-warning");
	else
		gtk_widget_remove_css_class(GTK_WIDGET(self->symbols_note), "pl-warning");
}

static void show_last_session_symbols(PlConnectView *self)
{
	gtk_label_set_text(self->symbols_note, "");
	if (!agent_info(self)->hostname)
		return;
	pl_symbol_check_async(agent_info(self)->hostname, self, last_session_done, NULL);
}

const char *pl_connect_view_get_symbols_note(PlConnectView *self)
{
	return gtk_label_get_text(self->symbols_note);
}

/* ─── process list ───────────────────────────────────────────────────── */

static gboolean proc_visible(gpointer item, gpointer data)
{
	PlConnectView *self = data;
	return pl_proc_item_matches(item, self->filter_text);
}

static void on_filter_changed(GtkSearchEntry *e, PlConnectView *self)
{
	g_free(self->filter_text);
	self->filter_text = g_strdup(gtk_editable_get_text(GTK_EDITABLE(e)));
	gtk_filter_changed(GTK_FILTER(self->proc_filter), GTK_FILTER_CHANGE_DIFFERENT);
}

/* ─── the live session ───────────────────────────────────────────────── */

static void fill_recent(PlConnectView *self);

static void on_message(PlLiveSession *session, gconstpointer data, PlConnectView *self)
{
	const struct pl_msg *m = data;
	switch (m->type) {
	case PL_MSG_PROBE_EVENT: {
		g_autofree char *name = pstr(m->u.probe_event.name);
		g_autofree char *message = pstr(m->u.probe_event.message);
		pl_connect_options_add_probe_event(self->options, name, m->u.probe_event.status,
						   m->u.probe_event.flags, message);
		break;
	}
	case PL_MSG_PROBE_SUMMARY: {
		const struct pl_msg_probe_summary *s = &m->u.probe_summary;
		g_free(self->probe_summary);
		g_autofree char *def = pstr(s->default_event), *msg = pstr(s->message);
		self->probe_summary = g_strdup_printf(
			"perf_event_paranoid %d, kptr_restrict %d, max sample rate %u Hz, "
			"default event %s, kernel stacks %s, user stacks %s%s%s",
			s->paranoid, s->kptr_restrict, s->max_sample_rate, def,
			s->kernel_stacks_ok ? "yes" : "no", s->user_stacks_ok ? "yes" : "no",
			*msg ? "\n" : "", msg);
		pl_connect_options_set_max_frequency(self->options, s->max_sample_rate);
		update_facts(self);
		break;
	}
	}
}

static void on_process(PlLiveSession *session, gconstpointer proc, PlConnectView *self)
{
	g_ptr_array_add(self->pending_procs, pl_proc_item_new(proc));
}

static void on_listed(PlLiveSession *session, guint n, PlConnectView *self)
{
	g_list_store_splice(self->procs, 0, g_list_model_get_n_items(G_LIST_MODEL(self->procs)),
			    self->pending_procs->pdata, self->pending_procs->len);
	g_ptr_array_set_size(self->pending_procs, 0);
	set_status(self, "%u processes on the board",
		   g_list_model_get_n_items(G_LIST_MODEL(self->procs)));
	update_sensitivity(self);
}

static void on_problem(PlLiveSession *session, const char *message, PlConnectView *self)
{
	show_error(self, message);
}

static void on_starting(PlLiveSession *session, PlConnectView *self)
{
	g_signal_emit(self, signals[SIG_STARTING], 0);
}

static void on_started(PlLiveSession *session, const char *path, PlConnectView *self)
{
	show_error(self, NULL);
	set_status(self, "Recording (%s) — saved as it streams to %s",
		   pl_live_session_get_start_reply(session), path);
	g_signal_emit(self, signals[SIG_STARTED], 0, path);
	update_sensitivity(self);
}

static void on_ended(PlLiveSession *session, const char *why, PlConnectView *self)
{
	if (!pl_live_session_is_connected(session)) {
		/* the connection was lost: said with the disconnect */
		self->ended_by_disconnect = TRUE;
		return;
	}
	if (pl_live_session_got_end(session)) {
		const char *path = pl_live_session_get_path(session);
		set_status(self, "Session ended%s%s — %" G_GUINT64_FORMAT " samples saved in %s",
			   why && *why ? ": " : "", why ? why : "",
			   pl_live_session_get_samples(session), path ? path : "?");
	} else {
		/* START refused (the window's profile session made a fresh
		 * profile at "starting") */
		show_error(self, why);
		set_status(self, "Not recording: the board refused Start");
	}
	g_signal_emit(self, signals[SIG_ENDED], 0, why);
	update_sensitivity(self);
}

static void on_disconnected(PlLiveSession *session, const char *why, const char *saved,
			    PlConnectView *self)
{
	const char *save_error = saved ? pl_live_session_get_save_error(session) : NULL;
	if (why) {
		g_autofree char *s =
			save_error ? g_strdup_printf("%s; %s", why, save_error)
			: saved	   ? g_strdup_printf("%s (what arrived is saved in %s)", why, saved)
				   : g_strdup(why);
		show_error(self, s);
	}
	gtk_widget_set_visible(self->board_page, FALSE);
	update_sensitivity(self);
	if (self->ended_by_disconnect) {
		self->ended_by_disconnect = FALSE;
		g_signal_emit(self, signals[SIG_ENDED], 0, why);
	}
	g_signal_emit(self, signals[SIG_DISCONNECTED], 0, why);
}

static void disconnect(PlConnectView *self, const char *why)
{
	pl_live_session_disconnect(self->session, why);
}

/* ─── connecting ─────────────────────────────────────────────────────── */

static void connect_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlConnectView *self = PL_CONNECT_VIEW(src);
	g_autofree char *msg = NULL;
	gboolean connected = pl_agent_connect_finish(res, self->session, &msg);
	self->connecting = FALSE;
	gtk_spinner_stop(self->spinner);
	if (!connected) {
		show_error(self, msg);
		set_status(self, "Not connected");
		update_sensitivity(self);
		return;
	}
	if (!pl_agent_connect_is_listen(res)) {
		pl_ui_recent_add(pl_agent_connect_get_target(res));
		fill_recent(self);
	}
	show_error(self, NULL);
	update_facts(self);
	show_last_session_symbols(self);
	gtk_widget_set_visible(self->board_page, TRUE);
	set_status(self, "Connected to %s — listing processes…",
		   pl_live_session_get_peer(self->session));
	g_ptr_array_set_size(self->pending_procs, 0);
	pl_live_session_list(self->session);
	/* the probe frames may have been read with HELLO before the session
	 * listened: ask again so the facts are complete */
	if (pl_connect_options_get_n_probe_events(self->options) == 0) {
		struct pl_msg probe = { .type = PL_MSG_PROBE };
		pl_live_session_send(self->session, &probe);
	}
	update_sensitivity(self);
	g_signal_emit(self, signals[SIG_CONNECTED], 0);
}

static void begin_connect(PlConnectView *self, const char *target, const char *token,
			  gboolean listen)
{
	if (self->connecting)
		return;
	if (pl_live_session_is_connected(self->session))
		disconnect(self, NULL);
	self->connecting = TRUE;
	show_error(self, NULL);
	set_status(self, listen ? "Waiting up to 2 minutes for an agent started with --server %s…"
				: "Connecting to %s…",
		   target);
	gtk_spinner_start(self->spinner);
	pl_agent_connect_async(target, token, listen, self->timeout_ms, self, connect_done, NULL);
	update_sensitivity(self);
}

static char *form_target(PlConnectView *self)
{
	return pl_agent_target_join(gtk_editable_get_text(GTK_EDITABLE(self->host)),
				    (guint)gtk_spin_button_get_value_as_int(self->port));
}

/* The form's host and port fields from a target "host[:port]" */
static void fill_target(PlConnectView *self, const char *target)
{
	guint port = G_MAXUINT;
	g_autofree char *host = pl_agent_target_split(target, &port);
	gtk_editable_set_text(GTK_EDITABLE(self->host), host);
	if (port != G_MAXUINT)
		gtk_spin_button_set_value(self->port, port);
}

static void on_connect_clicked(GtkButton *b, PlConnectView *self)
{
	g_autofree char *t = form_target(self);
	begin_connect(self, t, gtk_editable_get_text(GTK_EDITABLE(self->token)), FALSE);
}

static void on_listen_clicked(GtkButton *b, PlConnectView *self)
{
	g_autofree char *t = g_strdup_printf("%d", gtk_spin_button_get_value_as_int(self->port));
	begin_connect(self, t, gtk_editable_get_text(GTK_EDITABLE(self->token)), TRUE);
}

/* Enter in the host or token field connects, as the button does */
static void on_entry_activate(GtkEntry *e, PlConnectView *self)
{
	on_connect_clicked(NULL, self);
}

static void on_disconnect_clicked(GtkButton *b, PlConnectView *self)
{
	disconnect(self, NULL);
	set_status(self, "Disconnected");
}

static void on_recent_clicked(GtkButton *b, PlConnectView *self)
{
	fill_target(self, gtk_button_get_label(b));
	gtk_widget_grab_focus(GTK_WIDGET(self->token));
}

static void fill_recent(PlConnectView *self)
{
	GtkWidget *c;
	while ((c = gtk_widget_get_first_child(self->recent_box)))
		gtk_box_remove(GTK_BOX(self->recent_box), c);
	g_auto(GStrv) recent = pl_ui_recent_load();
	for (guint i = 0; recent[i]; i++) {
		GtkWidget *b = gtk_button_new_with_label(recent[i]);
		gtk_widget_add_css_class(b, "flat");
		gtk_widget_set_halign(b, GTK_ALIGN_START);
		g_signal_connect(b, "clicked", G_CALLBACK(on_recent_clicked), self);
		gtk_box_append(GTK_BOX(self->recent_box), b);
	}
	if (!recent[0]) {
		GtkWidget *l = gtk_label_new("No recent boards yet");
		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_widget_add_css_class(l, "dim-label");
		gtk_box_append(GTK_BOX(self->recent_box), l);
	}
}

/* ─── session control ────────────────────────────────────────────────── */

static void update_sensitivity(PlConnectView *self)
{
	gboolean c = pl_live_session_is_connected(self->session);
	gboolean recording = pl_live_session_is_recording(self->session);
	gtk_widget_set_sensitive(self->connect_btn, !self->connecting);
	gtk_widget_set_sensitive(self->listen_btn, !self->connecting);
	gtk_widget_set_visible(self->disconnect_btn, c);
	gtk_widget_set_sensitive(self->start_btn,
				 c && !recording && !pl_live_session_is_starting(self->session));
	gtk_widget_set_sensitive(self->pause_btn, c && recording);
	gtk_widget_set_sensitive(self->resume_btn, c && recording);
	gtk_widget_set_sensitive(self->stop_btn, c && recording);
	if (c == FALSE)
		fill_recent(self);
}

void pl_connect_view_start(PlConnectView *self)
{
	if (!pl_live_session_is_connected(self->session) ||
	    pl_live_session_is_recording(self->session))
		return;
	g_autofree struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_START;
	g_autoptr(GError) error = NULL;
	g_autofree char *what = NULL;
	const PlAgentInfo *a = agent_info(self);
	PlProcItem *p = gtk_single_selection_get_selected_item(self->proc_sel);
	if (!pl_connect_options_fill_start(self->options, a, p, &m->u.start, &what, &error)) {
		show_error(self, error->message);
		return;
	}
	g_autofree char *label = g_strdup_printf("%s-%s", a->hostname ? a->hostname : "board", what);
	g_autofree char *path = pl_session_default_path(label);
	PlSessionWriter *writer = pl_session_writer_new_unique(path, &error);
	if (!writer) {
		g_autofree char *e = g_strdup_printf("Cannot save the session: %s", error->message);
		show_error(self, e);
		return;
	}
	if (!pl_live_session_start(self->session, m, writer, &error)) {
		/* a failed send disconnected, and said so */
		if (pl_live_session_is_connected(self->session))
			show_error(self, error->message);
		return;
	}
	set_status(self, "Starting…");
	update_sensitivity(self);
}

void pl_connect_view_pause(PlConnectView *self, gboolean pause)
{
	if (pl_live_session_pause(self->session, pause))
		set_status(self, pause ? "Paused — saved so far in %s" : "Recording — saving to %s",
			   pl_live_session_get_path(self->session));
}

void pl_connect_view_stop(PlConnectView *self)
{
	g_autoptr(GError) error = NULL;
	if (pl_live_session_is_recording(self->session) &&
	    !pl_live_session_stop(self->session, &error))
		show_error(self, error->message);
}

void pl_connect_view_refresh(PlConnectView *self)
{
	if (pl_live_session_is_connected(self->session) && pl_live_session_list(self->session))
		g_ptr_array_set_size(self->pending_procs, 0);
}

static void on_start(GtkButton *b, PlConnectView *self) { pl_connect_view_start(self); }
static void on_pause(GtkButton *b, PlConnectView *self) { pl_connect_view_pause(self, TRUE); }
static void on_resume(GtkButton *b, PlConnectView *self) { pl_connect_view_pause(self, FALSE); }
static void on_stop(GtkButton *b, PlConnectView *self) { pl_connect_view_stop(self); }
static void on_refresh(GtkButton *b, PlConnectView *self) { pl_connect_view_refresh(self); }

static void on_freq_changed(PlConnectOptions *o, guint hz, PlConnectView *self)
{
	if (!pl_live_session_is_recording(self->session))
		return;
	g_autofree struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_CONFIGURE;
	m->u.configure.frequency = hz;
	pl_live_session_send(self->session, m);
}

/* ─── public ─────────────────────────────────────────────────────────── */

GtkWidget *pl_connect_view_new(void)
{
	return g_object_new(PL_TYPE_CONNECT_VIEW, NULL);
}

void pl_connect_view_set_timeout(PlConnectView *self, guint ms)
{
	self->timeout_ms = ms ? ms : TIMEOUT_MS;
}

PlLiveSession *pl_connect_view_get_session(PlConnectView *self)
{
	return self->session;
}

void pl_connect_view_connect(PlConnectView *self, const char *target, const char *token)
{
	fill_target(self, target);
	gtk_editable_set_text(GTK_EDITABLE(self->token), token ? token : "");
	on_connect_clicked(NULL, self);
}

gboolean pl_connect_view_is_connected(PlConnectView *self)
{
	return pl_live_session_is_connected(self->session);
}
gboolean pl_connect_view_is_recording(PlConnectView *self)
{
	return pl_live_session_is_recording(self->session);
}
const char *pl_connect_view_get_error(PlConnectView *self) { return self->last_error; }
const char *pl_connect_view_get_probe_notes(PlConnectView *self)
{
	return pl_connect_options_get_probe_notes(self->options);
}
const char *pl_connect_view_get_facts(PlConnectView *self)
{
	return gtk_label_get_text(self->facts);
}
const char *pl_connect_view_get_status(PlConnectView *self)
{
	return gtk_label_get_text(self->status);
}
const PlAgentInfo *pl_connect_view_get_agent(PlConnectView *self)
{
	return pl_live_session_get_agent(self->session);
}

const char *pl_connect_view_get_peer(PlConnectView *self)
{
	return pl_live_session_get_peer(self->session);
}

void pl_connect_view_set_filter(PlConnectView *self, const char *text)
{
	gtk_editable_set_text(GTK_EDITABLE(self->filter), text);
	on_filter_changed(self->filter, self);
}

guint pl_connect_view_get_n_processes(PlConnectView *self)
{
	return g_list_model_get_n_items(G_LIST_MODEL(self->filtered));
}

gboolean pl_connect_view_select_process(PlConnectView *self, const char *comm, guint32 pid)
{
	GListModel *m = G_LIST_MODEL(self->proc_sel);
	for (guint i = 0; i < g_list_model_get_n_items(m); i++) {
		g_autoptr(PlProcItem) p = g_list_model_get_item(m, i);
		if (!strcmp(p->comm, comm) && (!pid || p->pid == pid)) {
			gtk_single_selection_set_selected(self->proc_sel, i);
			pl_connect_options_set_command(self->options, "");
			return TRUE;
		}
	}
	return FALSE;
}

void pl_connect_view_set_command(PlConnectView *self, const char *command)
{
	pl_connect_options_set_command(self->options, command);
}

void pl_connect_view_set_syscalls(PlConnectView *self, const char *list, const char *slower_than)
{
	pl_connect_options_set_syscalls(self->options, list, slower_than);
}

void pl_connect_view_set_frequency(PlConnectView *self, guint hz)
{
	pl_connect_options_set_frequency(self->options, hz);
}

const char *pl_connect_view_get_session_path(PlConnectView *self)
{
	return pl_live_session_is_recording(self->session) ? pl_live_session_get_path(self->session)
							    : NULL;
}

guint64 pl_connect_view_get_samples(PlConnectView *self)
{
	return pl_live_session_get_samples(self->session);
}

static void pl_connect_view_dispose(GObject *obj)
{
	PlConnectView *self = PL_CONNECT_VIEW(obj);
	if (self->session) {
		g_signal_handlers_disconnect_by_data(self->session, self);
		g_clear_object(&self->session); /* closes a recording's file */
	}
	g_clear_pointer(&self->scroll, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_CONNECT_VIEW);
	g_clear_object(&self->procs);
	g_clear_pointer(&self->pending_procs, g_ptr_array_unref);
	g_clear_pointer(&self->probe_summary, g_free);
	g_clear_pointer(&self->filter_text, g_free);
	g_clear_pointer(&self->last_error, g_free);
	G_OBJECT_CLASS(pl_connect_view_parent_class)->dispose(obj);
}

static void on_symbols_clicked(GtkButton *b, PlConnectView *self);

static void pl_connect_view_class_init(PlConnectViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_connect_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	g_type_ensure(PL_TYPE_CONNECT_OPTIONS);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-connect-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlConnectView, name)
	CHILD(scroll);
	CHILD(host);
	CHILD(token);
	CHILD(port);
	CHILD(connect_btn);
	CHILD(listen_btn);
	CHILD(disconnect_btn);
	CHILD(error);
	CHILD(status);
	CHILD(recent_box);
	CHILD(spinner);
	CHILD(board_page);
	CHILD(facts);
	CHILD(symbols_note);
	CHILD(filter);
	CHILD(proc_view);
	CHILD(options);
	CHILD(start_btn);
	CHILD(pause_btn);
	CHILD(resume_btn);
	CHILD(stop_btn);
#undef CHILD
#define CALLBACK(name) gtk_widget_class_bind_template_callback(wc, name)
	CALLBACK(on_entry_activate);
	CALLBACK(on_connect_clicked);
	CALLBACK(on_listen_clicked);
	CALLBACK(on_disconnect_clicked);
	CALLBACK(on_symbols_clicked);
	CALLBACK(on_filter_changed);
	CALLBACK(on_refresh);
	CALLBACK(on_freq_changed);
	CALLBACK(on_start);
	CALLBACK(on_pause);
	CALLBACK(on_resume);
	CALLBACK(on_stop);
#undef CALLBACK
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_CONNECTED] = g_signal_new("connected", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
					      NULL, G_TYPE_NONE, 0);
	signals[SIG_DISCONNECTED] = g_signal_new("disconnected", t, G_SIGNAL_RUN_LAST, 0, NULL,
						 NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_STARTING] = g_signal_new("session-starting", t, G_SIGNAL_RUN_LAST, 0, NULL,
					     NULL, NULL, G_TYPE_NONE, 0);
	signals[SIG_STARTED] = g_signal_new("session-started", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
					    NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_EDIT_SYMBOLS] = g_signal_new("edit-symbols", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
						 NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_ENDED] = g_signal_new("session-ended", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
					  NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void on_symbols_clicked(GtkButton *b, PlConnectView *self)
{
	const char *host = agent_info(self)->hostname;
	if (pl_live_session_is_connected(self->session) && host)
		g_signal_emit(self, signals[SIG_EDIT_SYMBOLS], 0, host);
}

static void pl_connect_view_init(PlConnectView *self)
{
	self->timeout_ms = TIMEOUT_MS;
	self->pending_procs = g_ptr_array_new_with_free_func(g_object_unref);
	gtk_widget_init_template(GTK_WIDGET(self));
	self->session = pl_live_session_new();
	g_signal_connect(self->session, "message", G_CALLBACK(on_message), self);
	g_signal_connect(self->session, "process", G_CALLBACK(on_process), self);
	g_signal_connect(self->session, "listed", G_CALLBACK(on_listed), self);
	g_signal_connect(self->session, "problem", G_CALLBACK(on_problem), self);
	g_signal_connect(self->session, "starting", G_CALLBACK(on_starting), self);
	g_signal_connect(self->session, "started", G_CALLBACK(on_started), self);
	g_signal_connect(self->session, "ended", G_CALLBACK(on_ended), self);
	g_signal_connect(self->session, "disconnected", G_CALLBACK(on_disconnected), self);

	gtk_spin_button_set_value(self->port, PL_DEFAULT_PORT);
	self->procs = g_list_store_new(PL_TYPE_PROC_ITEM);
	self->proc_filter = gtk_custom_filter_new(proc_visible, self, NULL);
	self->filtered = gtk_filter_list_model_new(G_LIST_MODEL(g_object_ref(self->procs)),
						   GTK_FILTER(self->proc_filter));
	self->proc_sel = gtk_single_selection_new(G_LIST_MODEL(self->filtered));
	gtk_single_selection_set_autoselect(self->proc_sel, FALSE);
	gtk_single_selection_set_can_unselect(self->proc_sel, TRUE);
	gtk_column_view_set_model(self->proc_view, GTK_SELECTION_MODEL(self->proc_sel));
	g_object_unref(self->proc_sel); /* the view's now */
	pl_proc_item_add_columns(self->proc_view);
	update_sensitivity(self);
}
