/* pl-window.c — the main window (see the header): its actions, and the
 * wiring of its pages (layout in pl-window.ui) to the window's
 * PlProfileSession, which holds the profile, its loading, the live
 * recording and the selection; the views follow the session themselves
 * (pl_*_set_session), the window keeps its own lines (filter, status,
 * title, coverage badge) and its pages, the flame page's toggles, the
 * diff (pl-diff-controller.c) and the live bar's buttons.
 */
#include "pl-window.h"

#include <string.h>

#include "pl-counter-tracks-view.h"
#include "pl-counters-view.h"
#include "pl-coverage-view.h"
#include "pl-diff-controller.h"
#include "pl-health-view.h"
#include "pl-irq-view.h"
#include "pl-block-view.h"
#include "pl-findings-view.h"
#include "pl-heatmap-view.h"
#include "pl-flame-chart.h"
#include "pl-fleet-view.h"
#include "pl-flight-dialog.h"
#include "pl-flame-page.h"
#include "pl-frame-menu.h"
#include "pl-functions-page.h"
#include "pl-live-bar.h"
#include "pl-export-self-contained.h"
#include "pl-target-dialog.h"
#include "pl-sessions-index.h"
#include "pl-pair-button.h"
#include "pl-profile-session.h"
#include "pl-window-text.h"
#include "pl-transform-bar.h"
#include "pl-ui-timing.h"
#include "pl-view-state.h"

struct _PlWindow {
	GtkApplicationWindow parent_instance;

	/* from the template */
	GtkStack *main_stack; /* "empty", "loading", "connect", "sessions", "fleet", "profile" */
	GtkStack *views;
	GtkWidget *back_btn; /* to the session, from the connect or sessions page */
	GtkWidget *diff_btn;
	GtkLabel *empty_hint;
	GtkLabel *loading_label;
	PlConnectView *connect;
	PlSessionsView *sessions;
	PlFleetView *fleet;
	PlFlamePage *flame_page;
	PlFunctionsPage *functions_page;
	PlSourceView *source;
	PlFlameChart *chart;
	PlCountersView *counters;
	PlHeatmapView *heatmap;
	PlHealthView *health;
	PlFindingsView *findings;
	PlIoView *io; /* slow system calls; hidden without */
	PlIrqView *irq;     /* interrupts; hidden without */
	PlBlockView *block; /* block requests; hidden without */
	PlLocksView *locks; /* lock contention; hidden without */
	PlDiffView *diff_view;
	PlCoverageView *coverage;
	PlLiveBar *live_bar;
	GtkWidget *filter_bar;
	GtkLabel *filter_label;
	GtkWidget *clear_filter;
	PlThreadTimeline *timeline;
	PlCounterTracksView *tracks; /* under the timeline */
	GtkWidget *paned;
	GtkWidget *views_box;
	GtkLabel *status;
	GtkLabel *origin; /* a self-contained session: where and when it was symbolized */

	/* made in code */
	PlFlameGraph *flame;
	GtkSearchEntry *search;
	PlFunctionTable *table;
	GtkWidget *tx_bar; /* the transforms' breadcrumbs */
	GtkWidget *menu;   /* the last frame menu (pl-frame-menu.c) */
	PlFlightDialog *flight; /* "Save now", made when first asked */

	PlProfileSession *session; /* what is open and selected */
	PlDiffController *diff;	   /* the Diff page and the other profile */
	gboolean resym_pending;	   /* settings changed while live: reload when it ends */
	gboolean fit_pending;	   /* a new profile: the timeline's height once aggregated */
	/* a new profile: the page shown then, left for the Findings page if
	 * its findings (computed meanwhile) warn and nobody changed pages */
	char *view_at_open;
	guint lanes;		   /* the timeline's, at the last fit */
};

G_DEFINE_FINAL_TYPE(PlWindow, pl_window, GTK_TYPE_APPLICATION_WINDOW)

static void on_main_page(GtkStack *st, GParamSpec *ps, PlWindow *self);

static PlProfile *profile_of(PlWindow *self)
{
	return pl_profile_session_get_profile(self->session);
}

/* ─── filter and status ──────────────────────────────────────────────── */

static void update_filter_label(PlWindow *self)
{
	PlFilter f = pl_profile_session_get_filter(self->session);
	g_autofree char *text = pl_window_filter_text(profile_of(self), &f);
	gtk_label_set_text(self->filter_label, text);
	gtk_widget_set_visible(self->clear_filter, pl_profile_session_is_filtered(self->session));
}

static void update_status(PlWindow *self)
{
	g_autofree char *text = pl_window_status_text(
		profile_of(self), pl_profile_session_get_aggregate(self->session),
		pl_profile_session_get_path(self->session), pl_profile_session_is_live(self->session));
	gtk_label_set_text(self->status, text);
}

void pl_window_set_filter(PlWindow *self, guint32 tid, guint64 t0, guint64 t1)
{
	pl_ui_timing_begin("filter");
	pl_profile_session_set_range(self->session, tid, t0, t1);
}

