/* args.c — the agent's command-line reader; see args.h. */
#include "args.h"

#include <stdio.h>
#include <string.h>

void pla_args_init(struct pla_args *a, int argc, char **argv)
{
	a->argc = argc;
	a->argv = argv;
	a->next = 1;
	a->arg = NULL;
	a->err[0] = 0;
	a->bundle = NULL;
}

static const struct pla_opt *by_letter(const struct pla_opt *opts, char c)
{
	for (const struct pla_opt *o = opts; o->name; o++)
		if (o->id && o->short_name == c)
			return o;
	return NULL;
}

/* The option of the letter at *p (a word "-F99" or the rest of "-ag"). */
static int short_option(struct pla_args *a, const struct pla_opt *opts, const char *p)
{
	const struct pla_opt *o = by_letter(opts, *p);
	a->bundle = NULL;
	if (!o) {
		snprintf(a->err, sizeof(a->err), "unknown option '-%c'", *p);
		return -1;
	}
	if (!o->has_arg) {
		if (p[1])
			a->bundle = p + 1;
		return o->id;
	}
	if (p[1]) {
		a->arg = p + 1;
	} else if (a->next < a->argc) {
		a->arg = a->argv[a->next++];
	} else {
		snprintf(a->err, sizeof(a->err), "option '-%c' needs a value", *p);
		return -1;
	}
	return o->id;
}

int pla_args_next(struct pla_args *a, const struct pla_opt *opts)
{
	a->arg = NULL;
	if (a->bundle)
		return short_option(a, opts, a->bundle);
	if (a->next >= a->argc)
		return 0;
	const char *w = a->argv[a->next];
	if (!strcmp(w, "--")) {
		a->next++;
		return 0;
	}
	if (!strcmp(w, "-h") || !strcmp(w, "-V")) {
		a->next++;
		return w[1];
	}
	if (w[0] == '-' && w[1] && w[1] != '-') {
		a->next++;
		/* an error names the letter only, never the rest of the word */
		return short_option(a, opts, w + 1);
	}
	if (strncmp(w, "--", 2) != 0)
		return 0; /* the command */
	a->next++;
	const char *name = w + 2, *eq = strchr(name, '=');
	size_t n = eq ? (size_t)(eq - name) : strlen(name);
	/* an exact name, else the only one it begins */
	const struct pla_opt *hit = NULL;
	int prefixes = 0;
	for (const struct pla_opt *o = opts; o->name; o++) {
		if (!o->id || !o->name[0] || strncmp(o->name, name, n) != 0)
			continue;
		if (!o->name[n]) {
			hit = o;
			prefixes = 1;
			break;
		}
		hit = o;
		prefixes++;
	}
	if (prefixes != 1) {
		snprintf(a->err, sizeof(a->err), "%s option '--%.*s'",
			 prefixes ? "ambiguous" : "unknown", (int)(n < 64 ? n : 64), name);
		return -1;
	}
	if (!hit->has_arg) {
		if (eq) {
			snprintf(a->err, sizeof(a->err), "option '--%s' takes no value", hit->name);
			return -1;
		}
		return hit->id;
	}
	if (eq) {
		a->arg = eq + 1;
	} else if (a->next < a->argc) {
		a->arg = a->argv[a->next++];
	} else {
		snprintf(a->err, sizeof(a->err), "option '--%s' needs a value", hit->name);
		return -1;
	}
	return hit->id;
}

/* ─── help ───────────────────────────────────────────────────────────── */

enum { HELP_COL = 26 };

void pla_args_help(FILE *f, const struct pla_opt *opts)
{
	for (const struct pla_opt *o = opts; o->name; o++) {
		if (!o->id) {
			fprintf(f, "%s\n", o->name);
			continue;
		}
		if (!o->help)
			continue;
		char left[64];
		int n = snprintf(left, sizeof(left), "  %c%c%s%s%s%s%s", o->short_name ? '-' : ' ',
				 o->short_name ? o->short_name : ' ', o->short_name && o->name[0] ? "," : " ",
				 o->name[0] ? " --" : "", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fputs(left, f);
		/* each line of the help from the column, the first beside the name
		 * unless the name reaches it */
		const char *h = o->help;
		if (n >= HELP_COL - 1)
			fputc('\n', f), n = 0;
		while (*h) {
			const char *nl = strchr(h, '\n');
			int len = nl ? (int)(nl - h) : (int)strlen(h);
			fprintf(f, "%*s%.*s\n", HELP_COL - n, "", len, h);
			n = 0;
			h += len + (nl != NULL);
		}
	}
}

void pla_args_dump(FILE *f, const char *program, const struct pla_opt *opts)
{
	const char *section = "-";
	for (const struct pla_opt *o = opts; o->name; o++) {
		if (!o->id) {
			if (o->name[0])
				section = o->name;
			continue;
		}
		fprintf(f, "option\t%s\t%s\t%s\t%c\t%s\t%s\t", program, section,
			o->name[0] ? o->name : "-", o->short_name ? o->short_name : '-',
			o->arg ? o->arg : "-", o->help ? "-" : "hidden");
		if (!o->help)
			fputc('-', f);
		for (const char *h = o->help; h && *h; h++)
			fputc(*h == '\n' ? ' ' : *h, f);
		fputc('\n', f);
	}
}
