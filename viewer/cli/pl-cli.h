/* pl-cli.h — the perflens subcommands.
 *
 * Each subcommand is int NAME(int argc, char **argv) with argv[0] the
 * subcommand name; it returns the process exit status:
 *   0  success
 *   1  a --fail-if condition held (report)
 *   2  bad input: usage, unreadable or corrupt file, unreachable agent,
 *      wrong token — with one line on stderr saying what to do.
 * Only main.c exits.
 */
#ifndef PL_CLI_H
#define PL_CLI_H

#include <glib.h>

#include "pl-capture.h"
#include "pl-profile.h"

enum { PL_EXIT_OK = 0, PL_EXIT_CHECK = 1, PL_EXIT_BAD_INPUT = 2 };

int pl_cli_report(int argc, char **argv);
int pl_cli_export(int argc, char **argv);
int pl_cli_record(int argc, char **argv);
int pl_cli_ps(int argc, char **argv);

/* Symbol options every analysing subcommand takes. */
typedef struct {
	char *sysroot;
	char **binaries;
	char **debug_dirs;
	char **source_dirs;
	char *toolchain_prefix;
	gboolean no_inline;
} PlCliSymArgs;
/* Appends the --sysroot/--binary/… entries to a GOptionEntry list. */
GOptionGroup *pl_cli_sym_group(PlCliSymArgs *a);
void pl_cli_sym_args_clear(PlCliSymArgs *a);

/* Loads FILE (.plens or perf.data) into a new profile.  On failure prints
 * the one-line error and returns NULL.  A torn tail is a note on stderr,
 * not a failure. */
PlProfile *pl_cli_load(const char *path, const PlCliSymArgs *a, PlCaptureInfo *info);

/* "perflens: " + message on stderr; returns PL_EXIT_BAD_INPUT. */
int pl_cli_fail(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* Parses options; on error prints it with a pointer to --help. */
gboolean pl_cli_parse(GOptionContext *ctx, int *argc, char ***argv, const char *cmd);

#endif
