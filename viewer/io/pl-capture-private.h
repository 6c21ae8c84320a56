/* pl-capture-private.h — the perf.data hook of pl_capture_load().
 *
 * Implemented by pl-capture-perf.c on top of viewer/formats. */
#ifndef PL_CAPTURE_PRIVATE_H
#define PL_CAPTURE_PRIVATE_H

#include "pl-capture.h"

/* fd is positioned anywhere; the caller closes it. */
gboolean pl_capture_load_perf_data(int fd, const char *path, PlMsgFunc func, gpointer user_data,
				   PlCaptureInfo *info, GError **error);

#endif
