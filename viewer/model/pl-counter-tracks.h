/* pl-counter-tracks.h — the counter tracks of a recording (msg.h,
 * TRACK_DESC and TRACK_VALUES): each track's description and its values
 * over time, in the track's unit, and their summary over a time range.
 *
 * Ownership: the profile owns its PlCounterTracks (pl_profile_get_
 * counter_tracks borrows it); tracks and their points are borrowed from
 * it.  Not thread-safe; no GTK.
 *
 * Decoding is bounded: a description with an id past the next one, or
 * values for tracks not described, are dropped and counted (rejected);
 * at most PL_COUNTER_POINTS_MAX points are kept in all (a day at 10 Hz of
 * a dozen tracks), later ones counted in dropped_points.
 */
#ifndef PL_COUNTER_TRACKS_H
#define PL_COUNTER_TRACKS_H

#include <glib.h>

#include "msg.h"

G_BEGIN_DECLS

#define PL_COUNTER_POINTS_MAX (16u << 20)

typedef struct {
	guint64 time;  /* the session clock (ns), as samples */
	double value;  /* in the track's unit */
} PlTrackPoint;

typedef struct {
	guint32 id;
	guint8 kind; /* enum pl_track_kind */
	guint32 pid;
	gint32 cpu;
	guint32 interval_ms;
	char *name, *unit, *source;
	double scale;    /* 10^exp10: the raw value times it is in unit */
	gboolean divide; /* exp10 < 0: divided by 10^-exp10 instead (exact) */
	GArray *points;  /* PlTrackPoint, in arrival order (the agent's poll order) */
	guint64 missing; /* polls that could not read it */
} PlCounterTrack;

typedef struct {
	guint64 samples;
	double min, mean, max; /* in unit; mean weighted by the time each value covers */
	guint64 first, last;   /* times of the first and last point */
} PlCounterSummary;

typedef struct _PlCounterTracks PlCounterTracks;

PlCounterTracks *pl_counter_tracks_new(void);
void pl_counter_tracks_free(PlCounterTracks *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlCounterTracks, pl_counter_tracks_free)

/* A TRACK_DESC: id == the count so far adds a track; an id already known
 * (a later session of the same stream) replaces that track and forgets
 * its points. */
void pl_counter_tracks_add_desc(PlCounterTracks *t, const struct pl_msg_track_desc *d);
void pl_counter_tracks_add_values(PlCounterTracks *t, const struct pl_msg_track_values *v);

guint pl_counter_tracks_len(const PlCounterTracks *t);
const PlCounterTrack *pl_counter_tracks_get(const PlCounterTracks *t, guint i);
guint64 pl_counter_tracks_rejected(const PlCounterTracks *t);
guint64 pl_counter_tracks_dropped_points(const PlCounterTracks *t);

/* Min, time-weighted mean and max of the points in [from, to] (0, 0: all).
 * Each point's value stands for the time since the point before (a busy
 * share is the share of that interval; a level was polled then); the
 * first point weighs as the next interval.  FALSE when no point is in
 * the range. */
gboolean pl_counter_track_summary(const PlCounterTrack *tr, guint64 from, guint64 to,
				  PlCounterSummary *out);

/* TRUE for the sysfs sources (cpufreq, cpuidle, thermal, hwmon), which
 * PerfLens reads as the kernel documents them but has been tested on
 * fixture trees only: the report and the app say "not seen on hardware". */
gboolean pl_counter_track_from_sysfs(const PlCounterTrack *tr);
#define PL_COUNTER_NOT_SEEN "not seen on hardware"

/* How to show values of tr: the unit to print (B as MiB, Hz as MHz) and
 * what a value in the track's unit is divided by for it. */
const char *pl_counter_track_display(const PlCounterTrack *tr, double *divisor);

G_END_DECLS

#endif
