/* pl-function-names.c — labels that tell functions of one name apart, and
 * the functions a user names; see pl-function-names.h. */
#include "pl-function-names.h"

#include <string.h>

#include "pl-profile-private.h"

struct _PlFunctionNames {
	PlProfile *p;
	PlAggregate *agg;   /* NULL: the set is every function */
	guint n;            /* functions of the profile when made */
	GPtrArray *labels;  /* per function: the qualified label, NULL: the plain one */
	GHashTable *shared; /* labels another set qualifies (char* owned by strings) */
	GHashTable *ambiguous; /* labels this set qualifies by itself */
	GStringChunk *strings;
	gboolean dirty;     /* labels to be made again */
};

static gboolean in_set(PlFunctionNames *self, guint32 id)
{
	return id < self->n && (!self->agg || self->agg->func_total[id].samples);
}

/* ─── file tails ─────────────────────────────────────────────────────── */

/* Whether t is path or a tail of whole components of it. */
static gboolean is_tail(const char *path, const char *t)
{
	gsize lp = strlen(path), lt = strlen(t);
	return lt <= lp && !strcmp(path + lp - lt, t) && (lt == lp || path[lp - lt - 1] == '/');
}

/* The shortest tail of file (whole components) that is no tail of another
 * of files (distinct strings, NULL for unknown), else file itself; "?"
 * for an unknown file. */
static const char *file_qualifier(const char *file, GPtrArray *files)
{
	if (!file)
		return "?";
	const char *t = strrchr(file, '/');
	t = t && t[1] ? t + 1 : file;
	for (;;) {
		gboolean alone = TRUE;
		for (guint i = 0; i < files->len && alone; i++) {
			const char *o = files->pdata[i];
			if (o && strcmp(o, file) != 0 && is_tail(o, t))
				alone = FALSE;
		}
		if (alone || t == file)
			return t;
		/* one component more: back over the '/' before t to the one before it */
		const char *s = t - 1;
		while (s > file && s[-1] != '/')
			s--;
		t = s;
	}
}

static void add_file(GPtrArray *files, const char *file)
{
	for (guint i = 0; i < files->len; i++)
		if (!g_strcmp0(files->pdata[i], file))
			return;
	g_ptr_array_add(files, (gpointer)file);
}

static char *qualified(const char *label, const char *file, GPtrArray *files)
{
	return g_strdup_printf("%s (%s)", label, file_qualifier(file, files));
}

/* ─── labels ─────────────────────────────────────────────────────────── */

/* Groups the set's functions by plain label: label → GArray of ids. */
static GHashTable *by_label(PlFunctionNames *self)
{
	GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
					      (GDestroyNotify)g_array_unref);
	for (guint32 id = 0; id < self->n; id++) {
		if (!in_set(self, id))
			continue;
		const char *l = pl_profile_get_function_label(self->p, id);
		GArray *ids = g_hash_table_lookup(h, l);
		if (!ids) {
			ids = g_array_new(FALSE, FALSE, sizeof(guint32));
			g_hash_table_insert(h, (gpointer)l, ids);
		}
		g_array_append_val(ids, id);
	}
	return h;
}

static void make_labels(PlFunctionNames *self)
{
	if (!self->dirty)
		return;
	self->dirty = FALSE;
	for (guint i = 0; i < self->labels->len; i++)
		self->labels->pdata[i] = NULL;
	g_autoptr(GHashTable) groups = by_label(self);
	g_autoptr(GPtrArray) files = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, groups);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		const char *label = k;
		GArray *ids = v;
		g_ptr_array_set_size(files, 0);
		for (guint i = 0; i < ids->len; i++) {
			guint32 id = g_array_index(ids, guint32, i);
			add_file(files, pl_profile_get_function(self->p, id)->file);
		}
		if (files->len > 1 && !g_hash_table_contains(self->ambiguous, label))
			g_hash_table_add(self->ambiguous,
					 g_string_chunk_insert_const(self->strings, label));
		if (files->len < 2 && !g_hash_table_contains(self->shared, label))
			continue;
		for (guint i = 0; i < ids->len; i++) {
			guint32 id = g_array_index(ids, guint32, i);
			const char *file = pl_profile_get_function(self->p, id)->file;
			g_autofree char *q = qualified(label, file, files);
			self->labels->pdata[id] = g_string_chunk_insert_const(self->strings, q);
		}
	}
}

