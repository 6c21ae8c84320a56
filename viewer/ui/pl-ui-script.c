/* pl-ui-script.c — the scripted driver (see the header). */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

#include "pl-ui-util.h"

#define TICK_MS 100
#define STEP_TIMEOUT_S 40

typedef enum { STEP_DONE, STEP_WAIT } StepResult;

typedef struct {
	PlWindow *win;
	char **lines;
	guint next;
	char **argv; /* current command, split */
	gint64 started, deadline;
	guint ticks; /* in the current step */
	gboolean failed_any;
	gint64 until; /* for sleep / record */
	gint64 last_list;
} Script;

static gboolean script_failed;

int pl_ui_script_exit_status(int rc)
{
	return script_failed ? 1 : rc;
}

static void report(Script *s, const char *name, gboolean ok, const char *fmt, ...)
	G_GNUC_PRINTF(4, 5);
static void report(Script *s, const char *name, gboolean ok, const char *fmt, ...)
{
	if (ok) {
		printf("ok %s\n", name);
	} else {
		va_list ap;
		va_start(ap, fmt);
		g_autofree char *why = g_strdup_vprintf(fmt, ap);
		va_end(ap);
		printf("not ok %s: %s\n", name, why);
		script_failed = TRUE;
	}
	fflush(stdout);
}

static guint argc_of(Script *s)
{
	return g_strv_length(s->argv);
}

static const char *arg(Script *s, guint i)
{
	return i < argc_of(s) ? s->argv[i] : "";
}

static gboolean timed_out(Script *s)
{
	return g_get_monotonic_time() > s->deadline;
}

static guint32 find_func(PlWindow *w, const char *name)
{
	PlProfile *p = pl_window_get_profile(w);
	return p ? pl_profile_find_function(p, name) : PL_NO_ID;
}

