/* pl-sessions-export.c — export a saved session (see the header). */
#include "pl-sessions-export.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "perf-data-writer.h"
#include "pl-capture.h"
#include "pl-export.h"
#include "pl-session-export.h"
#include "pl-target-settings.h"

const char *const pl_session_export_formats[] = { "collapsed", "pprof", "svg", "speedscope",
						  "perf-data", "plens-symbolized", NULL };
const char *const pl_session_export_suffixes[] = { ".collapsed.txt", ".pb.gz", ".svg",
						   ".speedscope.json", ".perf.data", ".plens", NULL };
const char *const pl_session_export_labels[] = {
	"Collapsed stacks (flamegraph.pl, inferno)", "pprof (go tool pprof)",
	"Flame graph (SVG)", "speedscope (JSON)", "perf.data (perf report)",
	"Self-contained session (names, sources and disassembly inside, for a machine "
	"without the binaries)", NULL
};

const char *pl_session_export_format_for(const char *out)
{
	for (guint i = 0; pl_session_export_formats[i]; i++)
		if (g_str_has_suffix(out, pl_session_export_suffixes[i]))
			return pl_session_export_formats[i];
	if (g_str_has_suffix(out, ".json"))
		return "speedscope";
	if (g_str_has_suffix(out, ".txt") || g_str_has_suffix(out, ".folded"))
		return "collapsed";
	return NULL;
}

typedef struct {
	PlPerfDataWriter *w;
	GCancellable *cancel;
	GError *error;
	guint64 n;
} PerfOut;

static gboolean perf_out_msg(const struct pl_msg *m, gpointer data)
{
	PerfOut *o = data;
	if ((++o->n & 4095) == 0 && g_cancellable_is_cancelled(o->cancel))
		return FALSE;
	return pl_perf_data_writer_add(o->w, m, &o->error);
}

/* The messages go to the writer as they are in the capture: perf report
 * sorts by time itself and symbolizes from the build-ids and paths. */
static gboolean export_perf_data(const char *in, const char *out, GCancellable *cancel,
				 GError **error)
{
	PerfOut o = { pl_perf_data_writer_new(out, error), cancel, NULL, 0 };
	if (!o.w)
		return FALSE;
	GError *local = NULL;
	PlCaptureInfo info;
	gboolean ok = pl_capture_load(in, perf_out_msg, &o, &info, &local);
	if (!ok && o.error) {
		g_propagate_error(error, o.error);
		g_clear_error(&local);
	} else if (!ok && info.messages && local &&
		   !g_error_matches(local, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED)) {
		ok = TRUE; /* corrupt after some blocks: export what was read */
		g_clear_error(&local);
	} else if (!ok) {
		g_propagate_error(error, local);
	}
	if (ok)
		ok = pl_perf_data_writer_finish(o.w, error);
	pl_perf_data_writer_free(o.w); /* removes an unfinished file */
	return ok;
}

gboolean pl_session_export(const char *in, const char *format, const char *out,
			   GCancellable *cancel, GError **error)
{
	if (!format || !g_strv_contains(pl_session_export_formats, format)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Unknown export format “%s”: choose collapsed, pprof, svg, speedscope, "
			    "perf-data or plens-symbolized",
			    format ? format : "");
		return FALSE;
	}
	if (!strcmp(format, "perf-data"))
		return export_perf_data(in, out, cancel, error);
	if (!strcmp(format, "plens-symbolized")) {
		/* symbolized with the board's settings, as the app opens it */
		PlLoadParams lp;
		pl_target_load_params(&lp, cancel);
		return pl_session_export_symbolized(in, out, &lp, 0, NULL, error);
	}
	g_autoptr(PlProfile) p = pl_target_load_file(in, cancel, NULL, error);
	if (!p)
		return FALSE;
	PlFilter f = PL_FILTER_ALL;
	f.event = pl_profile_get_main_event(p);
	if (f.event == PL_NO_ID) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "%s holds no samples: nothing to export", in);
		return FALSE;
	}
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &f);
	if (!strcmp(format, "pprof"))
		return pl_export_pprof(agg, out, error);
	FILE *fp = fopen(out, "w");
	if (!fp) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "Cannot create %s: %s", out,
			    g_strerror(e));
		return FALSE;
	}
	g_autofree char *base = g_path_get_basename(in);
	gboolean ok;
	if (!strcmp(format, "svg"))
		ok = pl_export_svg(agg, fp, base, FALSE, error);
	else if (!strcmp(format, "speedscope"))
		ok = pl_export_speedscope(p, &f, NULL, fp, base, error);
	else
		ok = pl_export_collapsed(agg, fp, FALSE, error);
	if (fclose(fp) != 0 && ok) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "Cannot write %s: %s", out,
			    g_strerror(e));
		ok = FALSE;
	}
	return ok;
}
