/* pl-ui-script.c — the scripted driver (see the header). */
#include "pl-ui-script.h"

#include <stdio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "pl-target-settings.h"
#include "pl-ui-test-hook.h"
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

void pl_ui_script_pick(PlWindow *w, guint32 tid, const char *f0, const char *f1, gboolean apply,
		       guint64 *ms0, guint64 *ms1)
{
	PlProfile *p = pl_window_get_profile(w);
	guint64 first = 0;
	*ms0 = *ms1 = 0;
	if (p) {
		const PlProfileStats *st = pl_profile_get_stats(p);
		double span = (double)(st->last_time - st->first_time);
		first = st->first_time;
		*ms0 = (guint64)(g_ascii_strtod(f0, NULL) * span / 1e6);
		*ms1 = (guint64)(g_ascii_strtod(f1, NULL) * span / 1e6);
	}
	if (apply)
		pl_window_set_filter(w, tid, *ms0 ? first + *ms0 * 1000000 : 0,
				     *ms1 ? first + *ms1 * 1000000 : 0);
}

void pl_ui_script_report(const char *name, gboolean ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *why = fmt ? g_strdup_vprintf(fmt, ap) : NULL;
	va_end(ap);
	report(NULL, name, ok, "%s", why ? why : "");
}

GtkWidget *pl_ui_script_find_widget(GtkWidget *root,
				    gboolean (*match)(GtkWidget *w, gconstpointer data),
				    gconstpointer data)
{
	if (match(root, data))
		return root;
	for (GtkWidget *c = gtk_widget_get_first_child(root); c;
	     c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found = pl_ui_script_find_widget(c, match, data);
		if (found)
			return found;
	}
	return NULL;
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

/* The board of the open session, else of the connection. */
static const char *target_key(PlWindow *w)
{
	PlProfile *p = pl_window_get_profile(w);
	if (p && pl_profile_get_stats(p)->hostname)
		return pl_profile_get_stats(p)->hostname;
	const PlAgentInfo *a = pl_connect_view_get_agent(pl_window_get_connect_view(w));
	return a ? a->hostname : NULL;
}

static GStrv strv_append(GStrv v, const char *x)
{
	guint n = g_strv_length(v);
	v = g_renew(char *, v, n + 2);
	v[n] = g_strdup(x);
	v[n + 1] = NULL;
	return v;
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
	if (!strcmp(cmd, "connect-timeout")) {
		pl_connect_view_set_timeout(cv, (guint)g_ascii_strtoull(arg(s, 1), NULL, 10));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-second-connect-error")) {
		/* a second viewer (another connect view, as a second window would
		 * have) connects while this one is connected: its error must name
		 * WORD */
		static PlConnectView *second;
		if (first) {
			second = g_object_ref_sink(PL_CONNECT_VIEW(pl_connect_view_new()));
			pl_connect_view_connect(second, arg(s, 1), arg(s, 2));
			return STEP_WAIT;
		}
		const char *e = pl_connect_view_get_error(second);
		gboolean done = pl_connect_view_is_connected(second) || (s->ticks > 2 && e);
		if (!done && !timed_out(s))
			return STEP_WAIT;
		if (pl_connect_view_is_connected(second))
			report(s, arg(s, 4), FALSE, "a second viewer connected too");
		else
			report(s, arg(s, 4), e && strstr(e, arg(s, 3)), "the error does not say '%s': %s",
			       arg(s, 3), e ? e : "(none)");
		if (e) {
			printf("# second viewer's error: %s\n", e);
			fflush(stdout);
		}
		g_clear_object(&second);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-facts")) {
		/* expect-facts WORDS… NAME: the board's facts, once connected, say
		 * WORDS (one or more, joined by single spaces) */
		guint n = argc_of(s);
		if (n < 3) {
			report(s, arg(s, 1), FALSE, "expect-facts wants WORDS and a NAME");
			return STEP_DONE;
		}
		char *last = s->argv[n - 1];
		s->argv[n - 1] = NULL;
		g_autofree char *want = g_strjoinv(" ", s->argv + 1);
		s->argv[n - 1] = last;
		const char *f = pl_connect_view_is_connected(cv) ? pl_connect_view_get_facts(cv) : NULL;
		if (!(f && strstr(f, want)) && !timed_out(s))
			return STEP_WAIT;
		report(s, last, f && strstr(f, want), "the facts do not say '%s': %s", want,
		       f ? f : "(not connected)");
		printf("# board facts: %s\n", f ? f : "");
		fflush(stdout);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-start-refused")) {
		/* expect-start-refused WORD NAME: Start ends in an error naming WORD */
		if (first) {
			pl_connect_view_start(cv);
			return STEP_WAIT;
		}
		const char *e = pl_connect_view_get_error(cv);
		if (pl_connect_view_is_recording(cv) && !timed_out(s))
			return STEP_WAIT;
		if (!e && !timed_out(s))
			return STEP_WAIT;
		report(s, arg(s, 2), !pl_connect_view_is_recording(cv) && e && strstr(e, arg(s, 1)),
		       "recording=%d, the error does not say '%s': %s",
		       pl_connect_view_is_recording(cv), arg(s, 1), e ? e : "(none)");
		printf("# start refused: %s\n", e ? e : "");
		fflush(stdout);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-symbols-note")) {
		/* expect-symbols-note WORD NAME: after connecting, the board page
		 * says what the last session's symbols were, naming WORD */
		const char *note = pl_connect_view_get_symbols_note(cv);
		if ((!note || !*note) && !timed_out(s))
			return STEP_WAIT;
		report(s, arg(s, 2), note && strstr(note, arg(s, 1)), "the note does not say '%s': %s",
		       arg(s, 1), note ? note : "(none)");
		printf("# symbols before recording: %s\n", note ? note : "");
		fflush(stdout);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-lbr-caveat")) {
		/* expect-lbr-caveat NAME: after connecting, the board page says
		 * LBR is not proven here (no test sample had an LBR call stack),
		 * or, where one had, that it is not verified on hardware */
		const char *notes = pl_connect_view_get_probe_notes(cv);
		const PlAgentInfo *a = pl_connect_view_get_agent(cv);
		if ((!notes || !strstr(notes, "LBR")) && !timed_out(s))
			return STEP_WAIT;
		const char *want = a && (a->flags & PL_HELLO_CG_LBR)
					   ? "not verified on Intel hardware"
					   : "not proven on this board";
		report(s, arg(s, 1), notes && strstr(notes, want), "the notes do not say '%s': %s",
		       want, notes ? notes : "(none)");
		printf("# probe notes: %s\n", notes ? notes : "");
		fflush(stdout);
		return STEP_DONE;
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
		/* pick COMM [PID]: other programs of that name may run here */
		guint32 pid = (guint32)g_ascii_strtoull(arg(s, 2), NULL, 10);
		gboolean ok = pl_connect_view_select_process(cv, arg(s, 1), pid);
		report(s, "pick_process", ok, "no process %s %s in the list", arg(s, 1), arg(s, 2));
		return STEP_DONE;
	}
	if (!strcmp(cmd, "command")) {
		/* command ARGS…: the board starts it when recording starts */
		g_autofree char *c = g_strjoinv(" ", s->argv + 1);
		pl_connect_view_set_command(cv, c);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "syscalls")) {
		/* syscalls LIST [DUR]: the Record form's slow system calls */
		pl_connect_view_set_syscalls(cv, arg(s, 1), argc_of(s) > 2 ? arg(s, 2) : NULL);
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
	if (!strcmp(cmd, "thread-details")) {
		/* thread-details PREFIX NEEDLE PNG CASE: the right-click details of
		 * the last thread named PREFIX* that has a creation stack contain
		 * NEEDLE; the popover is photographed into PNG */
		PlThreadTimeline *tl = pl_window_get_timeline(w);
		PlProfile *p = pl_window_get_profile(w);
		static GtkWidget *pop;
		static char *text;
		if (s->ticks == 0) {
			g_clear_pointer(&text, g_free);
			pop = NULL;
			PlThread *found = NULL;
			GPtrArray *ts = p ? pl_profile_get_threads(p) : NULL;
			for (guint i = 0; ts && i < ts->len; i++) {
				PlThread *t = ts->pdata[i];
				if (t->name && g_str_has_prefix(t->name, arg(s, 1)) &&
				    pl_profile_thread_creation_stack(p, t->tid, NULL) != PL_NO_ID)
					found = t;
			}
			if (!found) {
				report(s, arg(s, 4), FALSE, "no thread %s* with a creation stack",
				       arg(s, 1));
				return STEP_DONE;
			}
			text = pl_thread_timeline_dup_thread_details(tl, found->tid);
			pop = pl_thread_timeline_show_thread_details(tl, found->tid);
			return STEP_WAIT;
		}
		if (s->ticks < 6)
			return STEP_WAIT; /* let the popover map and draw */
		g_autoptr(GError) error = NULL;
		gboolean ok = text && strstr(text, arg(s, 2)) && pop &&
			      pl_ui_save_png(pop, arg(s, 3), &error);
		g_autofree char *one = g_strdup(text ? text : "");
		g_strdelimit(one, "\n", '|');
		printf("# thread details: %s\n", one);
		report(s, arg(s, 4), ok, "%s not in the details, or no picture (%s): %s", arg(s, 2),
		       error ? error->message : "", one);
		if (pop)
			gtk_popover_popdown(GTK_POPOVER(pop));
		return STEP_DONE;
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
	if (!strcmp(cmd, "range-clear")) {
		PlAggregate *agg = pl_window_get_aggregate(w);
		pl_window_set_filter(w, agg ? agg->filter.tid : 0, 0, 0);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "heatmap-select")) {
		/* heatmap-select COL ROW COL ROW NAME: a drag from one cell to
		 * the other; every view must then show exactly that time: the
		 * window's range is the cells' and its aggregate holds as many
		 * samples as the cells do */
		PlHeatmapView *hv = pl_window_get_heatmap_view(w);
		const PlHeatmap *m = pl_heatmap_view_get_heatmap(hv);
		if (!m || !m->total) {
			report(s, arg(s, 5), FALSE, "no heatmap (or no samples in it)");
			return STEP_DONE;
		}
		guint c0 = (guint)atoi(arg(s, 1)), r0 = (guint)atoi(arg(s, 2));
		guint c1 = (guint)atoi(arg(s, 3)), r1 = (guint)atoi(arg(s, 4));
		pl_heatmap_view_select(hv, c0, r0, c1, r1);
		guint64 t0, t1, cells = 0;
		pl_heatmap_range(m, c0, r0, c1, r1, &t0, &t1);
		for (guint64 k = (guint64)c0 * m->n_rows + r0; k <= (guint64)c1 * m->n_rows + r1; k++)
			cells += pl_heatmap_get(m, (guint)(k / m->n_rows), (guint)(k % m->n_rows));
		PlAggregate *agg = pl_window_get_aggregate(w);
		gboolean ok = agg && agg->filter.t0 == t0 && agg->filter.t1 == t1 &&
			      agg->all.samples == cells && cells > 0;
		report(s, arg(s, 5), ok,
		       "range %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT " (cells %" G_GUINT64_FORMAT
		       "..%" G_GUINT64_FORMAT "), %" G_GUINT64_FORMAT " samples in view, %" G_GUINT64_FORMAT
		       " in the cells",
		       agg ? agg->filter.t0 : 0, agg ? agg->filter.t1 : 0, t0, t1,
		       agg ? agg->all.samples : 0, cells);
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
		const PlSampleCtx *sm_cx = p ? pl_profile_get_sample_ctx(p) : NULL;
		guint64 best_t = 0;
		guint best = 0, lo = 0, count = 0;
		for (guint hi = 0; hi < n; hi++) {
			if (tid && pl_sample_tid(sm_cx, &sm[hi]) != tid)
				continue;
			count++;
			while (sm[lo].time + win < sm[hi].time) {
				if (!tid || pl_sample_tid(sm_cx, &sm[lo]) == tid)
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
		/* after the window's own pick: the findings it waits for */
		if (pl_profile_session_findings_pending(pl_window_get_session(w)))
			return STEP_WAIT;
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
	/* ─── symbol settings and coverage ─── */
	if (!strcmp(cmd, "target-set") || !strcmp(cmd, "target-clear")) {
		/* target-set FIELD VALUE: as typed in the board's settings dialog */
		const char *key = target_key(w);
		g_autoptr(PlTargetSettings) ts = pl_target_settings_load(key);
		const char *f = arg(s, 1), *v = arg(s, 2);
		if (!strcmp(cmd, "target-clear")) {
			PlTargetSettings *empty = pl_target_settings_load(NULL);
			g_free(empty->key);
			empty->key = g_strdup(key);
			pl_target_settings_free(g_steal_pointer(&ts));
			ts = empty;
		} else if (!strcmp(f, "toolchain-prefix")) {
			g_free(ts->toolchain_prefix), ts->toolchain_prefix = g_strdup(v);
		} else if (!strcmp(f, "sysroot")) {
			g_free(ts->sysroot), ts->sysroot = g_strdup(v);
		} else if (!strcmp(f, "map-file")) {
			g_free(ts->map_file), ts->map_file = g_strdup(v);
		} else if (!strcmp(f, "vmlinux")) {
			g_free(ts->vmlinux), ts->vmlinux = g_strdup(v);
		} else if (!strcmp(f, "binary")) {
			ts->binaries = strv_append(ts->binaries, v);
		} else if (!strcmp(f, "debug-dir")) {
			ts->debug_dirs = strv_append(ts->debug_dirs, v);
		} else if (!strcmp(f, "source-dir")) {
			ts->source_dirs = strv_append(ts->source_dirs, v);
		} else if (!strcmp(f, "path-map")) {
			ts->path_maps = strv_append(ts->path_maps, v);
		} else if (!strcmp(f, "inline")) {
			ts->no_inline = strcmp(v, "on") != 0;
		} else {
			report(s, "script", FALSE, "target-set: unknown field %s", f);
			return STEP_DONE;
		}
		g_autoptr(GError) error = NULL;
		if (!pl_target_settings_save(ts, &error))
			report(s, "target_settings_saved", FALSE, "%s", error->message);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "resymbolize")) {
		if (first) {
			pl_window_resymbolize(w);
			return STEP_WAIT;
		}
		if (pl_window_is_loading(w) || !pl_flame_graph_is_ready(fg))
			return STEP_WAIT;
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-function")) {
		/* expect-function FUNC yes|no NAME: FUNC is (not) in the profile */
		gboolean want = !strcmp(arg(s, 2), "yes");
		gboolean have = find_func(w, arg(s, 1)) != PL_NO_ID;
		report(s, arg(s, 3), have == want, "%s is %sin the profile", arg(s, 1),
		       have ? "" : "not ");
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-coverage")) {
		/* expect-coverage MODULE good|problem NAME */
		PlCoverageView *cov = pl_window_get_coverage_view(w);
		gboolean good = FALSE;
		const char *advice = NULL;
		gboolean found = pl_coverage_view_lookup(cov, arg(s, 1), &good, &advice);
		gboolean want = !strcmp(arg(s, 2), "good");
		report(s, arg(s, 3), found && good == want && (want || advice),
		       found ? "%s is %s (advice: %s)" : "no module %s in the coverage%s%s", arg(s, 1),
		       found ? (good ? "fine" : "a problem") : "", advice ? advice : "none");
		if (found) {
			printf("# coverage %s: %s; %u of %u modules need attention%s%s\n", arg(s, 1),
			       good ? "fine" : "problem", pl_coverage_view_get_n_problems(cov),
			       pl_coverage_view_get_n_modules(cov), advice ? "; advice: " : "",
			       advice ? advice : "");
			fflush(stdout);
		}
		return STEP_DONE;
	}
	if (!strcmp(cmd, "target-dialog")) {
		/* the settings dialog of the open session's board, as a PNG */
		static PlTargetDialog *dlg;
		if (first) {
			dlg = pl_window_edit_target_settings(w, target_key(w));
			if (!dlg) {
				report(s, "target_dialog", FALSE, "no target to edit");
				return STEP_DONE;
			}
			return STEP_WAIT;
		}
		if (s->ticks < 8)
			return STEP_WAIT;
		g_autoptr(GError) error = NULL;
		g_autofree char *name = g_path_get_basename(arg(s, 1));
		g_autofree char *tn = g_strdup_printf("screenshot_%s", name);
		report(s, tn, pl_ui_save_png(GTK_WIDGET(dlg), arg(s, 1), &error), "%s",
		       error ? error->message : "");
		gtk_window_destroy(GTK_WINDOW(dlg));
		dlg = NULL;
		return STEP_DONE;
	}
	/* ─── diff and health (the other developer's views, placed here) ─── */
	if (!strcmp(cmd, "diff")) {
		/* diff TEXT NAME: as "Diff…" then "Compare with open session" on TEXT */
		PlSessionsView *sv = pl_window_get_sessions_view(w);
		PlDiffView *dv = pl_window_get_diff_view(w);
		static gboolean asked;
		if (first) {
			asked = FALSE;
			gtk_widget_activate_action(GTK_WIDGET(w), "win.diff", NULL);
			return STEP_WAIT;
		}
		if (!asked) {
			if (pl_sessions_view_is_busy(sv))
				return STEP_WAIT;
			guint i = pl_sessions_view_find(sv, arg(s, 1));
			if (i == G_MAXUINT) {
				report(s, arg(s, 2), FALSE, "no session named *%s*", arg(s, 1));
				return STEP_DONE;
			}
			pl_sessions_view_select(sv, i);
			g_signal_emit_by_name(sv, "diff-session", pl_sessions_view_get_info(sv, i)->path);
			asked = TRUE;
			return STEP_WAIT;
		}
		if (pl_window_is_diff_loading(w))
			return STEP_WAIT;
		const char *e = pl_window_get_diff_error(w);
		guint n = pl_diff_view_get_n_rows(dv);
		report(s, arg(s, 2), !e && n > 0, "%s", e ? e : "the diff shows no functions");
		for (guint i = 0; i < MIN(n, 3u); i++)
			printf("# diff row %u: %s %+.1f points\n", i, pl_diff_view_get_row_label(dv, i),
			       pl_diff_view_get_row_delta(dv, i));
		fflush(stdout);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "expect-health")) {
		/* expect-health N NAME: the Health page draws ≥ N series */
		PlHealthView *hv = pl_window_get_health_view(w);
		guint want = (guint)g_ascii_strtoull(arg(s, 1), NULL, 10);
		guint n = pl_health_view_get_n_series(hv);
		report(s, arg(s, 2), n >= want, "%u health graphs, wanted %u", n, want);
		for (guint i = 0; i < n; i++)
			printf("# health %s: now %.1f, peak %.1f\n", pl_health_view_get_series_name(hv, i),
			       pl_health_view_get_series_last(hv, i), pl_health_view_get_series_peak(hv, i));
		fflush(stdout);
		return STEP_DONE;
	}
	if (!strcmp(cmd, "quit")) {
		gtk_window_destroy(GTK_WINDOW(w));
		return STEP_DONE;
	}
	/* the call-tree transforms' commands (pl-ui-script-transforms.c) */
	PlUiStep t = pl_ui_script_transforms_step(w, s->argv, s->ticks, timed_out(s));
	/* the sessions list's (pl-ui-script-sessions.c) */
	if (t == PL_UI_STEP_UNKNOWN)
		t = pl_ui_script_sessions_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN)
		t = pl_ui_script_labels_step(w, s->argv, s->ticks, timed_out(s));
	/* the Source tab's (pl-ui-script-source.c) */
	if (t == PL_UI_STEP_UNKNOWN)
		t = pl_ui_script_source_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* slow system calls (pl-ui-script-io.c) */
		t = pl_ui_script_io_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* functions of one name (pl-ui-script-names.c) */
		t = pl_ui_script_names_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* Save now (pl-ui-script-flight.c) */
		t = pl_ui_script_flight_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* the Fleet page (pl-ui-script-fleet.c) */
		t = pl_ui_script_fleet_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* the Locks page (pl-ui-script-locks.c) */
		t = pl_ui_script_locks_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* counter tracks (pl-ui-script-tracks.c) */
		t = pl_ui_script_tracks_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* the Findings page (pl-ui-script-findings.c) */
		t = pl_ui_script_findings_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* the timeline's interrupts (pl-ui-script-irq.c) */
		t = pl_ui_script_irq_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* the Block I/O page (pl-ui-script-block.c) */
		t = pl_ui_script_block_step(w, s->argv, s->ticks, timed_out(s));
	if (t == PL_UI_STEP_UNKNOWN) /* timed actions (pl-ui-script-timing.c) */
		t = pl_ui_script_timing_step(w, s->argv, s->ticks, timed_out(s));
	if (t != PL_UI_STEP_UNKNOWN)
		return t == PL_UI_STEP_WAIT ? STEP_WAIT : STEP_DONE;
	report(s, "script", FALSE, "unknown command '%s'", cmd);
	return STEP_DONE;
}

/* scripts started and not ended: windows opened meanwhile run none */
static guint scripts_running;

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
				scripts_running--;
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
			/* what the connect view shows says why, more often than not */
			PlConnectView *cv = pl_window_get_connect_view(s->win);
			const char *e = pl_connect_view_get_error(cv);
			report(s, "script", FALSE,
			       "'%s' did not complete in %d s (%s; status: %s; error shown: %s)",
			       arg(s, 0), STEP_TIMEOUT_S,
			       pl_connect_view_is_connected(cv) ? "connected" : "not connected",
			       pl_connect_view_get_status(cv), e ? e : "none");
			r = STEP_DONE;
		}
		if (r == STEP_WAIT)
			return G_SOURCE_CONTINUE;
		g_clear_pointer(&s->argv, g_strfreev);
		if (is_quit) {
			scripts_running--;
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
	if (!path || !g_file_get_contents(path, &text, NULL, &error)) {
		printf("not ok script: %s\n",
		       error ? error->message : "no script: set PERFLENS_UI_SCRIPT=FILE");
		fflush(stdout);
		script_failed = TRUE;
		gtk_window_destroy(GTK_WINDOW(win));
		return;
	}
	Script *s = g_new0(Script, 1);
	s->win = win;
	s->lines = g_strsplit(text, "\n", -1);
	scripts_running++;
	g_timeout_add(TICK_MS, tick, s);
}

/* ─── the module's entry (viewer/ui/pl-ui-test-hook.h) ─── */

static char *script_path; /* PERFLENS_UI_SCRIPT, for the process */

/* From the main loop, once the app has set the added window up and shown
 * it: window-added comes while the window is being constructed, which a
 * script that cannot be read (the window destroyed) must not cut short. */
static gboolean start_in(gpointer data)
{
	PlWindow *win = data;
	/* a window the running script opened (a fleet session) is its to
	 * check and close, not one more run of the script */
	if (scripts_running) {
		g_object_unref(win);
		return G_SOURCE_REMOVE;
	}
	pl_ui_script_start(win, script_path);
	g_object_unref(win);
	return G_SOURCE_REMOVE;
}

static void on_window_added(GtkApplication *app, GtkWindow *win, gpointer data)
{
	/* main windows only: a dialog the script opens runs no script */
	if (PL_IS_WINDOW(win))
		g_idle_add(start_in, g_object_ref(win));
}

PlUiTestFinish pl_ui_test_attach(GtkApplication *app)
{
	script_path = g_strdup(g_getenv("PERFLENS_UI_SCRIPT"));
	g_signal_connect(app, "window-added", G_CALLBACK(on_window_added), NULL);
	return pl_ui_script_exit_status;
}
