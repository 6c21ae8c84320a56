/* pl-cli-expr.h — how the command line refuses an expression it cannot
 * read (viewer/model/pl-expr.h): the option and the expression as the user
 * wrote them, what was expected, and a caret under the column where
 * reading stopped:
 *
 *   perflens: cannot parse --fail-if 'hot_fn>>1%': this '>' closes no '<' …
 *                                           ^
 */
#ifndef PL_CLI_EXPR_H
#define PL_CLI_EXPR_H

#include <glib.h>

G_BEGIN_DECLS

/* The two lines above, without the "perflens: " the caret line allows
 * for: "WHAT 'EXPR': MESSAGE\n     ^".  An error outside PL_EXPR_ERROR
 * gives one line, no caret. */
char *pl_cli_expr_dup_message(const char *what, const char *expr, const GError *error);
/* Prints such a message (lines kept) on stderr after "perflens: ";
 * returns PL_EXIT_BAD_INPUT. */
int pl_cli_fail_expr_message(const char *message);
/* Both at once. */
int pl_cli_fail_expr(const char *what, const char *expr, const GError *error);

G_END_DECLS

#endif
