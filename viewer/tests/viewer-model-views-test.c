/* viewer-model-views-test.c — the model behind the GTK views added for
 * issue #5: health reports and losses over time, and per-instruction
 * counts placed on the real objdump listing of the real burn ELF (from a
 * built capture with known addresses, and from a live recording by the
 * real agent). */
#include "viewer-test-util.h"
#include "viewer-test-profile.h"

#include "pl-capture.h"
#include "pl-diff.h"
#include "pl-disasm.h"
#include "pl-profile.h"

#define PID 4242
#define TID_MAIN 4242
#define T0 1000000000ull

static PlProfile *load(const char *path)
{
	return vt_profile_load(path);
}

/* Opened once and kept (reachable: not a leak for ASan) */
static VtElf *burn_elf;
static VtElf *need_burn(void)
{
	char *why = NULL;
	if (!burn_elf)
		burn_elf = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(burn_elf, "%s", why);
	return burn_elf;
}

static void add(VtCapture *c, const struct pl_msg *m)
{
	PL_CHECK(vt_capture_add(c, m) == 0);
}

/* Three HEALTH reports, two LOST records and a throttle/unthrottle pair:
 * every report kept in order with its fields, every loss with its time. */
static void health_series(void)
{
	g_autofree char *path = vt_tmp("health.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	for (guint i = 0; i < 3; i++) {
		struct pl_msg m = { .type = PL_MSG_HEALTH };
		m.u.health.time = T0 + i * 1000000000ull;
		m.u.health.ncpus = 2;
		m.u.health.cpu_busy_permille = 100 * (i + 1);
		m.u.health.mem_total_kb = 1 << 20;
		m.u.health.mem_available_kb = 500000 - i * 1000;
		m.u.health.agent_rss_kb = 4000 + i;
		m.u.health.bytes_sent = 1000 * i;
		add(c, &m);
	}
	struct pl_msg lost = { .type = PL_MSG_LOST };
	lost.u.lost = (struct pl_msg_lost){ PL_LOST_RING, 1, T0 + 500, 7 };
	add(c, &lost);
	lost.u.lost = (struct pl_msg_lost){ PL_LOST_BACKPRESSURE, 0, T0 + 600, 3 };
	add(c, &lost);
	struct pl_msg th = { .type = PL_MSG_THROTTLE };
	th.u.throttle = (struct pl_msg_throttle){ T0 + 700, 0, 0 };
	add(c, &th);
	th.u.throttle = (struct pl_msg_throttle){ T0 + 800, 0, 1 };
	add(c, &th);
	vt_capture_close(c);

	g_autoptr(PlProfile) p = load(path);
	guint n = 0;
	const struct pl_msg_health *h = pl_profile_get_health_series(p, &n);
	PL_CHECKF(n == 3, "%u reports", n);
	for (guint i = 0; i < 3; i++) {
		PL_CHECK(h[i].time == T0 + i * 1000000000ull);
		PL_CHECK(h[i].cpu_busy_permille == 100 * (i + 1));
		PL_CHECK(h[i].mem_available_kb == 500000 - i * 1000);
		PL_CHECK(h[i].agent_rss_kb == 4000 + i);
	}
	/* the last one is still the stats' */
	const PlProfileStats *st = pl_profile_get_stats(p);
	PL_CHECK(st->have_health && st->health.cpu_busy_permille == 300);
	const PlLossMark *lm = pl_profile_get_loss_marks(p, &n);
	PL_CHECKF(n == 3, "%u marks", n);
	PL_CHECK(lm[0].time == T0 + 500 && lm[0].kind == PL_LOST_RING && lm[0].count == 7);
	PL_CHECK(lm[1].time == T0 + 600 && lm[1].kind == PL_LOST_BACKPRESSURE && lm[1].count == 3);
	PL_CHECK(lm[2].time == T0 + 700 && lm[2].kind == PL_LOSS_THROTTLE && lm[2].count == 1);
	PL_CHECK(st->throttled == 1 && st->unthrottled == 1);
}

static gboolean have_objdump(void)
{
	g_autofree char *o = g_find_program_in_path("objdump");
	return o != NULL;
}

/* Samples at hot_leaf's entry (3) and at compute_mid (1, another
 * function): the listing is hot_leaf's, the entry instruction holds the 3
 * samples and is the hot one, nothing is unplaced, and objdump -l's source
 * markers are kept. */
