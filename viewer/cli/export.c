/* export.c — perflens export: the recording in other tools' formats.  The
 * formats and their writing are the table's (viewer/formats/pl-export-
 * table.h), which the app's Export uses too; here are the options. */
#include <stdio.h>

#include "pl-cli.h"
#include "pl-export-table.h"

/* What a self-contained export embedded, and what it could not. */
static void print_self_contained(const char *out, const PlSelfContainedStats *st)
{
	fprintf(stderr,
		"perflens: %s: self-contained: %u addresses, %u DWARF stacks, %u modules, "
		"%u source files, %u disassembled functions (table %" G_GSIZE_FORMAT " bytes)%s\n",
		out, st->frames, st->unwinds, st->modules, st->sources, st->disasm, st->table_bytes,
		st->skipped_sources ? "; some hot functions' sources were not found here "
				      "(give --source-dir) or are over 1 MiB"
				    : "");
}

static const char *const formats_help =
	"Output format: collapsed (flamegraph.pl), pprof (.pb.gz for go tool pprof), "
	"svg (flame graph), speedscope (JSON), perf-data (perf report), plens-symbolized "
	"(a self-contained session: symbols, inline frames, lines, and the source and "
	"disassembly of the hottest functions embedded, for a machine without the files), "
	"irq-csv (interrupt time per IRQ, softirq vector and CPU), block-csv (block "
	"requests with latency and issuing stack), counters-csv (the counter tracks' values: "
	"RSS, CPU busy share, frequency, idle, thermal, hwmon)";

int pl_cli_export(int argc, char **argv)
{
	PlCliSymArgs sym = { 0 };
	PlCliFilterArgs flt = { 0 };
	char *format = NULL, *output = NULL, *event_name = NULL, *title = NULL;
	gint tid = 0, top = 0;
	gdouble from = 0, to = 0;
	gboolean weight = FALSE;
	const GOptionEntry entries[] = {
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format, formats_help, "FORMAT" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Write to FILE (default stdout; pprof and perf-data need one)", "FILE" },
		{ "tid", 0, 0, G_OPTION_ARG_INT, &tid, "Only this thread", "N" },
		{ "from", 0, 0, G_OPTION_ARG_DOUBLE, &from,
		  "Only samples from S seconds after the first one (as report --from)", "S" },
		{ "to", 0, 0, G_OPTION_ARG_DOUBLE, &to,
		  "Only samples before S seconds after the first one (as report --to)", "S" },
		{ "event", 0, 0, G_OPTION_ARG_STRING, &event_name,
		  "Sampled event (default: the one with most samples)", "NAME" },
		{ "weight", 0, 0, G_OPTION_ARG_NONE, &weight,
		  "collapsed, svg: count period (ns for cpu-clock) instead of samples", NULL },
		{ "title", 0, 0, G_OPTION_ARG_STRING, &title, "svg: the title (default: the file)",
		  "TEXT" },
		{ "hot", 0, 0, G_OPTION_ARG_INT, &top,
		  "plens-symbolized: embed the source and disassembly of the N hottest functions "
		  "by self and by total (default 20)", "N" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("FILE — convert a recording");
	pl_cli_add_entries(ctx, entries);
	g_option_context_add_group(ctx, pl_cli_sym_group(&sym));
	g_option_context_add_group(ctx, pl_cli_filter_group(&flt));
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(PlProfile) p = NULL;
	g_autoptr(PlStackFilter) sf = NULL;
	g_autoptr(GError) error = NULL;
	PlSymOptions so;
	gboolean have_so = FALSE;
	PlLoadParams lp = { 0 };
	PlCaptureInfo info = { 0 };
	PlSelfContainedStats st = { 0 };

	if (!pl_cli_parse(ctx, &argc, &argv, "export"))
		goto done;
	if (argc != 2) {
		pl_cli_fail("export needs exactly one FILE (run perflens export --help)");
		goto done;
	}
	const PlExporter *e = pl_export_find(format);
	if (!e) {
		g_autofree char *names = pl_export_dup_names();
		pl_cli_fail("export: give --format %s", names);
		goto done;
	}
	if ((e->needs & PL_EXPORT_NEEDS_FILE) && !output) {
		pl_cli_fail("export --format %s needs -o %s", e->name, e->out_hint);
		goto done;
	}
	if (tid < 0 || from < 0 || to < 0 || (to && to <= from)) {
		pl_cli_fail("--tid, --from, --to take positive numbers (and --to > --from)");
		goto done;
	}
	if ((tid || from || to) && !pl_export_takes_filter(e)) {
		/* these formats copy or rewrite the whole recording, or list
		 * the board's rows (requests, tracks) whatever the thread */
		g_autofree char *names = pl_export_dup_filter_names();
		pl_cli_fail("export --format %s writes the whole recording: --tid, --from and --to "
			    "apply to the profile formats only (%s): leave them out",
			    e->name, names);
		goto done;
	}
	PlExportInput x = { .in = argv[1], .title = title, .by_weight = weight, .info = &info };
	if (e->needs & PL_EXPORT_NEEDS_SYMBOLS) {
		/* the load symbolizes with the options given, as report would */
		if (top < 0 || top > 1000) {
			pl_cli_fail("--hot %d: give 0 to 1000 functions", top);
			goto done;
		}
		if (!pl_cli_sym_options(&sym, &so))
			goto done;
		have_so = TRUE;
		lp.options = &so;
		x.load = &lp;
		x.top = (guint)top;
		x.stats = &st;
	}
	if (e->needs & PL_EXPORT_NEEDS_PROFILE) {
		gboolean bad_filter;
		sf = pl_cli_stack_filter(&flt, &bad_filter);
		if (bad_filter)
			goto done;
		p = pl_cli_load(argv[1], &sym, &info);
		if (!p)
			goto done;
		guint32 event;
		if (!pl_cli_event(p, event_name, argv[1], &event))
			goto done;
		x.profile = p;
		/* the time range is relative to the first record, as report's */
		guint64 t0 = pl_profile_get_stats(p)->first_time;
		x.filter = (PlFilter){ (guint32)tid, event, from > 0 ? t0 + (guint64)(from * 1e9) : 0,
				       to > 0 ? t0 + (guint64)(to * 1e9) : 0 };
		x.stack_filter = sf;
	}
	if (!pl_export_write(e, &x, output, &error)) {
		pl_cli_fail("%s", error->message);
		goto done;
	}
	if (e->needs & PL_EXPORT_NEEDS_CAPTURE) {
		g_autofree char *note = pl_capture_info_dup_note(&info);
		if (note)
			fprintf(stderr, "perflens: note: %s: %s\n", argv[1], note);
	}
	if (e->needs & PL_EXPORT_NEEDS_SYMBOLS)
		print_self_contained(output, &st);
	rc = PL_EXIT_OK;
done:
	if (have_so)
		pl_cli_sym_options_clear(&so);
	pl_cli_sym_args_clear(&sym);
	pl_cli_filter_args_clear(&flt);
	g_free(format);
	g_free(output);
	g_free(event_name);
	g_free(title);
	return rc;
}
