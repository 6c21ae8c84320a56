/* viewer-model-heatmap-test.c — the sub-second heatmap (pl-heatmap.h) on a
 * built capture whose sample times are known: every cell's count, the
 * thread and event filters, and cell ranges that add up to the aggregate
 * of the same time range (what the app's drag selects). */
#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-capture.h"
#include "pl-heatmap.h"
#include "pl-profile.h"
#include "pl-stack-filter.h"

#define PID 4242
#define T0 5000000000ull
#define MS 1000000ull

static PlProfile *profile;

/* Thread PID: samples at 0, 10, 25, 1005, 1990 and 2500 ms (event 0); the
 * first at T0 makes T0 the profile's first time.  Thread PID+1: 30 and
 * 1010 ms (event 0) and 40 ms (event 1). */
static PlProfile *need_profile(void)
{
	if (profile)
		return profile;
	char *why = NULL;
	static VtElf *e;
	if (!e)
		e = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(e, "%s", why);
	g_autofree char *path = vt_tmp("heatmap.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_event(c, 1, PL_ROLE_SAMPLED, "page-faults");
	vt_comm(c, PID, PID, "burn", T0);
	vt_comm(c, PID, PID + 1, "burn-1", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
	uint64_t chain[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), vt_sym(e, "main", 1) };
	const guint64 a[] = { 0, 10, 25, 1005, 1990, 2500 }, b[] = { 30, 1010 };
	for (guint i = 0; i < G_N_ELEMENTS(a); i++)
		vt_sample(c, 0, PID, PID, T0 + a[i] * MS, 1000, chain, 3);
	for (guint i = 0; i < G_N_ELEMENTS(b); i++)
		vt_sample(c, 0, PID, PID + 1, T0 + b[i] * MS, 1000, chain, 3);
	vt_sample(c, 1, PID, PID + 1, T0 + 40 * MS, 1, chain, 3);
	vt_capture_close(c);
	profile = vt_profile_load(path);
	return profile;
}

static void cells(void)
{
	PlProfile *p = need_profile();
	g_autoptr(PlHeatmap) m = pl_heatmap_new(p, 0, 0, 0);
	PL_CHECKF(m->n_cols == 3 && m->n_rows == 50 && m->row_ns == 20 * MS, "%u x %u, %" G_GUINT64_FORMAT,
		  m->n_cols, m->n_rows, m->row_ns);
	PL_CHECK(m->t0 == T0);
	/* 0, 10 ms → row 0 (and 30 of the other thread → row 1); 25 → row 1;
	 * 1005, 1010 → column 1 row 0; 1990 → column 1 row 49; 2500 → 2, 25 */
	PL_CHECKF(pl_heatmap_get(m, 0, 0) == 2 && pl_heatmap_get(m, 0, 1) == 2, "%" G_GUINT64_FORMAT
		  " %" G_GUINT64_FORMAT, pl_heatmap_get(m, 0, 0), pl_heatmap_get(m, 0, 1));
	PL_CHECK(pl_heatmap_get(m, 1, 0) == 2 && pl_heatmap_get(m, 1, 49) == 1);
	PL_CHECK(pl_heatmap_get(m, 2, 25) == 1 && pl_heatmap_get(m, 2, 24) == 0);
	PL_CHECK(m->total == 8 && m->max == 2);
	PL_CHECK(pl_heatmap_get(m, 3, 0) == 0 && pl_heatmap_get(m, 0, 50) == 0); /* outside */
}

static void filters(void)
{
	PlProfile *p = need_profile();
	g_autoptr(PlHeatmap) one = pl_heatmap_new(p, PID + 1, 0, 0);
	PL_CHECK(one->total == 2 && pl_heatmap_get(one, 0, 1) == 1 && pl_heatmap_get(one, 1, 0) == 1);
	g_autoptr(PlHeatmap) faults = pl_heatmap_new(p, 0, 1, 0);
	PL_CHECK(faults->total == 1 && pl_heatmap_get(faults, 0, 2) == 1);
	g_autoptr(PlHeatmap) all = pl_heatmap_new(p, 0, PL_NO_ID, 0);
	PL_CHECK(all->total == 9);
	/* 30 ms rows do not divide a second: 33 rows of 30.30 ms */
	g_autoptr(PlHeatmap) odd = pl_heatmap_new(p, 0, 0, 30 * MS);
	PL_CHECKF(odd->n_rows == 33 && odd->row_ns == 1000000000ull / 33, "%u rows of %" G_GUINT64_FORMAT,
		  odd->n_rows, odd->row_ns);
	/* 1990 ms: past 32 whole rows, in the last one */
	PL_CHECK(pl_heatmap_get(odd, 1, 32) == 1);
}

/* A drag's range holds exactly the cells' samples, as the aggregate of
 * that time range counts them. */
static void ranges(void)
{
	PlProfile *p = need_profile();
	g_autoptr(PlHeatmap) m = pl_heatmap_new(p, 0, 0, 0);
	guint64 t0, t1;
	/* from column 0 row 1 to column 1 row 0: 25, 30 and 1005, 1010 ms */
	pl_heatmap_range(m, 1, 0, 0, 1, &t0, &t1); /* backwards: same range */
	PL_CHECK(t0 == T0 + 20 * MS && t1 == T0 + 1020 * MS);
	PlFilter f = { 0, 0, t0, t1 };
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &f);
	PL_CHECKF(agg->all.samples == 4, "%" G_GUINT64_FORMAT, agg->all.samples);
	/* the last row runs to the next second: 1990 ms is in it */
	pl_heatmap_range(m, 1, 49, 1, 49, &t0, &t1);
	PL_CHECK(t0 == T0 + 1980 * MS && t1 == T0 + 2000 * MS);
	guint col, row;
	PL_CHECK(pl_heatmap_cell_at(m, T0 + 2500 * MS, &col, &row) && col == 2 && row == 25);
	PL_CHECK(!pl_heatmap_cell_at(m, T0 - 1, &col, &row));
}

/* Under call-tree transforms the map counts what the views show: a drop
 * leaves samples out, a merge keeps them all. */
static void transformed(void)
{
	PlProfile *p = need_profile();
	const char *kinds[] = { "drop", "merge" };
	const guint64 want[] = { 0, 8 };
	for (guint i = 0; i < 2; i++) {
		g_autoptr(PlStackFilter) sf = pl_stack_filter_new();
		PlTransformKind k;
		PL_CHECK(pl_transform_kind_from_name(kinds[i], &k));
		PL_CHECK(pl_transforms_push(pl_stack_filter_get_transforms(sf), k, "^hot_leaf$", NULL));
		PlFilter f = { 0, 0, 0, 0 };
		g_autoptr(PlAggregate) agg = pl_profile_aggregate_filtered(p, &f, sf);
		g_autoptr(PlHeatmap) m = pl_heatmap_new_mapped(p, 0, 0, 0, agg->node_map);
		PL_CHECKF(m->total == want[i] && m->total == agg->all.samples,
			  "%s: %" G_GUINT64_FORMAT " in the map, %" G_GUINT64_FORMAT " in the aggregate",
			  kinds[i], m->total, agg->all.samples);
	}
}

PL_TEST_MAIN(PL_CASE(cells), PL_CASE(filters), PL_CASE(ranges), PL_CASE(transformed))
