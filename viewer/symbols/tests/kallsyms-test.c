/* kallsyms-test.c — the kallsyms table (pl-text-syms.c) on this host's
 * real kallsyms, against an independent sscanf-based reading of the same
 * text; the file loader (pl_symbols_load_kallsyms_file) against the text
 * handed over whole; and the edge lines the fast paths of the parser
 * (16-digit addresses, names scanned eight bytes at a time) must read as
 * the general path does.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sym-test-util.h"

#define PID 1

/* This host's kallsyms: perf's copy in ~/.debug when there is one (what
 * the loader prefers), else /proc/kallsyms.  Skips (the kernel's doing)
 * when it has no kallsyms or hides the addresses: from a user without
 * CAP_SYSLOG (kptr_restrict 1, or 0 with perf_event_paranoid > 1), or from
 * everyone (kptr_restrict 2). */
static char *host_kallsyms(char **path)
{
	*path = NULL;
	g_autofree char *dir = g_build_filename(g_get_home_dir(), ".debug", "[kernel.kallsyms]", NULL);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	for (const char *n; d && (n = g_dir_read_name(d)) && !*path;) {
		char *p = g_build_filename(dir, n, "kallsyms", NULL);
		if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
			*path = p;
		else
			g_free(p);
	}
	char *text = NULL;
	gsize len = 0;
	if (!*path || !g_file_get_contents(*path, &text, &len, NULL)) {
		g_clear_pointer(path, g_free);
		*path = g_strdup("/proc/kallsyms");
		if (!g_file_get_contents(*path, &text, &len, NULL) || len == 0)
			PL_SKIP("[no-kernel-feature:kallsyms] the kernel gives no /proc/kallsyms "
				"(CONFIG_KALLSYMS)");
	}
	if (g_str_has_prefix(text, "0000000000000000 ")) {
		g_free(text);
		g_autofree char *kr = NULL;
		g_file_get_contents("/proc/sys/kernel/kptr_restrict", &kr, NULL, NULL);
		int restrict_ = kr ? atoi(kr) : -1;
		if (geteuid() != 0 && restrict_ != 2)
			PL_SKIP("[not-root] the kernel hides kallsyms addresses from this user "
				"(kptr_restrict %d, perf_event_paranoid)",
				restrict_);
		PL_SKIP("[no-kernel-feature:kallsyms-addresses] the kernel hides kallsyms addresses "
			"even from root (kptr_restrict %d)",
			restrict_);
	}
	return text;
}

typedef struct {
	guint64 addr;
	char *name, *module;
} Want;

static gint cmp_want(gconstpointer a, gconstpointer b)
{
	const Want *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static gboolean marker_name(const char *s)
{
	static const char *const fixed[] = { "_text", "_stext", "_etext", "_sinittext",
					     "_einittext" };
	for (guint i = 0; i < G_N_ELEMENTS(fixed); i++)
		if (!strcmp(s, fixed[i]))
			return TRUE;
	gsize n = strlen(s);
	return !strncmp(s, "__start_", 8) || !strncmp(s, "__stop_", 7) ||
	       (!strncmp(s, "__", 2) && ((n > 6 && !strcmp(s + n - 6, "_start")) ||
					 (n > 4 && !strcmp(s + n - 4, "_end"))));
}

/* The oracle: code symbols of text, one per address (the last in the
 * file that is not a section marker, else the last), sorted. */
static GArray *oracle(const char *text)
{
	GArray *all = g_array_new(FALSE, FALSE, sizeof(Want));
	/* line by line with strchr: g_strsplit's strstr, under ASan, measures
	 * the whole rest of the text at every line (minutes for 5 MB) */
	for (const char *l = text, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
		nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);
		char line[1400];
		if (len >= sizeof(line))
			continue;
		memcpy(line, l, len);
		line[len] = 0;
		unsigned long long a;
		char type, name[1024], mod[256] = "";
		int n = sscanf(line, "%llx %c %1023s [%255[^]]]", &a, &type, name, mod);
		if (n < 3 || !strchr("tTwW", type))
			continue;
		Want w = { a, g_strdup(name), n == 4 ? g_strdup_printf("[%s]", mod)
						     : g_strdup("[kernel]") };
		g_array_append_val(all, w);
	}
	g_array_sort(all, cmp_want); /* stable: the file's order at one address */
	GArray *one = g_array_new(FALSE, FALSE, sizeof(Want));
	for (guint i = 0; i < all->len;) {
		guint j = i;
		while (j < all->len && g_array_index(all, Want, j).addr == g_array_index(all, Want, i).addr)
			j++;
		guint pick = j - 1;
		for (guint k = j; k-- > i;)
			if (!marker_name(g_array_index(all, Want, k).name)) {
				pick = k;
				break;
			}
		for (guint k = i; k < j; k++) {
			Want *w = &g_array_index(all, Want, k);
			if (k == pick) {
				g_array_append_val(one, *w);
			} else {
				g_free(w->name);
				g_free(w->module);
			}
		}
		i = j;
	}
	g_array_free(all, TRUE);
	return one;
}

