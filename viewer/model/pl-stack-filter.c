/* pl-stack-filter.c — stack rewriting rules; see pl-stack-filter.h. */
#include "pl-stack-filter.h"

#include <string.h>

#include "pl-expr.h"
#include "pl-function-names.h"
#include "pl-profile-private.h"

typedef struct {
	PlRuleKind kind;
	GRegex *re;
	char *replacement; /* rename */
	gboolean cut;
	char *pattern;     /* re's text: maybe a literal 'NAME (FILE)' */
} Rule;

/* What one aggregation reads the rules with: the labels shown and, per
 * rule, the functions its pattern names literally (NULL: none). */
typedef struct {
	PlFunctionNames *names;
	GPtrArray *literal;
} Names;

struct _PlStackFilter {
	GArray *rules; /* Rule */
	gboolean collapse_recursion;
	guint n_allow;
	PlTransforms *transforms;
};

PlStackFilter *pl_stack_filter_new(void)
{
	PlStackFilter *self = g_new0(PlStackFilter, 1);
	self->rules = g_array_new(FALSE, FALSE, sizeof(Rule));
	self->transforms = pl_transforms_new();
	return self;
}

void pl_stack_filter_free(PlStackFilter *self)
{
	if (!self)
		return;
	for (guint i = 0; i < self->rules->len; i++) {
		Rule *r = &g_array_index(self->rules, Rule, i);
		g_regex_unref(r->re);
		g_free(r->replacement);
		g_free(r->pattern);
	}
	g_array_free(self->rules, TRUE);
	pl_transforms_free(self->transforms);
	g_free(self);
}

gboolean pl_stack_filter_add(PlStackFilter *self, PlRuleKind kind, const char *spec,
			     GError **error)
{
	g_autofree char *pattern = g_strdup(spec);
	Rule r = { kind, NULL, NULL, FALSE, NULL };
	g_strchomp(pattern);
	if (g_str_has_suffix(pattern, "(cut)")) {
		if (kind == PL_RULE_RENAME) {
			pl_expr_set_error(error, strlen(pattern) - 5,
					  "(cut) applies to allow and deny rules, not renames: "
					  "write REGEX=REPLACEMENT, e.g. '^std::(.*)=\\1'");
			return FALSE;
		}
		r.cut = TRUE;
		pattern[strlen(pattern) - 5] = 0;
		g_strchomp(pattern);
	}
	if (kind == PL_RULE_RENAME) {
		char *eq = strrchr(pattern, '=');
		if (!eq) {
			pl_expr_set_error(error, strlen(pattern),
					  "a rename needs '=' and the new name: write "
					  "REGEX=REPLACEMENT, e.g. '^std::(.*)=\\1'");
			return FALSE;
		}
		*eq = 0;
		r.replacement = g_strdup(eq + 1);
		if (!g_regex_check_replacement(r.replacement, NULL, NULL)) {
			pl_expr_set_error(error, (gsize)(eq + 1 - pattern),
					  "not a valid replacement: \\1 … \\9 name the regex's "
					  "groups, \\\\ is a backslash; e.g. '^std::(.*)=\\1'");
			g_free(r.replacement);
			return FALSE;
		}
	}
	r.re = pl_expr_regex_new(pattern, 0, error);
	if (!r.re) {
		g_free(r.replacement);
		return FALSE;
	}
	if (kind == PL_RULE_ALLOW_SYMBOL || kind == PL_RULE_ALLOW_MODULE)
		self->n_allow++;
	r.pattern = g_strdup(pattern);
	g_array_append_val(self->rules, r);
	return TRUE;
}

void pl_stack_filter_set_collapse_recursion(PlStackFilter *self, gboolean collapse)
{
	self->collapse_recursion = collapse;
}

PlTransforms *pl_stack_filter_get_transforms(PlStackFilter *self)
{
	return self->transforms;
}

gboolean pl_stack_filter_is_empty(const PlStackFilter *self)
{
	return !self || (self->rules->len == 0 && !self->collapse_recursion &&
			 pl_transforms_get_n(self->transforms) == 0);
}

/* The function a plain function id becomes after the renames (cached per
 * id: a profile has few functions compared with nodes). */
static guint32 renamed(const PlStackFilter *self, PlProfile *p, Names *nm, guint32 f,
		       GArray *cache)
{
	if (f == PL_NO_ID)
		return f;
	if (f < cache->len && g_array_index(cache, guint32, f) != PL_NO_ID)
		return g_array_index(cache, guint32, f);
	const PlFunction *fn = pl_profile_get_function(p, f);
	const char *module = fn->module;
	gboolean inlined = fn->inlined;
	g_autofree char *label = g_strdup(pl_profile_get_function_label(p, f));
	gboolean changed = FALSE;
	for (guint i = 0; i < self->rules->len; i++) {
		const Rule *r = &g_array_index(self->rules, Rule, i);
		if (r->kind != PL_RULE_RENAME)
			continue;
		GHashTable *lit = nm->literal->pdata[i];
		char *s;
		if (g_regex_match(r->re, label, 0, NULL))
			s = g_regex_replace(r->re, label, -1, 0, r->replacement, 0, NULL);
		else if (!changed && pl_function_names_match(nm->names, r->re, lit, f))
			s = g_strdup(r->replacement); /* 'helper (a.c)=x': that one, whole */
		else
			continue;
		if (s && strcmp(s, label) != 0) {
			g_free(label);
			label = s;
			changed = TRUE;
		} else {
			g_free(s);
		}
	}
	/* a renamed function is known by its new name alone: renaming two to
	 * one name merges them, wherever they are defined */
	guint32 out = changed ? pl_profile_function_intern(p, label, module, inlined, NULL, 0) : f;
	guint32 none = PL_NO_ID;
	while (cache->len <= f)
		g_array_append_val(cache, none);
	g_array_index(cache, guint32, f) = out;
	return out;
}

