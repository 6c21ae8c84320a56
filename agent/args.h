/* args.h — the agent's command-line reader and its help: long options
 * ("--name", "--name=VALUE", "--name VALUE", an unambiguous prefix of a
 * name), the short letters perf gives the same options ("-F 99", "-F99",
 * "-ag"), and -h and -V; reading stops at "--" or at the first word that
 * is not an option (the command to run).
 *
 * One table (struct pla_opt) is what the parser reads, what --help prints
 * and what --dump-options writes for the man page and shell completion,
 * so none of them can name an option the others lack.
 *
 * Written here instead of getopt_long for two reasons: it is a fifth of
 * the size in the static agent (whose budget is 192 KiB), and its errors
 * never repeat what follows '=' — a mistyped "--tokn=SECRET" must not
 * print the secret into a board's log.
 */
#ifndef PLA_ARGS_H
#define PLA_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pla_opt {
	const char *name; /* without "--"; "" for a short option only; NULL ends the table */
	char has_arg;     /* 1: takes a value */
	uint16_t id;      /* returned for it (> 0); 0: not an option but a line of
			   * the help (name is the text: a heading, a note) */
	char short_name;  /* perf's letter for it, 0: none */
	const char *arg;  /* the value's name in the help (HZ) */
	const char *help; /* its help, lines separated by '\n'; NULL: not shown */
};

struct pla_args {
	int argc, next; /* next: the first argument not read yet (after the loop: the command) */
	char **argv;
	const char *arg;  /* the option's value */
	char err[160];    /* set when pla_args_next returns -1 */
	const char *bundle; /* the rest of "-ag" after the letter returned */
};

void pla_args_init(struct pla_args *a, int argc, char **argv);
/* The next option's id ('h' and 'V' for -h and -V), 0 at the end of the
 * options, -1 on a bad one (a.err says which, without its value). */
int pla_args_next(struct pla_args *a, const struct pla_opt *opts);
/* The help of opts on f, wrapped as written (within 80 columns). */
void pla_args_help(FILE *f, const struct pla_opt *opts);
/* opts as text for the man page and completions (man/gen.sh reads it):
 *   option PROGRAM SECTION LONG SHORT ARG FLAGS HELP   (tab-separated; "-"
 * for none; SECTION the heading above it; help lines joined). */
void pla_args_dump(FILE *f, const char *program, const struct pla_opt *opts);

#endif
