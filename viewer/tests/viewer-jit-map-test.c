/* viewer-jit-map-test.c — JIT frames named from /tmp/perf-PID.map when the
 * map arrives after the samples, as the agent sends it (when the process
 * ends) and as perf reads it (at report time).  Captures are built with
 * the real encoder over the real burn ELF and go through the real model
 * and viewer/symbols; the map text is what node --perf-basic-prof writes
 * ("START SIZE NAME", hex without 0x).
 *
 * The JIT region is an anonymous mapping (perf reports //anon with
 * pgoff = start).  Stacks mix JIT and native frames both ways: native
 * main → JIT loop → JIT fib (→ JIT fib), and JIT fib calling native
 * hot_leaf, whose call-tree node must move under the renamed parent. */
#include "viewer-test-util.h"

#include "pl-capture.h"
#include "pl-profile.h"

#define PID 5252
#define T0 1000000000ull
#define MS 1000000ull
#define JIT 0x7f3a00000000ull

static VtElf *burn;

static VtElf *need_burn(void)
{
	char *why = NULL;
	if (!burn)
		burn = vt_elf_open("workloads/burn", &why);
	PL_CHECKF(burn, "%s", why);
	return burn;
}

/* The first len bytes of a perf map of total bytes. */
static void perf_map_part(VtCapture *c, const char *text, size_t len, size_t total)
{
	struct pl_msg m = { .type = PL_MSG_FILE_CHUNK };
	struct pl_msg_file_chunk *ch = &m.u.chunk;
	ch->kind = PL_CHUNK_PERF_MAP;
	ch->pid = PID;
	ch->offset = 0;
	ch->total = total;
	ch->name = pl_str_c("/tmp/perf-5252.map");
	ch->len = (uint32_t)len;
	ch->data = (const uint8_t *)text;
	PL_CHECK(vt_capture_add(c, &m) == 0);
}

static void perf_map(VtCapture *c, const char *text)
{
	perf_map_part(c, text, strlen(text), strlen(text));
}

/* fib's code at JIT+0x1000 (0x80 bytes), loop's at JIT+0x2000; JIT+0x3000
 * is in the region but named by no line. */
static const char map1[] = "7f3a00001000 80 JS:*fib /srv/hot.js:1:13\n"
			   "7f3a00002000 100 JS:^loop /srv/hot.js:3:1\n";

/* Samples 0..2 s, the perf map(s) after them, one sample after the maps.
 * torn > 0: only the first torn bytes of the one map arrive. */