/* a view selected a time range: the timeline, the heatmap, the I/O page */
static void on_view_range(GtkWidget *view, guint64 t0, guint64 t1, PlWindow *self)
{
	PlFilter f = pl_profile_session_get_filter(self->session);
	pl_ui_timing_begin("range");
	pl_profile_session_set_range(self->session, f.tid, t0, t1);
}

static void on_thread(PlThreadTimeline *t, guint tid, PlWindow *self)
{
	PlFilter f = pl_profile_session_get_filter(self->session);
	pl_ui_timing_begin("thread");
	pl_profile_session_set_range(self->session, tid, f.t0, f.t1);
}

/* a finding's or an activation's button: its view, thread and time */
static void on_finding_show(PlFindingsView *v, const char *view, guint tid, guint64 t0,
			    guint64 t1, PlWindow *self)
{
	pl_window_set_filter(self, tid, t0, t1);
	gtk_stack_set_visible_child_name(self->views, view);
}

static void on_clear_filter(GtkButton *b, PlWindow *self)
{
	pl_window_set_filter(self, 0, 0, 0);
}

/* ─── the profile ────────────────────────────────────────────────────── */

/* The coverage page's badge in the view switcher when modules lack
 * symbols or do not match the board's build-ids (the page itself follows
 * the session). */
static void update_coverage(PlWindow *self)
{
	guint n = pl_coverage_view_get_n_problems(self->coverage);
	GtkStackPage *pg = gtk_stack_get_page(self->views, GTK_WIDGET(self->coverage));
	g_autofree char *title = n ? g_strdup_printf("Symbols ⚠ %u", n) : g_strdup("Symbols");
	g_object_set(pg, "needs-attention", n > 0, "title", title, NULL);
}

/* The timeline gets the height its lanes need, within reason. */
static void fit_timeline(PlWindow *self)
{
	int min = 0, nat = 0;
	gtk_widget_measure(GTK_WIDGET(self->timeline), GTK_ORIENTATION_VERTICAL, -1, &min, &nat,
			   NULL, NULL);
	int tmin = 0, tnat = 0; /* and the counter tracks under it */
	gtk_widget_measure(GTK_WIDGET(self->tracks), GTK_ORIENTATION_VERTICAL, -1, &tmin, &tnat,
			   NULL, NULL);
	gtk_paned_set_position(GTK_PANED(self->paned), CLAMP(nat + tnat + 4, 120, 340 + tnat / 2));
	self->lanes = pl_thread_timeline_get_n_lanes(self->timeline);
}

static void on_path(PlProfileSession *s, GParamSpec *ps, PlWindow *self)
{
	const char *path = pl_profile_session_get_path(s);
	g_autofree char *base = path ? g_path_get_basename(path) : NULL;
	g_autofree char *title = base ? g_strdup_printf("%s — PerfLens", base) : g_strdup("PerfLens");
	gtk_window_set_title(GTK_WINDOW(self), title);
}

/* Another profile (a file, a recording starting, none): the views have
 * it already; the window's own parts follow. */
static void on_profile(PlProfileSession *s, GParamSpec *ps, PlWindow *self)
{
	PlProfile *p = profile_of(self);
	pl_diff_controller_clear(self->diff);
	pl_diff_controller_set_base(self->diff, p);
	if (!p)
		return;
	update_coverage(self);
	/* the findings come a little later (on_findings) */
	g_object_set(gtk_stack_get_page(self->views, GTK_WIDGET(self->findings)), "title",
		     "Findings", "needs-attention", FALSE, NULL);
	g_free(self->view_at_open);
	self->view_at_open = g_strdup(gtk_stack_get_visible_child_name(self->views));
	self->fit_pending = TRUE;
	gtk_stack_set_visible_child_name(self->main_stack, "profile");
	on_main_page(self->main_stack, NULL, self);
	g_autofree char *note = pl_session_dup_symbolized_note(p);
	g_autofree char *line = note ? g_strdup_printf("Self-contained session: %s. Names, lines, "
						       "sources and disassembly come from the file.",
						       note)
				     : NULL;
	gtk_label_set_text(self->origin, line ? line : "");
	gtk_widget_set_visible(GTK_WIDGET(self->origin), line != NULL);
}

/* The findings are on their page: its badge, and something wrong with the
 * program said first, unless another page was picked meanwhile. */
static void on_findings(PlFindingsView *v, PlWindow *self)
{
	guint nf = pl_findings_view_get_n_findings(v);
	gboolean warn = pl_findings_view_has_warnings(v);
	g_autofree char *ft = nf ? g_strdup_printf(warn ? "Findings ⚠ %u" : "Findings (%u)", nf)
				 : g_strdup("Findings");
	g_object_set(gtk_stack_get_page(self->views, GTK_WIDGET(v)), "title", ft,
		     "needs-attention", warn, NULL);
	g_autofree char *at_open = g_steal_pointer(&self->view_at_open);
	if (warn && at_open && !g_strcmp0(at_open, gtk_stack_get_visible_child_name(self->views)))
		gtk_stack_set_visible_child_name(self->views, "findings");
}

static void on_aggregate(PlProfileSession *s, GParamSpec *ps, PlWindow *self)
{
	update_filter_label(self);
	update_status(self);
	if (self->fit_pending && profile_of(self)) {
		self->fit_pending = FALSE;
		fit_timeline(self);
	}
}