static void oracle_free(GArray *a)
{
	for (guint i = 0; i < a->len; i++) {
		g_free(g_array_index(a, Want, i).name);
		g_free(g_array_index(a, Want, i).module);
	}
	g_array_free(a, TRUE);
}

/* Every symbol of want, at its address and in its middle. */
static void check_all(PlSymbols *s, GArray *want, const char *what)
{
	for (guint i = 0; i < want->len; i++) {
		const Want *w = &g_array_index(want, Want, i);
		guint64 next = i + 1 < want->len ? g_array_index(want, Want, i + 1).addr : w->addr + 2;
		guint64 at[2] = { w->addr, w->addr + (next - w->addr) / 2 };
		for (guint k = 0; k < 2; k++) {
			PlFrameInfo f[2];
			PL_CHECK(pl_symbols_resolve(s, PID, at[k], FALSE, f, 2) == 1);
			PL_CHECKF(f[0].function && !strcmp(f[0].function, w->name) &&
					  !strcmp(f[0].module, w->module),
				  "%s %#llx: %s %s, want %s %s", what, (unsigned long long)at[k],
				  f[0].function, f[0].module, w->name, w->module);
		}
	}
}

static void host_every_symbol(void)
{
	g_autofree char *path = NULL;
	char *text = host_kallsyms(&path);
	GArray *want = oracle(text);
	PL_CHECKF(want->len > 1000, "%u code symbols in %s", want->len, path);
	PlTargetArch arch = t_host_arch();

	g_autoptr(PlSymbols) a = pl_symbols_new(NULL, &arch);
	pl_symbols_take_kallsyms(a, text, strlen(text)); /* takes text */
	check_all(a, want, "text");

	g_autoptr(PlSymbols) b = pl_symbols_new(NULL, &arch);
	if (strcmp(path, "/proc/kallsyms") != 0) { /* /proc files have no size */
		PL_CHECK(pl_symbols_load_kallsyms_file(b, path));
		check_all(b, want, "file");
		g_autoptr(GPtrArray) rows = pl_symbols_coverage(b);
		PlModuleReport *r = t_row(rows, "[kernel.kallsyms]");
		PL_CHECK(r && r->has_symbols && !r->problem);
	}
	printf("# %u code symbols of %s read as sscanf reads them\n", want->len, path);
	oracle_free(want);
}

static void load_file_refuses(void)
{
	PlTargetArch arch = t_host_arch();
	g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
	g_autofree char *empty = g_build_filename(t_tmp(), "empty", NULL);
	g_autofree char *zero = g_build_filename(t_tmp(), "zero", NULL);
	t_write(empty, "");
	t_write(zero, "0000000000000000 T _stext\n0000000000000000 T foo\n");
	PL_CHECK(!pl_symbols_load_kallsyms_file(s, "/nonexistent/kallsyms"));
	PL_CHECK(!pl_symbols_load_kallsyms_file(s, empty));
	PL_CHECK(!pl_symbols_load_kallsyms_file(s, zero));
	PL_CHECK(!pl_symbols_load_kallsyms_file(s, t_tmp())); /* a directory */
	/* nothing was taken: no kernel row */
	g_autoptr(GPtrArray) rows = pl_symbols_coverage(s);
	PL_CHECK(t_row(rows, "[kernel.kallsyms]") == NULL);
	/* a short good file, then replaced by chunks: the chunks win */
	g_autofree char *good = g_build_filename(t_tmp(), "good", NULL);
	t_write(good, "ffffffff81000000 T first\nffffffff81001000 T second\n");
	PL_CHECK(pl_symbols_load_kallsyms_file(s, good));
	PlFrameInfo f[2];
	pl_symbols_resolve(s, PID, 0xffffffff81001010ull, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "second"));
	/* a chunk out of order is dropped: the file's symbols stay (the
	 * loaded file, mapped, goes on as text, its table made again) */
	const char *late = "ffffffff81000000 T late\n";
	pl_symbols_add_chunk(s, 3, 0, 0, 4096, (const guint8 *)late, strlen(late));
	pl_symbols_resolve(s, PID, 0xffffffff81001010ull, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "second"));
	const char *chunk = "ffffffff81000000 T other\n";
	pl_symbols_add_chunk(s, 3, 0, 0, 0, (const guint8 *)chunk, strlen(chunk));
	pl_symbols_resolve(s, PID, 0xffffffff81001010ull, FALSE, f, 2);
	PL_CHECK(f[0].function && !strcmp(f[0].function, "other"));
}

