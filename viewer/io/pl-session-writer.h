/* pl-session-writer.h — saving a live session as it streams.
 *
 * The file is a .plens capture: a stream header (PL_STREAM_CAPTURE |
 * PL_STREAM_FROM_AGENT) then the agent's blocks, appended verbatim as they
 * arrive.  Each block goes to the kernel with one write() before the next
 * is read, so killing the viewer (even with SIGKILL) leaves a file that
 * loads up to its last complete block; at worst one torn block at the end,
 * which pl_capture_load() ignores and reports.  A write that fails (a full
 * disk) cuts what part of the block went out, so the file ends with its last
 * whole block.  pl_session_writer_close() adds an fsync so a power cut after
 * a clean close loses nothing either, and says when fsync or close failed.
 *
 * Sessions hold raw stack bytes (keys, passwords): files are created 0600
 * and the directories made for them 0700, whatever the umask.
 *
 * One writer per session, one thread.
 */
#ifndef PL_SESSION_WRITER_H
#define PL_SESSION_WRITER_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PlSessionWriter PlSessionWriter;

/* Creates (truncates) path, creating its parent directories: for a path the
 * user named (perflens record --output).  Returns NULL with *error set
 * (G_FILE_ERROR) when it cannot. */
PlSessionWriter *pl_session_writer_new(const char *path, GError **error);
/* Creates path, or when it exists path with -2, -3, … before its extension
 * (O_EXCL, never a symlink's target): two sessions of one board started in
 * the same second each get a file of their own.  The name chosen is
 * pl_session_writer_get_path()'s. */
PlSessionWriter *pl_session_writer_new_unique(const char *path, GError **error);
/* Appends one stored block (header + payload), verbatim as received. */
gboolean pl_session_writer_append(PlSessionWriter *self, const guint8 *block, gsize len,
				  GError **error);
/* Appends a LOG frame (info) of the viewer's own as one raw block: how
 * the session was made, e.g. "connected over ssh://root@board" (never a
 * secret: sessions are shared).  A raw block leaves the agent's zstd
 * frame running across it undisturbed; readers show it with the agent's
 * notes. */
gboolean pl_session_writer_append_note(PlSessionWriter *self, const char *text, GError **error);
const char *pl_session_writer_get_path(PlSessionWriter *self);
guint64 pl_session_writer_get_bytes(PlSessionWriter *self);
/* fsyncs and closes; FALSE with *error set when either failed (a
 * delayed write error: the file may miss its end).  Safe on NULL and
 * twice. */
gboolean pl_session_writer_close(PlSessionWriter *self, GError **error);
/* Closes as pl_session_writer_close() if not closed yet (its error is
 * dropped: close first to see it) and frees; safe on NULL. */
void pl_session_writer_free(PlSessionWriter *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlSessionWriter, pl_session_writer_free)

/* $XDG_DATA_HOME/perflens/sessions/YYYYMMDD-HHMMSS-LABEL.plens (LABEL made
 * file-name safe), to pass to pl_session_writer_new_unique().  Owned by the
 * caller. */
char *pl_session_default_path(const char *label);

G_END_DECLS

#endif
