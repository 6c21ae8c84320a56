/* pl-name-shorten.c — folding C++ template arguments and parameter lists;
 * see pl-name-shorten.h. */
#include "pl-name-shorten.h"

#include <string.h>

/* How many bytes at s are an operator's name whose characters would
 * otherwise read as brackets: "operator<<=", "operator()", "operator->*"… */
static gsize operator_len(const char *s)
{
	static const char *const ops[] = { "operator<=>", "operator<<=", "operator>>=",
					   "operator->*", "operator<<",  "operator>>",
					   "operator<=",  "operator>=",  "operator->",
					   "operator()",  "operator<",   "operator>" };
	for (guint i = 0; i < G_N_ELEMENTS(ops); i++) {
		gsize n = strlen(ops[i]);
		if (!strncmp(s, ops[i], n))
			return n;
	}
	return 0;
}

/* The index of the bracket closing the one at s[i] (open, close: its pair),
 * counting nesting and skipping operator names; len when unbalanced. */
static gsize closing(const char *s, gsize len, gsize i, char open, char close)
{
	int depth = 0;
	for (gsize k = i; k < len; k++) {
		gsize op = operator_len(s + k);
		if (op) {
			k += op - 1;
			continue;
		}
		if (s[k] == open)
			depth++;
		else if (s[k] == close && --depth == 0)
			return k;
	}
	return len;
}

char *pl_name_shorten(const char *name)
{
	if (!name)
		return NULL;
	gsize len = strlen(name);
	GString *out = g_string_sized_new(len);
	for (gsize i = 0; i < len;) {
		gsize op = operator_len(name + i);
		if (op) {
			g_string_append_len(out, name + i, (gssize)op);
			i += op;
			continue;
		}
		char c = name[i];
		if (c == '{' && !strncmp(name + i, "{lambda(", 8)) {
			/* {lambda(int)#1}: the parameters go, the number stays */
			gsize p = closing(name, len, i + 7, '(', ')');
			g_string_append(out, "{lambda()");
			i = p < len ? p + 1 : len;
			continue;
		}
		if (c == '(' && !strncmp(name + i, "(anonymous namespace)", 21)) {
			g_string_append_len(out, name + i, 21);
			i += 21;
			continue;
		}
		if (c == '<' || c == '(') {
			char close = c == '<' ? '>' : ')';
			gsize e = closing(name, len, i, c, close);
			if (e == len) { /* unbalanced: keep the rest as it is */
				g_string_append(out, name + i);
				break;
			}
			/* "<>" and "()" stay; anything inside becomes … */
			g_string_append_c(out, c);
			if (e > i + 1)
				g_string_append(out, "…");
			g_string_append_c(out, close);
			i = e + 1;
			continue;
		}
		g_string_append_c(out, c);
		i++;
	}
	return g_string_free(out, FALSE);
}
