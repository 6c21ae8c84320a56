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
	GtkLabel *error;
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

static void pl_target_dialog_class_init(PlTargetDialogClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = pl_target_dialog_finalize;
	signals[SIG_SAVED] = g_signal_new("saved", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
					  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void pl_target_dialog_init(PlTargetDialog *self)
{
}

static GtkWidget *label(const char *text, gboolean dim)
{
	GtkWidget *l = gtk_label_new(text);
	gtk_label_set_xalign(GTK_LABEL(l), dim ? 0 : 1);
	gtk_label_set_yalign(GTK_LABEL(l), 0);
	gtk_widget_set_margin_top(l, dim ? 0 : 6);
	/* hints are one line each: wrapping labels would make the window ask
	 * for the height of their narrowest wrap */
	if (dim)
		gtk_widget_add_css_class(l, "dim-label");
	return l;
}

static GtkEntry *entry_row(GtkGrid *g, int *row, const char *name, const char *placeholder,
			   const char *hint)
{
	GtkWidget *e = gtk_entry_new();
	gtk_entry_set_placeholder_text(GTK_ENTRY(e), placeholder);
	gtk_widget_set_hexpand(e, TRUE);
	gtk_grid_attach(g, label(name, FALSE), 0, *row, 1, 1);
	gtk_grid_attach(g, e, 1, (*row)++, 1, 1);
	if (hint)
		gtk_grid_attach(g, label(hint, TRUE), 1, (*row)++, 1, 1);
	return GTK_ENTRY(e);
}

static GtkTextView *lines_row(GtkGrid *g, int *row, const char *name, const char *hint)
{
	GtkWidget *v = gtk_text_view_new();
	gtk_text_view_set_monospace(GTK_TEXT_VIEW(v), TRUE);
	gtk_text_view_set_top_margin(GTK_TEXT_VIEW(v), 4);
	gtk_text_view_set_left_margin(GTK_TEXT_VIEW(v), 6);
	GtkWidget *sw = gtk_scrolled_window_new();
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sw), v);
	gtk_scrolled_window_set_has_frame(GTK_SCROLLED_WINDOW(sw), TRUE);
	gtk_widget_set_size_request(sw, -1, 58);
	gtk_grid_attach(g, label(name, FALSE), 0, *row, 1, 1);
	gtk_grid_attach(g, sw, 1, (*row)++, 1, 1);
	gtk_grid_attach(g, label(hint, TRUE), 1, (*row)++, 1, 1);
	return GTK_TEXT_VIEW(v);
}