/* Which rule decides frame f: the first matching deny, else the first
 * matching allow, else none (NULL). */
static const Rule *match(const PlStackFilter *self, PlProfile *p, Names *nm, guint32 f)
{
	if (f == PL_NO_ID)
		return NULL;
	const PlFunction *fn = pl_profile_get_function(p, f);
	const Rule *allow = NULL;
	for (guint i = 0; i < self->rules->len; i++) {
		const Rule *r = &g_array_index(self->rules, Rule, i);
		gboolean yes;
		switch (r->kind) {
		case PL_RULE_ALLOW_SYMBOL:
		case PL_RULE_DENY_SYMBOL:
			/* a renamed function (interned after the names were
			 * made) is matched by its new label alone */
			yes = pl_function_names_match(nm->names, r->re, nm->literal->pdata[i], f);
			break;
		case PL_RULE_ALLOW_MODULE:
		case PL_RULE_DENY_MODULE:
			yes = g_regex_match(r->re, fn->module ? fn->module : "", 0, NULL);
			break;
		default:
			continue;
		}
		if (!yes)
			continue;
		if (r->kind == PL_RULE_DENY_SYMBOL || r->kind == PL_RULE_DENY_MODULE)
			return r;
		if (!allow)
			allow = r;
	}
	return allow;
}

enum { ST_KEEP = 1, ST_CUT = 2 };

static void free_set(gpointer set)
{
	if (set)
		g_hash_table_unref(set);
}

PlAggregate *pl_profile_aggregate_filtered(PlProfile *p, const PlFilter *filter,
					   const PlStackFilter *self)
{
	if (pl_stack_filter_is_empty(self))
		return pl_profile_aggregate(p, filter);
	/* Node ids grow away from the root (a node is interned after its
	 * parent), so one pass in id order sees every caller first.  New
	 * nodes appended during the pass are not visited: only the plain
	 * nodes present at the start are mapped. */
	guint n = pl_profile_get_n_nodes(p);
	guint32 *map = g_new(guint32, n);
	g_autofree guint8 *state = g_new0(guint8, n);
	g_autoptr(GArray) names = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_autoptr(PlFunctionNames) shown = self->rules->len ? pl_function_names_new(p, NULL) : NULL;
	Names nm = { shown, g_ptr_array_new_with_free_func(free_set) };
	for (guint i = 0; i < self->rules->len; i++) {
		const Rule *r = &g_array_index(self->rules, Rule, i);
		gboolean symbol = r->kind == PL_RULE_ALLOW_SYMBOL || r->kind == PL_RULE_DENY_SYMBOL ||
				  r->kind == PL_RULE_RENAME;
		g_ptr_array_add(nm.literal,
				symbol ? pl_function_names_literal_new(shown, r->pattern) : NULL);
	}
	map[0] = 0;
	state[0] = self->n_allow ? 0 : ST_KEEP;
	for (guint32 i = 1; i < n; i++) {
		const PlNode *nd = pl_profile_get_node(p, i);
		guint32 up = nd->parent < i ? nd->parent : 0;
		guint32 pm = map[up] == PL_NO_ID ? 0 : map[up];
		guint8 pst = state[up];
		if (pst & ST_CUT) {
			map[i] = pm;
			state[i] = pst;
			continue;
		}
		guint32 f = renamed(self, p, &nm, nd->func, names);
		const Rule *r = match(self, p, &nm, f);
		gboolean deny = r && (r->kind == PL_RULE_DENY_SYMBOL || r->kind == PL_RULE_DENY_MODULE);
		if (deny) {
			map[i] = pm;
			state[i] = pst | (r->cut ? ST_CUT : 0);
			continue;
		}
		guint32 parent_new = pm;
		guint8 st = pst;
		if (r) { /* an allow */
			if (r->cut && !(pst & ST_KEEP))
				parent_new = 0; /* the stack starts at the first match */
			st |= ST_KEEP;
		}
		/* recursion, direct or through other frames (A → B → A, as
		 * an inlined helper in between makes it): back to the
		 * outermost A already on the stack */
		guint32 again = PL_NO_ID;
		if (self->collapse_recursion)
			for (guint32 x = parent_new; x != 0 && x != PL_NO_ID;
			     x = pl_profile_get_node(p, x)->parent)
				if (pl_profile_get_node(p, x)->func == f)
					again = x;
		map[i] = again != PL_NO_ID ? again : pl_profile_node_intern(p, parent_new, f);
		state[i] = st;
	}
	/* leaves whose stack never met an allow are left out */
	for (guint32 i = 0; i < n; i++)
		if (!(state[i] & ST_KEEP))
			map[i] = PL_NO_ID;
	g_ptr_array_unref(nm.literal);
	map = pl_transforms_apply(self->transforms, p, map, n);
	return pl_profile_aggregate_mapped(p, filter, map);
}
