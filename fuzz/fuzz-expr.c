/* fuzz-expr.c — libFuzzer harness: the readers of what users write
 * (viewer/model/pl-expr.h): --fail-if gates, stack-filter rules, call-tree
 * transforms, marker pairs and bare regular expressions.
 *
 * The first byte picks the reader ('0'–'3' a gate, '4' a stack-filter rule
 * and '5' a transform, each kind picked by the second byte, '6' a marker
 * pair, '7' a regex, by its value mod 8); the rest, up to a NUL, is the
 * text, as a command-line argument would hold it.
 *
 * Invariants (a failure aborts, so libFuzzer keeps the input):
 *   every refusal is a PL_EXPR_ERROR whose position is inside the text
 *   (the caret can point at it) and whose message is not empty;
 *   an accepted gate prints back (pl_gate_dup_canonical) to a text that
 *   reads as the same gate and prints back to itself (round trip);
 *   an accepted gate also fits a grammar written here independently as one
 *   regex (measure, name, operator, a plain decimal limit 0..100), its bare
 *   name pairs its '<' '>' (operator names aside), holds no control
 *   character and starts with no WORD: unless self:/total: came first: a
 *   malformed string accepted silently fails one of these (checked by
 *   mutants: accepting 'hot_leaf>>1%' or '>500%' fails the seed replay).
 * Seeds: fuzz/corpus/expr (every example of docs/expressions.md and the
 * refusals the tests check).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "pl-expr.h"
#include "pl-stack-filter.h"
#include "pl-tracepoint.h"
#include "pl-transform.h"

static GRegex *grammar, *measure_like;

static void check_refusal(const char *text, GError *error, const char *what)
{
	FZ_CHECK(error != NULL, "%s refused '%s' without an error", what, text);
	FZ_CHECK(error->domain == PL_EXPR_ERROR, "%s refused '%s' without a position: %s", what,
		 text, error->message);
	FZ_CHECK(error->code >= 0 && (size_t)error->code <= strlen(text),
		 "%s: position %d outside '%s' (%zu bytes)", what, error->code, text, strlen(text));
	FZ_CHECK(error->message && *error->message, "%s: empty message", what);
	g_error_free(error);
}

static gboolean balanced(const char *name)
{
	if (strstr(name, "operator"))
		return TRUE; /* operator<, operator>> …: the parser's own business */
	int depth = 0;
	for (const char *c = name; *c; c++) {
		depth += *c == '<' ? 1 : *c == '>' ? -1 : 0;
		if (depth < 0)
			return FALSE;
	}
	return depth == 0;
}

static void gate(const char *text)
{
	PlGate g;
	GError *error = NULL;
	if (!pl_gate_parse(text, &g, &error)) {
		check_refusal(text, error, "pl_gate_parse");
		return;
	}
	FZ_CHECK(error == NULL, "accepted '%s' with an error", text);
	FZ_CHECK(g.value >= 0 && g.value <= 100, "'%s': limit %g", text, g.value);
	FZ_CHECK(g_regex_match(grammar, text, 0, NULL),
		 "'%s' accepted, but it is not [self:|total:]NAME OP N[%%]", text);
	if (g.measure == PL_GATE_UNWOUND) {
		FZ_CHECK(!g.name, "'%s': unwound with a name", text);
	} else {
		FZ_CHECK(g.name && *g.name && g_utf8_validate(g.name, -1, NULL),
			 "'%s': a bad name", text);
		for (const char *c = g.name; *c; c++)
			FZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f,
				 "'%s': a control character in the name", text);
		FZ_CHECK(g.name_at < g.name_end && g.name_end <= strlen(text),
			 "'%s': name at %zu..%zu", text, g.name_at, g.name_end);
		if (text[g.name_at] != '"') {
			FZ_CHECK(!strncmp(text + g.name_at, g.name, g.name_end - g.name_at) &&
					 strlen(g.name) == g.name_end - g.name_at,
				 "'%s': bare name '%s' is not the text at %zu..%zu", text, g.name,
				 g.name_at, g.name_end);
			FZ_CHECK(balanced(g.name), "'%s': accepted the name '%s' whose < > do not pair",
				 text, g.name);
			/* 'foo:hot_fn>1%' is a mistyped measure, never a name */
			FZ_CHECK(g.explicit_measure || !g_regex_match(measure_like, g.name, 0, NULL),
				 "'%s': read 'WORD:' as part of the name '%s'", text, g.name);
		}
	}
	char *c = pl_gate_dup_canonical(&g);
	PlGate back;
	GError *e2 = NULL;
	FZ_CHECK(pl_gate_parse(c, &back, &e2), "'%s' prints as '%s', which does not read: %s",
		 text, c, e2 ? e2->message : "?");
	FZ_CHECK(pl_gate_equal(&g, &back), "'%s' prints as '%s', which reads differently", text,
		 c);
	char *c2 = pl_gate_dup_canonical(&back);
	FZ_CHECK(!strcmp(c, c2), "'%s' prints as '%s', then as '%s'", text, c, c2);
	g_free(c2);
	g_free(c);
	pl_gate_clear(&back);
	pl_gate_clear(&g);
}

