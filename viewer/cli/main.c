/* main.c — perflens: dispatch to a subcommand, or to the desktop app
 * (loaded as a module by app.c only then: the command line never loads
 * GTK). */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-export-self-contained.h"
#include "version.h"

static const char usage[] =
	"Usage: perflens COMMAND [ARGS]\n"
	"       perflens [FILE] [--connect HOST[:PORT]]   the desktop app\n"
	"\n"
	"Commands:\n"
	"  report FILE [--sort self|total] [--top N] [--fail-if 'SYM>5%'] ...\n"
	"                      top functions, threads, off-CPU, counters, coverage\n"
	"  report FILE --source FUNC | --annotate FUNC\n"
	"                      source lines / instructions of a function, with counts\n"
	"  export FILE --format collapsed|pprof|svg|speedscope|perf-data [-o OUT]\n"
	"                      stacks for flame graph tools, pprof, speedscope, perf\n"
	"  diff A B            per function and per stack: how shares moved from A to B\n"
	"  (report, export, diff take stack filters: --allow/--deny RE ['(cut)'],\n"
	"   --allow-module/--deny-module, --rename RE=NEW, --collapse-recursion)\n"
	"  record HOST[:PORT] --token T (--pid N | --command \"CMD\") [-d S] [-o FILE]\n"
	"  record ssh://[USER@]HOST --command \"CMD\"    (no port, no token)\n"
	"  record --listen [[ADDR:]PORT] ...\n"
	"                      profile live through a perflens-agent, save the session\n"
	"  ps HOST[:PORT] --token T\n"
	"                      the board's processes, to choose a --pid\n"
	"  snapshot HOST[:PORT] --token T [-o FILE]\n"
	"                      save a flight recorder's ring now (agent --flight --port)\n"
	"  help [COMMAND | environment]\n"
	"                      a command's options; the environment variables read\n"
	"\n"
	"  (no command)        the desktop app; `perflens FILE` opens FILE in it;\n"
	"                      --connect HOST[:PORT] connects it to an agent\n"
	"\n"
	"FILE is a .plens capture (perflens-agent --output, perflens record) or a\n"
	"perf.data.  Run 'perflens COMMAND --help' for the options of a command.\n"
	"Exit status: 0 ok, 1 a --fail-if condition held, 2 bad input (the message\n"
	"says which).  -V, --version: the version.  Manual: man perflens.\n";

/* Every environment variable perflens reads, in one place (perflens help
 * environment, and the ENVIRONMENT section of perflens(1)). */
static const struct {
	const char *name, *help;
} environment[] = {
	{ "PERFLENS_TOKEN", "the agent's token when --token is not given (record, ps)" },
	{ "PERFLENS_SSH", "the ssh command for ssh:// targets (default: ssh)" },
	{ "PERFLENS_AGENTS_DIR",
	  "where record ssh://... finds the static agents to copy to a board (default: "
	  "../dist, ../lib/perflens/agents or agents/ next to perflens)" },
	{ "DEBUGINFOD_URLS",
	  "debuginfod servers for missing debug files (--debuginfod overrides; \"\" for none)" },
	{ "DEBUGINFOD_CACHE_PATH", "where files fetched from debuginfod are kept" },
	{ "XDG_DATA_HOME", "sessions saved by record without -o: $XDG_DATA_HOME/perflens/sessions" },
	{ "XDG_CACHE_HOME",
	  "inflated compressed debug sections: $XDG_CACHE_HOME/perflens/debug" },
	{ "PERFLENS_DEBUG_CACHE_MAX_MB", "the cap of that cache (default 2048)" },
	{ "PERFLENS_NO_DEBUG_CACHE", "=1: inflate compressed debug sections in memory only" },
	{ "PERFLENS_NO_UNWIND_AHEAD",
	  "=1: unwind perf.data stacks in the model only, not ahead on other cores" },
	{ "PERFLENS_DEBUG_AHEAD", "=1: print how many stacks were unwound ahead" },
	{ "PERFLENS_NO_DECODE_THREAD",
	  "=1: decode a .plens on the loading thread only, not ahead on a second core" },
	{ "PERFLENS_DEBUG_CHAINS", "=1: print the bytes the distinct call chains of a load took" },
	{ "PERFLENS_THEME", "dark or light: the desktop app's colours, overriding the desktop's" },
	{ "PERFLENS_TIMING",
	  "=1: the desktop app prints each frame's time, with the views it answers, and each "
	  "recompute's on stderr (bench/scale-app.sh, bench/scale-app-interact.sh)" },
	{ "DISPLAY, WAYLAND_DISPLAY", "the display of the desktop app" },
	{ "GSK_RENDERER",
	  "GTK's renderer for the desktop app; unset, the app takes cairo on a machine without "
	  "a GPU render node (/dev/dri/renderD*), where GL would be software; set, it goes to "
	  "GTK as it is (ngl or gl for GTK's GL renderer)" },
};

