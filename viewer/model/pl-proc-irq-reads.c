/* pl-proc-irq-reads.c — the agent's reads of /proc's interrupt counts,
 * chunk by chunk (pl-proc-irq-reads.h). */
#include "pl-proc-irq-reads.h"

#include "msg.h"

PlProcIrqReads *pl_proc_irq_reads_new(void)
{
	return g_new0(PlProcIrqReads, 1);
}

void pl_proc_irq_reads_free(PlProcIrqReads *r)
{
	if (!r)
		return;
	for (guint f = 0; f < PL_PROC_NFILES; f++) {
		if (r->first[f].text)
			g_byte_array_free(r->first[f].text, TRUE);
		if (r->last[f].text)
			g_byte_array_free(r->last[f].text, TRUE);
	}
	g_free(r);
}

void pl_proc_irq_reads_add_chunk(PlProcIrqReads *r, guint kind, guint64 addr, guint64 offset,
				 guint64 total, const guint8 *data, gsize len)
{
	guint f = kind == PL_CHUNK_INTERRUPTS ? PL_PROC_INTERRUPTS
		: kind == PL_CHUNK_SOFTIRQS   ? PL_PROC_SOFTIRQS
					      : PL_PROC_NFILES;
	if (f == PL_PROC_NFILES || (!data && len))
		return;
	if (offset == 0) {
		PlProcIrqRead *rd = r->first[f].text ? &r->last[f] : &r->first[f];
		if (!rd->text)
			rd->text = g_byte_array_new();
		g_byte_array_set_size(rd->text, 0);
		rd->time = addr;
		rd->whole = FALSE;
		r->cur[f] = rd;
	}
	PlProcIrqRead *rd = r->cur[f];
	if (!rd)
		return; /* its first chunk never came */
	if (rd->whole || offset != rd->text->len || addr != rd->time ||
	    len > PL_PROC_IRQ_MAX_TEXT - rd->text->len) {
		r->cur[f] = NULL; /* spoilt: whole stays FALSE */
		return;
	}
	g_byte_array_append(rd->text, data, (guint)len);
	if (total && offset + len == total)
		rd->whole = TRUE;
}
