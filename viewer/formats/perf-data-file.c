/* perf-data-file.c — the perf.data file as bytes, for the reader: read_at()
 * and checked section loads, and the data section either mapped under a
 * SIGBUS guard (read in place, pages given back behind the reader) or, where
 * it cannot be mapped, streamed through a fixed window.  Knows nothing of
 * records beyond their being at most 64 KiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-data-private.h"

/* The error domain lives with the lowest part of the reader, the one that
 * raises the first errors, so that the header, the record decoder and the
 * reader itself all call down into this file and never back up. */
G_DEFINE_QUARK(pl-perf-data-error-quark, pl_perf_data_error)

gboolean pd_corrupt(GError **error, const char *path, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_CORRUPT,
		    "%s is damaged at byte offset %" G_GUINT64_FORMAT ": %s (perf report would "
		    "likely fail on it too; re-record, or copy the file again if it was truncated "
		    "in transfer)",
		    path, off, what);
	return FALSE;
}

/* ================================================================ file access */

gboolean pd_file_open(PdFile *f, const char *path, GError **error)
{
	f->path = path;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO, "cannot open %s: %s",
			    path, g_strerror(e));
		return FALSE;
	}
	struct stat sb;
	if (fstat(f->fd, &sb) < 0) {
		int e = errno;
		g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO, "cannot stat %s: %s",
			    path, g_strerror(e));
		return FALSE;
	}
	if (S_ISDIR(sb.st_mode))
		return g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_UNSUPPORTED,
				   "%s is a directory: perf's directory format (perf record "
				   "--threads) is not supported; record without --threads",
				   path),
		       FALSE;
	f->file_size = (guint64)sb.st_size;
	return TRUE;
}

ssize_t pd_file_pread(PdFile *f, void *buf, size_t n, uint64_t off, GError **error)
{
	for (;;) {
		ssize_t k = pread(f->fd, buf, n, (off_t)off);
		if (k >= 0)
			return k;
		if (errno != EINTR) {
			int e = errno;
			g_set_error(error, PL_PERF_DATA_ERROR, PL_PERF_DATA_ERROR_IO,
				    "cannot read %s: %s", f->path, g_strerror(e));
			return -1;
		}
	}
}

gboolean pd_file_read_at(PdFile *f, uint64_t off, void *buf, size_t n, GError **error)
{
	size_t done = 0;
	while (done < n) {
		ssize_t k = pd_file_pread(f, (uint8_t *)buf + done, n - done, off + done, error);
		if (k < 0)
			return FALSE;
		if (k == 0)
			return pd_corrupt(error, f->path, off + done, "file ends early");
		done += (size_t)k;
	}
	return TRUE;
}

uint8_t *pd_file_load(PdFile *f, uint64_t off, uint64_t size, uint64_t cap, const char *what,
		      GError **error)
{
	if (off > f->file_size || size > f->file_size - off) {
		pd_corrupt(error, f->path, off,
			   "the %s section (%" G_GUINT64_FORMAT " bytes) lies past the end of the "
			   "%" G_GUINT64_FORMAT "-byte file",
			   what, size, f->file_size);
		return NULL;
	}
	if (size > cap) {
		pd_corrupt(error, f->path, off,
			   "the %s section is %" G_GUINT64_FORMAT " bytes, over the "
			   "%" G_GUINT64_FORMAT "-byte limit",
			   what, size, cap);
		return NULL;
	}
	uint8_t *buf = g_malloc(size ? size : 1);
	if (!pd_file_read_at(f, off, buf, (size_t)size, error)) {
		g_free(buf);
		return NULL;
	}
	return buf;
}

/* ================================================================ the mapping's guard */

/* A mapped file that someone truncates while it is read raises SIGBUS at
 * the first access past its new end.  The guard's handler puts a page of
 * zeros there instead and notes it: the read then meets zeros (a record
 * "shorter than its header", or data that is checked like any other) and
 * the reader reports that the file changed while it was read.  Faults
 * outside every guarded mapping go to the handler that was there before.
 * Up to GUARD_SLOTS files are read mapped at once; more are streamed. */
#define GUARD_SLOTS 16
typedef struct {
	uint8_t *volatile start;
	volatile size_t len;
	volatile sig_atomic_t hit;
} Guard;
static Guard guards[GUARD_SLOTS];
static GMutex guard_lock;
static guint guard_users;
static struct sigaction guard_old;

static void guard_sigbus(int sig, siginfo_t *si, void *ctx)
{
	uint8_t *a = si ? (uint8_t *)si->si_addr : NULL;
	long page = sysconf(_SC_PAGESIZE);
	for (guint i = 0; a && i < GUARD_SLOTS; i++) {
		uint8_t *st = guards[i].start;
		if (!st || a < st || a >= st + guards[i].len)
			continue;
		void *pg = (void *)((uintptr_t)a & ~(uintptr_t)(page - 1));
		if (mmap(pg, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    MAP_FAILED) {
			guards[i].hit = 1;
			return; /* the access is retried and reads zeros */
		}
	}
	if ((guard_old.sa_flags & SA_SIGINFO) && guard_old.sa_sigaction) {
		guard_old.sa_sigaction(sig, si, ctx);
	} else if (guard_old.sa_handler != SIG_DFL && guard_old.sa_handler != SIG_IGN &&
		   guard_old.sa_handler) {
		guard_old.sa_handler(sig);
	} else {
		signal(SIGBUS, SIG_DFL);
		raise(SIGBUS);
	}
}

/* A slot guarding [p, p + len), or -1 when none is free. */
static int guard_add(uint8_t *p, size_t len)
{
	int slot = -1;
	g_mutex_lock(&guard_lock);
	for (int i = 0; i < GUARD_SLOTS && slot < 0; i++)
		if (!guards[i].start)
			slot = i;
	if (slot >= 0) {
		guards[slot].hit = 0;
		guards[slot].len = len;
		guards[slot].start = p;
		if (guard_users++ == 0) {
			struct sigaction sa = { 0 };
			sa.sa_sigaction = guard_sigbus;
			sa.sa_flags = SA_SIGINFO | SA_NODEFER;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGBUS, &sa, &guard_old);
		}
	}
	g_mutex_unlock(&guard_lock);
	return slot;
}

