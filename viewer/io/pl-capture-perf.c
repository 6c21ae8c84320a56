/* pl-capture-perf.c — perf.data through viewer/formats' reader. */
#include "pl-capture-private.h"
#include "perf-data-reader.h"

typedef struct {
	PlMsgFunc func;
	gpointer user_data;
	PlCaptureInfo *info;
} Sink;

static gboolean sink(const struct pl_msg *msg, gpointer user, GError **error)
{
	Sink *s = user;
	s->info->messages++;
	if (!s->func(msg, s->user_data)) {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED, "loading stopped");
		return FALSE;
	}
	return TRUE;
}

gboolean pl_capture_load_perf_data(int fd, const char *path, PlMsgFunc func, gpointer user_data,
				   PlCaptureInfo *info, GError **error)
{
	/* perf report sorts by time within rounds; so do we, so that
	 * MMAP/COMM precede the samples that need them. */
	PlPerfDataReadOptions opts = { .reorder = TRUE };
	PlPerfDataStats stats;
	Sink s = { func, user_data, info };
	GError *local = NULL;
	if (pl_perf_data_read(path, &opts, sink, &s, &stats, &local))
		return TRUE;
	int code = PL_CAPTURE_ERROR_CORRUPT;
	if (local->domain == PL_PERF_DATA_ERROR) {
		switch (local->code) {
		case PL_PERF_DATA_ERROR_IO:
			code = PL_CAPTURE_ERROR_IO;
			break;
		case PL_PERF_DATA_ERROR_NOT_PERF:
			code = PL_CAPTURE_ERROR_FORMAT;
			break;
		case PL_PERF_DATA_ERROR_UNSUPPORTED:
			code = PL_CAPTURE_ERROR_UNSUPPORTED;
			break;
		case PL_PERF_DATA_ERROR_CANCELLED:
			code = PL_CAPTURE_ERROR_CANCELLED;
			break;
		}
	} else if (local->domain == PL_CAPTURE_ERROR) {
		code = local->code;
	}
	g_set_error(error, PL_CAPTURE_ERROR, code, "%s: %s", path, local->message);
	g_error_free(local);
	return FALSE;
}
