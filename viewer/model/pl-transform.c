/* pl-transform.c — call-tree transforms; see pl-transform.h. */
#include "pl-transform.h"

#include <string.h>

#include "pl-expr.h"
#include "pl-function-names.h"
#include "pl-profile-private.h"

typedef struct {
	PlTransformKind kind;
	char *arg;    /* NULL: none */
	GRegex *re;   /* every kind with a pattern */
	char **path;  /* focus-subtree: the labels, outermost first */
	guint n_path;
} Transform;

struct _PlTransforms {
	GArray *items; /* Transform */
};

static const struct {
	const char *name;
	const char *label;
	gboolean arg_optional;
} kinds[PL_TX_N_KINDS] = {
	[PL_TX_MERGE] = { "merge", "Merge", FALSE },
	[PL_TX_MERGE_MODULE] = { "merge-module", "Merge module", FALSE },
	[PL_TX_FOCUS] = { "focus", "Focus", FALSE },
	[PL_TX_FOCUS_INVERTED] = { "focus-inverted", "Focus (inverted)", FALSE },
	[PL_TX_FOCUS_SUBTREE] = { "focus-subtree", "Focus on subtree", FALSE },
	[PL_TX_DROP] = { "drop", "Drop samples with", FALSE },
	[PL_TX_COLLAPSE_MODULE] = { "collapse-module", "Collapse module", FALSE },
	[PL_TX_COLLAPSE_RECURSION] = { "collapse-recursion", "Collapse recursion", TRUE },
	[PL_TX_COLLAPSE_DIRECT_RECURSION] = { "collapse-direct-recursion",
					      "Collapse direct recursion", TRUE },
};

const char *pl_transform_kind_name(PlTransformKind kind)
{
	return (guint)kind < PL_TX_N_KINDS ? kinds[kind].name : NULL;
}

gboolean pl_transform_kind_from_name(const char *name, PlTransformKind *kind)
{
	for (guint k = 0; k < PL_TX_N_KINDS; k++)
		if (!g_strcmp0(name, kinds[k].name)) {
			*kind = (PlTransformKind)k;
			return TRUE;
		}
	return FALSE;
}

gboolean pl_transform_kind_arg_optional(PlTransformKind kind)
{
	return (guint)kind < PL_TX_N_KINDS && kinds[kind].arg_optional;
}

/* ─── the stack ──────────────────────────────────────────────────────── */

static void transform_clear(Transform *t)
{
	g_free(t->arg);
	if (t->re)
		g_regex_unref(t->re);
	g_strfreev(t->path);
}

PlTransforms *pl_transforms_new(void)
{
	PlTransforms *self = g_new0(PlTransforms, 1);
	self->items = g_array_new(FALSE, TRUE, sizeof(Transform));
	g_array_set_clear_func(self->items, (GDestroyNotify)transform_clear);
	return self;
}

void pl_transforms_free(PlTransforms *self)
{
	if (!self)
		return;
	g_array_unref(self->items);
	g_free(self);
}

PlTransforms *pl_transforms_copy(const PlTransforms *self)
{
	PlTransforms *c = pl_transforms_new();
	for (guint i = 0; self && i < self->items->len; i++) {
		const Transform *t = &g_array_index(self->items, Transform, i);
		/* already validated: cannot fail */
		pl_transforms_push(c, t->kind, t->arg, NULL);
	}
	return c;
}

