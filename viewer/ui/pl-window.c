/* pl-window.c — the main window (see the header): its pages and their
 * layout, the actions, the filter and status lines, and the wiring of the
 * flame page (pl-flame-page.c), the file loader (pl-load-job.c), the
 * live session (pl-live-controller.c) and the diff (pl-diff-controller.c)
 * to the views.
 */
#include "pl-window.h"
#include "pl-welcome-page.h"

#include <string.h>

#include "pl-capture.h"
#include "pl-counters-view.h"
#include "pl-coverage-view.h"
#include "pl-diff-controller.h"
#include "pl-health-view.h"
#include "pl-heatmap-view.h"
#include "pl-flame-chart.h"
#include "pl-flame-page.h"
#include "pl-frame-menu.h"
#include "pl-functions-page.h"
#include "pl-live-controller.h"
#include "pl-load-job.h"
#include "pl-export-self-contained.h"
#include "pl-target-dialog.h"
#include "pl-sessions-index.h"
#include "pl-pair-button.h"
#include "pl-window-text.h"
#include "pl-transform-bar.h"
#include "pl-ui-util.h"
#include "pl-view-state.h"

struct _PlWindow {
	GtkApplicationWindow parent_instance;

	GtkStack *main_stack; /* "empty", "loading", "connect", "sessions", "profile" */
	GtkStack *views;
	GtkWidget *switcher;
	GtkWidget *back_btn; /* to the session, from the connect or sessions page */
	GtkLabel *empty_hint;
	GtkLabel *loading_label;
	PlConnectView *connect;
	PlSessionsView *sessions;
	PlFlamePage *flame_page;
	PlFlameGraph *flame;
	GtkSearchEntry *search;
	PlFunctionTable *table;
	PlThreadTimeline *timeline;
	PlSourceView *source;
	PlCountersView *counters;
	PlFlameChart *chart;
	PlCoverageView *coverage;
	PlHealthView *health;
	PlHeatmapView *heatmap;
	PlIoView *io; /* slow system calls; hidden without */
	GtkWidget *diff_btn;
	GtkLabel *filter_label;
	GtkWidget *clear_filter;
	GtkLabel *status;
	GtkLabel *origin; /* a self-contained session: where and when it was symbolized */
	GtkWidget *paned;

	PlProfile *profile;
	PlAggregate *agg;
	PlFilter filter;
	gboolean offcpu_on;
	gboolean short_names; /* kept for the next profile too */
	char *path; /* the file shown, or the live session's file */
	char *load_error;
	gboolean resym_pending; /* settings changed while live: reload when it ends */
	PlLoadJob *loader;
	PlLiveController *live;
	PlDiffController *diff; /* the Diff page and the other profile */
	PlViewState *state;     /* the call-tree transforms, kept with the session */
	GtkWidget *tx_bar;      /* their breadcrumbs */
	GtkWidget *menu;        /* the last frame menu (pl-frame-menu.c) */
};

G_DEFINE_FINAL_TYPE(PlWindow, pl_window, GTK_TYPE_APPLICATION_WINDOW)

static void refresh_views(PlWindow *self);
static void on_main_page(GtkStack *st, GParamSpec *ps, PlWindow *self);

/* ─── filter and status ──────────────────────────────────────────────── */

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

static void update_filter_label(PlWindow *self)
{
	g_autofree char *text = pl_window_filter_text(self->profile, &self->filter);
	gtk_label_set_text(self->filter_label, text);
	gtk_widget_set_visible(self->clear_filter, self->filter.tid || self->filter.t1 > self->filter.t0);
}

static void update_status(PlWindow *self)
{
	g_autofree char *text = pl_window_status_text(self->profile, self->agg, self->path,
						      pl_live_controller_is_live(self->live));
	gtk_label_set_text(self->status, text);
}

static void refresh_views(PlWindow *self)
{
	PlAggregate *old = self->agg;
	self->agg = NULL;
	if (self->profile) {
		PlFilter f = self->filter;
		f.event = self->offcpu_on ? switch_event(self->profile)
					  : pl_profile_get_main_event(self->profile);
		self->agg = pl_profile_aggregate_filtered(self->profile, &f,
							  pl_view_state_get_stack_filter(self->state));
	}
	pl_flame_graph_set_data(self->flame, self->profile, self->agg);
	pl_function_table_set_data(self->table, self->profile, self->agg);
	pl_source_view_set_data(self->source, self->profile, self->agg);
	PlFilter cf = self->filter;
	cf.event = PL_NO_ID;
	if (self->profile)
		cf.event = self->offcpu_on ? switch_event(self->profile)
					   : pl_profile_get_main_event(self->profile);
	pl_flame_chart_set_data(self->chart, self->profile, &cf, self->agg);
	pl_thread_timeline_set_aggregate(self->timeline, self->agg);
	pl_thread_timeline_set_filter(self->timeline, self->filter.tid, self->filter.t0,
				      self->filter.t1);
	pl_health_view_set_range(self->health, self->filter.t0, self->filter.t1);
	pl_heatmap_view_set_profile(self->heatmap, self->profile, self->filter.tid, cf.event,
				    self->agg ? self->agg->node_map : NULL);
	pl_heatmap_view_set_range(self->heatmap, self->filter.t0, self->filter.t1);
	pl_io_view_set_filter(self->io, &self->filter);
	if (old)
		pl_aggregate_free(old);
	update_filter_label(self);
	update_status(self);
}

