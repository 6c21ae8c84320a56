/* fleet.c — perflens fleet report|diff|export|rank|sessions: questions to
 * the fleet's ClickHouse (what perflens collect stored), answered as
 * report, diff and export answer them for files; rank lists the devices by
 * one function's share of their samples, sessions what each stored, and
 * report --session opens one as the app does.  The queries are
 * pl-fleet-query's and pl-fleet-devices'; this file reads the options and
 * prints. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli-clickhouse.h"
#include "pl-cli.h"
#include "pl-export.h"
#include "pl-expr.h"
#include "pl-fleet-devices.h"
#include "pl-fleet-job.h"
#include "pl-fleet-profile.h"
#include "pl-fleet-query.h"
#include "pl-fleet-schema.h"
#include "pl-percent.h"

typedef struct {
	char *name;   /* "function" */
	char *module; /* "module" */
	guint64 self, total;
} Func;

static void func_free(gpointer p)
{
	Func *f = p;
	g_free(f->name);
	g_free(f->module);
	g_free(f);
}

/* "function module" (the store's frame label) → the function's row. */
static Func *func_of(GHashTable *h, const char *label)
{
	Func *f = g_hash_table_lookup(h, label);
	if (f)
		return f;
	f = g_new0(Func, 1);
	const char *sp = strrchr(label, ' ');
	f->name = sp ? g_strndup(label, (gsize)(sp - label)) : g_strdup(label);
	f->module = g_strdup(sp ? sp + 1 : "[unknown]");
	g_hash_table_insert(h, g_strdup(label), f);
	return f;
}

/* Self and total (each function once per stack) per function. */
static GHashTable *functions_of(GPtrArray *stacks)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, func_free);
	g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
	for (guint i = 0; i < stacks->len; i++) {
		const PlFleetStack *s = stacks->pdata[i];
		if (!s->frames[0])
			continue;
		func_of(h, s->frames[0])->self += s->count;
		g_hash_table_remove_all(seen);
		for (guint k = 0; s->frames[k]; k++) {
			Func *f = func_of(h, s->frames[k]);
			if (g_hash_table_add(seen, f))
				f->total += s->count;
		}
	}
	return h;
}

static gint by_self(gconstpointer a, gconstpointer b)
{
	const Func *x = *(Func *const *)a, *y = *(Func *const *)b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

static GPtrArray *ask(PlClickhouse *ch, PlFleetSource source, const char *where, guint64 since,
		      const char *event, guint64 *total, const char *opt)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) matches = NULL;
	if (where && !(matches = pl_fleet_where_parse(where, &error))) {
		pl_cli_fail("fleet: %s '%s': at character %d: %s", opt, where, error->code + 1,
			    error->message);
		return NULL;
	}
	g_autofree char *sql = pl_fleet_where_sql(source, matches, since, event);
	GPtrArray *stacks = pl_fleet_query_stacks(ch, source, sql, total, &error);
	if (!stacks)
		pl_cli_fail("fleet: %s", error->message);
	return stacks;
}

static int report(GPtrArray *stacks, guint64 total, const char *where, guint top,
		  PlFleetSource source)
{
	g_autoptr(GHashTable) h = functions_of(stacks);
	g_autoptr(GPtrArray) rows = g_ptr_array_new();
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, h);
	while (g_hash_table_iter_next(&it, NULL, &v))
		g_ptr_array_add(rows, v);
	g_ptr_array_sort(rows, by_self);
	printf("Fleet: %" G_GUINT64_FORMAT " samples%s%s%s\n\n", total, where ? " where " : "",
	       where ? where : "", source == PL_FLEET_MINUTES ? " (from the per-minute rollup)" : "");
	printf("Top functions by self:\n    Self    Total   Samples  Function\n");
	for (guint i = 0; i < rows->len && (!top || i < top); i++) {
		const Func *f = rows->pdata[i];
		printf("  %6.2f%%  %6.2f%%  %8" G_GUINT64_FORMAT "  %s  %s\n",
		       pl_percent(f->self, total), pl_percent(f->total, total), f->self, f->name,
		       f->module);
	}
	return PL_EXIT_OK;
}

