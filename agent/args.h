/* args.h — the agent's command-line reader: long options only ("--name",
 * "--name=VALUE", "--name VALUE", an unambiguous prefix of a name), plus
 * -h and -V; reading stops at "--" or at the first word that is not an
 * option (the command to run).
 *
 * Written here instead of getopt_long for two reasons: it is a fifth of
 * the size in the static agent (whose budget is 160 KiB), and its errors
 * never repeat what follows '=' — a mistyped "--tokn=SECRET" must not
 * print the secret into a board's log.
 */
#ifndef PLA_ARGS_H
#define PLA_ARGS_H

#include <stddef.h>

struct pla_opt {
	const char *name; /* without "--"; NULL ends the table */
	int has_arg;      /* 1: takes a value */
	int id;           /* returned for it (> 0) */
};

struct pla_args {
	int argc, next; /* next: the first argument not read yet (after the loop: the command) */
	char **argv;
	const char *arg;  /* the option's value */
	char err[160];    /* set when pla_args_next returns -1 */
};

void pla_args_init(struct pla_args *a, int argc, char **argv);
/* The next option's id ('h' and 'V' for -h and -V), 0 at the end of the
 * options, -1 on a bad one (a.err says which, without its value). */
int pla_args_next(struct pla_args *a, const struct pla_opt *opts);

#endif
