/* debug-cache-test.c — the cache of decompressed debug files
 * (pl-debug-inflate.c) on this host's libc debug file (libc6-dbg, as
 * Debian ships it: zlib-compressed DWARF).  Oracles: the copy made in
 * memory (PERFLENS_NO_DEBUG_CACHE=1, the path without a cache), byte for
 * byte, and the frames (functions, inline frames, lines) it gives.
 * Every case points XDG_CACHE_HOME at a scratch dir of its own.
 */
#include <gelf.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "pl-build-id.h"
#include "pl-debug-inflate.h"
#include "pl-elf-locator.h"
#include "pl-symbols-types.h"
#include "sym-test-util.h"

static const char libc_path[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";

/* This host's libc and its debug file (libc6-dbg: ci/deps.sh), or the case
 * fails; skipped only on a host that is not x86-64 (the path is Debian's
 * x86-64 multiarch one). */
static char *libc_debug(guint8 *id, gsize *idn)
{
#if !defined(__x86_64__)
	PL_SKIP("[other-arch] the case reads Debian's x86-64 libc (%s)", libc_path);
#endif
	*idn = g_file_test(libc_path, G_FILE_TEST_EXISTS) ? pl_elf_file_build_id(libc_path, id) : 0;
	PL_CHECKF(*idn, "no %s with a build-id here", libc_path);
	g_autofree char *hex = pl_build_id_hex(id, *idn);
	char *path = g_strdup_printf("/usr/lib/debug/.build-id/%c%c/%s.debug", hex[0], hex[1],
				     hex + 2);
	PL_CHECKF(g_file_test(path, G_FILE_TEST_EXISTS), "no libc debug file %s (libc6-dbg: ci/deps.sh)",
		  path);
	elf_version(EV_CURRENT);
	return path;
}

/* A fresh XDG_CACHE_HOME under the scratch dir; returns the cache dir
 * pl-debug-inflate.c will use in it. */
static char *fresh_cache(const char *name)
{
	g_autofree char *xdg = g_build_filename(t_tmp(), name, NULL);
	g_mkdir_with_parents(xdg, 0755);
	g_setenv("XDG_CACHE_HOME", xdg, TRUE);
	g_unsetenv("PERFLENS_NO_DEBUG_CACHE");
	g_unsetenv("PERFLENS_DEBUG_CACHE_MAX_MB");
	char *dir = pl_debug_cache_dir();
	PL_CHECK(g_str_has_prefix(dir, xdg));
	return dir;
}

/* The *.debug entries of the cache dir. */
static GPtrArray *entries(const char *dir)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	for (const char *n; d && (n = g_dir_read_name(d));)
		if (g_str_has_suffix(n, ".debug"))
			g_ptr_array_add(a, g_build_filename(dir, n, NULL));
	return a;
}

static GBytes *fd_bytes(int fd)
{
	struct stat st;
	PL_CHECK(fstat(fd, &st) == 0);
	guint8 *b = g_malloc((gsize)st.st_size);
	PL_CHECK(pread(fd, b, (size_t)st.st_size, 0) == st.st_size);
	return g_bytes_new_take(b, (gsize)st.st_size);
}

/* The copy made in memory, as the path without a cache gives it. */
static GBytes *memory_copy(const char *dbg)
{
	g_setenv("PERFLENS_NO_DEBUG_CACHE", "1", TRUE);
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	g_unsetenv("PERFLENS_NO_DEBUG_CACHE");
	PL_CHECK(fd >= 0 && copy);
	struct stat st;
	PL_CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0); /* a memfd: no name */
	GBytes *b = fd_bytes(fd);
	close(fd);
	return b;
}

/* Opens dbg through the cache; checks the copy is the in-memory one byte
 * for byte, that it is the (only) cache entry, opened read-only. */
static void open_cached_check(const char *dbg, const char *dir, GBytes *want)
{
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	PL_CHECK(fd >= 0 && copy);
	g_autoptr(GBytes) have = fd_bytes(fd);
	PL_CHECKF(g_bytes_equal(have, want), "the cached copy differs from the one made in memory");
	g_autoptr(GPtrArray) e = entries(dir);
	PL_CHECKF(e->len == 1, "%u cache entries", e->len);
	struct stat a, b;
	PL_CHECK(fstat(fd, &a) == 0 && stat(g_ptr_array_index(e, 0), &b) == 0);
	PL_CHECKF(a.st_ino == b.st_ino, "the fd is not the cache entry");
	PL_CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
	close(fd);
}

