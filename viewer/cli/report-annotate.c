/* report-annotate.c — perflens report --annotate and --source: one
 * function's instructions (objdump's listing) or source lines, each with its
 * self and total share of the samples.
 */
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-disasm.h"
#include "report.h"

guint32 pl_report_pick_function(PlFunctionNames *names, const char *option, const char *spec,
				const char **spelling)
{
	g_autoptr(GPtrArray) m = pl_function_names_find(names, spec);
	if (!m->len)
		return PL_NO_ID;
	const PlFunctionMatch *first = m->pdata[0];
	if (m->len > 1) {
		/* a view, not a gate (--fail-if refuses): the likely one, and
		 * how to ask for the others */
		GString *list = g_string_new(NULL);
		for (guint i = 0; i < m->len; i++) {
			const PlFunctionMatch *x = m->pdata[i];
			g_string_append_printf(list, "%s'%s' (%" G_GUINT64_FORMAT " samples)",
					       i ? ", " : "", x->spelling, x->total.samples);
		}
		fflush(stdout);
		fprintf(stderr,
			"perflens: note: %s %s: %u functions have that name here: %s; showing "
			"'%s', the one with the most samples (give %s 'NAME (FILE)' for another)\n",
			option, spec, m->len, list->str, first->spelling, option);
		g_string_free(list, TRUE);
	}
	/* spellings belong to names: they outlive m */
	*spelling = first->spelling;
	return first->hottest;
}

int pl_report_print_annotate(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
			     const char *name)
{
	const char *spelling = name;
	guint32 f = pl_report_pick_function(names, "--annotate", name, &spelling);
	printf("\nInstructions of %s:\n", spelling);
	if (f == PL_NO_ID) {
		if (pl_profile_find_function(p, name) != PL_NO_ID)
			printf("  (no samples in %s)\n", name);
		else
			printf("  (no function of that name in this recording)\n");
		return PL_EXIT_OK;
	}
	g_autoptr(GError) error = NULL;
	g_autoptr(PlAnnotation) an = pl_disasm_annotate(p, agg, f, &error);
	if (!an)
		return pl_cli_fail("--annotate %s: %s", name, error->message);
	printf("  %s in %s (%s), %% of %" G_GUINT64_FORMAT " samples; total at a call is the "
	       "time spent in what it called\n",
	       an->symbol ? an->symbol : spelling, an->module, an->path, agg->all.samples);
	if (an->unplaced.samples)
		printf("  %" G_GUINT64_FORMAT " samples fall on no instruction listed: the local "
		       "file differs from the board's\n",
		       an->unplaced.samples);
	printf("  %7s %7s\n", "Self%", "Total%");
	for (guint i = 0; i < an->lines->len; i++) {
		const PlDisasmLine *d = &g_array_index(an->lines, PlDisasmLine, i);
		if (!d->is_insn)
			printf("  %15s %s\n", "", d->text);
		else if (an->total[i].samples)
			printf("  %6.2f%% %6.2f%% %s\n", pl_percent(an->self[i].weight, agg->all.weight),
			       pl_percent(an->total[i].weight, agg->all.weight), d->text);
		else
			printf("  %7s %7s %s\n", "", "", d->text);
	}
	return PL_EXIT_OK;
}

static void line_counts(PlProfile *p, PlAggregate *agg, const char *file, guint line,
			PlCount *self, PlCount *total)
{
	*self = (PlCount){ 0, 0 };
	*total = (PlCount){ 0, 0 };
	for (guint32 l = 0; l < agg->n_locations; l++) {
		const PlLocation *loc = pl_profile_get_location(p, l);
		if (loc->line == line && !strcmp(loc->file, file)) {
			self->samples += agg->line_self[l].samples;
			self->weight += agg->line_self[l].weight;
			total->samples += agg->line_total[l].samples;
			total->weight += agg->line_total[l].weight;
		}
	}
}

void pl_report_print_source(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
			    const char *what)
{
	const char *file = NULL;
	guint first = 1, last = G_MAXUINT;
	guint32 f = pl_report_pick_function(names, "--source", what, &what);
	if (f != PL_NO_ID) {
		g_autoptr(GArray) rows = pl_aggregate_addresses(agg, f);
		g_autoptr(GHashTable) weight = g_hash_table_new(NULL, NULL);
		guint64 best = 0;
		for (guint i = 0; i < rows->len; i++) {
			const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
			if (!r->file)
				continue;
			guint64 w = GPOINTER_TO_SIZE(g_hash_table_lookup(weight, r->file)) +
				    r->total.samples;
			g_hash_table_insert(weight, (gpointer)r->file, GSIZE_TO_POINTER(w));
			if (w > best) {
				best = w;
				file = r->file;
			}
		}
		guint lo = G_MAXUINT, hi = 0;
		for (guint i = 0; i < rows->len; i++) {
			const PlAddrRow *r = &g_array_index(rows, PlAddrRow, i);
			if (r->file == file && r->line) {
				lo = MIN(lo, r->line);
				hi = MAX(hi, r->line);
			}
		}
		if (file) {
			first = lo > 5 ? lo - 5 : 1;
			last = hi + 3;
		}
	} else {
		for (guint32 l = 0; l < agg->n_locations && !file; l++) {
			const PlLocation *loc = pl_profile_get_location(p, l);
			if (!strcmp(loc->file, what) ||
			    (g_str_has_suffix(loc->file, what) &&
			     loc->file[strlen(loc->file) - strlen(what) - 1] == '/'))
				file = loc->file;
		}
	}
	printf("\nSource of %s:\n", what);
	if (!file) {
		printf("  (no function or source file of that name with line information here)\n");
		return;
	}
	g_autofree char *local = pl_symbols_find_source(pl_profile_get_symbols(p), file);
	g_autofree char *text = NULL;
	if (!local || !g_file_get_contents(local, &text, NULL, NULL)) {
		printf("  %s: not found here (give --source-dir DIR or --path-map FROM=TO); "
		       "lines with samples:\n", file);
		g_autoptr(GArray) rows = pl_aggregate_lines(agg);
		for (guint i = 0; i < rows->len; i++) {
			const PlRow *r = &g_array_index(rows, PlRow, i);
			const PlLocation *loc = pl_profile_get_location(p, r->id);
			if (loc->file == file || !strcmp(loc->file, file))
				if (loc->line >= first && loc->line <= last)
					printf("  %6.2f%% %6.2f%% %5u\n", pl_percent(r->self.weight, agg->all.weight),
					       pl_percent(r->total.weight, agg->all.weight), loc->line);
		}
		return;
	}
	printf("  %s (%s), %% of %" G_GUINT64_FORMAT " samples\n", file, local, agg->all.samples);
	printf("  %7s %7s %5s\n", "Self%", "Total%", "Line");
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	guint n = g_strv_length(lines);
	for (guint i = first; i <= n && i <= last; i++) {
		PlCount self, total;
		line_counts(p, agg, file, i, &self, &total);
		if (total.samples)
			printf("  %6.2f%% %6.2f%% %5u  %s\n", pl_percent(self.weight, agg->all.weight),
			       pl_percent(total.weight, agg->all.weight), i, lines[i - 1]);
		else
			printf("  %7s %7s %5u  %s\n", "", "", i, lines[i - 1]);
	}
}
