/* pl-ui-util.c — presentation helpers (see the header). */
#include "pl-ui-util.h"

#include <math.h>
#include <string.h>

/* ─── numbers ────────────────────────────────────────────────────────── */

char *pl_ui_format_pct(guint64 part, guint64 whole)
{
	if (!whole)
		return g_strdup("—");
	return g_strdup_printf("%.1f%%", 100.0 * (double)part / (double)whole);
}

char *pl_ui_format_length(double secs, guint decimals)
{
	if (secs < 0)
		secs = 0;
	if (secs < 60)
		return g_strdup_printf("%.*f s", (int)decimals, secs);
	if (secs < 3600)
		return g_strdup_printf("%u min %02u s", (guint)(secs / 60), (guint)secs % 60);
	return g_strdup_printf("%u h %02u min", (guint)(secs / 3600), (guint)(secs / 60) % 60);
}

char *pl_ui_node_tooltip(PlProfile *p, guint32 node, guint32 func, guint64 self, guint64 total,
			 guint64 all)
{
	GString *s = g_string_new(NULL);
	if (!p || func == PL_NO_ID || func >= pl_profile_get_n_functions(p)) {
		g_autofree char *t = pl_window_format_weight(p, total);
		g_string_append_printf(s, "<b>all</b>\nTotal: %s", t);
		return g_string_free(s, FALSE);
	}
	const PlFunction *f = pl_profile_get_function(p, func);
	g_autofree char *name = g_markup_escape_text(pl_function_names_label(p, func), -1);
	g_autofree char *mod = g_markup_escape_text(f->module ? f->module : "?", -1);
	g_autofree char *ts = pl_window_format_weight(p, self), *tt = pl_window_format_weight(p, total);
	g_autofree char *ps = pl_ui_format_pct(self, all), *pt = pl_ui_format_pct(total, all);
	g_string_append_printf(s, "<b>%s</b>%s\n", name, f->inlined ? " <i>(inlined)</i>" : "");
	g_string_append_printf(s, "Total: %s  (%s)\nSelf: %s  (%s)\nModule: %s", tt, pt, ts, ps,
			       mod);
	const char *file;
	guint line;
	if (pl_ui_function_source(p, func, &file, NULL, &line)) {
		g_autofree char *fe = g_markup_escape_text(file, -1);
		g_string_append_printf(s, "\nDefined at: %s:%u", fe, line);
	}
	return g_string_free(s, FALSE);
}

/* ─── function → source ──────────────────────────────────────────────── */

gboolean pl_ui_function_source(PlProfile *p, guint32 func, const char **file, char **local_path,
			       guint *line)
{
	if (local_path)
		*local_path = NULL;
	if (!p || func >= pl_profile_get_n_functions(p))
		return FALSE;
	const PlFunction *f = pl_profile_get_function(p, func);
	if (!f->name || !f->file)
		return FALSE;
	if (file)
		*file = f->file;
	if (line)
		*line = f->line;
	if (local_path)
		*local_path = pl_symbols_find_source(pl_profile_get_symbols(p), f->file);
	return TRUE;
}

/* ─── screenshots ────────────────────────────────────────────────────── */

void pl_ui_present_popovers(GtkWidget *widget)
{
	for (GtkWidget *c = gtk_widget_get_first_child(widget); c; c = gtk_widget_get_next_sibling(c))
		if (GTK_IS_POPOVER(c) && gtk_widget_get_visible(c))
			gtk_popover_present(GTK_POPOVER(c));
}