static char *write_capture(VtElf *e, const char *const *maps, guint n_maps, size_t torn)
{
	char *path = vt_tmp("jit.plens");
	VtCapture *c = vt_capture_new(path);
	PL_CHECK(c);
	vt_hello(c);
	vt_event(c, 0, PL_ROLE_SAMPLED, "cpu-clock");
	vt_comm(c, PID, PID, "node", T0);
	vt_mmap(c, PID, e->map_start, e->map_len, e->map_pgoff, e->path);
	vt_mmap(c, PID, JIT, 0x10000, JIT, "//anon");
	uint64_t fib_fib[] = { T_CTX_USER, JIT + 0x1010, JIT + 0x1021, JIT + 0x2031,
			       vt_sym(e, "main", 1) };
	uint64_t fib_native[] = { T_CTX_USER, vt_sym(e, "hot_leaf", 0), JIT + 0x1041,
				  JIT + 0x2031, vt_sym(e, "main", 1) };
	uint64_t unmapped[] = { T_CTX_USER, JIT + 0x3008, vt_sym(e, "main", 1) };
	uint64_t native[] = { T_CTX_USER, vt_sym(e, "compute_mid", 0), vt_sym(e, "main", 1) };
	for (guint i = 0; i < 10; i++) {
		vt_sample(c, 0, PID, PID, T0 + i * 100 * MS, 1000, fib_fib, G_N_ELEMENTS(fib_fib));
		vt_sample(c, 0, PID, PID, T0 + i * 100 * MS + MS, 1000, fib_native,
			  G_N_ELEMENTS(fib_native));
	}
	vt_sample(c, 0, PID, PID, T0 + 1500 * MS, 1000, unmapped, G_N_ELEMENTS(unmapped));
	/* the stream moves past the reorder window: the JIT samples are in */
	vt_sample(c, 0, PID, PID, T0 + 2000 * MS, 1000, native, G_N_ELEMENTS(native));
	vt_capture_flush(c);
	for (guint i = 0; i < n_maps; i++)
		if (torn)
			perf_map_part(c, maps[i], torn, strlen(maps[i]));
		else
			perf_map(c, maps[i]);
	vt_sample(c, 0, PID, PID, T0 + 2100 * MS, 1000, fib_fib, G_N_ELEMENTS(fib_fib));
	vt_capture_close(c);
	return path;
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

/* The collapsed stacks of path (owned). */
static char *folded(const char *path)
{
	g_autoptr(PlProfile) p = pl_profile_new(NULL);
	GError *error = NULL;
	PL_CHECKF(pl_capture_load(path, pl_profile_ingest, p, NULL, &error), "%s",
		  error ? error->message : "?");
	pl_profile_finish(p);
	g_autoptr(PlAggregate) a = pl_profile_aggregate(p, NULL);
	Folded f = { p, g_string_new(NULL) };
	pl_aggregate_foreach_stack(a, fold, &f);
	return g_string_free(f.s, FALSE);
}

static void map_after_samples(void)
{
	VtElf *e = need_burn();
	const char *maps[] = { map1 };
	g_autofree char *path = write_capture(e, maps, 1, 0);
	g_autofree char *s = folded(path);
	PL_CHECKF(strstr(s, "main;JS:^loop /srv/hot.js:3:1;JS:*fib /srv/hot.js:1:13;"
			    "JS:*fib /srv/hot.js:1:13 11\n"),
		  "JIT frames not named from the map that came after them:\n%s", s);
	PL_CHECKF(strstr(s, "main;JS:^loop /srv/hot.js:3:1;JS:*fib /srv/hot.js:1:13;hot_leaf 10\n"),
		  "native code called from JIT code lost its callers:\n%s", s);
	/* an address no line names stays anonymous; native stacks unchanged */
	PL_CHECKF(strstr(s, "main;[anon] 1\n") && strstr(s, "main;compute_mid 1\n"), "%s", s);
	PL_CHECKF(!strstr(s, "[anon];"), "an anonymous frame is left inside a stack:\n%s", s);
}

static void newest_map_wins(void)
{
	/* a second copy of the map (offset 0 again): the JIT reused fib's
	 * code for another function; like perf report, which reads the file
	 * once at the end, every sample takes the last copy's names */
	VtElf *e = need_burn();
	const char *maps[] = { map1, "7f3a00001000 80 JS:*fib2 /srv/hot.js:9:1\n"
				     "7f3a00002000 100 JS:^loop /srv/hot.js:3:1\n" };
	g_autofree char *path = write_capture(e, maps, 2, 0);
	g_autofree char *s = folded(path);
	PL_CHECKF(strstr(s, "main;JS:^loop /srv/hot.js:3:1;JS:*fib2 /srv/hot.js:9:1;"
			    "JS:*fib2 /srv/hot.js:9:1 11\n") &&
			  strstr(s, "JS:*fib2 /srv/hot.js:9:1;hot_leaf 10\n"),
		  "%s", s);
	PL_CHECKF(!strstr(s, "JS:*fib /srv"), "a name from the older copy is left:\n%s", s);
}

static void torn_map_names_what_came(void)
{
	/* the capture ends after the map's first line (its chunk says the
	 * file is longer): that line still names fib, loop stays unnamed */
	VtElf *e = need_burn();
	const char *maps[] = { map1 };
	g_autofree char *path = write_capture(e, maps, 1, strchr(map1, '\n') + 1 - map1);
	g_autofree char *s = folded(path);
	PL_CHECKF(strstr(s, "main;[anon];JS:*fib /srv/hot.js:1:13;JS:*fib /srv/hot.js:1:13 11\n") &&
			  strstr(s, "main;[anon];JS:*fib /srv/hot.js:1:13;hot_leaf 10\n"),
		  "%s", s);
}

PL_TEST_MAIN(PL_CASE(map_after_samples), PL_CASE(newest_map_wins),
	     PL_CASE(torn_map_names_what_came))
