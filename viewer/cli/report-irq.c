/* report-irq.c — perflens report --irq: hardirq and softirq time of a
 * `record --irq` recording (pl-irq.h), per IRQ handler and per softirq
 * vector with counts per CPU, each CPU's totals, and what could not be
 * paired.  The columns are fixed, one row a line, so that scripts read
 * them: a row is NUMBER COUNT TOTAL_MS AVG_US MAX_US SHARE% PER_CPU NAME,
 * PER_CPU being "cpu:count,cpu:count,…" over every CPU.  Then, when the
 * agent read /proc's counts at the session's start and end
 * (pl-proc-irq-counts.h), a row per line and vector: KEY RECORDED PROC
 * MISSING PER_CPU DESC, PER_CPU being "cpu:recorded/proc,…", and the
 * sentence on what the recording lacks and why. */
#include <stdio.h>

#include "pl-irq.h"
#include "pl-proc-irq-counts.h"
#include "report.h"

static void print_rows(const PlIrqStats *s, PlIrqKind kind, double cpu_s)
{
	for (guint i = 0; i < s->sources->len; i++) {
		const PlIrqSource *src = s->sources->pdata[i];
		if (src->kind != kind)
			continue;
		g_autoptr(GString) per = g_string_new(NULL);
		for (guint c = 0; c < src->cpus->len; c++)
			g_string_append_printf(per, "%s%u:%" G_GUINT64_FORMAT, c ? "," : "", c,
					       g_array_index(src->cpus, PlIrqCpu, c).count);
		printf("  %6u %10" G_GUINT64_FORMAT " %11.3f %9.2f %9.2f %6.2f%%  %s  %s\n",
		       src->number, src->count, src->time_ns / 1e6,
		       src->paired ? src->time_ns / 1e3 / (double)src->paired : 0.0,
		       src->max_ns / 1e3, cpu_s > 0 ? src->time_ns / 1e7 / cpu_s : 0.0, per->str,
		       src->name);
	}
}

static void print_proc_rows(const PlProcIrqCompare *c, PlIrqKind kind)
{
	for (guint i = 0; i < c->rows->len; i++) {
		const PlProcIrqRow *r = c->rows->pdata[i];
		if (r->kind != kind || !r->traced || (!r->proc && !r->recorded))
			continue;
		g_autoptr(GString) per = g_string_new(NULL);
		for (guint cpu = 0; cpu < r->cpus->len; cpu++) {
			const PlProcIrqCpuCount *pc = &g_array_index(r->cpus, PlProcIrqCpuCount, cpu);
			g_string_append_printf(per, "%s%u:%" G_GUINT64_FORMAT "/%" G_GINT64_FORMAT,
					       cpu ? "," : "", cpu, pc->recorded, pc->proc);
		}
		printf("  %8s %10" G_GUINT64_FORMAT " %10" G_GINT64_FORMAT " %10" G_GINT64_FORMAT
		       "  %s  %s\n", r->key, r->recorded, r->proc, r->missing, per->str,
		       *r->desc ? r->desc : r->key);
	}
}

/* /proc's counts between the agent's reads against the recorded runs; an
 * old capture (no reads) says nothing. */
static void print_proc(PlProfile *p, const PlFilter *filter)
{
	g_autoptr(PlProcIrqCompare) c = pl_proc_irq_compare_new(p);
	gboolean narrowed = pl_proc_irq_filter_narrows(filter);
	g_autofree char *summary = pl_proc_irq_compare_dup_summary(c, narrowed);
	if (!summary)
		return;
	if (!c->have || narrowed) {
		printf("\n%s\n", summary);
		return;
	}
	printf("\nRecorded against /proc, between the agent's reads at the session's start and "
	       "end (interrupts: a shared line once; Missing = /proc - recorded):\n"
	       "  %8s %10s %10s %10s  %s  %s\n", "IRQ", "Recorded", "/proc", "Missing",
	       "Per CPU (cpu:recorded/proc)", "Line");
	print_proc_rows(c, PL_IRQ_HARD);
	printf("  %8s %10s %10s %10s  %s  %s\n", "Vector", "Recorded", "/proc", "Missing",
	       "Per CPU (cpu:recorded/proc)", "Name");
	print_proc_rows(c, PL_IRQ_SOFT);
	printf("  missing: %s\n", summary);
}

