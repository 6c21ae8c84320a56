/* pl-saved-session-export.h — a saved session written in another format,
 * as the app's Export does it: the profile loaded with the board's saved
 * settings (the caller's PlLoadParams), every thread, the main event, and
 * written through the export table (viewer/formats/pl-export-table.h) as
 * `perflens export` writes it.
 *
 * A session damaged anywhere is refused with the loader's words, as the
 * command line refuses it: an export is handed on, and a silently shortened
 * one would mislead whoever opens it.  Blocking: run it in a worker.
 * No GTK.
 */
#ifndef PL_SAVED_SESSION_EXPORT_H
#define PL_SAVED_SESSION_EXPORT_H

#include <gio/gio.h>

#include "pl-loader.h"

G_BEGIN_DECLS

/* Writes in as format (a name of the table) to out.  lp: the symbol
 * options to load with, and the cancellable (its keep_partial is not
 * used).  FALSE with *error: an unknown format, a load or a write that
 * failed. */
gboolean pl_saved_session_export(const char *in, const char *format, const char *out,
				 const PlLoadParams *lp, GError **error);

G_END_DECLS

#endif
