/* pl-counter-tracks.c — counter tracks: descriptions, values, summaries;
 * see pl-counter-tracks.h. */
#include "pl-counter-tracks.h"

#include <math.h>
#include <string.h>

struct _PlCounterTracks {
	GPtrArray *tracks; /* PlCounterTrack *, by id */
	guint64 points, dropped_points, rejected;
};

static void track_free(gpointer p)
{
	PlCounterTrack *tr = p;
	g_free(tr->name);
	g_free(tr->unit);
	g_free(tr->source);
	g_array_free(tr->points, TRUE);
	g_free(tr);
}

PlCounterTracks *pl_counter_tracks_new(void)
{
	PlCounterTracks *t = g_new0(PlCounterTracks, 1);
	t->tracks = g_ptr_array_new_with_free_func(track_free);
	return t;
}

void pl_counter_tracks_free(PlCounterTracks *t)
{
	if (!t)
		return;
	g_ptr_array_free(t->tracks, TRUE);
	g_free(t);
}

static char *str_dup(struct pl_str s)
{
	/* names come from the board: only printable text is shown */
	char *r = g_strndup(s.p ? s.p : "", s.len);
	for (char *p = r; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	if (!g_utf8_validate(r, -1, NULL)) {
		char *v = g_utf8_make_valid(r, -1);
		g_free(r);
		r = v;
	}
	return g_strstrip(r); /* the agent leaves a missing label's space */
}

void pl_counter_tracks_add_desc(PlCounterTracks *t, const struct pl_msg_track_desc *d)
{
	if (d->id > t->tracks->len || d->id >= PL_MAX_TRACKS || d->exp10 < -18 || d->exp10 > 18) {
		t->rejected++;
		return;
	}
	PlCounterTrack *tr = g_new0(PlCounterTrack, 1);
	tr->id = d->id;
	tr->kind = d->kind;
	tr->pid = d->pid;
	tr->cpu = d->cpu;
	tr->interval_ms = d->interval_ms;
	tr->name = str_dup(d->name);
	tr->unit = str_dup(d->unit);
	tr->source = str_dup(d->source);
	tr->scale = pow(10.0, d->exp10);
	tr->divide = d->exp10 < 0;
	tr->points = g_array_new(FALSE, FALSE, sizeof(PlTrackPoint));
	if (d->id == t->tracks->len) {
		g_ptr_array_add(t->tracks, tr);
	} else {
		PlCounterTrack *old = t->tracks->pdata[d->id];
		t->points -= old->points->len;
		track_free(old);
		t->tracks->pdata[d->id] = tr;
	}
}

void pl_counter_tracks_add_values(PlCounterTracks *t, const struct pl_msg_track_values *v)
{
	if ((guint64)v->first + v->n > t->tracks->len || v->n > PL_MAX_TRACKS) {
		t->rejected++;
		return;
	}
	for (guint32 i = 0; i < v->n; i++) {
		PlCounterTrack *tr = t->tracks->pdata[v->first + i];
		gint64 raw = (gint64)v->v[i];
		if (raw == PL_TRACK_NONE) {
			tr->missing++;
			continue;
		}
		if (t->points >= PL_COUNTER_POINTS_MAX) {
			t->dropped_points++;
			continue;
		}
		/* dividing by an exact power of ten keeps 71500 m°C at 71.5 */
		PlTrackPoint p = { v->time, tr->divide ? (double)raw / (1.0 / tr->scale)
						      : (double)raw * tr->scale };
		g_array_append_val(tr->points, p);
		t->points++;
	}
}

guint pl_counter_tracks_len(const PlCounterTracks *t)
{
	return t->tracks->len;
}

const PlCounterTrack *pl_counter_tracks_get(const PlCounterTracks *t, guint i)
{
	return i < t->tracks->len ? t->tracks->pdata[i] : NULL;
}

guint64 pl_counter_tracks_rejected(const PlCounterTracks *t)
{
	return t->rejected;
}

guint64 pl_counter_tracks_dropped_points(const PlCounterTracks *t)
{
	return t->dropped_points;
}

gboolean pl_counter_track_summary(const PlCounterTrack *tr, guint64 from, guint64 to,
				  PlCounterSummary *out)
{
	memset(out, 0, sizeof(*out));
	double sum = 0, weight = 0;
	const PlTrackPoint *pts = (const PlTrackPoint *)(void *)tr->points->data;
	guint n = tr->points->len;
	for (guint i = 0; i < n; i++) {
		const PlTrackPoint *p = &pts[i];
		if ((from || to) && (p->time < from || p->time > to))
			continue;
		/* the interval this value stands for */
		guint64 w = i > 0 && p->time > pts[i - 1].time ? p->time - pts[i - 1].time
			    : i + 1 < n && pts[i + 1].time > p->time ? pts[i + 1].time - p->time
								      : 1;
		if (!out->samples++) {
			out->min = out->max = p->value;
			out->first = p->time;
		}
		out->min = MIN(out->min, p->value);
		out->max = MAX(out->max, p->value);
		out->last = p->time;
		sum += p->value * (double)w;
		weight += (double)w;
	}
	if (!out->samples)
		return FALSE;
	out->mean = sum / weight;
	return TRUE;
}

gboolean pl_counter_track_from_sysfs(const PlCounterTrack *tr)
{
	return tr->kind >= PL_TRACK_CPU_FREQ;
}

const char *pl_counter_track_display(const PlCounterTrack *tr, double *divisor)
{
	*divisor = 1;
	if (g_str_equal(tr->unit, "B")) {
		*divisor = 1024.0 * 1024.0;
		return "MiB";
	}
	if (g_str_equal(tr->unit, "Hz")) {
		*divisor = 1e6;
		return "MHz";
	}
	return tr->unit;
}
