/* diff.c — perflens diff A B: what changed between two recordings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-diff.h"

static PlAggregate *load_side(const char *path, PlCliSymArgs *sym, const char *event_name,
			      const PlStackFilter *sf, PlProfile **out)
{
	PlCaptureInfo info;
	PlProfile *p = pl_cli_load(path, sym, &info);
	if (!p)
		return NULL;
	guint32 event;
	if (!pl_cli_event(p, event_name, path, &event)) {
		pl_profile_free(p);
		return NULL;
	}
	PlFilter f = { 0, event, 0, 0 };
	*out = p;
	return pl_profile_aggregate_filtered(p, &f, sf);
}

int pl_cli_diff(int argc, char **argv)
{
	PlCliSymArgs sym = { 0 };
	PlCliFilterArgs flt = { 0 };
	char *event_name = NULL;
	gint top = 20;
	gdouble min_change = 0;
	const GOptionEntry entries[] = {
		{ "top", 0, 0, G_OPTION_ARG_INT, &top, "Rows per table (default 20, 0: all)", "N" },
		{ "event", 0, 0, G_OPTION_ARG_STRING, &event_name,
		  "Sampled event (default: the one with most samples, per file)", "NAME" },
		{ "min-change", 0, 0, G_OPTION_ARG_DOUBLE, &min_change,
		  "Hide rows that moved less than this many percentage points", "PCT" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("A B — compare two recordings (shares of each one's total)");
	pl_cli_add_entries(ctx, entries);
	g_option_context_add_group(ctx, pl_cli_sym_group(&sym));
	g_option_context_add_group(ctx, pl_cli_filter_group(&flt));
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(PlProfile) pa = NULL;
	g_autoptr(PlProfile) pb = NULL;
	g_autoptr(PlAggregate) a = NULL;
	g_autoptr(PlAggregate) b = NULL;
	g_autoptr(PlStackFilter) sf = NULL;
	g_autoptr(PlDiff) d = NULL;
	gboolean bad_filter;

	if (!pl_cli_parse(ctx, &argc, &argv, "diff"))
		goto out;
	if (argc != 3) {
		pl_cli_fail("diff needs two files, A (before) and B (after) (run perflens diff --help)");
		goto out;
	}
	if (top < 0 || min_change < 0) {
		pl_cli_fail("--top and --min-change take positive numbers");
		goto out;
	}
	sf = pl_cli_stack_filter(&flt, &bad_filter);
	if (bad_filter)
		goto out;
	a = load_side(argv[1], &sym, event_name, sf, &pa);
	if (!a)
		goto out;
	b = load_side(argv[2], &sym, event_name, sf, &pb);
	if (!b)
		goto out;
	d = pl_diff_new(a, b);
	printf("A: %s (%" G_GUINT64_FORMAT " samples)\nB: %s (%" G_GUINT64_FORMAT " samples)\n",
	       argv[1], d->all_a.samples, argv[2], d->all_b.samples);
	printf("Shares are of each recording's own total; Δ = B − A in percentage points.\n");

	printf("\nFunctions by change of self share:\n");
	printf("  %8s %8s %8s   %8s %8s %8s  %s\n", "Self A", "Self B", "Δ", "Total A", "Total B",
	       "Δ", "Function");
	guint shown = 0;
	for (guint i = 0; i < d->functions->len && (top == 0 || shown < (guint)top); i++) {
		const PlDiffFunction *r = &g_array_index(d->functions, PlDiffFunction, i);
		double ds = 100 * (r->self_b - r->self_a), dt = 100 * (r->total_b - r->total_a);
		if (fabs(ds) < min_change && fabs(dt) < min_change)
			continue;
		gboolean br = r->module[0] == '[';
		printf("  %7.2f%% %7.2f%% %+8.2f   %7.2f%% %7.2f%% %+8.2f  %s %s%s%s%s\n",
		       100 * r->self_a, 100 * r->self_b, ds, 100 * r->total_a, 100 * r->total_b, dt,
		       r->name, br ? "" : "[", r->module, br ? "" : "]",
		       r->total_a == 0 ? " (new)" : r->total_b == 0 ? " (gone)" : "");
		shown++;
	}
	printf("\nStacks by change of share:\n");
	printf("  %8s %8s %8s  %s\n", "A", "B", "Δ", "Stack (outermost first)");
	shown = 0;
	for (guint i = 0; i < d->stacks->len && (top == 0 || shown < (guint)top); i++) {
		const PlDiffStack *r = &g_array_index(d->stacks, PlDiffStack, i);
		double dd = 100 * (r->b - r->a);
		if (fabs(dd) < min_change)
			continue;
		printf("  %7.2f%% %7.2f%% %+8.2f  %s\n", 100 * r->a, 100 * r->b, dd, r->stack);
		shown++;
	}
	rc = PL_EXIT_OK;
out:
	pl_cli_sym_args_clear(&sym);
	pl_cli_filter_args_clear(&flt);
	g_free(event_name);
	return rc;
}