gboolean pl_transforms_push(PlTransforms *self, PlTransformKind kind, const char *arg,
			    GError **error)
{
	if ((guint)kind >= PL_TX_N_KINDS) {
		pl_expr_set_error(error, 0, "no such transform");
		return FALSE;
	}
	if (arg && !*arg && kinds[kind].arg_optional)
		arg = NULL;
	if (!arg && !kinds[kind].arg_optional) {
		pl_expr_set_error(error, 0, "%s needs an argument", kinds[kind].name);
		return FALSE;
	}
	if (arg && !*arg) {
		pl_expr_set_error(error, 0, "%s: the argument is empty", kinds[kind].name);
		return FALSE;
	}
	if (arg && strchr(arg, '\n')) {
		pl_expr_set_error(error, (gsize)(strchr(arg, '\n') - arg),
				  "%s: an argument cannot span lines", kinds[kind].name);
		return FALSE;
	}
	Transform t = { kind, g_strdup(arg), NULL, NULL, 0 };
	if (kind == PL_TX_FOCUS_SUBTREE) {
		t.path = g_strsplit(arg, ";", -1);
		t.n_path = g_strv_length(t.path);
		gsize at = 0;
		for (guint i = 0; i < t.n_path; i++) {
			gsize len = strlen(t.path[i]);
			if (!*g_strstrip(t.path[i])) {
				pl_expr_set_error(error, at,
						  "focus-subtree: no function here: write the call "
						  "path as 'outer;inner;…', e.g. 'main;run;work'");
				transform_clear(&t);
				return FALSE;
			}
			at += len + 1;
		}
	} else if (arg) {
		t.re = pl_expr_regex_new(arg, 0, error);
		if (!t.re) {
			transform_clear(&t);
			return FALSE;
		}
	}
	g_array_append_val(self->items, t);
	return TRUE;
}

void pl_transforms_remove(PlTransforms *self, guint i)
{
	if (i < self->items->len)
		g_array_remove_index(self->items, i);
}

guint pl_transforms_get_n(const PlTransforms *self)
{
	return self ? self->items->len : 0;
}

PlTransformKind pl_transforms_get_kind(const PlTransforms *self, guint i)
{
	return g_array_index(self->items, Transform, i).kind;
}

const char *pl_transforms_get_arg(const PlTransforms *self, guint i)
{
	return g_array_index(self->items, Transform, i).arg;
}

char *pl_transforms_dup_label(const PlTransforms *self, guint i)
{
	const Transform *t = &g_array_index(self->items, Transform, i);
	if (t->kind == PL_TX_FOCUS_SUBTREE) {
		g_autofree char *path = g_strjoinv(" → ", t->path);
		return g_strdup_printf("%s: %s", kinds[t->kind].label, path);
	}
	if (!t->arg)
		return g_strdup_printf("%s: every function", kinds[t->kind].label);
	return g_strdup_printf("%s: %s", kinds[t->kind].label, t->arg);
}

char *pl_transforms_serialize(const PlTransforms *self)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < pl_transforms_get_n(self); i++) {
		const Transform *t = &g_array_index(self->items, Transform, i);
		g_string_append(s, kinds[t->kind].name);
		if (t->arg)
			g_string_append_printf(s, "\t%s", t->arg);
		g_string_append_c(s, '\n');
	}
	return g_string_free(s, FALSE);
}

PlTransforms *pl_transforms_parse(const char *text, GError **error)
{
	g_autoptr(PlTransforms) self = pl_transforms_new();
	g_auto(GStrv) lines = g_strsplit(text ? text : "", "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		if (!*lines[i])
			continue;
		char *tab = strchr(lines[i], '\t');
		if (tab)
			*tab = 0;
		PlTransformKind kind;
		if (!pl_transform_kind_from_name(lines[i], &kind)) {
			g_set_error(error, G_REGEX_ERROR, G_REGEX_ERROR_COMPILE,
				    "unknown call-tree transform '%s'", lines[i]);
			return NULL;
		}
		if (!pl_transforms_push(self, kind, tab ? tab + 1 : NULL, error))
			return NULL;
	}
	return g_steal_pointer(&self);
}

/* ─── applying one transform ─────────────────────────────────────────── */

/* Per node of the tree a transform reads: where it goes and the state the
 * walk from the root carries down to its callees. */
enum {
	ST_DROPPED = 1u, /* the sample is left out */
	ST_WAITING = 2u, /* focus: the stack has not started yet */
};
#define ST_DEPTH_SHIFT 8 /* focus-subtree: how many path functions matched */
#define UNSET 0xfffffffeu

typedef struct {
	const Transform *t;
	PlProfile *p;
	guint32 *res; /* node → its node in the new tree (UNSET: not yet) */
	guint32 *st;
	guint n;      /* nodes when the pass began: res and st cover them */
	GArray *hit;  /* per function: 0 not tried, 1 no, 2 matches */
	PlFunctionNames *names; /* the labels the app shows (every function) */
	GHashTable *literal;    /* the functions arg names as 'NAME (FILE)', or NULL */
} Pass;