gboolean pl_ui_save_png(GtkWidget *widget, const char *path, GError **error)
{
	int w = gtk_widget_get_width(widget), h = gtk_widget_get_height(widget);
	GtkNative *native = gtk_widget_get_native(widget);
	if (w <= 0 || h <= 0 || !native) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "Cannot take a screenshot: the window is not shown yet");
		return FALSE;
	}
	g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new(widget);
	GtkSnapshot *s = gtk_snapshot_new();
	/* the window background first: the paintable has only the widgets */
	gdk_paintable_snapshot(paintable, s, w, h);
	g_autoptr(GskRenderNode) node = gtk_snapshot_free_to_node(s);
	if (!node) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Nothing to capture");
		return FALSE;
	}
	GskRenderer *r = gtk_native_get_renderer(native);
	g_autoptr(GdkTexture) tex = gsk_renderer_render_texture(r, node,
								 &GRAPHENE_RECT_INIT(0, 0, w, h));
	g_autofree char *dir = g_path_get_dirname(path);
	g_mkdir_with_parents(dir, 0755);
	if (!gdk_texture_save_to_png(tex, path)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Cannot write %s", path);
		return FALSE;
	}
	return TRUE;
}

/* ─── recent targets ─────────────────────────────────────────────────── */

static char *recent_path(void)
{
	return g_build_filename(g_get_user_config_dir(), "perflens", "recent.ini", NULL);
}

GStrv pl_ui_recent_load(void)
{
	g_autofree char *path = recent_path();
	g_autoptr(GKeyFile) kf = g_key_file_new();
	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL))
		return g_new0(char *, 1);
	char **v = g_key_file_get_string_list(kf, "connect", "recent", NULL, NULL);
	return v ? v : g_new0(char *, 1);
}

void pl_ui_recent_add(const char *target)
{
	g_auto(GStrv) old = pl_ui_recent_load();
	g_autoptr(GPtrArray) list = g_ptr_array_new();
	g_ptr_array_add(list, (gpointer)target);
	for (guint i = 0; old[i] && list->len < 10; i++)
		if (strcmp(old[i], target))
			g_ptr_array_add(list, old[i]);
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_key_file_set_string_list(kf, "connect", "recent", (const char *const *)list->pdata,
				   list->len);
	g_autofree char *path = recent_path();
	g_autofree char *dir = g_path_get_dirname(path);
	g_mkdir_with_parents(dir, 0700);
	g_key_file_save_to_file(kf, path, NULL); /* best effort: a convenience */
}

/* ─── heat ───────────────────────────────────────────────────────────── */

gboolean pl_ui_is_dark(GtkWidget *w)
{
	GdkRGBA fg;
	G_GNUC_BEGIN_IGNORE_DEPRECATIONS
	gtk_style_context_get_color(gtk_widget_get_style_context(w), &fg);
	G_GNUC_END_IGNORE_DEPRECATIONS
	return fg.red + fg.green + fg.blue > 1.5;
}

void pl_ui_heat_rgba(double share, gboolean dark, GdkRGBA *out)
{
	if (share < 0)
		share = 0;
	if (share > 1)
		share = 1;
	/* sqrt: a 5% line must still be visible next to a 60% one */
	double a = share > 0 ? 0.12 + 0.7 * sqrt(share) : 0;
	*out = (GdkRGBA){ 0.95, dark ? 0.35 : 0.30, 0.10, (float)a };
}

double pl_ui_nice_step(double span)
{
	double raw = span / 8;
	double e = pow(10, floor(log10(raw)));
	const double steps[] = { 1, 2, 5, 10 };
	for (guint i = 0; i < G_N_ELEMENTS(steps); i++)
		if (steps[i] * e >= raw)
			return steps[i] * e;
	return 10 * e;
}

void pl_ui_show_text(cairo_t *cr, PangoLayout *pl, const char *text, double x, double y,
		     double align)
{
	pango_layout_set_text(pl, text, -1);
	int tw, th;
	pango_layout_get_pixel_size(pl, &tw, &th);
	cairo_move_to(cr, x - align * tw, y);
	pango_cairo_show_layout(cr, pl);
}

GtkWidget *pl_ui_scrolled(GtkWidget *child, gboolean hscroll)
{
	GtkWidget *sw = gtk_scrolled_window_new();
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(sw),
				       hscroll ? GTK_POLICY_AUTOMATIC : GTK_POLICY_NEVER,
				       GTK_POLICY_AUTOMATIC);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(sw), child);
	gtk_widget_set_vexpand(sw, TRUE);
	gtk_widget_set_hexpand(sw, TRUE);
	return sw;
}
