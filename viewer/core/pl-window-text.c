/* pl-window-text.c — the window's filter and status lines (see
 * pl-window-text.h). */
#include "pl-window-text.h"

#include <string.h>

/* ─── weights ────────────────────────────────────────────────────────── */

gboolean pl_window_weight_is_time(PlProfile *p)
{
	if (!p)
		return TRUE;
	const PlEvent *e = pl_profile_lookup_event(p, pl_profile_get_main_event(p));
	if (!e || !e->name)
		return TRUE;
	return e->role == PL_ROLE_SWITCH || strstr(e->name, "clock") != NULL;
}

char *pl_window_format_weight(PlProfile *p, guint64 w)
{
	if (pl_window_weight_is_time(p)) {
		double s = (double)w / 1e9;
		if (s >= 1)
			return g_strdup_printf("%.2f s", s);
		if (s >= 1e-3)
			return g_strdup_printf("%.1f ms", s * 1e3);
		return g_strdup_printf("%.0f µs", s * 1e6);
	}
	if (w >= 1000000000)
		return g_strdup_printf("%.2f G", (double)w / 1e9);
	if (w >= 1000000)
		return g_strdup_printf("%.1f M", (double)w / 1e6);
	if (w >= 10000)
		return g_strdup_printf("%.1f k", (double)w / 1e3);
	return g_strdup_printf("%" G_GUINT64_FORMAT, w);
}

/* ─── lines ──────────────────────────────────────────────────────────── */

char *pl_window_selection_text(PlProfile *profile, const PlFilter *filter)
{
	GString *s = g_string_new(NULL);
	if (filter->tid) {
		PlThread *t = profile ? pl_profile_lookup_thread(profile, filter->tid) : NULL;
		g_string_append_printf(s, "Thread %s (%u)", t && t->name ? t->name : "?", filter->tid);
	}
	if (filter->t1 > filter->t0 && profile) {
		const PlProfileStats *st = pl_profile_get_stats(profile);
		double a = (double)(filter->t0 - MIN(filter->t0, st->first_time)) / 1e9;
		double b = (double)(filter->t1 - MIN(filter->t1, st->first_time)) / 1e9;
		/* enough decimals that a short range (one interrupt, one
		 * activation) reads as two times and its length, to the µs */
		guint64 d = filter->t1 - filter->t0;
		int digits = d >= 100000000 ? 3 : d >= 10000000 ? 4 : d >= 1000000 ? 5 : 6;
		g_string_append_printf(s, "%s%.*f s – %.*f s (", s->len ? ", " : "", digits, a,
				       digits, b);
		if (d >= 1000000000)
			g_string_append_printf(s, "%.3f s)", (double)d / 1e9);
		else if (d >= 1000000)
			g_string_append_printf(s, "%.3f ms)", (double)d / 1e6);
		else
			g_string_append_printf(s, "%.0f µs)", (double)d / 1e3);
	}
	return g_string_free(s, s->len == 0); /* NULL when nothing is selected */
}

char *pl_window_filter_text(PlProfile *profile, const PlFilter *filter)
{
	g_autofree char *sel = pl_window_selection_text(profile, filter);
	if (!sel)
		return g_strdup("All threads, whole session — drag in the timeline to select a "
				"time range, click a thread name to select a thread");
	return g_strconcat("Showing: ", sel, NULL);
}

char *pl_window_status_text(PlProfile *profile, const PlAggregate *agg, const char *path,
			    gboolean live)
{
	if (!profile)
		return g_strdup("");
	const PlProfileStats *st = pl_profile_get_stats(profile);
	guint64 lost = 0;
	for (guint i = 0; i < G_N_ELEMENTS(st->lost); i++)
		lost += st->lost[i];
	double dur = st->last_time > st->first_time ? (st->last_time - st->first_time) / 1e9 : 0;
	g_autofree char *sel = agg ? pl_window_format_weight(profile, agg->all.weight) : g_strdup("");
	/* the views show one event (the sampled one, or off-CPU time): its
	 * name, or the session's total of every event reads as a mismatch */
	const PlEvent *ev = agg ? pl_profile_lookup_event(profile, agg->filter.event) : NULL;
	return g_strdup_printf("%s%s   %s · %" G_GUINT64_FORMAT " samples of all events · %.2f s · "
			       "in view: %s (%" G_GUINT64_FORMAT " %s samples)%s",
			       live ? "● live  " : "", path ? path : "",
			       st->hostname ? st->hostname : "?", st->samples, dur, sel,
			       agg ? agg->all.samples : 0, ev && ev->name ? ev->name : "",
			       lost ? " · samples were lost" : "");
}
