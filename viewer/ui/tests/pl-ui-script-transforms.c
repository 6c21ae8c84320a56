/* pl-ui-script-transforms.c — the scripted driver's commands for the
 * call-tree transforms (listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 * "transform" goes the way of a click in the frame menu: the menu's model
 * is built for the frame (pl_frame_menu_new_model), its item of that kind
 * found, and its action activated on the window with its target.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "pl-flame-page.h"
#include "pl-frame-menu.h"
#include "pl-ui-util.h"

#define NONE G_MAXUINT32

static const char *argn(char **argv, guint i)
{
	for (guint k = 0; k < i; k++)
		if (!argv[k])
			return "";
	return argv[i] ? argv[i] : "";
}

static guint32 find_func(PlWindow *w, const char *name)
{
	PlProfile *p = pl_window_get_profile(w);
	return p ? pl_profile_find_function(p, name) : PL_NO_ID;
}

/* Labels of the frames right above "all", widest first in *widest. */
static GPtrArray *root_labels(PlFlameGraph *fg, const char **widest)
{
	GPtrArray *out = g_ptr_array_new();
	const PlFlameLayout *l = pl_flame_graph_get_layout(fg);
	*widest = NULL;
	if (!l || l->n_rows < 2)
		return out;
	double best = -1;
	for (guint i = l->row_start[1]; i < l->row_start[2]; i++) {
		const char *lab = pl_flame_graph_get_label(fg, l->rects[i].node);
		g_ptr_array_add(out, (gpointer)lab);
		if (l->rects[i].w > best) {
			best = l->rects[i].w;
			*widest = lab;
		}
	}
	return out;
}

/* (x, y) on the screen of node's frame centre, for xdotool. */
static gboolean frame_on_screen(PlFlameGraph *fg, guint32 node, int *sx, int *sy)
{
	double x, y, nx, ny, tx, ty;
	if (!pl_flame_graph_get_node_center(fg, node, &x, &y))
		return FALSE;
	GtkNative *native = gtk_widget_get_native(GTK_WIDGET(fg));
	gtk_widget_translate_coordinates(GTK_WIDGET(fg), GTK_WIDGET(native), x, y, &nx, &ny);
	gtk_native_get_surface_transform(native, &tx, &ty);
	*sx = (int)(nx + tx);
	*sy = (int)(ny + ty);
	return TRUE;
}

static PlUiStep transform(PlWindow *w, char **argv, guint ticks)
{
	PlFlameGraph *fg = pl_window_get_flame_graph(w);
	if (ticks > 0)
		return pl_flame_graph_is_ready(fg) ? PL_UI_STEP_DONE : PL_UI_STEP_WAIT;
	/* the function as the views label it, spaces and all ("helper
	 * (a.c)"); in the case's name, what is no word character is '_' */
	g_autofree char *label = argv[0] && argv[1] && argv[2] ? g_strjoinv(" ", argv + 2)
							      : g_strdup("");
	g_autofree char *name = g_strdup_printf("transform_%s_%s", argn(argv, 1), label);
	for (char *c = name + strlen("transform_") + strlen(argn(argv, 1)) + 1; *c; c++)
		if (!g_ascii_isalnum(*c) && *c != '_')
			*c = '_';
	PlTransformKind kind;
	if (!pl_transform_kind_from_name(argn(argv, 1), &kind)) {
		pl_ui_script_report(name, FALSE, "no transform '%s'", argn(argv, 1));
		return PL_UI_STEP_DONE;
	}
	PlProfile *p = pl_window_get_profile(w);
	guint32 node = pl_flame_graph_find_label(fg, label);
	guint32 func = node != NONE ? pl_flame_graph_get_node_func(fg, node) : find_func(w, label);
	if (pl_flame_graph_get_inverted(fg))
		node = PL_NO_ID;
	g_autoptr(GMenuModel) menu = pl_frame_menu_new_model(p, node, func);
	g_autofree char *action = NULL;
	g_autoptr(GVariant) target = NULL;
	if (!pl_frame_menu_find_item(menu, kind, &action, &target)) {
		pl_ui_script_report(name, FALSE, "the menu of %s has no %s item", label,
				    argn(argv, 1));
		return PL_UI_STEP_DONE;
	}
	printf("# menu item: %s '%s'\n", action, g_variant_get_string(target, NULL));
	fflush(stdout);
	guint before = pl_view_state_get_n(pl_window_get_view_state(w));
	gtk_widget_activate_action_variant(GTK_WIDGET(w), action, target);
	guint after = pl_view_state_get_n(pl_window_get_view_state(w));
	pl_ui_script_report(name, after == before + 1, "the window has %u transforms, had %u", after,
			    before);
	return PL_UI_STEP_WAIT;
}