void pl_window_set_filter(PlWindow *self, guint32 tid, guint64 t0, guint64 t1)
{
	self->filter.tid = tid;
	self->filter.t0 = t0;
	self->filter.t1 = t1;
	refresh_views(self);
}

/* a view selected a time range: the timeline, the heatmap, the I/O page */
static void on_view_range(GtkWidget *view, guint64 t0, guint64 t1, PlWindow *self)
{
	pl_window_set_filter(self, self->filter.tid, t0, t1);
}

static void on_thread(PlThreadTimeline *t, guint tid, PlWindow *self)
{
	pl_window_set_filter(self, tid, self->filter.t0, self->filter.t1);
}

static void on_clear_filter(GtkButton *b, PlWindow *self)
{
	pl_window_set_filter(self, 0, 0, 0);
}

/* ─── the profile ────────────────────────────────────────────────────── */

/* The coverage page, and its badge in the view switcher when modules lack
 * symbols or do not match the board's build-ids. */
static void update_coverage(PlWindow *self)
{
	pl_coverage_view_set_profile(self->coverage, self->profile);
	guint n = pl_coverage_view_get_n_problems(self->coverage);
	GtkStackPage *pg = gtk_stack_get_page(self->views, GTK_WIDGET(self->coverage));
	g_autofree char *title = n ? g_strdup_printf("Symbols ⚠ %u", n) : g_strdup("Symbols");
	g_object_set(pg, "needs-attention", n > 0, "title", title, NULL);
}

static void clear_profile(PlWindow *self)
{
	pl_flame_graph_set_data(self->flame, NULL, NULL);
	pl_function_table_set_data(self->table, NULL, NULL);
	pl_source_view_set_data(self->source, NULL, NULL);
	pl_thread_timeline_set_profile(self->timeline, NULL);
	pl_counters_view_set_profile(self->counters, NULL);
	pl_flame_chart_set_data(self->chart, NULL, NULL, NULL);
	pl_coverage_view_set_profile(self->coverage, NULL);
	pl_health_view_set_profile(self->health, NULL);
	pl_heatmap_view_set_profile(self->heatmap, NULL, 0, PL_NO_ID, NULL);
	pl_io_view_set_profile(self->io, NULL);
	pl_diff_controller_clear(self->diff);
	pl_diff_controller_set_base(self->diff, NULL);
	pl_live_controller_set_profile(self->live, NULL);
	g_clear_pointer(&self->agg, pl_aggregate_free);
	g_clear_pointer(&self->profile, pl_profile_free);
	self->filter = PL_FILTER_ALL;
}

/* The timeline gets the height its lanes need, within reason. */
static void fit_timeline(PlWindow *self)
{
	int min = 0, nat = 0;
	gtk_widget_measure(GTK_WIDGET(self->timeline), GTK_ORIENTATION_VERTICAL, -1, &min, &nat,
			   NULL, NULL);
	gtk_paned_set_position(GTK_PANED(self->paned), CLAMP(nat + 4, 120, 340));
}

static void set_title(PlWindow *self, const char *path)
{
	g_autofree char *base = path ? g_path_get_basename(path) : NULL;
	g_autofree char *title = base ? g_strdup_printf("%s — PerfLens", base) : g_strdup("PerfLens");
	gtk_window_set_title(GTK_WINDOW(self), title);
}

