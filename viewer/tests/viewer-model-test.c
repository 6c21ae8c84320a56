/* viewer-model-test.c — the session model's arithmetic, checked exactly on
 * captures built with the real encoder, over the real burn ELF (addresses
 * from nm), symbolized by the real viewer/symbols (libdwfl). */
#include "viewer-test-util.h"

#include "pl-capture.h"
#include "pl-export.h"
#include "pl-profile.h"

#include <unistd.h>

#define PID 4242
#define TID_MAIN 4242
#define TID_W1 4243
#define T0 1000000000ull

static VtElf *burn;

static VtElf *need_burn(void)
{
	char *why = NULL;
	if (!burn)
		burn = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(burn, "%s", why);
	return burn;
}

static void preamble(VtCapture *c, VtElf *e)
{
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, TID_MAIN, "burn", T0);
	vt_comm(c, PID, TID_W1, "burn-1", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
}

static PlProfile *load(const char *path, PlCaptureInfo *info)
{
	PlProfile *p = pl_profile_new(NULL);
	GError *error = NULL;
	gboolean ok = pl_capture_load(path, pl_profile_ingest, p, info, &error);
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	pl_profile_finish(p);
	return p;
}

static guint32 func(PlProfile *p, const char *name)
{
	guint32 f = pl_profile_find_function(p, name);
	PL_CHECKF(f != PL_NO_ID, "no function %s", name);
	return f;
}

/* Three fp samples, known stacks:
 *   S1, S2 (worker, period 1000): thread_main → worker_loop → compute_outer
 *            → compute_mid → hot_leaf
 *   S3 (main thread, period 2000): main → worker_loop → compute_outer →
 *            compute_mid
 * IPs are function entries; return addresses are entry+1, so pc-1 lands on
 * the caller's first byte (no inline ranges there). */
