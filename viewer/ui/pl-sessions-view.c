/* pl-sessions-view.c — the saved sessions (see the header). */
#include "pl-sessions-view.h"

#include <string.h>

#include "pl-export-table.h"
#include "pl-saved-session-export.h"
#include "pl-target-settings.h"
#include "pl-ui-util.h"

/* ─── rows ───────────────────────────────────────────────────────────── */

#define PL_TYPE_SESSION_ITEM (pl_session_item_get_type())
G_DECLARE_FINAL_TYPE(PlSessionItem, pl_session_item, PL, SESSION_ITEM, GObject)
struct _PlSessionItem {
	GObject parent_instance;
	PlSessionInfo *info;
	gboolean scanning;
};
G_DEFINE_FINAL_TYPE(PlSessionItem, pl_session_item, G_TYPE_OBJECT)

enum { PROP_0, PROP_DURATION, PROP_SAMPLES, N_PROPS };
static GParamSpec *item_props[N_PROPS];

static char *item_duration(PlSessionItem *it)
{
	if (it->info->error)
		return g_strdup("");
	if (!it->info->have_totals)
		return g_strdup(it->scanning ? "reading…" : "…");
	return pl_ui_format_length(it->info->duration_s, 1);
}

static char *item_samples(PlSessionItem *it)
{
	if (it->info->error || !it->info->have_totals)
		return g_strdup("");
	return g_strdup_printf("%" G_GUINT64_FORMAT, it->info->samples);
}

static void item_get_property(GObject *o, guint id, GValue *v, GParamSpec *ps)
{
	PlSessionItem *it = PL_SESSION_ITEM(o);
	if (id == PROP_DURATION)
		g_value_take_string(v, item_duration(it));
	else if (id == PROP_SAMPLES)
		g_value_take_string(v, item_samples(it));
}

static void pl_session_item_finalize(GObject *o)
{
	pl_session_info_free(PL_SESSION_ITEM(o)->info);
	G_OBJECT_CLASS(pl_session_item_parent_class)->finalize(o);
}

