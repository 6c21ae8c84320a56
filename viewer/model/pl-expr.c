/* pl-expr.c — strict readers for the expressions users write; see pl-expr.h. */
#include "pl-expr.h"

#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK(pl-expr-error-quark, pl_expr_error)

/* What every gate refusal ends with: a gate that reads. */
#define GATE_EXAMPLE "e.g. 'hot_leaf>5%%', 'total:main<=90%%' or 'unwound<99%%'"

void pl_expr_set_error(GError **error, gsize pos, const char *fmt, ...)
{
	if (!error)
		return;
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error_literal(error, PL_EXPR_ERROR, (gint)MIN(pos, (gsize)G_MAXINT), msg);
}

/* ─── regular expressions ────────────────────────────────────────────── */

GRegex *pl_expr_regex_new(const char *pattern, gsize base, GError **error)
{
	if (!*pattern) {
		pl_expr_set_error(error, base,
				  "an empty regular expression matches everything: write what to "
				  "match, e.g. '^helper$' or 'alloc|free'");
		return NULL;
	}
	/* GRegex reads UTF-8: bytes that are not were accepted or refused by
	 * chance (a transform then did not read back from its saved form) */
	const char *bad;
	if (!g_utf8_validate(pattern, -1, &bad)) {
		pl_expr_set_error(error, base + (gsize)(bad - pattern),
				  "not UTF-8 text: write the name as the report or the app shows it");
		return NULL;
	}
	g_autoptr(GError) e = NULL;
	GRegex *re = g_regex_new(pattern, G_REGEX_OPTIMIZE, 0, &e);
	if (re)
		return re;
	/* GLib says "… ‘PATTERN’ at char N: WHY"; the pattern itself may hold
	 * that text, so the last one is PCRE's */
	const char *msg = e->message, *why = e->message;
	gsize at = 0;
	for (const char *s = strstr(msg, " at char "); s; s = strstr(s + 1, " at char ")) {
		char *end;
		guint64 n = g_ascii_strtoull(s + 9, &end, 10);
		if (end != s + 9 && end[0] == ':' && end[1] == ' ') {
			at = n <= strlen(pattern) ? (gsize)n : strlen(pattern);
			why = end + 2;
		}
	}
	pl_expr_set_error(error, base + at,
			  "not a valid regular expression: %s (PCRE syntax: write \\( \\[ \\. "
			  "for a literal ( [ ., e.g. '^helper \\(a\\.c\\)$')",
			  why);
	return NULL;
}

/* ─── gates ──────────────────────────────────────────────────────────── */

static const char *const op_names[] = {
	[PL_GATE_GT] = ">", [PL_GATE_GE] = ">=", [PL_GATE_LT] = "<", [PL_GATE_LE] = "<=",
};

const char *pl_gate_op_name(PlGateOp op)
{
	return (guint)op < G_N_ELEMENTS(op_names) ? op_names[op] : "?";
}

gboolean pl_gate_holds(const PlGate *g, double v)
{
	switch (g->op) {
	case PL_GATE_GT:
		return v > g->value;
	case PL_GATE_GE:
		return v >= g->value;
	case PL_GATE_LT:
		return v < g->value;
	case PL_GATE_LE:
		return v <= g->value;
	}
	return FALSE;
}

void pl_gate_clear(PlGate *g)
{
	g_clear_pointer(&g->name, g_free);
	g_clear_pointer(&g->value_text, g_free);
}

gboolean pl_gate_equal(const PlGate *a, const PlGate *b)
{
	return a->measure == b->measure && a->op == b->op && a->value == b->value &&
	       !g_strcmp0(a->value_text, b->value_text) && !g_strcmp0(a->name, b->name);
}

gboolean pl_gate_name_is_placeholder(const char *name)
{
	gsize n = name ? strlen(name) : 0;
	return n > 2 && name[0] == '[' && name[n - 1] == ']';
}

static gsize skip_spaces(const char *s, gsize i)
{
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	return i;
}

