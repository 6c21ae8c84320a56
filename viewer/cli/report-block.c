/* report-block.c — perflens report --block: the block requests of a
 * `record --block` recording (pl-block-io.h) per device (requests by
 * kind, bytes, latency percentiles from issue to completion) and the
 * slowest with their issuing stacks.  A device row reads DEV REQUESTS
 * READS WRITES FLUSHES DISCARDS READ_KIB WRITTEN_KIB ERRORS P50 P90 P99
 * MAX (ms) IN_FLIGHT DRIVER, DEV being "major,minor". */
#include <stdio.h>
#include <string.h>

#include "pl-block-io.h"
#include "pl-function-names.h"
#include "report.h"

void pl_report_print_block(PlProfile *p, guint top)
{
	g_autoptr(PlBlockIo) b = pl_block_io_new(p);
	if (!b->recorded) {
		printf("\nBlock I/O: this recording has no block:block_rq_issue events (record "
		       "with --block)\n");
		return;
	}
	guint64 done = 0, open = 0;
	for (guint i = 0; i < b->devices->len; i++) {
		const PlBlockDevice *d = &g_array_index(b->devices, PlBlockDevice, i);
		done += d->requests;
		open += d->in_flight_at_end;
	}
	printf("\nBlock I/O: %" G_GUINT64_FORMAT " requests completed on %u devices (issue to "
	       "completion)\n", done, b->devices->len);
	printf("  unpaired: %" G_GUINT64_FORMAT " completions whose issue came before the "
	       "recording, %" G_GUINT64_FORMAT " requests still in flight at its end; %"
	       G_GUINT64_FORMAT " issued again after a requeue\n",
	       b->complete_without_issue, open, b->reissued);
	if (b->lost)
		printf("  warning: the recording lost %" G_GUINT64_FORMAT " samples (all events): "
		       "some requests are missing or unpaired\n", b->lost);
	if (b->undecoded)
		printf("  warning: %" G_GUINT64_FORMAT " events could not be decoded\n",
		       b->undecoded);
	printf("\nPer device:\n  %-9s %8s %7s %7s %7s %7s %10s %11s %6s %9s %9s %9s %9s %6s  %s\n",
	       "Device", "Requests", "Reads", "Writes", "Flushes", "Discard", "Read KiB",
	       "Written KiB", "Errors", "p50 ms", "p90 ms", "p99 ms", "Max ms", "Open", "Driver");
	for (guint i = 0; i < b->devices->len; i++) {
		const PlBlockDevice *d = &g_array_index(b->devices, PlBlockDevice, i);
		g_autofree char *name = pl_block_dev_name(d->dev);
		char *sp = strchr(name, ' ');
		if (sp)
			*sp++ = 0;
		printf("  %-9s %8" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT
		       " %7" G_GUINT64_FORMAT " %7" G_GUINT64_FORMAT " %10.1f %11.1f %6"
		       G_GUINT64_FORMAT " %9.3f %9.3f %9.3f %9.3f %6" G_GUINT64_FORMAT "  %s\n",
		       name, d->requests, d->by_op[PL_BLOCK_READ], d->by_op[PL_BLOCK_WRITE],
		       d->by_op[PL_BLOCK_FLUSH], d->by_op[PL_BLOCK_DISCARD], d->bytes_read / 1024.0,
		       d->bytes_written / 1024.0, d->errors, d->p50_ns / 1e6, d->p90_ns / 1e6,
		       d->p99_ns / 1e6, d->max_ns / 1e6, d->in_flight_at_end, sp ? sp : "-");
	}
	g_autoptr(GPtrArray) slow = pl_block_io_slowest(b, G_MAXUINT32, top);
	if (!slow->len)
		return;
	g_autoptr(PlFunctionNames) fn = pl_function_names_new(p, NULL);
	guint64 t0 = pl_profile_get_stats(p)->first_time;
	printf("\nSlowest %u (stack at issue, innermost first):\n"
	       "      Time s  Device    Op       Sector      KiB  Latency ms       TID  Thread"
	       "           [stack]\n", slow->len);
	for (guint i = 0; i < slow->len; i++) {
		const PlBlockRequest *r = slow->pdata[i];
		PlThread *t = pl_profile_lookup_thread(p, r->tid);
		g_autofree char *name = pl_block_dev_name(r->dev);
		char *sp = strchr(name, ' ');
		if (sp)
			*sp = 0;
		printf("  %10.6f  %-8s  %-5s %12" G_GUINT64_FORMAT " %8.1f %11.3f  %8u  %-15.15s  [",
		       r->issue >= t0 ? (r->issue - t0) / 1e9 : 0.0, name, r->rwbs, r->sector,
		       r->bytes / 1024.0, (r->complete - r->issue) / 1e6, r->tid,
		       t && t->name ? t->name : "?");
		guint32 node = pl_profile_get_stack_node(p, r->stack);
		for (guint f = 0; f < 12 && node != 0 && node != PL_NO_ID; f++) {
			const PlNode *nd = pl_profile_get_node(p, node);
			printf("%s%s", f ? " < " : "", pl_function_names_get(fn, nd->func));
			node = nd->parent;
		}
		printf("]\n");
	}
}