/* ======================================================================
 * Frames: uncached, cold and warm give the same
 * ====================================================================== */

static PlSymbols *libc_syms(const guint8 *id, gsize idn, guint64 *bias)
{
	PlSymOptions o = t_opts();
	o.host_files = TRUE;
	PlTargetArch arch = t_host_arch();
	PlSymbols *s = pl_symbols_new(&o, &arch);
	t_opts_clear(&o);
	*bias = t_map_elf(s, 7, libc_path, libc_path, 0x7f0000000000ull, id, idn);
	return s;
}

/* .text of libc: [*start, *end) */
static void libc_text(guint64 *start, guint64 *end)
{
	int fd = open(libc_path, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	size_t shstrndx;
	PL_CHECK(e && elf_getshdrstrndx(e, &shstrndx) == 0);
	*start = *end = 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(s, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (n && !strcmp(n, ".text")) {
			*start = sh.sh_addr;
			*end = sh.sh_addr + sh.sh_size;
		}
	}
	elf_end(e);
	close(fd);
	PL_CHECK(*end > *start);
}

static void cold_warm_same_as_uncached(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	g_autofree char *dir = fresh_cache("xdg-frames");
	guint64 b0, b1, b2, ts, te;
	libc_text(&ts, &te);

	g_setenv("PERFLENS_NO_DEBUG_CACHE", "1", TRUE);
	g_autoptr(PlSymbols) s0 = libc_syms(id, idn, &b0);
	PlFrameInfo probe[2];
	pl_symbols_resolve(s0, 7, b0 + ts, FALSE, probe, 2); /* opens the debug file */
	g_unsetenv("PERFLENS_NO_DEBUG_CACHE");
	g_autoptr(GPtrArray) none = entries(dir);
	PL_CHECKF(none->len == 0, "PERFLENS_NO_DEBUG_CACHE=1 wrote to the cache");

	g_autoptr(PlSymbols) s1 = libc_syms(id, idn, &b1); /* cold: fills the cache */
	pl_symbols_resolve(s1, 7, b1 + ts, FALSE, probe, 2);
	g_autoptr(GPtrArray) one = entries(dir);
	PL_CHECKF(one->len == 1, "cold run: %u cache entries", one->len);
	struct stat st1;
	PL_CHECK(stat(g_ptr_array_index(one, 0), &st1) == 0);
	g_autoptr(PlSymbols) s2 = libc_syms(id, idn, &b2); /* warm: maps it */
	pl_symbols_resolve(s2, 7, b2 + ts, FALSE, probe, 2);
	struct stat st2;
	PL_CHECK(stat(g_ptr_array_index(one, 0), &st2) == 0);
	PL_CHECKF(st1.st_ino == st2.st_ino, "the warm run rebuilt the entry");
	PlElf *e0 = g_ptr_array_index(s0->elf_order, 0), *e2 = g_ptr_array_index(s2->elf_order, 0);
	struct stat fs;
	PL_CHECK(e0->debug_copy_fd >= 0 && fstat(e0->debug_copy_fd, &fs) == 0 && fs.st_nlink == 0);
	PL_CHECK(e2->debug_copy_fd >= 0 && fstat(e2->debug_copy_fd, &fs) == 0 &&
		 fs.st_ino == st2.st_ino);

	/* every 29th byte of libc's code, as a sampled IP and as a return
	 * address */
	guint compared = 0, inlined = 0, lined = 0;
	for (guint64 a = ts; a < te; a += 29) {
		for (int ret = 0; ret < 2; ret++) {
			PlFrameInfo x[PL_SYM_MAX_INLINE + 1], y[PL_SYM_MAX_INLINE + 1],
				z[PL_SYM_MAX_INLINE + 1];
			guint nx = pl_symbols_resolve(s0, 7, b0 + a, ret, x, G_N_ELEMENTS(x));
			guint ny = pl_symbols_resolve(s1, 7, b1 + a, ret, y, G_N_ELEMENTS(y));
			guint nz = pl_symbols_resolve(s2, 7, b2 + a, ret, z, G_N_ELEMENTS(z));
			PL_CHECKF(nx == ny && nx == nz, "%#llx: %u / %u / %u frames",
				  (unsigned long long)a, nx, ny, nz);
			for (guint i = 0; i < nx; i++) {
				const PlFrameInfo *p = &x[i];
				for (int k = 0; k < 2; k++) {
					const PlFrameInfo *q = k ? &z[i] : &y[i];
					PL_CHECKF(!g_strcmp0(p->function, q->function) &&
							  !g_strcmp0(p->file, q->file) &&
							  p->line == q->line && p->inlined == q->inlined,
						  "%#llx frame %u: %s %s:%u vs %s %s:%u (%s)",
						  (unsigned long long)a, i, p->function, p->file,
						  p->line, q->function, q->file, q->line,
						  k ? "warm" : "cold");
				}
				inlined += p->inlined;
				lined += p->line > 0;
			}
			compared++;
		}
	}
	PL_CHECKF(inlined > 100 && lined > 1000, "weak comparison: %u inline frames, %u lines",
		  inlined, lined);
	printf("# %u libc lookups identical uncached / cold / warm (%u inline frames, %u with "
	       "lines)\n",
	       compared, inlined, lined);
}

/* ======================================================================
 * The cache file itself
 * ====================================================================== */

static void copy_is_the_memory_copy(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	g_autofree char *dir = fresh_cache("xdg-bytes");
	g_autoptr(GBytes) want = memory_copy(dbg);
	open_cached_check(dbg, dir, want); /* cold */
	open_cached_check(dbg, dir, want); /* warm */
	/* keyed by the debug file's build-id, size and mtime */
	g_autoptr(GPtrArray) e = entries(dir);
	g_autofree char *hex = pl_build_id_hex(id, idn);
	struct stat st;
	PL_CHECK(stat(dbg, &st) == 0);
	g_autofree char *key = g_strdup_printf("%s-%lld-%lld.", hex, (long long)st.st_size,
					       (long long)st.st_mtim.tv_sec);
	g_autofree char *base = g_path_get_basename(g_ptr_array_index(e, 0));
	PL_CHECKF(g_str_has_prefix(base, key), "entry %s, expected %s…", base, key);
}

/* The cache holds copies of the board's debug files: its directories are
 * 0700 and its entries 0600, even with umask 0. */
static void cache_private(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	g_autofree char *dir = fresh_cache("xdg-private");
	mode_t old = umask(0);
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	umask(old);
	PL_CHECK(fd >= 0 && copy);
	close(fd);
	g_autoptr(GPtrArray) e = entries(dir);
	PL_CHECKF(e->len == 1, "%u cache entries", e->len);
	g_autofree char *top = g_path_get_dirname(dir);
	const char *paths[] = { top, dir, g_ptr_array_index(e, 0) };
	const mode_t want[] = { 0700, 0700, 0600 };
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		struct stat st;
		PL_CHECK(stat(paths[i], &st) == 0);
		PL_CHECKF((st.st_mode & 07777) == want[i], "%s is %04o, want %04o", paths[i],
			  (unsigned)(st.st_mode & 07777), (unsigned)want[i]);
	}
}

