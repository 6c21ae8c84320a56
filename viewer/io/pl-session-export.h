/* pl-session-export.h — a self-contained session: a capture with its
 * symbolization resolved here and embedded, so that it opens with every
 * name where none of its binaries, debug files or sources are
 * (`perflens export --format plens-symbolized`, the app's Export →
 * Self-contained session).
 *
 * The capture is loaded once with the given symbol options, every answer
 * the model gets recorded (PlLoadParams.record); the sources and
 * objdump listings of its hottest functions, the modules' coverage rows
 * and where and when it was made are added; then the capture is read
 * again and written out message by message (zstd blocks, common/wire.h)
 * with the table (viewer/symbols/pl-sym-embed.h) as FILE_CHUNKs of kind
 * PL_CHUNK_SYMBOLIZED right after HELLO.  Samples keep their stack
 * copies, so the file holds what the session held: it is created 0600,
 * written beside the destination and renamed over it only when every
 * write, the fsync and the close succeeded.
 *
 * Blocking (loads the whole session twice, runs objdump); any thread.
 * No GTK.
 */
#ifndef PL_SESSION_EXPORT_H
#define PL_SESSION_EXPORT_H

#include <glib.h>

#include "pl-loader.h"
#include "version.h"

G_BEGIN_DECLS

/* The viewer's version, as the table records it (common/version.h). */
#define PL_VIEWER_VERSION PL_VERSION

#define PL_SESSION_EXPORT_TOP 20u /* hottest functions by self and by total */

typedef struct {
	guint frames;    /* addresses with their frames */
	guint unwinds;   /* DWARF walks */
	guint modules;
	guint sources;   /* source files embedded */
	guint disasm;    /* functions with their listing */
	guint skipped_sources; /* hot functions' files not embedded: not found here or over the bound */
	gsize table_bytes;     /* the table, before the capture's compression */
	guint64 messages;
} PlSessionExportStats;

/* Writes the self-contained session of in to out.  params: the symbol
 * options (as for pl_load_file; its record must be NULL); top: hottest
 * functions whose source and disassembly are embedded (by self and by
 * total each; 0: PL_SESSION_EXPORT_TOP).  stats may be NULL.  FALSE with
 * *error (what failed, what to do) when in cannot be loaded or out cannot
 * be written; out is then left as it was. */
gboolean pl_session_export_symbolized(const char *in, const char *out, const PlLoadParams *params,
				      guint top, PlSessionExportStats *stats, GError **error);

/* Where and when the open profile's embedded table was made, as one line
 * ("symbolized on HOST at 2026-11-30 14:02 UTC by PerfLens 0.1, from
 * FILE"); NULL when the profile is symbolized here. */
char *pl_session_dup_symbolized_note(PlProfile *p);

G_END_DECLS

#endif
