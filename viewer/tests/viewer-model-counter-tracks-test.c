/* viewer-model-counter-tracks-test.c — the counter-track model
 * (pl-counter-tracks.h) fed through a real capture file and the reader:
 * descriptions and values of each kind in their units, the time-weighted
 * mean, values that were not read, malformed messages dropped without
 * harm (an id past the next, values for tracks never described), a later
 * session's description replacing the track, and the counters-csv export
 * of the same capture. */
#include <math.h>

#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-counter-tracks.h"
#include "pl-profile.h"

#define T0 5000000000ull
#define MS 1000000ull

static void add(VtCapture *c, const struct pl_msg *m)
{
	PL_CHECK(vt_capture_add(c, m) == 0);
}

static void desc(VtCapture *c, uint32_t id, uint8_t kind, int32_t exp10, const char *name,
		 const char *unit)
{
	struct pl_msg m = { .type = PL_MSG_TRACK_DESC };
	m.u.track_desc = (struct pl_msg_track_desc){ id,	     kind,	      exp10, 0, -1, 100,
						     pl_str_c(name), pl_str_c(unit),
						     pl_str_c("/sys/fixture") };
	add(c, &m);
}

static void values(VtCapture *c, uint64_t t, uint32_t first, uint32_t n, const int64_t *v)
{
	static struct pl_msg m;
	memset(&m, 0, sizeof(m));
	m.type = PL_MSG_TRACK_VALUES;
	m.u.track_values.time = t;
	m.u.track_values.first = first;
	m.u.track_values.n = n;
	for (uint32_t i = 0; i < n; i++)
		m.u.track_values.v[i] = (uint64_t)v[i];
	add(c, &m);
}

static char *build(void)
{
	char *path = vt_tmp("tracks.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	desc(c, 0, PL_TRACK_RSS, 0, "rss 42", "B");
	desc(c, 1, PL_TRACK_CPU_BUSY, -1, "cpu0 busy", "%");
	desc(c, 2, PL_TRACK_THERMAL, -3, "thermal soc", "\xc2\xb0" "C");
	desc(c, 3, PL_TRACK_CPU_FREQ, 3, "policy0 frequency", "Hz");
	desc(c, 9, PL_TRACK_POWER, -6, "a gap", "W"); /* id past the next: dropped */
	/* busy 100 ‰, 900 ‰ after 300 ms, 200 ‰ after 100 more: each weighs
	 * the interval before it, the first the one after it (300, 300, 100):
	 * a mean of 45.71 %, where a plain one would say 40 % */
	int64_t a[] = { 1 << 20, 100, -5500, 1200000 };
	int64_t b[] = { 2 << 20, 900, 71500, PL_TRACK_NONE };
	int64_t d[] = { 200 };
	values(c, T0 + 100 * MS, 0, 4, a);
	values(c, T0 + 400 * MS, 0, 4, b);
	values(c, T0 + 500 * MS, 1, 1, d);
	int64_t x[] = { 1, 2 };
	values(c, T0 + 600 * MS, 3, 2, x); /* track 4 was never described: dropped */
	vt_capture_close(c);
	return path;
}

static void tracks_in_units(void)
{
	g_autofree char *path = build();
	g_autoptr(PlProfile) p = vt_profile_load(path);
	PlCounterTracks *ct = pl_profile_get_counter_tracks(p);
	PL_CHECKF(pl_counter_tracks_len(ct) == 4, "%u tracks", pl_counter_tracks_len(ct));
	PL_CHECKF(pl_counter_tracks_rejected(ct) == 2, "%" G_GUINT64_FORMAT " rejected",
		  pl_counter_tracks_rejected(ct));
	const PlCounterTrack *rss = pl_counter_tracks_get(ct, 0), *busy = pl_counter_tracks_get(ct, 1);
	const PlCounterTrack *temp = pl_counter_tracks_get(ct, 2), *freq = pl_counter_tracks_get(ct, 3);
	PL_CHECK(g_str_equal(rss->name, "rss 42") && g_str_equal(temp->unit, "\xc2\xb0" "C"));
	PlCounterSummary s;
	PL_CHECK(pl_counter_track_summary(busy, 0, 0, &s));
	PL_CHECKF(s.samples == 3 && s.min == 10.0 && s.max == 90.0, "%g %g", s.min, s.max);
	PL_CHECKF(fabs(s.mean - 320.0 / 7) < 1e-9, "time-weighted mean %g", s.mean);
	PL_CHECK(pl_counter_track_summary(temp, 0, 0, &s));
	PL_CHECKF(s.min == -5.5 && s.max == 71.5, "m\xc2\xb0" "C: %g %g", s.min, s.max);
	PL_CHECK(pl_counter_track_summary(freq, 0, 0, &s));
	PL_CHECKF(s.samples == 1 && s.max == 1.2e9 && freq->missing == 1, "Hz: %g, %" G_GUINT64_FORMAT
		  " missing", s.max, freq->missing);
	double div;
	PL_CHECK(g_str_equal(pl_counter_track_display(rss, &div), "MiB") && div == 1048576.0);
	PL_CHECK(pl_counter_track_summary(rss, T0 + 300 * MS, T0 + 500 * MS, &s));
	PL_CHECK(s.samples == 1 && s.max == 2 << 20);
	PL_CHECK(!pl_counter_track_summary(rss, T0 + 600 * MS, T0 + 700 * MS, &s));
	PL_CHECK(!pl_counter_track_from_sysfs(rss) && !pl_counter_track_from_sysfs(busy));
	PL_CHECK(pl_counter_track_from_sysfs(temp) && pl_counter_track_from_sysfs(freq));

	/* the export: one row a value, in the track's unit */
	g_autofree char *csv = vt_tmp("tracks.csv");
	PL_CHECK(vt_perflens(NULL, NULL, "export", path, "--format", "counters-csv", "-o", csv,
			     NULL) == 0);
	g_autofree char *text = NULL;
	PL_CHECK(g_file_get_contents(csv, &text, NULL, NULL));
	PL_CHECKF(text && strstr(text, "5400000000,") && strstr(text, ",thermal soc,thermal,") &&
			  strstr(text, ",71.5,") && strstr(text, ",1200000000,"),
		  "%s", text ? text : "(none)");
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	PL_CHECKF(g_strv_length(lines) == 1 + 8 + 1, "%u lines", g_strv_length(lines));
}

/* A second session in the same stream describes its tracks from 0 again:
 * the first session's points go. */
static void later_session_replaces(void)
{
	g_autofree char *path = vt_tmp("tracks2.plens");
	VtCapture *c = vt_capture_new(path);
	vt_hello(c);
	desc(c, 0, PL_TRACK_RSS, 0, "rss 1", "B");
	int64_t a[] = { 4096 };
	values(c, T0, 0, 1, a);
	desc(c, 0, PL_TRACK_RSS, 0, "rss 2", "B");
	int64_t b[] = { 8192 };
	values(c, T0 + MS, 0, 1, b);
	vt_capture_close(c);
	g_autoptr(PlProfile) p = vt_profile_load(path);
	PlCounterTracks *ct = pl_profile_get_counter_tracks(p);
	const PlCounterTrack *t = pl_counter_tracks_get(ct, 0);
	PL_CHECK(pl_counter_tracks_len(ct) == 1 && g_str_equal(t->name, "rss 2"));
	PL_CHECK(t->points->len == 1 && g_array_index(t->points, PlTrackPoint, 0).value == 8192);
}

PL_TEST_MAIN(PL_CASE(tracks_in_units), PL_CASE(later_session_replaces))
