/* pl-fleet-rank-view.c — the Fleet page's Boards page (see the header);
 * layout in pl-fleet-rank-view.ui, the rows made here. */
#include "pl-fleet-rank-view.h"

#include <string.h>

#include "pl-ui-util.h"

struct _PlFleetRankView {
	GtkBox parent_instance;
	GtkEntry *function, *by, *sessions_of;
	GtkWidget *rank_btn, *sessions_btn;
	GtkSpinner *spinner;
	GtkLabel *status, *error, *sessions_title;
	GtkListBox *boards_list, *sessions_list;

	char *url, *credentials, *where, *since; /* the question's store and selection */
	char *ranked_by;   /* the label the boards shown are told apart by */
	char *sessions_key; /* the label the sessions shown were asked by */
	GPtrArray *boards;   /* PlFleetShare* shown */
	GPtrArray *sessions; /* PlFleetSession* shown */
	char *last_error;
	GtkWindow *opened;   /* weak */
	gboolean busy;
	guint generation; /* a newer question makes an older answer stale */
};

G_DEFINE_FINAL_TYPE(PlFleetRankView, pl_fleet_rank_view, GTK_TYPE_BOX)

static void show_error(PlFleetRankView *self, const char *text)
{
	g_free(self->last_error);
	self->last_error = g_strdup(text);
	gtk_label_set_text(self->error, text ? text : "");
	gtk_widget_set_visible(GTK_WIDGET(self->error), text != NULL);
}

static void set_busy(PlFleetRankView *self, gboolean busy)
{
	self->busy = busy;
	gtk_spinner_set_spinning(self->spinner, busy);
	gtk_widget_set_sensitive(self->rank_btn, !busy);
	gtk_widget_set_sensitive(self->sessions_btn, !busy);
}

static void ask_of(PlFleetRankView *self, PlFleetAsk *ask)
{
	*ask = (PlFleetAsk){ .url = self->url, .credentials = self->credentials,
			     .where = self->where, .since = self->since };
}

/* A question may start: not while one runs, nor before the page answered. */
static gboolean may_ask(PlFleetRankView *self)
{
	if (self->busy)
		return FALSE;
	if (!self->url) {
		show_error(self, "Show the fleet first (the form above): the boards are ranked "
				 "within its labels and time range.");
		return FALSE;
	}
	show_error(self, NULL);
	set_busy(self, TRUE);
	return TRUE;
}

static GtkWidget *row_label(const char *text)
{
	GtkWidget *l = gtk_label_new(text);
	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_selectable(GTK_LABEL(l), FALSE);
	gtk_widget_add_css_class(l, "monospace");
	return l;
}

static void clear_list(GtkListBox *list)
{
	GtkListBoxRow *row;
	while ((row = gtk_list_box_get_row_at_index(list, 0)))
		gtk_list_box_remove(list, GTK_WIDGET(row));
}

/* ─── sessions ───────────────────────────────────────────────────────── */

static char *utc_text(gint64 secs)
{
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(secs);
	return t ? g_date_time_format(t, "%Y-%m-%d %H:%M:%S") : g_strdup("?");
}

static void on_open_clicked(GtkButton *b, PlFleetRankView *self)
{
	pl_fleet_rank_view_open_session(
		self, GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(b), "pl-session-index")));
}

static void show_sessions(PlFleetRankView *self, GPtrArray *sessions, const char *value)
{
	clear_list(self->sessions_list);
	g_clear_pointer(&self->sessions, g_ptr_array_unref);
	self->sessions = sessions;
	g_autofree char *title = g_strdup_printf("Sessions of %s=%s (%u, oldest first): Open "
						 "shows one as a recording",
						 self->sessions_key, value, sessions->len);
	gtk_label_set_text(self->sessions_title, title);
	for (guint i = 0; i < sessions->len; i++) {
		const PlFleetSession *s = sessions->pdata[i];
		g_autofree char *t0 = utc_text(s->first);
		g_autofree char *t1 = utc_text(s->last);
		g_autofree char *length = pl_ui_format_length((double)(s->last - s->first), 0);
		/* the day once: a session rarely spans midnight, and then both show */
		gboolean same_day = !strncmp(t0, t1, 10);
		g_autofree char *text = g_strdup_printf("%s – %s UTC  %10s  %'9" G_GUINT64_FORMAT
							" samples  %s",
							t0, same_day ? t1 + 11 : t1, length, s->samples,
							s->session);
		GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
		GtkWidget *l = row_label(text);
		gtk_widget_set_hexpand(l, TRUE);
		gtk_box_append(GTK_BOX(box), l);
		GtkWidget *open = gtk_button_new_with_label("Open");
		gtk_widget_set_tooltip_text(open, "This session as a recording, in a new window");
		g_object_set_data(G_OBJECT(open), "pl-session-index", GUINT_TO_POINTER(i));
		g_signal_connect(open, "clicked", G_CALLBACK(on_open_clicked), self);
		gtk_box_append(GTK_BOX(box), open);
		gtk_list_box_append(self->sessions_list, box);
	}
}

