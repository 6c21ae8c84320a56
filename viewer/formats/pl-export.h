/* pl-export.h — a profile's samples in other tools' formats.
 *
 *   collapsed   "outer;…;leaf COUNT" lines (flamegraph.pl, inferno, speedscope)
 *   pprof       gzipped profile.proto (go tool pprof, pprof web UIs): one
 *               mapping per module with its path and build-id, one location
 *               per distinct address with its inline frames and source lines
 *   svg         a self-contained flame graph (no script, no external files;
 *               a <title> on every frame for the exact figures)
 *   speedscope  speedscope's JSON file format: one "sampled" profile per
 *               thread, frames shared
 *   perf-data   the capture's messages as a perf.data for perf report
 *   irq-csv     interrupt time per source and CPU (pl-irq.h) as CSV
 *   block-csv   every block request with its issuing stack (pl-block-io.h)
 *   counters-csv  every value of the counter tracks (pl-counter-tracks.h)
 *
 * Which of them a caller may choose, and how each is written, is the table
 * (pl-export-table.h); the self-contained session is its own file
 * (pl-export-self-contained.h).
 *
 * They all read an aggregate (pl_profile_aggregate, or _filtered with a
 * stack filter: the exports then show the rewritten stacks; pprof then has
 * one location per function instead of per address).  Writers create or
 * truncate path; FALSE with error set on failure (the partial file is
 * left).  The viewer core: GLib/GIO, no GTK.  One thread at a time.
 */
#ifndef PL_EXPORT_H
#define PL_EXPORT_H

#include <gio/gio.h>
#include <stdio.h>

#include "pl-capture.h"
#include "pl-profile.h"
#include "pl-stack-filter.h"

G_BEGIN_DECLS

/* by_weight: counts are the weight (period; ns for cpu-clock), else samples. */
gboolean pl_export_collapsed(PlAggregate *agg, FILE *out, gboolean by_weight, GError **error);

gboolean pl_export_pprof(PlAggregate *agg, const char *path, GError **error);

/* title: shown on top (NULL: "Flame graph").  by_weight as for collapsed. */
gboolean pl_export_svg(PlAggregate *agg, FILE *out, const char *title, gboolean by_weight,
		       GError **error);

/* One profile per thread of filter (re-aggregated with sf), weights in the
 * event's unit (nanoseconds for cpu-clock and off-CPU), name: the file's. */
gboolean pl_export_speedscope(PlProfile *p, const PlFilter *filter, const PlStackFilter *sf,
			      FILE *out, const char *name, GError **error);

/* The recording at in, read again message by message as it is in the
 * capture (perf report sorts by time itself and symbolizes from the
 * build-ids and paths), written to path as a perf.data.  cancel (may be
 * NULL) is checked every 4096 messages; info (may be NULL) is the
 * capture's.  A capture damaged anywhere is refused, as every export does:
 * FALSE with the reader's error, and no file is left. */
gboolean pl_export_perf_data(const char *in, const char *path, GCancellable *cancel,
			     PlCaptureInfo *info, GError **error);

/* The kernel's side as CSV tables (pl-export-kernel-csv.c): a header line
 * and the rows; a recording without the tracepoints gives the header
 * alone.  Interrupts: the runs the filter keeps (pl_irq_stats_new_filtered:
 * entered in its range, on its thread; NULL: all); requests: all of them,
 * the board's, not a thread's. */
gboolean pl_export_irq_csv(PlProfile *p, const PlFilter *filter, FILE *out, GError **error);
gboolean pl_export_block_csv(PlProfile *p, FILE *out, GError **error);
/* pl-export-counters-csv.c: a row per value of each counter track (RSS,
 * CPU busy, frequency, idle, thermal, hwmon); the header alone when none. */
gboolean pl_export_counters_csv(PlProfile *p, FILE *out, GError **error);

G_END_DECLS

#endif
