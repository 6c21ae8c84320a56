/* pl-ui-script-findings.c — the scripted driver's commands for the
 * Findings page (listed in pl-ui-script.h).  Test code: part of
 * perflens-ui-script.so only.
 *
 * Each prints what it saw as "# findings-…" lines (the view shown, the
 * window's filter) for the test script to compare with its oracle (the
 * program's own log, `perflens report --findings` on the same file).
 */
#include "pl-ui-script.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *view_shown(PlWindow *w)
{
	GtkWidget *fv = GTK_WIDGET(pl_window_get_findings_view(w));
	GtkWidget *st = gtk_widget_get_parent(fv);
	return GTK_IS_STACK(st) ? gtk_stack_get_visible_child_name(GTK_STACK(st)) : NULL;
}

static void print_filter(PlWindow *w, const char *what)
{
	PlAggregate *agg = pl_window_get_aggregate(w);
	PlFilter f = agg ? agg->filter : PL_FILTER_ALL;
	printf("# %s view %s tid %u t0 %" G_GUINT64_FORMAT " t1 %" G_GUINT64_FORMAT "\n", what,
	       view_shown(w), f.tid, f.t0, f.t1);
	fflush(stdout);
}

static int find_rule(PlFindingsView *v, const char *rule)
{
	for (guint i = 0; i < pl_findings_view_get_n_findings(v); i++)
		if (!g_strcmp0(pl_findings_view_get_rule(v, i), rule))
			return (int)i;
	return -1;
}

/* The grid under w that holds a label whose text begins with cell. */
static GtkWidget *grid_with(GtkWidget *w, const char *cell)
{
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		if (GTK_IS_GRID(w) && GTK_IS_LABEL(c) &&
		    g_str_has_prefix(gtk_label_get_text(GTK_LABEL(c)), cell))
			return w;
		GtkWidget *g = grid_with(c, cell);
		if (g)
			return g;
	}
	return NULL;
}

/* Where a label's text is drawn, in the grid's coordinates: [*x0, *x1). */
static gboolean text_span(GtkWidget *grid, GtkLabel *l, double *x0, double *x1)
{
	graphene_rect_t r;
	if (!gtk_widget_compute_bounds(GTK_WIDGET(l), grid, &r))
		return FALSE;
	int lx = 0, ly = 0;
	gtk_label_get_layout_offsets(l, &lx, &ly);
	PangoRectangle ink, logical;
	pango_layout_get_pixel_extents(gtk_label_get_layout(l), &ink, &logical);
	*x0 = r.origin.x + lx + logical.x;
	*x1 = *x0 + logical.width;
	return TRUE;
}

/* findings-columns CELL NAME: the finding's table whose cell CELL begins
 * is a grid whose columns line up as drawn (the first column's texts
 * start at one x, the others' end at one x, within a pixel), each column
 * right of the one before it. */
static PlUiStep columns_step(PlWindow *w, char **argv, gboolean timed_out)
{
	const char *cell = argv[1] ? argv[1] : "", *name = argv[1] && argv[2] ? argv[2] : argv[0];
	GtkWidget *grid = grid_with(GTK_WIDGET(pl_window_get_findings_view(w)), cell);
	if ((!grid || !gtk_widget_get_mapped(grid) || gtk_widget_get_width(grid) <= 0) && !timed_out)
		return PL_UI_STEP_WAIT;
	if (!grid) {
		pl_ui_script_report(name, FALSE, "no grid on the Findings page holds '%s'", cell);
		return PL_UI_STEP_DONE;
	}
	enum { MAXC = 8 };
	double edge[MAXC], left[MAXC] = { 0 }, right[MAXC] = { 0 };
	gboolean seen[MAXC] = { FALSE };
	guint rows = 0, cols = 0, off = 0, overlap = 0;
	for (GtkWidget *c = gtk_widget_get_first_child(grid); c; c = gtk_widget_get_next_sibling(c)) {
		int col, row, cw, rh;
		double x0, x1;
		gtk_grid_query_child(GTK_GRID(grid), c, &col, &row, &cw, &rh);
		if (!GTK_IS_LABEL(c) || col < 0 || col >= MAXC || !text_span(grid, GTK_LABEL(c), &x0, &x1))
			continue;
		rows = MAX(rows, (guint)row + 1);
		cols = MAX(cols, (guint)col + 1);
		double e = col ? x1 : x0;
		if (!seen[col]) {
			edge[col] = e;
			left[col] = x0;
			right[col] = x1;
			seen[col] = TRUE;
		}
		off += fabs(e - edge[col]) > 1;
		left[col] = MIN(left[col], x0);
		right[col] = MAX(right[col], x1);
	}
	for (guint c = 1; c < cols; c++)
		overlap += seen[c] && seen[c - 1] && left[c] < right[c - 1];
	printf("# findings-columns '%s': %u rows, %u columns, %u cells off their column's edge, "
	       "%u columns overlapping\n", cell, rows, cols, off, overlap);
	fflush(stdout);
	pl_ui_script_report(name, rows >= 2 && cols >= 2 && !off && !overlap,
			    "%u rows, %u columns, %u cells off their edge, %u overlapping", rows,
			    cols, off, overlap);
	return PL_UI_STEP_DONE;
}