static void annotate_exact(void)
{
	VtElf *e = need_burn();
	PL_CHECKF(have_objdump(), "objdump not installed (binutils)");
	g_autofree char *path = vt_tmp("annotate.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, TID_MAIN, "burn", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
	uint64_t hot[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), vt_sym(e, "compute_mid", 1) };
	uint64_t mid[] = { T_CTX_USER, vt_sym(e, "compute_outer", 0) };
	for (guint i = 0; i < 3; i++)
		vt_sample(c, 0, PID, TID_MAIN, T0 + 100 + i, 1000, hot, G_N_ELEMENTS(hot));
	vt_sample(c, 0, PID, TID_MAIN, T0 + 200, 1000, mid, G_N_ELEMENTS(mid));
	vt_capture_close(c);

	g_autoptr(PlProfile) p = load(path);
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, NULL);
	guint32 f = pl_profile_find_function(p, "hot_leaf");
	PL_CHECK(f != PL_NO_ID);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlAnnotation) a = pl_disasm_annotate(p, agg, f, &error);
	PL_CHECKF(a, "%s", error->message);
	PL_CHECK(!g_strcmp0(a->symbol, "hot_leaf"));
	PL_CHECK(!g_strcmp0(a->module, "burn"));
	PL_CHECK(a->hot != G_MAXUINT);
	const PlDisasmLine *hl = &g_array_index(a->lines, PlDisasmLine, a->hot);
	PL_CHECKF(hl->is_insn && hl->addr == vt_sym(e, "hot_leaf", 0) - e->base,
		  "hot %#" G_GINT64_MODIFIER "x: %s", hl->addr, hl->text);
	PL_CHECK(a->self[a->hot].samples == 3 && a->self[a->hot].weight == 3000);
	PL_CHECK(a->all.samples == 4 && a->unplaced.samples == 0);
	guint64 sum = 0;
	gboolean marker = FALSE;
	for (guint i = 0; i < a->lines->len; i++) {
		sum += a->self[i].samples;
		marker |= strstr(g_array_index(a->lines, PlDisasmLine, i).text, "burn.c:") != NULL;
	}
	PL_CHECK(sum == 3);
	PL_CHECK(marker);
	/* the listing stops at the function: no other section's banner */
	const PlDisasmLine *last = &g_array_index(a->lines, PlDisasmLine, a->lines->len - 1);
	PL_CHECKF(last->is_insn, "last line: %s", last->text);

	/* recounting (live refresh) without objdump: the same figures; an
	 * aggregate where the function has no samples asks for a new listing */
	guint64 hot_w = a->self[a->hot].weight;
	PL_CHECK(pl_annotation_recount(a, agg, f));
	PL_CHECK(a->self[a->hot].weight == hot_w && a->unplaced.samples == 0);
	g_autoptr(PlAggregate) none_agg = pl_profile_aggregate(p, &(PlFilter){ 0, PL_NO_ID, 1, 2 });
	PL_CHECK(!pl_annotation_recount(a, none_agg, f));
	PL_CHECK(a->self[a->hot].weight == hot_w);

	/* a function without samples says so */
	g_autoptr(GError) e2 = NULL;
	guint32 none = pl_profile_find_function(p, "compute_outer");
	g_autoptr(PlAggregate) empty = pl_profile_aggregate(p, &(PlFilter){ 0, PL_NO_ID, 1, 2 });
	PL_CHECK(!pl_disasm_annotate(p, empty, none, &e2) && e2 && strstr(e2->message, "no samples"));
}

/* The real agent records the real burn: HEALTH arrives every second, and
 * hot_leaf's hottest instruction lies inside hot_leaf by nm. */
