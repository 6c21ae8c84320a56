/* pl-ui-script-irq.c — the scripted driver's commands for the timeline's
 * interrupt lanes and its lock waits (listed in pl-ui-script.h).  Test
 * code: part of perflens-ui-script.so only.
 *
 * What the lanes hold goes to stdout as "# irq-…" lines for the test
 * script to compare with `perflens report --irq` and `export irq-csv` of
 * the same file; the clicks go through X (xdotool), as the user's do.
 *
 *   irq-filter NAME TID F0 F1   the window's thread set to TID (0: all) and
 *                its range to [F0, F1] (fractions of the session, rounded
 *                to the millisecond after the first record), as a pick in
 *                another view sets them; the Interrupts page, shown, must
 *                follow: "# NAME-filter: TID FROM TO" (the report's --tid,
 *                --from, --to) and a "# NAME-source KIND NUMBER COUNT" line
 *                per handler and vector of what it shows.
 */
#include "pl-ui-script.h"

#include <stdio.h>
#include <string.h>

#include "pl-locks.h"

/* (x, y) of widget in the window's X coordinates (xdotool's mousemove
 * --window). */
static void window_point(GtkWidget *widget, double x, double y, int *wx, int *wy)
{
	GtkNative *native = gtk_widget_get_native(widget);
	double nx = 0, ny = 0, sx = 0, sy = 0;
	gtk_widget_translate_coordinates(widget, GTK_WIDGET(native), x, y, &nx, &ny);
	gtk_native_get_surface_transform(native, &sx, &sy);
	*wx = (int)(nx + sx);
	*wy = (int)(ny + sy);
}

/* xdotool on the app's window: ACTIONS with the window as %1. */
static gboolean xdo(const char *actions, GError **error)
{
	g_autofree char *c = g_strdup_printf(
		"xdotool search --sync --onlyvisible --name PerfLens %s", actions);
	return g_spawn_command_line_async(c, error);
}

static gboolean x_click(GtkWidget *widget, double x, double y, GError **error)
{
	int wx, wy;
	window_point(widget, x, y, &wx, &wy);
	g_autofree char *a =
		g_strdup_printf("mousemove --window %%1 %d %d click 1 mousemove 0 0", wx, wy);
	return xdo(a, error);
}

/* The longest run of all (the one a click on its column selects). */
static const PlIrqSpan *longest_run(const PlTimelineIrq *irq)
{
	const PlIrqStats *st = pl_timeline_irq_get_stats(irq);
	const PlIrqSpan *best = NULL;
	for (guint i = 0; i < st->spans->len; i++) {
		const PlIrqSpan *sp = &g_array_index(st->spans, PlIrqSpan, i);
		if (!best || sp->end - sp->start > best->end - best->start)
			best = sp;
	}
	return best;
}

static PlFilter window_filter(PlWindow *w)
{
	PlAggregate *agg = pl_window_get_aggregate(w);
	return agg ? agg->filter : PL_FILTER_ALL;
}