static void sessions_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlFleetRankView *self = PL_FLEET_RANK_VIEW(src);
	g_autoptr(GError) error = NULL;
	GPtrArray *sessions = pl_fleet_sessions_finish(res, &error);
	g_autofree char *value = g_object_steal_data(G_OBJECT(self), "pl-pending-value");
	if (GPOINTER_TO_UINT(data) != self->generation) {
		if (sessions)
			g_ptr_array_unref(sessions);
		return;
	}
	set_busy(self, FALSE);
	if (!sessions) {
		show_error(self, error->message);
		return;
	}
	show_sessions(self, sessions, value ? value : "");
}

static gboolean list_sessions_of(PlFleetRankView *self, const char *key, const char *value)
{
	if (!may_ask(self))
		return FALSE;
	PlFleetAsk ask;
	ask_of(self, &ask);
	g_free(self->sessions_key);
	self->sessions_key = g_strdup(key);
	gtk_label_set_text(self->sessions_title, "Asking the fleet store for its sessions…");
	/* the title names the row asked about, whatever is shown when it answers */
	g_object_set_data_full(G_OBJECT(self), "pl-pending-value", g_strdup(value), g_free);
	pl_fleet_sessions_async(&ask, key, value, self, sessions_done,
				GUINT_TO_POINTER(++self->generation));
	return TRUE;
}

gboolean pl_fleet_rank_view_list_sessions(PlFleetRankView *self, guint i)
{
	if (!self->boards || i >= self->boards->len || self->busy)
		return FALSE;
	const PlFleetShare *b = self->boards->pdata[i];
	g_autofree char *typed = g_strdup_printf("%s=%s", self->ranked_by, b->value);
	gtk_editable_set_text(GTK_EDITABLE(self->sessions_of), typed);
	return list_sessions_of(self, self->ranked_by, b->value);
}

gboolean pl_fleet_rank_view_list_sessions_typed(PlFleetRankView *self)
{
	if (self->busy)
		return FALSE;
	g_autofree char *text =
		g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(self->sessions_of))));
	const char *eq = strchr(text, '=');
	g_autofree char *key = eq ? g_strstrip(g_strndup(text, (gsize)(eq - text))) : NULL;
	const char *value = eq ? eq + 1 : text;
	if (!key) {
		const char *by = gtk_editable_get_text(GTK_EDITABLE(self->by));
		key = g_strdup(*by ? by : "device");
	}
	if (!*key || !*value || strchr(value, ',')) {
		show_error(self, "Sessions of: type one board as LABEL=VALUE (device=SN123), or a "
				 "value of the label the boards are told apart by; or click a "
				 "ranked board.");
		return FALSE;
	}
	return list_sessions_of(self, key, value);
}

static void on_list_sessions(GtkWidget *w, PlFleetRankView *self)
{
	pl_fleet_rank_view_list_sessions_typed(self);
}

static void on_board_activated(GtkListBox *list, GtkListBoxRow *row, PlFleetRankView *self)
{
	pl_fleet_rank_view_list_sessions(self, (guint)gtk_list_box_row_get_index(row));
}

/* ─── opening one ────────────────────────────────────────────────────── */

/* "open-profile" (PlProfile *taken, const char *title) → GtkWindow *: the
 * handler takes the profile and returns the window it opened, or NULL. */
static guint open_profile_signal;

static void open_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlFleetRankView *self = PL_FLEET_RANK_VIEW(src);
	g_autoptr(GError) error = NULL;
	PlProfile *p = pl_fleet_open_finish(res, &error);
	char *session = g_object_steal_data(G_OBJECT(self), "pl-opening");
	if (GPOINTER_TO_UINT(data) != self->generation) {
		g_clear_pointer(&p, pl_profile_free);
		g_free(session);
		return;
	}
	set_busy(self, FALSE);
	if (!p) {
		show_error(self, error->message);
		g_free(session);
		return;
	}
	/* the window that holds this page opens it: the page knows no window */
	g_autofree char *title = g_strdup_printf("%s (fleet store) — PerfLens", session);
	GtkWindow *w = NULL;
	if (g_signal_has_handler_pending(self, open_profile_signal, 0, FALSE))
		g_signal_emit(self, open_profile_signal, 0, p, title, &w);
	else
		pl_profile_free(p);
	if (!w) {
		show_error(self, "The session was read, but this page is in no application window "
				 "to open it beside.");
		g_free(session);
		return;
	}
	if (self->opened)
		g_object_remove_weak_pointer(G_OBJECT(self->opened), (gpointer *)&self->opened);
	self->opened = w;
	g_object_add_weak_pointer(G_OBJECT(w), (gpointer *)&self->opened);
	gtk_window_present(w);
	g_free(session);
}