/* Damages the single entry of dir with how, then checks the next open
 * notices and rebuilds it. */
static void damage_and_reopen(const char *dbg, const char *dir, GBytes *want, const char *what,
			      void (*how)(const char *path, gsize size))
{
	g_autoptr(GPtrArray) e = entries(dir);
	PL_CHECK(e->len == 1);
	how(g_ptr_array_index(e, 0), g_bytes_get_size(want));
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	PL_CHECK(fd >= 0 && copy);
	g_autoptr(GBytes) have = fd_bytes(fd);
	close(fd);
	PL_CHECKF(g_bytes_equal(have, want), "%s: a damaged entry was used", what);
	open_cached_check(dbg, dir, want); /* and the entry on disk is whole again */
}

static void truncate_half(const char *p, gsize size)
{
	PL_CHECK(truncate(p, (off_t)(size / 2)) == 0);
}

static void overwrite_at(const char *p, off_t off, const char *junk)
{
	int fd = open(p, O_WRONLY);
	PL_CHECK(fd >= 0 && pwrite(fd, junk, strlen(junk), off) == (ssize_t)strlen(junk));
	close(fd);
}

static void bad_elf_header(const char *p, gsize size)
{
	overwrite_at(p, 0, "not an ELF file at all");
}

static void bad_section_headers(const char *p, gsize size)
{
	/* the table ends the copy: the last entry's sh_offset */
	overwrite_at(p, (off_t)size - 40, "\x7f\x7f\x7f\x7f\x7f\x7f\x7f\x7f");
}