void pl_report_print_irq(PlProfile *p, const PlFilter *filter)
{
	g_autoptr(PlIrqStats) s = pl_irq_stats_new_filtered(p, filter);
	if (!s->have_hard && !s->have_soft) {
		printf("\nIRQ and softirq time: this recording has none of the irq tracepoints "
		       "(record with --irq)\n");
		return;
	}
	double secs = pl_irq_stats_seconds(s);
	double cpu_s = secs * s->ncpus;
	printf("\nIRQ and softirq time: %u CPUs over %.3f s (%.3f CPU-seconds)\n", s->ncpus, secs,
	       cpu_s);
	printf("  hardirqs: %" G_GUINT64_FORMAT ", %.3f ms, %.3f %% of the CPU time%s\n",
	       s->hard_count, s->hard_ns / 1e6, cpu_s > 0 ? s->hard_ns / 1e7 / cpu_s : 0.0,
	       s->have_hard ? "" : " (irq:irq_handler_entry/exit not recorded)");
	printf("  softirqs: %" G_GUINT64_FORMAT ", %.3f ms, %.3f %% of the CPU time%s\n",
	       s->soft_count, s->soft_ns / 1e6, cpu_s > 0 ? s->soft_ns / 1e7 / cpu_s : 0.0,
	       s->have_soft ? "" : " (irq:softirq_entry/exit not recorded)");
	printf("  unpaired: %" G_GUINT64_FORMAT " at the start (an exit whose entry came "
	       "before the recording, or an entry before the exits were on), %" G_GUINT64_FORMAT
	       " at the end (an entry whose exit came after it, or after the exits were off: "
	       "the agent turns the tracepoints on and off one after the other), %"
	       G_GUINT64_FORMAT " dropped (an entry or exit was lost)\n",
	       s->exit_before_start, s->open_at_end, s->mismatched);
	printf("  nested: %" G_GUINT64_FORMAT " hardirqs interrupted a softirq (their time is "
	       "counted as theirs, not the softirq's)\n", s->nested);
	if (s->lost)
		printf("  warning: the recording lost %" G_GUINT64_FORMAT " samples (all events): "
		       "counts are short and some runs unpaired\n", s->lost);
	if (s->undecoded)
		printf("  warning: %" G_GUINT64_FORMAT " events could not be decoded (no format "
		       "from the agent, or a payload it does not fit)\n", s->undecoded);
	if (s->per_task)
		printf("  note: not an --all recording: only the interrupts that hit the "
		       "target's threads are here\n");
	printf("\nHardirqs (irq:irq_handler_entry/exit; a shared line has a row per handler):\n"
	       "  %6s %10s %11s %9s %9s %7s  %s  %s\n", "IRQ", "Count", "Total ms", "Avg us",
	       "Max us", "Share", "Per CPU (cpu:count)", "Handler");
	print_rows(s, PL_IRQ_HARD, cpu_s);
	printf("\nSoftirqs (irq:softirq_entry/exit; time without the hardirqs inside):\n"
	       "  %6s %10s %11s %9s %9s %7s  %s  %s\n", "Vector", "Count", "Total ms", "Avg us",
	       "Max us", "Share", "Per CPU (cpu:count)", "Name");
	print_rows(s, PL_IRQ_SOFT, cpu_s);
	printf("\nPer CPU (share of that CPU's time):\n  %4s %10s %11s %7s %10s %11s %7s\n", "CPU",
	       "Hardirqs", "Hardirq ms", "Share", "Softirqs", "Softirq ms", "Share");
	for (guint c = 0; c < s->ncpus; c++) {
		guint64 hc = 0, hn = 0, sc = 0, sn = 0;
		for (guint i = 0; i < s->sources->len; i++) {
			const PlIrqSource *src = s->sources->pdata[i];
			const PlIrqCpu *pc = &g_array_index(src->cpus, PlIrqCpu, c);
			if (src->kind == PL_IRQ_HARD) {
				hc += pc->count;
				hn += pc->time_ns;
			} else {
				sc += pc->count;
				sn += pc->time_ns;
			}
		}
		printf("  %4u %10" G_GUINT64_FORMAT " %11.3f %6.2f%% %10" G_GUINT64_FORMAT
		       " %11.3f %6.2f%%\n", c, hc, hn / 1e6, secs > 0 ? hn / 1e7 / secs : 0.0, sc,
		       sn / 1e6, secs > 0 ? sn / 1e7 / secs : 0.0);
	}
	print_proc(p, filter);
}
