/* pl-target-settings.h — symbol settings per target board, remembered.
 *
 * A target is keyed by the board's hostname (from HELLO: the same for a
 * live connection and for every session recorded from it, whatever
 * address reached it).  Settings are what `perflens report` takes as
 * --toolchain-prefix, --sysroot, --binary, --debug-dir, --source-dir,
 * --path-map FROM=TO, --map, --vmlinux, --no-inline and --debuginfod; they are stored in
 * $XDG_CONFIG_HOME/perflens/targets.ini (a GKeyFile, one group per
 * target) and turned into the PlSymOptions a PlProfile is created with.
 *
 * Stateless (the file is read on every load), so a worker thread may
 * load settings while the main thread saves; the last save wins.
 */
#ifndef PL_TARGET_SETTINGS_H
#define PL_TARGET_SETTINGS_H

#include <gio/gio.h>

#include "pl-profile.h"
#include "pl-loader.h"
#include "pl-symbols.h"

G_BEGIN_DECLS

typedef struct {
	char *key; /* hostname */
	char *toolchain_prefix;
	char *sysroot;
	char *map_file;
	char *vmlinux; /* the board's kernel with DWARF (--vmlinux) */
	char *debuginfod_urls; /* space-separated; NULL: $DEBUGINFOD_URLS */
	GStrv binaries, debug_dirs, source_dirs, path_maps; /* never NULL (may be empty) */
	gboolean no_inline;
} PlTargetSettings;

/* The stored settings of key (empty ones when none are stored).  key NULL
 * or "" gives empty settings. */
PlTargetSettings *pl_target_settings_load(const char *key);
void pl_target_settings_free(PlTargetSettings *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlTargetSettings, pl_target_settings_free)
/* FALSE with *error (G_KEY_FILE_ERROR / G_FILE_ERROR) when it cannot write;
 * a path map without '=' is G_IO_ERROR_INVALID_ARGUMENT and saves nothing. */
gboolean pl_target_settings_save(const PlTargetSettings *s, GError **error);
gboolean pl_target_settings_is_empty(const PlTargetSettings *s);
/* The targets that have settings, sorted. */
GStrv pl_target_settings_list(void);

/* Options for a profile of this target.  same_host: the board is this
 * machine (its paths are readable here); with a sysroot they are looked
 * up under it instead, as `perflens report --sysroot` does.  Strings are
 * copied; free with pl_sym_options_clear(). */
void pl_target_settings_to_options(const PlTargetSettings *s, gboolean same_host,
				   PlSymOptions *o);
void pl_sym_options_clear(PlSymOptions *o);

/* Loads a .plens or perf.data file into a new profile created with the
 * settings of the board named in its HELLO (the first message), as a
 * file opened here: the board's paths are readable unless a sysroot is
 * set.  *progress (may be NULL) is updated atomically with the messages
 * read, for a progress line; cancel stops it (G_IO_ERROR_CANCELLED).  A
 * file corrupt after some messages gives what was read (finished) and no
 * error.  Any thread. */
/* The load parameters of pl_target_load_file (the board's settings by
 * the capture's hostname), for other loads of a file (an export). */
void pl_target_load_params(PlLoadParams *lp, GCancellable *cancel);
PlProfile *pl_target_load_file(const char *path, GCancellable *cancel, gsize *progress,
			       GError **error);
/* The same, with the board's debuginfod fetches reported to fetch (on the
 * loading thread; PlSymOptions.fetch_progress; FALSE cancels the fetch). */
PlProfile *pl_target_load_file_watched(const char *path, GCancellable *cancel, gsize *progress,
				       PlFetchProgressFunc fetch, gpointer fetch_data,
				       GError **error);

/* The core's advice (PlModuleReport.problem) names perflens report's
 * options; this names the fields of the board's symbol settings instead.
 * Owned by the caller. */
char *pl_target_settings_advice(const char *problem);

G_END_DECLS

#endif