typedef struct {
	const Func *a, *b;
	double ds, dt;
} Change;

static gint by_change(gconstpointer x, gconstpointer y)
{
	const Change *a = x, *b = y;
	double u = fabs(a->ds), v = fabs(b->ds);
	if (u != v)
		return u < v ? 1 : -1;
	u = fabs(a->dt), v = fabs(b->dt);
	if (u != v)
		return u < v ? 1 : -1;
	return strcmp((a->a ? a->a : a->b)->name, (b->a ? b->a : b->b)->name);
}

static int diff(GPtrArray *sa, guint64 ta, GPtrArray *sb, guint64 tb, const char *wa,
		const char *wb, guint top)
{
	g_autoptr(GHashTable) ha = functions_of(sa);
	g_autoptr(GHashTable) hb = functions_of(sb);
	g_autoptr(GArray) rows = g_array_new(FALSE, TRUE, sizeof(Change));
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, ha);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		Change c = { v, g_hash_table_lookup(hb, k), 0, 0 };
		g_array_append_val(rows, c);
	}
	g_hash_table_iter_init(&it, hb);
	while (g_hash_table_iter_next(&it, &k, &v))
		if (!g_hash_table_contains(ha, k)) {
			Change c = { NULL, v, 0, 0 };
			g_array_append_val(rows, c);
		}
	for (guint i = 0; i < rows->len; i++) {
		Change *c = &g_array_index(rows, Change, i);
		c->ds = pl_percent(c->b ? c->b->self : 0, tb) -
			pl_percent(c->a ? c->a->self : 0, ta);
		c->dt = pl_percent(c->b ? c->b->total : 0, tb) -
			pl_percent(c->a ? c->a->total : 0, ta);
	}
	g_array_sort(rows, by_change);
	printf("A: where %s (%" G_GUINT64_FORMAT " samples)\nB: where %s (%" G_GUINT64_FORMAT
	       " samples)\n",
	       wa, ta, wb, tb);
	printf("Shares are of each side's own total; \xce\x94 = B \xe2\x88\x92 A in percentage "
	       "points.\n\nFunctions by change of self share:\n");
	printf("    Self A   Self B       \xce\x94    Total A  Total B       \xce\x94  Function\n");
	for (guint i = 0; i < rows->len && (!top || i < top); i++) {
		const Change *c = &g_array_index(rows, Change, i);
		const Func *f = c->a ? c->a : c->b;
		printf("   %6.2f%%  %6.2f%%  %+6.2f    %6.2f%%  %6.2f%%  %+6.2f  %s [%s]%s\n",
		       pl_percent(c->a ? c->a->self : 0, ta), pl_percent(c->b ? c->b->self : 0, tb), c->ds,
		       pl_percent(c->a ? c->a->total : 0, ta), pl_percent(c->b ? c->b->total : 0, tb), c->dt,
		       f->name, f->module, !c->a ? " (new)" : !c->b ? " (gone)" : "");
	}
	return PL_EXIT_OK;
}

/* Collapsed stacks (flamegraph.pl): outermost first, ';' between. */
static int export_collapsed(GPtrArray *stacks, const char *output)
{
	FILE *f = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
	if (!f) {
		pl_cli_fail("fleet export: cannot write %s: %s", output, g_strerror(errno));
		return PL_EXIT_BAD_INPUT;
	}
	for (guint i = 0; i < stacks->len; i++) {
		const PlFleetStack *s = stacks->pdata[i];
		guint n = g_strv_length(s->frames);
		for (guint k = n; k-- > 0;) {
			const char *sp = strrchr(s->frames[k], ' ');
			fprintf(f, "%.*s%s", sp ? (int)(sp - s->frames[k]) : (int)strlen(s->frames[k]),
				s->frames[k], k ? ";" : "");
		}
		fprintf(f, "%s%" G_GUINT64_FORMAT "\n", n ? " " : "[no stack] ", s->count);
	}
	gboolean ok = !ferror(f) && fflush(f) == 0;
	if (f != stdout && fclose(f) != 0)
		ok = FALSE;
	if (!ok) {
		pl_cli_fail("fleet export: writing %s failed: %s", output ? output : "stdout",
			    g_strerror(errno));
		return PL_EXIT_BAD_INPUT;
	}
	return PL_EXIT_OK;
}