/* a live profile grew: the views read it again; the badge and the
 * timeline's height follow */
static void on_updated(PlProfileSession *s, PlWindow *self)
{
	update_coverage(self);
	if (self->lanes != pl_thread_timeline_get_n_lanes(self->timeline))
		fit_timeline(self);
}

static void on_problem(PlProfileSession *s, const char *message, PlWindow *self)
{
	gtk_label_set_text(self->status, message);
}

/* ─── loading a file (the session's PlLoadJob) ───────────────────────── */

static void on_loading(PlProfileSession *s, GParamSpec *ps, PlWindow *self)
{
	if (pl_profile_session_is_loading(s)) {
		gtk_stack_set_visible_child_name(self->main_stack, "loading");
		return;
	}
	/* a loaded profile shows itself (on_profile); cancelled or failed:
	 * back to what was shown */
	const char *error = pl_profile_session_get_load_error(s);
	if (error)
		gtk_label_set_text(self->empty_hint, error);
	gtk_stack_set_visible_child_name(self->main_stack, profile_of(self) ? "profile" : "empty");
	if (error && profile_of(self))
		gtk_label_set_text(self->status, error);
}

static void on_load_status(PlProfileSession *s, GParamSpec *ps, PlWindow *self)
{
	const char *text = pl_profile_session_get_load_status(s);
	gtk_label_set_text(self->loading_label, text ? text : "");
}

static void on_cancel_load(GtkButton *b, PlWindow *self)
{
	pl_profile_session_cancel_load(self->session);
}

void pl_window_open_file(PlWindow *self, const char *path)
{
	pl_ui_timing_open();
	pl_profile_session_open(self->session, path);
}

/* ─── live (the session follows the connect view's PlLiveSession) ────── */

void pl_window_refresh(PlWindow *self)
{
	pl_profile_session_refresh(self->session);
}

static void on_recording_started(PlProfileSession *s, const char *path, PlWindow *self)
{
	pl_sessions_view_set_recording(self->sessions, path);
	gtk_stack_set_visible_child_name(self->main_stack, "profile");
	pl_window_show_view(self, "flame");
}

static void on_recording_ended(PlProfileSession *s, const char *why, PlWindow *self)
{
	pl_sessions_view_set_recording(self->sessions, NULL);
	const char *path = pl_profile_session_get_path(s);
	PlProfile *p = profile_of(self);
	if (path && p) {
		/* the sessions list reads duration and samples from this sidecar
		 * instead of scanning the whole file */
		const PlProfileStats *st = pl_profile_get_stats(p);
		double dur = st->last_time > st->first_time ? (st->last_time - st->first_time) / 1e9 : 0;
		pl_session_index_write(path, st->samples, dur, why && *why ? why : NULL,
				       pl_connect_view_get_peer(self->connect));
		/* the next connection to this board shows it before recording */
		pl_session_index_write_symbols(path, pl_coverage_view_get_n_modules(self->coverage),
					       pl_coverage_view_get_n_problems(self->coverage),
					       pl_coverage_view_get_first_advice(self->coverage));
	}
	if (self->resym_pending && path) {
		/* symbol settings changed during the recording */
		self->resym_pending = FALSE;
		pl_window_open_file(self, path);
	}
}

static void on_live_pause(PlLiveBar *bar, gboolean paused, PlWindow *self)
{
	pl_connect_view_pause(self->connect, paused);
}

static void on_live_stop(PlLiveBar *bar, PlWindow *self)
{
	pl_connect_view_stop(self->connect);
}

/* ─── flame page (pl-flame-page.c) ───────────────────────────────────── */

static void on_offcpu(PlFlamePage *page, gboolean active, PlWindow *self)
{
	if (active && profile_of(self) && !pl_profile_session_has_offcpu(self->session)) {
		pl_flame_page_set_message(page,
					  "No off-CPU samples: record with context-switch stacks");
	}
	pl_profile_session_set_offcpu(self->session, active);
}

static void on_short_names(PlFlamePage *page, gboolean active, PlWindow *self)
{
	pl_profile_session_set_short_names(self->session, active);
}

/* ─── call-tree transforms (pl-view-state.c, pl-frame-menu.c) ────────── */

static void on_transforms_changed(PlViewState *st, PlWindow *self)
{
	pl_flame_graph_zoom(self->flame, 0); /* the zoomed frame may be gone */
}

static void on_frame_menu(GtkWidget *w, guint node, guint func, double x, double y,
			  PlWindow *self)
{
	pl_frame_menu_popup(w, x, y, profile_of(self), node, func, &self->menu);
}

static void on_function_menu(GtkWidget *w, guint func, double x, double y, PlWindow *self)
{
	pl_frame_menu_popup(w, x, y, profile_of(self), PL_NO_ID, func, &self->menu);
}

/* win.transform (s): "KIND\tARG", as the frame menu's items carry it */
static void act_transform(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	g_autoptr(GError) error = NULL;
	pl_ui_timing_begin("transform");
	if (!pl_view_state_push_text(pl_profile_session_get_view_state(self->session),
				     g_variant_get_string(p, NULL), &error))
		gtk_label_set_text(self->status, error->message);
}

