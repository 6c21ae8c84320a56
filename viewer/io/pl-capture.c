/* pl-capture.c — loading .plens captures (and dispatching perf.data). */
#include "pl-capture.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-capture-private.h"
#include "reader.h"

PlFileKind pl_capture_detect(const char *path)
{
	char magic[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return PL_FILE_UNKNOWN;
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	if (n != (ssize_t)sizeof(magic))
		return PL_FILE_UNKNOWN;
	if (memcmp(magic, PL_MAGIC, 8) == 0)
		return PL_FILE_PLENS;
	if (memcmp(magic, "PERFILE2", 8) == 0)
		return PL_FILE_PERF_DATA;
	return PL_FILE_UNKNOWN;
}

char *pl_capture_info_dup_note(const PlCaptureInfo *info)
{
	if (!info || info->ignored_bytes == 0)
		return NULL;
	return g_strdup_printf("%" G_GUINT64_FORMAT " bytes after the last complete block ignored "
			       "(the recording was cut short; everything before it is intact)",
			       info->ignored_bytes);
}

/* ─── .plens ─────────────────────────────────────────────────────────── */

static gboolean load_plens(int fd, const char *path, PlMsgFunc func, gpointer user_data,
			   PlCaptureInfo *info, GError **error)
{
	struct pl_reader r;
	struct pl_msg *m = g_new0(struct pl_msg, 1); /* ~75 KiB: not on the stack */
	gboolean ok = TRUE;
	enum { CHUNK = 1 << 20 };
	g_autofree guint8 *buf = g_malloc(CHUNK);

	if (pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) < 0) {
		g_free(m);
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO, "out of memory");
		return FALSE;
	}
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO,
				    "%s: read failed: %s", path, g_strerror(errno));
			ok = FALSE;
			break;
		}
		if (n == 0)
			break;
		if (pl_reader_feed(&r, buf, (size_t)n) < 0) {
			g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO, "%s: %s", path,
				    pl_reader_error(&r));
			ok = FALSE;
			break;
		}
		int rc;
		while ((rc = pl_reader_next(&r, m)) == 1) {
			info->messages++;
			if (!func(m, user_data)) {
				g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED,
					    "%s: loading stopped", path);
				ok = FALSE;
				goto out;
			}
		}
		if (rc < 0) {
			/* A bad block: the stream cannot be resynchronised, but what
			 * came before it is good.  A bad header is "not a capture". */
			if (!r.have_header)
				g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT,
					    "%s: %s", path, pl_reader_error(&r));
			else
				g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT,
					    "%s is corrupt after %" G_GUINT64_FORMAT
					    " good blocks (%s); the data before it was read — "
					    "re-record, or copy the file again if it was transferred",
					    path, (guint64)r.blocks, pl_reader_error(&r));
			ok = FALSE;
			break;
		}
	}
out:
	info->blocks = r.blocks;
	info->skipped = r.skipped_frames;
	info->stream_flags = r.header.flags;
	if (ok) {
		if (!r.have_header) {
			g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT,
				    "%s is too short to be a PerfLens capture (%zu bytes)", path,
				    pl_reader_pending(&r));
			ok = FALSE;
		} else {
			info->ignored_bytes = pl_reader_pending(&r);
		}
	}
	pl_reader_free(&r);
	g_free(m);
	return ok;
}

gboolean pl_capture_load(const char *path, PlMsgFunc func, gpointer user_data,
			 PlCaptureInfo *info, GError **error)
{
	PlCaptureInfo dummy;
	struct stat st;
	char magic[8];

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO,
			    "cannot open %s: %s", path, g_strerror(errno));
		return FALSE;
	}
	if (fstat(fd, &st) == 0)
		info->file_size = (guint64)st.st_size;
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO,
			    "%s is a directory: give a .plens or perf.data file", path);
		return FALSE;
	}
	ssize_t n = pread(fd, magic, sizeof(magic), 0);
	gboolean ok;
	if (n == (ssize_t)sizeof(magic) && memcmp(magic, "PERFILE2", 8) == 0) {
		info->kind = PL_FILE_PERF_DATA;
		ok = pl_capture_load_perf_data(fd, path, func, user_data, info, error);
	} else if (n >= 0 && (n < (ssize_t)sizeof(magic) || memcmp(magic, PL_MAGIC, 8) == 0)) {
		info->kind = PL_FILE_PLENS;
		ok = load_plens(fd, path, func, user_data, info, error);
	} else if (n < 0) {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO, "cannot read %s: %s",
			    path, g_strerror(errno));
		ok = FALSE;
	} else {
		g_set_error(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT,
			    "%s is neither a PerfLens capture (.plens) nor a perf.data file", path);
		ok = FALSE;
	}
	close(fd);
	return ok;
}