static gboolean func_matches(Pass *ps, guint32 f)
{
	if (f == PL_NO_ID)
		return FALSE;
	if (!ps->t->re)
		return TRUE; /* collapse-recursion without a pattern: every function */
	if (f >= ps->hit->len)
		g_array_set_size(ps->hit, f + 1);
	guint8 *h = &g_array_index(ps->hit, guint8, f);
	if (!*h) {
		gboolean yes;
		if (ps->t->kind == PL_TX_MERGE_MODULE || ps->t->kind == PL_TX_COLLAPSE_MODULE) {
			const char *m = pl_profile_get_function(ps->p, f)->module;
			yes = g_regex_match(ps->t->re, m ? m : "", 0, NULL);
		} else {
			yes = pl_function_names_match(ps->names, ps->t->re, ps->literal, f);
		}
		*h = yes ? 2 : 1;
	}
	return *h == 2;
}

static guint32 node_func(PlProfile *p, guint32 n)
{
	return n ? pl_profile_get_node(p, n)->func : PL_NO_ID;
}

/* Node x's result from its caller's (pr, pst). */
static void step(Pass *ps, guint32 x, guint32 pr, guint32 pst, guint32 *r, guint32 *s)
{
	PlProfile *p = ps->p;
	const Transform *t = ps->t;
	guint32 f = node_func(p, x);
	*s = pst;
	if (pst & ST_DROPPED) {
		*r = PL_NO_ID;
		return;
	}
	switch (t->kind) {
	case PL_TX_MERGE:
	case PL_TX_MERGE_MODULE:
		*r = func_matches(ps, f) ? pr : pl_profile_node_intern(p, pr, f);
		return;
	case PL_TX_DROP:
		if (func_matches(ps, f)) {
			*r = PL_NO_ID;
			*s = ST_DROPPED;
		} else {
			*r = pl_profile_node_intern(p, pr, f);
		}
		return;
	case PL_TX_FOCUS:
		if (!(pst & ST_WAITING))
			*r = pl_profile_node_intern(p, pr, f);
		else if (func_matches(ps, f))
			*r = pl_profile_node_intern(p, 0, f), *s = 0;
		else
			*r = 0;
		return;
	case PL_TX_FOCUS_INVERTED:
		/* the tree itself is unchanged: a stack just ends at the
		 * innermost match above (or at) its leaf */
		if (func_matches(ps, f))
			*r = x, *s = 0;
		else
			*r = pr;
		return;
	case PL_TX_FOCUS_SUBTREE: {
		if (!(pst & ST_WAITING)) {
			*r = pl_profile_node_intern(p, pr, f);
			return;
		}
		guint d = pst >> ST_DEPTH_SHIFT;
		/* the path names a function by its plain label or the one shown
		 * ("helper (a.c)", as the frame menu writes a shared name) */
		if (f == PL_NO_ID || (strcmp(pl_profile_get_function_label(p, f), t->path[d]) != 0 &&
				      strcmp(pl_function_names_get(ps->names, f), t->path[d]) != 0)) {
			*r = PL_NO_ID;
			*s = ST_DROPPED;
		} else if (d + 1 == t->n_path) {
			*r = pl_profile_node_intern(p, 0, f);
			*s = 0;
		} else {
			*r = 0;
			*s = ST_WAITING | ((d + 1) << ST_DEPTH_SHIFT);
		}
		return;
	}
	case PL_TX_COLLAPSE_MODULE:
		if (func_matches(ps, f)) {
			const char *m = pl_profile_get_function(p, f)->module;
			g_autofree char *name = g_strdup_printf("[%s]", m ? m : "?");
			guint32 one = pl_profile_function_intern(p, name, m, FALSE, NULL, 0);
			*r = node_func(p, pr) == one ? pr : pl_profile_node_intern(p, pr, one);
		} else {
			*r = pl_profile_node_intern(p, pr, f);
		}
		return;
	case PL_TX_COLLAPSE_RECURSION: {
		guint32 again = PL_NO_ID;
		if (func_matches(ps, f))
			for (guint32 y = pr; y != 0; y = pl_profile_get_node(p, y)->parent)
				if (pl_profile_get_node(p, y)->func == f)
					again = y; /* keep climbing: the outermost wins */
		*r = again != PL_NO_ID ? again : pl_profile_node_intern(p, pr, f);
		return;
	}
	case PL_TX_COLLAPSE_DIRECT_RECURSION:
		*r = func_matches(ps, f) && node_func(p, pr) == f ? pr
								   : pl_profile_node_intern(p, pr, f);
		return;
	case PL_TX_N_KINDS:
		break;
	}
	*r = pl_profile_node_intern(p, pr, f);
}