static void set_profile(PlWindow *self, PlProfile *p, const char *path)
{
	clear_profile(self);
	/* the transforms the session was left with (none: a new one) */
	pl_view_state_set_session(self->state, path);
	self->profile = p;
	if (p)
		pl_profile_set_short_names(p, self->short_names);
	pl_diff_controller_set_base(self->diff, p);
	pl_live_controller_set_profile(self->live, p);
	g_free(self->path);
	self->path = g_strdup(path);
	pl_thread_timeline_set_profile(self->timeline, p);
	pl_counters_view_set_profile(self->counters, p);
	pl_health_view_set_profile(self->health, p);
	pl_io_view_set_profile(self->io, p);
	refresh_views(self);
	update_coverage(self);
	fit_timeline(self);
	gtk_stack_set_visible_child_name(self->main_stack, "profile");
	on_main_page(self->main_stack, NULL, self);
	set_title(self, path);
	g_autofree char *note = pl_session_dup_symbolized_note(p);
	g_autofree char *line = note ? g_strdup_printf("Self-contained session: %s. Names, lines, "
						       "sources and disassembly come from the file.",
						       note)
				     : NULL;
	gtk_label_set_text(self->origin, line ? line : "");
	gtk_widget_set_visible(GTK_WIDGET(self->origin), line != NULL);
}

/* ─── loading a file (pl-load-job.c) ───────────────────────────── */

static void load_done(PlLoadJob *loader, const char *path, PlWindow *self)
{
	const GError *error = pl_load_job_get_error(loader);
	PlProfile *p = pl_load_job_take_profile(loader);
	g_clear_pointer(&self->load_error, g_free);
	if (!p && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		gtk_stack_set_visible_child_name(self->main_stack, self->profile ? "profile" : "empty");
		return;
	}
	if (!p) {
		self->load_error = g_strdup_printf("Cannot open %s: %s", path, error->message);
		gtk_label_set_text(self->empty_hint, self->load_error);
		gtk_stack_set_visible_child_name(self->main_stack,
						 self->profile ? "profile" : "empty");
		if (self->profile)
			gtk_label_set_text(self->status, self->load_error);
		return;
	}
	pl_live_controller_leave(self->live);
	set_profile(self, p, path);
}

static void on_load_progress(PlLoadJob *loader, PlWindow *self)
{
	const char *path = pl_load_job_get_path(loader);
	g_autofree char *fetch = pl_load_job_dup_fetch_status(loader);
	g_autofree char *msg = g_strdup_printf("Loading %s… %" G_GSIZE_FORMAT " records read%s%s",
					       path ? path : "",
					       pl_load_job_get_progress(loader),
					       fetch ? "\n" : "", fetch ? fetch : "");
	gtk_label_set_text(self->loading_label, msg);
}

static void on_cancel_load(GtkButton *b, PlWindow *self)
{
	pl_load_job_cancel(self->loader);
}

void pl_window_open_file(PlWindow *self, const char *path)
{
	g_clear_pointer(&self->load_error, g_free);
	g_autofree char *msg = g_strdup_printf("Loading %s…", path);
	gtk_label_set_text(self->loading_label, msg);
	gtk_stack_set_visible_child_name(self->main_stack, "loading");
	pl_load_job_load(self->loader, path);
}

/* ─── live (pl-live-controller.c) ────────────────────────────────────── */

void pl_window_refresh(PlWindow *self)
{
	if (!self->profile)
		return;
	pl_live_controller_refreshed(self->live);
	pl_profile_finish(self->profile);
	guint lanes = pl_thread_timeline_get_n_lanes(self->timeline);
	pl_thread_timeline_set_profile(self->timeline, self->profile);
	pl_counters_view_set_profile(self->counters, self->profile);
	pl_health_view_set_profile(self->health, self->profile);
	pl_io_view_set_profile(self->io, self->profile);
	refresh_views(self);
	update_coverage(self);
	if (lanes != pl_thread_timeline_get_n_lanes(self->timeline))
		fit_timeline(self);
}

static void on_live_refresh(PlLiveController *live, PlWindow *self)
{
	pl_window_refresh(self);
}

static void on_live_profile(PlLiveController *live, PlWindow *self)
{
	set_profile(self, pl_live_controller_take_profile(live), NULL);
}

static void on_session_started(PlLiveController *live, const char *path, PlWindow *self)
{
	g_free(self->path);
	self->path = g_strdup(path);
	pl_view_state_keep_in(self->state, path);
	set_title(self, path);
	pl_sessions_view_set_recording(self->sessions, path);
	gtk_stack_set_visible_child_name(self->main_stack, "profile");
	pl_window_show_view(self, "flame");
}

