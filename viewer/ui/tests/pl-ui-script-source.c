/* pl-ui-script-source.c — the script commands of the Source tab
 * (pl-ui-script.h lists them): the function opened from the DWARF, its
 * hottest line scrolled into view, and the jumps between a source line
 * and its instructions, clicked through X (xdotool), with addr2line
 * (binutils, reading the same DWARF on its own) as the oracle. */
#include <string.h>

#include "pl-source-view.h"
#include "pl-ui-script.h"

/* "NAME" or "NAME@FILE": the function so named (defined in a file whose
 * path ends with /FILE), PL_NO_ID when none. */
guint32 pl_ui_script_find_function(PlWindow *w, const char *spec)
{
	PlProfile *p = pl_window_get_profile(w);
	if (!p)
		return PL_NO_ID;
	g_autofree char *name = g_strdup(spec);
	char *at = strrchr(name, '@');
	if (at)
		*at++ = 0;
	for (guint32 i = 0; i < pl_profile_get_n_functions(p); i++) {
		const PlFunction *f = pl_profile_get_function(p, i);
		if (g_strcmp0(f->name, name) != 0)
			continue;
		if (!at)
			return i;
		g_autofree char *suffix = g_strconcat("/", at, NULL);
		if (f->file && g_str_has_suffix(f->file, suffix))
			return i;
	}
	return PL_NO_ID;
}

/* One click of button 1 on the source view's line, through the X server. */
static gboolean click_line(PlWindow *w, PlSourceView *sv, guint line, GError **error)
{
	double x, y, nx, ny, sx, sy;
	if (!pl_source_view_get_line_point(sv, line, &x, &y)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "line %u is not laid out", line);
		return FALSE;
	}
	GtkNative *native = gtk_widget_get_native(GTK_WIDGET(sv));
	gtk_widget_translate_coordinates(GTK_WIDGET(sv), GTK_WIDGET(native), x, y, &nx, &ny);
	gtk_native_get_surface_transform(native, &sx, &sy);
	g_autofree char *c = g_strdup_printf(
		"xdotool search --sync --onlyvisible --name PerfLens mousemove --window %%1 %d %d "
		"click 1 mousemove 0 0",
		(int)(nx + sx), (int)(ny + sy));
	return g_spawn_command_line_async(c, error);
}

/* addr2line's "FILE:LINE" for each address of path (lookup addresses),
 * as (basename, line) pairs: a GStrv of "base:line", NULL on failure. */
