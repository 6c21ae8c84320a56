/* pl-session-writer.h — saving a live session as it streams.
 *
 * The file is a .plens capture: a stream header (PL_STREAM_CAPTURE |
 * PL_STREAM_FROM_AGENT) then the agent's blocks, appended verbatim as they
 * arrive.  Each block goes to the kernel with one write() before the next
 * is read, so killing the viewer (even with SIGKILL) leaves a file that
 * loads up to its last complete block; at worst one torn block at the end,
 * which pl_capture_load() ignores and reports.  close() adds an fsync so a
 * power cut after a clean close loses nothing either.
 *
 * One writer per session, one thread.
 */
#ifndef PL_SESSION_WRITER_H
#define PL_SESSION_WRITER_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlSessionWriter PlSessionWriter;

/* Creates (truncates) path, creating its parent directories.  Returns NULL
 * with *error set (G_FILE_ERROR) when it cannot. */
PlSessionWriter *pl_session_writer_new(const char *path, GError **error);
/* Appends one stored block (header + payload), verbatim as received. */
gboolean pl_session_writer_append(PlSessionWriter *self, const guint8 *block, gsize len,
				  GError **error);
const char *pl_session_writer_get_path(PlSessionWriter *self);
guint64 pl_session_writer_get_bytes(PlSessionWriter *self);
/* fsyncs and closes; safe on NULL. */
void pl_session_writer_free(PlSessionWriter *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlSessionWriter, pl_session_writer_free)

/* $XDG_DATA_HOME/perflens/sessions/YYYYMMDD-HHMMSS-LABEL.plens (LABEL made
 * file-name safe).  Owned by the caller. */
char *pl_session_default_path(const char *label);

G_END_DECLS

#endif
