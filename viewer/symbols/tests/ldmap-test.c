/* ldmap-test.c — the GNU ld map parser on maps written by the real
 * linker (gcc -Wl,-Map) for the burn workload, nm as the oracle; the
 * --map fallback end to end through pl_symbols_resolve on the stripped
 * program; and hostile input (cut, mutated, random, overlong) that must
 * never crash or read out of bounds. */
#include "pl-ldmap.h"
#include "sym-test-util.h"

#define PID 4343u
#define BASE 0x5555bbbb0000ull

static char *burn_src(void)
{
	char *p = g_build_filename(PL_TOP, "test", "workloads", "burn.c", NULL);
	PL_CHECKF(g_file_test(p, G_FILE_TEST_IS_REGULAR), "%s missing (a file of the source tree)", p);
	return p;
}

/* gcc the burn source with a map; returns the program path, *map the map. */
static char *link_with_map(const char *name, const char *extra, char **map)
{
	g_autofree char *src = burn_src();
	char *out = g_build_filename(t_tmp(), name, NULL);
	*map = g_strdup_printf("%s.map", out);
	g_autofree char *flags = g_strdup_printf("-O1 -pthread %s -Wl,-Map=%s", extra, *map);
	t_cc(src, out, flags);
	return out;
}

static PlLdMap *load_map(const char *map)
{
	GError *e = NULL;
	PlLdMap *m = pl_ldmap_load(map, &e);
	PL_CHECKF(m != NULL, "%s", e ? e->message : "?");
	return m;
}

/* Every global function nm lists is found by the map at its start, its
 * middle and its last byte. */
static void globals_match_nm(void)
{
	g_autofree char *map = NULL;
	g_autofree char *prog = link_with_map("burn-map", "", &map);
	g_autoptr(PlLdMap) m = load_map(map);
	g_autofree char *base = g_path_get_basename(pl_ldmap_get_output(m));
	PL_CHECKF(!strcmp(base, "burn-map"), "OUTPUT is %s", pl_ldmap_get_output(m));
	const char *names[] = { "hot_leaf", "compute_mid", "compute_outer", "sort_step",
				"worker_loop", "main", "_start" };
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		guint64 a, size, start = 0;
		PL_CHECKF(t_nm(prog, names[i], &a, &size), "nm has no %s", names[i]);
		const char *n = pl_ldmap_lookup(m, a, &start);
		PL_CHECKF(n && !strcmp(n, names[i]) && start == a, "%s at 0x%" G_GINT64_MODIFIER
			  "x: map says %s", names[i], a, n ? n : "nothing");
		if (size > 1) {
			n = pl_ldmap_lookup(m, a + size - 1, NULL);
			/* the last byte of a global can only be shadowed by a
			 * static function after it, which the map cannot name */
			PL_CHECKF(n && (!strcmp(n, names[i])), "%s+%" G_GINT64_MODIFIER
				  "u: %s", names[i], size - 1, n ? n : "nothing");
		}
	}
}

/* With -ffunction-sections static functions have sections named after
 * them: thread_main and cmp_ulong (static in burn.c) are found too. */
static void function_sections_name_statics(void)
{
	g_autofree char *map = NULL;
	g_autofree char *prog = link_with_map("burn-fs", "-ffunction-sections", &map);
	g_autoptr(PlLdMap) m = load_map(map);
	const char *names[] = { "thread_main", "cmp_ulong", "sleeper_main", "hot_leaf", "main" };
	for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
		guint64 a, size;
		PL_CHECKF(t_nm(prog, names[i], &a, &size), "nm has no %s", names[i]);
		for (guint64 off = 0; off < size; off += MAX(size / 4, 1)) {
			const char *n = pl_ldmap_lookup(m, a + off, NULL);
			PL_CHECKF(n && !strcmp(n, names[i]), "%s+%" G_GINT64_MODIFIER "u: %s",
				  names[i], off, n ? n : "nothing");
		}
	}
	/* past the end of .text: nothing */
	PL_CHECK(pl_ldmap_lookup(m, 0xfffffffffff0ull, NULL) == NULL);
}

/* The stripped program, mapped as a process would have it: without --map
 * its functions are unknown; with it they are named. */
