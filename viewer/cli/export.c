/* export.c — perflens export: the recording in other tools' formats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "perf-data-writer.h"
#include "pl-export.h"
#include "pl-session-export.h"

typedef struct {
	PlPerfDataWriter *w;
	GError *error;
} PerfOut;

static gboolean perf_out_msg(const struct pl_msg *m, gpointer data)
{
	PerfOut *o = data;
	return pl_perf_data_writer_add(o->w, m, &o->error);
}

/* The messages go to the writer as they are in the capture: perf report
 * sorts by time itself, and symbolizes from the build-ids and paths. */
static int export_perf_data(const char *in, const char *out)
{
	g_autoptr(GError) error = NULL;
	if (!out)
		return pl_cli_fail("export --format perf-data needs -o FILE");
	PerfOut o = { pl_perf_data_writer_new(out, &error), NULL };
	if (!o.w)
		return pl_cli_fail("%s", error->message);
	PlCaptureInfo info;
	gboolean ok = pl_capture_load(in, perf_out_msg, &o, &info, &error);
	if (!ok && o.error) {
		pl_cli_fail("cannot write %s: %s", out, o.error->message);
		g_clear_error(&o.error);
		pl_perf_data_writer_free(o.w);
		return PL_EXIT_BAD_INPUT;
	}
	if (!ok) {
		pl_perf_data_writer_free(o.w);
		return pl_cli_fail("%s", error->message);
	}
	g_autofree char *note = pl_capture_info_dup_note(&info);
	if (note)
		fprintf(stderr, "perflens: note: %s: %s\n", in, note);
	ok = pl_perf_data_writer_finish(o.w, &error);
	pl_perf_data_writer_free(o.w);
	if (!ok)
		return pl_cli_fail("cannot write %s: %s", out, error->message);
	return PL_EXIT_OK;
}

/* A self-contained session: the load symbolizes with the options given,
 * as report would, and everything it resolved goes into the file. */
static int export_symbolized(const char *in, const char *out, const PlCliSymArgs *sym, gint top)
{
	if (!out)
		return pl_cli_fail("export --format plens-symbolized needs -o FILE.plens");
	if (top < 0 || top > 1000)
		return pl_cli_fail("--hot %d: give 0 to 1000 functions", top);
	PlSymOptions o;
	if (!pl_cli_sym_options(sym, &o))
		return PL_EXIT_BAD_INPUT;
	PlLoadParams lp = { .options = &o };
	PlSessionExportStats st;
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_session_export_symbolized(in, out, &lp, (guint)top, &st, &error);
	pl_cli_sym_options_clear(&o);
	if (!ok)
		return pl_cli_fail("%s", error->message);
	fprintf(stderr,
		"perflens: %s: self-contained: %u addresses, %u DWARF stacks, %u modules, "
		"%u source files, %u disassembled functions (table %" G_GSIZE_FORMAT " bytes)%s\n",
		out, st.frames, st.unwinds, st.modules, st.sources, st.disasm, st.table_bytes,
		st.skipped_sources ? "; some hot functions' sources were not found here "
				     "(give --source-dir) or are over 1 MiB"
				   : "");
	return PL_EXIT_OK;
}

static const char *const formats_help =
	"Output format: collapsed (flamegraph.pl), pprof (.pb.gz for go tool pprof), "
	"svg (flame graph), speedscope (JSON), perf-data (perf report), plens-symbolized "
	"(a self-contained session: symbols, inline frames, lines, and the source and "
	"disassembly of the hottest functions embedded, for a machine without the files)";

int pl_cli_export(int argc, char **argv)
{
	PlCliSymArgs sym = { 0 };
	PlCliFilterArgs flt = { 0 };
	char *format = NULL, *output = NULL, *event_name = NULL, *title = NULL;
	gint tid = 0, top = 0;
	gboolean weight = FALSE;
	const GOptionEntry entries[] = {
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format, formats_help, "FORMAT" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Write to FILE (default stdout; pprof and perf-data need one)", "FILE" },
		{ "tid", 0, 0, G_OPTION_ARG_INT, &tid, "Only this thread", "N" },
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
	FILE *out = NULL;
	g_autoptr(PlAggregate) agg = NULL;
	g_autoptr(GError) error = NULL;

	if (!pl_cli_parse(ctx, &argc, &argv, "export"))
		goto done;
	if (argc != 2) {
		pl_cli_fail("export needs exactly one FILE (run perflens export --help)");
		goto done;
	}
	if (format && !strcmp(format, "perf-data")) {
		rc = export_perf_data(argv[1], output);
		goto done;
	}
	if (format && !strcmp(format, "plens-symbolized")) {
		rc = export_symbolized(argv[1], output, &sym, top);
		goto done;
	}
	static const char *const known[] = { "collapsed", "pprof", "svg", "speedscope" };
	gboolean ok_format = FALSE;
	for (guint i = 0; format && i < G_N_ELEMENTS(known); i++)
		ok_format |= !strcmp(format, known[i]);
	if (!ok_format) {
		pl_cli_fail("export: give --format collapsed, pprof, svg, speedscope, perf-data or "
			    "plens-symbolized");
		goto done;
	}
	if (!strcmp(format, "pprof") && !output) {
		pl_cli_fail("export --format pprof needs -o FILE.pb.gz (it is gzipped binary)");
		goto done;
	}
	gboolean bad_filter;
	sf = pl_cli_stack_filter(&flt, &bad_filter);
	if (bad_filter)
		goto done;
	PlCaptureInfo info;
	p = pl_cli_load(argv[1], &sym, &info);
	if (!p)
		goto done;
	guint32 event;
	if (!pl_cli_event(p, event_name, argv[1], &event))
		goto done;
	PlFilter f = { (guint32)MAX(tid, 0), event, 0, 0 };
	if (!strcmp(format, "pprof")) {
		agg = pl_profile_aggregate_filtered(p, &f, sf);
		if (!pl_export_pprof(agg, output, &error)) {
			pl_cli_fail("cannot write %s: %s", output, error->message);
			goto done;
		}
		rc = PL_EXIT_OK;
		goto done;
	}
	out = output ? fopen(output, "w") : stdout;
	if (!out) {
		pl_cli_fail("cannot create %s: %s", output, g_strerror(errno));
		goto done;
	}
	gboolean ok = FALSE;
	if (!strcmp(format, "speedscope")) {
		g_autofree char *base = g_path_get_basename(argv[1]);
		ok = pl_export_speedscope(p, &f, sf, out, base, &error);
	} else {
		agg = pl_profile_aggregate_filtered(p, &f, sf);
		if (!strcmp(format, "svg")) {
			g_autofree char *base = g_path_get_basename(argv[1]);
			ok = pl_export_svg(agg, out, title ? title : base, weight, &error);
		} else {
			ok = pl_export_collapsed(agg, out, weight, &error);
		}
	}
	if (!ok) {
		pl_cli_fail("cannot write %s: %s", output ? output : "stdout",
			    error ? error->message : "?");
		goto done;
	}
	rc = PL_EXIT_OK;
done:
	if (out && out != stdout)
		fclose(out);
	pl_cli_sym_args_clear(&sym);
	pl_cli_filter_args_clear(&flt);
	g_free(format);
	g_free(output);
	g_free(event_name);
	g_free(title);
	return rc;
}
