/* pl-sessions-export.h — a saved session in other tools' formats, as
 * `perflens export` writes them, through the same core functions
 * (viewer/formats): collapsed, pprof, svg, speedscope, perf-data.
 *
 * The profile is loaded with the session's target settings
 * (pl_target_load_file), every thread, the main event.  Blocking: run it
 * in a worker (no GTK here).
 */
#ifndef PL_SESSIONS_EXPORT_H
#define PL_SESSIONS_EXPORT_H

#include <gio/gio.h>

G_BEGIN_DECLS

/* NULL-terminated: the format names, and the matching file suffixes. */
extern const char *const pl_session_export_formats[];
extern const char *const pl_session_export_suffixes[];
extern const char *const pl_session_export_labels[];

/* The format whose suffix out ends with, or NULL. */
const char *pl_session_export_format_for(const char *out);
gboolean pl_session_export(const char *in, const char *format, const char *out,
			   GCancellable *cancel, GError **error);

G_END_DECLS

#endif
