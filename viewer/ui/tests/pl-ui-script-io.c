/* pl-ui-script-io.c — the scripted driver's commands for slow system calls
 * (issue 19; listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 * Each check prints what it saw as "# io-…" lines, for the test script to
 * compare with its own oracle (`perflens report --tracepoints` on the same
 * session file).  The filter's commands act through X (xdotool: a drag on
 * the timeline, a click on a thread's name, on "Show everything", on a
 * row), as the user does, and then print the window's filter and what the
 * page counts in "# io-sel" lines.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

static gboolean page_visible(PlWindow *w)
{
	GtkWidget *io = GTK_WIDGET(pl_window_get_io_view(w));
	GtkWidget *st = gtk_widget_get_parent(io);
	return GTK_IS_STACK(st) && gtk_stack_page_get_visible(gtk_stack_get_page(GTK_STACK(st), io));
}

static gboolean range_is(PlWindow *w, guint64 t0, guint64 t1)
{
	PlAggregate *agg = pl_window_get_aggregate(w);
	return agg && agg->filter.t0 == t0 && agg->filter.t1 == t1;
}

static PlFilter window_filter(PlWindow *w)
{
	PlAggregate *agg = pl_window_get_aggregate(w);
	return agg ? agg->filter : PL_FILTER_ALL;
}

/* (x, y) of widget, in the window's X coordinates (for xdotool's
 * mousemove --window). */
static void window_point(GtkWidget *widget, double x, double y, int *wx, int *wy)
{
	GtkNative *native = gtk_widget_get_native(widget);
	double nx = 0, ny = 0, sx = 0, sy = 0;
	gtk_widget_translate_coordinates(widget, GTK_WIDGET(native), x, y, &nx, &ny);
	gtk_native_get_surface_transform(native, &sx, &sy);
	*wx = (int)(nx + sx);
	*wy = (int)(ny + sy);
}

/* xdotool on the app's window: ACTIONS with the window as %1; the pointer
 * leaves afterwards (no hover in later screenshots). */
static gboolean xdo(const char *actions, GError **error)
{
	g_autofree char *c = g_strdup_printf("xdotool search --sync --onlyvisible --name PerfLens "
					     "%s mousemove 0 0",
					     actions);
	return g_spawn_command_line_async(c, error);
}

static gboolean x_click(GtkWidget *widget, double x, double y, GError **error)
{
	int wx, wy;
	window_point(widget, x, y, &wx, &wy);
	g_autofree char *a = g_strdup_printf("mousemove --window %%1 %d %d click 1", wx, wy);
	return xdo(a, error);
}

/* A thread with a lane in the timeline: the process's main thread (tid =
 * pid) or, for "other", the first of its others; 0 when none. */
static guint32 lane_thread(PlWindow *w, gboolean main_thread)
{
	PlProfile *p = pl_window_get_profile(w);
	PlThreadTimeline *tl = pl_window_get_timeline(w);
	GPtrArray *ts = p ? pl_profile_get_threads(p) : NULL;
	for (guint i = 0; ts && i < ts->len; i++) {
		PlThread *t = ts->pdata[i];
		double x, y;
		if ((t->tid == t->pid) == main_thread &&
		    pl_thread_timeline_get_bar_center(tl, t->tid, t->start, t->start, 0, &x, &y))
			return t->tid;
	}
	return 0;
}

static PlSlowCall clicked; /* the call a click selected */

static gboolean is_list_box(GtkWidget *w, gconstpointer unused)
{
	return GTK_IS_LIST_BOX(w);
}

/* The first list box under widget (the I/O page's slowest calls). */
static GtkWidget *find_list(GtkWidget *widget)
{
	return pl_ui_script_find_widget(widget, is_list_box, NULL);
}

static gboolean is_button_labelled(GtkWidget *w, gconstpointer label)
{
	return GTK_IS_BUTTON(w) && !g_strcmp0(gtk_button_get_label(GTK_BUTTON(w)), label);
}