gboolean pl_fleet_rank_view_open_session(PlFleetRankView *self, guint i)
{
	if (!self->sessions || i >= self->sessions->len || !may_ask(self))
		return FALSE;
	const PlFleetSession *s = self->sessions->pdata[i];
	PlFleetAsk ask;
	ask_of(self, &ask);
	g_object_set_data_full(G_OBJECT(self), "pl-opening", g_strdup(s->session), g_free);
	pl_fleet_open_async(&ask, s->session, self, open_done, GUINT_TO_POINTER(++self->generation));
	return TRUE;
}

/* ─── ranking ────────────────────────────────────────────────────────── */

static void rank_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlFleetRankView *self = PL_FLEET_RANK_VIEW(src);
	g_autoptr(GError) error = NULL;
	GPtrArray *boards = pl_fleet_rank_finish(res, &error);
	if (GPOINTER_TO_UINT(data) != self->generation) {
		if (boards)
			g_ptr_array_unref(boards);
		return;
	}
	set_busy(self, FALSE);
	if (!boards) {
		show_error(self, error->message);
		return;
	}
	clear_list(self->boards_list);
	clear_list(self->sessions_list);
	g_clear_pointer(&self->sessions, g_ptr_array_unref);
	g_clear_pointer(&self->boards, g_ptr_array_unref);
	self->boards = boards;
	guint with = 0;
	for (guint i = 0; i < boards->len; i++) {
		const PlFleetShare *b = boards->pdata[i];
		with += b->total > 0;
		/* the columns fleet rank prints, each named, so a row reads alone */
		g_autofree char *text = g_strdup_printf(
			"%6.2f%% total  %6.2f%% self  of %'10" G_GUINT64_FORMAT " samples  %'9" G_GUINT64_FORMAT
			" with it  %'9" G_GUINT64_FORMAT " innermost  %4" G_GUINT64_FORMAT " sessions  %s=%s",
			pl_fleet_share_total_pct(b), pl_fleet_share_self_pct(b), b->samples, b->total,
			b->self, b->sessions, self->ranked_by, *b->value ? b->value : "(none)");
		gtk_list_box_append(self->boards_list, row_label(text));
	}
	g_autofree char *line = g_strdup_printf(
		"%s: %u of %u %s values have it, highest share first. Activate a row for its sessions.",
		gtk_editable_get_text(GTK_EDITABLE(self->function)), with, boards->len, self->ranked_by);
	gtk_label_set_text(self->status, line);
	gtk_label_set_text(self->sessions_title, "");
}

gboolean pl_fleet_rank_view_rank(PlFleetRankView *self)
{
	if (!may_ask(self))
		return FALSE;
	const char *by = gtk_editable_get_text(GTK_EDITABLE(self->by));
	g_free(self->ranked_by);
	self->ranked_by = g_strdup(*by ? by : "device");
	PlFleetAsk ask;
	ask_of(self, &ask);
	gtk_label_set_text(self->status, "Asking the fleet store…");
	pl_fleet_rank_async(&ask, gtk_editable_get_text(GTK_EDITABLE(self->function)),
			    self->ranked_by, self, rank_done, GUINT_TO_POINTER(++self->generation));
	return TRUE;
}

static void on_rank(GtkWidget *w, PlFleetRankView *self)
{
	pl_fleet_rank_view_rank(self);
}

/* ─── the view ───────────────────────────────────────────────────────── */

void pl_fleet_rank_view_set_ask(PlFleetRankView *self, const PlFleetAsk *ask)
{
	g_free(self->url);
	g_free(self->credentials);
	g_free(self->where);
	g_free(self->since);
	self->url = g_strdup(ask->url);
	self->credentials = g_strdup(ask->credentials);
	self->where = g_strdup(ask->where);
	self->since = g_strdup(ask->since);
}

void pl_fleet_rank_view_set_function(PlFleetRankView *self, const char *function)
{
	gtk_editable_set_text(GTK_EDITABLE(self->function), function ? function : "");
}