static PlUiStep irq_lanes(PlWindow *w, const char *name, guint ticks, gboolean timed_out)
{
	PlThreadTimeline *tl = pl_window_get_timeline(w);
	const PlTimelineIrq *irq = pl_window_get_profile(w) ? pl_thread_timeline_get_irq(tl) : NULL;
	guint ncol = 0;
	if (irq)
		pl_timeline_irq_get_n_drawn(irq, 0, &ncol);
	/* drawn once: the columns are known */
	if ((!irq || !ncol || ticks < 5) && !timed_out)
		return PL_UI_STEP_WAIT;
	if (!irq) {
		pl_ui_script_report(name, FALSE, "the timeline has no interrupt lanes");
		return PL_UI_STEP_DONE;
	}
	const PlIrqStats *st = pl_timeline_irq_get_stats(irq);
	g_autofree guint64 *per_source = g_new0(guint64, st->sources->len + 1);
	gboolean lod = TRUE;
	GString *why = g_string_new(NULL);
	printf("# irq-lanes expanded %d cpus %u columns %u spans %u dropped %" G_GUINT64_FORMAT
	       "\n",
	       pl_timeline_irq_get_expanded(irq), st->ncpus, ncol, st->spans->len,
	       st->spans_dropped);
	for (guint c = 0; c < st->ncpus; c++) {
		guint64 hn = 0, hns = 0, sn = 0, sns = 0;
		guint n = pl_timeline_irq_get_n_spans(irq, c);
		for (guint k = 0; k < n; k++) {
			const PlIrqSpan *sp = pl_timeline_irq_get_span(irq, c, k);
			const PlIrqSource *src = st->sources->pdata[sp->source];
			guint64 d = sp->end > sp->start ? sp->end - sp->start : 0;
			per_source[sp->source]++;
			if (src->kind == PL_IRQ_HARD) {
				hn++;
				hns += d;
			} else {
				guint64 nest = pl_timeline_irq_get_nested_ns(irq, sp);
				sn++;
				sns += d > nest ? d - nest : 0;
			}
		}
		guint drawn = pl_timeline_irq_get_n_drawn(irq, 1 + c, NULL);
		printf("# irq-cpu %u %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
		       " %" G_GUINT64_FORMAT " drawn %u\n",
		       c, hn, hns, sn, sns, drawn);
		/* level of detail: no more rectangles than runs, and a lane with
		 * more runs than pixel columns drawn with fewer rectangles */
		if (pl_timeline_irq_get_expanded(irq) &&
		    (drawn > n || (n > ncol && drawn >= n) || (n && !drawn))) {
			lod = FALSE;
			g_string_append_printf(why, "CPU %u: %u runs drawn as %u rectangles in %u "
						    "columns; ",
					       c, n, drawn, ncol);
		}
	}
	for (guint i = 0; i < st->sources->len; i++) {
		const PlIrqSource *src = st->sources->pdata[i];
		printf("# irq-source %s\t%u\t%s\t%" G_GUINT64_FORMAT "\n",
		       src->kind == PL_IRQ_HARD ? "hardirq" : "softirq", src->number, src->name,
		       per_source[i]);
	}
	fflush(stdout);
	pl_ui_script_report(name, lod, "%s", why->str);
	g_string_free(why, TRUE);
	return PL_UI_STEP_DONE;
}

/* The Interrupts page's lanes (shown by a "view irq" before): drawn with
 * the level of detail, as irq_lanes checks the timeline's. */
static PlUiStep irq_page(PlWindow *w, const char *name, guint ticks, gboolean timed_out)
{
	PlIrqView *v = pl_window_get_irq_view(w);
	const PlIrqStats *st = pl_irq_view_get_stats(v);
	guint ncol = 0;
	if (st)
		pl_irq_view_get_n_drawn(v, 0, TRUE, NULL, &ncol);
	if ((!st || !ncol || ticks < 5) && !timed_out)
		return PL_UI_STEP_WAIT;
	if (!st || !ncol) {
		pl_ui_script_report(name, FALSE, "the Interrupts page drew no lanes (%s)",
				    st ? "not drawn" : "no interrupts read");
		return PL_UI_STEP_DONE;
	}
	gboolean lod = TRUE;
	guint total = 0;
	GString *why = g_string_new(NULL);
	for (guint c = 0; c < st->ncpus; c++) {
		guint n[2], drawn[2];
		for (int soft = 0; soft < 2; soft++) {
			drawn[soft] = pl_irq_view_get_n_drawn(v, c, !soft, &n[soft], NULL);
			total += n[soft];
			if (drawn[soft] > n[soft] || (n[soft] > ncol && drawn[soft] >= n[soft]) ||
			    (n[soft] && !drawn[soft])) {
				lod = FALSE;
				g_string_append_printf(why, "CPU %u %s: %u runs drawn as %u rectangles "
							    "in %u columns; ",
						       c, soft ? "softirq" : "hardirq", n[soft],
						       drawn[soft], ncol);
			}
		}
		printf("# irq-page-cpu %u hardirq %u drawn %u softirq %u drawn %u columns %u\n", c,
		       n[0], drawn[0], n[1], drawn[1], ncol);
	}
	fflush(stdout);
	if (total != st->spans->len) {
		lod = FALSE;
		g_string_append_printf(why, "the lanes hold %u runs, the page's stats %u; ", total,
				       st->spans->len);
	}
	pl_ui_script_report(name, lod, "%s", why->str);
	g_string_free(why, TRUE);
	return PL_UI_STEP_DONE;
}

