/* export.c — perflens export: the recording in other tools' formats. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#ifdef PL_HAVE_FORMATS
#include "perf-data-writer.h"
#endif

typedef struct {
	PlProfile *p;
	FILE *out;
	gboolean weight;
	GString *line;
} Collapsed;

/* Brendan Gregg's folded format: "outer;…;leaf COUNT", one line per
 * distinct stack.  ';' inside a name would split a frame: replaced. */
static void collapsed_stack(const guint32 *funcs, guint depth, const PlCount *self,
			    gpointer user_data)
{
	Collapsed *c = user_data;
	g_string_truncate(c->line, 0);
	for (guint i = 0; i < depth; i++) {
		if (i)
			g_string_append_c(c->line, ';');
		gsize at = c->line->len;
		g_string_append(c->line, pl_profile_get_function_label(c->p, funcs[i]));
		for (gsize k = at; k < c->line->len; k++)
			if (c->line->str[k] == ';' || c->line->str[k] == '\n')
				c->line->str[k] = ':';
		if (pl_profile_get_function(c->p, funcs[i])->inlined)
			g_string_append(c->line, "_[i]"); /* flamegraph.pl's inline marker */
	}
	fprintf(c->out, "%s %" G_GUINT64_FORMAT "\n", c->line->str,
		c->weight ? self->weight : self->samples);
}

#ifdef PL_HAVE_FORMATS
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
#endif

int pl_cli_export(int argc, char **argv)
{
	PlCliSymArgs sym = { 0 };
	char *format = NULL, *output = NULL, *event_name = NULL;
	gint tid = 0;
	gboolean weight = FALSE;
	const GOptionEntry entries[] = {
		{ "format", 'f', 0, G_OPTION_ARG_STRING, &format,
		  "Output format: collapsed (flame graph tools), perf-data (perf report)",
		  "FORMAT" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default stdout)",
		  "FILE" },
		{ "tid", 0, 0, G_OPTION_ARG_INT, &tid, "Only this thread", "N" },
		{ "event", 0, 0, G_OPTION_ARG_STRING, &event_name,
		  "Sampled event (default: the one with most samples)", "NAME" },
		{ "weight", 0, 0, G_OPTION_ARG_NONE, &weight,
		  "Count period (ns for cpu-clock) instead of samples", NULL },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("FILE — convert a recording");
	g_option_context_add_main_entries(ctx, entries, NULL);
	g_option_context_add_group(ctx, pl_cli_sym_group(&sym));
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(PlProfile) p = NULL;
	FILE *out = NULL;
	g_autoptr(PlAggregate) agg = NULL;

	if (!pl_cli_parse(ctx, &argc, &argv, "export"))
		goto done;
	if (argc != 2) {
		pl_cli_fail("export needs exactly one FILE (run perflens export --help)");
		goto done;
	}
	if (format && !strcmp(format, "perf-data")) {
#ifdef PL_HAVE_FORMATS
		rc = export_perf_data(argv[1], output);
#else
		pl_cli_fail("export: this perflens was built without perf.data support");
#endif
		goto done;
	}
	if (!format || strcmp(format, "collapsed") != 0) {
		pl_cli_fail("export: give --format collapsed or --format perf-data");
		goto done;
	}
	PlCaptureInfo info;
	p = pl_cli_load(argv[1], &sym, &info);
	if (!p)
		goto done;
	guint32 event = pl_profile_get_main_event(p);
	if (event_name) {
		event = PL_NO_ID;
		GPtrArray *evs = pl_profile_get_events(p);
		for (guint i = 0; i < evs->len; i++)
			if (!strcmp(((PlEvent *)evs->pdata[i])->name, event_name))
				event = ((PlEvent *)evs->pdata[i])->index;
		if (event == PL_NO_ID) {
			pl_cli_fail("no event '%s' in %s", event_name, argv[1]);
			goto done;
		}
	}
	out = output ? fopen(output, "w") : stdout;
	if (!out) {
		pl_cli_fail("cannot create %s: %s", output, g_strerror(errno));
		goto done;
	}
	PlFilter f = { (guint32)MAX(tid, 0), event, 0, 0 };
	agg = pl_profile_aggregate(p, &f);
	Collapsed c = { p, out, weight, g_string_new(NULL) };
	pl_aggregate_foreach_stack(agg, collapsed_stack, &c);
	g_string_free(c.line, TRUE);
	if (fflush(out) != 0 || ferror(out)) {
		pl_cli_fail("cannot write %s: %s", output ? output : "stdout", g_strerror(errno));
		goto done;
	}
	rc = PL_EXIT_OK;
done:
	if (out && out != stdout)
		fclose(out);
	pl_cli_sym_args_clear(&sym);
	g_free(format);
	g_free(output);
	g_free(event_name);
	return rc;
}