static char *write_three(VtElf *e)
{
	char *path = vt_tmp("three.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	preamble(c, e);
	uint64_t s1[] = { T_CTX_USER,
			  vt_sym(e, "hot_leaf", 0),
			  vt_sym(e, "compute_mid", 1),
			  vt_sym(e, "compute_outer", 1),
			  vt_sym(e, "worker_loop", 1),
			  vt_sym(e, "thread_main", 1) };
	uint64_t s3[] = { T_CTX_USER, vt_sym(e, "compute_mid", 0), vt_sym(e, "compute_outer", 1),
			  vt_sym(e, "worker_loop", 1), vt_sym(e, "main", 1) };
	vt_sample(c, 0, PID, TID_W1, T0 + 100, 1000, s1, G_N_ELEMENTS(s1));
	vt_capture_flush(c);
	vt_sample(c, 0, PID, TID_W1, T0 + 200, 1000, s1, G_N_ELEMENTS(s1));
	vt_sample(c, 0, PID, TID_MAIN, T0 + 300, 2000, s3, G_N_ELEMENTS(s3));
	vt_capture_close(c);
	return path;
}

static void aggregation_exact(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = write_three(e);
	PlCaptureInfo info;
	g_autoptr(PlProfile) p = load(path, &info);
	PL_CHECK(info.blocks == 2 && info.ignored_bytes == 0);
	const PlProfileStats *st = pl_profile_get_stats(p);
	PL_CHECK(st->samples == 3);

	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	PL_CHECK(a->all.samples == 3 && a->all.weight == 4000);
	guint32 hot = func(p, "hot_leaf"), mid = func(p, "compute_mid"),
		outer = func(p, "compute_outer"), loop = func(p, "worker_loop"),
		tmain = func(p, "thread_main"), mmain = func(p, "main");
	PL_CHECK(a->func_self[hot].weight == 2000 && a->func_self[hot].samples == 2);
	PL_CHECK(a->func_total[hot].weight == 2000);
	PL_CHECK(a->func_self[mid].weight == 2000 && a->func_self[mid].samples == 1);
	PL_CHECK(a->func_total[mid].weight == 4000);
	PL_CHECK(a->func_self[outer].weight == 0 && a->func_total[outer].weight == 4000);
	PL_CHECK(a->func_total[loop].weight == 4000);
	PL_CHECK(a->func_total[tmain].weight == 2000 && a->func_total[mmain].weight == 2000);

	/* the tree: two roots, each a chain; the hot_leaf node holds S1+S2 */
	const PlNode *root = pl_profile_get_node(p, 0);
	guint roots = 0;
	for (guint32 n = root->first_child; n != PL_NO_ID; n = pl_profile_get_node(p, n)->next_sibling)
		roots++;
	PL_CHECK(roots == 2);
	guint leaves = 0;
	for (guint32 n = 1; n < a->n_nodes; n++)
		if (a->self[n].samples) {
			leaves++;
			const PlNode *nd = pl_profile_get_node(p, n);
			PL_CHECK(nd->func == hot || nd->func == mid);
			PL_CHECK(a->self[n].weight == 2000);
		}
	PL_CHECK(leaves == 2);
	PL_CHECK(a->total[0].weight == 4000);

	/* callers / callees */
	g_autoptr(GArray) up = pl_aggregate_callers(a, mid);
	PL_CHECK(up->len == 1);
	PL_CHECK(g_array_index(up, PlRow, 0).id == outer);
	PL_CHECK(g_array_index(up, PlRow, 0).total.weight == 4000);
	g_autoptr(GArray) down = pl_aggregate_callees(a, mid);
	PL_CHECK(down->len == 1 && g_array_index(down, PlRow, 0).id == hot);
	PL_CHECK(g_array_index(down, PlRow, 0).total.weight == 2000);

	/* function table order: self, then total, then id */
	g_autoptr(GArray) rows = pl_aggregate_functions(a, FALSE);
	PL_CHECK(rows->len == 6);
	PL_CHECK(g_array_index(rows, PlRow, 0).id == mid); /* ties on self: larger total first */
	PL_CHECK(g_array_index(rows, PlRow, 1).id == hot);

	/* per thread */
	PlCount *w1 = g_hash_table_lookup(a->threads, GUINT_TO_POINTER(TID_W1));
	PlCount *m0 = g_hash_table_lookup(a->threads, GUINT_TO_POINTER(TID_MAIN));
	PL_CHECK(w1 && w1->samples == 2 && w1->weight == 2000);
	PL_CHECK(m0 && m0->samples == 1 && m0->weight == 2000);
	PL_CHECK(!g_strcmp0(pl_profile_lookup_thread(p, TID_W1)->name, "burn-1"));

	/* memory follows distinct stacks: two stacks, however many samples */
	guint n;
	const PlSample *s = pl_profile_get_samples(p, &n);
	PL_CHECK(n == 3 && s[0].stack == s[1].stack && s[0].stack != s[2].stack);
}

static void filters(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = write_three(e);
	g_autoptr(PlProfile) p = load(path, NULL);
	guint32 hot = func(p, "hot_leaf");

	PlFilter f = { TID_MAIN, PL_NO_ID, 0, 0 };
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, &f);
	PL_CHECK(a->all.samples == 1 && a->all.weight == 2000 && a->func_total[hot].samples == 0);

	PlFilter r = { 0, PL_NO_ID, T0 + 150, T0 + 300 }; /* [t0, t1): only S2 */
	g_autoptr(PlAggregate) b = pl_profile_aggregate(p, &r);
	PL_CHECK(b->all.samples == 1 && b->func_self[hot].weight == 1000);

	PlFilter ev = { 0, 7, 0, 0 }; /* no such event */
	g_autoptr(PlAggregate) c = pl_profile_aggregate(p, &ev);
	PL_CHECK(c->all.samples == 0);
	PL_CHECK(pl_profile_get_main_event(p) == 0);
}

/* After a context marker the first entry is the IP (looked up as is), the
 * rest return addresses (looked up at pc-1).  hot_leaf+0 as a return
 * address would land in the function before it. */