/* Ends the guard of slot (after the munmap); TRUE if it caught a fault. */
static gboolean guard_remove(int slot)
{
	g_mutex_lock(&guard_lock);
	gboolean hit = guards[slot].hit != 0;
	guards[slot].start = NULL;
	guards[slot].len = 0;
	if (--guard_users == 0)
		sigaction(SIGBUS, &guard_old, NULL);
	g_mutex_unlock(&guard_lock);
	return hit;
}

/* ================================================================ the data section */

/* Maps the data section of a regular file: records are then read, and
 * held for reordering, where they are, without a copy (pread copied every
 * byte once, the reorder arena a second time).  FALSE: read through the
 * window. */
static gboolean map_data(PdFile *f, gboolean pipe)
{
	long page = sysconf(_SC_PAGESIZE);
	if (pipe || page <= 0 || f->data_end <= f->data_begin || f->data_end > f->file_size ||
	    f->data_end - f->data_begin > (uint64_t)(SIZE_MAX / 4))
		return FALSE;
	uint64_t start = f->data_begin & ~(uint64_t)(page - 1);
	size_t len = (size_t)(f->data_end - start);
	void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, f->fd, (off_t)start);
	if (m == MAP_FAILED)
		return FALSE;
	f->guard = guard_add(m, len);
	if (f->guard < 0) {
		munmap(m, len);
		return FALSE;
	}
	madvise(m, len, MADV_SEQUENTIAL);
	f->map = m;
	f->map_len = len;
	f->win = f->map;
	f->win_start = (size_t)(f->data_begin - start);
	f->win_len = len;
	f->win_pos = f->data_end;
	return TRUE;
}

void pd_file_start_data(PdFile *f, gboolean pipe)
{
	if (!map_data(f, pipe)) {
		f->win = g_malloc(WINDOW_SIZE);
		f->win_start = f->win_len = 0;
		f->win_pos = f->data_begin;
	}
}

gboolean pd_file_need(PdFile *f, size_t n, gboolean *eof, GError **error)
{
	*eof = FALSE;
	if (f->win_len - f->win_start >= n)
		return TRUE;
	if (f->map) { /* all of the data is in the window: this is its end */
		*eof = TRUE;
		return TRUE;
	}
	memmove(f->win, f->win + f->win_start, f->win_len - f->win_start);
	f->win_len -= f->win_start;
	f->win_start = 0;
	while (f->win_len < n) {
		uint64_t left = f->data_end - f->win_pos;
		if (left == 0) {
			*eof = TRUE;
			return TRUE;
		}
		size_t want = (size_t)MIN(left, (uint64_t)(WINDOW_SIZE - f->win_len));
		ssize_t k = pd_file_pread(f, f->win + f->win_len, want, f->win_pos, error);
		if (k < 0)
			return FALSE;
		if (k == 0) {
			/* The file shrank under us, or pipe mode at its end. */
			f->data_end = f->win_pos;
			*eof = TRUE;
			return TRUE;
		}
		f->win_len += (size_t)k;
		f->win_pos += (uint64_t)k;
	}
	return TRUE;
}

/* (AUXTRACE payloads, pipe-mode tracing data.) */
gboolean pd_file_skip(PdFile *f, uint64_t n, uint64_t off, GError **error)
{
	size_t inwin = f->win_len - f->win_start;
	if (n <= inwin) {
		f->win_start += (size_t)n;
		return TRUE;
	}
	n -= inwin;
	f->win_start = f->win_len = 0;
	if (n > f->data_end - f->win_pos)
		return pd_corrupt(error, f->path, off, "%" G_GUINT64_FORMAT " bytes of trace data "
				  "run past the end of the data", n);
	f->win_pos += n;
	return TRUE;
}

/* The file is read once, front to back, so peak memory stays the reorder
 * window's, not the file's. */
void pd_file_release(PdFile *f, const uint8_t *low)
{
	if (!f->map)
		return;
	size_t upto = (size_t)(low - f->map) & ~(size_t)(sysconf(_SC_PAGESIZE) - 1);
	if (upto >= f->map_dropped + (8u << 20)) { /* in steps, not a call per round */
		madvise(f->map + f->map_dropped, upto - f->map_dropped, MADV_DONTNEED);
		f->map_dropped = upto;
	}
}

gboolean pd_file_close(PdFile *f)
{
	gboolean hit = FALSE;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->map) {
		munmap(f->map, f->map_len);
		hit = guard_remove(f->guard);
	} else {
		g_free(f->win);
	}
	f->map = NULL;
	f->win = NULL;
	return hit;
}
