/* pl-debug-inflate.c — a separate debug file with its DWARF decompressed,
 * on both cores, for libdw, kept in a cache on disk.
 *
 * Why: Debian's -dbg/-dbgsym files compress every .debug_* section
 * (SHF_COMPRESSED, zlib), and libdw 0.188 decompresses all of them, one
 * after the other, the first time a module's DWARF is opened — 10 MB for
 * libc's, about 40% of `perflens report` on a 20 s recording.  Here the
 * sections symbolization reads (.debug_info, _abbrev, _line, _str,
 * _aranges, _rnglists, …) are decompressed on two threads straight into
 * a copy of the file whose section headers now describe them
 * uncompressed; those it never reads (location lists, macros, pubnames:
 * only debuggers evaluate them) are left compressed and unnamed, so libdw
 * neither decompresses nor sees them.  The analysis is unchanged: libdw
 * reads the same bytes.
 *
 * The copy is made once per debug file and kept, as perf keeps ~/.debug
 * and debuginfod its cache: $XDG_CACHE_HOME/perflens/debug/ holds
 * ID-SIZE-MTIME.debug, ID the debug file's build-id and SIZE/MTIME its
 * own (an updated package never gets a stale copy).  It is written to a
 * temporary file and renamed into place, never over an existing entry
 * (the first process to finish wins, the others use its copy), so
 * concurrent perflens processes each see a whole file or none; later runs map it read-only after
 * checking it (ELF header, build-id, size and section headers as this
 * file's layout predicts) and rebuild it on any mismatch.  Least recently
 * used entries beyond PL_DEBUG_CACHE_MAX (2 GiB; PERFLENS_DEBUG_CACHE_MAX_MB
 * sets another cap) are removed after each write.
 * PERFLENS_NO_DEBUG_CACHE=1, or a cache directory that cannot be written,
 * gives the copy in memory (memfd) instead, as before.
 *
 * Thread safety: each worker has its own Elf handle on its own fd and
 * writes a disjoint range of the copy; the functions keep no state but a
 * once-only log flag.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* renameat2 */
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "pl-build-id.h"
#include "pl-debug-inflate.h"

#define PL_INFLATE_MAX_OUT (2ull << 30) /* decompressed copy of one debug file */
#define PL_INFLATE_MAX_SECTIONS 4096u

typedef struct {
	size_t idx;      /* section index */
	guint64 out_off; /* where its decompressed bytes go in the copy */
	guint64 size;    /* ch_size */
	guint64 align;   /* ch_addralign */
	int worker;      /* 0 or 1 */
} Job;

typedef struct {
	const char *path;
	guint8 *map;
	Job *jobs;
	guint njobs;
	int worker;
	gboolean ok;
} Worker;

/* Debug sections no lookup of pl-symbols.c reads (DW_AT_location lists,
 * macros, name indexes). */
static gboolean section_unused(const char *n)
{
	static const char *const unused[] = { ".debug_loc", ".debug_loclists", ".debug_macro",
					      ".debug_macinfo", ".debug_pubnames", ".debug_pubtypes",
					      ".debug_gnu_pubnames", ".debug_gnu_pubtypes" };
	for (guint i = 0; i < G_N_ELEMENTS(unused); i++)
		if (!strcmp(n, unused[i]))
			return TRUE;
	return FALSE;
}