static void bad_build_id(const char *p, gsize size)
{
	/* the file names another build-id: e.g. an entry copied by hand */
	int fd = open(p, O_RDWR);
	PL_CHECK(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	PL_CHECK(e);
	gboolean done = FALSE;
	for (Elf_Scn *s = NULL; !done && (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		GElf_Nhdr nh;
		size_t off = 0, no, dof;
		while (d && (off = gelf_getnote(d, off, &nh, &no, &dof)) > 0)
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz > 0) {
				guint8 b;
				off_t at = (off_t)(sh.sh_offset + dof);
				PL_CHECK(pread(fd, &b, 1, at) == 1);
				b ^= 0xff;
				PL_CHECK(pwrite(fd, &b, 1, at) == 1);
				done = TRUE;
				break;
			}
	}
	elf_end(e);
	close(fd);
	PL_CHECK(done);
}

static void bad_entry_rebuilt(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	g_autofree char *dir = fresh_cache("xdg-damage");
	g_autoptr(GBytes) want = memory_copy(dbg);
	open_cached_check(dbg, dir, want);
	damage_and_reopen(dbg, dir, want, "truncated", truncate_half);
	damage_and_reopen(dbg, dir, want, "ELF header", bad_elf_header);
	damage_and_reopen(dbg, dir, want, "section headers", bad_section_headers);
	damage_and_reopen(dbg, dir, want, "build-id", bad_build_id);
}

/* ======================================================================
 * Processes filling the cache at once
 * ====================================================================== */

/* Child mode (this program run again with PL_CACHE_CHILD=debug file):
 * opens it through the cache and prints the copy's checksum. */
__attribute__((constructor)) static void cache_child(void)
{
	const char *dbg = getenv("PL_CACHE_CHILD");
	if (!dbg)
		return;
	elf_version(EV_CURRENT);
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	if (fd < 0 || !copy)
		_exit(3);
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_nlink == 0)
		_exit(4); /* not the cache's */
	guint8 *b = g_malloc((gsize)st.st_size);
	if (pread(fd, b, (size_t)st.st_size, 0) != st.st_size)
		_exit(5);
	g_autofree char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, b, (gsize)st.st_size);
	printf("%s\n", sum);
	fflush(stdout);
	_exit(0);
}

