/* pl-session-writer.c — a live session's .plens file: the stream header,
 * then each received block with one write(); and where sessions go by
 * default (contract in pl-session-writer.h). */
#include "pl-session-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "io.h"
#include "wire.h"

struct _PlSessionWriter {
	int fd;
	char *path;
	guint64 bytes;
};

static gboolean write_all(int fd, const guint8 *p, gsize n, const char *path, GError **error)
{
	int rc = pl_write_all(fd, p, n);
	if (rc < 0) {
		int e = -rc;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot write the session to %s: %s%s", path, g_strerror(e),
			    e == ENOSPC ? " (free some space; the file so far is usable)" : "");
		return FALSE;
	}
	return TRUE;
}

PlSessionWriter *pl_session_writer_new(const char *path, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0755) < 0) {
		int e = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot create directory %s for the session: %s", dir, g_strerror(e));
		return NULL;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot create session file %s: %s", path, g_strerror(e));
		return NULL;
	}
	guint8 hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_CAPTURE | PL_STREAM_FROM_AGENT);
	if (!write_all(fd, hdr, sizeof(hdr), path, error)) {
		close(fd);
		return NULL;
	}
	PlSessionWriter *self = g_new0(PlSessionWriter, 1);
	self->fd = fd;
	self->path = g_strdup(path);
	self->bytes = sizeof(hdr);
	return self;
}

gboolean pl_session_writer_append(PlSessionWriter *self, const guint8 *block, gsize len,
				  GError **error)
{
	/* One write per block: the kernel has it before we read the next one. */
	if (!write_all(self->fd, block, len, self->path, error))
		return FALSE;
	self->bytes += len;
	return TRUE;
}

const char *pl_session_writer_get_path(PlSessionWriter *self)
{
	return self->path;
}

guint64 pl_session_writer_get_bytes(PlSessionWriter *self)
{
	return self->bytes;
}

void pl_session_writer_free(PlSessionWriter *self)
{
	if (!self)
		return;
	if (self->fd >= 0) {
		fsync(self->fd);
		close(self->fd);
	}
	g_free(self->path);
	g_free(self);
}

char *pl_session_default_path(const char *label)
{
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *stamp = g_date_time_format(now, "%Y%m%d-%H%M%S");
	g_autofree char *safe = g_strdup(label && *label ? label : "session");
	for (char *p = safe; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '_' && *p != '.')
			*p = '_';
	g_autofree char *name = g_strdup_printf("%s-%s.plens", stamp, safe);
	return g_build_filename(g_get_user_data_dir(), "perflens", "sessions", name, NULL);
}
