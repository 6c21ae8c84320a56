/* pl-capture-noperf.c — perf.data reading when viewer/formats is not built. */
#include "pl-capture-private.h"

gboolean pl_capture_load_perf_data(int fd, const char *path, PlMsgFunc func, gpointer user_data,
				   PlCaptureInfo *info, GError **error)
{
	g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_UNSUPPORTED,
		    "%s is a perf.data file, but this perflens was built without perf.data "
		    "support (viewer/formats): rebuild with it, or record with perflens-agent",
		    path);
	return FALSE;
}