static GStrv addr2line(const char *path, GArray *addrs)
{
	g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(argv, g_strdup("addr2line"));
	g_ptr_array_add(argv, g_strdup("-e"));
	g_ptr_array_add(argv, g_strdup(path));
	for (guint i = 0; i < addrs->len; i++)
		g_ptr_array_add(argv, g_strdup_printf("0x%" G_GINT64_MODIFIER "x",
						      g_array_index(addrs, guint64, i)));
	g_ptr_array_add(argv, NULL);
	g_autofree char *out = NULL;
	gint status = -1;
	if (!g_spawn_sync(NULL, (char **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
			  NULL, &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		return NULL;
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	GStrv r = g_new0(char *, addrs->len + 1);
	for (guint i = 0; i < addrs->len; i++) {
		const char *l = lines[i] ? lines[i] : "";
		const char *slash = strrchr(l, '/');
		g_autofree char *base = g_strdup(slash ? slash + 1 : l);
		char *sp = strchr(base, ' '); /* " (discriminator 3)" */
		if (sp)
			*sp = 0;
		r[i] = g_steal_pointer(&base);
	}
	return r;
}

static const char *base_of(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : p ? p : "";
}

/* The addresses of the annotation's instructions (GArray of guint64, one
 * per listing line, 0 off instructions). */
static GArray *insn_addrs(const PlAnnotation *a)
{
	GArray *v = g_array_new(FALSE, TRUE, sizeof(guint64));
	for (guint i = 0; i < a->lines->len; i++) {
		const PlDisasmLine *d = &g_array_index(a->lines, PlDisasmLine, i);
		guint64 x = d->is_insn ? d->addr : 0;
		g_array_append_val(v, x);
	}
	return v;
}

static guint clicked_line; /* the source line a source-click-line clicked */

PlUiStep pl_ui_script_source_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0];
	guint argc = g_strv_length(argv);
	const char *name = argc > 1 ? argv[argc - 1] : "";
	PlSourceView *sv = pl_window_get_source_view(w);
	PlProfile *p = pl_window_get_profile(w);
	if (!strcmp(cmd, "source")) {
		/* opens the function's source; then waits until its hottest line
		 * is selected and seen in the view (scrolled there after layout) */
		guint32 f = pl_ui_script_find_function(w, argc > 1 ? argv[1] : "");
		if (ticks == 0) {
			g_autoptr(GError) error = NULL;
			if (f == PL_NO_ID) {
				pl_ui_script_report(name, FALSE, "no function %s in the profile", argv[1]);
				return PL_UI_STEP_DONE;
			}
			pl_source_view_set_disassembly(sv, FALSE);
			if (!pl_window_open_source(w, f, &error)) {
				pl_ui_script_report(name, FALSE, "%s", error->message);
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		guint hot = pl_source_view_get_hot_line(sv);
		gboolean seen = hot && !pl_source_view_is_scrolling(sv) &&
				pl_source_view_line_is_visible(sv, hot);
		if (!seen && !timed_out)
			return PL_UI_STEP_WAIT;
		/* the oracle: the line with most of the function's own self
		 * weight, from its sampled addresses in its defining file */
		const PlFunction *fn = pl_profile_get_function(p, f);
		g_autoptr(GArray) rows = pl_aggregate_addresses(pl_window_get_aggregate(w), f);
		g_autoptr(GHashTable) by_line = g_hash_table_new(NULL, NULL);
		guint best = 0;
		guint64 best_w = 0;
		for (guint i = 0; i < rows->len; i++) {
			const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
			if (!r->file || !fn->file || strcmp(r->file, fn->file) || !r->line)
				continue;
			guint64 wt = GPOINTER_TO_SIZE(g_hash_table_lookup(by_line, GUINT_TO_POINTER(r->line))) +
				     r->self.weight;
			g_hash_table_insert(by_line, GUINT_TO_POINTER(r->line), GSIZE_TO_POINTER(wt));
			if (wt > best_w) {
				best_w = wt;
				best = r->line;
			}
		}
		g_autofree char *text = pl_source_view_dup_line(sv, hot);
		gboolean ok = seen && hot == best && !g_strcmp0(pl_source_view_get_file(sv), fn->file);
		pl_ui_script_report(name, ok, "hot line %u (%s in view), the function's hottest %u of %s",
				    hot, seen ? "" : "not", best, fn->file ? fn->file : "(no file)");
		if (ok) {
			printf("# %s: hot line %s:%u: %s\n", argv[1], pl_source_view_get_file(sv), hot,
			       text ? g_strstrip(text) : "");
			fflush(stdout);
		}
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-source-hottest")) {
		/* the Source tab shown with nothing chosen: the hottest function
		 * whose source is here, at its hottest line, in view */
		if (ticks == 0) {
			pl_window_show_view(w, "source");
			return PL_UI_STEP_WAIT;
		}
		guint32 f = pl_source_view_get_function(sv);
		guint hot = pl_source_view_get_hot_line(sv);
		gboolean seen = f != PL_NO_ID && hot && !pl_source_view_is_scrolling(sv) &&
				pl_source_view_line_is_visible(sv, hot);
		if (!seen && !timed_out)
			return PL_UI_STEP_WAIT;
		/* the oracle: the first row by self weight with a readable file */
		g_autoptr(GArray) rows = pl_aggregate_functions(pl_window_get_aggregate(w), FALSE);
		guint32 want = PL_NO_ID;
		for (guint i = 0; i < rows->len && want == PL_NO_ID; i++) {
			const PlFunction *fn = pl_profile_get_function(p, g_array_index(rows, PlRow, i).id);
			if (fn->file && g_file_test(fn->file, G_FILE_TEST_IS_REGULAR))
				want = g_array_index(rows, PlRow, i).id;
		}
		pl_ui_script_report(name, seen && f == want,
				    "shows %s (line %u%s), the hottest with source is %s",
				    f == PL_NO_ID ? "nothing" : pl_profile_get_function_label(p, f), hot,
				    seen ? "" : ", not in view",
				    want == PL_NO_ID ? "none" : pl_profile_get_function_label(p, want));
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "source-click-line")) {
		/* a click on the shown function's hot source line: the
		 * disassembly with exactly the instructions addr2line puts on
		 * that line marked, the first in view */
		if (ticks == 0) {
			g_autoptr(GError) error = NULL;
			pl_source_view_set_disassembly(sv, FALSE);
			clicked_line = pl_source_view_get_hot_line(sv);
			if (!clicked_line || !click_line(w, sv, clicked_line, &error)) {
				pl_ui_script_report(name, FALSE, "no hot line to click (%s)",
						    error ? error->message : "none shown");
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		g_autoptr(GArray) marked = pl_source_view_dup_marked(sv);
		gboolean shown = pl_source_view_get_disassembly(sv) && marked->len &&
				 !pl_source_view_is_scrolling(sv) &&
				 pl_source_view_line_is_visible(sv, g_array_index(marked, guint, 0));
		if (!shown && !timed_out)
			return PL_UI_STEP_WAIT;
		const PlAnnotation *a = pl_source_view_get_annotation(sv);
		if (!shown || !a) {
			pl_ui_script_report(name, FALSE, "no instructions marked for line %u (%s)",
					    clicked_line, a ? "listing shown" : "no listing");
			return PL_UI_STEP_DONE;
		}
		g_autoptr(GArray) addrs = insn_addrs(a);
		g_auto(GStrv) where = addr2line(a->path, addrs);
		g_autofree char *want = g_strdup_printf("%s:%u",
							base_of(pl_source_view_get_file(sv)),
							clicked_line);
		guint n_want = 0, n_ok = 0;
		gboolean extra = FALSE;
		g_autoptr(GHashTable) is_marked = g_hash_table_new(NULL, NULL);
		for (guint i = 0; i < marked->len; i++)
			g_hash_table_add(is_marked, GUINT_TO_POINTER(g_array_index(marked, guint, i) + 1));
		for (guint i = 0; where && i < addrs->len; i++) {
			if (!g_array_index(addrs, guint64, i))
				continue;
			gboolean on = !strcmp(where[i], want);
			gboolean m = g_hash_table_contains(is_marked, GUINT_TO_POINTER(i + 1));
			n_want += on;
			n_ok += on && m;
			extra |= m && !on;
		}
		pl_ui_script_report(name, where && n_want && n_ok == n_want && !extra,
				    "%u instructions marked; addr2line puts %u on %s, %u of them "
				    "marked%s",
				    marked->len, n_want, want, n_ok, extra ? ", and others are" : "");
		if (where) {
			printf("# source line %s → %u instructions\n", want, marked->len);
			fflush(stdout);
		}
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "source-click-insn")) {
		/* a click on the hottest instruction: the source with the line
		 * addr2line gives for it selected, in view */
		static guint64 addr;
		static char *want;
		if (ticks == 0) {
			g_autoptr(GError) error = NULL;
			g_clear_pointer(&want, g_free);
			pl_source_view_set_disassembly(sv, TRUE);
			const PlAnnotation *a = pl_source_view_get_annotation(sv);
			if (!a || a->hot == G_MAXUINT) {
				pl_ui_script_report(name, FALSE, "no hot instruction");
				return PL_UI_STEP_DONE;
			}
			addr = g_array_index(a->lines, PlDisasmLine, a->hot).addr;
			g_autoptr(GArray) one = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_array_append_val(one, addr);
			g_auto(GStrv) where = addr2line(a->path, one);
			want = where ? g_strdup(where[0]) : NULL;
			if (!want || !click_line(w, sv, a->hot, &error)) {
				pl_ui_script_report(name, FALSE, "cannot click: %s",
						    error ? error->message : "addr2line failed");
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		guint sel = pl_source_view_get_selected_line(sv);
		gboolean shown = !pl_source_view_get_disassembly(sv) && sel &&
				 !pl_source_view_is_scrolling(sv) &&
				 pl_source_view_line_is_visible(sv, sel);
		if (!shown && !timed_out)
			return PL_UI_STEP_WAIT;
		g_autofree char *got = g_strdup_printf("%s:%u", base_of(pl_source_view_get_file(sv)),
						       sel);
		pl_ui_script_report(name, shown && !strcmp(got, want),
				    "instruction 0x%" G_GINT64_MODIFIER "x: the source shows %s%s, "
				    "addr2line says %s",
				    addr, got, shown ? "" : " (not in view or not switched)", want);
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
