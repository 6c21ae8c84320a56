/* pl-flight-dialog.c — "Save now" for a flight recorder (see the
 * header); layout in pl-flight-dialog.ui. */
#include "pl-flight-dialog.h"

#include <string.h>

#include "pl-agent-connect.h" /* PL_DEFAULT_PORT */
#include "pl-flight-save.h"
#include "pl-sessions-index.h"

struct _PlFlightDialog {
	GtkWindow parent_instance;
	GtkEntry *target;
	GtkWidget *token; /* a GtkPasswordEntry */
	GtkLabel *folder_label, *status, *error;
	GtkSpinner *spinner;
	GtkWidget *save_btn, *folder_btn;
	char *folder;
	char *saved_path, *last_error;
	char *saved_target; /* the target of the last snapshot saved */
	char *asked;	    /* the target being connected to */
	gboolean busy;
};

G_DEFINE_FINAL_TYPE(PlFlightDialog, pl_flight_dialog, GTK_TYPE_WINDOW)

enum { SIG_SAVED, SIG_CONNECTING, N_SIGNALS };
static guint signals[N_SIGNALS];

static void show_error(PlFlightDialog *self, const char *text)
{
	g_free(self->last_error);
	self->last_error = g_strdup(text);
	gtk_label_set_text(self->error, text ? text : "");
	gtk_widget_set_visible(GTK_WIDGET(self->error), text != NULL);
}

static void set_busy(PlFlightDialog *self, gboolean busy, const char *status)
{
	self->busy = busy;
	gtk_spinner_set_spinning(self->spinner, busy);
	gtk_widget_set_sensitive(self->save_btn, !busy);
	gtk_label_set_text(self->status, status ? status : "");
}

static char *target_text(PlFlightDialog *self)
{
	return g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(self->target))));
}

static void save_done(GObject *src, GAsyncResult *res, gpointer data)
{
	PlFlightDialog *self = PL_FLIGHT_DIALOG(src);
	g_autofree char *board = NULL, *message = NULL;
	guint64 size = 0;
	g_autofree char *path = pl_flight_save_finish(res, &board, &size, &message);
	if (!path) {
		set_busy(self, FALSE, "Not saved");
		show_error(self, message);
		return;
	}
	g_free(self->saved_path);
	self->saved_path = g_strdup(path);
	g_free(self->saved_target);
	self->saved_target = target_text(self);
	g_autofree char *bytes = g_format_size(size);
	g_autofree char *status =
		g_strdup_printf("Saved %s (%s; the board keeps %s) — opening it", path, bytes,
				board && *board ? board : "its copy");
	set_busy(self, FALSE, status);
	g_signal_emit(self, signals[SIG_SAVED], 0, path);
}

static void on_connected(GObject *src, const char *peer)
{
	PlFlightDialog *self = PL_FLIGHT_DIALOG(src);
	if (!self->busy)
		return;
	g_autofree char *status = g_strdup_printf(
		"Connected to %s — the flight recorder saves its ring and sends it…", peer);
	set_busy(self, TRUE, status);
}

gboolean pl_flight_dialog_save(PlFlightDialog *self)
{
	if (self->busy)
		return FALSE;
	g_autofree char *target = target_text(self);
	if (!*target) {
		show_error(self, "Type where the flight recorder listens: HOST:PORT, the board "
				 "and the --port of perflens-agent --flight SECONDS --port N.");
		gtk_widget_grab_focus(GTK_WIDGET(self->target));
		return FALSE;
	}
	if (!strchr(target, ':')) {
		/* the agent's default port, as the Board page adds it */
		g_autofree char *t = g_strdup_printf("%s:%d", target, PL_DEFAULT_PORT);
		g_free(target);
		target = g_steal_pointer(&t);
	}
	show_error(self, NULL);
	g_autofree char *status = g_strdup_printf("Connecting to %s…", target);
	set_busy(self, TRUE, status);
	g_free(self->asked);
	self->asked = g_steal_pointer(&target);
	gboolean released = FALSE;
	g_signal_emit(self, signals[SIG_CONNECTING], 0, self->asked, &released);
	/* the connect's words, on failure, speak of the Board page's fields;
	 * they are the same here */
	pl_flight_save_async(self->asked, gtk_editable_get_text(GTK_EDITABLE(self->token)),
			     released, self->folder, PL_FLIGHT_SAVE_TIMEOUT_MS, on_connected, self,
			     save_done, NULL);
	return TRUE;
}