/* Where node x goes, computing its callers first (iteratively: stacks can
 * be thousands of frames deep). */
static guint32 resolve(Pass *ps, guint32 x, GArray *todo)
{
	g_array_set_size(todo, 0);
	for (guint32 y = x; ps->res[y] == UNSET; y = pl_profile_get_node(ps->p, y)->parent) {
		g_array_append_val(todo, y);
		if (pl_profile_get_node(ps->p, y)->parent >= y)
			break; /* interned after its parent: never, but never loop */
	}
	for (guint i = todo->len; i-- > 0;) {
		guint32 y = g_array_index(todo, guint32, i);
		guint32 up = pl_profile_get_node(ps->p, y)->parent;
		guint32 pr = up < y && ps->res[up] != UNSET ? ps->res[up] : 0;
		guint32 pst = up < y && ps->res[up] != UNSET ? ps->st[up] : 0;
		step(ps, y, pr, pst, &ps->res[y], &ps->st[y]);
	}
	return ps->res[x];
}

static void apply_one(const Transform *t, PlProfile *p, PlFunctionNames *names, guint32 *map,
		      guint n_map)
{
	Pass ps = { t, p, NULL, NULL, pl_profile_get_n_nodes(p), NULL, names, NULL };
	if (t->re && t->kind != PL_TX_MERGE_MODULE && t->kind != PL_TX_COLLAPSE_MODULE)
		ps.literal = pl_function_names_literal_new(names, t->arg);
	ps.res = g_new(guint32, ps.n);
	ps.st = g_new0(guint32, ps.n);
	ps.hit = g_array_new(FALSE, TRUE, sizeof(guint8));
	for (guint i = 0; i < ps.n; i++)
		ps.res[i] = UNSET;
	ps.res[0] = 0;
	ps.st[0] = t->kind == PL_TX_FOCUS || t->kind == PL_TX_FOCUS_INVERTED ||
				   t->kind == PL_TX_FOCUS_SUBTREE
			   ? ST_WAITING
			   : 0;
	g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(guint32));
	for (guint i = 0; i < n_map; i++) {
		guint32 x = map[i];
		if (x == PL_NO_ID || x >= ps.n)
			continue;
		guint32 r = resolve(&ps, x, todo);
		map[i] = (ps.st[x] & (ST_DROPPED | ST_WAITING)) || r == PL_NO_ID ? PL_NO_ID : r;
	}
	g_array_unref(ps.hit);
	if (ps.literal)
		g_hash_table_unref(ps.literal);
	g_free(ps.res);
	g_free(ps.st);
}

guint32 *pl_transforms_apply(const PlTransforms *self, PlProfile *p, guint32 *map, guint n_map)
{
	if (!map) {
		n_map = pl_profile_get_n_nodes(p);
		map = g_new(guint32, n_map);
		for (guint i = 0; i < n_map; i++)
			map[i] = i;
	}
	/* made once, before a transform interns functions ("[libc.so.6]"):
	 * those are shown by their plain label */
	g_autoptr(PlFunctionNames) names =
		pl_transforms_get_n(self) ? pl_function_names_new(p, NULL) : NULL;
	for (guint i = 0; i < pl_transforms_get_n(self); i++)
		apply_one(&g_array_index(self->items, Transform, i), p, names, map, n_map);
	return map;
}