gboolean pl_fleet_rank_view_is_busy(PlFleetRankView *self) { return self->busy; }
const char *pl_fleet_rank_view_get_error(PlFleetRankView *self) { return self->last_error; }
guint pl_fleet_rank_view_get_n_boards(PlFleetRankView *self)
{
	return self->boards ? self->boards->len : 0;
}
const PlFleetShare *pl_fleet_rank_view_get_board(PlFleetRankView *self, guint i)
{
	return self->boards && i < self->boards->len ? self->boards->pdata[i] : NULL;
}
guint pl_fleet_rank_view_get_n_sessions(PlFleetRankView *self)
{
	return self->sessions ? self->sessions->len : 0;
}
const PlFleetSession *pl_fleet_rank_view_get_session(PlFleetRankView *self, guint i)
{
	return self->sessions && i < self->sessions->len ? self->sessions->pdata[i] : NULL;
}
GtkWindow *pl_fleet_rank_view_get_opened(PlFleetRankView *self) { return self->opened; }
const char *pl_fleet_rank_view_get_by(PlFleetRankView *self) { return self->ranked_by; }
/* the text a list's row i shows (its label, or the first label of its box) */
static char *row_text(GtkListBox *list, guint i)
{
	GtkListBoxRow *row = gtk_list_box_get_row_at_index(list, (int)i);
	GtkWidget *c = row ? gtk_list_box_row_get_child(row) : NULL;
	if (c && GTK_IS_BOX(c))
		c = gtk_widget_get_first_child(c);
	return c && GTK_IS_LABEL(c) ? g_strdup(gtk_label_get_text(GTK_LABEL(c))) : NULL;
}
char *pl_fleet_rank_view_dup_board_text(PlFleetRankView *self, guint i)
{
	return row_text(self->boards_list, i);
}
char *pl_fleet_rank_view_dup_session_text(PlFleetRankView *self, guint i)
{
	return row_text(self->sessions_list, i);
}
void pl_fleet_rank_view_set_sessions_of(PlFleetRankView *self, const char *board)
{
	gtk_editable_set_text(GTK_EDITABLE(self->sessions_of), board ? board : "");
}
GtkWidget *pl_fleet_rank_view_get_sessions_button(PlFleetRankView *self)
{
	return self->sessions_btn;
}

static void pl_fleet_rank_view_dispose(GObject *obj)
{
	PlFleetRankView *self = PL_FLEET_RANK_VIEW(obj);
	self->generation++; /* an answer still coming is dropped */
	if (self->opened)
		g_object_remove_weak_pointer(G_OBJECT(self->opened), (gpointer *)&self->opened);
	self->opened = NULL;
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_FLEET_RANK_VIEW);
	G_OBJECT_CLASS(pl_fleet_rank_view_parent_class)->dispose(obj);
}

static void pl_fleet_rank_view_finalize(GObject *obj)
{
	PlFleetRankView *self = PL_FLEET_RANK_VIEW(obj);
	g_clear_pointer(&self->boards, g_ptr_array_unref);
	g_clear_pointer(&self->sessions, g_ptr_array_unref);
	g_free(self->url);
	g_free(self->credentials);
	g_free(self->where);
	g_free(self->since);
	g_free(self->ranked_by);
	g_free(self->sessions_key);
	g_free(self->last_error);
	G_OBJECT_CLASS(pl_fleet_rank_view_parent_class)->finalize(obj);
}

static void pl_fleet_rank_view_class_init(PlFleetRankViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_fleet_rank_view_dispose;
	G_OBJECT_CLASS(klass)->finalize = pl_fleet_rank_view_finalize;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-fleet-rank-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlFleetRankView, name)
	CHILD(function);
	CHILD(by);
	CHILD(rank_btn);
	CHILD(sessions_of);
	CHILD(sessions_btn);
	CHILD(spinner);
	CHILD(status);
	CHILD(error);
	CHILD(sessions_title);
	CHILD(boards_list);
	CHILD(sessions_list);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_rank);
	gtk_widget_class_bind_template_callback(wc, on_board_activated);
	gtk_widget_class_bind_template_callback(wc, on_list_sessions);
	open_profile_signal = g_signal_new("open-profile", G_TYPE_FROM_CLASS(klass),
					   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_POINTER, 2,
					   G_TYPE_POINTER, G_TYPE_STRING);
}

static void pl_fleet_rank_view_init(PlFleetRankView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	self->ranked_by = g_strdup("device");
	self->sessions_key = g_strdup("device");
}

GtkWidget *pl_fleet_rank_view_new(void)
{
	return g_object_new(PL_TYPE_FLEET_RANK_VIEW, NULL);
}