static void on_save(GtkButton *b, PlFlightDialog *self)
{
	pl_flight_dialog_save(self);
}

static void on_close(GtkButton *b, PlFlightDialog *self)
{
	gtk_window_close(GTK_WINDOW(self));
}

void pl_flight_dialog_set_folder(PlFlightDialog *self, const char *dir)
{
	if (!dir)
		return;
	g_free(self->folder);
	self->folder = g_strdup(dir);
	gtk_label_set_text(self->folder_label, dir);
}

static void on_folder_response(GtkNativeDialog *d, int response, PlFlightDialog *self)
{
	if (response == GTK_RESPONSE_ACCEPT) {
		G_GNUC_BEGIN_IGNORE_DEPRECATIONS
		g_autoptr(GFile) f = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(d));
		G_GNUC_END_IGNORE_DEPRECATIONS
		g_autofree char *path = f ? g_file_get_path(f) : NULL;
		pl_flight_dialog_set_folder(self, path);
	}
	g_object_unref(d);
}

static void on_choose_folder(GtkButton *b, PlFlightDialog *self)
{
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	GtkFileChooserNative *fc = gtk_file_chooser_native_new(
		"Save snapshots in", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
		"_Choose", "_Cancel");
	g_autoptr(GFile) d = g_file_new_for_path(self->folder);
	if (g_file_test(self->folder, G_FILE_TEST_IS_DIR))
		gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(fc), d, NULL);
	G_GNUC_END_IGNORE_DEPRECATIONS
	g_signal_connect(fc, "response", G_CALLBACK(on_folder_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(fc));
}

void pl_flight_dialog_set_target(PlFlightDialog *self, const char *target, const char *token)
{
	if (target)
		gtk_editable_set_text(GTK_EDITABLE(self->target), target);
	if (token)
		gtk_editable_set_text(GTK_EDITABLE(self->token), token);
}

gboolean pl_flight_dialog_has_saved(PlFlightDialog *self)
{
	g_autofree char *t = target_text(self);
	return self->saved_target && !g_strcmp0(self->saved_target, t);
}

gboolean pl_flight_dialog_is_busy(PlFlightDialog *self) { return self->busy; }
const char *pl_flight_dialog_get_error(PlFlightDialog *self) { return self->last_error; }
const char *pl_flight_dialog_get_saved_path(PlFlightDialog *self) { return self->saved_path; }
GtkWidget *pl_flight_dialog_get_save_button(PlFlightDialog *self) { return self->save_btn; }

static void pl_flight_dialog_finalize(GObject *obj)
{
	PlFlightDialog *self = PL_FLIGHT_DIALOG(obj);
	g_free(self->folder);
	g_free(self->saved_path);
	g_free(self->last_error);
	g_free(self->saved_target);
	g_free(self->asked);
	G_OBJECT_CLASS(pl_flight_dialog_parent_class)->finalize(obj);
}

static void pl_flight_dialog_class_init(PlFlightDialogClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = pl_flight_dialog_finalize;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-flight-dialog.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlFlightDialog, name)
	CHILD(target);
	CHILD(token);
	CHILD(folder_label);
	CHILD(folder_btn);
	CHILD(status);
	CHILD(error);
	CHILD(spinner);
	CHILD(save_btn);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_save);
	gtk_widget_class_bind_template_callback(wc, on_close);
	gtk_widget_class_bind_template_callback(wc, on_choose_folder);
	signals[SIG_SAVED] = g_signal_new("saved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
					  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
	signals[SIG_CONNECTING] = g_signal_new(
		"connecting", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
		g_signal_accumulator_true_handled, NULL, NULL, G_TYPE_BOOLEAN, 1, G_TYPE_STRING);
}

static void pl_flight_dialog_init(PlFlightDialog *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	g_autofree char *dir = pl_sessions_dir();
	pl_flight_dialog_set_folder(self, dir);
	/* Enter in a field saves, as the button does */
	gtk_window_set_default_widget(GTK_WINDOW(self), self->save_btn);
}

PlFlightDialog *pl_flight_dialog_new(GtkWindow *parent)
{
	return g_object_new(PL_TYPE_FLIGHT_DIALOG, "transient-for", parent, NULL);
}
