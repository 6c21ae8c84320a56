/* pl-capture-error.c — the error domain of loading a capture
 * (PL_CAPTURE_ERROR, pl-capture.h).  A file of its own because both
 * loaders raise it: pl-capture.c, and pl-capture-perf.c, which
 * pl-capture.c calls, so the calls between the two point one way. */
#include "pl-capture.h"

G_DEFINE_QUARK(pl-capture-error-quark, pl_capture_error)
