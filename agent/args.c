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
}

int pla_args_next(struct pla_args *a, const struct pla_opt *opts)
{
	a->arg = NULL;
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
		snprintf(a->err, sizeof(a->err), "unknown option '%.2s'", w);
		return -1; /* short options are -h and -V only */
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
		if (strncmp(o->name, name, n) != 0)
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
