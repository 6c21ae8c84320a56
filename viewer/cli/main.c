/* main.c — perflens: dispatch to a subcommand.
 *
 * Kept to dispatch only: the GTK app will be started from here when no
 * subcommand is given (and a display is available). */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"

static const char usage[] =
	"Usage: perflens COMMAND [ARGS]\n"
	"\n"
	"Commands:\n"
	"  report FILE [--sort self|total] [--tid N] [--top N] [--fail-if 'SYM>5%%'] …\n"
	"                      top functions, threads, off-CPU, counters, symbol coverage\n"
	"  export FILE --format collapsed [-o OUT]\n"
	"                      stacks for flame graph tools\n"
	"  record HOST[:PORT] --token T (--pid N | --command \"CMD\") [--duration S] [-o FILE]\n"
	"  record --listen [[ADDR:]PORT] …\n"
	"                      profile live through a perflens-agent and save the session\n"
	"  ps HOST[:PORT] --token T\n"
	"                      the board's processes, to choose a --pid\n"
	"\n"
	"FILE is a .plens capture (perflens-agent --output, perflens record) or a perf.data.\n"
	"Run 'perflens COMMAND --help' for the options of a command.\n"
	"Exit status: 0 ok, 1 a --fail-if condition held, 2 bad input (see the message).\n";

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	if (argc < 2) {
		/* the GTK app goes here; until then, say how to use the CLI */
		fputs(usage, stderr);
		return PL_EXIT_BAD_INPUT;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return PL_EXIT_OK;
	}
	if (!strcmp(cmd, "--version")) {
		puts("perflens 0.1");
		return PL_EXIT_OK;
	}
	if (!strcmp(cmd, "report"))
		return pl_cli_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return pl_cli_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return pl_cli_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "ps"))
		return pl_cli_ps(argc - 1, argv + 1);
	return pl_cli_fail("unknown command '%s': run perflens --help", cmd);
}