static void print_environment(void)
{
	puts("Environment variables perflens reads:\n");
	for (size_t i = 0; i < G_N_ELEMENTS(environment); i++) {
		printf("  %s\n", environment[i].name);
		/* wrapped at 80 columns from column 6 */
		const char *p = environment[i].help;
		while (*p) {
			int n = (int)strlen(p);
			if (n > 74) {
				n = 74;
				while (n > 0 && p[n] != ' ')
					n--;
			}
			printf("      %.*s\n", n, p);
			p += n;
			while (*p == ' ')
				p++;
		}
	}
	puts("\nperflens-agent reads XDG_RUNTIME_DIR and HOME (where it writes a generated\n"
	     "token); see perflens-agent --help.");
}

typedef int (*CmdFunc)(int argc, char **argv);
static const struct {
	const char *name;
	CmdFunc run;
} commands[] = {
	{ "report", pl_cli_report }, { "export", pl_cli_export }, { "diff", pl_cli_diff },
	{ "record", pl_cli_record }, { "ps", pl_cli_ps }, { "snapshot", pl_cli_snapshot },
	{ "collect", pl_cli_collect },
	{ "fleet", pl_cli_fleet },
};

static CmdFunc find(const char *name)
{
	for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].run;
	return NULL;
}

/* A subcommand's run: --help and --dump-options end it with exit 0. */
static int run(CmdFunc f, int argc, char **argv)
{
	int rc = f(argc, argv);
	return pl_cli_help_was_shown() ? PL_EXIT_OK : rc;
}

/* The top-level options, for --dump-options (the app's are its own). */
static void dump_top(void)
{
	pl_cli_dump_option("perflens", NULL, "help", 'h', NULL, FALSE, "This help");
	pl_cli_dump_option("perflens", NULL, "version", 'V', NULL, FALSE,
			   "Print the version and the protocol");
	pl_cli_dump_option("perflens", NULL, "connect", 0, "HOST[:PORT]", FALSE,
			   "The desktop app: connect to the agent there");
	for (size_t i = 0; i < G_N_ELEMENTS(environment); i++)
		printf("env\t%s\t%s\n", environment[i].name, environment[i].help);
	for (const PlCliCommand *c = pl_cli_commands; c->name; c++) {
		char *argv[] = { (char *)c->name, (char *)"--dump-options", NULL };
		run(find(c->name), 2, argv);
	}
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	const char *first = argc > 1 ? argv[1] : NULL;
	if (first && (!strcmp(first, "--help") || !strcmp(first, "-h") ||
		      (!strcmp(first, "help") && argc == 2))) {
		fputs(usage, stdout);
		return PL_EXIT_OK;
	}
	if (first && !strcmp(first, "help")) {
		if (!strcmp(argv[2], "environment")) {
			print_environment();
			return PL_EXIT_OK;
		}
		if (!find(argv[2]))
			return pl_cli_fail("help: no command '%s' (the commands: report, export, "
					   "diff, record, ps; or help environment)", argv[2]);
		char *h[] = { argv[2], (char *)"--help", NULL };
		return run(find(argv[2]), 2, h);
	}
	if (first && (!strcmp(first, "--version") || !strcmp(first, "-V"))) {
		printf(PL_VERSION_LINE, "perflens", PL_PROTOCOL_VERSION);
		return PL_EXIT_OK;
	}
	if (first && !strcmp(first, "--dump-options")) {
		dump_top();
		return PL_EXIT_OK;
	}
	if (first && find(first))
		return run(find(first), argc - 1, argv + 1);
	/* the desktop app: no command, `open FILE`, a file, or its --connect */
	if (first && first[0] == '-' && strcmp(first, "--connect") != 0)
		return pl_cli_fail("unknown option '%s': run perflens --help", first);
	if (first && first[0] != '-' && strcmp(first, "open") != 0 && access(first, F_OK) != 0) {
		int e = errno;
		if (!strchr(first, '.') && !strchr(first, '/'))
			return pl_cli_fail("unknown command '%s': run perflens --help", first);
		return pl_cli_fail("%s: %s (perflens FILE opens a capture in the desktop app; "
				   "the commands are report, export, diff, record and ps)",
				   first, e == ENOENT ? "no such file" : g_strerror(e));
	}
	if (getenv("DISPLAY") || getenv("WAYLAND_DISPLAY"))
		return pl_cli_app(argc, argv);
	return pl_cli_fail("no display for the desktop app (DISPLAY and WAYLAND_DISPLAY are "
			   "unset): run it in a graphical session, or use the command line "
			   "(perflens --help)");
}
