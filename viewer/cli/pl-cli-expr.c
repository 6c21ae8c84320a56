/* pl-cli-expr.c — refusing an expression with a caret; see pl-cli-expr.h. */
#include "pl-cli-expr.h"

#include <stdio.h>
#include <string.h>

#include "pl-cli.h"
#include "pl-expr.h"

#define PREFIX "perflens: "

/* The expression on one line: control characters shown as '?', so that
 * the caret still lines up (one column per character). */
static char *printable(const char *s)
{
	char *p = g_utf8_make_valid(s, -1);
	for (char *c = p; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return p;
}

char *pl_cli_expr_dup_message(const char *what, const char *expr, const GError *error)
{
	g_autofree char *shown = printable(expr);
	g_autofree char *head = g_strdup_printf("%s '", what);
	g_autofree char *msg = g_strdup(error->message);
	for (char *c = msg; *c; c++)
		if (*c == '\n')
			*c = ' ';
	if (error->domain != PL_EXPR_ERROR)
		return g_strdup_printf("%s%s': %s", head, shown, msg);
	gsize pos = MIN((gsize)error->code, strlen(expr));
	/* columns, not bytes: the expression is UTF-8 (or shown made valid) */
	glong col = g_utf8_validate(expr, (gssize)pos, NULL)
			    ? g_utf8_strlen(expr, (gssize)pos)
			    : (glong)pos;
	glong under = (glong)strlen(PREFIX) + g_utf8_strlen(head, -1) + col;
	return g_strdup_printf("%s%s': %s\n%*s^", head, shown, msg, (int)under, "");
}

int pl_cli_fail_expr_message(const char *message)
{
	fflush(stdout);
	fprintf(stderr, PREFIX "%s\n", message);
	return PL_EXIT_BAD_INPUT;
}

int pl_cli_fail_expr(const char *what, const char *expr, const GError *error)
{
	g_autofree char *m = pl_cli_expr_dup_message(what, expr, error);
	return pl_cli_fail_expr_message(m);
}