/* Lines at the edges of the fast paths: each is read as the general path
 * reads it. */
static void edge_lines(void)
{
	static const struct {
		const char *line;
		guint64 addr;
		const char *name, *module; /* NULL: the line gives no symbol */
	} cases[] = {
		{ "ffffffff81000000 T a\n", 0xffffffff81000000ull, "a", "[kernel]" },
		{ "ffffffff81000100 T two words\n", 0xffffffff81000100ull, "two", "[kernel]" },
		{ "ffffffff8100020 T fifteen\n", 0xffffffff8100020ull, "fifteen", "[kernel]" },
		{ "0xffffffff81000300 T prefixed\n", 0xffffffff81000300ull, "prefixed", "[kernel]" },
		{ "fffffffff81000400 T seventeen\n", 0xffffffff81000400ull, NULL, NULL },
		{ "ffffffff81000500T glued\n", 0xffffffff81000500ull, "glued", "[kernel]" },
		{ "ffffffff81000600 t  twoblanks\n", 0xffffffff81000600ull, "twoblanks", "[kernel]" },
		{ "ffffffff81000700 t abcdefg\t[m7]\n", 0xffffffff81000700ull, "abcdefg", "[m7]" },
		{ "ffffffff81000800 t abcdefgh\t[m8]\n", 0xffffffff81000800ull, "abcdefgh", "[m8]" },
		{ "ffffffff81000900 t abcdefghi\t[m9]\n", 0xffffffff81000900ull, "abcdefghi", "[m9]" },
		{ "ffffffff81000a00 t abcdefghijklmnop\n", 0xffffffff81000a00ull, "abcdefghijklmnop",
		  "[kernel]" },
		{ "ffffffff81000b00 t abcdefghijklmnopq rest\n", 0xffffffff81000b00ull,
		  "abcdefghijklmnopq", "[kernel]" },
		{ "ffffffff81000c00 t x\t\n", 0xffffffff81000c00ull, "x", "[kernel]" },
		{ "ffffffff81000d00 T crlf\r\n", 0xffffffff81000d00ull, "crlf", "[kernel]" },
		{ "ffffffff81000e00 T\n", 0xffffffff81000e00ull, NULL, NULL },
		{ "FFFFFFFF81000F00 T upper\n", 0xffffffff81000f00ull, "upper", "[kernel]" },
		{ "ffffffff8100g000 T nothex\n", 0xffffffff8100f000ull, NULL, NULL },
	};
	PlTargetArch arch = t_host_arch();
	for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
		g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
		/* below and above it, so that a symbol is bounded */
		g_autofree char *text = g_strdup_printf("0000000000001000 T below\n%s"
							"fffffffffffff000 T above\n",
							cases[i].line);
		pl_symbols_take_kallsyms(s, g_strdup(text), strlen(text));
		PlFrameInfo f[2];
		pl_symbols_resolve(s, PID, cases[i].addr, FALSE, f, 2);
		if (cases[i].name)
			PL_CHECKF(f[0].function && !strcmp(f[0].function, cases[i].name) &&
					  !strcmp(f[0].module, cases[i].module),
				  "line %u: %s %s, want %s %s", i, f[0].function, f[0].module,
				  cases[i].name, cases[i].module);
		else
			PL_CHECKF(!f[0].function || !strcmp(f[0].function, "below"),
				  "line %u gave %s", i, f[0].function);
	}
}

/* A section's boundary markers share the address of its first function,
 * before or after it in the file: the function names the frame. */
static void markers_yield(void)
{
	PlTargetArch arch = t_host_arch();
	const char *texts[] = {
		"ffffffff81000000 T __sched_text_start\nffffffff81000000 t __schedule\n",
		"ffffffff81000000 t __schedule\nffffffff81000000 T __sched_text_start\n",
		"ffffffff81000000 T _stext\nffffffff81000000 T __idmap_text_end\n"
		"ffffffff81000000 T cpu_resume\n",
	};
	const char *want[] = { "__schedule", "__schedule", "cpu_resume" };
	for (guint i = 0; i < G_N_ELEMENTS(texts); i++) {
		g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
		g_autofree char *text = g_strdup_printf("%sffffffff81001000 T next\n", texts[i]);
		pl_symbols_take_kallsyms(s, g_strdup(text), strlen(text));
		PlFrameInfo f[2];
		pl_symbols_resolve(s, PID, 0xffffffff81000010ull, FALSE, f, 2);
		PL_CHECKF(f[0].function && !strcmp(f[0].function, want[i]), "text %u: %s, want %s",
			  i, f[0].function, want[i]);
	}
}

