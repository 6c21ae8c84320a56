/* pl-export-perf-data.c — a capture as a perf.data; see pl-export.h. */
#include "perf-data-writer.h"
#include "pl-export.h"

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

gboolean pl_export_perf_data(const char *in, const char *path, GCancellable *cancel,
			     PlCaptureInfo *info, GError **error)
{
	PlCaptureInfo own;
	if (!info)
		info = &own;
	PerfOut o = { pl_perf_data_writer_new(path, error), cancel, NULL, 0 };
	if (!o.w)
		return FALSE;
	GError *local = NULL;
	gboolean ok = pl_capture_load(in, perf_out_msg, &o, info, &local);
	if (!ok && o.error) {
		/* the writer's error names the file and the cause */
		g_propagate_error(error, o.error);
		g_clear_error(&local);
	} else if (!ok) {
		g_propagate_error(error, local);
	}
	if (ok)
		ok = pl_perf_data_writer_finish(o.w, error);
	pl_perf_data_writer_free(o.w); /* removes an unfinished file */
	return ok;
}