/* pprof and the SVG flame graph: the viewer's exporters, over the stacks
 * made a profile (pl-fleet-profile.h). */
static int export_profile(GPtrArray *stacks, const char *format, const char *event,
			  const char *where, const char *output)
{
	g_autoptr(GError) error = NULL;
	guint64 total = 0;
	for (guint i = 0; i < stacks->len; i++)
		total += ((const PlFleetStack *)stacks->pdata[i])->count;
	/* an SVG past the cap: each stack once, drawn by its samples as weight */
	gboolean weighted = !strcmp(format, "svg") && total > PL_FLEET_PROFILE_MAX_SAMPLES;
	g_autoptr(PlProfile) p = weighted ? pl_fleet_profile_new_weighted(stacks, event, NULL)
					  : pl_fleet_profile_new(stacks, event, NULL,
								 PL_FLEET_PROFILE_MAX_SAMPLES, &error);
	if (!p) {
		pl_cli_fail("fleet export: %s", error->message);
		return PL_EXIT_BAD_INPUT;
	}
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &PL_FILTER_ALL);
	gboolean ok;
	if (!strcmp(format, "pprof")) {
		ok = pl_export_pprof(agg, output, &error);
	} else {
		FILE *f = output && strcmp(output, "-") ? fopen(output, "w") : stdout;
		if (!f) {
			pl_cli_fail("fleet export: cannot write %s: %s", output, g_strerror(errno));
			return PL_EXIT_BAD_INPUT;
		}
		g_autofree char *title = g_strdup_printf("Fleet%s%s", where ? ": " : "",
							 where ? where : "");
		ok = pl_export_svg(agg, f, title, weighted, &error);
		if (fflush(f) != 0 && ok) {
			ok = FALSE;
			g_set_error(&error, G_IO_ERROR, g_io_error_from_errno(errno), "%s",
				    g_strerror(errno));
		}
		if (f != stdout && fclose(f) != 0 && ok) {
			ok = FALSE;
			g_set_error(&error, G_IO_ERROR, g_io_error_from_errno(errno), "%s",
				    g_strerror(errno));
		}
	}
	if (!ok) {
		pl_cli_fail("fleet export: writing %s failed: %s", output ? output : "stdout",
			    error ? error->message : "?");
		return PL_EXIT_BAD_INPUT;
	}
	return PL_EXIT_OK;
}

/* fleet rank: the devices (label `by`) by the function's share. */
static int rank(PlClickhouse *ch, PlFleetSource source, const char *where_sql, const char *where,
		const char *by, const char *function, guint top)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) rows = pl_fleet_query_shares(ch, source, where_sql, by, function, &error);
	if (!rows) {
		pl_cli_fail("fleet rank: %s", error->message);
		return PL_EXIT_BAD_INPUT;
	}
	guint64 all = 0;
	guint with = 0;
	for (guint i = 0; i < rows->len; i++) {
		const PlFleetShare *r = rows->pdata[i];
		all += r->samples;
		with += r->total > 0;
	}
	printf("Function %s: its share of each %s's samples%s%s%s\n", function, by,
	       where ? " where " : "", where ? where : "",
	       source == PL_FLEET_MINUTES ? " (from the per-minute rollup)" : "");
	printf("%u of %u %s values have it; %" G_GUINT64_FORMAT " samples in all.\n\n", with,
	       rows->len, by, all);
	printf("   Total     Self   Samples  With it  Innermost  Sessions  %s\n", by);
	for (guint i = 0; i < rows->len && (!top || i < top); i++) {
		const PlFleetShare *r = rows->pdata[i];
		printf("  %6.2f%%  %6.2f%%  %8" G_GUINT64_FORMAT "  %7" G_GUINT64_FORMAT
		       "  %9" G_GUINT64_FORMAT "  %8" G_GUINT64_FORMAT "  %s\n",
		       pl_fleet_share_total_pct(r), pl_fleet_share_self_pct(r), r->samples, r->total,
		       r->self, r->sessions, *r->value ? r->value : "(no such label)");
	}
	return PL_EXIT_OK;
}