static void on_session_ended(PlLiveController *live, const char *why, PlWindow *self)
{
	pl_sessions_view_set_recording(self->sessions, NULL);
	pl_window_refresh(self);
	if (self->path && self->profile) {
		/* the sessions list reads duration and samples from this sidecar
		 * instead of scanning the whole file */
		const PlProfileStats *st = pl_profile_get_stats(self->profile);
		double dur = st->last_time > st->first_time ? (st->last_time - st->first_time) / 1e9 : 0;
		pl_session_index_write(self->path, st->samples, dur, why && *why ? why : NULL,
				       pl_connect_view_get_peer(self->connect));
		/* the next connection to this board shows it before recording */
		pl_session_index_write_symbols(self->path,
					       pl_coverage_view_get_n_modules(self->coverage),
					       pl_coverage_view_get_n_problems(self->coverage),
					       pl_coverage_view_get_first_advice(self->coverage));
	}
	if (self->resym_pending && self->path) {
		/* symbol settings changed during the recording */
		self->resym_pending = FALSE;
		pl_window_open_file(self, self->path);
	}
}

/* ─── flame page (pl-flame-page.c) ───────────────────────────────────── */

static void on_offcpu(PlFlamePage *page, gboolean active, PlWindow *self)
{
	self->offcpu_on = active;
	if (self->offcpu_on && self->profile && switch_event(self->profile) == PL_NO_ID) {
		pl_flame_page_set_message(page,
					  "No off-CPU samples: record with context-switch stacks");
	}
	refresh_views(self);
}

static void on_short_names(PlFlamePage *page, gboolean active, PlWindow *self)
{
	self->short_names = active;
	if (self->profile)
		pl_profile_set_short_names(self->profile, active);
	refresh_views(self);
}

/* ─── call-tree transforms (pl-view-state.c, pl-frame-menu.c) ────────── */

static void on_transforms_changed(PlViewState *st, PlWindow *self)
{
	pl_flame_graph_zoom(self->flame, 0); /* the zoomed frame may be gone */
	refresh_views(self);
	if (pl_view_state_get_error(st))
		gtk_label_set_text(self->status, pl_view_state_get_error(st));
}

static void on_frame_menu(GtkWidget *w, guint node, guint func, double x, double y,
			  PlWindow *self)
{
	pl_frame_menu_popup(w, x, y, self->profile, node, func, &self->menu);
}

static void on_function_menu(GtkWidget *w, guint func, double x, double y, PlWindow *self)
{
	pl_frame_menu_popup(w, x, y, self->profile, PL_NO_ID, func, &self->menu);
}

/* win.transform (s): "KIND\tARG", as the frame menu's items carry it */
static void act_transform(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	g_autoptr(GError) error = NULL;
	if (!pl_view_state_push_text(self->state, g_variant_get_string(p, NULL), &error))
		gtk_label_set_text(self->status, error->message);
}

/* ─── functions → source ─────────────────────────────────────────────── */

gboolean pl_window_open_source(PlWindow *self, guint32 func, GError **error)
{
	if (!self->profile) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, "No session open");
		return FALSE;
	}
	pl_function_table_select(self->table, func);
	pl_window_show_view(self, "source");
	return pl_source_view_show_function(self->source, self->profile, self->agg, func, error);
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
	if (!self->profile)
		return;
	pl_window_show_view(self, "flame");
	gtk_widget_grab_focus(GTK_WIDGET(self->search));
}

static void act_zoom_out(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	if (!pl_flame_graph_zoom_out(self->flame) &&
	    (self->filter.tid || self->filter.t1 > self->filter.t0))
		pl_window_set_filter(self, 0, 0, 0); /* at the root: Escape clears the filter */
}

static void act_export(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	if (!self->profile)
		return;
	pl_flame_page_export_svg(self->flame_page);
}

static void act_save(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	/* live sessions are saved as they stream; files are already on disk */
	g_autofree char *s = g_strdup_printf(
		self->path ? "This session is saved in %s (sessions are saved as they stream)"
			   : "Nothing to save yet%s",
		self->path ? self->path : "");
	gtk_label_set_text(self->status, s);
}

#define ACT(name, fn) { name, fn, NULL, NULL, NULL, { 0 } }
static const GActionEntry win_actions[] = {
	ACT("open", act_open), ACT("sessions", act_sessions), ACT("diff", act_diff),		 ACT("connect", act_connect),	    ACT("find", act_find),
	ACT("zoom-out", act_zoom_out), ACT("export-svg", act_export), ACT("save", act_save),
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
	if (pl_live_controller_is_live(self->live)) {
		self->resym_pending = TRUE;
		gtk_label_set_text(self->status, "New symbol settings: this recording is "
						 "re-symbolized with them when it ends");
		return;
	}
	if (self->path && !pl_load_job_is_loading(self->loader))
		pl_window_open_file(self, self->path);
}

static void on_settings_saved(PlTargetDialog *d, const char *key, PlWindow *self)
{
	const PlProfileStats *st = self->profile ? pl_profile_get_stats(self->profile) : NULL;
	if (st && !g_strcmp0(st->hostname, key))
		pl_window_resymbolize(self);
}