static void stripped_program_resolves_with_map(void)
{
	g_autofree char *map = NULL;
	g_autofree char *prog = link_with_map("burn-st", "", &map);
	guint64 hot, size;
	PL_CHECK(t_nm(prog, "hot_leaf", &hot, &size));
	/* --binary copies are matched by name: same basename, another dir */
	g_autofree char *dir = g_build_filename(t_tmp(), "stripped", NULL);
	g_mkdir_with_parents(dir, 0700);
	g_autofree char *stripped = g_build_filename(dir, "burn-st", NULL);
	char *why = NULL;
	char *argv[] = { (char *)"strip", (char *)"-o", stripped, prog, NULL };
	char *o = t_run(argv, &why);
	PL_CHECKF(o, "strip (binutils: ci/deps.sh): %s", why);
	g_free(o);
	for (int with_map = 0; with_map < 2; with_map++) {
		PlSymOptions opts = t_opts();
		g_ptr_array_add(opts.binaries, g_strdup(stripped));
		if (with_map)
			opts.map_file = map;
		PlTargetArch arch = t_host_arch();
		g_autoptr(PlSymbols) s = pl_symbols_new(&opts, &arch);
		opts.map_file = NULL;
		t_opts_clear(&opts);
		/* the board calls it burn-st (as OUTPUT() says) */
		guint64 bias = t_map_elf(s, PID, stripped, "/usr/bin/burn-st", BASE, NULL, 0);
		PlFrameInfo fr[4];
		guint n = pl_symbols_resolve(s, PID, bias + hot + 4, FALSE, fr, 4);
		PL_CHECK(n >= 1);
		if (with_map)
			PL_CHECKF(!g_strcmp0(fr[n - 1].function, "hot_leaf"), "with --map: %s",
				  fr[n - 1].function ? fr[n - 1].function : "(unknown)");
		else
			PL_CHECKF(fr[n - 1].function == NULL || strcmp(fr[n - 1].function, "hot_leaf"),
				  "stripped, no map, still named %s?", fr[n - 1].function);
	}
}

/* A map for another program (OUTPUT differs) is not applied. */
static void map_of_another_program_is_not_used(void)
{
	g_autofree char *map = NULL;
	g_autofree char *prog = link_with_map("burn-other", "", &map);
	guint64 hot, size;
	PL_CHECK(t_nm(prog, "hot_leaf", &hot, &size));
	g_autofree char *dir = g_build_filename(t_tmp(), "other", NULL);
	g_mkdir_with_parents(dir, 0700);
	g_autofree char *stripped = g_build_filename(dir, "firmware", NULL);
	char *why = NULL;
	char *argv[] = { (char *)"strip", (char *)"-o", stripped, prog, NULL };
	char *o = t_run(argv, &why);
	PL_CHECKF(o, "strip (binutils: ci/deps.sh): %s", why);
	g_free(o);
	PlSymOptions opts = t_opts();
	g_ptr_array_add(opts.binaries, g_strdup(stripped));
	opts.map_file = map;
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(&opts, &arch);
	opts.map_file = NULL;
	t_opts_clear(&opts);
	guint64 bias = t_map_elf(s, PID, stripped, "/usr/bin/firmware", BASE, NULL, 0);
	PlFrameInfo fr[4];
	guint n = pl_symbols_resolve(s, PID, bias + hot + 4, FALSE, fr, 4);
	PL_CHECKF(n >= 1 && fr[n - 1].function == NULL, "named %s from a map of burn-other",
		  fr[n - 1].function);
}