static void pl_session_item_class_init(PlSessionItemClass *k)
{
	G_OBJECT_CLASS(k)->finalize = pl_session_item_finalize;
	G_OBJECT_CLASS(k)->get_property = item_get_property;
	item_props[PROP_DURATION] = g_param_spec_string("duration", NULL, NULL, NULL,
							G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	item_props[PROP_SAMPLES] = g_param_spec_string("samples", NULL, NULL, NULL,
						       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(G_OBJECT_CLASS(k), N_PROPS, item_props);
}

static void pl_session_item_init(PlSessionItem *it)
{
}

static void item_totals_changed(PlSessionItem *it)
{
	g_object_notify_by_pspec(G_OBJECT(it), item_props[PROP_DURATION]);
	g_object_notify_by_pspec(G_OBJECT(it), item_props[PROP_SAMPLES]);
}

/* ─── the view ───────────────────────────────────────────────────────── */

struct _PlSessionsView {
	GtkWidget parent_instance;
	GtkWidget *box;
	GListStore *store;
	GtkSingleSelection *sel;
	GtkColumnView *columns;
	GtkLabel *status;
	GtkWidget *open_btn, *rename_btn, *delete_btn, *export_btn, *diff_btn;
	GtkStack *body; /* "list", "empty" */
	gboolean can_diff;

	GCancellable *cancel; /* listing and scanning */
	gboolean listing, scanning, exporting;
	gint64 list_time;
	char *status_text;
	char *export_error;
	char *recording_path; /* being written: not renamed or deleted */
};

G_DEFINE_FINAL_TYPE(PlSessionsView, pl_sessions_view, GTK_TYPE_WIDGET)

enum { SIG_OPEN, SIG_DIFF, SIG_RENAMED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void set_status(PlSessionsView *self, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void set_status(PlSessionsView *self, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_free(self->status_text);
	self->status_text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	gtk_label_set_text(self->status, self->status_text);
}

static PlSessionItem *item_at(PlSessionsView *self, guint i)
{
	if (i >= g_list_model_get_n_items(G_LIST_MODEL(self->store)))
		return NULL;
	PlSessionItem *it = g_list_model_get_item(G_LIST_MODEL(self->store), i);
	g_object_unref(it); /* the store keeps it */
	return it;
}

static PlSessionItem *selected(PlSessionsView *self)
{
	return gtk_single_selection_get_selected_item(self->sel);
}

static void update_buttons(PlSessionsView *self)
{
	PlSessionItem *it = selected(self);
	gboolean ok = it && !it->info->error;
	gtk_widget_set_sensitive(self->open_btn, ok);
	gtk_widget_set_sensitive(self->rename_btn, it != NULL);
	gtk_widget_set_sensitive(self->delete_btn, it != NULL);
	gtk_widget_set_sensitive(self->export_btn, ok && !self->exporting);
	gtk_widget_set_visible(self->diff_btn, self->can_diff);
	gtk_widget_set_sensitive(self->diff_btn, ok);
}

/* ─── scanning for duration and samples (worker, one file at a time) ── */

static void scan_next(PlSessionsView *self);

static void scan_thread(GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
	PlSessionInfo *tmp = g_new0(PlSessionInfo, 1);
	tmp->path = g_strdup(data);
	if (!pl_session_info_scan(tmp, cancel)) {
		pl_session_info_free(tmp);
		g_task_return_pointer(task, NULL, NULL);
		return;
	}
	g_task_return_pointer(task, tmp, (GDestroyNotify)pl_session_info_free);
}

static void scan_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlSessionItem *it = data;
	PlSessionInfo *tmp = g_task_propagate_pointer(G_TASK(res), NULL);
	it->scanning = FALSE;
	if (tmp) {
		it->info->have_totals = TRUE;
		it->info->samples = tmp->samples;
		it->info->duration_s = tmp->duration_s;
		g_free(it->info->end);
		it->info->end = g_strdup(tmp->end);
		pl_session_info_free(tmp);
	} else {
		it->info->have_totals = TRUE; /* unreadable past its head: do not retry */
	}
	item_totals_changed(it);
	g_object_unref(it);
	if (!PL_IS_SESSIONS_VIEW(src))
		return;
	PlSessionsView *self = PL_SESSIONS_VIEW(src);
	self->scanning = FALSE;
	if (!g_cancellable_is_cancelled(self->cancel))
		scan_next(self);
}

static void scan_next(PlSessionsView *self)
{
	if (self->scanning)
		return;
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->store));
	for (guint i = 0; i < n; i++) {
		PlSessionItem *it = item_at(self, i);
		/* the recording one grows: its figures come when it ends */
		if (it->info->have_totals || it->info->error ||
		    !g_strcmp0(it->info->path, self->recording_path))
			continue;
		self->scanning = TRUE;
		it->scanning = TRUE;
		item_totals_changed(it);
		GTask *task = g_task_new(self, self->cancel, scan_done, g_object_ref(it));
		g_task_set_task_data(task, g_strdup(it->info->path), g_free);
		g_task_run_in_thread(task, scan_thread);
		g_object_unref(task);
		return;
	}
}

/* ─── listing (worker) ───────────────────────────────────────────────── */

typedef struct {
	GPtrArray *infos;
	gint64 us;
} ListResult;

static void list_result_free(gpointer p)
{
	ListResult *r = p;
	g_ptr_array_unref(r->infos);
	g_free(r);
}

static void list_thread(GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
	ListResult *r = g_new0(ListResult, 1);
	gint64 t0 = g_get_monotonic_time();
	r->infos = pl_sessions_list(NULL);
	r->us = g_get_monotonic_time() - t0;
	g_task_return_pointer(task, r, list_result_free);
}

static void list_done(GObject *src, GAsyncResult *res, gpointer data)
{
	ListResult *r = g_task_propagate_pointer(G_TASK(res), NULL);
	if (!r)
		return;
	if (!PL_IS_SESSIONS_VIEW(src)) {
		list_result_free(r);
		return;
	}
	PlSessionsView *self = PL_SESSIONS_VIEW(src);
	self->listing = FALSE;
	self->list_time = r->us;
	g_autofree char *keep = NULL;
	PlSessionItem *was = selected(self);
	if (was)
		keep = g_strdup(was->info->path);
	g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_object_unref);
	guint select = GTK_INVALID_LIST_POSITION;
	/* the items take the infos, in the list's order (newest first) */
	g_ptr_array_set_free_func(r->infos, NULL);
	for (guint i = 0; i < r->infos->len; i++) {
		PlSessionItem *it = g_object_new(PL_TYPE_SESSION_ITEM, NULL);
		it->info = r->infos->pdata[i];
		g_ptr_array_add(items, it);
	}
	list_result_free(r);
	g_list_store_splice(self->store, 0, g_list_model_get_n_items(G_LIST_MODEL(self->store)),
			    items->pdata, items->len);
	for (guint i = 0; keep && i < items->len; i++)
		if (!strcmp(((PlSessionItem *)items->pdata[i])->info->path, keep))
			select = i;
	gtk_single_selection_set_selected(self->sel, select);
	g_autofree char *dir = pl_sessions_dir();
	gtk_stack_set_visible_child_name(self->body, items->len ? "list" : "empty");
	set_status(self, "%u session%s in %s (listed in %.0f ms)", items->len,
		   items->len == 1 ? "" : "s", dir,
		   self->list_time / 1000.0);
	update_buttons(self);
	scan_next(self);
}