PlFunctionNames *pl_function_names_new(PlProfile *p, PlAggregate *agg)
{
	PlFunctionNames *self = g_new0(PlFunctionNames, 1);
	self->p = p;
	self->agg = agg;
	/* an aggregate counts the functions there were when it was made */
	self->n = agg ? agg->n_functions : pl_profile_get_n_functions(p);
	self->labels = g_ptr_array_new();
	g_ptr_array_set_size(self->labels, (gint)self->n);
	self->shared = g_hash_table_new(g_str_hash, g_str_equal);
	self->ambiguous = g_hash_table_new(g_str_hash, g_str_equal);
	self->strings = g_string_chunk_new(1024);
	self->dirty = TRUE;
	return self;
}

void pl_function_names_free(PlFunctionNames *self)
{
	if (!self)
		return;
	g_ptr_array_unref(self->labels);
	g_hash_table_destroy(self->shared);
	g_hash_table_destroy(self->ambiguous);
	g_string_chunk_free(self->strings);
	g_free(self);
}

void pl_function_names_share(PlFunctionNames *self, PlFunctionNames *other)
{
	make_labels(other);
	GHashTableIter it;
	gpointer k;
	g_hash_table_iter_init(&it, other->ambiguous);
	while (g_hash_table_iter_next(&it, &k, NULL))
		if (!g_hash_table_contains(self->shared, k)) {
			g_hash_table_add(self->shared,
					 g_string_chunk_insert_const(self->strings, k));
			self->dirty = TRUE;
		}
}

const char *pl_function_names_get(PlFunctionNames *self, guint32 func)
{
	make_labels(self);
	if (func < self->labels->len && self->labels->pdata[func])
		return self->labels->pdata[func];
	return pl_profile_get_function_label(self->p, func);
}

/* ─── finding what a user named ──────────────────────────────────────── */

static void match_free(gpointer data)
{
	PlFunctionMatch *m = data;
	g_array_unref(m->ids);
	g_free(m);
}

static int cmp_match(gconstpointer a, gconstpointer b)
{
	const PlFunctionMatch *x = *(PlFunctionMatch *const *)a, *y = *(PlFunctionMatch *const *)b;
	if (x->total.samples != y->total.samples)
		return x->total.samples > y->total.samples ? -1 : 1;
	return strcmp(x->spelling, y->spelling);
}

/* Counts of the functions of m together: self summed (a sample has one
 * leaf), total once per sample with any of them on its stack. */
static void match_counts(PlFunctionNames *self, PlFunctionMatch *m)
{
	PlAggregate *agg = self->agg;
	if (!agg)
		return;
	g_autofree guint8 *mine = g_new0(guint8, self->n);
	guint64 best = 0;
	m->hottest = g_array_index(m->ids, guint32, 0);
	for (guint i = 0; i < m->ids->len; i++) {
		guint32 id = g_array_index(m->ids, guint32, i);
		mine[id] = 1;
		m->self.samples += agg->func_self[id].samples;
		m->self.weight += agg->func_self[id].weight;
		if (agg->func_total[id].samples > best) {
			best = agg->func_total[id].samples;
			m->hottest = id;
		}
	}
	/* agg->self is per call-tree node: each sample once, at its leaf */
	for (guint32 n = 0; n < agg->n_nodes; n++) {
		if (!agg->self[n].samples)
			continue;
		for (guint32 up = n; up != 0 && up != PL_NO_ID;) {
			const PlNode *nd = pl_profile_get_node(self->p, up);
			if (nd->func < self->n && mine[nd->func]) {
				m->total.samples += agg->self[n].samples;
				m->total.weight += agg->self[n].weight;
				break;
			}
			up = nd->parent;
		}
	}
}

/* The set's functions named name (and, file_spec given, defined in a file
 * it names), one match per defining file. */
