/* pl-findings.h — automatic findings: rules that look at a loaded
 * recording and say what is unusual in it, with the numbers and the view
 * that shows it (`perflens report --findings`, `--fail-on RULE`).
 *
 * The engine is a table: each rule is one PlFindingRule (its id, what it
 * looks for, its thresholds in words) and one function that appends zero
 * or more PlFinding.  A rule must stay quiet on a calm program: a finding
 * that fires without cause is a defect of the rule.
 *
 * Ownership: the findings array owns its findings (and their strings).
 * No GTK; one thread at a time, as the profile. */
#ifndef PL_FINDINGS_H
#define PL_FINDINGS_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef enum {
	PL_FINDING_WARNING, /* about the program: the app opens on its Findings page */
	PL_FINDING_INFO,    /* about the recording itself (losses, unwinding) */
} PlFindingSeverity;

typedef struct {
	const char *rule; /* the id of the rule that raised it (static) */
	char *what;       /* one sentence: what was seen, with the numbers */
	/* further lines ("\n"-separated), NULL when none.  A line holding
	 * tabs is a row of a table, its cells tab-separated: consecutive such
	 * lines are one table, whose columns the report pads and the app lays
	 * out in a grid (the first column left, the others right aligned) */
	char *detail;
	char *where;      /* the report section or option (or view) that shows it */
	double value;     /* the rule's main number (a share, ms…), for sorting */
	PlFindingSeverity severity;
	/* the app's view that shows it ("flame", "counters", "health",
	 * "symbols", "functions", "irq"; static) and the selection to make
	 * there: a thread (0:
	 * all) and a time range (profile ns, [t0, t1); 0, 0: all) */
	const char *view;
	guint32 tid;
	guint64 t0, t1;
} PlFinding;

/* baseline: another recording to compare with (--baseline), NULL when none */
typedef void (*PlFindingFunc)(PlProfile *p, PlProfile *baseline, GPtrArray *out);

typedef struct {
	const char *id;         /* short, as --fail-on takes it */
	const char *title;      /* what the rule looks for */
	const char *thresholds; /* when it fires, in words (docs/cli.md lists them) */
	PlFindingFunc run;
} PlFindingRule;

/* The rules, in report order; *n their number.  Static. */
const PlFindingRule *pl_findings_rules(guint *n);
/* The rule of that id, NULL when none. */
const PlFindingRule *pl_findings_lookup(const char *id);
/* The ids, ", "-separated (for a message); new string. */
char *pl_findings_dup_rule_list(void);
/* Every rule over the whole recording; new GPtrArray of PlFinding*
 * (freed with the array), in rule order. */
GPtrArray *pl_findings_run(PlProfile *p);
/* The same, with a baseline recording for the rules that compare (NULL:
 * as pl_findings_run).  The baseline is only read. */
GPtrArray *pl_findings_run_with(PlProfile *p, PlProfile *baseline);

G_END_DECLS

#endif
