/* pl-inverted.c — the bottom-up call tree; see pl-inverted.h. */
#include "pl-inverted.h"

struct _PlInverted {
	GArray *nodes;     /* PlInvertedNode */
	GHashTable *index; /* (parent << 32 | func) → node id + 1 */
};

static guint32 intern(PlInverted *self, guint32 parent, guint32 func)
{
	guint64 key = (guint64)parent << 32 | func;
	gpointer v;
	if (g_hash_table_lookup_extended(self->index, &key, NULL, &v))
		return GPOINTER_TO_UINT(v) - 1;
	PlInvertedNode n = { func, parent, { 0, 0 } };
	guint32 id = self->nodes->len;
	g_array_append_val(self->nodes, n);
	guint64 *k = g_new(guint64, 1);
	*k = key;
	g_hash_table_insert(self->index, k, GUINT_TO_POINTER(id + 1));
	return id;
}

PlInverted *pl_inverted_new(PlAggregate *agg)
{
	PlInverted *self = g_new0(PlInverted, 1);
	self->nodes = g_array_new(FALSE, FALSE, sizeof(PlInvertedNode));
	self->index = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
	PlInvertedNode root = { PL_NO_ID, PL_NO_ID, agg->all };
	g_array_append_val(self->nodes, root);
	PlProfile *p = agg->profile;
	/* every call-tree node where samples ended, walked up to the root:
	 * the path, read leaf first, is the inverted tree's path */
	for (guint32 n = 1; n < agg->n_nodes; n++) {
		const PlCount c = agg->self[n];
		if (!c.samples)
			continue;
		guint32 cur = 0;
		for (guint32 y = n; y != 0 && y != PL_NO_ID; y = pl_profile_get_node(p, y)->parent) {
			cur = intern(self, cur, pl_profile_get_node(p, y)->func);
			PlInvertedNode *in = &g_array_index(self->nodes, PlInvertedNode, cur);
			in->count.samples += c.samples;
			in->count.weight += c.weight;
		}
	}
	return self;
}

void pl_inverted_free(PlInverted *self)
{
	if (!self)
		return;
	g_array_unref(self->nodes);
	g_hash_table_destroy(self->index);
	g_free(self);
}

guint pl_inverted_get_n_nodes(const PlInverted *self)
{
	return self->nodes->len;
}

const PlInvertedNode *pl_inverted_get_node(const PlInverted *self, guint32 id)
{
	return id < self->nodes->len ? &g_array_index(self->nodes, PlInvertedNode, id) : NULL;
}

static gint heavier_first(gconstpointer a, gconstpointer b, gpointer data)
{
	const PlInverted *self = data;
	guint32 x = *(const guint32 *)a, y = *(const guint32 *)b;
	const PlInvertedNode *nx = pl_inverted_get_node(self, x);
	const PlInvertedNode *ny = pl_inverted_get_node(self, y);
	if (nx->count.weight != ny->count.weight)
		return nx->count.weight > ny->count.weight ? -1 : 1;
	return nx->func < ny->func ? -1 : nx->func > ny->func;
}

GArray *pl_inverted_dup_children(const PlInverted *self, guint32 id)
{
	GArray *out = g_array_new(FALSE, FALSE, sizeof(guint32));
	/* a linear scan: the CLI and the app ask for the few nodes they show */
	for (guint32 i = 1; i < self->nodes->len; i++)
		if (g_array_index(self->nodes, PlInvertedNode, i).parent == id)
			g_array_append_val(out, i);
	g_array_sort_with_data(out, heavier_first, (gpointer)self);
	return out;
}