void pl_sessions_view_reload(PlSessionsView *self)
{
	if (self->listing)
		return;
	if (self->cancel)
		g_cancellable_cancel(self->cancel);
	g_clear_object(&self->cancel);
	self->cancel = g_cancellable_new();
	self->listing = TRUE;
	self->scanning = FALSE; /* a running scan finishes on its own, its result kept */
	GTask *task = g_task_new(self, NULL, list_done, NULL);
	g_task_run_in_thread(task, list_thread);
	g_object_unref(task);
}

/* ─── actions ────────────────────────────────────────────────────────── */

/* Session i, unless it is missing or still being recorded (which cannot
 * be renamed or deleted: say so, naming the action). */
static PlSessionItem *settled_item(PlSessionsView *self, guint i, const char *verb,
				   GError **error)
{
	PlSessionItem *it = item_at(self, i);
	if (!it) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No such session");
		return NULL;
	}
	if (!g_strcmp0(it->info->path, self->recording_path)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_BUSY,
			    "This session is still recording: stop it first, then %s it", verb);
		return NULL;
	}
	return it;
}

gboolean pl_sessions_view_rename(PlSessionsView *self, guint i, const char *new_name,
				 GError **error)
{
	PlSessionItem *it = settled_item(self, i, "rename", error);
	if (!it)
		return FALSE;
	g_autofree char *np = NULL;
	if (!pl_session_rename(it->info->path, new_name, &np, error))
		return FALSE;
	g_signal_emit(self, signals[SIG_RENAMED], 0, it->info->path, np);
	g_autofree char *base = g_path_get_basename(np);
	g_free(it->info->path);
	it->info->path = g_steal_pointer(&np);
	g_free(it->info->name);
	it->info->name = g_strndup(base, strlen(base) - strlen(".plens"));
	/* rebind the row */
	g_object_ref(it);
	g_list_store_splice(self->store, i, 1, (gpointer *)&it, 1);
	g_object_unref(it);
	gtk_single_selection_set_selected(self->sel, i);
	set_status(self, "Renamed to %s", base);
	return TRUE;
}

gboolean pl_sessions_view_delete(PlSessionsView *self, guint i, GError **error)
{
	PlSessionItem *it = settled_item(self, i, "delete", error);
	if (!it)
		return FALSE;
	if (!pl_session_delete(it->info->path, error))
		return FALSE;
	set_status(self, "Deleted %s", it->info->name);
	g_list_store_remove(self->store, i);
	if (!g_list_model_get_n_items(G_LIST_MODEL(self->store)))
		gtk_stack_set_visible_child_name(self->body, "empty");
	update_buttons(self);
	return TRUE;
}

typedef struct {
	char *in, *format, *out;
} ExportJob;

static void export_job_free(gpointer p)
{
	ExportJob *j = p;
	g_free(j->in);
	g_free(j->format);
	g_free(j->out);
	g_free(j);
}

static void export_thread(GTask *task, gpointer src, gpointer data, GCancellable *cancel)
{
	ExportJob *j = data;
	GError *error = NULL;
	PlLoadParams lp; /* symbolized with the board's settings, as the app opens it */
	pl_target_load_params(&lp, cancel);
	if (pl_saved_session_export(j->in, j->format, j->out, &lp, &error))
		g_task_return_boolean(task, TRUE);
	else
		g_task_return_error(task, error);
}