PlTargetDialog *pl_window_edit_target_settings(PlWindow *self, const char *key)
{
	if (!key || !*key)
		return NULL;
	PlTargetDialog *d = pl_target_dialog_new(
		GTK_WINDOW(self), key,
		pl_live_controller_is_live(self->live) ? "A recording is running: it is re-symbolized with the new settings "
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
PlDiffView *pl_window_get_diff_view(PlWindow *self)
{
	return pl_diff_controller_get_view(self->diff);
}
PlHealthView *pl_window_get_health_view(PlWindow *self) { return self->health; }
PlHeatmapView *pl_window_get_heatmap_view(PlWindow *self) { return self->heatmap; }
PlIoView *pl_window_get_io_view(PlWindow *self) { return self->io; }
PlViewState *pl_window_get_view_state(PlWindow *self) { return self->state; }
PlTransformBar *pl_window_get_transform_bar(PlWindow *self) { return PL_TRANSFORM_BAR(self->tx_bar); }
PlFlameChart *pl_window_get_flame_chart(PlWindow *self) { return self->chart; }

static void on_diff_session(PlSessionsView *v, const char *path, PlWindow *self)
{
	pl_window_diff_with(self, path);
}

static void act_diff(GSimpleAction *a, GVariant *p, gpointer data)
{
	PlWindow *self = data;
	if (!self->profile)
		return;
	pl_window_show_sessions(self);
}

void pl_window_show_sessions(PlWindow *self)
{
	pl_sessions_view_set_can_diff(self->sessions, self->profile != NULL);
	pl_sessions_view_reload(self->sessions);
	gtk_stack_set_visible_child_name(self->main_stack, "sessions");
}

void pl_window_show_view(PlWindow *self, const char *name)
{
	if (self->profile)
		gtk_stack_set_visible_child_name(self->main_stack, "profile");
	gtk_stack_set_visible_child_name(self->views, name);
}

gboolean pl_window_is_loading(PlWindow *self)
{
	return pl_load_job_is_loading(self->loader);
}
const char *pl_window_get_load_error(PlWindow *self) { return self->load_error; }
PlProfile *pl_window_get_profile(PlWindow *self) { return self->profile; }
PlAggregate *pl_window_get_aggregate(PlWindow *self) { return self->agg; }
PlFlameGraph *pl_window_get_flame_graph(PlWindow *self) { return self->flame; }
PlFunctionTable *pl_window_get_function_table(PlWindow *self) { return self->table; }
PlThreadTimeline *pl_window_get_timeline(PlWindow *self) { return self->timeline; }
PlSourceView *pl_window_get_source_view(PlWindow *self) { return self->source; }
PlConnectView *pl_window_get_connect_view(PlWindow *self) { return self->connect; }
PlSessionsView *pl_window_get_sessions_view(PlWindow *self) { return self->sessions; }
PlCoverageView *pl_window_get_coverage_view(PlWindow *self) { return self->coverage; }
GtkSearchEntry *pl_window_get_search_entry(PlWindow *self) { return self->search; }

static void pl_window_dispose(GObject *obj)
{
	PlWindow *self = PL_WINDOW(obj);
	if (self->loader) {
		/* a running load ends in its worker, unseen */
		g_signal_handlers_disconnect_by_data(self->loader, self);
		pl_load_job_cancel(self->loader);
		g_clear_object(&self->loader);
	}
	if (self->live) {
		/* no more messages into a profile about to be freed */
		pl_live_controller_set_profile(self->live, NULL);
		g_signal_handlers_disconnect_by_data(self->live, self);
	}
	if (self->flame && self->diff)
		clear_profile(self);
	g_clear_object(&self->live);
	if (self->diff)
		g_signal_handlers_disconnect_by_data(self->diff, self);
	g_clear_object(&self->diff);
	if (self->menu && gtk_widget_get_parent(self->menu))
		gtk_widget_unparent(self->menu);
	g_clear_object(&self->menu);
	if (self->state)
		g_signal_handlers_disconnect_by_data(self->state, self);
	g_clear_object(&self->state);
	g_clear_pointer(&self->path, g_free);
	g_clear_pointer(&self->load_error, g_free);
	G_OBJECT_CLASS(pl_window_parent_class)->dispose(obj);
}

static void pl_window_class_init(PlWindowClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_window_dispose;
}

static GtkWidget *functions_page(PlWindow *self)
{
	GtkWidget *page = pl_functions_page_new();
	g_signal_connect(page, "show-source", G_CALLBACK(on_show_source), self);
	self->table = pl_functions_page_get_table(PL_FUNCTIONS_PAGE(page));
	g_signal_connect(self->table, "function-activated", G_CALLBACK(on_function_activated), self);
	g_signal_connect(self->table, "function-menu", G_CALLBACK(on_function_menu), self);
	return page;
}

static GtkWidget *loading_page(PlWindow *self)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	gtk_widget_set_valign(box, GTK_ALIGN_CENTER);
	gtk_widget_set_halign(box, GTK_ALIGN_CENTER);
	GtkWidget *sp = gtk_spinner_new();
	gtk_spinner_start(GTK_SPINNER(sp));
	gtk_widget_set_size_request(sp, 32, 32);
	gtk_box_append(GTK_BOX(box), sp);
	self->loading_label = GTK_LABEL(gtk_label_new(NULL));
	gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->loading_label));
	GtkWidget *cancel = gtk_button_new_with_label("Cancel");
	g_signal_connect(cancel, "clicked", G_CALLBACK(on_cancel_load), self);
	gtk_widget_set_halign(cancel, GTK_ALIGN_CENTER);
	gtk_box_append(GTK_BOX(box), cancel);
	return box;
}

