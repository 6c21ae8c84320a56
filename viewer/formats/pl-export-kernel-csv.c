/* pl-export-kernel-csv.c — the kernel's side of a recording as CSV tables
 * (RFC 4180: a header line, fields with a comma, quote or newline quoted):
 *   irq-csv    one row per interrupt source and CPU, and one per source
 *              over all CPUs (cpu "all"), from pl-irq.h; proc_count is
 *              /proc's count of its line or vector between the agent's
 *              reads at the session's start and end (pl-proc-irq-counts.h:
 *              a shared line's on each of its handlers' rows), empty with
 *              no reads or a narrower filter (the reads are the session's)
 *   block-csv  one row per block request (pl-block-io.h), with the stack
 *              that issued it, callers first, ';' between frames (as the
 *              collapsed format folds them)
 * See pl-export.h. */
#include "pl-export.h"

#include <errno.h>
#include <string.h>

#include "pl-csv.h"
#include "pl-block-io.h"
#include "pl-irq.h"
#include "pl-proc-irq-counts.h"

gboolean pl_export_irq_csv(PlProfile *p, const PlFilter *filter, FILE *out, GError **error)
{
	g_autoptr(PlIrqStats) st = pl_irq_stats_new_filtered(p, filter);
	g_autoptr(PlProcIrqCompare) cmp = pl_proc_irq_filter_narrows(filter)
						  ? NULL
						  : pl_proc_irq_compare_new(p);
	g_autoptr(GString) s =
		g_string_new("kind,number,name,cpu,count,paired,time_ns,max_ns,proc_count\n");
	for (guint i = 0; i < st->sources->len; i++) {
		const PlIrqSource *src = st->sources->pdata[i];
		const char *kind = src->kind == PL_IRQ_HARD ? "hardirq" : "softirq";
		char key[16];
		if (src->kind == PL_IRQ_HARD)
			g_snprintf(key, sizeof(key), "%u", src->number);
		const PlProcIrqRow *row =
			cmp && cmp->have ? pl_proc_irq_compare_find(cmp, src->kind,
								    src->kind == PL_IRQ_HARD
									    ? key
									    : src->name)
					 : NULL;
		for (guint c = 0; c < src->cpus->len; c++) {
			const PlIrqCpu *pc = &g_array_index(src->cpus, PlIrqCpu, c);
			g_string_append_printf(s, "%s,%u,", kind, src->number);
			pl_csv_field(s, src->name);
			g_string_append_printf(s, ",%u,%" G_GUINT64_FORMAT ",,%" G_GUINT64_FORMAT ",,",
					       c, pc->count, pc->time_ns);
			if (row && c < row->cpus->len)
				g_string_append_printf(
					s, "%" G_GINT64_FORMAT,
					g_array_index(row->cpus, PlProcIrqCpuCount, c).proc);
			g_string_append_c(s, '\n');
		}
		g_string_append_printf(s, "%s,%u,", kind, src->number);
		pl_csv_field(s, src->name);
		g_string_append_printf(s, ",all,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
				       ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",",
				       src->count, src->paired, src->time_ns, src->max_ns);
		if (row)
			g_string_append_printf(s, "%" G_GINT64_FORMAT, row->proc);
		g_string_append_c(s, '\n');
		if (s->len > 65536 && !pl_csv_put(out, s, error))
			return FALSE;
	}
	return pl_csv_put(out, s, error);
}

gboolean pl_export_block_csv(PlProfile *p, FILE *out, GError **error)
{
	g_autoptr(PlBlockIo) b = pl_block_io_new(p);
	g_autoptr(GString) s = g_string_new("major,minor,op,rwbs,sector,bytes,issue_ns,"
					    "complete_ns,latency_ns,error,pid,tid,thread,stack\n");
	g_autoptr(GString) stack = g_string_new(NULL);
	for (guint i = 0; i < b->requests->len; i++) {
		const PlBlockRequest *r = &g_array_index(b->requests, PlBlockRequest, i);
		g_string_append_printf(s, "%u,%u,%s,", r->dev >> 20, r->dev & ((1u << 20) - 1),
				       pl_block_op_name(r->op));
		pl_csv_field(s, r->rwbs);
		g_string_append_printf(s, ",%" G_GUINT64_FORMAT ",%u,%" G_GUINT64_FORMAT ",", r->sector,
				       r->bytes, r->issue);
		if (r->complete)
			g_string_append_printf(s, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%d",
					       r->complete, r->complete - r->issue, r->error);
		else
			g_string_append(s, ",,");
		PlThread *t = pl_profile_lookup_thread(p, r->tid);
		g_string_append_printf(s, ",%u,%u,", r->pid, r->tid);
		pl_csv_field(s, t && t->name ? t->name : "");
		g_string_append_c(s, ',');
		g_string_truncate(stack, 0);
		g_autoptr(GArray) fns = pl_profile_dup_stack_functions(p, r->stack, 0);
		for (guint f = fns->len; f-- > 0;)
			g_string_append_printf(stack, "%s%s", stack->len ? ";" : "",
					       pl_profile_get_function_label(
						       p, g_array_index(fns, guint32, f)));
		pl_csv_field(s, stack->str);
		g_string_append_c(s, '\n');
		if (s->len > 65536 && !pl_csv_put(out, s, error))
			return FALSE;
	}
	return pl_csv_put(out, s, error);
}