/* What the page shows under the window's filter, printed as "# io-sel NAME
 * TID T0 T1 SHOWN ALL" (T0, T1 in seconds from the session's start, "-"
 * without a range, or when the range is a listed call's: picked) for the
 * test's oracle; TRUE when its parts agree with
 * one another and its first line says what it shows (else why). */
static gboolean page_agrees(PlWindow *w, const char *name, GString *why)
{
	PlIoView *io = pl_window_get_io_view(w);
	PlFlameGraph *fg = pl_io_view_get_flame_graph(io);
	PlFilter f = window_filter(w);
	guint64 t0 = pl_profile_get_stats(pl_window_get_profile(w))->first_time;
	guint n = pl_io_view_get_n_calls(io), all = pl_io_view_get_n_all(io);
	guint64 total = 0;
	gboolean picked = FALSE; /* the window's range is a listed call's own */
	for (guint i = 0; pl_io_view_get_slowest(io, i); i++) {
		const PlSlowCall *c = pl_io_view_get_slowest(io, i);
		total += c->duration_ns;
		picked |= f.t1 && c->time == f.t0 && c->time + c->duration_ns == f.t1;
	}
	/* a picked call's range filters the other views, not the page */
	if (picked)
		f.t0 = f.t1 = 0;
	PlIoRow r = { 0 };
	pl_io_view_get_row(io, "clock_nanosleep", &r);
	const PlFlameLayout *l = pl_flame_graph_get_layout(fg);
	guint64 root = l ? l->zoom_total : 0;
	guint hist = pl_io_view_get_n_in_histogram(io), listed = pl_io_view_get_n_listed(io);
	const char *summary = pl_io_view_get_summary(io);
	if (f.t1 > f.t0)
		printf("# io-sel %s %u %.9f %.9f %u %u\n", name, f.tid,
		       (double)(f.t0 - MIN(f.t0, t0)) / 1e9, (double)(f.t1 - MIN(f.t1, t0)) / 1e9, n,
		       all);
	else
		printf("# io-sel %s %u - - %u %u\n", name, f.tid, n, all);
	printf("# io-page %s: row %u calls, %" G_GUINT64_FORMAT " ns; flame root %" G_GUINT64_FORMAT
	       "; histogram %u; listed %u; \"%s\"\n",
	       name, r.count, r.total_ns, root, hist, listed, summary);
	fflush(stdout);
	gboolean filtered = f.tid || f.t1 > f.t0;
	g_autofree char *says = !filtered ? g_strdup_printf("%u slow system calls", all)
				: n	  ? g_strdup_printf("%u of %u slow system calls", n, all)
					  : g_strdup_printf("None of the %u slow system calls", all);
	/* only clock_nanosleep is timed: its row is every call shown; the
	 * slowest list holds them all (fewer than 100) */
	g_string_append_printf(why,
			       "%u calls shown of %u: row %u (%" G_GUINT64_FORMAT " ns of %" G_GUINT64_FORMAT
			       "), flame root %" G_GUINT64_FORMAT ", histogram %u, listed %u; the page "
			       "says \"%s\", want \"%s…\"",
			       n, all, r.count, r.total_ns, total, root, hist, listed, summary, says);
	return r.count == n && r.total_ns == total && root == total && hist == n && listed == n &&
	       g_str_has_prefix(summary, says);
}

/* page_agrees, once the flame graph is laid out (WAIT until then). */
static PlUiStep report_sel(PlWindow *w, const char *name, gboolean timed_out)
{
	PlFlameGraph *fg = pl_io_view_get_flame_graph(pl_window_get_io_view(w));
	if (!pl_flame_graph_is_ready(fg) && !timed_out)
		return PL_UI_STEP_WAIT;
	g_autoptr(GString) why = g_string_new(NULL);
	gboolean ok = page_agrees(w, name, why);
	pl_ui_script_report(name, ok, "%s", why->str);
	return PL_UI_STEP_DONE;
}

static PlFilter before; /* the window's filter when the step began */

/* The step's X action started (ticks 0), then WAIT until the window's filter
 * is want (or, want NULL, differs from before), then report_sel. */
