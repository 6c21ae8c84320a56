/* report-counters.c — perflens report --counters: the counter tracks the
 * agent polled (pl-counter-tracks.h), one row a track with fixed columns
 * that scripts read:
 *   SAMPLES MIN MEAN MAX UNIT  NAME  (SOURCE)[  not seen on hardware]
 * values in UNIT (bytes as MiB, Hz as MHz), MEAN weighted by time.  The
 * sysfs sources (cpufreq, cpuidle, thermal, hwmon) are read as the kernel
 * documents them but were tested on fixture trees only: their rows say so. */
#include <stdio.h>

#include "report.h"

void pl_report_print_counters(PlProfile *p)
{
	PlCounterTracks *ct = pl_profile_get_counter_tracks(p);
	guint n = pl_counter_tracks_len(ct);
	if (!n) {
		printf("\nCounter tracks: none in this recording (record with --tracks HZ, "
		       "default 10; agents older than counter tracks send none)\n");
		return;
	}
	const PlCounterTrack *t0 = pl_counter_tracks_get(ct, 0);
	guint64 first = 0, last = 0;
	for (guint i = 0; i < n; i++) {
		PlCounterSummary s;
		if (pl_counter_track_summary(pl_counter_tracks_get(ct, i), 0, 0, &s)) {
			first = first && first < s.first ? first : s.first;
			last = MAX(last, s.last);
		}
	}
	printf("\nCounter tracks: %u, polled every %u ms, over %.3f s\n", n, t0->interval_ms,
	       last > first ? (double)(last - first) / 1e9 : 0.0);
	printf("  %8s %14s %14s %14s %-4s  %s\n", "Samples", "Min", "Mean", "Max", "Unit",
	       "Track (source)");
	gboolean sysfs = FALSE;
	for (guint i = 0; i < n; i++) {
		const PlCounterTrack *t = pl_counter_tracks_get(ct, i);
		PlCounterSummary s;
		double div;
		const char *unit = pl_counter_track_display(t, &div);
		gboolean have = pl_counter_track_summary(t, 0, 0, &s);
		gboolean fixture = pl_counter_track_from_sysfs(t);
		sysfs |= fixture;
		if (have)
			printf("  %8" G_GUINT64_FORMAT " %14.3f %14.3f %14.3f %-4s  %s  (%s)%s\n",
			       s.samples, s.min / div, s.mean / div, s.max / div, unit, t->name,
			       t->source, fixture ? "  " PL_COUNTER_NOT_SEEN : "");
		else
			printf("  %8d %14s %14s %14s %-4s  %s  (%s)%s\n", 0, "-", "-", "-", unit,
			       t->name, t->source, fixture ? "  " PL_COUNTER_NOT_SEEN : "");
		if (t->missing)
			printf("  %8s   %" G_GUINT64_FORMAT " polls could not read it (the process "
			       "exited, or the file stopped answering)\n", "", t->missing);
	}
	if (sysfs)
		printf("  note: \"" PL_COUNTER_NOT_SEEN "\": PerfLens reads these files as the "
		       "kernel documents them (cpufreq.rst, the thermal and hwmon sysfs "
		       "interfaces) and was tested on trees laid out so, not on a board that has "
		       "them: check a value against the board's own tools before trusting it\n");
	if (pl_counter_tracks_rejected(ct) || pl_counter_tracks_dropped_points(ct))
		printf("  warning: %" G_GUINT64_FORMAT " malformed track messages ignored, %"
		       G_GUINT64_FORMAT " values past the cap dropped\n",
		       pl_counter_tracks_rejected(ct), pl_counter_tracks_dropped_points(ct));
}