static void context_markers(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = vt_tmp("markers.plens");
	VtCapture *c = vt_capture_new(path);
	preamble(c, e);
	uint64_t k[] = { T_CTX_KERNEL, 0xffffffff81000100ull, 0xffffffff81000200ull, T_CTX_USER,
			 vt_sym(e, "hot_leaf", 0), vt_sym(e, "compute_mid", 1),
			 vt_sym(e, "compute_outer", 1) };
	vt_sample(c, 0, PID, TID_W1, T0 + 1, 500, k, G_N_ELEMENTS(k));
	/* user only, no marker at all: entry 0 is still the IP */
	uint64_t u[] = { vt_sym(e, "hot_leaf", 0), vt_sym(e, "compute_mid", 1) };
	vt_sample(c, 0, PID, TID_W1, T0 + 2, 500, u, G_N_ELEMENTS(u));
	vt_capture_close(c);

	g_autoptr(PlProfile) p = load(path, NULL);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	guint32 hot = func(p, "hot_leaf"), mid = func(p, "compute_mid");
	PL_CHECK(a->func_total[hot].samples == 2);
	PL_CHECK(a->func_self[hot].samples == 1); /* the other sample's leaf is the kernel */
	PL_CHECK(a->func_total[mid].samples == 2);
	/* kernel frames sit below hot_leaf, innermost last */
	guint32 kleaf = PL_NO_ID;
	for (guint32 n = 1; n < a->n_nodes; n++)
		if (a->self[n].samples && pl_profile_get_node(p, n)->func != hot)
			kleaf = n;
	PL_CHECK(kleaf != PL_NO_ID);
	const PlNode *kn = pl_profile_get_node(p, kleaf);
	const PlNode *kparent = pl_profile_get_node(p, kn->parent);
	PL_CHECK(pl_profile_get_node(p, kparent->parent)->func == hot);
	PL_CHECK(!pl_profile_get_function(p, kn->func)->name ||
		 strcmp(pl_profile_get_function(p, kn->func)->name, "hot_leaf") != 0);
	/* the function before hot_leaf in the file never shows up */
	for (guint32 f = 0; f < pl_profile_get_n_functions(p); f++) {
		const char *nm = pl_profile_get_function(p, f)->name;
		PL_CHECKF(!nm || !strcmp(nm, "hot_leaf") || !strcmp(nm, "compute_mid") ||
				  !strcmp(nm, "compute_outer") || a->func_total[f].samples == 0 ||
				  pl_profile_get_function(p, f)->module[0] == '[',
			  "unexpected %s", nm);
	}
}

/* Threads: fork/exit tree, COMM names, SWITCH intervals, switch samples
 * weighted by the off-CPU time that follows. */
