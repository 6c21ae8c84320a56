/* pl-heatmap.c — the sub-second heatmap; see pl-heatmap.h. */
#include "pl-heatmap.h"

#define SECOND 1000000000ull

PlHeatmap *pl_heatmap_new(PlProfile *p, guint32 tid, guint32 event, guint64 row_ns)
{
	return pl_heatmap_new_mapped(p, tid, event, row_ns, NULL);
}

PlHeatmap *pl_heatmap_new_mapped(PlProfile *p, guint32 tid, guint32 event, guint64 row_ns,
				 const guint32 *node_map)
{
	PlHeatmap *self = g_new0(PlHeatmap, 1);
	if (!row_ns)
		row_ns = PL_HEATMAP_DEFAULT_ROW_NS;
	row_ns = CLAMP(row_ns, 1000000ull, SECOND);
	/* whole rows per second: 20 ms gives 50, 30 ms would not divide */
	self->n_rows = (guint)(SECOND / row_ns);
	self->row_ns = SECOND / self->n_rows;
	const PlProfileStats *st = pl_profile_get_stats(p);
	self->t0 = st->first_time;
	guint64 span = st->last_time > st->first_time ? st->last_time - st->first_time : 0;
	self->n_cols = (guint)(span / SECOND) + 1;
	self->counts = g_new0(guint64, (gsize)self->n_cols * self->n_rows);
	guint n;
	const PlSample *s = pl_profile_get_samples(p, &n);
	const PlSampleCtx *s_cx = pl_profile_get_sample_ctx(p);
	for (guint i = 0; i < n; i++) {
		if (tid && pl_sample_tid(s_cx, &s[i]) != tid)
			continue;
		if (event != PL_NO_ID && pl_profile_get_stack_event(p, s[i].stack) != event)
			continue;
		if (node_map && node_map[pl_profile_get_stack_node(p, s[i].stack)] == PL_NO_ID)
			continue; /* a transform dropped it */
		guint col, row;
		if (!pl_heatmap_cell_at(self, s[i].time, &col, &row))
			continue;
		guint64 *c = &self->counts[(gsize)col * self->n_rows + row];
		(*c)++;
		self->total++;
		if (*c > self->max)
			self->max = *c;
	}
	return self;
}

void pl_heatmap_free(PlHeatmap *self)
{
	if (!self)
		return;
	g_free(self->counts);
	g_free(self);
}

guint64 pl_heatmap_get(const PlHeatmap *self, guint col, guint row)
{
	if (col >= self->n_cols || row >= self->n_rows)
		return 0;
	return self->counts[(gsize)col * self->n_rows + row];
}

gboolean pl_heatmap_cell_at(const PlHeatmap *self, guint64 t, guint *col, guint *row)
{
	if (t < self->t0)
		return FALSE;
	guint64 d = t - self->t0;
	if (d / SECOND >= self->n_cols)
		return FALSE;
	*col = (guint)(d / SECOND);
	*row = (guint)((d % SECOND) / self->row_ns);
	if (*row >= self->n_rows)
		*row = self->n_rows - 1;
	return TRUE;
}

void pl_heatmap_range(const PlHeatmap *self, guint col_a, guint row_a, guint col_b, guint row_b,
		      guint64 *t0, guint64 *t1)
{
	guint64 a = (guint64)col_a * self->n_rows + row_a;
	guint64 b = (guint64)col_b * self->n_rows + row_b;
	if (b < a) {
		guint64 x = a;
		a = b;
		b = x;
	}
	/* cell k starts at second k / n_rows plus (k % n_rows) rows */
	*t0 = self->t0 + (a / self->n_rows) * SECOND + (a % self->n_rows) * self->row_ns;
	/* the last row runs to the next second (rows may not fill it exactly) */
	*t1 = b % self->n_rows == self->n_rows - 1
		      ? self->t0 + (b / self->n_rows + 1) * SECOND
		      : self->t0 + (b / self->n_rows) * SECOND + (b % self->n_rows + 1) * self->row_ns;
}