/* Each returns DONE or WAIT; a WAIT past the deadline fails the step. */
static StepResult run_step(Script *s)
{
	PlWindow *w = s->win;
	PlConnectView *cv = pl_window_get_connect_view(w);
	PlFlameGraph *fg = pl_window_get_flame_graph(w);
	const char *cmd = arg(s, 0);
	gboolean first = s->ticks == 0;

	if (!strcmp(cmd, "open")) {
		if (first) {
			pl_window_open_file(w, arg(s, 1));
			return STEP_WAIT;
		}
		if (pl_window_is_loading(w))
			return STEP_WAIT;
		if (pl_window_get_load_error(w)) {
			report(s, "open", FALSE, "%s", pl_window_get_load_error(w));
			return STEP_DONE;
		}
		return pl_flame_graph_is_ready(fg) ? STEP_DONE : STEP_WAIT;
	}
	if (!strcmp(cmd, "connect")) {
		if (first) {
			pl_window_show_connect(w);
			pl_connect_view_connect(cv, arg(s, 1), arg(s, 2));
			return STEP_WAIT;
		}
		if (pl_connect_view_is_connected(cv)) {
			report(s, "connect", TRUE, NULL);
			return STEP_DONE;
		}
		if (s->ticks > 2 && pl_connect_view_get_error(cv)) {
			report(s, "connect", FALSE, "%s", pl_connect_view_get_error(cv));
			return STEP_DONE;
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "expect-connect-error")) {
		/* connect HOST:PORT with TOKEN must fail with a message naming WORD */
		if (first) {
			pl_window_show_connect(w);
			pl_connect_view_connect(cv, arg(s, 1), arg(s, 2));
			return STEP_WAIT;
		}
		const char *e = pl_connect_view_get_error(cv);
		if (pl_connect_view_is_connected(cv)) {
			report(s, arg(s, 4), FALSE, "connected with token %s", arg(s, 2));
			return STEP_DONE;
		}
		if (s->ticks > 2 && e) {
			report(s, arg(s, 4), strstr(e, arg(s, 3)) != NULL,
			       "the error does not say '%s': %s", arg(s, 3), e);
			printf("# connect error shown: %s\n", e);
			fflush(stdout);
			return STEP_DONE;
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "wait-process")) {
		pl_connect_view_set_filter(cv, arg(s, 1));
		if (pl_connect_view_get_n_processes(cv) > 0)
			return STEP_DONE;
		if (g_get_monotonic_time() - s->last_list > 2 * G_USEC_PER_SEC) {
			pl_connect_view_refresh(cv);
			s->last_list = g_get_monotonic_time();
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "filter")) {
		pl_connect_view_set_filter(cv, arg(s, 1));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "pick")) {
		gboolean ok = pl_connect_view_select_process(cv, arg(s, 1));
		report(s, "pick_process", ok, "no process %s in the list", arg(s, 1));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "frequency")) {
		pl_connect_view_set_frequency(cv, (guint)g_ascii_strtoull(arg(s, 1), NULL, 10));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "start")) {
		if (first) {
			pl_connect_view_start(cv);
			return STEP_WAIT;
		}
		if (!pl_connect_view_is_recording(cv)) {
			report(s, "start", FALSE, "%s",
			       pl_connect_view_get_error(cv) ? pl_connect_view_get_error(cv)
							     : "not recording");
			return STEP_DONE;
		}
		if (pl_connect_view_get_samples(cv) > 0) {
			report(s, "start", TRUE, NULL);
			return STEP_DONE;
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "record") || !strcmp(cmd, "sleep")) {
		if (first)
			s->until = g_get_monotonic_time() +
				   (gint64)(g_ascii_strtod(arg(s, 1), NULL) * G_USEC_PER_SEC);
		return g_get_monotonic_time() >= s->until ? STEP_DONE : STEP_WAIT;
	}
	if (!strcmp(cmd, "stop")) {
		if (first) {
			pl_connect_view_stop(cv);
			return STEP_WAIT;
		}
		if (pl_connect_view_is_recording(cv))
			return STEP_WAIT;
		const char *path = pl_connect_view_get_session_path(cv);
		(void)path;
		report(s, "stop", TRUE, NULL);
		pl_window_refresh(w);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-recording")) {
		report(s, arg(s, 1), pl_connect_view_is_recording(cv),
		       "the session is no longer recording: it ended before STOP");
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-samples")) {
		PlProfile *p = pl_window_get_profile(w);
		guint64 want = g_ascii_strtoull(arg(s, 1), NULL, 10);
		guint64 have = p ? pl_profile_get_stats(p)->samples : 0;
		if (have >= want) {
			report(s, arg(s, 2), TRUE, NULL);
			return STEP_DONE;
		}
		if (timed_out(s)) {
			report(s, arg(s, 2), FALSE, "%" G_GUINT64_FORMAT " samples, wanted %" G_GUINT64_FORMAT,
			       have, want);
			return STEP_DONE;
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "expect-flame")) {
		if (pl_flame_graph_is_ready(fg) && pl_flame_graph_find_label(fg, arg(s, 1)) != G_MAXUINT32) {
			report(s, arg(s, 2), TRUE, NULL);
			return STEP_DONE;
		}
		if (timed_out(s)) {
			const PlFlameLayout *l = pl_flame_graph_get_layout(fg);
			report(s, arg(s, 2), FALSE, "no frame %s among %u frames", arg(s, 1),
			       l ? l->n_rects : 0);
			return STEP_DONE;
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "expect-threads")) {
		PlThreadTimeline *tl = pl_window_get_timeline(w);
		guint want = (guint)g_ascii_strtoull(arg(s, 2), NULL, 10), have = 0;
		GString *all = g_string_new(NULL);
		for (guint i = 0; i < pl_thread_timeline_get_n_lanes(tl); i++) {
			g_autofree char *l = pl_thread_timeline_dup_lane_label(tl, i);
			g_string_append_printf(all, "%s; ", l);
			if (g_str_has_prefix(l, arg(s, 1)))
				have++;
		}
		if (have >= want || timed_out(s)) {
			report(s, arg(s, 3), have >= want, "%u lanes named %s*, wanted %u (lanes: %s)",
			       have, arg(s, 1), want, all->str);
			g_string_free(all, TRUE);
			return STEP_DONE;
		}
		g_string_free(all, TRUE);
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "expect-callers")) {
		PlFunctionTable *t = pl_window_get_function_table(w);
		guint32 f = find_func(w, arg(s, 1));
		gboolean ok = f != PL_NO_ID && pl_function_table_select(t, f) &&
			      pl_function_table_get_n_callers(t) > 0;
		pl_window_show_view(w, "functions");
		report(s, arg(s, 2), ok, "%s: %u callers, %u callees", arg(s, 1),
		       f == PL_NO_ID ? 0 : pl_function_table_get_n_callers(t),
		       f == PL_NO_ID ? 0 : pl_function_table_get_n_callees(t));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "source")) {
		guint32 f = find_func(w, arg(s, 1));
		g_autoptr(GError) error = NULL;
		if (f == PL_NO_ID) {
			report(s, arg(s, 2), FALSE, "no function %s in the profile", arg(s, 1));
			return STEP_DONE;
		}
		if (!pl_window_open_source(w, f, &error)) {
			report(s, arg(s, 2), FALSE, "%s", error->message);
			return STEP_DONE;
		}
		PlSourceView *sv = pl_window_get_source_view(w);
		guint hot = pl_source_view_get_hot_line(sv), first_l = 0, last_l = 0;
		pl_ui_function_source(pl_window_get_profile(w), f, NULL, NULL, &first_l, &last_l);
		g_autofree char *text = pl_source_view_dup_line(sv, hot);
		gboolean ok = hot && hot >= first_l && hot <= last_l;
		report(s, arg(s, 2), ok, "hot line %u not within %s's lines %u-%u", hot, arg(s, 1),
		       first_l, last_l);
		if (ok) {
			printf("# %s: hot line %s:%u: %s\n", arg(s, 1), pl_source_view_get_file(sv), hot,
			       text ? g_strstrip(text) : "");
			fflush(stdout);
		}
		return STEP_DONE;
	}
	if (!strcmp(cmd, "search")) {
		GtkSearchEntry *e = pl_window_get_search_entry(w);
		if (first) {
			pl_window_show_view(w, "flame");
			gtk_editable_set_text(GTK_EDITABLE(e), arg(s, 1));
			return STEP_WAIT;
		}
		/* the entry reports changes after a short delay */
		double share = pl_flame_graph_get_match_share(fg);
		if (share > 0 || timed_out(s)) {
			report(s, arg(s, 2), share > 0, "search %s matched nothing", arg(s, 1));
			if (share > 0) {
				printf("# search %s covers %.1f%%\n", arg(s, 1), share * 100);
				fflush(stdout);
			}
			return STEP_DONE;
		}
		return STEP_WAIT;
	}
	if (!strcmp(cmd, "hover")) {
		/* the real pointer, through X: xdotool moves it, GTK sees motion,
		 * highlights the frame and shows its tooltip; ImageMagick's import
		 * captures the screen, tooltip window included */
		if (first) {
			guint32 node = pl_flame_graph_find_label(fg, arg(s, 1));
			double x, y;
			if (node == G_MAXUINT32 || !pl_flame_graph_get_node_center(fg, node, &x, &y)) {
				report(s, "hover_tooltip", FALSE, "no frame %s", arg(s, 1));
				return STEP_DONE;
			}
			GtkNative *native = gtk_widget_get_native(GTK_WIDGET(fg));
			double nx, ny, sx, sy;
			gtk_widget_translate_coordinates(GTK_WIDGET(fg), GTK_WIDGET(native), x, y, &nx,
							 &ny);
			gtk_native_get_surface_transform(native, &sx, &sy);
			g_autofree char *c = g_strdup_printf(
				"xdotool search --sync --onlyvisible --name PerfLens mousemove --window %%1 %d %d "
				"mousemove_relative 2 0",
				(int)(nx + sx), (int)(ny + sy));
			g_autoptr(GError) error = NULL;
			if (!g_spawn_command_line_async(c, &error)) {
				printf("skip hover_tooltip: %s\n", error->message);
				fflush(stdout);
				return STEP_DONE;
			}
			return STEP_WAIT;
		}
		if (s->ticks < 25)
			return STEP_WAIT; /* the tooltip shows after its delay */
		/* the window sits at the origin (Xvfb, no window manager) */
		GdkSurface *surf = gtk_native_get_surface(GTK_NATIVE(w));
		g_autofree char *c = g_strdup_printf("import -window root -crop %dx%d+0+0 %s",
						     gdk_surface_get_width(surf),
						     gdk_surface_get_height(surf), arg(s, 2));
		g_autoptr(GError) error = NULL;
		gint status = 0;
		if (!g_spawn_command_line_sync(c, NULL, NULL, &status, &error))
			printf("skip hover_tooltip: %s\n", error->message);
		else
			report(s, "hover_tooltip", status == 0, "import failed (status %d)", status);
		fflush(stdout);
		/* out of the way: later screenshots show no hover */
		g_spawn_command_line_sync("xdotool mousemove 0 0", NULL, NULL, NULL, NULL);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "search-clear")) {
		gtk_editable_set_text(GTK_EDITABLE(pl_window_get_search_entry(w)), "");
		pl_flame_graph_set_search(fg, NULL, NULL);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "zoom")) {
		if (!pl_flame_graph_is_ready(fg))
			return STEP_WAIT;
		if (first || s->ticks == 1) {
			guint32 node = pl_flame_graph_find_label(fg, arg(s, 1));
			if (node == G_MAXUINT32) {
				report(s, "zoom", FALSE, "no frame %s", arg(s, 1));
				return STEP_DONE;
			}
			pl_flame_graph_zoom(fg, node);
			return STEP_WAIT;
		}
		return pl_flame_graph_is_ready(fg) ? STEP_DONE : STEP_WAIT;
	}
	if (!strcmp(cmd, "zoom-out") || !strcmp(cmd, "zoom-reset")) {
		if (first) {
			if (!strcmp(cmd, "zoom-out"))
				gtk_widget_activate_action(GTK_WIDGET(w), "win.zoom-out", NULL);
			else
				pl_flame_graph_zoom(fg, 0);
			return STEP_WAIT;
		}
		return pl_flame_graph_is_ready(fg) ? STEP_DONE : STEP_WAIT;
	}
	if (!strcmp(cmd, "range")) {
		PlProfile *p = pl_window_get_profile(w);
		if (p) {
			const PlProfileStats *st = pl_profile_get_stats(p);
			double span = (double)(st->last_time - st->first_time);
			guint64 t0 = st->first_time + (guint64)(g_ascii_strtod(arg(s, 1), NULL) * span);
			guint64 t1 = st->first_time + (guint64)(g_ascii_strtod(arg(s, 2), NULL) * span);
			PlAggregate *agg = pl_window_get_aggregate(w);
			pl_window_set_filter(w, agg ? agg->filter.tid : 0, t0, t1);
		}
		return STEP_DONE;
	}
	if (!strcmp(cmd, "range-busy")) {
		/* the window of SECONDS holding most samples of the filtered
		 * thread: a flame chart worth looking at on a loaded machine */
		PlProfile *p = pl_window_get_profile(w);
		PlAggregate *agg = pl_window_get_aggregate(w);
		guint32 tid = agg ? agg->filter.tid : 0;
		guint64 win = (guint64)(g_ascii_strtod(arg(s, 1), NULL) * 1e9);
		guint n = 0;
		const PlSample *sm = p ? pl_profile_get_samples(p, &n) : NULL;
		guint64 best_t = 0;
		guint best = 0, lo = 0, count = 0;
		for (guint hi = 0; hi < n; hi++) {
			if (tid && sm[hi].tid != tid)
				continue;
			count++;
			while (sm[lo].time + win < sm[hi].time) {
				if (!tid || sm[lo].tid == tid)
					count--;
				lo++;
			}
			if (count > best) {
				best = count;
				best_t = sm[hi].time > win ? sm[hi].time - win : 0;
			}
		}
		if (best)
			pl_window_set_filter(w, tid, best_t, best_t + win);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "thread")) {
		PlProfile *p = pl_window_get_profile(w);
		guint32 tid = 0;
		if (p && strcmp(arg(s, 1), "all")) {
			GPtrArray *ts = pl_profile_get_threads(p);
			for (guint i = 0; i < ts->len && !tid; i++) {
				PlThread *t = ts->pdata[i];
				if (t->name && g_str_has_prefix(t->name, arg(s, 1)) && t->samples)
					tid = t->tid;
			}
		}
		pl_window_set_filter(w, tid, 0, 0);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "view")) {
		pl_window_show_view(w, arg(s, 1));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "connect-view")) {
		pl_window_show_connect(w);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "export-svg")) {
		g_autoptr(GError) error = NULL;
		gboolean ok = pl_flame_graph_export_svg(fg, arg(s, 1), 1600, &error);
		g_autofree char *text = NULL;
		if (ok)
			ok = g_file_get_contents(arg(s, 1), &text, NULL, &error) &&
			     strstr(text, "<svg") != NULL;
		report(s, arg(s, 2), ok, "%s", error ? error->message : "no <svg in the file");
		return STEP_DONE;
	}
	if (!strcmp(cmd, "screenshot")) {
		/* let layout, the flame worker and a frame or two happen */
		if (s->ticks < 6 || (pl_window_get_profile(w) && !pl_flame_graph_is_ready(fg)))
			return STEP_WAIT;
		g_autoptr(GError) error = NULL;
		g_autofree char *name = g_path_get_basename(arg(s, 1));
		g_autofree char *tn = g_strdup_printf("screenshot_%s", name);
		report(s, tn, pl_ui_save_png(GTK_WIDGET(w), arg(s, 1), &error), "%s",
		       error ? error->message : "");
		return STEP_DONE;
	}
	if (!strcmp(cmd, "quit")) {
		gtk_window_destroy(GTK_WINDOW(w));
		return STEP_DONE;
	}
	report(s, "script", FALSE, "unknown command '%s'", cmd);
	return STEP_DONE;
}

