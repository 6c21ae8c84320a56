/* report-trace.c — perflens report --markers and --tracepoints (issue
 * 19): the application markers with their begin/end intervals, and every
 * tracepoint hit with its decoded fields, in time order. */
#include <stdio.h>

#include "pl-cli.h"
#include "pl-tracepoint.h"
#include "pl-cli-expr.h"
#include "report.h"

static const char *thread_label(PlProfile *p, guint32 tid)
{
	PlThread *t = pl_profile_lookup_thread(p, tid);
	return t && t->name ? t->name : "?";
}

/* "f1 < f2 < f3": the innermost frames of a stack, callers to the right. */
static void print_frames(PlProfile *p, PlFunctionNames *fn, guint32 stack, guint max)
{
	guint32 node = pl_profile_get_stack_node(p, stack);
	for (guint i = 0; i < max && node != 0 && node != PL_NO_ID; i++) {
		const PlNode *n = pl_profile_get_node(p, node);
		printf("%s%s", i ? " < " : "", pl_function_names_get(fn, n->func));
		node = n->parent;
	}
}

static double rel_s(PlProfile *p, guint64 t)
{
	guint64 t0 = pl_profile_get_stats(p)->first_time;
	return t >= t0 ? (double)(t - t0) / 1e9 : -(double)(t0 - t) / 1e9;
}

gboolean pl_report_print_markers(PlProfile *p, char **pairs)
{
	g_autoptr(PlMarkers) m = pl_markers_new(p);
	/* functions of one name in several files: "helper (a.c)" */
	g_autoptr(PlFunctionNames) fn = pl_function_names_new(p, NULL);
	guint paired = 0;
	for (guint i = 0; pairs && pairs[i]; i++) {
		GRegex *b, *e;
		g_autoptr(GError) error = NULL;
		if (!pl_markers_parse_pair(pairs[i], &b, &e, &error)) {
			pl_cli_fail_expr("--pair", pairs[i], error);
			return FALSE;
		}
		paired += pl_markers_add_pairs(m, p, b, e, pairs[i]);
		g_regex_unref(b);
		g_regex_unref(e);
	}
	printf("\nMarkers: %u (lines written to tracefs trace_marker by perflens-marker.h)\n",
	       m->markers->len);
	if (m->markers->len)
		printf("      Time s       TID  Thread           Text  [stack]\n");
	for (guint i = 0; i < m->markers->len; i++) {
		const PlMarker *k = &g_array_index(m->markers, PlMarker, i);
		printf("  %10.6f  %8u  %-15.15s  %s  [", rel_s(p, k->time), k->tid,
		       thread_label(p, k->tid), k->text);
		print_frames(p, fn, k->stack, 8);
		printf("]\n");
	}
	printf("\nIntervals: %u (begin/end pairs: B|PID|NAME … E|PID|NAME", m->intervals->len);
	if (pairs && pairs[0])
		printf("; %u from --pair", paired);
	printf("), %u unmatched\n", m->unmatched);
	if (m->intervals->len)
		printf("     Start s   Duration ms       TID  Thread           Name\n");
	for (guint i = 0; i < m->intervals->len; i++) {
		const PlMarkerInterval *v = &g_array_index(m->intervals, PlMarkerInterval, i);
		printf("  %10.6f  %12.3f  %8u  %-15.15s  %*s%s\n", rel_s(p, v->start),
		       (double)(v->end - v->start) / 1e6, v->tid, thread_label(p, v->tid),
		       (int)(2 * v->depth), "", v->name);
	}
	return TRUE;
}

void pl_report_print_tracepoints(PlProfile *p)
{
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(p, &n);
	const PlProfileStats *st = pl_profile_get_stats(p);
	gboolean be = pl_profile_is_big_endian(p);
	guint shown = 0;
	g_autoptr(PlFunctionNames) fn = pl_function_names_new(p, NULL);
	for (guint i = 0; i < n; i++)
		shown += !ev[i].marker;
	printf("\nTracepoint events: %u", shown);
	if (st->trace_dropped)
		printf(" (%" G_GUINT64_FORMAT " not kept: past the cap, or writev calls that were "
		       "not markers)", st->trace_dropped);
	if (st->probe_hits_elsewhere)
		printf(" (%" G_GUINT64_FORMAT " probe hits in processes outside the session left "
		       "out)", st->probe_hits_elsewhere);
	printf("\n");
	if (shown)
		printf("      Time s       TID  Thread           Event  Fields  [stack]\n");
	for (guint i = 0; i < n; i++) {
		const PlEvent *e = pl_profile_lookup_event(p, ev[i].event);
		const PlTraceFormat *f = pl_profile_get_trace_format(p, ev[i].event);
		if (ev[i].marker)
			continue; /* --markers lists them */
		g_autofree char *fields =
			f ? pl_trace_format_dup_fields(f, pl_profile_get_trace_raw(p, &ev[i]),
						       ev[i].raw_len, be)
			  : g_strdup_printf("(no format: %u bytes)", ev[i].raw_len);
		printf("  %10.6f  %8u  %-15.15s  %s  %s  [", rel_s(p, ev[i].time), ev[i].tid,
		       thread_label(p, ev[i].tid), e ? e->name : "?", fields);
		/* 16: with kernel stacks the entry path alone takes 4 on
		 * x86_64 and 8 on arm64, before the program's call site */
		print_frames(p, fn, ev[i].stack, 16);
		printf("]\n");
	}
}