static void threads_and_off_cpu(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = vt_tmp("switch.plens");
	VtCapture *c = vt_capture_new(path);
	preamble(c, e);
	vt_event(c, 1, PL_ROLE_SWITCH, "context-switches");
	struct pl_msg m = { .type = PL_MSG_TASK };
	m.u.task = (struct pl_msg_task){ PL_TASK_FORK, PID, PID, 4300, TID_MAIN, T0 + 10 };
	vt_capture_add(c, &m);
	vt_comm(c, PID, 4300, "sleeper", T0 + 11);
	struct pl_msg sw = { .type = PL_MSG_SWITCH };
	/* on 20..50, off 50..250, on 250..300 */
	sw.u.sw = (struct pl_msg_switch){ PID, 4300, T0 + 20, 0, 0, 0, 0 };
	vt_capture_add(c, &sw);
	uint64_t st[] = { T_CTX_USER, vt_sym(e, "sleeper_main", 0) };
	vt_sample(c, 1, PID, 4300, T0 + 50, 1, st, G_N_ELEMENTS(st));
	sw.u.sw = (struct pl_msg_switch){ PID, 4300, T0 + 50, 0, PL_SWITCH_OUT, 0, 0 };
	vt_capture_add(c, &sw);
	sw.u.sw = (struct pl_msg_switch){ PID, 4300, T0 + 250, 0, 0, 0, 0 };
	vt_capture_add(c, &sw);
	m.u.task = (struct pl_msg_task){ PL_TASK_EXIT, PID, PID, 4300, 4300, T0 + 300 };
	vt_capture_add(c, &m);
	struct pl_msg lost = { .type = PL_MSG_LOST };
	lost.u.lost = (struct pl_msg_lost){ PL_LOST_RING, 0, T0 + 5, 17 };
	vt_capture_add(c, &lost);
	lost.u.lost.kind = PL_LOST_BACKPRESSURE;
	lost.u.lost.count = 3;
	vt_capture_add(c, &lost);
	struct pl_msg cnt = { .type = PL_MSG_COUNTERS };
	cnt.u.counters.time = T0;
	cnt.u.counters.n = 1;
	cnt.u.counters.v[0] = (struct pl_counter_value){ 2, 100, 10, 10 };
	vt_capture_add(c, &cnt);
	cnt.u.counters.time = T0 + 1000000000ull;
	cnt.u.counters.v[0] = (struct pl_counter_value){ 2, 5100, 20, 20 };
	vt_capture_add(c, &cnt);
	vt_capture_close(c);

	g_autoptr(PlProfile) p = load(path, NULL);
	PlThread *t = pl_profile_lookup_thread(p, 4300);
	PL_CHECK(t && !g_strcmp0(t->name, "sleeper") && t->ptid == TID_MAIN && t->exited);
	PL_CHECK(t->start == T0 + 10 && t->end == T0 + 300);
	PL_CHECK(t->intervals->len == 3);
	PL_CHECK(t->on_cpu_ns == 30 + 50 && t->off_cpu_ns == 200);
	const PlInterval *iv = &g_array_index(t->intervals, PlInterval, 1);
	PL_CHECK(!iv->on_cpu && iv->start == T0 + 50 && iv->end == T0 + 250);

	PlFilter f = { 0, 1, 0, 0 };
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, &f);
	PL_CHECK(a->all.samples == 1 && a->all.weight == 200);
	PL_CHECK(a->func_self[func(p, "sleeper_main")].weight == 200);
	PL_CHECK(pl_profile_get_main_event(p) == 0 || pl_profile_get_main_event(p) == PL_NO_ID);

	const PlProfileStats *st2 = pl_profile_get_stats(p);
	PL_CHECK(st2->lost[PL_LOST_RING] == 17 && st2->lost[PL_LOST_BACKPRESSURE] == 3);
	GArray *series = pl_profile_get_counter(p, 2);
	PL_CHECK(series && series->len == 2);
	PL_CHECK(g_array_index(series, PlCounterPoint, 1).value == 5100);
}

/* Many samples on few stacks: the tries stay at the distinct stacks. */
static void memory_bounded_by_stacks(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = vt_tmp("many.plens");
	VtCapture *c = vt_capture_new(path);
	preamble(c, e);
	uint64_t s1[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), vt_sym(e, "compute_mid", 1) };
	uint64_t s2[] = { T_CTX_USER, vt_sym(e, "cmp_ulong", 0), vt_sym(e, "sort_step", 1) };
	for (int i = 0; i < 20000; i++)
		vt_sample(c, 0, PID, TID_W1, T0 + (uint64_t)i, 1, i % 3 ? s1 : s2, 3);
	vt_capture_close(c);
	g_autoptr(PlProfile) p = load(path, NULL);
	PL_CHECK(pl_profile_get_n_nodes(p) == 5); /* root + 2 + 2 */
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	PL_CHECK(a->all.samples == 20000);
	PL_CHECK(a->func_self[func(p, "cmp_ulong")].samples == 6667);
}

typedef struct {
	PlProfile *p;
	GString *s;
} Folded;

static void fold(const guint32 *funcs, guint depth, const PlCount *self, gpointer data)
{
	Folded *f = data;
	for (guint i = 0; i < depth; i++)
		g_string_append_printf(f->s, "%s%s", i ? ";" : "",
				       pl_profile_get_function_label(f->p, funcs[i]));
	g_string_append_printf(f->s, " %" G_GUINT64_FORMAT "\n", self->samples);
}

static void collapsed_stacks(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = write_three(e);
	g_autoptr(PlProfile) p = load(path, NULL);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	Folded f = { p, g_string_new(NULL) };
	pl_aggregate_foreach_stack(a, fold, &f);
	PL_CHECKF(strstr(f.s->str, "thread_main;worker_loop;compute_outer;compute_mid;hot_leaf 2\n") &&
			  strstr(f.s->str, "main;worker_loop;compute_outer;compute_mid 1\n"),
		  "%s", f.s->str);
	g_string_free(f.s, TRUE);
}