static gboolean tick(gpointer data)
{
	Script *s = data;
	for (;;) {
		if (!s->argv) {
			/* next non-empty, non-comment line */
			while (s->lines[s->next]) {
				char *l = g_strstrip(s->lines[s->next++]);
				if (*l && *l != '#') {
					s->argv = g_strsplit_set(l, " \t", -1);
					/* drop empty fields from repeated blanks */
					guint k = 0;
					for (guint i = 0; s->argv[i]; i++) {
						if (*s->argv[i])
							s->argv[k++] = s->argv[i];
						else
							g_free(s->argv[i]);
					}
					s->argv[k] = NULL;
					s->ticks = 0;
					s->started = g_get_monotonic_time();
					s->deadline = s->started + STEP_TIMEOUT_S * G_USEC_PER_SEC;
					if (!strcmp(s->argv[0], "record"))
						s->deadline += (gint64)(g_ascii_strtod(arg(s, 1), NULL) *
									G_USEC_PER_SEC);
					break;
				}
			}
			if (!s->argv) {
				gtk_window_destroy(GTK_WINDOW(s->win));
				g_strfreev(s->lines);
				g_free(s);
				return G_SOURCE_REMOVE;
			}
		}
		gboolean is_quit = !strcmp(arg(s, 0), "quit");
		StepResult r = run_step(s);
		s->ticks++;
		if (r == STEP_WAIT && timed_out(s)) {
			report(s, "script", FALSE, "'%s' did not complete in %d s", arg(s, 0),
			       STEP_TIMEOUT_S);
			r = STEP_DONE;
		}
		if (r == STEP_WAIT)
			return G_SOURCE_CONTINUE;
		g_clear_pointer(&s->argv, g_strfreev);
		if (is_quit) {
			g_strfreev(s->lines);
			g_free(s);
			return G_SOURCE_REMOVE;
		}
		/* run quick steps back to back, but let the main loop breathe */
		return G_SOURCE_CONTINUE;
	}
}

void pl_ui_script_start(PlWindow *win, const char *path)
{
	g_autofree char *text = NULL;
	g_autoptr(GError) error = NULL;
	if (!g_file_get_contents(path, &text, NULL, &error)) {
		printf("not ok script: %s\n", error->message);
		fflush(stdout);
		script_failed = TRUE;
		gtk_window_destroy(GTK_WINDOW(win));
		return;
	}
	Script *s = g_new0(Script, 1);
	s->win = win;
	s->lines = g_strsplit(text, "\n", -1);
	g_timeout_add(TICK_MS, tick, s);
}