static void export_done(GObject *src, GAsyncResult *res, gpointer data)
{
	if (!PL_IS_SESSIONS_VIEW(src))
		return;
	PlSessionsView *self = PL_SESSIONS_VIEW(src);
	ExportJob *j = g_task_get_task_data(G_TASK(res));
	g_autoptr(GError) error = NULL;
	self->exporting = FALSE;
	g_clear_pointer(&self->export_error, g_free);
	if (!g_task_propagate_boolean(G_TASK(res), &error)) {
		self->export_error = g_strdup(error->message);
		set_status(self, "Export failed: %s", error->message);
	} else {
		set_status(self, "Exported as %s (%s)", j->out, j->format);
	}
	update_buttons(self);
}

void pl_sessions_view_export(PlSessionsView *self, guint i, const char *format,
			     const char *out)
{
	PlSessionItem *it = item_at(self, i);
	if (!it || self->exporting)
		return;
	self->exporting = TRUE;
	g_clear_pointer(&self->export_error, g_free);
	set_status(self, "Exporting %s as %s…", it->info->name, format);
	ExportJob *j = g_new0(ExportJob, 1);
	j->in = g_strdup(it->info->path);
	j->format = g_strdup(format);
	j->out = g_strdup(out);
	GTask *task = g_task_new(self, NULL, export_done, NULL);
	g_task_set_task_data(task, j, export_job_free);
	g_task_run_in_thread(task, export_thread);
	g_object_unref(task);
	update_buttons(self);
}

static void on_open(GtkButton *b, PlSessionsView *self)
{
	PlSessionItem *it = selected(self);
	if (it && !it->info->error)
		g_signal_emit(self, signals[SIG_OPEN], 0, it->info->path);
}

static void on_diff(GtkButton *b, PlSessionsView *self)
{
	PlSessionItem *it = selected(self);
	if (it && !it->info->error)
		g_signal_emit(self, signals[SIG_DIFF], 0, it->info->path);
}

static void on_activate(GtkColumnView *v, guint pos, PlSessionsView *self)
{
	gtk_single_selection_set_selected(self->sel, pos);
	on_open(NULL, self);
}

static void on_refresh(GtkButton *b, PlSessionsView *self)
{
	pl_sessions_view_reload(self);
}

/* Rename: a small modal window with the name to edit. */
static void on_rename_ok(GtkWidget *w, PlSessionsView *self)
{
	GtkWindow *dlg = GTK_WINDOW(gtk_widget_get_root(w));
	GtkEditable *e = g_object_get_data(G_OBJECT(dlg), "entry");
	GtkLabel *err = g_object_get_data(G_OBJECT(dlg), "error");
	g_autoptr(GError) error = NULL;
	guint i = gtk_single_selection_get_selected(self->sel);
	if (!pl_sessions_view_rename(self, i, gtk_editable_get_text(e), &error)) {
		gtk_label_set_text(err, error->message);
		gtk_widget_set_visible(GTK_WIDGET(err), TRUE);
		return;
	}
	gtk_window_destroy(dlg);
}

static void on_dialog_cancel(GtkWidget *w, gpointer data)
{
	gtk_window_destroy(GTK_WINDOW(gtk_widget_get_root(w)));
}

/* A small modal window from pl-session-dialog.ui: message, the entry
 * (shown with entry_text), an error line, Cancel and ok_label.  Its
 * "entry" and "error" are kept as data on the window for ok's handler. */
static GtkWindow *small_dialog(PlSessionsView *self, const char *title, const char *message,
			       const char *entry_text, const char *ok_label, gboolean destructive,
			       GCallback ok)
{
	g_autoptr(GtkBuilder) b =
		gtk_builder_new_from_resource("/org/perflens/Viewer/pl-session-dialog.ui");
	GtkWindow *dlg = GTK_WINDOW(gtk_builder_get_object(b, "dialog"));
	gtk_window_set_title(dlg, title);
	GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(self));
	if (GTK_IS_WINDOW(root))
		gtk_window_set_transient_for(dlg, GTK_WINDOW(root));
	gtk_label_set_text(GTK_LABEL(gtk_builder_get_object(b, "message")), message);
	GtkWidget *entry = GTK_WIDGET(gtk_builder_get_object(b, "entry"));
	if (entry_text) {
		gtk_editable_set_text(GTK_EDITABLE(entry), entry_text);
		gtk_widget_set_visible(entry, TRUE);
	}
	g_object_set_data(G_OBJECT(dlg), "entry", entry);
	g_object_set_data(G_OBJECT(dlg), "error", gtk_builder_get_object(b, "error"));
	g_signal_connect(gtk_builder_get_object(b, "cancel"), "clicked",
			 G_CALLBACK(on_dialog_cancel), NULL);
	GtkWidget *okb = GTK_WIDGET(gtk_builder_get_object(b, "ok"));
	gtk_button_set_label(GTK_BUTTON(okb), ok_label);
	gtk_widget_add_css_class(okb, destructive ? "destructive-action" : "suggested-action");
	g_signal_connect(okb, "clicked", ok, self);
	return dlg;
}

