/* pl-ui-script-io.c — the scripted driver's commands for slow system calls
 * (issue 19; listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 * Each check prints what it saw as "# io-…" lines, for the test script to
 * compare with its own oracle (`perflens report --tracepoints` on the same
 * session file).
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
		/* io-click-slowest NEEDLE NAME: its row clicked, the window's
		 * range is its [entry, exit] and its stack holds NEEDLE */
		name = argv[1] && argv[2] ? argv[2] : cmd;
		const PlSlowCall *c = pl_io_view_get_slowest(io, 0);
		if (!c) {
			pl_ui_script_report(name, FALSE, "no slow call");
			return PL_UI_STEP_DONE;
		}
		pl_io_view_activate_slowest(io, 0);
		guint64 t0 = pl_profile_get_stats(pl_window_get_profile(w))->first_time;
		printf("# io-slowest %.6f %" G_GUINT64_FORMAT "\n",
		       c->time >= t0 ? (double)(c->time - t0) / 1e9 : 0.0, c->duration_ns);
		fflush(stdout);
		gboolean ok = range_is(w, c->time, c->time + c->duration_ns) &&
			      strstr(pl_io_view_get_stack_text(io), argv[1] ? argv[1] : "") != NULL;
		PlAggregate *agg = pl_window_get_aggregate(w);
		pl_ui_script_report(name, ok,
				    "range [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
				    "], the call's [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
				    "]; stack: %s",
				    agg ? agg->filter.t0 : 0, agg ? agg->filter.t1 : 0, c->time,
				    c->time + c->duration_ns, pl_io_view_get_stack_text(io));
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "io-click-bar")) {
		/* the slowest call's bar on its thread's lane, clicked */
		const PlSlowCall *c = pl_io_view_get_slowest(io, 0);
		PlThreadTimeline *tl = pl_window_get_timeline(w);
		double x = 0, y = 0;
		if (!c || !pl_thread_timeline_get_bar_center(tl, c->tid, c->time,
							     c->time + c->duration_ns, 0, &x, &y)) {
			pl_ui_script_report(name, FALSE, "no bar for the slowest call");
			return PL_UI_STEP_DONE;
		}
		pl_window_set_filter(w, 0, 0, 0);
		pl_thread_timeline_click(tl, x, y);
		pl_ui_script_report(name, range_is(w, c->time, c->time + c->duration_ns),
				    "a click on its bar at (%.1f, %.1f) did not select it", x, y);
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
