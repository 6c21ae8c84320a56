/* pl-findings-cpufreq.c — the cpufreq rule: CPUs whose frequency sat well
 * below their hardware's maximum while they were busy, from the counter
 * tracks an agent polls (--tracks; pl-counter-tracks.h): each cpufreq
 * policy's scaling_cur_freq, its limit scaling_max_freq and its
 * cpuinfo_max_freq (Documentation/admin-guide/pm/cpufreq.rst), each CPU's
 * busy share (/proc/stat) and the thermal zones' temperatures.
 *
 * The agent names a policy's tracks "policyN … (cpus LIST)", LIST as the
 * policy's related_cpus reads, and gives each the policy's N as its cpu;
 * the three frequency tracks are told apart by their source's file name.
 * Every track is read at the same polls: a busy share is of the interval
 * since the poll before, and a level (a frequency, a temperature) read at
 * a poll stands for that interval too, as pl_counter_track_summary counts
 * it, so every time here is good to one poll period.
 *
 * Only poll intervals in which a CPU was nearly saturated are judged: a
 * governor lowers the frequency of a partly idle CPU by design (schedutil
 * asks for the maximum from 80 % of utilisation, ondemand from its
 * up_threshold, 80 % by default), which is no finding. */
#include <stdlib.h>
#include <string.h>

#include "pl-counter-tracks.h"
#include "pl-findings-private.h"
#include "pl-percent.h"

#define CPUFREQ_BUSY 90.0         /* an interval counts when a CPU was at least 90 % busy… */
#define CPUFREQ_BELOW 20.0        /* …and its frequency is "low" more than 20 % below the maximum; */
#define CPUFREQ_SHARE 25.0        /* fires when it was low for at least 25 % of that busy time… */
#define CPUFREQ_MIN_NS 200000000.0 /* …of at least 0.2 s of busy time (CPU time, all its CPUs) */
#define CPUFREQ_RISE 5.0          /* thermal: a zone at least 5 °C hotter while low than outside */
#define CPUFREQ_STRETCHES 5       /* stretches listed, in time order */

typedef struct {
	int cpu;
	const PlCounterTrack *busy; /* NULL when the recording has none for it */
	double busy_ns, low_ns, freq_ns; /* freq_ns: Hz × ns, for the mean */
} CpuRow;

typedef struct {
	guint64 t0, t1; /* (t0, t1]: a poll interval, or merged ones */
	double w;       /* its busy ns (all the policy's CPUs) */
} Span;

/* The level a track read at the poll of time t: the first point at or
 * after t (the read that ends the interval), else the last; FALSE when the
 * track has none. */
