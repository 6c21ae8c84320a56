/* pl-flight-snapshot.c — "Save now" from a flight recorder; see
 * pl-flight-snapshot.h. */
#include "pl-flight-snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	int fd;
	guint64 got, total;
	GError *error; /* the first problem; later chunks are ignored */
	char *board_path; /* the REPLY's message */
} Fetch;

static gboolean on_msg(const struct pl_msg *m, gpointer data)
{
	Fetch *x = data;
	if (m->type == PL_MSG_REPLY && m->u.reply.command == PL_MSG_SNAPSHOT &&
	    m->u.reply.status == 0 && !x->board_path)
		x->board_path = g_strndup(m->u.reply.message.p, m->u.reply.message.len);
	if (m->type != PL_MSG_FILE_CHUNK || m->u.chunk.kind != PL_CHUNK_SNAPSHOT || x->error)
		return TRUE;
	const struct pl_msg_file_chunk *c = &m->u.chunk;
	if (c->offset != x->got || (x->got && c->total != x->total) ||
	    c->total > PL_FLIGHT_SNAPSHOT_MAX || c->len > c->total - c->offset) {
		g_set_error(&x->error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "the agent sent the snapshot out of order (a chunk at %" G_GUINT64_FORMAT
			    " of %" G_GUINT64_FORMAT " bytes after %" G_GUINT64_FORMAT "): it is "
			    "not saved",
			    c->offset, c->total, x->got);
		return TRUE;
	}
	x->total = c->total;
	const guint8 *p = c->data;
	for (guint32 left = c->len; left;) {
		ssize_t n = write(x->fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;
			g_set_error(&x->error, G_IO_ERROR, g_io_error_from_errno(e),
				    "writing the snapshot failed: %s", g_strerror(e));
			return TRUE;
		}
		p += n;
		left -= (guint32)n;
	}
	x->got += c->len;
	return TRUE;
}

gboolean pl_flight_snapshot_fetch(PlClient *client, const char *path, guint timeout_ms,
				  char **board_path, guint64 *size, GError **error)
{
	g_autofree char *tmp = g_strdup_printf("%s.XXXXXX", path);
	Fetch x = { .fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0600) };
	if (x.fd < 0) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e),
			    "cannot write the snapshot beside %s: %s", path, g_strerror(e));
		return FALSE;
	}
	pl_client_set_handler(client, on_msg, &x);
	struct pl_msg m = { .type = PL_MSG_SNAPSHOT };
	GError *local = NULL;
	gboolean ok = pl_client_request(client, &m, timeout_ms, &local);
	pl_client_set_handler(client, NULL, NULL);
	if (ok && x.error) {
		local = x.error;
		x.error = NULL;
		ok = FALSE;
	}
	if (ok && (x.got != x.total || x.total == 0)) {
		g_set_error(&local, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "the agent answered with %" G_GUINT64_FORMAT " of the snapshot's %"
			    G_GUINT64_FORMAT " bytes: it is not saved",
			    x.got, x.total);
		ok = FALSE;
	}
	if (ok && fsync(x.fd) < 0) {
		int e = errno;
		g_set_error(&local, G_IO_ERROR, g_io_error_from_errno(e),
			    "writing the snapshot %s failed: %s", path, g_strerror(e));
		ok = FALSE;
	}
	if (close(x.fd) < 0 && ok) {
		int e = errno;
		g_set_error(&local, G_IO_ERROR, g_io_error_from_errno(e),
			    "writing the snapshot %s failed: %s", path, g_strerror(e));
		ok = FALSE;
	}
	if (ok && g_rename(tmp, path) < 0) {
		int e = errno;
		g_set_error(&local, G_IO_ERROR, g_io_error_from_errno(e),
			    "cannot name the snapshot %s: %s", path, g_strerror(e));
		ok = FALSE;
	}
	g_clear_error(&x.error);
	if (!ok) {
		g_free(x.board_path);
		g_unlink(tmp);
		g_propagate_error(error, local);
		return FALSE;
	}
	if (size)
		*size = x.total;
	if (board_path)
		*board_path = x.board_path;
	else
		g_free(x.board_path);
	return TRUE;
}