static PlUiStep menu_shot(PlWindow *w, char **argv, guint ticks)
{
	/* menu-shot flame|functions FUNC FILE NAME */
	PlFlameGraph *fg = pl_window_get_flame_graph(w);
	PlFunctionTable *table = pl_window_get_function_table(w);
	gboolean on_table = !strcmp(argn(argv, 1), "functions");
	const char *name = argn(argv, 4);
	GtkWidget *owner = on_table ? GTK_WIDGET(table) : GTK_WIDGET(fg);
	if (ticks == 0 && on_table) {
		/* the row's right click, as the cell's gesture reports it */
		guint32 func = find_func(w, argn(argv, 2));
		pl_window_show_view(w, "functions");
		if (func == PL_NO_ID || !pl_function_table_select(table, func)) {
			pl_ui_script_report(name, FALSE, "no row %s", argn(argv, 2));
			return PL_UI_STEP_DONE;
		}
		g_signal_emit_by_name(table, "function-menu", func, 380.0, 90.0);
		return PL_UI_STEP_WAIT;
	}
	/* the window may have opened on another page (Findings): the flame
	 * graph first, laid out before its frames are looked for */
	if (ticks == 0 && !on_table) {
		pl_window_show_view(w, "flame");
		return PL_UI_STEP_WAIT;
	}
	if (ticks < 3 && !on_table)
		return PL_UI_STEP_WAIT;
	if (ticks == 3 && !on_table) {
		guint32 node = pl_flame_graph_find_label(fg, argn(argv, 2));
		int x, y;
		if (node == NONE || !frame_on_screen(fg, node, &x, &y)) {
			pl_ui_script_report(name, FALSE, "no frame %s", argn(argv, 2));
			return PL_UI_STEP_DONE;
		}
		/* the real pointer, through X: a right click, then onto the menu */
		g_autofree char *c = g_strdup_printf(
			"xdotool search --sync --onlyvisible --name PerfLens mousemove --window %%1 %d %d "
			"click 3 sleep 0.6 mousemove_relative 30 -75",
			x, y);
		g_autoptr(GError) error = NULL;
		if (!g_spawn_command_line_async(c, &error)) {
			pl_ui_script_report(name, FALSE, "%s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	if (ticks < (on_table ? 15u : 18u))
		return PL_UI_STEP_WAIT; /* the menu maps and draws */
	/* the menu the right click opened: a popover on the flame graph */
	GtkWidget *pop = NULL;
	for (GtkWidget *c = gtk_widget_get_first_child(owner); c;
	     c = gtk_widget_get_next_sibling(c))
		if (GTK_IS_POPOVER(c) && gtk_widget_get_mapped(c))
			pop = c;
	if (!pop) {
		pl_ui_script_report(name, FALSE, "the right click opened no menu");
		return PL_UI_STEP_DONE;
	}
	/* The window and the menu, each drawn by GTK, the menu laid over the
	 * window where it is: a screen capture (import) shows the menu's
	 * shadow as a black frame under Xvfb, which has no compositor. */
	const char *file = argn(argv, 3);
	g_autofree char *win_png = g_strdup_printf("%s.window.png", file);
	g_autofree char *menu_png = g_strdup_printf("%s.menu.png", file);
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_ui_save_png(GTK_WIDGET(w), win_png, &error) &&
		      pl_ui_save_png(pop, menu_png, &error);
	double wx, wy, px, py;
	gtk_native_get_surface_transform(GTK_NATIVE(w), &wx, &wy);
	gtk_native_get_surface_transform(GTK_NATIVE(pop), &px, &py);
	GdkSurface *ps = gtk_native_get_surface(GTK_NATIVE(pop));
	int x = gdk_popup_get_position_x(GDK_POPUP(ps)) - (int)wx + (int)px;
	int y = gdk_popup_get_position_y(GDK_POPUP(ps)) - (int)wy + (int)py;
	gint status = 0;
	if (ok) {
		g_autofree char *c = g_strdup_printf("composite -geometry %+d%+d %s %s %s", x, y, menu_png,
						     win_png, file);
		ok = g_spawn_command_line_sync(c, NULL, NULL, &status, &error) && status == 0;
	}
	pl_ui_script_report(name, ok, "%s (composite status %d)",
			    error ? error->message : "", status);
	g_unlink(win_png);
	g_unlink(menu_png);
	/* the menu closed, the pointer out of the way */
	gtk_popover_popdown(GTK_POPOVER(pop));
	g_spawn_command_line_sync("xdotool mousemove 0 0", NULL, NULL, NULL, NULL);
	return PL_UI_STEP_DONE;
}

static gboolean chart_has(PlWindow *w, guint32 func)
{
	PlFlameChart *c = pl_window_get_flame_chart(w);
	return func != PL_NO_ID && pl_flame_chart_count_spans(c, func) > 0;
}

/* The samples the timeline's details count for the first thread named
 * prefix*, -1 when there is none. */
static gint64 thread_samples(PlWindow *w, const char *prefix)
{
	PlProfile *p = pl_window_get_profile(w);
	GPtrArray *ts = p ? pl_profile_get_threads(p) : NULL;
	for (guint i = 0; ts && i < ts->len; i++) {
		PlThread *t = ts->pdata[i];
		if (!t->name || !g_str_has_prefix(t->name, prefix))
			continue;
		g_autofree char *d = pl_thread_timeline_dup_thread_details(pl_window_get_timeline(w),
									    t->tid);
		g_autoptr(GRegex) re = g_regex_new("\\((\\d+) [^)]*samples\\)|Samples: (\\d+)", 0, 0,
						   NULL);
		g_autoptr(GMatchInfo) m = NULL;
		if (!d || !g_regex_match(re, d, 0, &m))
			return -1;
		g_autofree char *a = g_match_info_fetch(m, 1), *b = g_match_info_fetch(m, 2);
		return g_ascii_strtoll(a && *a ? a : b, NULL, 10);
	}
	return -1;
}

PlUiStep pl_ui_script_transforms_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argn(argv, 0);
	PlFlameGraph *fg = pl_window_get_flame_graph(w);
	PlTransformBar *bar = pl_window_get_transform_bar(w);
	static GHashTable *noted; /* function name → self weight noted */
	if (!noted)
		noted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

	if (!strcmp(cmd, "transform"))
		return transform(w, argv, ticks);
	if (!strcmp(cmd, "menu-shot"))
		return menu_shot(w, argv, ticks);
	if (!strcmp(cmd, "expect-flame-root") || !strcmp(cmd, "expect-flame-top")) {
		if (!pl_flame_graph_is_ready(fg) && !timed_out)
			return PL_UI_STEP_WAIT;
		const char *widest;
		g_autoptr(GPtrArray) roots = root_labels(fg, &widest);
		gboolean all = roots->len > 0;
		GString *seen = g_string_new(NULL);
		for (guint i = 0; i < roots->len; i++) {
			all = all && !strcmp(roots->pdata[i], argn(argv, 1));
			g_string_append_printf(seen, "%s%s", i ? ", " : "", (char *)roots->pdata[i]);
		}
		gboolean ok = !strcmp(cmd, "expect-flame-root")
				      ? all
				      : widest && !strcmp(widest, argn(argv, 1));
		pl_ui_script_report(argn(argv, 2), ok, "the frames above all are: %s (widest %s)",
				    seen->str, widest ? widest : "none");
		g_string_free(seen, TRUE);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-flame-absent")) {
		if (!pl_flame_graph_is_ready(fg) && !timed_out)
			return PL_UI_STEP_WAIT;
		pl_ui_script_report(argn(argv, 2), pl_flame_graph_find_label(fg, argn(argv, 1)) == NONE,
				    "a frame %s is still in the flame graph", argn(argv, 1));
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-table")) {
		PlCount sc, tc;
		gboolean there = pl_function_table_get_row(pl_window_get_function_table(w),
							   find_func(w, argn(argv, 1)), &sc, &tc);
		gboolean want = !strcmp(argn(argv, 2), "present");
		pl_ui_script_report(argn(argv, 3), there == want, "%s is %s the function table",
				    argn(argv, 1), there ? "in" : "not in");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-chart")) {
		gboolean there = chart_has(w, find_func(w, argn(argv, 1)));
		gboolean want = !strcmp(argn(argv, 2), "present");
		pl_ui_script_report(argn(argv, 3), there == want, "%s is %s the flame chart",
				    argn(argv, 1), there ? "in" : "not in");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-thread-samples")) {
		/* expect-thread-samples PREFIX zero|some|N NAME: the timeline's
		 * count, none, some, or exactly N (what the command line counts
		 * under the same transform) */
		gint64 n = thread_samples(w, argn(argv, 1));
		const char *want = argn(argv, 2);
		gboolean ok;
		if (!strcmp(want, "zero"))
			ok = n == 0;
		else if (!strcmp(want, "some"))
			ok = n > 0;
		else
			ok = n == g_ascii_strtoll(want, NULL, 10);
		printf("# timeline: %s* has %" G_GINT64_FORMAT " samples (want %s)\n", argn(argv, 1),
		       n, want);
		fflush(stdout);
		pl_ui_script_report(argn(argv, 3), n >= 0 && ok,
				    "the timeline counts %" G_GINT64_FORMAT " samples of %s*, want %s", n,
				    argn(argv, 1), want);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "note-self") || !strcmp(cmd, "expect-self-grew")) {
		PlCount sc = { 0, 0 }, tc;
		pl_function_table_get_row(pl_window_get_function_table(w), find_func(w, argn(argv, 1)),
					  &sc, &tc);
		if (!strcmp(cmd, "note-self")) {
			g_hash_table_insert(noted, g_strdup(argn(argv, 1)), g_memdup2(&sc, sizeof sc));
			printf("# self of %s: %" G_GUINT64_FORMAT " samples\n", argn(argv, 1), sc.samples);
			fflush(stdout);
			return PL_UI_STEP_DONE;
		}
		const PlCount *was = g_hash_table_lookup(noted, argn(argv, 1));
		pl_ui_script_report(argn(argv, 2), was && sc.weight > was->weight,
				    "self of %s: %" G_GUINT64_FORMAT " samples, noted %" G_GUINT64_FORMAT,
				    argn(argv, 1), sc.samples, was ? was->samples : 0);
		printf("# self of %s now: %" G_GUINT64_FORMAT " samples\n", argn(argv, 1), sc.samples);
		fflush(stdout);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-crumbs")) {
		guint want = (guint)g_ascii_strtoull(argn(argv, 1), NULL, 10);
		guint have = pl_transform_bar_get_n_crumbs(bar);
		gboolean shown = gtk_widget_get_visible(GTK_WIDGET(bar));
		pl_ui_script_report(argn(argv, 2), have == want && shown == (want > 0),
				    "%u breadcrumbs (bar %s), wanted %u", have,
				    shown ? "shown" : "hidden", want);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-crumb")) {
		/* expect-crumb I NAME TEXT…: breadcrumb I says exactly TEXT */
		guint i = (guint)g_ascii_strtoull(argn(argv, 1), NULL, 10);
		g_autofree char *l = pl_transform_bar_dup_crumb_label(bar, i);
		g_autofree char *want = argv[1] && argv[2] ? g_strjoinv(" ", argv + 3) : g_strdup("");
		printf("# breadcrumb %u: %s\n", i, l ? l : "(none)");
		fflush(stdout);
		pl_ui_script_report(argn(argv, 2), l && !strcmp(l, want), "breadcrumb %u says '%s', not '%s'",
				    i, l ? l : "(none)", want);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "remove-crumb") || !strcmp(cmd, "reset-crumbs")) {
		if (ticks > 0)
			return pl_flame_graph_is_ready(fg) ? PL_UI_STEP_DONE : PL_UI_STEP_WAIT;
		GtkButton *b = !strcmp(cmd, "reset-crumbs")
				       ? pl_transform_bar_get_reset_button(bar)
				       : pl_transform_bar_get_remove_button(
						 bar, (guint)g_ascii_strtoull(argn(argv, 1), NULL, 10));
		if (!b) {
			pl_ui_script_report(cmd, FALSE, "no breadcrumb %s", argn(argv, 1));
			return PL_UI_STEP_DONE;
		}
		g_signal_emit_by_name(b, "clicked");
		return PL_UI_STEP_WAIT;
	}
	if (!strcmp(cmd, "inverted")) {
		if (ticks > 0)
			return pl_flame_graph_is_ready(fg) ? PL_UI_STEP_DONE : PL_UI_STEP_WAIT;
		GtkWidget *page = gtk_widget_get_ancestor(GTK_WIDGET(fg), PL_TYPE_FLAME_PAGE);
		gtk_toggle_button_set_active(pl_flame_page_get_inverted_toggle(PL_FLAME_PAGE(page)),
					     !strcmp(argn(argv, 1), "on"));
		return PL_UI_STEP_WAIT;
	}
	return PL_UI_STEP_UNKNOWN;
}