static char *utc_text(gint64 secs)
{
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(secs);
	return t ? g_date_time_format(t, "%Y-%m-%d %H:%M:%S") : g_strdup("?");
}

/* fleet sessions: what is stored, oldest first, to open one. */
static int sessions(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
		    const char *where, guint top)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(GPtrArray) rows = pl_fleet_query_sessions(ch, source, where_sql, &error);
	if (!rows) {
		pl_cli_fail("fleet sessions: %s", error->message);
		return PL_EXIT_BAD_INPUT;
	}
	printf("%u sessions%s%s%s (perflens fleet report --session NAME opens one)\n\n", rows->len,
	       where ? " where " : "", where ? where : "",
	       source == PL_FLEET_MINUTES ? " (from the per-minute rollup: times to the minute)"
					  : "");
	printf("  First (UTC)          Last (UTC)             Samples  Session  Labels\n");
	for (guint i = 0; i < rows->len && (!top || i < top); i++) {
		const PlFleetSession *r = rows->pdata[i];
		g_autofree char *t0 = utc_text(r->first);
		g_autofree char *t1 = utc_text(r->last);
		g_autofree char *labels = g_strjoinv(",", r->labels);
		printf("  %s  %s  %9" G_GUINT64_FORMAT "  %s  %s\n", t0, t1, r->samples, r->session,
		       labels);
	}
	return PL_EXIT_OK;
}

/* fleet report --session: the stored session opened as the app opens it
 * (pl_fleet_session_profile), its functions as fleet report prints them. */
static int report_session(PlClickhouse *ch, const char *session, guint top)
{
	g_autoptr(GError) error = NULL;
	g_autoptr(PlProfile) p = pl_fleet_session_profile(ch, session, PL_FLEET_PROFILE_MAX_SAMPLES,
							  &error);
	if (!p) {
		pl_cli_fail("fleet report: %s", error->message);
		return PL_EXIT_BAD_INPUT;
	}
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &PL_FILTER_ALL);
	const PlProfileStats *st = pl_profile_get_stats(p);
	GPtrArray *threads = pl_profile_get_threads(p);
	g_autoptr(GHashTable) pids = g_hash_table_new(NULL, NULL);
	for (guint i = 0; threads && i < threads->len; i++)
		g_hash_table_add(pids, GUINT_TO_POINTER(((PlThread *)threads->pdata[i])->pid + 1));
	guint64 total = agg->all.samples;
	printf("Session %s: %" G_GUINT64_FORMAT " samples, %u processes, %u threads, %.1f s\n\n",
	       session, total, g_hash_table_size(pids), threads ? threads->len : 0,
	       st->last_time > st->first_time ? (double)(st->last_time - st->first_time) / 1e9 : 0);
	g_autoptr(GArray) rows = pl_aggregate_functions(agg, FALSE);
	printf("Top functions by self:\n    Self    Total   Samples  Function\n");
	for (guint i = 0; i < rows->len && (!top || i < top); i++) {
		const PlRow *r = &g_array_index(rows, PlRow, i);
		const PlFunction *f = pl_profile_get_function(p, r->id);
		printf("  %6.2f%%  %6.2f%%  %8" G_GUINT64_FORMAT "  %s  %s\n",
		       pl_percent(r->self.samples, total), pl_percent(r->total.samples, total), r->self.samples,
		       pl_profile_get_function_label(p, r->id),
		       f && f->module ? f->module : "[unknown]");
	}
	return PL_EXIT_OK;
}