static PlUiStep await_filter(PlWindow *w, const char *name, const PlFilter *want,
			     gboolean timed_out)
{
	PlFilter f = window_filter(w);
	gboolean there = want ? f.tid == want->tid && f.t0 == want->t0 && f.t1 == want->t1
			      : f.tid != before.tid || f.t0 != before.t0 || f.t1 != before.t1;
	if (!there && !timed_out)
		return PL_UI_STEP_WAIT;
	if (!there) {
		pl_ui_script_report(name, FALSE,
				    "the window's filter is still thread %u, [%" G_GUINT64_FORMAT
				    ", %" G_GUINT64_FORMAT ")",
				    f.tid, f.t0, f.t1);
		return PL_UI_STEP_DONE;
	}
	return report_sel(w, name, timed_out);
}

PlUiStep pl_ui_script_io_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0] ? argv[0] : "";
	const char *name = argv[0] && argv[1] ? argv[1] : cmd;
	PlConnectView *cv = pl_window_get_connect_view(w);
	PlIoView *io = pl_window_get_io_view(w);

	if (!strcmp(cmd, "start-wait-end")) {
		/* a command that ends by itself: START, then its end */
		if (ticks == 0) {
			pl_connect_view_start(cv);
			return PL_UI_STEP_WAIT;
		}
		if (pl_connect_view_is_recording(cv) && !timed_out)
			return PL_UI_STEP_WAIT;
		const char *e = pl_connect_view_get_error(cv);
		gboolean ok = !pl_connect_view_is_recording(cv) && !e && pl_window_get_profile(w);
		pl_ui_script_report(name, ok, "%s", e ? e : "the session did not end");
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-io-hidden")) {
		gboolean vis = page_visible(w);
		pl_ui_script_report(name, !vis && pl_io_view_get_n_calls(io) == 0,
				    "the I/O page is shown with %u calls", pl_io_view_get_n_calls(io));
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-io")) {
		/* expect-io SYSCALL NAME: the page, its row, the flame graph's
		 * root, the timeline's bars */
		const char *call = argv[1] ? argv[1] : "";
		name = argv[1] && argv[2] ? argv[2] : cmd;
		PlFlameGraph *fg = pl_io_view_get_flame_graph(io);
		if (!pl_flame_graph_is_ready(fg) && !timed_out)
			return PL_UI_STEP_WAIT;
		if (ticks < 5) /* a frame drawn: the timeline's bars counted */
			return PL_UI_STEP_WAIT;
		PlIoRow r = { 0 };
		gboolean have = pl_io_view_get_row(io, call, &r);
		const PlFlameLayout *l = pl_flame_graph_get_layout(fg);
		guint64 root = l ? l->zoom_total : 0;
		guint bars = 0;
		pl_thread_timeline_get_n_ticks(pl_window_get_timeline(w), &bars);
		guint n = pl_io_view_get_n_calls(io);
		printf("# io-row %s %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", call, r.count,
		       r.total_ns, r.max_ns);
		printf("# io-flame-root %" G_GUINT64_FORMAT "\n# io-bars %u\n# io-calls %u\n", root,
		       bars, n);
		fflush(stdout);
		pl_ui_script_report(name,
				    page_visible(w) && have && r.count == n && root == r.total_ns &&
					    bars == n,
				    "page %s, row %s (%u calls of %u), flame root %" G_GUINT64_FORMAT
				    " vs total %" G_GUINT64_FORMAT ", %u bars",
				    page_visible(w) ? "shown" : "hidden", have ? "found" : "missing",
				    r.count, n, root, r.total_ns, bars);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "io-click-slowest")) {
		/* io-click-slowest NEEDLE NAME: its row clicked (through X), the
		 * window's range is its [entry, exit], its stack holds NEEDLE, and
		 * the page keeps every call, the clicked one's row selected */
		name = argv[1] && argv[2] ? argv[2] : cmd;
		if (ticks == 0) {
			const PlSlowCall *c = pl_io_view_get_slowest(io, 0);
			GtkWidget *lb = find_list(GTK_WIDGET(io));
			GtkListBoxRow *row =
				lb ? gtk_list_box_get_row_at_index(GTK_LIST_BOX(lb), 0) : NULL;
			g_autoptr(GError) error = NULL;
			if (!c || !row) {
				pl_ui_script_report(name, FALSE, "no slow call listed");
				return PL_UI_STEP_DONE;
			}
			clicked = *c; /* set_filter rebuilds the page: a copy */
			if (!x_click(GTK_WIDGET(row), gtk_widget_get_width(GTK_WIDGET(row)) / 2.0,
				     gtk_widget_get_height(GTK_WIDGET(row)) / 2.0, &error)) {
				pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
				return PL_UI_STEP_DONE;
			}
			return PL_UI_STEP_WAIT;
		}
		const PlSlowCall *c = &clicked;
		gboolean there = range_is(w, c->time, c->time + c->duration_ns);
		PlFlameGraph *fg = pl_io_view_get_flame_graph(io);
		if ((!there || !pl_flame_graph_is_ready(fg)) && !timed_out)
			return PL_UI_STEP_WAIT;
		guint64 t0 = pl_profile_get_stats(pl_window_get_profile(w))->first_time;
		printf("# io-slowest %.6f %" G_GUINT64_FORMAT "\n",
		       c->time >= t0 ? (double)(c->time - t0) / 1e9 : 0.0, c->duration_ns);
		fflush(stdout);
		g_autoptr(GString) why = g_string_new(NULL);
		gboolean agrees = page_agrees(w, name, why);
		const PlSlowCall *first = pl_io_view_get_slowest(io, 0);
		GtkWidget *lb = find_list(GTK_WIDGET(io));
		GtkListBoxRow *sel = lb ? gtk_list_box_get_selected_row(GTK_LIST_BOX(lb)) : NULL;
		gboolean ok = there && agrees && first && first->time == c->time && sel &&
			      gtk_list_box_row_get_index(sel) == 0 &&
			      strstr(pl_io_view_get_stack_text(io), argv[1] ? argv[1] : "") != NULL;
		PlAggregate *agg = pl_window_get_aggregate(w);
		pl_ui_script_report(name, ok,
				    "range [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
				    "], the call's [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
				    "]; row %d selected; stack: %s; %s",
				    agg ? agg->filter.t0 : 0, agg ? agg->filter.t1 : 0, c->time,
				    c->time + c->duration_ns, sel ? gtk_list_box_row_get_index(sel) : -1,
				    pl_io_view_get_stack_text(io), why->str);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "io-click-bar")) {
		/* the slowest call's bar on its thread's lane, clicked: the window's
		 * range is its [entry, exit]; the page keeps every call */
		const PlSlowCall *slowest = pl_io_view_get_slowest(io, 0);
		PlThreadTimeline *tl = pl_window_get_timeline(w);
		double x = 0, y = 0;
		if (ticks == 0) {
			if (!slowest ||
			    !pl_thread_timeline_get_bar_center(tl, slowest->tid, slowest->time,
							       slowest->time + slowest->duration_ns, 0,
							       &x, &y)) {
				pl_ui_script_report(name, FALSE, "no bar for the slowest call");
				return PL_UI_STEP_DONE;
			}
			clicked = *slowest; /* set_filter rebuilds the page: a copy */
			pl_window_set_filter(w, 0, 0, 0);
			pl_thread_timeline_click(tl, x, y);
			if (!range_is(w, clicked.time, clicked.time + clicked.duration_ns)) {
				pl_ui_script_report(name, FALSE,
						    "a click on its bar at (%.1f, %.1f) did not select it",
						    x, y);
				return PL_UI_STEP_DONE;
			}
		}
		return report_sel(w, name, timed_out);
	}
	if (!strcmp(cmd, "io-drag")) {
		/* io-drag F0 F1 NAME: a drag (through X) across the main thread's
		 * lane from the fraction F0 of the session to F1 */
		name = argv[1] && argv[2] && argv[3] ? argv[3] : cmd;
		if (ticks > 0)
			return await_filter(w, name, NULL, timed_out);
		if (!argv[1] || !argv[2]) {
			pl_ui_script_report(cmd, FALSE, "usage: io-drag F0 F1 NAME");
			return PL_UI_STEP_DONE;
		}
		before = window_filter(w);
		PlProfile *p = pl_window_get_profile(w);
		PlThreadTimeline *tl = pl_window_get_timeline(w);
		guint32 tid = lane_thread(w, TRUE);
		double x0, x1, y, yy;
		const PlProfileStats *st = p ? pl_profile_get_stats(p) : NULL;
		double span = st ? (double)(st->last_time - st->first_time) : 0;
		guint64 t0 = st ? st->first_time : 0;
		guint64 a = t0 + (guint64)(g_ascii_strtod(argv[1], NULL) * span);
		guint64 b = t0 + (guint64)(g_ascii_strtod(argv[2], NULL) * span);
		if (!tid || !pl_thread_timeline_get_bar_center(tl, tid, a, a, 0, &x0, &y) ||
		    !pl_thread_timeline_get_bar_center(tl, tid, b, b, 0, &x1, &yy)) {
			pl_ui_script_report(name, FALSE, "no lane for the main thread");
			return PL_UI_STEP_DONE;
		}
		int ax, ay, bx, by;
		/* mid-lane, above the bars (a press on a bar is a drag all the same) */
		window_point(GTK_WIDGET(tl), x0, y - 8, &ax, &ay);
		window_point(GTK_WIDGET(tl), x1, y - 8, &bx, &by);
		g_autofree char *act = g_strdup_printf(
			"mousemove --window %%1 %d %d mousedown 1 sleep 0.1 mousemove --window %%1 %d %d "
			"sleep 0.1 mousemove --window %%1 %d %d sleep 0.1 mouseup 1",
			ax, ay, (ax + bx) / 2, ay, bx, by);
		g_autoptr(GError) error = NULL;
		if (!xdo(act, &error)) {
			pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	if (!strcmp(cmd, "io-click-thread")) {
		/* io-click-thread main|other NAME: a click (through X) on that
		 * thread's name in the timeline: the filter is that thread (a
		 * click on the selected one: all threads), the range kept */
		name = argv[1] && argv[2] ? argv[2] : cmd;
		guint32 tid = lane_thread(w, !g_strcmp0(argv[1], "main"));
		if (ticks > 0) {
			PlFilter want = before;
			want.tid = before.tid == tid ? 0 : tid;
			return await_filter(w, name, &want, timed_out);
		}
		before = window_filter(w);
		double x, y;
		g_autoptr(GError) error = NULL;
		PlThreadTimeline *tl = pl_window_get_timeline(w);
		if (!tid || !pl_thread_timeline_get_bar_center(tl, tid, 0, 0, 0, &x, &y)) {
			pl_ui_script_report(name, FALSE, "no lane for the %s thread", argv[1]);
			return PL_UI_STEP_DONE;
		}
		if (!x_click(GTK_WIDGET(tl), 40, y - 8, &error)) {
			pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	if (!strcmp(cmd, "io-clear")) {
		/* io-clear NAME: a click (through X) on "Show everything" */
		PlFilter all = PL_FILTER_ALL;
		if (ticks > 0)
			return await_filter(w, name, &all, timed_out);
		GtkWidget *b = pl_ui_script_find_widget(GTK_WIDGET(w), is_button_labelled,
						       "Show everything");
		g_autoptr(GError) error = NULL;
		if (!b || !gtk_widget_is_visible(b)) {
			pl_ui_script_report(name, FALSE, "no Show everything button shown");
			return PL_UI_STEP_DONE;
		}
		double bx = gtk_widget_get_width(b) / 2.0, by = gtk_widget_get_height(b) / 2.0;
		if (!x_click(b, bx, by, &error)) {
			pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	return PL_UI_STEP_UNKNOWN;
}
