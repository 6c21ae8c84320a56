/* pl-text-syms-cache.c — kallsyms tables on disk (contract in
 * pl-text-syms-cache.h).
 *
 * An entry is this machine's own bytes, in its byte order:
 *   Head, then nsyms PlTextSym as they are in memory, then the module
 *   names, each NUL-terminated (nmods of them, mods_bytes in all).
 * It is written to a temporary file and renamed into place, so a reader
 * sees a whole entry or none.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "io.h"
#include "pl-text-syms-cache.h"

#define MAGIC "PLKSYM1"
#define MAX_ENTRY (256u << 20)

typedef struct {
	char magic[8];
	guint32 sym_size; /* sizeof(PlTextSym): another build's layout is another entry */
	guint32 nmods;
	guint64 dev, ino, size, mtime_ns, sample;
	guint64 nsyms, lines_bad;
	guint32 all_zero, mods_bytes;
} Head;

G_STATIC_ASSERT(sizeof(PlTextSym) == 24);
G_STATIC_ASSERT(sizeof(Head) == 80);

/* A hash of every 64th word and of the last bytes: the key's second
 * guard after the file's identity, at a small part of a parse's cost. */
static guint64 sample_hash(const char *text, gsize len)
{
	guint64 h = 1469598103934665603ull ^ len;
	for (gsize i = 0; i + 8 <= len; i += 512) {
		guint64 w;
		memcpy(&w, text + i, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (gsize i = len > 64 ? len - 64 : 0; i < len; i++)
		h = (h ^ (guint8)text[i]) * 1099511628211ull;
	return h;
}

static guint64 mtime_ns(const struct stat *st)
{
	return (guint64)st->st_mtim.tv_sec * 1000000000ull + (guint64)st->st_mtim.tv_nsec;
}

static char *entry_path(const struct stat *st)
{
	if (g_getenv("PERFLENS_NO_DEBUG_CACHE"))
		return NULL;
	const char *x = g_getenv("XDG_CACHE_HOME");
	g_autofree char *name = g_strdup_printf("%" G_GINT64_MODIFIER "x-%" G_GINT64_MODIFIER
						"x-%" G_GINT64_MODIFIER "u.idx",
						(guint64)st->st_dev, (guint64)st->st_ino,
						(guint64)st->st_size);
	return g_build_filename(x && g_path_is_absolute(x) ? x : g_get_user_cache_dir(), "perflens",
				"kallsyms", name, NULL);
}

static gboolean read_at(int fd, void *buf, gsize n, gsize at)
{
	gsize got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(at + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return FALSE;
		got += (gsize)k;
	}
	return TRUE;
}

/* A table this file made (pl_text_syms_free's work: calling it would make
 * pl-text-syms and this file use each other). */
static void table_free(PlTextSyms *t)
{
	g_array_unref(t->syms);
	g_ptr_array_unref(t->modules);
	g_string_chunk_free(t->local);
	g_free(t);
}

/* The entry's symbols and module names, read straight into the table
 * (no copy of the whole entry: it is 3 MB for a kernel's kallsyms). */
static PlTextSyms *read_entry(int fd, gsize total, const Head *h, const char *text, gsize len)
{
	PlTextSyms *t = g_new0(PlTextSyms, 1);
	t->syms = g_array_sized_new(FALSE, FALSE, sizeof(PlTextSym), (guint)h->nsyms);
	t->text = text;
	t->modules = g_ptr_array_new();
	t->local = g_string_chunk_new(4096);
	t->lines_bad = h->lines_bad;
	t->all_zero = h->all_zero != 0;
	g_array_set_size(t->syms, (guint)h->nsyms);
	g_autofree char *mods = g_malloc(h->mods_bytes + 1u);
	gsize syms_bytes = h->nsyms * sizeof(PlTextSym);
	gboolean ok = read_at(fd, t->syms->data, syms_bytes, sizeof *h) &&
		      read_at(fd, mods, h->mods_bytes, sizeof *h + syms_bytes);
	const PlTextSym *v = (const PlTextSym *)(void *)t->syms->data;
	for (guint64 i = 0; ok && i < h->nsyms; i++)
		ok = (guint64)v[i].name_off + v[i].name_len <= len && v[i].module < h->nmods &&
		     (i == 0 || v[i].addr >= v[i - 1].addr);
	const char *m = mods, *mend = mods + h->mods_bytes;
	for (guint32 i = 0; ok && i < h->nmods; i++) {
		const char *nul = m < mend ? memchr(m, 0, (gsize)(mend - m)) : NULL;
		ok = nul != NULL;
		if (ok) {
			g_ptr_array_add(t->modules, g_string_chunk_insert_const(t->local, m));
			m = nul + 1;
		}
	}
	if (!ok || m != mend || total != sizeof *h + syms_bytes + h->mods_bytes) {
		table_free(t);
		return NULL;
	}
	return t;
}

PlTextSyms *pl_text_syms_cache_load(const struct stat *st, const char *text, gsize len)
{
	g_autofree char *path = entry_path(st);
	if (!path)
		return NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat est;
	Head h;
	PlTextSyms *t = NULL;
	if (fstat(fd, &est) == 0 && S_ISREG(est.st_mode) && est.st_size >= (off_t)sizeof(Head) &&
	    est.st_size <= (off_t)MAX_ENTRY && read_at(fd, &h, sizeof h, 0) &&
	    memcmp(h.magic, MAGIC, sizeof h.magic) == 0 && h.sym_size == sizeof(PlTextSym) &&
	    h.dev == (guint64)st->st_dev && h.ino == (guint64)st->st_ino && h.size == len &&
	    h.mtime_ns == mtime_ns(st) && h.nsyms <= len && h.nmods > 0 &&
	    h.nmods <= G_MAXUINT16 + 1u && h.mods_bytes <= (guint64)est.st_size &&
	    (gsize)est.st_size == sizeof h + h.nsyms * sizeof(PlTextSym) + h.mods_bytes &&
	    h.sample == sample_hash(text, len))
		t = read_entry(fd, (gsize)est.st_size, &h, text, len);
	close(fd);
	return t;
}

void pl_text_syms_cache_store(const struct stat *st, const char *text, gsize len,
			      const PlTextSyms *t)
{
	g_autofree char *path = entry_path(st);
	if (!path || !t->modules->len)
		return;
	GString *mods = g_string_new(NULL);
	for (guint i = 0; i < t->modules->len; i++)
		g_string_append_len(mods, g_ptr_array_index(t->modules, i),
				    (gssize)strlen(g_ptr_array_index(t->modules, i)) + 1);
	Head h = { MAGIC, sizeof(PlTextSym), t->modules->len, (guint64)st->st_dev,
		   (guint64)st->st_ino, len, mtime_ns(st), sample_hash(text, len),
		   t->syms->len, t->lines_bad, t->all_zero, (guint32)mods->len };
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *tmp = g_strdup_printf("%s.XXXXXX", path);
	int fd = -1;
	if (g_mkdir_with_parents(dir, 0700) == 0)
		fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		gboolean ok = pl_write_all(fd, &h, sizeof h) == 0 &&
			      pl_write_all(fd, t->syms->data, t->syms->len * sizeof(PlTextSym)) == 0 &&
			      pl_write_all(fd, mods->str, mods->len) == 0;
		ok = close(fd) == 0 && ok;
		if (!ok || rename(tmp, path) != 0)
			unlink(tmp);
	}
	g_string_free(mods, TRUE);
}