static void on_rename(GtkButton *b, PlSessionsView *self)
{
	PlSessionItem *it = selected(self);
	if (!it)
		return;
	GtkWindow *dlg = small_dialog(self, "Rename session", "New name of the session file:",
				      it->info->name, "_Rename", FALSE, G_CALLBACK(on_rename_ok));
	gtk_window_present(dlg);
}

static void on_delete_ok(GtkWidget *w, PlSessionsView *self)
{
	GtkWindow *dlg = GTK_WINDOW(gtk_widget_get_root(w));
	GtkLabel *err = g_object_get_data(G_OBJECT(dlg), "error");
	g_autoptr(GError) error = NULL;
	if (!pl_sessions_view_delete(self, gtk_single_selection_get_selected(self->sel), &error)) {
		gtk_label_set_text(err, error->message);
		gtk_widget_set_visible(GTK_WIDGET(err), TRUE);
		return;
	}
	gtk_window_destroy(dlg);
}

static void on_delete(GtkButton *b, PlSessionsView *self)
{
	PlSessionItem *it = selected(self);
	if (!it)
		return;
	g_autofree char *msg = g_strdup_printf(
		"Delete the session “%s”?\n\nThe file %s is removed from the disk; this cannot be "
		"undone.",
		it->info->name, it->info->path);
	GtkWindow *dlg = small_dialog(self, "Delete session", msg, NULL, "_Delete", TRUE,
				      G_CALLBACK(on_delete_ok));
	gtk_window_present(dlg);
}

static void on_export_response(GtkNativeDialog *d, int response, PlSessionsView *self)
{
	if (response == GTK_RESPONSE_ACCEPT) {
		G_GNUC_BEGIN_IGNORE_DEPRECATIONS
		g_autoptr(GFile) f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
		const char *choice = gtk_file_chooser_get_choice(GTK_FILE_CHOOSER(d), "format");
		G_GNUC_END_IGNORE_DEPRECATIONS
		g_autofree char *path = g_file_get_path(f);
		/* the suffix typed wins over the choice left at its default */
		const PlExporter *e = path ? pl_export_for_path(path) : NULL;
		const char *format = e ? e->name : choice ? choice : "pprof";
		if (path)
			pl_sessions_view_export(self, gtk_single_selection_get_selected(self->sel),
						format, path);
	}
	g_object_unref(d);
}

