/* pl-findings-private.h — what the findings engine (pl-findings.c) gives
 * the rules kept in files of their own (pl-findings-*.c). */
#ifndef PL_FINDINGS_PRIVATE_H
#define PL_FINDINGS_PRIVATE_H

#include "pl-findings.h"

/* A new finding appended to out, a warning shown on the flame graph over
 * everything; takes what and detail, copies where; the rule sets what
 * differs (severity, view, thread, time). */
PlFinding *pl_findings_add(GPtrArray *out, const char *rule, double value, char *what,
			   char *detail, const char *where);

/* irq: an IRQ handler or softirq vector over a share of a CPU (pl-findings-irq.c) */
void pl_findings_rule_irq(PlProfile *p, PlProfile *baseline, GPtrArray *out);

#endif
