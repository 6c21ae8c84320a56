/* pl-cli-options.c — the commands' option tables as the user reads them:
 * --help (wrapped at 80 columns) and --dump-options (the tables as text,
 * from which the build generates the man pages and shell completions).
 *
 * Each subcommand parses with GLib's GOptionContext and its own
 * GOptionEntry tables; pl_cli_add_entries and pl_cli_sym_group /
 * pl_cli_filter_group note those tables here as they are added, so the
 * help, the dump and the parser read the same entries. */
#include <stdio.h>
#include <string.h>

#include "pl-cli.h"

/* ─── the commands ───────────────────────────────────────────────────── */

const PlCliCommand pl_cli_commands[] = {
	{ "report", "FILE [OPTIONS]",
	  "The text summary of a recording: top functions, threads, off-CPU time, "
	  "counters and symbol coverage; with --source or --annotate, the lines or "
	  "instructions of one function with their counts; with --fail-if, a gate for CI." },
	{ "export", "FILE --format FORMAT [-o OUT] [OPTIONS]",
	  "Converts a recording for other tools: collapsed stacks (flamegraph.pl), pprof, "
	  "an SVG flame graph, speedscope, perf.data (perf report), or a self-contained "
	  "session." },
	{ "diff", "A B [OPTIONS]",
	  "Compares two recordings: per function and per stack, how the shares of each "
	  "one's total moved from A to B." },
	{ "record", "HOST[:PORT] | ssh://[USER@]HOST[:PORT] | --listen [ADDR:]PORT [OPTIONS]",
	  "Profiles live through a perflens-agent and saves the session as it streams; "
	  "over ssh:// the agent is copied to the board and run there, with no port and "
	  "no token." },
	{ "ps", "HOST[:PORT] | ssh://[USER@]HOST[:PORT] [OPTIONS]",
	  "Lists the board's processes, to choose a --pid for record." },
	{ "snapshot", "HOST[:PORT] [OPTIONS]",
	  "Asks a flight recorder (perflens-agent --flight SECONDS --port N) to save its ring "
	  "now, as a trigger would, and saves the file it sends." },
	{ "collect", "--listen [ADDR:]PORT --clickhouse URL --clickhouse-credentials FILE "
		     "--token-file FILE [OPTIONS]",
	  "Serves agents reporting to it (perflens-agent --server HOST:PORT --label KEY=VALUE) "
	  "and stores their sessions in ClickHouse, spooling while it is down." },
	{ "fleet", "report|diff|export|rank|sessions|schema --clickhouse URL "
		   "--clickhouse-credentials FILE [--where LABELS] [OPTIONS]",
	  "Asks the fleet's ClickHouse: the top functions of the samples whose labels match, "
	  "the diff of two label sets, or their collapsed stacks; rank --function NAME lists "
	  "the devices (--by KEY) by that function's share of their samples, sessions the "
	  "stored sessions, report --session NAME opens one; schema makes its tables (on every "
	  "server of a cluster)." },
	{ NULL, NULL, NULL }
};

/* ─── the tables of the running command ──────────────────────────────── */

typedef struct {
	const char *name, *title; /* NULL name: the command's own options */
	GOptionEntry *entries;    /* a copy, up to its NULL entry */
} Group;

static GArray *groups; /* of Group, for the one command this process runs */
static gboolean help_shown;

static void note_group(const char *name, const char *title, const GOptionEntry *entries)
{
	if (!groups)
		groups = g_array_new(FALSE, TRUE, sizeof(Group));
	guint n = 0;
	while (entries[n].long_name)
		n++;
	Group g = { name, title, g_memdup2(entries, (n + 1) * sizeof(*entries)) };
	g_array_append_val(groups, g);
}

void pl_cli_add_entries(GOptionContext *ctx, const GOptionEntry *entries)
{
	note_group(NULL, NULL, entries);
	g_option_context_add_main_entries(ctx, entries, NULL);
}

GOptionGroup *pl_cli_note_group(const char *name, const char *title, const char *help_title,
				const GOptionEntry *entries, gpointer data)
{
	note_group(name, title, entries);
	GOptionGroup *g = g_option_group_new(name, title, help_title, data, NULL);
	g_option_group_add_entries(g, entries);
	return g;
}

gboolean pl_cli_help_was_shown(void)
{
	return help_shown;
}

/* ─── help text ──────────────────────────────────────────────────────── */

enum { WIDTH = 80, HELP_COL = 27 };

/* Prints text from column col (the cursor is there), wrapped at WIDTH,
 * continuation lines indented to indent. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text;
	int at = col;
	gboolean first = TRUE;
	while (*p) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		/* a quoted example ('helper (a.c)>5%') stays on one line; a word
		 * that holds its closing quote ('unwound<99%';) is whole */
		if (*w == '\'' && !memchr(w + 1, '\'', (size_t)(p - w - 1)) && strchr(p, '\'')) {
			const char *q = strchr(p, '\'');
			while (q[1] && q[1] != ' ')
				q++;
			p = q + 1;
		}
		int len = (int)g_utf8_strlen(w, p - w);
		if (!first && at + 1 + len > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			at = indent;
		} else if (!first) {
			fputc(' ', f);
			at++;
		}
		fwrite(w, 1, (size_t)(p - w), f);
		at += len;
		first = FALSE;
	}
	fputc('\n', f);
}