static gpointer worker_run(gpointer p)
{
	Worker *w = p;
	w->ok = FALSE;
	int fd = open(w->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	gboolean ok = e != NULL;
	for (guint i = 0; ok && i < w->njobs; i++) {
		const Job *j = &w->jobs[i];
		if (j->worker != w->worker)
			continue;
		Elf_Scn *scn = elf_getscn(e, j->idx);
		Elf_Data *d = scn && elf_compress(scn, 0, 0) >= 0 ? elf_getdata(scn, NULL) : NULL;
		if (!d || d->d_size != j->size || (j->size && !d->d_buf)) {
			ok = FALSE;
			break;
		}
		memcpy(w->map + j->out_off, d->d_buf, d->d_size);
		/* libelf keeps the decompressed buffer until elf_end: drop it
		 * now rather than hold every section twice */
		elf_end(e);
		e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ok = e != NULL;
	}
	if (e)
		elf_end(e);
	close(fd);
	w->ok = ok;
	return NULL;
}

static guint64 align_up(guint64 v, guint64 a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static gboolean copy_range(int fd, guint8 *map, guint64 from, guint64 to)
{
	while (from < to) {
		ssize_t k = pread(fd, map + from, (size_t)(to - from), (off_t)from);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return FALSE;
		from += (guint64)k;
	}
	return TRUE;
}

/* Where every byte of the copy comes from, read from the debug file's
 * headers only (no section data is decompressed to plan it). */
typedef struct {
	Job *jobs;
	guint8 *hide; /* per section: a compressed section left out */
	guint njobs;
	size_t shnum;
	size_t shentsize;
	gboolean is64;
	guint64 file_size;
	guint64 orig_shoff; /* e_shoff of the debug file */
	guint64 shoff;      /* e_shoff of the copy */
	guint64 total;      /* size of the copy */
	guint64 load[2];    /* bytes each worker inflates */
} Layout;

static void layout_clear(Layout *l)
{
	g_clear_pointer(&l->jobs, g_free);
	g_clear_pointer(&l->hide, g_free);
}

/* Plans the copy of the debug file e (file_size bytes).  FALSE when it
 * cannot or need not be made. */
static gboolean layout_plan(Elf *e, guint64 file_size, Layout *l)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);
	size_t shnum = 0, shstrndx = 0;
	GElf_Ehdr eh;
	const guint8 host_data = G_BYTE_ORDER == G_LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB;
	/* the copy's section headers are written raw: host byte order only */
	if (elf_kind(e) != ELF_K_ELF || !ident || ident[EI_DATA] != host_data ||
	    !gelf_getehdr(e, &eh) || elf_getshdrnum(e, &shnum) != 0 ||
	    elf_getshdrstrndx(e, &shstrndx) != 0 || shnum == 0 ||
	    shnum > PL_INFLATE_MAX_SECTIONS ||
	    (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32))
		return FALSE;
	gboolean is64 = ident[EI_CLASS] == ELFCLASS64;
	size_t shentsize = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (eh.e_shentsize != shentsize || eh.e_shoff > file_size ||
	    shnum * shentsize > file_size - eh.e_shoff)
		return FALSE;

	*l = (Layout){ .shnum = shnum, .shentsize = shentsize, .is64 = is64,
		       .file_size = file_size, .orig_shoff = eh.e_shoff };
	l->jobs = g_new0(Job, shnum);
	l->hide = g_new0(guint8, shnum);
	guint64 out = align_up(file_size, 64);
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		const char *n = elf_strptr(e, shstrndx, sh.sh_name);
		if (!n || strncmp(n, ".debug_", 7) != 0)
			continue;
		if (section_unused(n)) {
			l->hide[i] = 1;
			continue;
		}
		GElf_Chdr ch;
		if (!gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB ||
		    ch.ch_size > PL_INFLATE_MAX_OUT || (ch.ch_addralign & (ch.ch_addralign - 1)))
			goto fail;
		out = align_up(out, ch.ch_addralign ? ch.ch_addralign : 1);
		l->jobs[l->njobs++] = (Job){ i, out, ch.ch_size, ch.ch_addralign, 0 };
		out += ch.ch_size;
		if (out > PL_INFLATE_MAX_OUT)
			goto fail;
	}
	if (l->njobs == 0)
		goto fail; /* nothing compressed that is read: the file as it is */
	l->shoff = align_up(out, 8);
	l->total = l->shoff + shnum * shentsize;
	if (!is64 && l->shoff > G_MAXUINT32)
		goto fail;

	/* two workers: the biggest sections first, each to the less loaded */
	Job *jobs = l->jobs;
	for (guint k = 0; k < l->njobs; k++) {
		guint best = k;
		for (guint m = k + 1; m < l->njobs; m++)
			if (jobs[m].size > jobs[best].size)
				best = m;
		Job t = jobs[k];
		jobs[k] = jobs[best];
		jobs[best] = t;
		jobs[k].worker = l->load[1] < l->load[0];
		l->load[jobs[k].worker] += jobs[k].size;
	}
	return TRUE;
fail:
	layout_clear(l);
	return FALSE;
}

/* The copy's section header table: the file's, with the decompressed
 * sections pointing into the copy and the left-out ones unnamed.  NULL
 * when the file cannot be read. */