static void on_export(GtkButton *b, PlSessionsView *self)
{
	PlSessionItem *it = selected(self);
	if (!it)
		return;
	GtkRoot *root = gtk_widget_get_root(GTK_WIDGET(self));
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	GtkFileChooserNative *fc = gtk_file_chooser_native_new(
		"Export session", GTK_IS_WINDOW(root) ? GTK_WINDOW(root) : NULL,
		GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
	/* the formats of the export table, in its order */
	g_autoptr(GPtrArray) ids = g_ptr_array_new();
	g_autoptr(GPtrArray) labels = g_ptr_array_new();
	for (guint i = 0; i < pl_export_n_formats(); i++) {
		g_ptr_array_add(ids, (gpointer)pl_export_nth(i)->name);
		g_ptr_array_add(labels, (gpointer)pl_export_nth(i)->label);
	}
	g_ptr_array_add(ids, NULL);
	g_ptr_array_add(labels, NULL);
	gtk_file_chooser_add_choice(GTK_FILE_CHOOSER(fc), "format", "Format",
				    (const char **)ids->pdata, (const char **)labels->pdata);
	const PlExporter *first = pl_export_find("pprof"); /* what most tools read */
	gtk_file_chooser_set_choice(GTK_FILE_CHOOSER(fc), "format", first->name);
	g_autofree char *name = g_strconcat(it->info->name, first->suffix, NULL);
	gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(fc), name);
	G_GNUC_END_IGNORE_DEPRECATIONS
	g_signal_connect(fc, "response", G_CALLBACK(on_export_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

/* ─── columns ────────────────────────────────────────────────────────── */

enum { C_DATE, C_TARGET, C_PROCESS, C_DURATION, C_SAMPLES, C_SIZE, C_NAME };

static void col_setup(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	int c = GPOINTER_TO_INT(col);
	GtkWidget *l = gtk_label_new(NULL);
	gboolean num = c == C_DURATION || c == C_SAMPLES || c == C_SIZE;
	gtk_label_set_xalign(GTK_LABEL(l), num ? 1 : 0);
	if (num)
		gtk_widget_add_css_class(l, "numeric");
	gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_END);
	gtk_list_item_set_child(li, l);
}

static void col_bind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	PlSessionItem *it = gtk_list_item_get_item(li);
	GtkLabel *l = GTK_LABEL(gtk_list_item_get_child(li));
	PlSessionInfo *in = it->info;
	int c = GPOINTER_TO_INT(col);
	gtk_widget_set_tooltip_text(GTK_WIDGET(l), NULL);
	gtk_widget_remove_css_class(GTK_WIDGET(l), "error");
	switch (c) {
	case C_DATE: {
		g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local(in->date);
		g_autofree char *s = dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M") : g_strdup("?");
		gtk_label_set_text(l, s);
		break;
	}
	case C_TARGET: {
		g_autofree char *s =
			in->peer ? g_strdup_printf("%s · %s", in->hostname ? in->hostname : "?", in->peer)
				 : g_strdup(in->hostname ? in->hostname : "?");
		gtk_label_set_text(l, s);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), s);
		break;
	}
	case C_PROCESS:
		if (in->error) {
			gtk_label_set_text(l, in->error);
			gtk_widget_add_css_class(GTK_WIDGET(l), "error");
		} else {
			gtk_label_set_text(l, in->process ? in->process : "?");
		}
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), in->error ? in->error : in->process);
		break;
	case C_DURATION:
	case C_SAMPLES: {
		GBinding *b = g_object_bind_property(it, c == C_DURATION ? "duration" : "samples", l,
						     "label", G_BINDING_SYNC_CREATE);
		g_object_set_data(G_OBJECT(li), "binding", b);
		if (c == C_DURATION && in->end)
			gtk_widget_set_tooltip_text(GTK_WIDGET(l), in->end);
		break;
	}
	case C_SIZE: {
		g_autofree char *s = g_format_size(in->size);
		gtk_label_set_text(l, s);
		break;
	}
	case C_NAME:
		gtk_label_set_text(l, in->name);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), in->path);
		break;
	}
}

static void col_unbind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	GBinding *b = g_object_get_data(G_OBJECT(li), "binding");
	if (b) {
		g_binding_unbind(b);
		g_object_set_data(G_OBJECT(li), "binding", NULL);
	}
}

static void add_column(PlSessionsView *self, const char *title, int col, gboolean expand,
		       int width)
{
	GtkListItemFactory *f = gtk_signal_list_item_factory_new();
	g_signal_connect(f, "setup", G_CALLBACK(col_setup), GINT_TO_POINTER(col));
	g_signal_connect(f, "bind", G_CALLBACK(col_bind), GINT_TO_POINTER(col));
	g_signal_connect(f, "unbind", G_CALLBACK(col_unbind), GINT_TO_POINTER(col));
	GtkColumnViewColumn *c = gtk_column_view_column_new(title, f);
	gtk_column_view_column_set_expand(c, expand);
	gtk_column_view_column_set_resizable(c, TRUE);
	if (width > 0)
		gtk_column_view_column_set_fixed_width(c, width);
	gtk_column_view_append_column(self->columns, c);
	g_object_unref(c);
}

/* ─── public ─────────────────────────────────────────────────────────── */

GtkWidget *pl_sessions_view_new(void)
{
	return g_object_new(PL_TYPE_SESSIONS_VIEW, NULL);
}

void pl_sessions_view_set_recording(PlSessionsView *self, const char *path)
{
	g_free(self->recording_path);
	self->recording_path = g_strdup(path);
}

void pl_sessions_view_set_can_diff(PlSessionsView *self, gboolean can)
{
	self->can_diff = can;
	update_buttons(self);
}

gboolean pl_sessions_view_is_busy(PlSessionsView *self)
{
	return self->listing || self->scanning || self->exporting;
}

guint pl_sessions_view_get_n_sessions(PlSessionsView *self)
{
	return g_list_model_get_n_items(G_LIST_MODEL(self->store));
}