/* The C++ operators a name may hold right after "operator", longest first:
 * their '<' and '>' are not brackets. */
static gsize operator_token(const char *s)
{
	static const char *const toks[] = { "<<=", ">>=", "<=>", "->*", "<<", ">>", "<=",
					     ">=",  "->",  "<",   ">" };
	for (guint k = 0; k < G_N_ELEMENTS(toks); k++)
		if (g_str_has_prefix(s, toks[k]))
			return strlen(toks[k]);
	return 0;
}

/* Whether s[0..n) can be a bare function name: '<' and '>' pair up as
 * template brackets, no control characters.  FALSE with the error at the
 * offending byte (offsets relative to base). */
static gboolean check_bare_name(const char *s, gsize n, gsize base, GError **error)
{
	GArray *open = g_array_new(FALSE, FALSE, sizeof(gsize));
	gboolean ok = TRUE;
	for (gsize i = 0; i < n && ok; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			pl_expr_set_error(error, base + i,
					  "a control character cannot be part of a function's name");
			ok = FALSE;
		} else if (c == 'o' && i + 8 <= n && !strncmp(s + i, "operator", 8) &&
			   (i == 0 || !(g_ascii_isalnum(s[i - 1]) || s[i - 1] == '_'))) {
			gsize j = i + 8;
			while (j < n && s[j] == ' ')
				j++;
			gsize t = j < n ? operator_token(s + j) : 0;
			i = (t && j + t <= n ? j + t : i + 8) - 1;
		} else if (c == '<') {
			g_array_append_val(open, i);
		} else if (c == '>') {
			if (!open->len) {
				pl_expr_set_error(error, base + i,
						  "this '>' closes no '<' of the function's name: the "
						  "operator is one of > >= < <=, written once; " GATE_EXAMPLE);
				ok = FALSE;
			} else {
				g_array_set_size(open, open->len - 1);
			}
		}
	}
	if (ok && open->len) {
		pl_expr_set_error(error, base + g_array_index(open, gsize, open->len - 1),
				  "this '<' of the function's name is never closed by a '>'; "
				  GATE_EXAMPLE);
		ok = FALSE;
	}
	g_array_unref(open);
	return ok;
}

/* The limit at s+i: spaces, a decimal number 0..100, spaces, an optional
 * '%', spaces, the end.  FALSE with the error at the first byte that does
 * not fit; *text gets the number's canonical spelling. */
static gboolean read_limit(const char *s, gsize i, const char *op, double *value, char **text,
			   GError **error)
{
	i = skip_spaces(s, i);
	gsize start = i;
	gsize int_at = i;
	while (g_ascii_isdigit(s[i]))
		i++;
	gsize int_end = i, frac_at = i, frac_end = i;
	if (s[i] == '.') {
		frac_at = ++i;
		while (g_ascii_isdigit(s[i]))
			i++;
		frac_end = i;
	}
	if (int_end == int_at && frac_end == frac_at) {
		if (!s[start])
			pl_expr_set_error(error, start, "the limit is missing after '%s': a "
					  "percentage from 0 to 100; " GATE_EXAMPLE, op);
		else if (s[start] == '-')
			pl_expr_set_error(error, start, "a limit cannot be negative: a share is "
					  "a percentage from 0 to 100; " GATE_EXAMPLE);
		else
			pl_expr_set_error(error, start, "expected the limit after '%s' (a "
					  "percentage from 0 to 100), not '%.*s'; " GATE_EXAMPLE,
					  op, (int)(g_utf8_next_char(s + start) - (s + start)),
					  s + start);
		return FALSE;
	}
	gsize num_end = i;
	i = skip_spaces(s, i);
	if (s[i] == '%')
		i = skip_spaces(s, i + 1);
	if (s[i]) {
		pl_expr_set_error(error, i, "nothing may follow the limit%s; " GATE_EXAMPLE,
				  s[i] == 'e' || s[i] == 'E' || s[i] == 'x' ? " (write it in plain "
				  "decimals, e.g. 0.5)" : "");
		return FALSE;
	}
	/* canonical: no leading zeros, no trailing fractional zeros */
	while (int_end - int_at > 1 && s[int_at] == '0')
		int_at++;
	while (frac_end > frac_at && s[frac_end - 1] == '0')
		frac_end--;
	GString *t = g_string_new(NULL);
	if (int_end > int_at)
		g_string_append_len(t, s + int_at, (gssize)(int_end - int_at));
	else
		g_string_append_c(t, '0');
	if (frac_end > frac_at) {
		g_string_append_c(t, '.');
		g_string_append_len(t, s + frac_at, (gssize)(frac_end - frac_at));
	}
	if (t->len > 40) {
		pl_expr_set_error(error, start, "a limit of %zu digits is more than a "
				  "percentage needs; " GATE_EXAMPLE, num_end - start);
		g_string_free(t, TRUE);
		return FALSE;
	}
	*value = g_ascii_strtod(t->str, NULL);
	if (*value > 100) {
		pl_expr_set_error(error, start, "%s%% is not a share: a limit is a percentage "
				  "from 0 to 100; " GATE_EXAMPLE, t->str);
		g_string_free(t, TRUE);
		return FALSE;
	}
	*text = g_string_free(t, FALSE);
	return TRUE;
}