static guint8 *layout_shdrs(const Layout *l, int fd)
{
	gsize len = l->shnum * l->shentsize;
	g_autofree guint8 *sh = g_malloc(len);
	if (pread(fd, sh, len, (off_t)l->orig_shoff) != (ssize_t)len)
		return NULL;
	for (size_t i = 1; i < l->shnum; i++) {
		if (!l->hide[i])
			continue;
		if (l->is64)
			((Elf64_Shdr *)(void *)(sh + i * l->shentsize))->sh_name = 0;
		else
			((Elf32_Shdr *)(void *)(sh + i * l->shentsize))->sh_name = 0;
	}
	for (guint k = 0; k < l->njobs; k++) {
		const Job *j = &l->jobs[k];
		if (l->is64) {
			Elf64_Shdr *s = (Elf64_Shdr *)(void *)(sh + j->idx * l->shentsize);
			s->sh_offset = j->out_off;
			s->sh_size = j->size;
			s->sh_flags &= ~(Elf64_Xword)SHF_COMPRESSED;
			s->sh_addralign = j->align;
		} else {
			Elf32_Shdr *s = (Elf32_Shdr *)(void *)(sh + j->idx * l->shentsize);
			s->sh_offset = (Elf32_Off)j->out_off;
			s->sh_size = (Elf32_Word)j->size;
			s->sh_flags &= ~(Elf32_Word)SHF_COMPRESSED;
			s->sh_addralign = (Elf32_Word)j->align;
		}
	}
	return g_steal_pointer(&sh);
}

/* Writes the whole copy into out (already l->total bytes long, its blocks
 * allocated) from the debug file path open as fd (e its Elf). */
static gboolean layout_fill(const Layout *l, const char *path, int fd, Elf *e, int out)
{
	guint8 *map = mmap(NULL, l->total, PROT_READ | PROT_WRITE, MAP_SHARED, out, 0);
	if (map == MAP_FAILED)
		return FALSE;
	/* the original bytes, but for the compressed sections (replaced or
	 * hidden), which no one reads from the copy */
	gboolean ok = TRUE;
	guint64 from = 0, file_size = l->file_size;
	for (size_t i = 1; ok && i <= l->shnum; i++) {
		guint64 skip_at = file_size, skip_end = file_size;
		if (i < l->shnum) {
			GElf_Shdr sh;
			gboolean replaced = l->hide[i];
			for (guint k = 0; k < l->njobs && !replaced; k++)
				replaced = l->jobs[k].idx == i;
			if (!replaced || !gelf_getshdr(elf_getscn(e, i), &sh) ||
			    sh.sh_offset < from || sh.sh_offset > file_size ||
			    sh.sh_size > file_size - sh.sh_offset)
				continue;
			skip_at = sh.sh_offset;
			skip_end = sh.sh_offset + sh.sh_size;
		}
		ok = copy_range(fd, map, from, skip_at);
		from = skip_end;
	}
	Worker w[2] = { { path, map, l->jobs, l->njobs, 0, FALSE },
			{ path, map, l->jobs, l->njobs, 1, FALSE } };
	if (ok) {
		GThread *th =
			l->load[1] ? g_thread_try_new("pl-inflate", worker_run, &w[1], NULL) : NULL;
		worker_run(&w[0]);
		if (th)
			g_thread_join(th);
		else if (l->load[1])
			worker_run(&w[1]); /* no thread: both halves here */
		else
			w[1].ok = TRUE;
		ok = w[0].ok && w[1].ok;
	}
	g_autofree guint8 *sh = ok ? layout_shdrs(l, fd) : NULL;
	if (sh) {
		memcpy(map + l->shoff, sh, l->shnum * l->shentsize);
		if (l->is64)
			((Elf64_Ehdr *)(void *)map)->e_shoff = l->shoff;
		else
			((Elf32_Ehdr *)(void *)map)->e_shoff = (Elf32_Off)l->shoff;
	}
	munmap(map, l->total);
	return sh != NULL;
}

/* The copy in memory: a memfd, or -1. */
static int memfd_copy(const Layout *l, const char *path, int fd, Elf *e)
{
	int mfd = memfd_create("perflens-debug", MFD_CLOEXEC);
	if (mfd < 0)
		return -1;
	if (ftruncate(mfd, (off_t)l->total) != 0 || !layout_fill(l, path, fd, e, mfd)) {
		close(mfd);
		return -1;
	}
	return mfd;
}

/* ======================================================================
 * The cache on disk
 * ====================================================================== */

#define PL_DEBUG_CACHE_MAX (2ull << 30) /* bytes of copies kept */
#define PL_DEBUG_CACHE_TMP_AGE (3600)   /* s: a temp file older than this is a crash's */

static gint cache_logged;

