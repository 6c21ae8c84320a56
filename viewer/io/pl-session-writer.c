/* pl-session-writer.c — a live session's .plens file: the stream header,
 * then each received block with one write(); and where sessions go by
 * default (contract in pl-session-writer.h). */
#include "pl-session-writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "block.h"
#include "io.h"
#include "msg.h"
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

/* Sessions hold raw stack bytes (keys, passwords in a copied stack): the
 * directories made for them are 0700 and the files 0600, whatever the
 * umask. */
static gboolean make_parent(const char *path, GError **error)
{
	g_autofree char *dir = g_path_get_dirname(path);
	if (g_mkdir_with_parents(dir, 0700) < 0) {
		int e = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot create directory %s for the session: %s", dir, g_strerror(e));
		return FALSE;
	}
	return TRUE;
}

static PlSessionWriter *start(int fd, const char *path, GError **error)
{
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

PlSessionWriter *pl_session_writer_new(const char *path, GError **error)
{
	if (!make_parent(path, error))
		return NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot create session file %s: %s", path, g_strerror(e));
		return NULL;
	}
	/* a file kept from before (an older perflens made them 0644) */
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
		fchmod(fd, 0600);
	return start(fd, path, error);
}

/* PATH itself, then PATH with -2, -3, … before its extension. */
static char *nth_name(const char *path, guint i)
{
	if (i == 1)
		return g_strdup(path);
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(path, '.');
	if (!dot || (slash && dot < slash))
		dot = path + strlen(path);
	return g_strdup_printf("%.*s-%u%s", (int)(dot - path), path, i, dot);
}

PlSessionWriter *pl_session_writer_new_unique(const char *path, GError **error)
{
	if (!make_parent(path, error))
		return NULL;
	for (guint i = 1; i <= 1000; i++) {
		g_autofree char *p = nth_name(path, i);
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return start(fd, p, error);
		if (errno != EEXIST) {
			int e = errno;
			g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
				    "cannot create session file %s: %s", p, g_strerror(e));
			return NULL;
		}
	}
	g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
		    "cannot create session file %s: it and 999 numbered names beside it exist",
		    path);
	return NULL;
}

gboolean pl_session_writer_append(PlSessionWriter *self, const guint8 *block, gsize len,
				  GError **error)
{
	/* One write per block: the kernel has it before we read the next one. */
	if (!write_all(self->fd, block, len, self->path, error)) {
		/* what part of the block went out is cut off again, so the file
		 * ends with its last whole block (a pipe or device keeps it) */
		if (ftruncate(self->fd, (off_t)self->bytes) == 0)
			lseek(self->fd, (off_t)self->bytes, SEEK_SET);
		return FALSE;
	}
	self->bytes += len;
	return TRUE;
}

gboolean pl_session_writer_append_note(PlSessionWriter *self, const char *text, GError **error)
{
	struct pl_msg m = { .type = PL_MSG_LOG };
	m.u.log.level = PL_LOG_INFO;
	m.u.log.message = pl_str_c(text);
	struct pl_block_enc enc;
	if (pl_block_enc_init(&enc, 4096, 0) < 0) {
		g_set_error_literal(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM, "out of memory");
		return FALSE;
	}
	const guint8 *out;
	size_t n;
	gboolean ok = pl_msg_encode(&enc.w, &m) == 0 && pl_block_enc_finish(&enc, &out, &n) == 0;
	if (!ok)
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "cannot encode the note '%s'", text);
	else
		ok = pl_session_writer_append(self, out, n, error);
	pl_block_enc_free(&enc);
	return ok;
}

const char *pl_session_writer_get_path(PlSessionWriter *self)
{
	return self->path;
}

guint64 pl_session_writer_get_bytes(PlSessionWriter *self)
{
	return self->bytes;
}

gboolean pl_session_writer_close(PlSessionWriter *self, GError **error)
{
	if (!self || self->fd < 0)
		return TRUE;
	int fd = self->fd, e = 0;
	self->fd = -1;
	/* EINVAL: a pipe or a device (--output /dev/null), nothing to sync */
	if (fsync(fd) != 0 && errno != EINVAL)
		e = errno;
	if (close(fd) != 0 && !e && errno != EINTR)
		e = errno;
	if (e) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e),
			    "cannot save the session to %s: %s (what was written before may be "
			    "lost or incomplete)",
			    self->path, g_strerror(e));
		return FALSE;
	}
	return TRUE;
}

void pl_session_writer_free(PlSessionWriter *self)
{
	if (!self)
		return;
	pl_session_writer_close(self, NULL);
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