/* ─── functions → source ─────────────────────────────────────────────── */

gboolean pl_window_open_source(PlWindow *self, guint32 func, GError **error)
{
	if (!profile_of(self)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "No session open");
		return FALSE;
	}
	pl_ui_timing_begin("source");
	pl_function_table_select(self->table, func);
	pl_window_show_view(self, "source");
	gboolean ok = pl_source_view_show_function(self->source, profile_of(self),
						   pl_profile_session_get_aggregate(self->session),
						   func, error);
	pl_ui_timing_ready(); /* shown, or its message */
	return ok;
}

static void on_function_activated(PlFunctionTable *t, guint func, PlWindow *self)
{
	g_autoptr(GError) error = NULL;
	if (!pl_window_open_source(self, func, &error))
		gtk_label_set_text(self->status, error->message);
}

static void act_open_source(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	on_function_activated(self->table, g_variant_get_uint32(p), self);
}

static void on_show_source(PlFunctionsPage *page, guint f, PlWindow *self)
{
	if (f != PL_NO_ID)
		on_function_activated(self->table, f, self);
	else
		gtk_label_set_text(self->status, "Select a function first");
}

/* ─── actions ────────────────────────────────────────────────────────── */

static void on_open_response(GtkNativeDialog *d, int response, PlWindow *self)
{
	if (response == GTK_RESPONSE_ACCEPT) {
		G_GNUC_BEGIN_IGNORE_DEPRECATIONS
		g_autoptr(GFile) f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
		G_GNUC_END_IGNORE_DEPRECATIONS
		g_autofree char *path = g_file_get_path(f);
		if (path)
			pl_window_open_file(self, path);
	}
	g_object_unref(d);
}