/* The operator at s+i ('<' or '>', maybe with '='); its length. */
static gsize read_op(const char *s, gsize i, PlGateOp *op)
{
	gboolean eq = s[i + 1] == '=';
	*op = s[i] == '>' ? (eq ? PL_GATE_GE : PL_GATE_GT) : (eq ? PL_GATE_LE : PL_GATE_LT);
	return eq ? 2 : 1;
}

/* A quoted name at s+i ('"' there): unescaped into *name; *end after the
 * closing quote. */
static gboolean read_quoted(const char *s, gsize i, char **name, gsize *end, GError **error)
{
	GString *n = g_string_new(NULL);
	gsize j = i + 1;
	for (; s[j] && s[j] != '"'; j++) {
		if ((unsigned char)s[j] < 0x20 || s[j] == 0x7f) {
			pl_expr_set_error(error, j,
					  "a control character cannot be part of a function's name");
			g_string_free(n, TRUE);
			return FALSE;
		}
		if (s[j] == '\\') {
			if (s[j + 1] != '"' && s[j + 1] != '\\') {
				pl_expr_set_error(error, j, "in a quoted name, '\\' escapes only "
						  "'\"' and '\\': write \\\" or \\\\");
				g_string_free(n, TRUE);
				return FALSE;
			}
			j++;
		}
		g_string_append_c(n, s[j]);
	}
	if (!s[j]) {
		pl_expr_set_error(error, i, "this quote is never closed: write the name as "
				  "\"NAME\", e.g. '\"operator>\">1%%'");
		g_string_free(n, TRUE);
		return FALSE;
	}
	if (!n->len) {
		pl_expr_set_error(error, i, "the quoted name is empty; " GATE_EXAMPLE);
		g_string_free(n, TRUE);
		return FALSE;
	}
	*name = g_string_free(n, FALSE);
	*end = j + 1;
	return TRUE;
}