static GPtrArray *find_named(PlFunctionNames *self, const char *name, const char *file_spec)
{
	GPtrArray *out = g_ptr_array_new_with_free_func(match_free);
	g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_autoptr(GPtrArray) files = g_ptr_array_new();
	for (guint32 id = 0; id < self->n; id++) {
		const PlFunction *f = pl_profile_get_function(self->p, id);
		if (in_set(self, id) && f->name && !strcmp(f->name, name)) {
			g_array_append_val(ids, id);
			add_file(files, f->file);
		}
	}
	/* "x (util.c)": the files equal to it if any (a relative path can be
	 * a tail of another file), else those it is a tail of */
	gboolean exact = FALSE;
	for (guint i = 0; file_spec && i < files->len; i++)
		exact |= files->pdata[i] && !strcmp(files->pdata[i], file_spec);
	for (guint i = 0; i < files->len; i++) {
		const char *file = files->pdata[i];
		gboolean named = !file_spec ? TRUE
				 : !file   ? !strcmp(file_spec, "?")
				 : exact   ? !strcmp(file, file_spec)
					   : is_tail(file, file_spec);
		if (!named)
			continue;
		PlFunctionMatch *m = g_new0(PlFunctionMatch, 1);
		m->file = file;
		m->ids = g_array_new(FALSE, FALSE, sizeof(guint32));
		for (guint k = 0; k < ids->len; k++) {
			guint32 id = g_array_index(ids, guint32, k);
			if (!g_strcmp0(pl_profile_get_function(self->p, id)->file, file))
				g_array_append_val(m->ids, id);
		}
		g_autofree char *q = files->len > 1 ? qualified(name, file, files) : NULL;
		m->spelling = g_string_chunk_insert_const(self->strings, q ? q : name);
		match_counts(self, m);
		g_ptr_array_add(out, m);
	}
	g_ptr_array_sort(out, cmp_match);
	return out;
}

GPtrArray *pl_function_names_find(PlFunctionNames *self, const char *spec)
{
	GPtrArray *m = find_named(self, spec, NULL);
	gsize len = strlen(spec);
	const char *open = g_strrstr(spec, " (");
	if (m->len || !open || len < 4 || spec[len - 1] != ')' || open == spec)
		return m;
	/* "NAME (FILE)": FILE is what is between the last " (" and the end */
	g_ptr_array_unref(m);
	g_autofree char *name = g_strndup(spec, (gsize)(open - spec));
	g_autofree char *file = g_strndup(open + 2, len - (gsize)(open - spec) - 3);
	if (!*file)
		return g_ptr_array_new_with_free_func(match_free);
	return find_named(self, name, file);
}

char *pl_function_matches_dup_list(GPtrArray *matches)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; i < matches->len; i++) {
		const PlFunctionMatch *m = matches->pdata[i];
		g_string_append_printf(s, "%s'%s'", i ? ", " : "", m->spelling);
	}
	return g_string_free(s, FALSE);
}

/* ─── patterns over labels ───────────────────────────────────────────── */

gboolean pl_function_names_match(PlFunctionNames *self, const GRegex *re, GHashTable *literal,
				 guint32 func)
{
	if (literal && g_hash_table_contains(literal, GUINT_TO_POINTER(func)))
		return TRUE;
	const char *plain = pl_profile_get_function_label(self->p, func);
	if (g_regex_match(re, plain, 0, NULL))
		return TRUE;
	const char *shown = func < self->n ? pl_function_names_get(self, func) : plain;
	return shown != plain && strcmp(shown, plain) != 0 && g_regex_match(re, shown, 0, NULL);
}

GHashTable *pl_function_names_literal_new(PlFunctionNames *self, const char *spec)
{
	gsize len = spec ? strlen(spec) : 0;
	if (len < 4 || spec[len - 1] != ')' || !strstr(spec, " ("))
		return NULL;
	g_autoptr(GPtrArray) matches = pl_function_names_find(self, spec);
	if (!matches->len)
		return NULL;
	GHashTable *ids = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < matches->len; i++) {
		const PlFunctionMatch *m = matches->pdata[i];
		for (guint k = 0; k < m->ids->len; k++)
			g_hash_table_add(ids, GUINT_TO_POINTER(g_array_index(m->ids, guint32, k)));
	}
	return ids;
}

/* ─── the profile's own labels ───────────────────────────────────────── */

const char *pl_function_names_label(PlProfile *p, guint32 func)
{
	guint n = pl_profile_get_n_functions(p);
	if (func >= n)
		return pl_profile_get_function_label(p, func);
	if (!p->shown_names || p->shown_n != n || p->shown_short != p->short_names) {
		g_clear_pointer(&p->shown_names, pl_function_names_free);
		p->shown_names = pl_function_names_new(p, NULL);
		p->shown_names_free = (GDestroyNotify)pl_function_names_free;
		p->shown_n = n;
		p->shown_short = p->short_names;
		if (!p->shown_labels)
			p->shown_labels = g_ptr_array_new();
		g_ptr_array_set_size(p->shown_labels, 0);
		g_ptr_array_set_size(p->shown_labels, (gint)n);
	}
	/* in p's strings, not the names': a view keeps the pointer across a
	 * remake (a live profile gains functions while it is drawn) */
	gpointer *slot = &p->shown_labels->pdata[func];
	if (!*slot)
		*slot = g_string_chunk_insert_const(p->strings,
						    pl_function_names_get(p->shown_names, func));
	return *slot;
}