static void live_burn(void)
{
	VtElf *e = need_burn();
	PL_CHECKF(have_objdump(), "objdump not installed (binutils)");
	pl_need_kernel_perf();
	g_autofree char *agent = vt_agent();
	g_autofree char *path = vt_tmp("live.plens");
	char *argv[] = { agent, (char *)"--output", path, (char *)"--frequency", (char *)"499",
			 (char *)"--duration", (char *)"3", (char *)"--", e->path, (char *)"3",
			 (char *)"2", NULL };
	g_autofree char *err = NULL;
	gint status = -1;
	if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
			  &status, NULL) ||
	    !g_spawn_check_wait_status(status, NULL))
		PL_CHECKF(0, "the kernel allows perf events, but %s could not record: %.300s", agent,
			  err ? err : "?");
	g_autoptr(PlProfile) p = load(path);
	guint n = 0;
	const struct pl_msg_health *h = pl_profile_get_health_series(p, &n);
	PL_CHECKF(n >= 2, "%u health reports in 3 s", n);
	PL_CHECK(h[n - 1].time > h[0].time && h[n - 1].mem_total_kb > 0 && h[n - 1].agent_rss_kb > 0);
	g_autoptr(PlAggregate) agg = pl_profile_aggregate(p, &(PlFilter){ 0, pl_profile_get_main_event(p), 0, 0 });
	guint32 f = pl_profile_find_function(p, "hot_leaf");
	PL_CHECK(f != PL_NO_ID);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlAnnotation) a = pl_disasm_annotate(p, agg, f, &error);
	PL_CHECKF(a, "%s", error->message);
	PL_CHECK(a->hot != G_MAXUINT);
	guint64 addr = g_array_index(a->lines, PlDisasmLine, a->hot).addr;
	guint64 lo = vt_sym(e, "hot_leaf", 0) - e->base;
	/* hot_leaf is followed by the next function in nm order; 0x100 is generous */
	PL_CHECKF(addr >= lo && addr < lo + 0x100, "hot %#" G_GINT64_MODIFIER "x, hot_leaf %#" G_GINT64_MODIFIER "x",
		  addr, lo);
	/* most of hot_leaf's self samples are on its instructions */
	guint64 self = 0;
	for (guint i = 0; i < a->lines->len; i++)
		self += a->self[i].samples;
	PL_CHECKF(self > 0 && a->unplaced.samples * 100 <= self, "%" G_GUINT64_FORMAT " placed, %" G_GUINT64_FORMAT " unplaced",
		  self, a->unplaced.samples);
	/* a recording against itself: nothing changed, and the inline frame
	 * keeps its mark (the diff view labels it) */
	g_autoptr(PlDiff) d = pl_diff_new(agg, agg);
	gboolean inl = FALSE;
	for (guint i = 0; i < d->functions->len; i++) {
		const PlDiffFunction *df = &g_array_index(d->functions, PlDiffFunction, i);
		PL_CHECK(df->self_a == df->self_b && df->total_a == df->total_b);
		if (!strcmp(df->name, "inlined_mix"))
			inl = df->inlined;
		if (!strcmp(df->name, "hot_leaf"))
			PL_CHECK(!df->inlined);
	}
	PL_CHECKF(inl, "inlined_mix not marked inlined");
	printf("# live: %u health reports, hot_leaf's hottest instruction %#" G_GINT64_MODIFIER
	       "x holds %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " self samples\n",
	       n, addr, a->self[a->hot].samples, self);
}

/* Two built captures with known shares: hot_leaf 3 of 4 samples in A, 1
 * of 4 in B; compute_mid the reverse.  The diff gives exactly ±0.5. */
static char *write_shares(VtElf *e, const char *name, guint hot, guint mid)
{
	char *path = vt_tmp(name);
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, TID_MAIN, "burn", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
	uint64_t h[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), vt_sym(e, "compute_outer", 1) };
	uint64_t m[] = { T_CTX_USER, vt_sym(e, "compute_outer", 0) };
	for (guint i = 0; i < hot; i++)
		vt_sample(c, 0, PID, TID_MAIN, T0 + 10 + i, 1000, h, G_N_ELEMENTS(h));
	for (guint i = 0; i < mid; i++)
		vt_sample(c, 0, PID, TID_MAIN, T0 + 100 + i, 1000, m, G_N_ELEMENTS(m));
	vt_capture_close(c);
	return path;
}

static void diff_exact(void)
{
	VtElf *e = need_burn();
	g_autofree char *pa = write_shares(e, "a.plens", 3, 1);
	g_autofree char *pb = write_shares(e, "b.plens", 1, 3);
	g_autoptr(PlProfile) a = load(pa);
	g_autoptr(PlProfile) b = load(pb);
	g_autoptr(PlAggregate) ga = pl_profile_aggregate(a, NULL);
	g_autoptr(PlAggregate) gb = pl_profile_aggregate(b, NULL);
	g_autoptr(PlDiff) d = pl_diff_new(ga, gb);
	PL_CHECK(d->functions->len >= 2);
	const PlDiffFunction *f0 = &g_array_index(d->functions, PlDiffFunction, 0);
	const PlDiffFunction *f1 = &g_array_index(d->functions, PlDiffFunction, 1);
	/* equal |Δ self| (0.5): then the larger |Δ total| first — hot_leaf's
	 * (0.5) before compute_outer's (0: it is on every stack) */
	PL_CHECKF(!strcmp(f0->name, "hot_leaf") && !strcmp(f1->name, "compute_outer"), "%s, %s",
		  f0->name, f1->name);
	PL_CHECK(f0->self_a == 0.75 && f0->self_b == 0.25 && !f0->inlined);
	PL_CHECK(f0->total_a == 0.75 && f0->total_b == 0.25);
	PL_CHECK(f1->self_a == 0.25 && f1->self_b == 0.75);
	PL_CHECK(f1->total_a == 1.0 && f1->total_b == 1.0);
}

PL_TEST_MAIN(PL_CASE(health_series), PL_CASE(annotate_exact), PL_CASE(diff_exact),
	     PL_CASE(live_burn))