gboolean pl_gate_parse(const char *s, PlGate *g, GError **error)
{
	memset(g, 0, sizeof(*g));
	if (!g_utf8_validate(s, -1, NULL)) {
		const char *bad;
		g_utf8_validate(s, -1, &bad);
		pl_expr_set_error(error, (gsize)(bad - s), "not UTF-8 text; " GATE_EXAMPLE);
		return FALSE;
	}
	gsize i = skip_spaces(s, 0);
	/* WORD: (one colon) is a measure, never the start of a name */
	gsize w = i;
	while (g_ascii_isalnum(s[w]) || s[w] == '_')
		w++;
	if (w > i && s[w] == ':' && s[w + 1] != ':') {
		if (w - i == 4 && !strncmp(s + i, "self", 4)) {
			g->measure = PL_GATE_SELF;
		} else if (w - i == 5 && !strncmp(s + i, "total", 5)) {
			g->measure = PL_GATE_TOTAL;
		} else {
			pl_expr_set_error(error, i, "'%.*s:' is not a measure: write self: or "
					  "total: (or nothing, for self), or quote a name that has "
					  "a colon, e.g. '\"%.*s:NAME\">1%%'",
					  (int)(w - i), s + i, (int)MIN(w - i, 40), s + i);
			return FALSE;
		}
		g->explicit_measure = TRUE;
		i = skip_spaces(s, w + 1);
	}
	gsize op_at;
	if (s[i] == '"') {
		gsize end;
		if (!read_quoted(s, i, &g->name, &end, error))
			return FALSE;
		g->name_at = i;
		g->name_end = end;
		op_at = skip_spaces(s, end);
		if (s[op_at] != '<' && s[op_at] != '>') {
			pl_expr_set_error(error, op_at, "expected an operator (> >= < <=) after the "
					  "quoted name; " GATE_EXAMPLE);
			pl_gate_clear(g);
			return FALSE;
		}
	} else {
		/* the operator: the last '<' or '>' whose tail reads as a limit,
		 * else the last of them (for the error) */
		op_at = G_MAXSIZE;
		gsize last = G_MAXSIZE;
		for (gsize k = i; s[k]; k++) {
			if (s[k] != '<' && s[k] != '>')
				continue;
			last = k;
			PlGateOp op;
			double v;
			char *t = NULL;
			if (read_limit(s, k + read_op(s, k, &op), "", &v, &t, NULL))
				op_at = k;
			g_free(t);
		}
		if (last == G_MAXSIZE) {
			pl_expr_set_error(error, strlen(s), "expected an operator (> >= < <=) and "
					  "a limit after the function's name; " GATE_EXAMPLE);
			return FALSE;
		}
		if (op_at == G_MAXSIZE)
			op_at = last;
		gsize ne = op_at;
		while (ne > i && (s[ne - 1] == ' ' || s[ne - 1] == '\t'))
			ne--;
		if (ne == i) {
			pl_expr_set_error(error, op_at, "a function's name (or unwound) must come "
					  "before '%c'; " GATE_EXAMPLE, s[op_at]);
			return FALSE;
		}
		if (!check_bare_name(s + i, ne - i, i, error))
			return FALSE;
		g->name = g_strndup(s + i, ne - i);
		g->name_at = i;
		g->name_end = ne;
		if (!g->explicit_measure && !strcmp(g->name, "unwound")) {
			g->measure = PL_GATE_UNWOUND;
			g_clear_pointer(&g->name, g_free);
		}
	}
	gsize oplen = read_op(s, op_at, &g->op);
	if (!read_limit(s, op_at + oplen, pl_gate_op_name(g->op), &g->value, &g->value_text,
			error)) {
		pl_gate_clear(g);
		return FALSE;
	}
	return TRUE;
}

char *pl_gate_dup_canonical(const PlGate *g)
{
	const char *op = pl_gate_op_name(g->op);
	if (g->measure == PL_GATE_UNWOUND)
		return g_strdup_printf("unwound%s%s%%", op, g->value_text);
	const char *m = g->measure == PL_GATE_TOTAL ? "total" : "self";
	/* bare when that reads back as this very gate, else quoted */
	char *bare = g_strdup_printf("%s:%s%s%s%%", m, g->name, op, g->value_text);
	PlGate back;
	if (pl_gate_parse(bare, &back, NULL)) {
		gboolean same = pl_gate_equal(&back, g);
		pl_gate_clear(&back);
		if (same)
			return bare;
	}
	g_free(bare);
	GString *q = g_string_new(NULL);
	g_string_append_printf(q, "%s:\"", m);
	for (const char *c = g->name; *c; c++) {
		if (*c == '"' || *c == '\\')
			g_string_append_c(q, '\\');
		g_string_append_c(q, *c);
	}
	g_string_append_printf(q, "\"%s%s%%", op, g->value_text);
	return g_string_free(q, FALSE);
}
