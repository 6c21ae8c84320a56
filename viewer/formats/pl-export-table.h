/* pl-export-table.h — the export formats, one table for every caller:
 * `perflens export` (viewer/cli/export.c) and the app's Export of a saved
 * session (viewer/core/pl-saved-session-export.c, listed in its dialog)
 * choose a row here and write through pl_export_write, so they accept the
 * same names, write the same bytes and fail with the same words.
 *
 * A row says what its writer needs (PlExportNeeds); the caller provides
 * that in a PlExportInput — how it loads the profile (the command line's
 * options, the board's saved settings) is the caller's, the writing is not.
 * pl_export_write opens, writes and closes the output: every fflush, fsync
 * and fclose is checked, and a failure is an error naming the file.
 *
 * The viewer core: GLib/GIO, no GTK.  The table is constant; the functions
 * keep no state and run on any thread (one export per PlProfile at a time).
 */
#ifndef PL_EXPORT_TABLE_H
#define PL_EXPORT_TABLE_H

#include <gio/gio.h>
#include <stdio.h>

#include "pl-capture.h"
#include "pl-export-self-contained.h"
#include "pl-loader.h"
#include "pl-profile.h"
#include "pl-stack-filter.h"

G_BEGIN_DECLS

typedef enum {
	/* a loaded profile: PlExportInput.profile, .filter, .stack_filter */
	PL_EXPORT_NEEDS_PROFILE = 1 << 0,
	/* the recording read again message by message: .in (.cancel, .info) */
	PL_EXPORT_NEEDS_CAPTURE = 1 << 1,
	/* symbol options to load with, the binaries, debug files and sources
	 * they name: .load (.top, .stats); it loads the recording itself */
	PL_EXPORT_NEEDS_SYMBOLS = 1 << 2,
	/* a file to write: it cannot go to standard output */
	PL_EXPORT_NEEDS_FILE = 1 << 3,
	/* the whole recording's rows, whatever .filter says (the board's
	 * block requests, its counter tracks): --tid, --from, --to refused */
	PL_EXPORT_WHOLE = 1 << 4,
} PlExportNeeds;

typedef struct {
	const char *in;                     /* the recording; its file name names the export */
	PlProfile *profile;                 /* NEEDS_PROFILE */
	PlFilter filter;                    /* NEEDS_PROFILE: thread and event */
	const PlStackFilter *stack_filter;  /* NULL: the stacks as recorded */
	const char *title;                  /* svg; NULL: the recording's file name */
	gboolean by_weight;                 /* collapsed, svg: period instead of samples */
	const PlLoadParams *load;           /* NEEDS_SYMBOLS */
	guint top;                          /* plens-symbolized: hot functions; 0: default */
	GCancellable *cancel;               /* NEEDS_CAPTURE; may be NULL */
	PlCaptureInfo *info;                /* NEEDS_CAPTURE: filled when not NULL */
	PlSelfContainedStats *stats;        /* plens-symbolized: filled when not NULL */
} PlExportInput;

/* Writes in to path, or to fp when the format does not need a file (fp is
 * then open and path is NULL for standard output; closing is the
 * caller's).  FALSE with *error, a whole sentence naming what failed. */
typedef gboolean (*PlExportWriteFunc)(const PlExportInput *in, const char *path, FILE *fp,
				      GError **error);

typedef struct {
	const char *name;      /* --format */
	const char *suffix;    /* of the file it writes, as the dialog proposes it */
	const char *also[3];   /* other endings that choose it (NULL-terminated) */
	const char *label;     /* the Export dialog's choice */
	const char *out_hint;  /* what -o names, for a format that needs a file */
	guint needs;           /* PlExportNeeds */
	PlExportWriteFunc write;
} PlExporter;

guint pl_export_n_formats(void);
const PlExporter *pl_export_nth(guint i);
/* The row of that name, or NULL. */
const PlExporter *pl_export_find(const char *name);
/* The row whose suffix (or another ending it takes) path ends with, or NULL. */
const PlExporter *pl_export_for_path(const char *path);
/* "collapsed, pprof, …, perf-data or plens-symbolized", for messages. */
char *pl_export_dup_names(void);
/* Whether e writes what .filter keeps (--tid, --from, --to): a profile
 * format that lists more than the board's whole rows. */
gboolean pl_export_takes_filter(const PlExporter *e);
/* The names of those formats, as pl_export_dup_names. */
char *pl_export_dup_filter_names(void);

/* Writes in with e to out (NULL: standard output, for a format that does
 * not need a file).  A stream format's file is created or truncated, and
 * flushed, synced (a regular file) and closed here, each step checked; a
 * partial file is left.  FALSE with *error naming the file and the cause. */
gboolean pl_export_write(const PlExporter *e, const PlExportInput *in, const char *out,
			 GError **error);

G_END_DECLS

#endif
