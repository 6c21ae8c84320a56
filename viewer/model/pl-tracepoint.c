/* pl-tracepoint.c — the markers with their begin/end intervals, and
 * intervals between any two events, read from the profile's tracepoint
 * events (pl-tracepoint.h).  The profile's storage of the events is in
 * pl-profile-samples.c, their formats are pl-trace-format.c's. */
#include "pl-tracepoint.h"
#include "pl-expr.h"

#include <string.h>

#include "pl-profile-private.h"

/* ─── markers ────────────────────────────────────────────────────────── */

static void marker_clear(gpointer p)
{
	g_free(((PlMarker *)p)->text);
}

static void interval_clear(gpointer p)
{
	g_free(((PlMarkerInterval *)p)->name);
}

void pl_markers_free(PlMarkers *m)
{
	if (!m)
		return;
	g_array_free(m->markers, TRUE);
	g_array_free(m->intervals, TRUE);
	g_free(m);
}

/* "B|PID|NAME" / "E|PID|NAME" (also "E|PID", "E"): *name borrowed into
 * text, NULL when there is none. */
static char begin_end(const char *text, const char **name)
{
	*name = NULL;
	if ((text[0] != 'B' && text[0] != 'E') || (text[1] && text[1] != '|'))
		return 0;
	if (text[1] == '|') {
		const char *bar = strchr(text + 2, '|');
		if (bar)
			*name = bar + 1;
	}
	return text[0];
}

static gint interval_cmp(gconstpointer a, gconstpointer b)
{
	const PlMarkerInterval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : (gint)x->depth - (gint)y->depth;
}

/* Begins still open (tid -> GArray of them) are unmatched; the intervals
 * go in start order. */
static void finish_intervals(PlMarkers *m, GHashTable *open)
{
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, open);
	while (g_hash_table_iter_next(&it, NULL, &v))
		m->unmatched += ((GArray *)v)->len;
	g_array_sort(m->intervals, interval_cmp);
}