static void concurrent_fill(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	g_autoptr(GBytes) want = memory_copy(dbg);
	g_autofree char *want_sum = g_compute_checksum_for_bytes(G_CHECKSUM_SHA256, want);
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
	PL_CHECK(self);
	enum { ROUNDS = 3, N = 3 };
	for (guint round = 0; round < ROUNDS; round++) {
		g_autofree char *name = g_strdup_printf("xdg-race-%u", round);
		g_autofree char *dir = fresh_cache(name);
		GPid pids[N];
		gint outs[N];
		char *argv[] = { self, NULL };
		g_auto(GStrv) env = g_get_environ();
		env = g_environ_setenv(env, "PL_CACHE_CHILD", dbg, TRUE);
		env = g_environ_setenv(env, "PL_TEST_KEEP_XDG", "1", TRUE);
		for (guint i = 0; i < N; i++)
			PL_CHECK(g_spawn_async_with_pipes(NULL, argv, env, G_SPAWN_DO_NOT_REAP_CHILD,
							  NULL, NULL, &pids[i], NULL, &outs[i],
							  NULL, NULL));
		for (guint i = 0; i < N; i++) {
			char buf[128] = "";
			ssize_t k, got = 0;
			while ((k = read(outs[i], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
				got += k;
			close(outs[i]);
			int status = 0;
			PL_CHECK(waitpid(pids[i], &status, 0) == pids[i]);
			g_spawn_close_pid(pids[i]);
			PL_CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
				  "round %u: process %u failed (status %#x)", round, i, status);
			PL_CHECKF(!strncmp(buf, want_sum, strlen(want_sum)),
				  "round %u: process %u got a different copy", round, i);
		}
		/* one whole entry, no temp file left */
		open_cached_check(dbg, dir, want);
		g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
		for (const char *n; d && (n = g_dir_read_name(d));)
			PL_CHECKF(!g_str_has_prefix(n, ".tmp-"), "left behind: %s", n);
	}
	printf("# %u rounds of %u processes filling one cache at once\n", ROUNDS, N);
}

/* ======================================================================
 * Fallbacks and eviction
 * ====================================================================== */

static void unwritable_falls_back(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	/* a regular file where the cache dir should be: mkdir fails even
	 * for root */
	g_autofree char *f = g_build_filename(t_tmp(), "xdg-is-a-file", NULL);
	t_write(f, "x");
	g_setenv("XDG_CACHE_HOME", f, TRUE);
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	g_unsetenv("XDG_CACHE_HOME");
	PL_CHECK(fd >= 0 && copy);
	struct stat st;
	PL_CHECK(fstat(fd, &st) == 0 && st.st_nlink == 0); /* the memfd */
	close(fd);
}

static void touch_old(const char *path, gsize size, gint64 age_s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	PL_CHECK(fd >= 0 && ftruncate(fd, (off_t)size) == 0);
	struct timespec ts[2] = { { time(NULL) - age_s, 0 }, { time(NULL) - age_s, 0 } };
	PL_CHECK(futimens(fd, ts) == 0);
	close(fd);
}

static void eviction(void)
{
	guint8 id[PL_SYM_MAX_BUILD_ID];
	gsize idn;
	g_autofree char *dbg = libc_debug(id, &idn);
	g_autofree char *dir = fresh_cache("xdg-evict");
	g_autofree char *hex = pl_build_id_hex(id, idn);
	g_mkdir_with_parents(dir, 0700);
	/* an older version of the same file, two unrelated entries (the
	 * older is evicted first), a temp file a crash left, one being
	 * written now */
	g_autofree char *stale = g_strdup_printf("%s/%s-1-1.000000000.debug", dir, hex);
	g_autofree char *old = g_build_filename(dir, "aa-1-1.000000000.debug", NULL);
	g_autofree char *recent = g_build_filename(dir, "bb-1-1.000000000.debug", NULL);
	g_autofree char *tmp = g_build_filename(dir, ".tmp-cc-123456", NULL);
	g_autofree char *fresh_tmp = g_build_filename(dir, ".tmp-dd-123456", NULL);
	touch_old(stale, 1000, 10);
	touch_old(old, 8u << 20, 7200);
	touch_old(recent, 8u << 20, 60);
	touch_old(tmp, 1000, 7200);
	touch_old(fresh_tmp, 1000, 0);
	g_autoptr(GBytes) want = memory_copy(dbg);
	/* libc's copy is ~13 MB: a 24 MB cap keeps it and the recent entry */
	PL_CHECKF(g_bytes_get_size(want) + (8u << 20) < (24u << 20) &&
			  g_bytes_get_size(want) + (16u << 20) > (24u << 20),
		  "libc's copy is %zu bytes: the cap of this test does not fit it",
		  g_bytes_get_size(want));
	g_setenv("PERFLENS_DEBUG_CACHE_MAX_MB", "24", TRUE);
	gboolean copy = FALSE;
	int fd = pl_debug_open_inflated(dbg, &copy);
	g_unsetenv("PERFLENS_DEBUG_CACHE_MAX_MB");
	PL_CHECK(fd >= 0 && copy);
	close(fd);
	PL_CHECK(!g_file_test(stale, G_FILE_TEST_EXISTS));
	PL_CHECK(!g_file_test(old, G_FILE_TEST_EXISTS));
	PL_CHECK(g_file_test(recent, G_FILE_TEST_EXISTS));
	PL_CHECK(!g_file_test(tmp, G_FILE_TEST_EXISTS));
	PL_CHECK(g_file_test(fresh_tmp, G_FILE_TEST_EXISTS));
	g_autoptr(GPtrArray) e = entries(dir);
	PL_CHECKF(e->len == 2, "%u entries left", e->len);
}

PL_TEST_MAIN(PL_CASE(copy_is_the_memory_copy), PL_CASE(cache_private), PL_CASE(cold_warm_same_as_uncached),
	     PL_CASE(bad_entry_rebuilt), PL_CASE(concurrent_fill), PL_CASE(unwritable_falls_back),
	     PL_CASE(eviction))