static char *entry_left(const GOptionEntry *e)
{
	GString *s = g_string_new("  ");
	if (e->short_name)
		g_string_append_printf(s, "-%c, ", e->short_name);
	else
		g_string_append(s, "    ");
	g_string_append_printf(s, "--%s", e->long_name);
	if (e->arg != G_OPTION_ARG_NONE && e->arg_description) {
		const char *d = e->arg_description;
		size_t n = strlen(d);
		if (e->flags & G_OPTION_FLAG_OPTIONAL_ARG) /* "[RE]" or "RE": "[=RE]" */
			g_string_append_printf(s, "[=%.*s]", (int)(d[0] == '[' ? n - 2 : n),
					       d[0] == '[' ? d + 1 : d);
		else
			g_string_append_printf(s, " %s", d);
	}
	return g_string_free(s, FALSE);
}

static void print_entries(FILE *f, const GOptionEntry *e)
{
	for (; e->long_name; e++) {
		if (e->flags & G_OPTION_FLAG_HIDDEN)
			continue;
		g_autofree char *left = entry_left(e);
		int len = (int)g_utf8_strlen(left, -1);
		fputs(left, f);
		if (len + 2 > HELP_COL) {
			fprintf(f, "\n%*s", HELP_COL, "");
		} else {
			fprintf(f, "%*s", HELP_COL - len, "");
		}
		wrap(f, e->description ? e->description : "", HELP_COL, HELP_COL);
	}
}

static const PlCliCommand *find_command(const char *name)
{
	for (const PlCliCommand *c = pl_cli_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* which: NULL the command's own options (and where the others are), "all"
 * every group, else the group of that name. */
static void print_help(const char *cmd, const char *which)
{
	const PlCliCommand *c = find_command(cmd);
	g_autofree char *usage = g_strdup_printf("perflens %s %s", cmd, c ? c->synopsis : "");
	fputs("Usage: ", stdout);
	wrap(stdout, usage, 7, 9);
	if (c) {
		fputc('\n', stdout);
		wrap(stdout, c->summary, 0, 0);
	}
	GString *more = g_string_new(NULL);
	for (guint i = 0; groups && i < groups->len; i++) {
		const Group *g = &g_array_index(groups, Group, i);
		if (g->name && !which) {
			g_string_append_printf(more, "%s--help-%s", more->len ? ", " : "", g->name);
			continue;
		}
		if (g->name && strcmp(which, "all") != 0 && strcmp(which, g->name) != 0)
			continue;
		fputc('\n', stdout);
		wrap(stdout, g->name ? g->title : "Options:", 0, 0);
		print_entries(stdout, g->entries);
	}
	printf("%-*s", HELP_COL, "  -h, --help");
	g_autofree char *h = more->len ? g_strdup_printf("This help; more options: %s, --help-all",
							  more->str)
				       : g_strdup("This help");
	wrap(stdout, h, HELP_COL, HELP_COL);
	g_string_free(more, TRUE);
	printf("\nSee also perflens-%s(1), perflens help environment.\n", cmd);
}

/* ─── the dump ───────────────────────────────────────────────────────── */

/* Tab-separated, one line each; a field never holds a tab or a newline:
 *   command NAME SYNOPSIS SUMMARY
 *   option COMMAND GROUP LONG SHORT ARG FLAGS HELP
 * GROUP "-" for the command's own options; SHORT and ARG "-" when none;
 * FLAGS "hidden" or "-". */
void pl_cli_dump_command(const PlCliCommand *c)
{
	printf("command\t%s\t%s\t%s\n", c->name, c->synopsis, c->summary);
}

void pl_cli_dump_option(const char *cmd, const char *group, const char *long_name,
			char short_name, const char *arg, gboolean hidden, const char *help)
{
	printf("option\t%s\t%s\t%s\t%c\t%s\t%s\t%s\n", cmd, group ? group : "-", long_name,
	       short_name ? short_name : '-', arg && *arg ? arg : "-", hidden ? "hidden" : "-",
	       help && *help ? help : "-");
}

static void dump_options(const char *cmd)
{
	const PlCliCommand *c = find_command(cmd);
	if (c)
		pl_cli_dump_command(c);
	for (guint i = 0; groups && i < groups->len; i++) {
		const Group *g = &g_array_index(groups, Group, i);
		for (const GOptionEntry *e = g->entries; e->long_name; e++)
			pl_cli_dump_option(cmd, g->name, e->long_name, e->short_name,
					   e->arg == G_OPTION_ARG_NONE ? NULL : e->arg_description,
					   (e->flags & G_OPTION_FLAG_HIDDEN) != 0, e->description);
	}
	pl_cli_dump_option(cmd, NULL, "help", 'h', NULL, FALSE, "This help");
}

/* ─── parsing ────────────────────────────────────────────────────────── */

/* The tables are read: the next command of this process notes its own. */
static void forget_groups(void)
{
	for (guint i = 0; groups && i < groups->len; i++)
		g_free(g_array_index(groups, Group, i).entries);
	g_clear_pointer(&groups, g_array_unref);
}

gboolean pl_cli_parse(GOptionContext *ctx, int *argc, char ***argv, const char *cmd)
{
	/* help and the dump before parsing: a request for help never fails on
	 * the other options' values */
	for (int i = 1; i < *argc; i++) {
		const char *a = (*argv)[i];
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help") || g_str_has_prefix(a, "--help-")) {
			print_help(cmd, a[1] == 'h' || !a[6] ? NULL : a + 7);
			forget_groups();
			help_shown = TRUE;
			return FALSE;
		}
		if (!strcmp(a, "--dump-options")) {
			dump_options(cmd);
			forget_groups();
			help_shown = TRUE;
			return FALSE;
		}
	}
	forget_groups();
	g_option_context_set_help_enabled(ctx, FALSE);
	g_autoptr(GError) error = NULL;
	if (!g_option_context_parse(ctx, argc, argv, &error)) {
		pl_cli_fail("%s: %s (run perflens %s --help)", cmd, error->message, cmd);
		return FALSE;
	}
	return TRUE;
}