static gboolean filter_set;
static guint filter_tick;

static PlUiStep irq_filter(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *name = argv[1];
	if (!name || !argv[2] || !argv[3] || !argv[4]) {
		pl_ui_script_report(name ? name : "irq-filter", FALSE, "irq-filter NAME TID F0 F1");
		return PL_UI_STEP_DONE;
	}
	guint32 tid = (guint32)g_ascii_strtoull(argv[2], NULL, 10);
	guint64 ms0, ms1;
	pl_ui_script_pick(w, tid, argv[3], argv[4], !filter_set, &ms0, &ms1);
	PlIrqView *v = pl_window_get_irq_view(w);
	if (!filter_set) {
		pl_window_show_view(w, "irq");
		filter_set = TRUE;
		filter_tick = ticks;
		return PL_UI_STEP_WAIT;
	}
	/* shown: mapped, and read with the new filter (a few frames) */
	if ((!gtk_widget_get_mapped(GTK_WIDGET(v)) || ticks < filter_tick + 5) && !timed_out)
		return PL_UI_STEP_WAIT;
	filter_set = FALSE;
	const PlIrqStats *st = pl_irq_view_get_stats(v);
	printf("# %s-filter: %u %.3f %.3f\n", name, tid, ms0 / 1e3, ms1 / 1e3);
	for (guint i = 0; st && i < st->sources->len; i++) {
		const PlIrqSource *src = st->sources->pdata[i];
		printf("# %s-source %s %u %" G_GUINT64_FORMAT "\n", name,
		       src->kind == PL_IRQ_HARD ? "hardirq" : "softirq", src->number, src->count);
	}
	fflush(stdout);
	pl_ui_script_report(name, st && gtk_widget_get_mapped(GTK_WIDGET(v)),
			    "thread %u, %.3f s to %.3f s: %u handlers and vectors%s", tid,
			    ms0 / 1e3, ms1 / 1e3, st ? st->sources->len : 0,
			    gtk_widget_get_mapped(GTK_WIDGET(v)) ? "" : ", the page not shown");
	return PL_UI_STEP_DONE;
}

static int toggled_to; /* what irq-toggle's click should make of the lanes */

