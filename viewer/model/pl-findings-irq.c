/* pl-findings-irq.c — the irq rule: an IRQ handler or a softirq vector
 * that took a large share of a CPU's time, from the irq tracepoints a
 * `record --irq` recording holds (pl-irq.h pairs them per CPU). */
#include <string.h>

#include "pl-findings-private.h"
#include "pl-irq.h"

#define IRQ_SHARE 5.0           /* one handler or vector took at least 5 % of one CPU's time… */
#define IRQ_MIN_NS 100000000ull /* …over a recording of at least 0.1 s */

/* What makes that handler or vector busy, and what helps. */
static const char *advice(const PlIrqSource *src)
{
	if (src->kind == PL_IRQ_HARD)
		return "a device's interrupt handler: its rate is in /proc/interrupts; interrupt "
		       "coalescing (ethtool -C for a network card) lowers it, and its affinity "
		       "(/proc/irq/N/smp_affinity) moves it off the CPU the program needs";
	static const struct {
		const char *name, *why;
	} vectors[] = {
		{ "NET_RX", "packets received and handled in the kernel: many small packets cost "
			    "per packet; send fewer, larger messages, let GRO merge them, or spread "
			    "the work over CPUs (RPS/RFS, the card's IRQ affinity)" },
		{ "NET_TX", "packets sent from the softirq (queues that filled): fewer, larger "
			    "sends, or a faster path to the device" },
		{ "TIMER", "timers expiring: many short sleeps or polls with timeouts; fewer or "
			   "coarser timers (timer slack)" },
		{ "HRTIMER", "high-resolution timers expiring: many short sleeps (nanosleep, "
			     "timerfd); fewer or coarser ones" },
		{ "BLOCK", "block I/O completions: many small requests; fewer, larger I/Os" },
		{ "IRQ_POLL", "block I/O completions polled in softirq: many small requests" },
		{ "RCU", "RCU callbacks, the kernel's deferred frees: many short-lived files, "
			 "sockets or processes" },
		{ "SCHED", "the scheduler's load balancing: many threads waking on many CPUs" },
		{ "TASKLET", "a driver's deferred work (tasklets)" },
		{ "HI", "a driver's high-priority deferred work (tasklets)" },
	};
	for (guint i = 0; i < G_N_ELEMENTS(vectors); i++)
		if (!strcmp(src->name, vectors[i].name))
			return vectors[i].why;
	return "a softirq vector this rule has no advice for";
}

void pl_findings_rule_irq(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	g_autoptr(PlIrqStats) s = pl_irq_stats_new(p);
	double secs = pl_irq_stats_seconds(s);
	if ((!s->have_hard && !s->have_soft) || secs * 1e9 < (double)IRQ_MIN_NS)
		return;
	for (guint i = 0; i < s->sources->len; i++) {
		const PlIrqSource *src = s->sources->pdata[i];
		double top = 0;
		guint top_cpu = 0;
		for (guint c = 0; c < src->cpus->len; c++) {
			double share = 100.0 * g_array_index(src->cpus, PlIrqCpu, c).time_ns / (secs * 1e9);
			if (share > top) {
				top = share;
				top_cpu = c;
			}
		}
		if (top < IRQ_SHARE)
			continue;
		g_autofree char *who = src->kind == PL_IRQ_SOFT
					       ? g_strdup_printf("softirq %s", src->name)
					       : g_strdup_printf("IRQ %u %s", src->number, src->name);
		char *what = g_strdup_printf(
			"%s took %.1f%% of CPU %u's time (threshold %.0f%% of a CPU): %.1f ms in %"
			G_GUINT64_FORMAT " runs over %.3f s, mean %.1f µs, longest %.1f µs",
			who, top, top_cpu, IRQ_SHARE, src->time_ns / 1e6, src->count, secs,
			src->paired ? src->time_ns / 1e3 / (double)src->paired : 0.0,
			src->max_ns / 1e3);
		/* its share of every CPU it ran on */
		GString *d = g_string_new("CPU\truns\ttime\tshare of the CPU");
		for (guint c = 0; c < src->cpus->len; c++) {
			const PlIrqCpu *pc = &g_array_index(src->cpus, PlIrqCpu, c);
			if (pc->count)
				g_string_append_printf(d, "\n%u\t%" G_GUINT64_FORMAT "\t%.1f ms\t%.2f%%",
						       c, pc->count, pc->time_ns / 1e6,
						       100.0 * pc->time_ns / (secs * 1e9));
		}
		g_string_append_printf(d, "\n%s", advice(src));
		if (s->per_task)
			g_string_append(d, "\nnot an --all recording: only the interrupts that hit "
					   "the target's threads are counted, the CPU's share may be "
					   "larger");
		if (s->lost || s->mismatched)
			g_string_append_printf(d, "\nthe recording lost %" G_GUINT64_FORMAT
					       " samples and %" G_GUINT64_FORMAT " runs could not be "
					       "paired: the times may be short",
					       s->lost, s->mismatched);
		PlFinding *f = pl_findings_add(out, "irq", top, what, g_string_free(d, FALSE),
					       src->kind == PL_IRQ_SOFT
						       ? "report --irq (Softirqs, Per CPU)"
						       : "report --irq (Hardirqs, Per CPU)");
		f->view = "irq";
	}
}