int pl_cli_fleet(int argc, char **argv)
{
	char *where = NULL, *against = NULL, *since = NULL;
	char *event = NULL, *format = NULL, *output = NULL, *rollup = NULL;
	char *function = NULL, *by = NULL, *session = NULL;
	PlCliClickhouse cho = { 0 };
	gint top = 20;
	const GOptionEntry own[] = {
		{ "where", 0, 0, G_OPTION_ARG_STRING, &where,
		  "The samples whose labels match (KEY=VALUE or KEY!=VALUE, comma-separated); "
		  "diff: side A", "LABELS" },
		{ "against", 0, 0, G_OPTION_ARG_STRING, &against,
		  "diff: side B, as --where", "LABELS" },
		{ "since", 0, 0, G_OPTION_ARG_STRING, &since,
		  "Only the last DURATION (90s, 30m, 2h, 7d; default: all)", "DURATION" },
		{ "event", 0, 0, G_OPTION_ARG_STRING, &event, "Only samples of this event", "NAME" },
		{ "rollup", 0, 0, G_OPTION_ARG_STRING, &rollup,
		  "Count from the per-minute rollup (minutes) or every sample (raw); auto (the "
		  "default): the rollup for all time and for --since 6h or more", "auto|minutes|raw" },
		{ "top", 0, 0, G_OPTION_ARG_INT, &top, "Rows per table (default 20, 0: all)", "N" },
		{ "function", 0, 0, G_OPTION_ARG_STRING, &function,
		  "rank: the function whose share ranks the devices (its name, or \"NAME MODULE\")",
		  "NAME" },
		{ "by", 0, 0, G_OPTION_ARG_STRING, &by,
		  "rank: the label that tells devices apart (default device; e.g. board)", "KEY" },
		{ "session", 0, 0, G_OPTION_ARG_STRING, &session,
		  "report, export: one stored session (as fleet sessions lists it), opened as a "
		  "recording", "NAME" },
		{ "format", 0, 0, G_OPTION_ARG_STRING, &format, "export: collapsed (the default), pprof (needs --output) or svg (a flame graph)",
		  "FORMAT" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "export: to FILE (default stdout)",
		  "FILE" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = pl_cli_clickhouse_entries(
		own, &cho, "schema: Distributed tables over this cluster (run it on every server of it)");
	const char *cluster = NULL;
	g_autoptr(GOptionContext) ctx = g_option_context_new(
		"report|diff|export|rank|sessions|schema — ask the fleet's ClickHouse (what "
		"perflens collect stored), or make its tables");
	pl_cli_add_entries(ctx, entries);
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClickhouse) ch = NULL;
	g_autoptr(GPtrArray) sa = NULL;
	g_autoptr(GPtrArray) sb = NULL;
	guint64 since_s = 0, ta = 0, tb = 0;
	const char *action = NULL;

	if (!pl_cli_parse(ctx, &argc, &argv, "fleet"))
		goto out;
	action = argc == 2 ? argv[1] : NULL;
	if (!action || (strcmp(action, "report") && strcmp(action, "diff") && strcmp(action, "export") &&
			strcmp(action, "rank") && strcmp(action, "sessions") && strcmp(action, "schema"))) {
		pl_cli_fail("fleet needs report, diff, export, rank, sessions or schema (perflens fleet "
			    "--help)");
		goto out;
	}
	if (!strcmp(action, "rank") != (function != NULL) || (by && strcmp(action, "rank"))) {
		pl_cli_fail("fleet: rank ranks the devices by --function NAME (and only rank takes "
			    "--function and --by)");
		goto out;
	}
	if (by && !*by) {
		pl_cli_fail("fleet rank: --by names a label (e.g. device or board)");
		goto out;
	}
	if (session && ((strcmp(action, "report") && strcmp(action, "export")) || where || since ||
			rollup || event)) {
		pl_cli_fail("fleet: --session goes with report and export, alone (a session is "
			    "already one device's samples of one time)");
		goto out;
	}
	cluster = cho.cluster;
	if (!cho.url || !cho.credentials) {
		pl_cli_fail("fleet needs --clickhouse URL and --clickhouse-credentials FILE");
		goto out;
	}
	if (!strcmp(action, "diff") != (against != NULL) || (!strcmp(action, "diff") && !where)) {
		pl_cli_fail("fleet: diff compares --where A with --against B (and only diff takes "
			    "--against)");
		goto out;
	}
	if ((format || output) && strcmp(action, "export")) {
		pl_cli_fail("fleet: --format and --output go with export");
		goto out;
	}
	if (format && strcmp(format, "collapsed") && strcmp(format, "pprof") && strcmp(format, "svg")) {
		pl_cli_fail("fleet export: --format is collapsed, pprof or svg, not '%s'", format);
		goto out;
	}
	if (format && !strcmp(format, "pprof") && (!output || !strcmp(output, "-"))) {
		pl_cli_fail("fleet export: pprof is written to a file: give --output FILE");
		goto out;
	}
	if (top < 0) {
		pl_cli_fail("fleet: --top takes 0 or more");
		goto out;
	}
	if (since && !pl_fleet_since_parse(since, &since_s, &error)) {
		pl_cli_fail("fleet: --since '%s': at character %d: %s", since, error->code + 1,
			    error->message);
		goto out;
	}
	if (rollup && strcmp(rollup, "auto") && strcmp(rollup, "minutes") && strcmp(rollup, "raw")) {
		pl_cli_fail("fleet: --rollup is auto, minutes or raw, not '%s'", rollup);
		goto out;
	}
	PlFleetSource source = rollup && !strcmp(rollup, "raw") ? PL_FLEET_RAW
			       : rollup && !strcmp(rollup, "minutes") ? PL_FLEET_MINUTES
							       : pl_fleet_source_auto(since_s);
	if (!(ch = pl_cli_clickhouse_open(&cho, "fleet")))
		goto out;
	if (!strcmp(action, "schema")) {
		if (!pl_fleet_schema_apply(ch, cluster, &error)) {
			pl_cli_fail("fleet schema: %s", error->message);
			goto out;
		}
		rc = PL_EXIT_OK;
		goto out;
	}
	if (cluster) {
		pl_cli_fail("fleet: --cluster goes with schema (queries use the same tables in "
			    "both layouts)");
		goto out;
	}
	if (session && !strcmp(action, "report")) {
		rc = report_session(ch, session, (guint)top);
		goto out;
	}
	if (!strcmp(action, "rank") || !strcmp(action, "sessions")) {
		g_autoptr(GPtrArray) matches = NULL;
		if (where && !(matches = pl_fleet_where_parse(where, &error))) {
			pl_cli_fail("fleet: --where '%s': at character %d: %s", where, error->code + 1,
				    error->message);
			goto out;
		}
		g_autofree char *sql = pl_fleet_where_sql(source, matches, since_s, event);
		rc = !strcmp(action, "rank")
			     ? rank(ch, source, sql, where, by ? by : "device", function, (guint)top)
			     : sessions(ch, source, sql, where, (guint)top);
		goto out;
	}
	if (session) {
		g_autofree char *sql = pl_fleet_session_sql(session);
		if (!(sa = pl_fleet_query_stacks(ch, PL_FLEET_RAW, sql, &ta, &error))) {
			pl_cli_fail("fleet export: %s", error->message);
			goto out;
		}
		if (!ta) {
			pl_cli_fail("fleet export: the fleet store holds no samples of session %s "
				    "(perflens fleet sessions lists the stored ones)",
				    session);
			goto out;
		}
	} else if (!(sa = ask(ch, source, where, since_s, event, &ta, "--where"))) {
		goto out;
	}
	if (against && !(sb = ask(ch, source, against, since_s, event, &tb, "--against")))
		goto out;
	if (!strcmp(action, "report"))
		rc = report(sa, ta, where, (guint)top, source);
	else if (!strcmp(action, "diff"))
		rc = diff(sa, ta, sb, tb, where, against, (guint)top);
	else if (!format || !strcmp(format, "collapsed"))
		rc = export_collapsed(sa, output);
	else
		rc = export_profile(sa, format, event, session ? session : where, output);
out:
	pl_cli_clickhouse_clear(&cho);
	g_free(where);
	g_free(against);
	g_free(since);
	g_free(event);
	g_free(format);
	g_free(output);
	g_free(rollup);
	g_free(function);
	g_free(by);
	g_free(session);
	return rc;
}