PlMarkers *pl_markers_new(PlProfile *profile)
{
	PlMarkers *m = g_new0(PlMarkers, 1);
	m->markers = g_array_new(FALSE, FALSE, sizeof(PlMarker));
	g_array_set_clear_func(m->markers, marker_clear);
	m->intervals = g_array_new(FALSE, FALSE, sizeof(PlMarkerInterval));
	g_array_set_clear_func(m->intervals, interval_clear);
	gboolean be = pl_profile_is_big_endian(profile);
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	/* per thread: its open begins, innermost last (indices into markers) */
	g_autoptr(GHashTable) open = g_hash_table_new_full(NULL, NULL, NULL,
							  (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < n; i++) {
		const PlEvent *e = pl_profile_lookup_event(profile, ev[i].event);
		const guint8 *raw = pl_profile_get_trace_raw(profile, &ev[i]);
		char *text = NULL;
		if (ev[i].marker) {
			text = g_strndup((const char *)raw, ev[i].raw_len);
		} else if (e && !g_strcmp0(e->name, "ftrace:print")) {
			const PlTraceFormat *fmt = pl_profile_get_trace_format(profile, ev[i].event);
			const PlTraceField *buf = pl_trace_format_find(fmt, "buf");
			text = buf ? pl_trace_field_dup_string(buf, raw, ev[i].raw_len, be) : NULL;
		}
		if (!text)
			continue; /* no format, or a payload that does not hold it */
		gsize tl = strlen(text);
		if (tl && text[tl - 1] == '\n')
			text[tl - 1] = 0;
		PlMarker mk = { ev[i].time, ev[i].pid, ev[i].tid, ev[i].stack, text };
		g_array_append_val(m->markers, mk);
		const char *name;
		char be_kind = begin_end(text, &name);
		if (!be_kind)
			continue;
		GArray *stack = g_hash_table_lookup(open, GUINT_TO_POINTER(ev[i].tid));
		if (be_kind == 'B') {
			if (!stack) {
				stack = g_array_new(FALSE, FALSE, sizeof(guint));
				g_hash_table_insert(open, GUINT_TO_POINTER(ev[i].tid), stack);
			}
			guint idx = m->markers->len - 1;
			g_array_append_val(stack, idx);
			continue;
		}
		/* an end closes the innermost open begin of that name (of any
		 * name when it has none) */
		gint j = stack ? (gint)stack->len - 1 : -1;
		for (; j >= 0 && name; j--) {
			const PlMarker *b = &g_array_index(m->markers, PlMarker,
							   g_array_index(stack, guint, j));
			const char *bn;
			begin_end(b->text, &bn);
			if (bn && !strcmp(bn, name))
				break;
		}
		if (j < 0) {
			m->unmatched++;
			continue;
		}
		const PlMarker *b = &g_array_index(m->markers, PlMarker,
						   g_array_index(stack, guint, (guint)j));
		const char *bn;
		begin_end(b->text, &bn);
		PlMarkerInterval iv = { b->time, mk.time, mk.pid, mk.tid, (guint)j,
					g_strdup(bn ? bn : "") };
		g_array_append_val(m->intervals, iv);
		g_array_remove_index(stack, (guint)j);
	}
	finish_intervals(m, open);
	return m;
}

/* What a pair's regexes are matched against: the marker's text, or the
 * tracepoint's name and decoded fields. */
static char *event_text(PlProfile *profile, const PlTraceEvent *ev, gboolean be)
{
	const guint8 *raw = pl_profile_get_trace_raw(profile, ev);
	if (ev->marker) {
		char *t = g_strndup((const char *)raw, ev->raw_len);
		gsize n = strlen(t);
		if (n && t[n - 1] == '\n')
			t[n - 1] = 0;
		return t;
	}
	const PlEvent *e = pl_profile_lookup_event(profile, ev->event);
	const PlTraceFormat *f = pl_profile_get_trace_format(profile, ev->event);
	g_autofree char *fields = f ? pl_trace_format_dup_fields(f, raw, ev->raw_len, be) : NULL;
	return g_strdup_printf("%s %s", e ? e->name : "?", fields ? fields : "");
}

guint pl_markers_add_pairs(PlMarkers *m, PlProfile *profile, const GRegex *begin,
			   const GRegex *end, const char *name)
{
	gboolean be = pl_profile_is_big_endian(profile);
	guint n, added = 0;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	/* per thread: the start times of its open begins, innermost last */
	g_autoptr(GHashTable) open = g_hash_table_new_full(NULL, NULL, NULL,
							  (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < n; i++) {
		g_autofree char *text = event_text(profile, &ev[i], be);
		gboolean is_end = g_regex_match(end, text, 0, NULL);
		gboolean is_begin = g_regex_match(begin, text, 0, NULL);
		if (!is_end && !is_begin)
			continue;
		GArray *stack = g_hash_table_lookup(open, GUINT_TO_POINTER(ev[i].tid));
		if (is_end && stack && stack->len) {
			guint depth = stack->len - 1;
			guint64 t0 = g_array_index(stack, guint64, depth);
			PlMarkerInterval iv = { t0, ev[i].time, ev[i].pid, ev[i].tid, depth,
						g_strdup(name) };
			g_array_append_val(m->intervals, iv);
			g_array_remove_index(stack, depth);
			added++;
			continue;
		}
		if (!is_begin) {
			m->unmatched++; /* an end with nothing open */
			continue;
		}
		if (!stack) {
			stack = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(open, GUINT_TO_POINTER(ev[i].tid), stack);
		}
		g_array_append_val(stack, ev[i].time);
	}
	finish_intervals(m, open);
	return added;
}

gboolean pl_markers_parse_pair(const char *spec, GRegex **begin, GRegex **end, GError **error)
{
	*begin = *end = NULL;
	const char *semi = strchr(spec, ';');
	if (!semi || semi == spec || !semi[1]) {
		pl_expr_set_error(error, !semi ? strlen(spec) : semi == spec ? 0 : strlen(spec),
				  "not BEGIN_REGEX;END_REGEX: two regexes split by ';', e.g. "
				  "'^frame start;^frame end'");
		return FALSE;
	}
	g_autofree char *b = g_strndup(spec, (gsize)(semi - spec));
	*begin = pl_expr_regex_new(b, 0, error);
	if (*begin)
		*end = pl_expr_regex_new(semi + 1, (gsize)(semi + 1 - spec), error);
	if (!*end) {
		g_clear_pointer(begin, g_regex_unref);
		return FALSE;
	}
	return TRUE;
}