static gboolean level_at(const PlCounterTrack *tr, guint64 t, double *v)
{
	if (!tr || !tr->points->len)
		return FALSE;
	const PlTrackPoint *p = (const PlTrackPoint *)(void *)tr->points->data;
	guint lo = 0, hi = tr->points->len;
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (p[mid].time < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*v = p[MIN(lo, tr->points->len - 1)].value;
	return TRUE;
}

static gboolean source_is(const PlCounterTrack *tr, const char *file)
{
	const char *slash = strrchr(tr->source, '/');
	return slash && !strcmp(slash + 1, file);
}

/* The track of that kind and cpu whose source file is `file` (NULL: any). */
static const PlCounterTrack *find_track(PlCounterTracks *ct, guint8 kind, int cpu, const char *file)
{
	for (guint i = 0; i < pl_counter_tracks_len(ct); i++) {
		const PlCounterTrack *tr = pl_counter_tracks_get(ct, i);
		if (tr->kind == kind && tr->cpu == cpu && (!file || source_is(tr, file)))
			return tr;
	}
	return NULL;
}

/* The CPUs of the policy whose frequency track is tr: the name's "(cpus
 * LIST)", else the policy's own number. */
static GArray *policy_cpus(const PlCounterTrack *tr)
{
	GArray *a = g_array_new(FALSE, FALSE, sizeof(int));
	const char *s = strstr(tr->name, "(cpus ");
	if (s) {
		s += 6;
		for (;;) {
			char *end;
			long c = strtol(s, &end, 10);
			if (end == s || c < 0 || c > 65535)
				break;
			int ci = (int)c;
			g_array_append_val(a, ci);
			s = end;
		}
	}
	if (!a->len)
		g_array_append_val(a, tr->cpu);
	return a;
}

static int cmp_span(gconstpointer a, gconstpointer b)
{
	const Span *x = a, *y = b;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : 0;
}

/* Intervals sorted and merged where they meet or overlap (the polls of
 * the policy's CPUs are the same: their intervals coincide). */
static void merge_spans(GArray *spans)
{
	g_array_sort(spans, cmp_span);
	guint n = 0;
	for (guint i = 0; i < spans->len; i++) {
		Span *s = &g_array_index(spans, Span, i);
		Span *last = n ? &g_array_index(spans, Span, n - 1) : NULL;
		if (last && s->t0 <= last->t1) {
			last->t1 = MAX(last->t1, s->t1);
			last->w += s->w;
		} else {
			g_array_index(spans, Span, n++) = *s;
		}
	}
	g_array_set_size(spans, n);
}

/* Whether t lies in one of the merged, sorted spans. */
static gboolean in_spans(GArray *merged, guint64 t)
{
	guint lo = 0, hi = merged->len; /* the first span starting at or after t */
	while (lo < hi) {
		guint mid = (lo + hi) / 2;
		if (g_array_index(merged, Span, mid).t0 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && t <= g_array_index(merged, Span, lo - 1).t1;
}

typedef struct {
	const PlCounterTrack *zone;
	double during, max_during, outside; /* °C */
	gboolean have_outside;
} Heat;

/* A thermal zone's temperature during the low intervals (each weighted by
 * its busy time, as the frequency's mean) and over its polls outside them
 * (each weighing its interval); FALSE when the zone has no reading. */
static gboolean zone_heat(const PlCounterTrack *z, GArray *low, GArray *merged, Heat *h)
{
	double w = 0, sum = 0, wo = 0, so = 0;
	memset(h, 0, sizeof(*h));
	h->zone = z;
	for (guint i = 0; i < low->len; i++) {
		const Span *s = &g_array_index(low, Span, i);
		double v;
		if (!level_at(z, s->t1, &v))
			return FALSE;
		h->max_during = w > 0 ? MAX(h->max_during, v) : v;
		sum += v * s->w;
		w += s->w;
	}
	const PlTrackPoint *p = (const PlTrackPoint *)(void *)z->points->data;
	for (guint i = 0; i < z->points->len; i++) {
		if (in_spans(merged, p[i].time))
			continue;
		double d = i && p[i].time > p[i - 1].time ? (double)(p[i].time - p[i - 1].time) : 1.0;
		so += p[i].value * d;
		wo += d;
	}
	if (w <= 0)
		return FALSE;
	h->during = sum / w;
	h->have_outside = wo > 0;
	h->outside = wo > 0 ? so / wo : 0;
	return TRUE;
}

/* How much hotter the zone was while low: -1e9 when it cannot be told. */
static double rise(const Heat *h)
{
	return h->zone && h->have_outside ? h->during - h->outside : -1e9;
}

static double rel_s(guint64 t, guint64 first)
{
	return t >= first ? (t - first) / 1e9 : -((first - t) / 1e9);
}

static void judge_policy(PlProfile *p, PlCounterTracks *ct, const PlCounterTrack *cur,
			 GPtrArray *out)
{
	const PlCounterTrack *limit = find_track(ct, PL_TRACK_CPU_FREQ, cur->cpu, "scaling_max_freq");
	const PlCounterTrack *hw = find_track(ct, PL_TRACK_CPU_FREQ, cur->cpu, "cpuinfo_max_freq");
	PlCounterSummary hs;
	if (!hw || !pl_counter_track_summary(hw, 0, 0, &hs) || hs.max <= 0)
		return; /* no maximum to compare with (an agent before it sent one) */
	double max_hz = hs.max, low_hz = max_hz * (100 - CPUFREQ_BELOW) / 100;
	g_autoptr(GArray) cpus = policy_cpus(cur);
	g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(CpuRow));
	g_autoptr(GArray) low = g_array_new(FALSE, FALSE, sizeof(Span));
	double busy = 0, lo = 0, freq = 0, by_limit = 0, min_limit = 0;
	gboolean have_limit = FALSE;
	for (guint k = 0; k < cpus->len; k++) {
		CpuRow r = { .cpu = g_array_index(cpus, int, k) };
		r.busy = find_track(ct, PL_TRACK_CPU_BUSY, r.cpu, NULL);
		const PlTrackPoint *bp = r.busy ? (const PlTrackPoint *)(void *)r.busy->points->data : NULL;
		for (guint i = 0; bp && i < r.busy->points->len; i++) {
			guint64 t = bp[i].time;
			/* the first interval began at the agent's priming poll, one
			 * period before */
			guint64 dt = i ? t - bp[i - 1].time : (guint64)r.busy->interval_ms * 1000000u;
			double f, lim;
			if (bp[i].value < CPUFREQ_BUSY || !dt || dt > t || !level_at(cur, t, &f))
				continue;
			double w = bp[i].value / 100.0 * (double)dt;
			r.busy_ns += w;
			r.freq_ns += f * w;
			if (f >= low_hz)
				continue;
			r.low_ns += w;
			Span s = { t - dt, t, w };
			g_array_append_val(low, s);
			if (level_at(limit, t, &lim) && lim < low_hz) {
				by_limit += w;
				min_limit = have_limit ? MIN(min_limit, lim) : lim;
				have_limit = TRUE;
			}
		}
		busy += r.busy_ns;
		lo += r.low_ns;
		freq += r.freq_ns;
		g_array_append_val(rows, r);
	}
	double share = busy > 0 ? 100.0 * lo / busy : 0;
	if (busy < CPUFREQ_MIN_NS || share < CPUFREQ_SHARE)
		return;
	g_autoptr(GArray) merged = g_array_sized_new(FALSE, FALSE, sizeof(Span), low->len);
	g_array_append_vals(merged, low->data, low->len);
	merge_spans(merged);
	/* the zone that heated most */
	Heat heat = { 0 };
	for (guint i = 0; i < pl_counter_tracks_len(ct); i++) {
		const PlCounterTrack *z = pl_counter_tracks_get(ct, i);
		Heat h;
		if (z->kind == PL_TRACK_THERMAL && zone_heat(z, low, merged, &h) &&
		    (!heat.zone || rise(&h) > rise(&heat)))
			heat = h;
	}
	gboolean hot = rise(&heat) >= CPUFREQ_RISE;
	gboolean limited = by_limit * 2 >= lo;
	guint64 first = pl_profile_get_stats(p)->first_time;
	g_autofree char *cpulist = NULL;
	{
		GString *c = g_string_new(NULL);
		for (guint k = 0; k < cpus->len; k++)
			g_string_append_printf(c, "%s%d", k ? " " : "", g_array_index(cpus, int, k));
		cpulist = g_string_free(c, FALSE);
	}
	g_autofree char *policy = g_strndup(cur->name, strcspn(cur->name, " "));

	/* the likely cause, in the sentence */
	g_autofree char *cause = NULL;
	g_autofree char *lim_said =
		have_limit ? g_strdup_printf("scaling_max_freq lowered to %.0f MHz", min_limit / 1e6)
		: limit	   ? g_strdup_printf("scaling_max_freq not lowered below %.0f MHz", low_hz / 1e6)
			   : g_strdup("no scaling_max_freq track");
	if (hot)
		cause = g_strdup_printf("thermal throttling (%s read %.1f °C, %.1f °C outside that "
					"time; %s)",
					heat.zone->name, heat.during, heat.outside, lim_said);
	else if (limited)
		cause = g_strdup_printf("a lowered limit (%s)", lim_said);
	else
		cause = g_strdup_printf("the governor (%s)", lim_said);
	char *what = g_strdup_printf(
		"%s (CPUs %s) ran below %.0f MHz (%.0f%% of cpuinfo_max_freq %.0f MHz) for %.3f s of "
		"its %.3f s busy (%.1f%%): mean %.0f MHz while busy (%.1f%% of the maximum); likely "
		"cause: %s",
		policy, cpulist, low_hz / 1e6, 100 - CPUFREQ_BELOW, max_hz / 1e6, lo / 1e9, busy / 1e9,
		share, freq / busy / 1e6, 100.0 * freq / busy / max_hz, cause);

	GString *d = g_string_new("CPU\tbusy\tbelow\tshare\tmean while busy");
	for (guint k = 0; k < rows->len; k++) {
		const CpuRow *r = &g_array_index(rows, CpuRow, k);
		if (!r->busy)
			g_string_append_printf(d, "\n%d\tno busy track\t\t\t", r->cpu);
		else if (r->busy_ns > 0)
			g_string_append_printf(d, "\n%d\t%.3f s\t%.3f s\t%.1f%%\t%.0f MHz", r->cpu,
					       r->busy_ns / 1e9, r->low_ns / 1e9,
					       100.0 * r->low_ns / r->busy_ns, r->freq_ns / r->busy_ns / 1e6);
	}
	/* when: the stretches, and the longest one for the link */
	const Span *longest = NULL;
	for (guint i = 0; i < merged->len; i++) {
		const Span *s = &g_array_index(merged, Span, i);
		if (!longest || s->t1 - s->t0 > longest->t1 - longest->t0)
			longest = s;
		if (i < CPUFREQ_STRETCHES)
			g_string_append_printf(d, "\nbelow %.0f MHz from %.3f s to %.3f s after the first "
					       "record (clock %.6f s to %.6f s; report --from %.3f --to %.3f)",
					       low_hz / 1e6, rel_s(s->t0, first), rel_s(s->t1, first),
					       s->t0 / 1e9, s->t1 / 1e9, MAX(0, rel_s(s->t0, first)),
					       rel_s(s->t1, first));
	}
	if (merged->len > CPUFREQ_STRETCHES)
		g_string_append_printf(d, "\n… %u more such stretches", merged->len - CPUFREQ_STRETCHES);
	/* the agent's loop may poll later than asked: the longest gap bounds
	 * the times above */
	guint64 gap = 0;
	const PlTrackPoint *cp = (const PlTrackPoint *)(void *)cur->points->data;
	for (guint i = 1; i < cur->points->len; i++)
		gap = MAX(gap, cp[i].time > cp[i - 1].time ? cp[i].time - cp[i - 1].time : 0);
	g_string_append_printf(d, "\neach time is good to one poll interval: every %u ms asked, at "
			       "most %.0f ms between two polls here",
			       cur->interval_ms, gap / 1e6);
	/* the limit */
	PlCounterSummary ls;
	if (limit && pl_counter_track_summary(limit, 0, 0, &ls))
		g_string_append_printf(d, "\nscaling_max_freq (the policy's limit) read %.0f to %.0f "
				       "MHz; during %.1f%% of the time below it was itself under "
				       "%.0f MHz",
				       ls.min / 1e6, ls.max / 1e6, pl_percent((guint64)by_limit, (guint64)lo),
				       low_hz / 1e6);
	else
		g_string_append(d, "\nno scaling_max_freq track: the policy's limit is not known");
	/* the heat */
	if (heat.zone && heat.have_outside)
		g_string_append_printf(d, "\n%s: %.1f °C on average while below (max %.1f °C), "
				       "%.1f °C outside that time",
				       heat.zone->name, heat.during, heat.max_during, heat.outside);
	else if (heat.zone)
		g_string_append_printf(d, "\n%s: %.1f °C on average while below (max %.1f °C), no "
				       "reading outside that time",
				       heat.zone->name, heat.during, heat.max_during);
	else
		g_string_append(d, "\nno thermal zone track: heat cannot be told from the other causes");
	if (hot)
		g_string_append(d, "\nthe zone heated while the frequency fell: thermal throttling "
				   "(a cooling device lowers scaling_max_freq; where it stayed, the "
				   "firmware or the hardware throttled below cpufreq); cooling (a "
				   "heatsink, a fan, airflow) or less sustained load keeps the "
				   "frequency up, and the zone's trip_point_*_temp say where the "
				   "kernel starts throttling");
	else if (limited)
		g_string_append(d, "\nscaling_max_freq is the policy's limit: a user or a tool "
				   "(cpupower, tuned, power-profiles-daemon) writes it, a platform "
				   "limit (bios_limit, ACPI _PPC) or a thermal cooling device whose zone "
				   "is not recorded here lowers it, and turning turbo or boost off "
				   "brings it down to the non-turbo maximum");
	else
		g_string_append(d, "\nthe limit was not lowered: the governor chose these frequencies "
				   "(powersave and conservative ramp up slowly or not at all, "
				   "userspace holds one: see scaling_governor), or, where "
				   "cpuinfo_max_freq is a turbo frequency, the hardware's turbo and "
				   "power limits kept busy cores below it");
	g_string_append_printf(d, "\nin the app: the counter tracks under the timeline (%s "
			       "frequency, limit and maximum; the CPUs' busy share); the button "
			       "selects the longest stretch",
			       policy);
	g_autofree char *where = g_strdup_printf("report --counters (%s frequency, limit and "
						 "hardware max; cpu busy)", policy);
	PlFinding *f = pl_findings_add(out, "cpufreq", share, what, g_string_free(d, FALSE), where);
	if (longest) {
		f->t0 = longest->t0;
		f->t1 = longest->t1 + 1;
	}
}

void pl_findings_rule_cpufreq(PlProfile *p, PlProfile *baseline, GPtrArray *out)
{
	PlCounterTracks *ct = pl_profile_get_counter_tracks(p);
	for (guint i = 0; ct && i < pl_counter_tracks_len(ct); i++) {
		const PlCounterTrack *tr = pl_counter_tracks_get(ct, i);
		if (tr->kind == PL_TRACK_CPU_FREQ && source_is(tr, "scaling_cur_freq"))
			judge_policy(p, ct, tr, out);
	}
}