/* Says once per process why the cache is not used (a debug line: the
 * copy in memory works as well, only slower). */
static void cache_log(const char *what, const char *dir)
{
	if (g_atomic_int_compare_and_exchange(&cache_logged, 0, 1))
		g_debug("debug file cache: %s %s: %s; decompressing in memory", what, dir,
			g_strerror(errno));
}

/* $XDG_CACHE_HOME/perflens/debug, read at each call (tests point the
 * variable elsewhere; g_get_user_cache_dir() keeps its first answer). */
static char *cache_dir(void)
{
	const char *x = g_getenv("XDG_CACHE_HOME");
	return g_build_filename(x && g_path_is_absolute(x) ? x : g_get_user_cache_dir(),
				"perflens", "debug", NULL);
}

char *pl_debug_cache_dir(void)
{
	return cache_dir();
}

/* TRUE when the open file cfd is the copy l predicts of the debug file fd
 * with build-id id: its size, ELF header, build-id and section headers. */
static gboolean cache_entry_valid(const Layout *l, int fd, int cfd, const guint8 *id, gsize idn)
{
	struct stat st;
	if (fstat(cfd, &st) != 0 || !S_ISREG(st.st_mode) || (guint64)st.st_size != l->total)
		return FALSE;
	Elf *ce = elf_begin(cfd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	const void *cid = NULL;
	gboolean ok = ce && elf_kind(ce) == ELF_K_ELF && gelf_getehdr(ce, &eh) &&
		      eh.e_shoff == l->shoff && dwelf_elf_gnu_build_id(ce, &cid) == (ssize_t)idn &&
		      cid && !memcmp(cid, id, idn);
	if (ce)
		elf_end(ce);
	if (!ok)
		return FALSE;
	gsize len = l->shnum * l->shentsize;
	g_autofree guint8 *want = layout_shdrs(l, fd);
	g_autofree guint8 *have = g_malloc(len);
	return want && pread(cfd, have, len, (off_t)l->shoff) == (ssize_t)len &&
	       !memcmp(want, have, len);
}

typedef struct {
	char *path;
	guint64 size;
	gint64 mtime_ns;
} CacheEntry;

static gint cmp_entry_age(gconstpointer pa, gconstpointer pb)
{
	const CacheEntry *a = pa, *b = pb;
	return a->mtime_ns < b->mtime_ns ? -1 : a->mtime_ns > b->mtime_ns;
}

static void entry_clear(gpointer p)
{
	g_free(((CacheEntry *)p)->path);
}

/* After writing keep: drops the other copies of the same build-id (an
 * older version of the file), temp files a crash left, and the least
 * recently used copies beyond the cap (PERFLENS_DEBUG_CACHE_MAX_MB
 * overrides it). */
static void cache_evict(const char *dir, const char *keep, const char *id_hex)
{
	guint64 cap = PL_DEBUG_CACHE_MAX;
	const char *env = g_getenv("PERFLENS_DEBUG_CACHE_MAX_MB");
	if (env && *env)
		cap = g_ascii_strtoull(env, NULL, 10) << 20;
	g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
	if (!d)
		return;
	g_autoptr(GArray) entries = g_array_new(FALSE, FALSE, sizeof(CacheEntry));
	g_array_set_clear_func(entries, entry_clear);
	g_autofree char *same_id = g_strconcat(id_hex, "-", NULL);
	gint64 now = g_get_real_time() / G_USEC_PER_SEC;
	guint64 total = 0;
	for (const char *n; (n = g_dir_read_name(d)) != NULL;) {
		g_autofree char *p = g_build_filename(dir, n, NULL);
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (g_str_has_prefix(n, ".tmp-")) {
			if (now - st.st_mtime > PL_DEBUG_CACHE_TMP_AGE)
				unlink(p);
			continue;
		}
		if (!g_str_has_suffix(n, ".debug") || !strcmp(p, keep))
			continue;
		if (g_str_has_prefix(n, same_id)) {
			unlink(p);
			continue;
		}
		CacheEntry c = { g_steal_pointer(&p), (guint64)st.st_size,
				 (gint64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec };
		g_array_append_val(entries, c);
		total += c.size;
	}
	struct stat ks;
	if (stat(keep, &ks) == 0)
		total += (guint64)ks.st_size;
	g_array_sort(entries, cmp_entry_age);
	for (guint i = 0; i < entries->len && total > cap; i++) {
		CacheEntry *c = &g_array_index(entries, CacheEntry, i);
		if (unlink(c->path) == 0)
			total -= c->size;
	}
}

/* The cached copy of the debug file fd (st its stat, e its Elf), made
 * now if missing or bad.  -1 when the cache cannot be used (the caller
 * falls back to the copy in memory). */
static int cache_copy(const Layout *l, const char *path, int fd, Elf *e, const struct stat *st)
{
	const void *idp = NULL;
	ssize_t idn = dwelf_elf_gnu_build_id(e, &idp);
	if (idn <= 0 || idn > (ssize_t)PL_SYM_MAX_BUILD_ID || !idp)
		return -1; /* nothing to key it by */
	guint8 id[PL_SYM_MAX_BUILD_ID];
	memcpy(id, idp, (size_t)idn);
	g_autofree char *hex = pl_build_id_hex(id, (gsize)idn);
	g_autofree char *dir = cache_dir();
	g_autofree char *name = g_strdup_printf("%s-%" G_GUINT64_FORMAT "-%" G_GINT64_FORMAT
						".%09ld.debug",
						hex, (guint64)st->st_size,
						(gint64)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
	g_autofree char *entry = g_build_filename(dir, name, NULL);

	int cfd = open(entry, O_RDONLY | O_CLOEXEC);
	if (cfd >= 0) {
		if (cache_entry_valid(l, fd, cfd, id, (gsize)idn)) {
			/* used now: last in line for eviction */
			futimens(cfd, NULL);
			return cfd;
		}
		close(cfd);
		g_debug("debug file cache: %s does not match %s; rebuilding it", entry, path);
		unlink(entry);
	}

	if (g_mkdir_with_parents(dir, 0700) != 0) {
		cache_log("cannot create", dir);
		return -1;
	}
	g_autofree char *tmp = g_strdup_printf("%s/.tmp-%s-XXXXXX", dir, hex);
	int tfd = g_mkstemp_full(tmp, O_RDWR | O_CLOEXEC, 0600); /* as the dir: 0700 */
	if (tfd < 0) {
		cache_log("cannot write in", dir);
		return -1;
	}
	/* blocks reserved first: a full disk fails here, not as SIGBUS while
	 * the copy is written through the mapping */
	int rc = ftruncate(tfd, (off_t)l->total) == 0 ? fallocate(tfd, 0, 0, (off_t)l->total) : -1;
	if (rc != 0) {
		cache_log("no room in", dir);
		close(tfd);
		unlink(tmp);
		return -1;
	}
	if (!layout_fill(l, path, fd, e, tfd)) {
		close(tfd);
		unlink(tmp);
		return -1;
	}
	/* Never over an entry another perflens put there meanwhile: it may be
	 * open already, and one whole copy is as good as another. */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, entry, RENAME_NOREPLACE) != 0) {
		int err = errno;
		if (err == EINVAL && rename(tmp, entry) == 0)
			goto placed; /* a file system without RENAME_NOREPLACE */
		unlink(tmp);
		if (err == EEXIST) {
			cfd = open(entry, O_RDONLY | O_CLOEXEC);
			if (cfd >= 0 && cache_entry_valid(l, fd, cfd, id, (gsize)idn)) {
				close(tfd);
				return cfd;
			}
			if (cfd >= 0)
				close(cfd);
		}
		return tfd; /* whole, though not in the cache */
	}
placed:
	cache_evict(dir, entry, hex);
	/* read-only from here on, like a warm start's */
	cfd = open(entry, O_RDONLY | O_CLOEXEC);
	if (cfd < 0)
		return tfd; /* evicted or replaced already: this one is whole */
	close(tfd);
	return cfd;
}

int pl_debug_open_inflated(const char *path, gboolean *is_copy)
{
	if (is_copy)
		*is_copy = FALSE;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	Elf *e = fstat(fd, &st) == 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Layout l = { 0 };
	int cfd = -1;
	if (e && layout_plan(e, (guint64)st.st_size, &l)) {
		const char *off = g_getenv("PERFLENS_NO_DEBUG_CACHE");
		if (!off || !*off || !strcmp(off, "0"))
			cfd = cache_copy(&l, path, fd, e, &st);
		if (cfd < 0)
			cfd = memfd_copy(&l, path, fd, e);
		layout_clear(&l);
	}
	if (e)
		elf_end(e);
	if (cfd >= 0) {
		close(fd);
		if (is_copy)
			*is_copy = TRUE;
		return cfd;
	}
	return fd; /* the file as it is: libdw decompresses what it needs */
}
