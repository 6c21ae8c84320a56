/* pl-record-extras.c — tracepoints beside the sampling (see the header). */
#include "pl-record-extras.h"

#include <string.h>

#include "pl-block-io.h"
#include "pl-irq.h"
#include "pl-locks.h"

guint pl_record_extras_count(PlRecordExtras extras, gboolean sampling_chosen)
{
	guint n = 0;
	if (extras & PL_RECORD_IRQ)
		n += g_strv_length((char **)pl_irq_tracepoints);
	if (extras & PL_RECORD_BLOCK)
		n += g_strv_length((char **)pl_block_io_tracepoints);
	if (extras & PL_RECORD_LOCKS)
		n += g_strv_length((char **)pl_locks_events());
	return n + (n && !sampling_chosen);
}

gboolean pl_record_extras_add(struct pl_msg_start *s, PlRecordExtras extras,
			      gboolean sampling_chosen, const char *kernel_release)
{
	guint n = pl_record_extras_count(extras, sampling_chosen);
	if (s->nevents + n > PL_MAX_EVENTS)
		return FALSE;
	if (!n)
		return TRUE;
	if (!sampling_chosen) {
		memmove(&s->events[1], &s->events[0], s->nevents * sizeof(s->events[0]));
		s->events[0] = pl_str_c("cycles");
		s->nevents++;
	}
	const char *const *lists[] = {
		extras & PL_RECORD_IRQ ? pl_irq_tracepoints : NULL,
		extras & PL_RECORD_BLOCK ? pl_block_io_tracepoints : NULL,
		extras & PL_RECORD_LOCKS ? pl_locks_events() : NULL,
	};
	guint limit[] = { G_MAXUINT, G_MAXUINT, pl_locks_events_for(kernel_release) };
	for (guint l = 0; l < G_N_ELEMENTS(lists); l++)
		for (guint i = 0; lists[l] && lists[l][i] && i < limit[l]; i++)
			s->events[s->nevents++] = pl_str_c(lists[l][i]);
	return TRUE;
}