const PlSessionInfo *pl_sessions_view_get_info(PlSessionsView *self, guint i)
{
	PlSessionItem *it = item_at(self, i);
	return it ? it->info : NULL;
}

guint pl_sessions_view_find(PlSessionsView *self, const char *text)
{
	guint n = pl_sessions_view_get_n_sessions(self);
	if (text[0] == '#') {
		guint64 i = g_ascii_strtoull(text + 1, NULL, 10);
		return i < n ? (guint)i : G_MAXUINT;
	}
	gsize len = strlen(text);
	gboolean anchored = len > 0 && text[len - 1] == '$';
	g_autofree char *t = anchored ? g_strndup(text, len - 1) : g_strdup(text);
	for (guint i = 0; i < n; i++) {
		const char *name = item_at(self, i)->info->name;
		if (anchored ? g_str_has_suffix(name, t) : strstr(name, t) != NULL)
			return i;
	}
	return G_MAXUINT;
}

void pl_sessions_view_select(PlSessionsView *self, guint i)
{
	gtk_single_selection_set_selected(self->sel, i);
	update_buttons(self);
}

const char *pl_sessions_view_get_export_error(PlSessionsView *self)
{
	return self->export_error;
}

const char *pl_sessions_view_get_status(PlSessionsView *self)
{
	return self->status_text;
}

gint64 pl_sessions_view_get_list_time(PlSessionsView *self)
{
	return self->list_time;
}

static void on_selection(GtkSelectionModel *m, guint pos, guint n, PlSessionsView *self)
{
	update_buttons(self);
}

static void pl_sessions_view_dispose(GObject *obj)
{
	PlSessionsView *self = PL_SESSIONS_VIEW(obj);
	if (self->cancel)
		g_cancellable_cancel(self->cancel);
	g_clear_object(&self->cancel);
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_SESSIONS_VIEW);
	g_clear_object(&self->sel);
	g_clear_object(&self->store);
	g_clear_pointer(&self->status_text, g_free);
	g_clear_pointer(&self->export_error, g_free);
	g_clear_pointer(&self->recording_path, g_free);
	G_OBJECT_CLASS(pl_sessions_view_parent_class)->dispose(obj);
}

static void pl_sessions_view_class_init(PlSessionsViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_sessions_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-sessions-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlSessionsView, name)
	CHILD(box);
	CHILD(open_btn);
	CHILD(diff_btn);
	CHILD(rename_btn);
	CHILD(export_btn);
	CHILD(delete_btn);
	CHILD(columns);
	CHILD(body);
	CHILD(status);
#undef CHILD
#define CALLBACK(name) gtk_widget_class_bind_template_callback(wc, name)
	CALLBACK(on_open);
	CALLBACK(on_diff);
	CALLBACK(on_rename);
	CALLBACK(on_export);
	CALLBACK(on_delete);
	CALLBACK(on_refresh);
	CALLBACK(on_activate);
#undef CALLBACK
	GType t = G_TYPE_FROM_CLASS(klass);
	signals[SIG_OPEN] = g_signal_new("open-session", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					 G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_RENAMED] = g_signal_new("session-renamed", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
					    NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
	signals[SIG_DIFF] = g_signal_new("diff-session", t, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
					 G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void pl_sessions_view_init(PlSessionsView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	self->store = g_list_store_new(PL_TYPE_SESSION_ITEM);
	self->sel = gtk_single_selection_new(G_LIST_MODEL(g_object_ref(self->store)));
	gtk_single_selection_set_autoselect(self->sel, FALSE);
	gtk_single_selection_set_can_unselect(self->sel, TRUE);
	g_signal_connect(self->sel, "selection-changed", G_CALLBACK(on_selection), self);
	/* the column view holds its own reference */
	gtk_column_view_set_model(self->columns, GTK_SELECTION_MODEL(self->sel));
	add_column(self, "Date", C_DATE, FALSE, 140);
	add_column(self, "Target", C_TARGET, FALSE, 220);
	add_column(self, "Process", C_PROCESS, FALSE, 220);
	add_column(self, "Duration", C_DURATION, FALSE, 100);
	add_column(self, "Samples", C_SAMPLES, FALSE, 100);
	add_column(self, "Size", C_SIZE, FALSE, 90);
	add_column(self, "File", C_NAME, TRUE, -1);
	update_buttons(self);
}