static PlUiStep irq_toggle(PlWindow *w, const char *name, guint ticks, gboolean timed_out)
{
	PlThreadTimeline *tl = pl_window_get_timeline(w);
	const PlTimelineIrq *irq = pl_thread_timeline_get_irq(tl);
	if (!irq) {
		pl_ui_script_report(name, FALSE, "the timeline has no interrupt lanes");
		return PL_UI_STEP_DONE;
	}
	if (ticks == 0) {
		/* a click on the header's name */
		toggled_to = !pl_timeline_irq_get_expanded(irq);
		g_autoptr(GError) error = NULL;
		if (!x_click(GTK_WIDGET(tl), 30, pl_timeline_irq_get_header_y(irq), &error)) {
			pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	guint drawn0 = pl_timeline_irq_get_n_drawn(irq, 0, NULL);
	gboolean there = pl_timeline_irq_get_expanded(irq) == toggled_to;
	/* collapsed: the header row draws every CPU's runs; expanded: none */
	gboolean drawn_ok = toggled_to ? drawn0 == 0 : drawn0 > 0;
	if ((!there || !drawn_ok || ticks < 5) && !timed_out)
		return PL_UI_STEP_WAIT;
	int min = 0, nat = 0;
	gtk_widget_measure(GTK_WIDGET(tl), GTK_ORIENTATION_VERTICAL, -1, &min, &nat, NULL, NULL);
	printf("# irq-toggle expanded %d header-row-rectangles %u height %d\n",
	       pl_timeline_irq_get_expanded(irq), drawn0, nat);
	fflush(stdout);
	pl_ui_script_report(name, there && drawn_ok,
			    "after the click the lanes are %s, the header row drew %u rectangles",
			    pl_timeline_irq_get_expanded(irq) ? "expanded" : "collapsed", drawn0);
	return PL_UI_STEP_DONE;
}

static guint64 clicked_start, clicked_end;
static gboolean click_sent;

static PlUiStep irq_click(PlWindow *w, const char *name, guint ticks, gboolean timed_out)
{
	PlThreadTimeline *tl = pl_window_get_timeline(w);
	const PlTimelineIrq *irq = pl_thread_timeline_get_irq(tl);
	const PlIrqSpan *sp = irq ? longest_run(irq) : NULL;
	double x, y;
	if (!sp || !pl_thread_timeline_get_irq_center(tl, sp, &x, &y)) {
		pl_ui_script_report(name, FALSE, "no interrupt run drawn");
		return PL_UI_STEP_DONE;
	}
	if (ticks == 0) {
		/* no range first (a step before may have selected this run) */
		clicked_start = sp->start;
		clicked_end = sp->end;
		click_sent = FALSE;
		pl_window_set_filter(w, 0, 0, 0);
		return PL_UI_STEP_WAIT;
	}
	if (!click_sent) {
		if (window_filter(w).t1 != 0 && !timed_out)
			return PL_UI_STEP_WAIT;
		click_sent = TRUE;
		g_autoptr(GError) error = NULL;
		if (!x_click(GTK_WIDGET(tl), x, y, &error)) {
			pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	PlFilter f = window_filter(w);
	gboolean there = f.t0 == clicked_start && f.t1 == clicked_end;
	if (!there && !timed_out)
		return PL_UI_STEP_WAIT;
	const PlIrqStats *st = pl_timeline_irq_get_stats(irq);
	const PlIrqSource *src = st->sources->pdata[sp->source];
	g_autofree char *tip = pl_thread_timeline_dup_tooltip_at(tl, x, y);
	g_autofree char *cpu = g_strdup_printf("on CPU %u:", sp->cpu);
	gboolean says = tip && strstr(tip, src->name) && strstr(tip, cpu);
	printf("# irq-click %s %u %s cpu %u [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
	       "] at (%.1f, %.1f); tooltip: %s\n",
	       src->kind == PL_IRQ_HARD ? "hardirq" : "softirq", src->number, src->name, sp->cpu,
	       sp->start, sp->end, x, y, tip ? tip : "(none)");
	fflush(stdout);
	pl_ui_script_report(name, there && says,
			    "the window's range is [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
			    "], the run's [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT
			    "]; the tooltip there says \"%s\" (want %s and \"%s\")",
			    f.t0, f.t1, clicked_start, clicked_end, tip ? tip : "", src->name, cpu);
	return PL_UI_STEP_DONE;
}

/* The pointer over the longest run, then the screen with its tooltip. */
static PlUiStep irq_hover(PlWindow *w, const char *file, const char *name, guint ticks)
{
	PlThreadTimeline *tl = pl_window_get_timeline(w);
	const PlTimelineIrq *irq = pl_thread_timeline_get_irq(tl);
	const PlIrqSpan *sp = irq ? longest_run(irq) : NULL;
	double x, y;
	if (!sp || !pl_thread_timeline_get_irq_center(tl, sp, &x, &y)) {
		pl_ui_script_report(name, FALSE, "no interrupt run drawn");
		return PL_UI_STEP_DONE;
	}
	if (ticks == 0) {
		int wx, wy;
		window_point(GTK_WIDGET(tl), x, y, &wx, &wy);
		g_autofree char *a = g_strdup_printf("mousemove --window %%1 %d %d", wx, wy);
		g_autoptr(GError) error = NULL;
		if (!xdo(a, &error)) {
			pl_ui_script_report(name, FALSE, "xdotool: %s", error->message);
			return PL_UI_STEP_DONE;
		}
		return PL_UI_STEP_WAIT;
	}
	if (ticks < 25)
		return PL_UI_STEP_WAIT; /* the tooltip shows after its delay */
	GdkSurface *surf = gtk_native_get_surface(GTK_NATIVE(w));
	g_autofree char *c = g_strdup_printf("import -window root -crop %dx%d+0+0 %s",
					     gdk_surface_get_width(surf),
					     gdk_surface_get_height(surf), file);
	g_autoptr(GError) error = NULL;
	gint status = 0;
	gboolean ok = g_spawn_command_line_sync(c, NULL, NULL, &status, &error) && status == 0;
	pl_ui_script_report(name, ok, "import: %s", error ? error->message : "failed");
	g_spawn_command_line_sync("xdotool mousemove 0 0", NULL, NULL, NULL, NULL);
	return PL_UI_STEP_DONE;
}

/* The longest wait that slept (that holder released, when not 0): its
 * bar's tooltip, for the test to compare with what the program says of
 * its lock and holder. */
static PlUiStep lock_wait_tip(PlWindow *w, const char *name, guint32 holder_tid, guint ticks,
			      gboolean timed_out)
{
	PlProfile *p = pl_window_get_profile(w);
	PlThreadTimeline *tl = pl_window_get_timeline(w);
	if ((!p || ticks < 5) && !timed_out)
		return PL_UI_STEP_WAIT;
	g_autoptr(PlLocks) locks = p ? pl_locks_new(p) : NULL;
	const PlLockWait *best = NULL;
	for (guint i = 0; locks && i < locks->waits->len; i++) {
		const PlLockWait *wt = &g_array_index(locks->waits, PlLockWait, i);
		if (wt->ret == 0 && (!holder_tid || wt->waker_tid == holder_tid) &&
		    (!best || wt->end - wt->start > best->end - best->start))
			best = wt;
	}
	double x, y;
	if (!best || !pl_thread_timeline_get_bar_center(tl, best->tid, best->start, best->end, 0,
							&x, &y)) {
		pl_ui_script_report(name, FALSE, "no lock wait that slept on a lane");
		return PL_UI_STEP_DONE;
	}
	g_autofree char *tip = pl_thread_timeline_dup_tooltip_at(tl, x, y);
	g_autofree char *addr = g_strdup_printf("0x%" G_GINT64_MODIFIER "x", best->uaddr);
	g_autofree char *holder = g_strdup_printf(" %u (lock wait)", best->waker_tid);
	printf("# lock-tip tid %u waker %u uaddr %s: %s\n", best->tid, best->waker_tid, addr,
	       tip ? tip : "(none)");
	fflush(stdout);
	gboolean ok = tip && strstr(tip, addr) && best->waker_tid && strstr(tip, "held by") &&
		      strstr(tip, holder);
	pl_ui_script_report(name, ok, "the tooltip on thread %u's longest wait says \"%s\"",
			    best->tid, tip ? tip : "");
	return PL_UI_STEP_DONE;
}

PlUiStep pl_ui_script_irq_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0] ? argv[0] : "";
	const char *name = argv[0] && argv[1] ? argv[1] : cmd;
	if (!strcmp(cmd, "irq-lanes"))
		return irq_lanes(w, name, ticks, timed_out);
	if (!strcmp(cmd, "irq-page"))
		return irq_page(w, name, ticks, timed_out);
	if (!strcmp(cmd, "irq-filter"))
		return irq_filter(w, argv, ticks, timed_out);
	if (!strcmp(cmd, "irq-toggle"))
		return irq_toggle(w, name, ticks, timed_out);
	if (!strcmp(cmd, "irq-click"))
		return irq_click(w, name, ticks, timed_out);
	if (!strcmp(cmd, "irq-hover"))
		return irq_hover(w, argv[1] ? argv[1] : "irq-hover.png",
				 argv[1] && argv[2] ? argv[2] : cmd, ticks);
	if (!strcmp(cmd, "lock-wait-tip"))
		return lock_wait_tip(w, name,
				     argv[1] && argv[2] ? (guint32)g_ascii_strtoull(argv[2], NULL, 10)
							: 0,
				     ticks, timed_out);
	return PL_UI_STEP_UNKNOWN;
}
