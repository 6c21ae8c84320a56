/* pl-findings-private.h — what the findings engine (pl-findings.c) gives
 * the rules kept in files of their own (pl-findings-*.c). */
#ifndef PL_FINDINGS_PRIVATE_H
#define PL_FINDINGS_PRIVATE_H

#include "pl-findings.h"

/* (inline: the rules' files and the engine would otherwise call each
 * other.)  A new finding appended to out, a warning shown on the flame graph over
 * everything; takes what and detail, copies where; the rule sets what
 * differs (severity, view, thread, time). */
static inline PlFinding *pl_findings_add(GPtrArray *out, const char *rule, double value,
					 char *what, char *detail, const char *where)
{
	PlFinding *f = g_new0(PlFinding, 1);
	f->severity = PL_FINDING_WARNING;
	f->view = "flame";
	f->rule = rule;
	f->what = what;
	f->detail = detail;
	f->where = g_strdup(where);
	f->value = value;
	g_ptr_array_add(out, f);
	return f;
}

/* irq: an IRQ handler or softirq vector over a share of a CPU (pl-findings-irq.c) */
void pl_findings_rule_irq(PlProfile *p, PlProfile *baseline, GPtrArray *out);
/* cpufreq: a CPU's frequency well below its maximum while it was busy, from
 * the counter tracks (pl-findings-cpufreq.c) */
void pl_findings_rule_cpufreq(PlProfile *p, PlProfile *baseline, GPtrArray *out);

#endif