/* The table of a kallsyms file is kept on disk (pl-text-syms-cache.c):
 * a second load reads it from there and answers as a parse does; a
 * damaged entry, or a file changed since, is parsed again. */
static void cached_table(void)
{
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff81000000 T start\n"
			   "ffffffff81001000 t helper\n"
			   "ffffffff81001800 d data_not_code\n"
			   "ffffffffc0000000 t modfn\t[ext4]\n"
			   "ffffffffc0001000 t other\t[xfs]\n"
			   "ffffffff81002000 T later\n";
	GArray *want = oracle(text);
	PL_CHECK(want->len == 5);
	g_autofree char *cache = g_build_filename(t_tmp(), "ks-cache", NULL);
	g_autofree char *old = g_strdup(g_getenv("XDG_CACHE_HOME"));
	g_setenv("XDG_CACHE_HOME", cache, TRUE);
	g_autofree char *path = g_build_filename(t_tmp(), "kallsyms", NULL);
	t_write(path, text);
	PlTargetArch arch = t_host_arch();
	g_autofree char *dir = g_build_filename(cache, "perflens", "kallsyms", NULL);
	for (guint round = 0; round < 4; round++) {
		g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
		PL_CHECK(pl_symbols_load_kallsyms_file(s, path));
		check_all(s, want, round == 0 ? "parsed" : "cached");
		g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
		const char *n = d ? g_dir_read_name(d) : NULL;
		PL_CHECKF(n && g_str_has_suffix(n, ".idx"), "no table in %s", dir);
		g_autofree char *entry = g_build_filename(dir, n, NULL);
		struct stat st;
		/* a header, the six code symbols (_stext too), "[kernel]", "[ext4]", "[xfs]" */
		PL_CHECK(stat(entry, &st) == 0 && st.st_size == 80 + 6 * 24 + 9 + 7 + 6);
		if (round == 1) { /* cut short: ignored, written again */
			PL_CHECK(truncate(entry, st.st_size - 3) == 0);
		} else if (round == 2) { /* a module index out of range */
			g_autofree char *b = NULL;
			gsize len = 0;
			PL_CHECK(g_file_get_contents(entry, &b, &len, NULL));
			b[80 + 22] = 9;
			PL_CHECK(g_file_set_contents(entry, b, (gssize)len, NULL));
		}
	}
	/* the file changed (same size, new time): its new symbols */
	GArray *want2 = oracle("ffffffff81000000 T _stext\n"
			       "ffffffff81000000 T begin\n"
			       "ffffffff81001000 t helper\n"
			       "ffffffff81001800 d data_not_code\n"
			       "ffffffffc0000000 t modfn\t[ext4]\n"
			       "ffffffffc0001000 t other\t[xfs]\n"
			       "ffffffff81002000 T later\n");
	t_write(path, "ffffffff81000000 T _stext\n"
		      "ffffffff81000000 T begin\n"
		      "ffffffff81001000 t helper\n"
		      "ffffffff81001800 d data_not_code\n"
		      "ffffffffc0000000 t modfn\t[ext4]\n"
		      "ffffffffc0001000 t other\t[xfs]\n"
		      "ffffffff81002000 T later\n");
	struct timespec later[2] = { { 0, UTIME_OMIT }, { time(NULL) + 10, 0 } };
	PL_CHECK(utimensat(AT_FDCWD, path, later, 0) == 0);
	g_autoptr(PlSymbols) s = pl_symbols_new(NULL, &arch);
	PL_CHECK(pl_symbols_load_kallsyms_file(s, path));
	check_all(s, want2, "changed");
	oracle_free(want);
	oracle_free(want2);
	if (old)
		g_setenv("XDG_CACHE_HOME", old, TRUE);
	else
		g_unsetenv("XDG_CACHE_HOME");
}

PL_TEST_MAIN(PL_CASE(host_every_symbol), PL_CASE(load_file_refuses), PL_CASE(edge_lines),
	     PL_CASE(markers_yield), PL_CASE(cached_table))
