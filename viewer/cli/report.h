/* report.h — what report.c shares with report-annotate.c (its --annotate
 * and --source sections).  Private to viewer/cli.
 */
#ifndef PL_CLI_REPORT_H
#define PL_CLI_REPORT_H

#include <glib.h>

#include "pl-function-names.h"
#include "pl-percent.h"
#include "pl-profile.h"

/* --annotate SYM: the same annotation the app's disassembly view shows
 * (pl_disasm_annotate), as text: the self/total columns, then objdump's
 * line.  PL_EXIT_BAD_INPUT (with the error printed) when objdump fails. */
int pl_report_print_annotate(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
			     const char *name);
/* --source SYM|FILE: for a function, the lines of its own frames (inlined
 * callees show on their own lines, which may be elsewhere in the file); for
 * a FILE (a path or its tail), the whole file. */
void pl_report_print_source(PlProfile *p, PlAggregate *agg, PlFunctionNames *names,
			    const char *what);
/* The function spec ("NAME" or "NAME (FILE)") names in the report of names,
 * for option (--source …): when defining files share the name, the one with
 * the most samples, after a note on stderr that lists them all.  Its
 * spelling as the report prints it in *spelling (owned by names);
 * PL_NO_ID, *spelling unchanged, when none has samples. */
guint32 pl_report_pick_function(PlFunctionNames *names, const char *option, const char *spec,
				const char **spelling);

/* --markers: the ftrace:print lines (time, thread, text, stack) and the
 * begin/end intervals with durations; --tracepoints: every tracepoint hit
 * with its decoded fields (report-trace.c). */
/* FALSE (after saying why) when a --pair is not 'BEGIN_RE;END_RE'. */
gboolean pl_report_print_markers(PlProfile *p, char **pairs);
void pl_report_print_tracepoints(PlProfile *p);
/* report-syscalls.c: the slow system calls; top: rows of the long lists */
void pl_report_print_syscalls(PlProfile *p, guint top);
/* report-locks.c: lock contention (--locks recordings); top: locks and
 * rows per list */
/* filter: the waits of a thread, entered in a time range (pl_locks_new_filtered), NULL: all */
void pl_report_print_locks(PlProfile *p, guint top, const PlFilter *filter);

/* report-irq.c: hardirq and softirq time per handler, vector and CPU */
void pl_report_print_irq(PlProfile *p, const PlFilter *filter);
/* report-block.c: block requests per device; the top slowest with stacks */
void pl_report_print_block(PlProfile *p, guint top);

/* report-counters.c: the counter tracks, min/mean/max per track */
void pl_report_print_counters(PlProfile *p);

/* report-findings.c: --fail-on RULE[,RULE] read into ids (new strings,
 * the array frees them); FALSE (exit 2, the rules listed) for an unknown
 * rule.  Then the findings over the whole recording (baseline, NULL when
 * none: the recording --baseline names): printed when print,
 * and PL_EXIT_CHECK (each said on stderr) when a rule of fail_on fired. */
gboolean pl_report_findings_parse(char **specs, GPtrArray *ids);
int pl_report_findings(PlProfile *p, PlProfile *baseline, gboolean print, GPtrArray *fail_on);
/* --fail-on's help: the rules, each with when it fires (the man page's
 * list, from the rules table itself); new string. */
char *pl_report_findings_dup_help(void);

/* report-periods.c: --period DUR read into *ns (0 when spec is NULL);
 * FALSE (exit 2, said why) when it is no duration or comes without
 * --periods.  Then --periods: the
 * periodic tasks; top: worst activations listed per task (0: all). */
gboolean pl_report_periods_parse(const char *spec, gboolean periods, guint64 *ns);
void pl_report_print_periods(PlProfile *p, guint64 period_ns, guint top);

#endif
