/* pl-target-dialog.c — a board's symbol settings (see the header). */
#include "pl-target-dialog.h"

#include <string.h>

#include "pl-ldmap.h"
#include "pl-target-settings.h"

struct _PlTargetDialog {
	GtkWindow parent_instance;
	char *key;
	GtkEntry *prefix, *sysroot, *map_file, *vmlinux, *debuginfod;
	GtkTextView *binaries, *debug_dirs, *source_dirs, *path_maps;
	GtkCheckButton *inline_on;
	GtkLabel *title_label, *head, *note, *error;
};

G_DEFINE_FINAL_TYPE(PlTargetDialog, pl_target_dialog, GTK_TYPE_WINDOW)

enum { SIG_SAVED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void set_lines(GtkTextView *v, GStrv lines)
{
	g_autofree char *s = g_strjoinv("\n", lines);
	gtk_text_buffer_set_text(gtk_text_view_get_buffer(v), s, -1);
}

/* Non-empty lines, trimmed. */
static GStrv get_lines(GtkTextView *v)
{
	GtkTextBuffer *b = gtk_text_view_get_buffer(v);
	GtkTextIter s, e;
	gtk_text_buffer_get_bounds(b, &s, &e);
	g_autofree char *text = gtk_text_buffer_get_text(b, &s, &e, FALSE);
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	GPtrArray *out = g_ptr_array_new();
	for (guint i = 0; lines[i]; i++) {
		char *l = g_strstrip(lines[i]);
		if (*l)
			g_ptr_array_add(out, g_strdup(l));
	}
	g_ptr_array_add(out, NULL);
	return (GStrv)g_ptr_array_free(out, FALSE);
}

static char *entry_text(GtkEntry *e)
{
	g_autofree char *s = g_strstrip(g_strdup(gtk_editable_get_text(GTK_EDITABLE(e))));
	return *s ? g_steal_pointer(&s) : NULL;
}

gboolean pl_target_dialog_save(PlTargetDialog *self, GError **error)
{
	g_autoptr(PlTargetSettings) s = g_new0(PlTargetSettings, 1);
	s->key = g_strdup(self->key);
	s->toolchain_prefix = entry_text(self->prefix);
	s->sysroot = entry_text(self->sysroot);
	s->map_file = entry_text(self->map_file);
	s->vmlinux = entry_text(self->vmlinux);
	s->debuginfod_urls = entry_text(self->debuginfod);
	s->binaries = get_lines(self->binaries);
	s->debug_dirs = get_lines(self->debug_dirs);
	s->source_dirs = get_lines(self->source_dirs);
	s->path_maps = get_lines(self->path_maps);
	s->no_inline = !gtk_check_button_get_active(self->inline_on);
	GError *local = NULL;
	gboolean ok = TRUE;
	if (s->map_file) {
		/* checked here so a bad map is an error, not silently no names */
		PlLdMap *m = pl_ldmap_load(s->map_file, &local);
		if (m)
			pl_ldmap_free(m);
		else
			ok = FALSE;
	}
	if (ok && s->vmlinux && !g_file_test(s->vmlinux, G_FILE_TEST_IS_REGULAR)) {
		g_set_error(&local, G_FILE_ERROR, G_FILE_ERROR_NOENT,
			    "Kernel %s: no such file (the board kernel's unstripped vmlinux, from "
			    "its build directory)", s->vmlinux);
		ok = FALSE;
	}
	if (ok)
		ok = pl_target_settings_save(s, &local);
	if (!ok) {
		gtk_label_set_text(self->error, local->message);
		gtk_widget_set_visible(GTK_WIDGET(self->error), TRUE);
		g_propagate_error(error, local);
		return FALSE;
	}
	gtk_widget_set_visible(GTK_WIDGET(self->error), FALSE);
	g_signal_emit(self, signals[SIG_SAVED], 0, self->key);
	return TRUE;
}

static void on_save(GtkButton *b, PlTargetDialog *self)
{
	if (pl_target_dialog_save(self, NULL))
		gtk_window_destroy(GTK_WINDOW(self));
}

static void on_cancel(GtkButton *b, PlTargetDialog *self)
{
	gtk_window_destroy(GTK_WINDOW(self));
}

static void pl_target_dialog_finalize(GObject *obj)
{
	g_free(PL_TARGET_DIALOG(obj)->key);
	G_OBJECT_CLASS(pl_target_dialog_parent_class)->finalize(obj);
}

static void pl_target_dialog_dispose(GObject *obj)
{
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_TARGET_DIALOG);
	G_OBJECT_CLASS(pl_target_dialog_parent_class)->dispose(obj);
}

static void pl_target_dialog_class_init(PlTargetDialogClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = pl_target_dialog_finalize;
	G_OBJECT_CLASS(klass)->dispose = pl_target_dialog_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-target-dialog.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlTargetDialog, name)
	CHILD(title_label);
	CHILD(head);
	CHILD(note);
	CHILD(prefix);
	CHILD(sysroot);
	CHILD(binaries);
	CHILD(debug_dirs);
	CHILD(source_dirs);
	CHILD(path_maps);
	CHILD(map_file);
	CHILD(vmlinux);
	CHILD(debuginfod);
	CHILD(inline_on);
	CHILD(error);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_save);
	gtk_widget_class_bind_template_callback(wc, on_cancel);
	signals[SIG_SAVED] = g_signal_new("saved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
					  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void pl_target_dialog_init(PlTargetDialog *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

PlTargetDialog *pl_target_dialog_new(GtkWindow *parent, const char *key, const char *note)
{
	PlTargetDialog *self = g_object_new(PL_TYPE_TARGET_DIALOG, NULL);
	self->key = g_strdup(key);
	g_autofree char *title = g_strdup_printf("Symbol settings — %s", key);
	gtk_window_set_title(GTK_WINDOW(self), title);
	if (parent)
		gtk_window_set_transient_for(GTK_WINDOW(self), parent);
	g_autofree char *tt = g_strdup_printf("Symbol settings for %s", key);
	gtk_label_set_text(self->title_label, tt);
	g_autofree char *k = g_markup_escape_text(key, -1);
	g_autofree char *head = g_strdup_printf(
		"How PerfLens finds the code of <b>%s</b>: used for every session recorded from "
		"this board, live or saved, and remembered (as perflens report's --sysroot, "
		"--binary, --debug-dir, --source-dir, --path-map and --map).",
		k);
	gtk_label_set_markup(self->head, head);
	if (note) {
		gtk_label_set_text(self->note, note);
		gtk_widget_set_visible(GTK_WIDGET(self->note), TRUE);
	}

	g_autoptr(PlTargetSettings) s = pl_target_settings_load(key);
	gtk_editable_set_text(GTK_EDITABLE(self->prefix), s->toolchain_prefix ? s->toolchain_prefix : "");
	gtk_editable_set_text(GTK_EDITABLE(self->sysroot), s->sysroot ? s->sysroot : "");
	gtk_editable_set_text(GTK_EDITABLE(self->map_file), s->map_file ? s->map_file : "");
	gtk_editable_set_text(GTK_EDITABLE(self->vmlinux), s->vmlinux ? s->vmlinux : "");
	gtk_editable_set_text(GTK_EDITABLE(self->debuginfod),
			      s->debuginfod_urls ? s->debuginfod_urls : "");
	set_lines(self->binaries, s->binaries);
	set_lines(self->debug_dirs, s->debug_dirs);
	set_lines(self->source_dirs, s->source_dirs);
	set_lines(self->path_maps, s->path_maps);
	gtk_check_button_set_active(self->inline_on, !s->no_inline);
	return self;
}
