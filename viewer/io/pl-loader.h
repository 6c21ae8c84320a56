/* pl-loader.h — loading a .plens capture or a perf.data into a profile:
 * the one ingest loop of the command line (pl_cli_load) and of the app
 * (its file and diff loads).
 *
 * Besides feeding every message to pl_profile_ingest it does what makes a
 * load fast and a perf.data of this machine complete:
 *   - a perf.data recorded on this machine (its HELLO names this host and
 *     running kernel) gets this machine's kernel symbols, as perf report
 *     does: perf's build-id cache copy (~/.debug/[kernel.kallsyms]/ID/
 *     kallsyms) or /proc/kallsyms, read at the first sample with kernel
 *     frames (a user-only recording never pays for it);
 *   - a perf.data's DWARF stacks are unwound on a second core ahead of the
 *     model (pl-unwind-ahead.h) when there is one.
 *     PERFLENS_NO_UNWIND_AHEAD=1 turns that off; PERFLENS_DEBUG_AHEAD=1
 *     prints on stderr how many samples the worker answered.
 *
 * Symbol options come either fixed (PlLoadParams.options, the command
 * line's) or from options_for_host, called once with the hostname of the
 * board the capture's HELLO names (NULL when the first message is not a
 * HELLO) before anything is ingested: the app keeps settings per board.
 *
 * A self-contained session (a FILE_CHUNK of kind PL_CHUNK_SYMBOLIZED
 * after HELLO) is symbolized from its table alone: the table goes to the
 * profile's PlSymbols (pl_symbols_get_embedded), and nothing of this
 * machine is read (no kallsyms, perf maps or ELF files).  A damaged table
 * (cut short, malformed, of a newer version) fails the load with
 * PL_CAPTURE_ERROR_CORRUPT, keep_partial or not.
 *
 * Blocking; any thread (one load per call; loads on several threads at
 * once are independent).  No GTK.
 */
#ifndef PL_LOADER_H
#define PL_LOADER_H

#include <gio/gio.h>

#include "pl-capture.h"
#include "pl-profile.h"
#include "pl-symbols.h"

G_BEGIN_DECLS

/* Fills *o (zeroed before the call) for the board named host (NULL:
 * unknown).  The loader copies what it needs and then calls
 * PlLoadParams.options_clear(o, data) (may be NULL). */
typedef void (*PlLoadOptionsFunc)(const char *host, PlSymOptions *o, gpointer data);
typedef void (*PlLoadOptionsClear)(PlSymOptions *o, gpointer data);

typedef struct {
	const PlSymOptions *options;        /* NULL: options_for_host, or defaults */
	PlLoadOptionsFunc options_for_host; /* used when options is NULL */
	PlLoadOptionsClear options_clear;
	gpointer data;                      /* for both functions */
	GCancellable *cancel;               /* may be NULL; checked every 1024 messages, and
					     * at least once a second in a debuginfod fetch */
	gsize *progress;                    /* may be NULL; messages read, stored atomically */
	/* A file corrupt after some messages gives what was read (finished)
	 * and no error — the app shows what it can; the command line fails. */
	gboolean keep_partial;
	/* Not NULL: every symbolization and unwind answer of the load is
	 * copied into it (pl_symbols_set_record; the exporter of
	 * self-contained sessions).  Borrowed for the load. */
	struct _PlSymEmbed *record;
} PlLoadParams;

/* What the load did beyond the profile (for tests and --debug output). */
typedef struct {
	gboolean local_kernel;   /* this machine's kallsyms were handed over */
	gboolean unwind_ahead;   /* a worker unwound DWARF stacks ahead */
	guint64 ahead_used;      /* samples the worker's answer was used for */
	guint64 ahead_missed;    /* samples the model unwound itself */
} PlLoadStats;

/* Loads path into a new, finished profile.  info and stats may be NULL.
 * On failure returns NULL with *error: the capture's (PL_CAPTURE_ERROR,
 * see pl-capture.h) or G_IO_ERROR_CANCELLED when params->cancel was
 * cancelled.  A torn tail is not a failure: pl_capture_info_dup_note(info)
 * has the line for the user. */
PlProfile *pl_load_file(const char *path, const PlLoadParams *params, PlCaptureInfo *info,
			PlLoadStats *stats, GError **error);

G_END_DECLS

#endif