PlUiStep pl_ui_script_findings_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out)
{
	const char *cmd = argv[0];
	PlFindingsView *v = pl_window_get_findings_view(w);
	if (!cmd)
		return PL_UI_STEP_UNKNOWN;
	/* the page as it is once the session's worker has its findings */
	if (!strcmp(cmd, "expect-view") || !strcmp(cmd, "expect-finding") ||
	    !strcmp(cmd, "findings-click") || !strcmp(cmd, "findings-columns") ||
	    !strcmp(cmd, "periods-click-worst")) {
		if (pl_profile_session_findings_pending(pl_window_get_session(w)) && !timed_out)
			return PL_UI_STEP_WAIT;
	}
	if (!strcmp(cmd, "expect-view")) {
		/* expect-view VIEW NAME: the views stack shows VIEW */
		const char *want = argv[1] ? argv[1] : "", *name = argv[1] && argv[2] ? argv[2] : cmd;
		gboolean ok = !g_strcmp0(view_shown(w), want);
		if (!ok && !timed_out)
			return PL_UI_STEP_WAIT;
		pl_ui_script_report(name, ok, "the view shown is %s, not %s", view_shown(w), want);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "expect-finding")) {
		/* expect-finding RULE yes|no NAME */
		const char *rule = argv[1] ? argv[1] : "", *yn = argv[1] && argv[2] ? argv[2] : "yes";
		const char *name = argv[1] && argv[2] && argv[3] ? argv[3] : cmd;
		gboolean want = !strcmp(yn, "yes"), have = find_rule(v, rule) >= 0;
		if (have != want && !timed_out && want)
			return PL_UI_STEP_WAIT;
		pl_ui_script_report(name, have == want, "finding %s %s on the page (%u findings)", rule,
				    have ? "shown" : "not shown", pl_findings_view_get_n_findings(v));
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "findings-click")) {
		/* findings-click RULE VIEW NAME: its button shows VIEW */
		const char *rule = argv[1] ? argv[1] : "", *want = argv[1] && argv[2] ? argv[2] : "";
		const char *name = argv[1] && argv[2] && argv[3] ? argv[3] : cmd;
		int i = find_rule(v, rule);
		gboolean ok = i >= 0 && pl_findings_view_click(v, (guint)i);
		print_filter(w, "findings-click");
		pl_ui_script_report(name, ok && !g_strcmp0(view_shown(w), want),
				    "finding %s %s; the view shown is %s, not %s", rule,
				    i >= 0 ? "clicked" : "not on the page", view_shown(w), want);
		return PL_UI_STEP_DONE;
	}
	if (!strcmp(cmd, "findings-columns"))
		return columns_step(w, argv, timed_out);
	if (!strcmp(cmd, "periods-click-worst")) {
		/* periods-click-worst TASK NAME: the task's worst activation
		 * selected: the flame graph, that thread, a time range */
		guint task = argv[1] ? (guint)g_ascii_strtoull(argv[1], NULL, 10) : 0;
		const char *name = argv[1] && argv[2] ? argv[2] : cmd;
		if (pl_findings_view_get_n_tasks(v) <= task && !timed_out)
			return PL_UI_STEP_WAIT;
		gboolean ok = pl_findings_view_click_worst(v, task);
		PlAggregate *agg = pl_window_get_aggregate(w);
		print_filter(w, "periods-click-worst");
		pl_ui_script_report(name,
				    ok && agg && agg->filter.tid && agg->filter.t1 > agg->filter.t0 &&
					    !g_strcmp0(view_shown(w), "flame"),
				    "task %u of %u: the view shown is %s", task,
				    pl_findings_view_get_n_tasks(v), view_shown(w));
		return PL_UI_STEP_DONE;
	}
	return PL_UI_STEP_UNKNOWN;
}
