/* pl-id-table.c — a small open-addressing table: (u64, u64) → u32 ids;
 * see pl-id-table.h. */
#include "pl-id-table.h"

#include <string.h>

static guint64 mix64(guint64 a, guint64 b)
{
	guint64 h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

void pl_id_table_init(PlIdTable *t)
{
	t->cap = 1024;
	t->n = 0;
	t->ka = g_new(guint64, t->cap);
	t->kb = g_new(guint64, t->cap);
	t->val = g_new(guint32, t->cap);
	memset(t->val, 0xff, t->cap * sizeof(guint32));
}

void pl_id_table_free(PlIdTable *t)
{
	g_free(t->ka);
	g_free(t->kb);
	g_free(t->val);
}

static guint32 *id_table_slot(PlIdTable *t, guint64 a, guint64 b)
{
	gsize i = mix64(a, b) & (t->cap - 1);
	while (t->val[i] != PL_NO_ID && (t->ka[i] != a || t->kb[i] != b))
		i = (i + 1) & (t->cap - 1);
	return &t->val[i];
}

static void id_table_grow(PlIdTable *t)
{
	PlIdTable o = *t;
	t->cap *= 2;
	t->ka = g_new(guint64, t->cap);
	t->kb = g_new(guint64, t->cap);
	t->val = g_new(guint32, t->cap);
	memset(t->val, 0xff, t->cap * sizeof(guint32));
	for (gsize i = 0; i < o.cap; i++)
		if (o.val[i] != PL_NO_ID) {
			guint32 *s = id_table_slot(t, o.ka[i], o.kb[i]);
			gsize j = (gsize)(s - t->val);
			t->ka[j] = o.ka[i];
			t->kb[j] = o.kb[i];
			*s = o.val[i];
		}
	pl_id_table_free(&o);
}

guint32 pl_id_table_lookup(PlIdTable *t, guint64 a, guint64 b)
{
	return *id_table_slot(t, a, b);
}

void pl_id_table_insert(PlIdTable *t, guint64 a, guint64 b, guint32 v)
{
	if ((t->n + 1) * 4 > t->cap * 3)
		id_table_grow(t);
	guint32 *s = id_table_slot(t, a, b);
	gsize j = (gsize)(s - t->val);
	if (*s == PL_NO_ID)
		t->n++;
	t->ka[j] = a;
	t->kb[j] = b;
	*s = v;
}