static void hand_written_forms(void)
{
	static const char text[] =
		"Archive member included to satisfy reference by file (symbol)\n"
		"Discarded input sections\n"
		" .text          0x0000000000000000       0x10 gone.o\n"
		"                0x0000000000000000                discarded_fn\n"
		"\n"
		"Linker script and memory map\n"
		"\n"
		".text           0x0000000008000000      0x200\n"
		" .text          0x0000000008000000       0x80 a.o\n"
		"                0x0000000008000000                reset_handler\n"
		"                0x0000000008000040                uart_isr\n"
		" .text.a_function_with_a_name_long_enough_to_wrap\n"
		"                0x0000000008000080       0x40 b.o\n"
		" *fill*         0x00000000080000c0       0x40 \n"
		" .text.crc32    0x0000000008000100       0x20 c.o\n"
		"                0x0000000008001000                __etext = .\n"
		"                [!provide]                        PROVIDE (etext = .)\n"
		"OUTPUT(fw.elf elf32-littlearm)\n";
	g_autoptr(GError) e = NULL;
	g_autoptr(PlLdMap) m = pl_ldmap_parse(text, sizeof(text) - 1, &e);
	PL_CHECKF(m, "%s", e ? e->message : "?");
	PL_CHECK(!g_strcmp0(pl_ldmap_get_output(m), "fw.elf"));
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x8000000, NULL), "reset_handler"));
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x800003f, NULL), "reset_handler"));
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x8000040, NULL), "uart_isr"));
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x800007f, NULL), "uart_isr"));
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x8000090, NULL),
			    "a_function_with_a_name_long_enough_to_wrap"));
	PL_CHECK(pl_ldmap_lookup(m, 0x80000d0, NULL) == NULL); /* fill: no section */
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x800011f, NULL), "crc32"));
	PL_CHECK(pl_ldmap_lookup(m, 0x8000120, NULL) == NULL);
	PL_CHECK(pl_ldmap_lookup(m, 0, NULL) == NULL); /* discarded, before the map */
	PL_CHECK(pl_ldmap_lookup(m, 0x8001000, NULL) == NULL); /* an assignment */
	PL_CHECK(pl_ldmap_get_n_symbols(m) == 4);
}

static void hostile_input(void)
{
	g_autofree char *map = NULL;
	g_autofree char *prog = link_with_map("burn-h", "-ffunction-sections", &map);
	g_autofree char *text = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(map, &text, &len, NULL));
	/* not a map */
	GError *e = NULL;
	PL_CHECK(pl_ldmap_parse("", 0, &e) == NULL && e);
	g_clear_error(&e);
	PL_CHECK(pl_ldmap_parse("\x7f" "ELF\x02\x01", 6, &e) == NULL && e);
	g_clear_error(&e);
	/* every prefix (cut anywhere), on a heap copy sized exactly so ASan
	 * sees any read past the end */
	for (gsize cut = 0; cut < len; cut += 1 + cut / 50) {
		char *c = g_memdup2(text, cut ? cut : 1);
		PlLdMap *m = pl_ldmap_parse(c, cut, NULL);
		if (m)
			pl_ldmap_lookup(m, 0x1234, NULL);
		pl_ldmap_free(m);
		g_free(c);
	}
	/* random byte flips */
	GRand *r = g_rand_new_with_seed(7);
	for (int round = 0; round < 300; round++) {
		char *c = g_memdup2(text, len);
		for (int k = 0; k < 20; k++) {
			static const char pool[] = " \t\n0x.fF(=)[]*9";
			gsize at = g_rand_int_range(r, 0, (gint32)len);
			c[at] = round & 1 ? (char)g_rand_int_range(r, 0, 256)
					  : pool[g_rand_int_range(r, 0, sizeof(pool) - 1)];
		}
		PlLdMap *m = pl_ldmap_parse(c, len, NULL);
		if (m)
			for (int k = 0; k < 50; k++)
				pl_ldmap_lookup(m, g_rand_int(r), NULL);
		pl_ldmap_free(m);
		g_free(c);
	}
	g_rand_free(r);
	/* an overlong line, huge numbers, 20-digit hex */
	GString *s = g_string_new("Linker script and memory map\n .text 0x10 0x10 a.o\n");
	for (int i = 0; i < 10000; i++)
		g_string_append(s, "x");
	g_string_append(s, "\n                0x10                ok_sym\n"
			   " .text.big 0xffffffffffffffff 0xffffffffffffffff z.o\n"
			   "                0x123456789012345678901 too_long\n");
	g_autoptr(PlLdMap) m = pl_ldmap_parse(s->str, s->len, NULL);
	PL_CHECK(m);
	PL_CHECK(!g_strcmp0(pl_ldmap_lookup(m, 0x1f, NULL), "ok_sym"));
	PL_CHECK(pl_ldmap_get_n_symbols(m) == 1);
	g_string_free(s, TRUE);
}

PL_TEST_MAIN(PL_CASE(globals_match_nm), PL_CASE(function_sections_name_statics),
	     PL_CASE(stripped_program_resolves_with_map), PL_CASE(map_of_another_program_is_not_used),
	     PL_CASE(hand_written_forms), PL_CASE(hostile_input))