/* Bytes that are not messages do not crash the model: garbage samples
 * with absurd pids/addresses just become unknown frames. */
static void hostile_values(void)
{
	g_autoptr(PlProfile) p = pl_profile_new(NULL);
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_SAMPLE;
	m->u.sample.event = 0xffffffffu;
	m->u.sample.pid = 0xffffffffu;
	m->u.sample.tid = 0;
	m->u.sample.nr_callchain = PL_MAX_CALLCHAIN;
	for (guint i = 0; i < PL_MAX_CALLCHAIN; i++)
		m->u.sample.callchain[i] = i % 7 == 0 ? (uint64_t)-128 : 0xdead0000ull + i;
	for (int k = 0; k < 3; k++)
		pl_profile_ingest(m, p);
	m->type = PL_MSG_SWITCH;
	m->u.sw.tid = 5;
	m->u.sw.time = 10;
	m->u.sw.flags = PL_SWITCH_OUT;
	pl_profile_ingest(m, p);
	m->u.sw.time = 5; /* time going backwards */
	m->u.sw.flags = 0;
	pl_profile_ingest(m, p);
	g_free(m);
	pl_profile_finish(p);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	PL_CHECK(a->all.samples == 3);
	PL_CHECK(pl_profile_lookup_thread(p, 5)->off_cpu_ns == 0);
}

/* Stream order is not time order (per-CPU rings): a worker's samples may
 * come before the exec COMM and the MMAP of its binary.  The model puts
 * them back in time order before symbolizing. */
static void out_of_order_stream(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = vt_tmp("unordered.plens");
	VtCapture *c = vt_capture_new(path);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	uint64_t s1[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), vt_sym(e, "compute_mid", 1) };
	vt_sample(c, 0, PID, TID_W1, T0 + 300, 1, s1, G_N_ELEMENTS(s1)); /* ring of CPU 1 */
	vt_sample(c, 0, PID, TID_W1, T0 + 250, 1, s1, G_N_ELEMENTS(s1));
	struct pl_msg m = { .type = PL_MSG_COMM };               /* ring of CPU 0 */
	m.u.comm = (struct pl_msg_comm){ PID, PID, T0 + 100, 1, 0, pl_str_c("burn") };
	vt_capture_add(c, &m);
	struct pl_msg mm = { .type = PL_MSG_MMAP };
	mm.u.mmap.pid = mm.u.mmap.tid = PID;
	mm.u.mmap.time = T0 + 110;
	mm.u.mmap.start = e->map_start;
	mm.u.mmap.len = e->map_len;
	mm.u.mmap.pgoff = e->map_pgoff;
	mm.u.mmap.filename = pl_str_c(e->path);
	vt_capture_add(c, &mm);
	vt_capture_close(c);
	g_autoptr(PlProfile) p = load(path, NULL);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	PL_CHECK(a->all.samples == 2);
	PL_CHECK(a->func_self[func(p, "hot_leaf")].samples == 2);
	guint n;
	const PlSample *s = pl_profile_get_samples(p, &n);
	PL_CHECK(n == 2 && s[0].time == T0 + 250 && s[1].time == T0 + 300);
}

/* Random bytes inside otherwise valid blocks (CRC recomputed, so they get
 * past the block check and reach the message decoder and the model):
 * loading may fail, it must never crash (run under ASan in CI). */
