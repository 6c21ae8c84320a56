/* main.c — perflens: dispatch to a subcommand, or to the desktop app
 * (loaded as a module by app.c only then: the command line never loads
 * GTK). */
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-export-self-contained.h"

static const char usage[] =
	"Usage: perflens COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  report FILE [--sort self|total] [--tid N] [--top N] [--fail-if 'SYM>5%%'] …\n"
	"                      top functions, threads, off-CPU, counters, symbol coverage\n"
	"  report FILE --source FUNC | --annotate FUNC\n"
	"                      source lines / instructions of a function with their counts\n"
	"  export FILE --format collapsed|pprof|svg|speedscope|perf-data [-o OUT]\n"
	"                      stacks for flame graph tools, pprof, speedscope, perf report\n"
	"  diff A B            per function and per stack: how shares moved from A to B\n"
	"  (report, export, diff take stack filters: --allow/--deny RE ['(cut)'],\n"
	"   --allow-module/--deny-module, --rename RE=NEW, --collapse-recursion)\n"
	"  record HOST[:PORT] --token T (--pid N | --command \"CMD\") [--duration S] [-o FILE]\n"
	"  record --listen [[ADDR:]PORT] …\n"
	"                      profile live through a perflens-agent and save the session\n"
	"  ps HOST[:PORT] --token T\n"
	"                      the board's processes, to choose a --pid\n"
	"\n"
	"  (no command)        the desktop app; `perflens FILE` opens FILE in it\n"
	"\n"
	"FILE is a .plens capture (perflens-agent --output, perflens record) or a perf.data.\n"
	"Run 'perflens COMMAND --help' for the options of a command.\n"
	"Exit status: 0 ok, 1 a --fail-if condition held, 2 bad input (see the message).\n";

static int is_command(const char *s)
{
	static const char *const cmds[] = { "report", "export", "diff", "record", "ps", "help",
					     "--help", "-h", "--version" };
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(s, cmds[i]))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	/* no command, a file, `open FILE`, or the app's own options: the GTK app */
	int app = argc < 2 || !strcmp(argv[1], "open") ||
		  (!is_command(argv[1]) && (argv[1][0] == '-' || access(argv[1], F_OK) == 0));
	if (app) {
		if (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY"))
			return pl_cli_app(argc, argv);
		fputs("perflens: no display for the desktop app; the command line:\n\n", stderr);
		fputs(usage, stderr);
		return PL_EXIT_BAD_INPUT;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return PL_EXIT_OK;
	}
	if (!strcmp(cmd, "--version")) {
		puts("perflens " PL_VIEWER_VERSION);
		return PL_EXIT_OK;
	}
	if (!strcmp(cmd, "report"))
		return pl_cli_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return pl_cli_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return pl_cli_diff(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return pl_cli_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "ps"))
		return pl_cli_ps(argc - 1, argv + 1);
	return pl_cli_fail("unknown command '%s': run perflens --help", cmd); /* not reached */
}