static void act_open(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	GtkFileChooserNative *fc = gtk_file_chooser_native_new(
		"Open a session", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
	GtkFileFilter *ff = gtk_file_filter_new();
	gtk_file_filter_set_name(ff, "Profiles (.plens, perf.data)");
	gtk_file_filter_add_pattern(ff, "*.plens");
	gtk_file_filter_add_pattern(ff, "*perf.data*");
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(fc), ff);
	g_object_unref(ff);
	g_autofree char *dir = g_build_filename(g_get_user_data_dir(), "perflens", "sessions", NULL);
	g_autoptr(GFile) d = g_file_new_for_path(dir);
	if (g_file_test(dir, G_FILE_TEST_IS_DIR))
		gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(fc), d, NULL);
	G_GNUC_END_IGNORE_DEPRECATIONS
	g_signal_connect(fc, "response", G_CALLBACK(on_open_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

static void act_connect(GSimpleAction *a, GVariant *p, gpointer data)
{
	pl_window_show_connect(data);
}

static void act_diff(GSimpleAction *a, GVariant *p, gpointer data);

static void act_sessions(GSimpleAction *a, GVariant *p, gpointer data)
{
	pl_window_show_sessions(data);
}

static void act_find(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	if (!profile_of(self))
		return;
	pl_window_show_view(self, "flame");
	gtk_widget_grab_focus(GTK_WIDGET(self->search));
}

static void act_zoom_out(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	pl_ui_timing_begin("escape");
	if (!pl_flame_graph_zoom_out(self->flame) &&
	    pl_profile_session_is_filtered(self->session))
		pl_window_set_filter(self, 0, 0, 0); /* at the root: Escape clears the filter */
}

static void act_export(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	if (!profile_of(self))
		return;
	pl_flame_page_export_svg(self->flame_page);
}

static void act_save(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	/* live sessions are saved as they stream; files are already on disk */
	const char *path = pl_profile_session_get_path(self->session);
	g_autofree char *s = g_strdup_printf(
		path ? "This session is saved in %s (sessions are saved as they stream)"
		     : "Nothing to save yet%s",
		path ? path : "");
	gtk_label_set_text(self->status, s);
}

/* ─── flight recorder: Save now (pl-flight-dialog.c) ───────────────── */

/* host:port of a target, loosely: "localhost" and 127.0.0.1 are one */
static gboolean same_agent(const char *a, const char *b)
{
	if (!a || !b)
		return FALSE;
	const char *pa = strrchr(a, ':'), *pb = strrchr(b, ':');
	if (!pa || !pb || strcmp(pa, pb))
		return FALSE;
	g_autofree char *ha = g_strndup(a, (gsize)(pa - a)), *hb = g_strndup(b, (gsize)(pb - b));
	gboolean la = !strcmp(ha, "localhost") || !strcmp(ha, "127.0.0.1");
	gboolean lb = !strcmp(hb, "localhost") || !strcmp(hb, "127.0.0.1");
	return !strcmp(ha, hb) || (la && lb);
}

/* the Board page holds the recorder's one viewer slot: let it go */
static gboolean on_flight_connecting(PlFlightDialog *d, const char *target, PlWindow *self)
{
	PlLiveSession *live = pl_connect_view_get_session(self->connect);
	if (!pl_live_session_is_connected(live) ||
	    !same_agent(pl_live_session_get_peer(live), target))
		return FALSE;
	pl_live_session_disconnect(live, NULL);
	return TRUE;
}

static void on_flight_saved(PlFlightDialog *d, const char *path, PlWindow *self)
{
	pl_window_open_file(self, path);
	gtk_window_close(GTK_WINDOW(d));
}

PlFlightDialog *pl_window_flight_save(PlWindow *self)
{
	if (!self->flight) {
		self->flight = pl_flight_dialog_new(GTK_WINDOW(self));
		g_object_ref(self->flight);
		gtk_window_set_hide_on_close(GTK_WINDOW(self->flight), TRUE);
		const char *peer = pl_connect_view_get_peer(self->connect);
		if (peer && !g_str_has_prefix(peer, "ssh://"))
			pl_flight_dialog_set_target(self->flight, peer, NULL);
		g_signal_connect(self->flight, "connecting", G_CALLBACK(on_flight_connecting), self);
		g_signal_connect(self->flight, "saved", G_CALLBACK(on_flight_saved), self);
	} else if (pl_flight_dialog_has_saved(self->flight)) {
		/* the same recorder again: the shortcut alone saves */
		pl_flight_dialog_save(self->flight);
	}
	gtk_window_present(GTK_WINDOW(self->flight));
	return self->flight;
}

PlFlightDialog *pl_window_get_flight_dialog(PlWindow *self) { return self->flight; }

static void act_flight_save(GSimpleAction *a, GVariant *p, gpointer data)
{
	pl_window_flight_save(data);
}

static void act_fleet(GSimpleAction *a, GVariant *p, gpointer data)
{
	pl_window_show_fleet(data);
}

#define ACT(name, fn) { name, fn, NULL, NULL, NULL, { 0 } }
static const GActionEntry win_actions[] = {
	ACT("open", act_open), ACT("sessions", act_sessions), ACT("diff", act_diff),		 ACT("connect", act_connect),	    ACT("find", act_find),
	ACT("zoom-out", act_zoom_out), ACT("export-svg", act_export), ACT("save", act_save),
	ACT("fleet", act_fleet), ACT("flight-save", act_flight_save),
	{ "transform", act_transform, "s", NULL, NULL, { 0 } },
	{ "open-source", act_open_source, "u", NULL, NULL, { 0 } },
};

/* ─── drag and drop ──────────────────────────────────────────────────── */

static gboolean on_drop(GtkDropTarget *t, const GValue *v, double x, double y, PlWindow *self)
{
	if (!G_VALUE_HOLDS(v, G_TYPE_FILE))
		return FALSE;
	g_autofree char *path = g_file_get_path(g_value_get_object(v));
	if (!path)
		return FALSE;
	pl_window_open_file(self, path);
	return TRUE;
}

/* ─── public ─────────────────────────────────────────────────────────── */

PlWindow *pl_window_new(GtkApplication *app)
{
	return g_object_new(PL_TYPE_WINDOW, "application", app, NULL);
}

void pl_window_show_connect(PlWindow *self)
{
	gtk_stack_set_visible_child_name(self->main_stack, "connect");
}

void pl_window_resymbolize(PlWindow *self)
{
	if (pl_profile_session_is_live(self->session)) {
		self->resym_pending = TRUE;
		gtk_label_set_text(self->status, "New symbol settings: this recording is "
						 "re-symbolized with them when it ends");
		return;
	}
	const char *path = pl_profile_session_get_path(self->session);
	if (path && !pl_profile_session_is_loading(self->session)) {
		g_autofree char *again = g_strdup(path);
		pl_window_open_file(self, again);
	}
}

static void on_settings_saved(PlTargetDialog *d, const char *key, PlWindow *self)
{
	const PlProfileStats *st = profile_of(self) ? pl_profile_get_stats(profile_of(self)) : NULL;
	if (st && !g_strcmp0(st->hostname, key))
		pl_window_resymbolize(self);
}

PlTargetDialog *pl_window_edit_target_settings(PlWindow *self, const char *key)
{
	if (!key || !*key)
		return NULL;
	PlTargetDialog *d = pl_target_dialog_new(
		GTK_WINDOW(self), key,
		pl_profile_session_is_live(self->session)
			? "A recording is running: it is re-symbolized with the new settings "
			  "when it ends; new recordings use them from the start."
			: NULL);
	g_signal_connect(d, "saved", G_CALLBACK(on_settings_saved), self);
	gtk_window_present(GTK_WINDOW(d));
	return d;
}

static void on_edit_settings(GtkWidget *w, const char *key, PlWindow *self)
{
	pl_window_edit_target_settings(self, key);
}

/* ─── diff (pl-diff-controller.c) ───────────────────────────────────── */

static void on_diff_status(PlDiffController *d, const char *text, PlWindow *self)
{
	gtk_label_set_text(self->status, text);
}

static void on_diff_shown(PlDiffController *d, PlWindow *self)
{
	pl_window_show_view(self, "diff");
}

void pl_window_diff_with(PlWindow *self, const char *path)
{
	if (!pl_diff_controller_compare(self->diff, path))
		return;
	gtk_stack_set_visible_child_name(self->main_stack, "profile");
}

gboolean pl_window_is_diff_loading(PlWindow *self)
{
	return pl_diff_controller_is_loading(self->diff);
}
const char *pl_window_get_diff_error(PlWindow *self)
{
	return pl_diff_controller_get_error(self->diff);
}
PlDiffView *pl_window_get_diff_view(PlWindow *self) { return self->diff_view; }
PlHealthView *pl_window_get_health_view(PlWindow *self) { return self->health; }
PlHeatmapView *pl_window_get_heatmap_view(PlWindow *self) { return self->heatmap; }
PlIoView *pl_window_get_io_view(PlWindow *self) { return self->io; }
PlIrqView *pl_window_get_irq_view(PlWindow *self) { return self->irq; }
PlBlockView *pl_window_get_block_view(PlWindow *self) { return self->block; }
PlLocksView *pl_window_get_locks_view(PlWindow *self) { return self->locks; }
PlCounterTracksView *pl_window_get_counter_tracks(PlWindow *self) { return self->tracks; }
PlFindingsView *pl_window_get_findings_view(PlWindow *self) { return self->findings; }
PlViewState *pl_window_get_view_state(PlWindow *self)
{
	return pl_profile_session_get_view_state(self->session);
}
PlTransformBar *pl_window_get_transform_bar(PlWindow *self) { return PL_TRANSFORM_BAR(self->tx_bar); }
PlFlameChart *pl_window_get_flame_chart(PlWindow *self) { return self->chart; }
PlProfileSession *pl_window_get_session(PlWindow *self) { return self->session; }

static void on_diff_session(PlSessionsView *v, const char *path, PlWindow *self)
{
	pl_window_diff_with(self, path);
}

static void act_diff(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	if (!profile_of(self))
		return;
	pl_window_show_sessions(self);
}

void pl_window_show_sessions(PlWindow *self)
{
	pl_sessions_view_set_can_diff(self->sessions, profile_of(self) != NULL);
	pl_sessions_view_reload(self->sessions);
	gtk_stack_set_visible_child_name(self->main_stack, "sessions");
}

void pl_window_show_fleet(PlWindow *self)
{
	gtk_stack_set_visible_child_name(self->main_stack, "fleet");
}
PlFleetView *pl_window_get_fleet_view(PlWindow *self) { return self->fleet; }

void pl_window_show_view(PlWindow *self, const char *name)
{
	if (profile_of(self))
		gtk_stack_set_visible_child_name(self->main_stack, "profile");
	gtk_stack_set_visible_child_name(self->views, name);
}

gboolean pl_window_is_loading(PlWindow *self)
{
	return pl_profile_session_is_loading(self->session);
}
const char *pl_window_get_load_error(PlWindow *self)
{
	return pl_profile_session_get_load_error(self->session);
}
PlProfile *pl_window_get_profile(PlWindow *self) { return profile_of(self); }
PlAggregate *pl_window_get_aggregate(PlWindow *self)
{
	return pl_profile_session_get_aggregate(self->session);
}
PlFlameGraph *pl_window_get_flame_graph(PlWindow *self) { return self->flame; }
PlFunctionTable *pl_window_get_function_table(PlWindow *self) { return self->table; }
PlThreadTimeline *pl_window_get_timeline(PlWindow *self) { return self->timeline; }
PlSourceView *pl_window_get_source_view(PlWindow *self) { return self->source; }
PlConnectView *pl_window_get_connect_view(PlWindow *self) { return self->connect; }
PlSessionsView *pl_window_get_sessions_view(PlWindow *self) { return self->sessions; }
PlCoverageView *pl_window_get_coverage_view(PlWindow *self) { return self->coverage; }
GtkSearchEntry *pl_window_get_search_entry(PlWindow *self) { return self->search; }

/* The view switcher belongs to the profile page; elsewhere a button leads
 * back to the open session. */
static void on_main_page(GtkStack *st, GParamSpec *ps, PlWindow *self)
{
	if (!self->session)
		return; /* the template's pages being added */
	gboolean prof = !g_strcmp0(gtk_stack_get_visible_child_name(st), "profile");
	gtk_widget_set_visible(self->diff_btn, profile_of(self) != NULL);
	gtk_widget_set_visible(self->back_btn, !prof && profile_of(self) &&
						       g_strcmp0(gtk_stack_get_visible_child_name(st), "loading"));
}

static void on_back(GtkButton *b, PlWindow *self)
{
	if (profile_of(self))
		gtk_stack_set_visible_child_name(self->main_stack, "profile");
}

static void on_session_renamed(PlSessionsView *v, const char *from, const char *to,
			       PlWindow *self)
{
	if (!g_strcmp0(pl_profile_session_get_path(self->session), from)) {
		pl_profile_session_rename(self->session, from, to);
		update_status(self);
	}
}

static void on_open_session(PlSessionsView *v, const char *path, PlWindow *self)
{
	pl_window_open_file(self, path);
}

static void on_connect_disconnected(PlConnectView *cv, const char *why, PlWindow *self)
{
	if (why)
		pl_window_show_connect(self);
}

static void pl_window_dispose(GObject *obj)
{
	PlWindow *self = PL_WINDOW(obj);
	if (self->session) {
		/* no more messages nor a load into a profile about to go, and
		 * the views let it go before it is freed */
		pl_profile_session_follow(self->session, NULL);
		pl_profile_session_cancel_load(self->session);
		g_signal_handlers_disconnect_by_data(self->session, self);
		g_signal_handlers_disconnect_by_data(pl_profile_session_get_view_state(self->session),
						     self);
		if (self->diff)
			pl_diff_controller_clear(self->diff);
		pl_profile_session_set_profile(self->session, NULL, NULL);
		if (self->diff)
			pl_diff_controller_set_base(self->diff, NULL);
	}
	if (self->diff)
		g_signal_handlers_disconnect_by_data(self->diff, self);
	g_clear_object(&self->diff);
	g_clear_pointer(&self->view_at_open, g_free);
	if (self->menu && gtk_widget_get_parent(self->menu))
		gtk_widget_unparent(self->menu);
	g_clear_object(&self->menu);
	if (self->flight) {
		g_signal_handlers_disconnect_by_data(self->flight, self);
		gtk_window_destroy(GTK_WINDOW(self->flight));
		g_clear_object(&self->flight);
	}
	if (self->live_bar)
		pl_live_bar_set_session(self->live_bar, NULL);
	/* no gtk_widget_dispose_template: it would unparent main_stack, the
	 * window's child, which GtkWindow's dispose lets go itself */
	g_clear_object(&self->session);
	G_OBJECT_CLASS(pl_window_parent_class)->dispose(obj);
}

static void pl_window_class_init(PlWindowClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_window_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	/* the template's own widget types, registered before it is read */
	g_type_ensure(PL_TYPE_CONNECT_VIEW);
	g_type_ensure(PL_TYPE_COUNTER_TRACKS_VIEW);
	g_type_ensure(PL_TYPE_SESSIONS_VIEW);
	g_type_ensure(PL_TYPE_FLEET_VIEW);
	g_type_ensure(PL_TYPE_FLAME_PAGE);
	g_type_ensure(PL_TYPE_FUNCTIONS_PAGE);
	g_type_ensure(PL_TYPE_SOURCE_VIEW);
	g_type_ensure(PL_TYPE_FLAME_CHART);
	g_type_ensure(PL_TYPE_COUNTERS_VIEW);
	g_type_ensure(PL_TYPE_HEATMAP_VIEW);
	g_type_ensure(PL_TYPE_HEALTH_VIEW);
	g_type_ensure(PL_TYPE_IRQ_VIEW);
	g_type_ensure(PL_TYPE_BLOCK_VIEW);
	g_type_ensure(PL_TYPE_FINDINGS_VIEW);
	g_type_ensure(PL_TYPE_IO_VIEW);
	g_type_ensure(PL_TYPE_LOCKS_VIEW);
	g_type_ensure(PL_TYPE_DIFF_VIEW);
	g_type_ensure(PL_TYPE_COVERAGE_VIEW);
	g_type_ensure(PL_TYPE_LIVE_BAR);
	g_type_ensure(PL_TYPE_THREAD_TIMELINE);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-window.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlWindow, name)
	CHILD(main_stack);
	CHILD(views);
	CHILD(back_btn);
	CHILD(diff_btn);
	CHILD(empty_hint);
	CHILD(loading_label);
	CHILD(connect);
	CHILD(sessions);
	CHILD(fleet);
	CHILD(flame_page);
	CHILD(functions_page);
	CHILD(source);
	CHILD(chart);
	CHILD(counters);
	CHILD(heatmap);
	CHILD(health);
	CHILD(findings);
	CHILD(io);
	CHILD(irq);
	CHILD(block);
	CHILD(locks);
	CHILD(diff_view);
	CHILD(coverage);
	CHILD(live_bar);
	CHILD(filter_bar);
	CHILD(filter_label);
	CHILD(clear_filter);
	CHILD(timeline);
	CHILD(tracks);
	CHILD(paned);
	CHILD(views_box);
	CHILD(status);
	CHILD(origin);
#undef CHILD
#define CALLBACK(name) gtk_widget_class_bind_template_callback(wc, name)
	CALLBACK(on_main_page);
	CALLBACK(on_back);
	CALLBACK(on_cancel_load);
	CALLBACK(on_connect_disconnected);
	CALLBACK(on_edit_settings);
	CALLBACK(on_open_session);
	CALLBACK(on_diff_session);
	CALLBACK(on_session_renamed);
	CALLBACK(on_live_pause);
	CALLBACK(on_live_stop);
	CALLBACK(on_clear_filter);
	CALLBACK(on_view_range);
	CALLBACK(on_thread);
	CALLBACK(on_show_source);
	CALLBACK(on_frame_menu);
	CALLBACK(on_finding_show);
#undef CALLBACK
}

/* For pl-ui-timing.h: a loaded profile shows, its flame graph laid out. */
static gboolean window_shown(GtkWidget *w)
{
	PlWindow *self = PL_WINDOW(w);
	return profile_of(self) && !pl_profile_session_is_loading(self->session) &&
	       !g_strcmp0(gtk_stack_get_visible_child_name(self->main_stack), "profile") &&
	       pl_flame_graph_is_ready(self->flame);
}

/* a session of the fleet store, opened beside this window */
static gpointer on_fleet_open_profile(GObject *page, PlProfile *p, const char *title, PlWindow *self)
{
	GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
	if (!app) {
		pl_profile_free(p);
		return NULL;
	}
	PlWindow *w = pl_window_new(app);
	pl_profile_session_set_profile(pl_window_get_session(w), p, NULL);
	gtk_window_set_title(GTK_WINDOW(w), title);
	return w;
}

static void pl_window_init(PlWindow *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	g_action_map_add_action_entries(G_ACTION_MAP(self), win_actions, G_N_ELEMENTS(win_actions),
					self);
	self->session = pl_profile_session_new();
	PlViewState *state = pl_profile_session_get_view_state(self->session);

	/* what the pages hold inside */
	self->flame = pl_flame_page_get_graph(self->flame_page);
	self->search = pl_flame_page_get_search_entry(self->flame_page);
	self->table = pl_functions_page_get_table(self->functions_page);
	g_signal_connect(self->flame_page, "offcpu-toggled", G_CALLBACK(on_offcpu), self);
	g_signal_connect(self->flame_page, "short-names-toggled", G_CALLBACK(on_short_names), self);
	g_signal_connect(self->flame, "frame-menu", G_CALLBACK(on_frame_menu), self);
	g_signal_connect(self->table, "function-activated", G_CALLBACK(on_function_activated), self);
	g_signal_connect(self->table, "function-menu", G_CALLBACK(on_function_menu), self);
	gtk_box_insert_child_after(GTK_BOX(self->filter_bar), pl_pair_button_new(self->timeline),
				   GTK_WIDGET(self->filter_label));
	/* the transforms' breadcrumbs head the views they shape */
	self->tx_bar = pl_transform_bar_new(state);
	gtk_box_prepend(GTK_BOX(self->views_box), self->tx_bar);
	pl_io_view_set_profile(self->io, NULL); /* hidden until a session has slow calls */
	pl_irq_view_set_profile(self->irq, NULL);
	pl_block_view_set_profile(self->block, NULL);
	pl_locks_view_set_profile(self->locks, NULL); /* and until one has futex waits */
	self->diff = pl_diff_controller_new(self->diff_view);
	pl_diff_controller_set_view_state(self->diff, state);
	g_signal_connect(self->diff, "status", G_CALLBACK(on_diff_status), self);
	g_signal_connect(self->diff, "shown", G_CALLBACK(on_diff_shown), self);
	g_signal_connect(pl_fleet_view_get_rank_view(self->fleet), "open-profile",
			 G_CALLBACK(on_fleet_open_profile), self);

	/* the views follow the session first, the window's lines after them */
	pl_flame_graph_set_session(self->flame, self->session);
	pl_function_table_set_session(self->table, self->session);
	pl_source_view_set_session(self->source, self->session);
	pl_flame_chart_set_session(self->chart, self->session);
	pl_counters_view_set_session(self->counters, self->session);
	pl_thread_timeline_set_session(self->timeline, self->session);
	pl_counter_tracks_view_set_session(self->tracks, self->session);
	pl_health_view_set_session(self->health, self->session);
	pl_findings_view_set_session(self->findings, self->session);
	g_signal_connect(self->findings, "computed", G_CALLBACK(on_findings), self);
	pl_heatmap_view_set_session(self->heatmap, self->session);
	pl_io_view_set_session(self->io, self->session);
	pl_irq_view_set_session(self->irq, self->session);
	pl_block_view_set_session(self->block, self->session);
	pl_locks_view_set_session(self->locks, self->session);
	pl_coverage_view_set_session(self->coverage, self->session);
	pl_live_bar_set_session(self->live_bar, self->session);
	g_object_bind_property(self->session, "search", self->search, "text",
			       G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
	g_signal_connect(self->session, "notify::profile", G_CALLBACK(on_profile), self);
	g_signal_connect(self->session, "notify::aggregate", G_CALLBACK(on_aggregate), self);
	g_signal_connect(self->session, "notify::path", G_CALLBACK(on_path), self);
	g_signal_connect(self->session, "notify::loading", G_CALLBACK(on_loading), self);
	g_signal_connect(self->session, "notify::load-status", G_CALLBACK(on_load_status), self);
	g_signal_connect(self->session, "updated", G_CALLBACK(on_updated), self);
	g_signal_connect(self->session, "problem", G_CALLBACK(on_problem), self);
	g_signal_connect(self->session, "recording-started", G_CALLBACK(on_recording_started), self);
	g_signal_connect(self->session, "recording-ended", G_CALLBACK(on_recording_ended), self);
	g_signal_connect(state, "changed", G_CALLBACK(on_transforms_changed), self);
	/* a recording made with the connect view feeds the session */
	pl_profile_session_follow(self->session, pl_connect_view_get_session(self->connect));

	GtkDropTarget *drop = gtk_drop_target_new(G_TYPE_FILE, GDK_ACTION_COPY);
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
	update_filter_label(self);
	pl_ui_timing_watch(GTK_WIDGET(self), window_shown);
}
