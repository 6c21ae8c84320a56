/* report-findings.c — perflens report --findings and --fail-on RULE: the
 * findings engine's rules (viewer/model/pl-findings.h) over a recording,
 * as text, and the CI gate on them. */
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-findings.h"
#include "report.h"

gboolean pl_report_findings_parse(char **specs, GPtrArray *ids)
{
	for (char **s = specs; s && *s; s++) {
		g_auto(GStrv) parts = g_strsplit(*s, ",", -1);
		for (char **q = parts; *q; q++) {
			g_autofree char *id = g_strstrip(g_strdup(*q));
			if (!*id)
				continue;
			if (!pl_findings_lookup(id)) {
				g_autofree char *list = pl_findings_dup_rule_list();
				pl_cli_fail("--fail-on: no rule named '%s'; the rules are: %s "
					    "(docs/cli.md, \"Findings\")", id, list);
				return FALSE;
			}
			g_ptr_array_add(ids, g_steal_pointer(&id));
		}
	}
	if (specs && !ids->len) {
		pl_cli_fail("--fail-on needs a rule name (RULE[,RULE])");
		return FALSE;
	}
	return TRUE;
}

#define MAX_COLUMNS 16

static void pad(glong n)
{
	for (; n > 0; n--)
		putchar(' ');
}

/* Rows lines[from, to) of a detail's table (pl-findings.h): the columns
 * padded to their widest cell, in characters; the first left aligned,
 * the others right. */
static void print_table(char **lines, guint from, guint to)
{
	glong width[MAX_COLUMNS] = { 0 };
	for (guint i = from; i < to; i++) {
		g_auto(GStrv) cells = g_strsplit(lines[i], "\t", MAX_COLUMNS);
		for (guint c = 0; cells[c]; c++)
			width[c] = MAX(width[c], g_utf8_strlen(cells[c], -1));
	}
	for (guint i = from; i < to; i++) {
		g_auto(GStrv) cells = g_strsplit(lines[i], "\t", MAX_COLUMNS);
		printf("      ");
		for (guint c = 0; cells[c]; c++) {
			glong fill = width[c] - g_utf8_strlen(cells[c], -1);
			if (c) {
				printf("  ");
				pad(fill);
			}
			fputs(cells[c], stdout);
			if (!c && cells[1])
				pad(fill);
		}
		putchar('\n');
	}
}

char *pl_report_findings_dup_help(void)
{
	GString *s = g_string_new("Exit 1 when one of these findings rules fires (said on stderr; "
				  "repeatable); an unknown rule is refused (exit 2, the rules "
				  "listed).  The rules, and when each fires:");
	guint n;
	const PlFindingRule *rules = pl_findings_rules(&n);
	for (guint i = 0; i < n; i++)
		g_string_append_printf(s, "%s %s: %s", i ? ";" : "", rules[i].id, rules[i].thresholds);
	return g_string_free(s, FALSE);
}

static void print_one(const PlFinding *f)
{
	printf("  [%s] %s\n", f->rule, f->what);
	if (f->detail) {
		g_auto(GStrv) lines = g_strsplit(f->detail, "\n", -1);
		for (guint i = 0; lines[i];) {
			if (!strchr(lines[i], '\t')) {
				printf("      %s\n", lines[i++]);
				continue;
			}
			guint end = i;
			while (lines[end] && strchr(lines[end], '\t'))
				end++;
			print_table(lines, i, end);
			i = end;
		}
	}
	printf("      see: %s\n", f->where);
}

int pl_report_findings(PlProfile *p, PlProfile *baseline, gboolean print, GPtrArray *fail_on)
{
	if (!print && (!fail_on || !fail_on->len))
		return PL_EXIT_OK;
	g_autoptr(GPtrArray) fs = pl_findings_run_with(p, baseline);
	if (print) {
		guint n;
		const PlFindingRule *rules = pl_findings_rules(&n);
		printf("\nFindings (%u rule%s, %u finding%s):\n", n, n == 1 ? "" : "s", fs->len,
		       fs->len == 1 ? "" : "s");
		if (!fs->len)
			printf("  nothing unusual\n");
		for (guint r = 0; r < n; r++)
			for (guint i = 0; i < fs->len; i++) {
				const PlFinding *f = fs->pdata[i];
				if (!strcmp(f->rule, rules[r].id))
					print_one(f);
			}
	}
	int rc = PL_EXIT_OK;
	fflush(stdout);
	for (guint k = 0; fail_on && k < fail_on->len; k++) {
		const char *id = fail_on->pdata[k];
		for (guint i = 0; i < fs->len; i++) {
			const PlFinding *f = fs->pdata[i];
			if (strcmp(f->rule, id))
				continue;
			fprintf(stderr, "perflens: --fail-on %s: %s\n", id, f->what);
			rc = PL_EXIT_CHECK;
		}
	}
	return rc;
}