static void mutated_frames_never_crash(void)
{
	VtElf *e = need_burn();
	vt_zstd_level = 0;
	g_autofree char *path = write_three(e);
	vt_zstd_level = 3;
	g_autofree char *orig = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(path, &orig, &len, NULL));
	g_autofree char *mpath = vt_tmp("mutated.plens");
	GRand *rnd = g_rand_new_with_seed(1234);
	guint loaded = 0;
	for (int iter = 0; iter < 400; iter++) {
		g_autofree guint8 *d = g_memdup2(orig, len);
		/* walk the blocks; mutate raw ones, then fix their CRC */
		gsize off = PL_STREAM_HEADER_SIZE;
		while (off + PL_BLOCK_HEADER_SIZE <= len) {
			struct pl_block_header h;
			char why[120];
			if (pl_block_header_parse(d + off, len - off, &h, why, sizeof(why)) < 0 ||
			    off + PL_BLOCK_HEADER_SIZE + h.stored_len > len)
				break;
			guint8 *pay = d + off + PL_BLOCK_HEADER_SIZE;
			if (h.codec == PL_CODEC_RAW && h.stored_len) {
				int flips = g_rand_int_range(rnd, 1, 6);
				for (int k = 0; k < flips; k++)
					pay[g_rand_int_range(rnd, 0, (gint32)h.stored_len)] =
						(guint8)g_rand_int(rnd);
				h.crc32 = pl_crc32(0, pay, h.stored_len);
				pl_block_header_put(d + off, &h);
			}
			off += PL_BLOCK_HEADER_SIZE + h.stored_len;
		}
		PL_CHECK(g_file_set_contents(mpath, (const char *)d, (gssize)len, NULL));
		g_autoptr(PlProfile) p = pl_profile_new(NULL);
		g_autoptr(GError) error = NULL;
		if (pl_capture_load(mpath, pl_profile_ingest, p, NULL, &error))
			loaded++;
		pl_profile_finish(p);
		g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
		g_autoptr(GArray) rows = pl_aggregate_functions(a, FALSE);
		for (guint i = 0; i < rows->len; i++)
			(void)pl_profile_get_function_label(p, g_array_index(rows, PlRow, i).id);
	}
	g_rand_free(rnd);
	PL_CHECK(loaded < 400); /* the mutations did reach the decoder */
}

/* A 300-frame recursion (perf's garbage fp chains and node's recursive JS
 * reach 127 frames and more) exports as an SVG flame graph at once and
 * draws every level: the depth search called itself twice per child
 * (MAX() evaluates its arguments twice), 2^depth calls, and the export
 * never finished.  The alarm turns such a hang into a failed run. */
static void svg_deep_stack(void)
{
	VtElf *e = need_burn();
	g_autofree char *path = vt_tmp("deep.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	preamble(c, e);
	enum { DEPTH = 300 };
	uint64_t chain[DEPTH + 2];
	chain[0] = T_CTX_USER;
	chain[1] = vt_sym(e, "hot_leaf", 0);
	for (guint i = 2; i < DEPTH + 1; i++)
		chain[i] = vt_sym(e, "compute_mid", 1);
	chain[DEPTH + 1] = vt_sym(e, "main", 1);
	for (guint i = 0; i < 10; i++)
		vt_sample(c, 0, PID, TID_MAIN, T0 + 100 * (i + 1), 1000, chain, G_N_ELEMENTS(chain));
	vt_capture_close(c);
	g_autoptr(PlProfile) p = load(path, NULL);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	char *svg = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&svg, &len);
	PL_CHECK(out);
	alarm(60);
	g_autoptr(GError) error = NULL;
	gboolean ok = pl_export_svg(a, out, "deep", FALSE, &error);
	alarm(0);
	PL_CHECK(fclose(out) == 0);
	PL_CHECKF(ok, "%s", error ? error->message : "?");
	/* every level is drawn: main, 299 compute_mid frames and hot_leaf */
	guint mids = 0;
	for (const char *q = svg; (q = strstr(q, "<title>compute_mid")); q++)
		mids++;
	PL_CHECKF(mids == DEPTH - 1, "%u compute_mid frames drawn, want %u", mids, DEPTH - 1);
	PL_CHECK(strstr(svg, "<title>hot_leaf") && strstr(svg, "<title>main"));
	free(svg);
}

PL_TEST_MAIN(PL_CASE(mutated_frames_never_crash), PL_CASE(out_of_order_stream), PL_CASE(aggregation_exact), PL_CASE(filters), PL_CASE(context_markers),
	     PL_CASE(threads_and_off_cpu), PL_CASE(memory_bounded_by_stacks),
	     PL_CASE(collapsed_stacks), PL_CASE(hostile_values), PL_CASE(svg_deep_stack))
