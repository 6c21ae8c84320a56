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
#include "pl-client.h"
#include "pl-profile.h"
#include "pl-stack-filter.h"

enum { PL_EXIT_OK = 0, PL_EXIT_CHECK = 1, PL_EXIT_BAD_INPUT = 2 };

int pl_cli_report(int argc, char **argv);
int pl_cli_export(int argc, char **argv);
int pl_cli_diff(int argc, char **argv);
int pl_cli_record(int argc, char **argv);
int pl_cli_ps(int argc, char **argv);
int pl_cli_snapshot(int argc, char **argv);
int pl_cli_collect(int argc, char **argv); /* viewer/fleet/ */
int pl_cli_fleet(int argc, char **argv);
/* The desktop app: loads perflens-ui.so (next to the executable or in
 * ../lib/perflens/) and runs pl_ui_run; a missing module or GTK is the
 * one-line error saying what to install (app.c). */
int pl_cli_app(int argc, char **argv);

/* A board's agent: HOST[:PORT] over TCP, or ssh://[user@]host[:port]
 * (pl-ssh.h: deployed when needed into remote_dir, NULL for the default;
 * what is copied is said on stderr unless quiet). */
PlClient *pl_cli_connect(const char *target, const char *remote_dir, gboolean quiet,
			 guint timeout_ms, GError **error);

/* Symbol options every analysing subcommand takes. */
typedef struct {
	char *sysroot;
	char **binaries;
	char **debug_dirs;
	char **source_dirs;
	char *toolchain_prefix;
	gboolean no_inline;
	char *map_file;
	char *vmlinux;
	char **path_maps;
	gboolean inline_; /* --inline: the default, accepted for symmetry */
	gboolean short_names; /* fold C++ template arguments and parameters */
	char *debuginfod_urls; /* --debuginfod URLS; NULL: $DEBUGINFOD_URLS */
} PlCliSymArgs;
/* Appends the --sysroot/--binary/… entries to a GOptionEntry list. */
GOptionGroup *pl_cli_sym_group(PlCliSymArgs *a);
void pl_cli_sym_args_clear(PlCliSymArgs *a);

/* Stack rewriting every analysing subcommand takes (pl-stack-filter.h):
 * the rules, then the call-tree transforms (pl-transform.h) in the order
 * the options were given. */
typedef struct {
	char **allow, **deny, **allow_module, **deny_module, **rename;
	PlTransforms *transforms; /* made by the option parser */
	char *transform_error;    /* the first bad transform option */
} PlCliFilterArgs;
GOptionGroup *pl_cli_filter_group(PlCliFilterArgs *a);
void pl_cli_filter_args_clear(PlCliFilterArgs *a);
/* The rules as a filter (NULL when none given); on a bad rule prints the
 * one-line error and sets *failed. */
PlStackFilter *pl_cli_stack_filter(const PlCliFilterArgs *a, gboolean *failed);
/* The event named name (NULL: the main event, PL_NO_ID when there are no
 * samples) in *event; FALSE with the error printed when there is none of
 * that name. */
gboolean pl_cli_event(PlProfile *p, const char *name, const char *path, guint32 *event);

/* Loads FILE (.plens or perf.data) into a new profile.  On failure prints
 * the one-line error and returns NULL.  A torn tail is a note on stderr,
 * not a failure. */
PlProfile *pl_cli_load(const char *path, const PlCliSymArgs *a, PlCaptureInfo *info);
/* The symbol options of a (borrowing its strings; clear with
 * pl_cli_sym_options_clear); FALSE after printing why (a bad --map). */
gboolean pl_cli_sym_options(const PlCliSymArgs *a, PlSymOptions *o);
void pl_cli_sym_options_clear(PlSymOptions *o);

/* "perflens: " + message on stderr; returns PL_EXIT_BAD_INPUT. */
int pl_cli_fail(const char *fmt, ...) G_GNUC_PRINTF(1, 2);

/* The subcommands, for the top-level help, each command's --help and the
 * man pages (pl-cli-options.c); NULL name ends it. */
typedef struct {
	const char *name, *synopsis, *summary;
} PlCliCommand;
extern const PlCliCommand pl_cli_commands[];

/* A command's own options: added to ctx and noted for --help and
 * --dump-options (instead of g_option_context_add_main_entries). */
void pl_cli_add_entries(GOptionContext *ctx, const GOptionEntry *entries);
/* A group of options (--help-NAME), noted likewise; data as for
 * g_option_group_new. */
GOptionGroup *pl_cli_note_group(const char *name, const char *title, const char *help_title,
				const GOptionEntry *entries, gpointer data);
/* Parses options.  FALSE when the command must not go on: an error
 * (printed, with a pointer to --help), or --help / --dump-options, which
 * print what was asked and make pl_cli_help_was_shown() TRUE (main.c then
 * exits 0).  The tables printed are those noted above. */
gboolean pl_cli_parse(GOptionContext *ctx, int *argc, char ***argv, const char *cmd);
gboolean pl_cli_help_was_shown(void);
/* Lines of --dump-options (format in pl-cli-options.c). */
void pl_cli_dump_command(const PlCliCommand *c);
void pl_cli_dump_option(const char *cmd, const char *group, const char *long_name,
			char short_name, const char *arg, gboolean hidden, const char *help);

#endif