/* The view switcher belongs to the profile page; elsewhere a button leads
 * back to the open session. */
static void on_main_page(GtkStack *st, GParamSpec *ps, PlWindow *self)
{
	gboolean prof = !g_strcmp0(gtk_stack_get_visible_child_name(st), "profile");
	gtk_widget_set_visible(self->diff_btn, self->profile != NULL);
	gtk_widget_set_visible(self->back_btn, !prof && self->profile &&
						       g_strcmp0(gtk_stack_get_visible_child_name(st), "loading"));
}

static void on_back(GtkButton *b, PlWindow *self)
{
	if (self->profile)
		gtk_stack_set_visible_child_name(self->main_stack, "profile");
}

static void on_session_renamed(PlSessionsView *v, const char *from, const char *to,
			       PlWindow *self)
{
	if (!g_strcmp0(self->path, from)) {
		g_free(self->path);
		self->path = g_strdup(to);
		pl_view_state_keep_in(self->state, to); /* its file moved along */
		set_title(self, to);
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

static void pl_window_init(PlWindow *self)
{
	self->filter = PL_FILTER_ALL;
	self->state = pl_view_state_new();
	g_signal_connect(self->state, "changed", G_CALLBACK(on_transforms_changed), self);
	gtk_window_set_title(GTK_WINDOW(self), "PerfLens");
	gtk_window_set_default_size(GTK_WINDOW(self), 1400, 900);
	gtk_window_set_icon_name(GTK_WINDOW(self), "org.perflens.Viewer");
	g_action_map_add_action_entries(G_ACTION_MAP(self), win_actions, G_N_ELEMENTS(win_actions),
					self);
	self->loader = pl_load_job_new();
	g_signal_connect(self->loader, "finished", G_CALLBACK(load_done), self);
	g_signal_connect(self->loader, "progress", G_CALLBACK(on_load_progress), self);

	/* header */
	GtkWidget *hb = gtk_header_bar_new();
	GtkWidget *open = gtk_button_new_with_label("Open…");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(open), "win.open");
	gtk_widget_set_tooltip_text(open, "Open a .plens or perf.data file (Ctrl+O)");
	gtk_header_bar_pack_start(GTK_HEADER_BAR(hb), open);
	GtkWidget *sessb = gtk_button_new_with_label("Sessions");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(sessb), "win.sessions");
	gtk_widget_set_tooltip_text(sessb, "Every recorded session: open, rename, delete, export, "
					   "compare (Ctrl+L)");
	gtk_header_bar_pack_start(GTK_HEADER_BAR(hb), sessb);
	self->diff_btn = gtk_button_new_with_label("Diff…");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(self->diff_btn), "win.diff");
	gtk_widget_set_tooltip_text(self->diff_btn, "Compare the open session with another saved "
						    "one: pick it in the sessions list (Ctrl+D)");
	gtk_widget_set_visible(self->diff_btn, FALSE);
	GtkWidget *conn = gtk_button_new_with_label("Board…");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(conn), "win.connect");
	gtk_widget_set_tooltip_text(conn, "Connect to a board, choose what to record, control it");
	gtk_header_bar_pack_start(GTK_HEADER_BAR(hb), conn);
	gtk_header_bar_pack_start(GTK_HEADER_BAR(hb), self->diff_btn);
	self->views = GTK_STACK(gtk_stack_new());
	self->switcher = gtk_stack_switcher_new();
	gtk_stack_switcher_set_stack(GTK_STACK_SWITCHER(self->switcher), self->views);
	/* the views' switcher heads the profile page, where it has the
	 * window's whole width (nine views do not fit beside the buttons) */
	gtk_widget_set_halign(self->switcher, GTK_ALIGN_CENTER);
	gtk_widget_set_margin_top(self->switcher, 4);
	gtk_widget_set_margin_bottom(self->switcher, 4);
	self->back_btn = gtk_button_new_with_label("Back to the session");
	gtk_widget_set_tooltip_text(self->back_btn, "Show the open session's views again");
	gtk_widget_add_css_class(self->back_btn, "suggested-action");
	g_signal_connect(self->back_btn, "clicked", G_CALLBACK(on_back), self);
	gtk_widget_set_visible(self->back_btn, FALSE);
	gtk_header_bar_pack_end(GTK_HEADER_BAR(hb), self->back_btn);
	gtk_window_set_titlebar(GTK_WINDOW(self), hb);

	/* views */
	GtkWidget *flame = pl_flame_page_new();
	self->flame_page = PL_FLAME_PAGE(flame);
	self->flame = pl_flame_page_get_graph(PL_FLAME_PAGE(flame));
	self->search = pl_flame_page_get_search_entry(PL_FLAME_PAGE(flame));
	g_signal_connect(flame, "offcpu-toggled", G_CALLBACK(on_offcpu), self);
	g_signal_connect(flame, "short-names-toggled", G_CALLBACK(on_short_names), self);
	g_signal_connect(self->flame, "frame-menu", G_CALLBACK(on_frame_menu), self);
	gtk_stack_add_titled(self->views, flame, "flame", "Flame graph");
	gtk_stack_add_titled(self->views, functions_page(self), "functions", "Functions");
	self->source = PL_SOURCE_VIEW(pl_source_view_new());
	gtk_stack_add_titled(self->views, GTK_WIDGET(self->source), "source", "Source");
	self->chart = PL_FLAME_CHART(pl_flame_chart_new());
	g_signal_connect(self->chart, "frame-menu", G_CALLBACK(on_frame_menu), self);
	gtk_stack_add_titled(self->views, pl_ui_scrolled(GTK_WIDGET(self->chart), FALSE), "chart",
			     "Flame chart");
	self->counters = PL_COUNTERS_VIEW(pl_counters_view_new());
	gtk_stack_add_titled(self->views, GTK_WIDGET(self->counters), "counters", "Counters");
	self->heatmap = PL_HEATMAP_VIEW(pl_heatmap_view_new());
	gtk_stack_add_titled(self->views, GTK_WIDGET(self->heatmap), "heatmap", "Heatmap");
	g_signal_connect(self->heatmap, "range-selected", G_CALLBACK(on_view_range), self);
	self->health = PL_HEALTH_VIEW(pl_health_view_new());
	gtk_stack_add_titled(self->views, GTK_WIDGET(self->health), "health", "Health");
	self->io = PL_IO_VIEW(pl_io_view_new());
	gtk_stack_add_titled(self->views, GTK_WIDGET(self->io), "io", "I/O");
	g_signal_connect(self->io, "range-selected", G_CALLBACK(on_view_range), self);
	pl_io_view_set_profile(self->io, NULL); /* hidden until a session has slow calls */
	self->diff = pl_diff_controller_new();
	pl_diff_controller_set_view_state(self->diff, self->state);
	g_signal_connect(self->diff, "status", G_CALLBACK(on_diff_status), self);
	g_signal_connect(self->diff, "shown", G_CALLBACK(on_diff_shown), self);
	gtk_stack_add_titled(self->views, GTK_WIDGET(pl_diff_controller_get_view(self->diff)),
			     "diff", "Diff");
	self->coverage = PL_COVERAGE_VIEW(pl_coverage_view_new());
	g_signal_connect(self->coverage, "edit-settings", G_CALLBACK(on_edit_settings), self);
	gtk_stack_add_titled(self->views, GTK_WIDGET(self->coverage), "symbols", "Symbols");

	/* profile page: live bar, filter bar, timeline over the views */
	GtkWidget *prof = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_box_append(GTK_BOX(prof), self->switcher);
	self->origin = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_ellipsize(self->origin, PANGO_ELLIPSIZE_END);
	gtk_widget_add_css_class(GTK_WIDGET(self->origin), "accent");
	gtk_widget_set_visible(GTK_WIDGET(self->origin), FALSE);
	gtk_box_append(GTK_BOX(prof), GTK_WIDGET(self->origin));
	self->connect = PL_CONNECT_VIEW(pl_connect_view_new());
	self->live = pl_live_controller_new(self->connect);
	g_signal_connect(self->live, "new-profile", G_CALLBACK(on_live_profile), self);
	g_signal_connect(self->live, "started", G_CALLBACK(on_session_started), self);
	g_signal_connect(self->live, "ended", G_CALLBACK(on_session_ended), self);
	g_signal_connect(self->live, "refresh", G_CALLBACK(on_live_refresh), self);
	gtk_box_append(GTK_BOX(prof), pl_live_controller_get_bar(self->live));

	GtkWidget *fbar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	gtk_widget_set_margin_start(fbar, 8);
	gtk_widget_set_margin_end(fbar, 8);
	gtk_widget_set_margin_top(fbar, 2);
	gtk_widget_set_margin_bottom(fbar, 2);
	self->filter_label = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->filter_label, 0);
	gtk_label_set_ellipsize(self->filter_label, PANGO_ELLIPSIZE_END);
	gtk_widget_set_hexpand(GTK_WIDGET(self->filter_label), TRUE);
	gtk_box_append(GTK_BOX(fbar), GTK_WIDGET(self->filter_label));
	self->clear_filter = gtk_button_new_with_label("Show everything");
	g_signal_connect(self->clear_filter, "clicked", G_CALLBACK(on_clear_filter), self);
	gtk_box_append(GTK_BOX(fbar), self->clear_filter);
	gtk_box_append(GTK_BOX(prof), fbar);

	self->timeline = PL_THREAD_TIMELINE(pl_thread_timeline_new());
	gtk_box_insert_child_after(GTK_BOX(fbar), pl_pair_button_new(self->timeline),
				   GTK_WIDGET(self->filter_label));
	g_signal_connect(self->timeline, "range-changed", G_CALLBACK(on_view_range), self);
	g_signal_connect(self->timeline, "thread-selected", G_CALLBACK(on_thread), self);
	GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
	self->paned = paned;
	GtkWidget *tsw = pl_ui_scrolled(GTK_WIDGET(self->timeline), FALSE);
	gtk_widget_set_size_request(tsw, -1, 120);
	gtk_paned_set_start_child(GTK_PANED(paned), tsw);
	/* the transforms' breadcrumbs head the views they shape */
	GtkWidget *vbox = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	self->tx_bar = pl_transform_bar_new(self->state);
	gtk_box_append(GTK_BOX(vbox), self->tx_bar);
	gtk_box_append(GTK_BOX(vbox), GTK_WIDGET(self->views));
	gtk_paned_set_end_child(GTK_PANED(paned), vbox);
	gtk_paned_set_position(GTK_PANED(paned), 230);
	gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
	gtk_widget_set_vexpand(paned, TRUE);
	gtk_box_append(GTK_BOX(prof), paned);
	self->status = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->status, 0);
	gtk_label_set_ellipsize(self->status, PANGO_ELLIPSIZE_MIDDLE);
	gtk_widget_set_margin_start(GTK_WIDGET(self->status), 8);
	gtk_widget_set_margin_top(GTK_WIDGET(self->status), 2);
	gtk_widget_set_margin_bottom(GTK_WIDGET(self->status), 2);
	gtk_widget_add_css_class(GTK_WIDGET(self->status), "dim-label");
	gtk_box_append(GTK_BOX(prof), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
	gtk_box_append(GTK_BOX(prof), GTK_WIDGET(self->status));

	g_signal_connect(self->connect, "disconnected", G_CALLBACK(on_connect_disconnected), self);
	g_signal_connect(self->connect, "edit-symbols", G_CALLBACK(on_edit_settings), self);

	self->sessions = PL_SESSIONS_VIEW(pl_sessions_view_new());
	g_signal_connect(self->sessions, "open-session", G_CALLBACK(on_open_session), self);
	g_signal_connect(self->sessions, "diff-session", G_CALLBACK(on_diff_session), self);
	g_signal_connect(self->sessions, "session-renamed", G_CALLBACK(on_session_renamed), self);

	self->main_stack = GTK_STACK(gtk_stack_new());
	gtk_stack_add_named(self->main_stack, pl_welcome_page_new(&self->empty_hint), "empty");
	gtk_stack_add_named(self->main_stack, loading_page(self), "loading");
	gtk_stack_add_named(self->main_stack, GTK_WIDGET(self->connect), "connect");
	gtk_stack_add_named(self->main_stack, GTK_WIDGET(self->sessions), "sessions");
	gtk_stack_add_named(self->main_stack, prof, "profile");
	gtk_stack_set_visible_child_name(self->main_stack, "empty");
	g_signal_connect(self->main_stack, "notify::visible-child", G_CALLBACK(on_main_page), self);
	gtk_window_set_child(GTK_WINDOW(self), GTK_WIDGET(self->main_stack));

	GtkDropTarget *drop = gtk_drop_target_new(G_TYPE_FILE, GDK_ACTION_COPY);
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
	update_filter_label(self);
}