static void filter_rule(guint8 k, const char *text)
{
	PlStackFilter *sf = pl_stack_filter_new();
	GError *error = NULL;
	if (!pl_stack_filter_add(sf, (PlRuleKind)(k % 5), text, &error))
		check_refusal(text, error, "pl_stack_filter_add");
	else
		FZ_CHECK(error == NULL && !pl_stack_filter_is_empty(sf), "'%s' accepted oddly", text);
	pl_stack_filter_free(sf);
}

static void transform(guint8 k, const char *text)
{
	PlTransforms *t = pl_transforms_new();
	GError *error = NULL;
	if (!pl_transforms_push(t, (PlTransformKind)(k % PL_TX_N_KINDS), text, &error)) {
		check_refusal(text, error, "pl_transforms_push");
	} else {
		/* what a session saves reads back as the same stack */
		char *s = pl_transforms_serialize(t);
		PlTransforms *back = pl_transforms_parse(s, &error);
		FZ_CHECK(back && pl_transforms_get_n(back) == 1 &&
				 !g_strcmp0(pl_transforms_get_arg(back, 0),
					    pl_transforms_get_arg(t, 0)),
			 "transform '%s' does not read back from '%s'", text, s);
		pl_transforms_free(back);
		g_free(s);
	}
	pl_transforms_free(t);
}

static void pair(const char *text)
{
	GRegex *b, *e;
	GError *error = NULL;
	if (!pl_markers_parse_pair(text, &b, &e, &error)) {
		FZ_CHECK(!b && !e, "'%s' refused with a regex left over", text);
		check_refusal(text, error, "pl_markers_parse_pair");
		return;
	}
	FZ_CHECK(b && e && strchr(text, ';'), "'%s' accepted without two regexes", text);
	g_regex_unref(b);
	g_regex_unref(e);
}

static void regex(const char *text)
{
	GError *error = NULL;
	GRegex *re = pl_expr_regex_new(text, 0, &error);
	if (!re) {
		check_refusal(text, error, "pl_expr_regex_new");
		return;
	}
	g_regex_unref(re);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	if (!grammar)
		grammar = g_regex_new("^[ \\t]*(?:(?:self|total):[ \\t]*)?"
				      "(?:\"(?:[^\"\\\\]|\\\\[\"\\\\])+\"|[^\"].*?|[^\"].*\")[ \\t]*"
				      "(?:>|>=|<|<=)[ \\t]*(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)[ \\t]*%?[ \\t]*$",
				      G_REGEX_DOTALL, 0, NULL);
	if (!measure_like)
		measure_like = g_regex_new("^[A-Za-z0-9_]+:(?!:)", 0, 0, NULL);
	guint8 sel = data[0] % 8;
	size_t skip = sel == 4 || sel == 5 ? 2 : 1;
	if (size < skip)
		return 0;
	/* an exact-size copy, cut at the first NUL as argv would be */
	char *text = g_strndup((const char *)data + skip, size - skip);
	switch (sel) {
	case 4:
		filter_rule(data[1], text);
		break;
	case 5:
		transform(data[1], text);
		break;
	case 6:
		pair(text);
		break;
	case 7:
		regex(text);
		break;
	default:
		gate(text);
		break;
	}
	g_free(text);
	return 0;
}
