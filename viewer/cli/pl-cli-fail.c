/* pl-cli-fail.c — how every subcommand refuses: one line on stderr, the
 * exit status of bad input.  Alone in its file because the option tables
 * (pl-cli-options.c) and everything built on them use it. */
#include <stdarg.h>
#include <stdio.h>

#include "pl-cli.h"

int pl_cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	/* one line: flatten anything multi-line that came from below */
	for (char *p = msg; *p; p++)
		if (*p == '\n')
			*p = ' ';
	fprintf(stderr, "perflens: %s\n", msg);
	return PL_EXIT_BAD_INPUT;
}
