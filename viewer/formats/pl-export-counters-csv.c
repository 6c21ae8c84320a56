/* pl-export-counters-csv.c — counters-csv: every value of every counter
 * track (pl-counter-tracks.h) as CSV (RFC 4180), one row a value:
 *   time_ns,time_s,track,kind,unit,value,pid,cpu,source
 * time_ns on the session clock (CLOCK_MONOTONIC of the board, as samples),
 * time_s from the session's start, value in unit (the kernel's unit
 * scaled: bytes, %, Hz, °C, W, A, V).  See pl-export.h. */
#include "pl-export.h"

#include <errno.h>
#include <string.h>

#include "pl-csv.h"
#include "pl-counter-tracks.h"

static const char *const kinds[] = { "?",	    "rss",     "cpu-busy", "cpu-freq", "cpu-idle",
				     "thermal", "power",   "current",  "voltage",  "temp" };

gboolean pl_export_counters_csv(PlProfile *p, FILE *out, GError **error)
{
	PlCounterTracks *ct = pl_profile_get_counter_tracks(p);
	guint64 t0 = pl_profile_get_stats(p)->session_start;
	g_autoptr(GString) s = g_string_new("time_ns,time_s,track,kind,unit,value,pid,cpu,source\n");
	for (guint i = 0; i < pl_counter_tracks_len(ct); i++) {
		const PlCounterTrack *t = pl_counter_tracks_get(ct, i);
		/* the fields that repeat on every row of the track */
		g_autoptr(GString) name = g_string_new(NULL), tail = g_string_new(NULL);
		pl_csv_field(name, t->name);
		g_string_append_printf(name, ",%s,", t->kind < G_N_ELEMENTS(kinds) ? kinds[t->kind] : "?");
		pl_csv_field(name, t->unit);
		g_string_append_printf(tail, ",%u,%d,", t->pid, t->cpu);
		pl_csv_field(tail, t->source);
		for (guint k = 0; k < t->points->len; k++) {
			const PlTrackPoint *pt = &g_array_index(t->points, PlTrackPoint, k);
			g_string_append_printf(s, "%" G_GUINT64_FORMAT ",%.6f,%s,%.12g%s\n", pt->time,
					       pt->time >= t0 ? (double)(pt->time - t0) / 1e9
							      : -(double)(t0 - pt->time) / 1e9,
					       name->str, pt->value, tail->str);
			if (s->len > 65536 && !pl_csv_put(out, s, error))
				return FALSE;
		}
	}
	return pl_csv_put(out, s, error);
}