PlTargetDialog *pl_target_dialog_new(GtkWindow *parent, const char *key, const char *note)
{
	PlTargetDialog *self = g_object_new(PL_TYPE_TARGET_DIALOG, NULL);
	self->key = g_strdup(key);
	g_autofree char *title = g_strdup_printf("Symbol settings — %s", key);
	gtk_window_set_title(GTK_WINDOW(self), title);
	gtk_window_set_modal(GTK_WINDOW(self), TRUE);
	if (parent)
		gtk_window_set_transient_for(GTK_WINDOW(self), parent);
	gtk_window_set_resizable(GTK_WINDOW(self), FALSE);

	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10);
	gtk_widget_set_margin_start(box, 18);
	gtk_widget_set_margin_end(box, 18);
	gtk_widget_set_margin_top(box, 14);
	gtk_widget_set_margin_bottom(box, 14);
	g_autofree char *head = g_strdup_printf(
		"How PerfLens finds the code of <b>%s</b>: used for every session recorded from "
		"this board, live or saved, and remembered (as perflens report's --sysroot, "
		"--binary, --debug-dir, --source-dir, --path-map and --map).",
		key);
	g_autofree char *tt = g_strdup_printf("Symbol settings for %s", key);
	GtkWidget *tl = gtk_label_new(tt);
	gtk_widget_add_css_class(tl, "title-3");
	gtk_label_set_xalign(GTK_LABEL(tl), 0);
	gtk_box_append(GTK_BOX(box), tl);
	GtkWidget *hl = gtk_label_new(NULL);
	gtk_label_set_markup(GTK_LABEL(hl), head);
	gtk_label_set_wrap(GTK_LABEL(hl), TRUE);
	gtk_label_set_width_chars(GTK_LABEL(hl), 96);
	gtk_label_set_max_width_chars(GTK_LABEL(hl), 96);
	gtk_label_set_xalign(GTK_LABEL(hl), 0);
	gtk_box_append(GTK_BOX(box), hl);
	if (note) {
		GtkWidget *nl = label(note, TRUE);
		gtk_label_set_wrap(GTK_LABEL(nl), TRUE);
		gtk_label_set_width_chars(GTK_LABEL(nl), 96);
		gtk_label_set_max_width_chars(GTK_LABEL(nl), 96);
		gtk_box_append(GTK_BOX(box), nl);
	}

	GtkGrid *g = GTK_GRID(gtk_grid_new());
	gtk_grid_set_row_spacing(g, 4);
	gtk_grid_set_column_spacing(g, 10);
	int row = 0;
	self->prefix = entry_row(g, &row, "Toolchain prefix", "aarch64-linux-gnu-",
				 "Cross tools (gcc -print-sysroot gives the sysroot when none is set)");
	self->sysroot = entry_row(g, &row, "Sysroot", "/opt/board/sysroot",
				  "The board's root file system here: /usr/lib/… is looked up under it");
	self->binaries = lines_row(g, &row, "Binaries",
				   "Unstripped programs and libraries, one per line: matched by "
				   "build-id, else by name");
	self->debug_dirs = lines_row(g, &row, "Debug dirs",
				     "Directories with .build-id/ trees or .debug files, one per line");
	self->source_dirs = lines_row(g, &row, "Source dirs",
				      "Where the source files are, one per line");
	self->path_maps = lines_row(g, &row, "Path maps",
				    "FROM=TO per line: a source path prefix at build time → here, e.g. "
				    "/build=/home/me/src");
	self->map_file = entry_row(g, &row, "Map file", "firmware.map",
				   "GNU ld -Map output: names for code without a symbol table");
	self->vmlinux = entry_row(g, &row, "Kernel (vmlinux)", "linux/vmlinux",
				  "The board kernel's vmlinux with DWARF: kernel frames with source "
				  "lines and inlined functions (refused if it is another build)");
	self->debuginfod = entry_row(g, &row, "Debuginfod URLs", "https://debuginfod.debian.net",
				     "Servers to fetch missing files of sampled modules from, "
				     "space-separated (empty: $DEBUGINFOD_URLS)");
	self->inline_on = GTK_CHECK_BUTTON(gtk_check_button_new_with_label(
		"Show inlined functions as their own frames"));
	gtk_grid_attach(g, GTK_WIDGET(self->inline_on), 1, row++, 1, 1);
	gtk_box_append(GTK_BOX(box), GTK_WIDGET(g));

	self->error = GTK_LABEL(gtk_label_new(NULL));
	gtk_widget_add_css_class(GTK_WIDGET(self->error), "error");
	gtk_label_set_wrap(self->error, TRUE);
	gtk_label_set_xalign(self->error, 0);
	gtk_widget_set_visible(GTK_WIDGET(self->error), FALSE);
	gtk_box_append(GTK_BOX(box), GTK_WIDGET(self->error));

	GtkWidget *btns = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	gtk_widget_set_halign(btns, GTK_ALIGN_END);
	GtkWidget *cancel = gtk_button_new_with_mnemonic("_Cancel");
	g_signal_connect(cancel, "clicked", G_CALLBACK(on_cancel), self);
	GtkWidget *save = gtk_button_new_with_mnemonic("_Save and re-symbolize");
	gtk_widget_add_css_class(save, "suggested-action");
	g_signal_connect(save, "clicked", G_CALLBACK(on_save), self);
	gtk_box_append(GTK_BOX(btns), cancel);
	gtk_box_append(GTK_BOX(btns), save);
	gtk_box_append(GTK_BOX(box), btns);
	gtk_window_set_child(GTK_WINDOW(self), box);

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
