/* pl-sessions-index.c — cheap facts about saved sessions (see the header). */
#include "pl-sessions-index.h"

#include <errno.h>
#include <fcntl.h> /* AT_FDCWD */
#include <glib/gstdio.h>
#include <stdio.h> /* renameat2 */
#include <string.h>
#include <unistd.h>

#include "pl-capture.h"
#include "reader.h"

void pl_session_info_free(PlSessionInfo *info)
{
	if (!info)
		return;
	g_free(info->path);
	g_free(info->name);
	g_free(info->hostname);
	g_free(info->peer);
	g_free(info->process);
	g_free(info->end);
	g_free(info->error);
	g_free(info->symbol_advice);
	g_free(info);
}

char *pl_sessions_dir(void)
{
	return g_build_filename(g_get_user_data_dir(), "perflens", "sessions", NULL);
}

static char *idx_path(const char *path)
{
	return g_strconcat(path, ".idx", NULL);
}

static const char *end_text(guint reason)
{
	switch (reason) {
	case PL_END_TARGET_EXITED:
		return "target exited";
	case PL_END_STOPPED:
		return "stopped";
	case PL_END_DURATION:
		return "duration reached";
	case PL_END_ERROR:
		return "error";
	}
	return NULL;
}

/* ─── the head ───────────────────────────────────────────────────────── */

typedef struct {
	gboolean hello, session;
	guint32 target_pid;
	guint8 target;
	char *command;
	char *target_comm;
} Head;

/* Feeds the file through the real reader (caps, CRC) a chunk at a time
 * and stops as soon as HELLO, SESSION and the target's name are known, or
 * after PL_SESSION_HEAD_MAX bytes. */
static void read_head(PlSessionInfo *info)
{
	FILE *f = fopen(info->path, "rb");
	if (!f) {
		info->error = g_strdup_printf("cannot read: %s", g_strerror(errno));
		return;
	}
	struct pl_reader r;
	if (pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED) < 0) {
		fclose(f);
		info->error = g_strdup("out of memory");
		return;
	}
	Head h = { 0 };
	guint8 *buf = g_malloc(64 * 1024);
	gsize total = 0;
	gboolean done = FALSE;
	while (!done && total < PL_SESSION_HEAD_MAX) {
		size_t n = fread(buf, 1, 64 * 1024, f);
		if (n == 0)
			break;
		total += n;
		if (pl_reader_feed(&r, buf, n) < 0)
			break;
		struct pl_msg m;
		int rc;
		while (!done && (rc = pl_reader_next(&r, &m)) > 0) {
			switch (m.type) {
			case PL_MSG_HELLO:
				h.hello = TRUE;
				g_free(info->hostname);
				info->hostname = g_strndup(m.u.hello.hostname.p, m.u.hello.hostname.len);
				if (m.u.hello.wall_now_ns)
					info->date = (gint64)(m.u.hello.wall_now_ns / 1000000000u);
				break;
			case PL_MSG_SESSION:
				h.session = TRUE;
				h.target = m.u.session.target;
				h.target_pid = m.u.session.pid;
				g_free(h.command);
				h.command = g_strndup(m.u.session.command.p, m.u.session.command.len);
				break;
			case PL_MSG_COMM:
				if (h.session && m.u.comm.pid == h.target_pid && !h.target_comm &&
				    (m.u.comm.tid == m.u.comm.pid || m.u.comm.exec))
					h.target_comm = g_strndup(m.u.comm.comm.p, m.u.comm.comm.len);
				break;
			case PL_MSG_SAMPLE:
				/* samples flow: the snapshot COMMs came before */
				done = h.session;
				break;
			}
			if (h.hello && h.session &&
			    (h.target_comm || h.target == PL_TARGET_ALL ||
			     (h.target == PL_TARGET_COMMAND && h.command && *h.command)))
				done = TRUE;
		}
		if (rc < 0 && !h.hello) {
			info->error = g_strdup_printf("not a readable session: %s", pl_reader_error(&r));
			break;
		}
	}
	g_free(buf);
	pl_reader_free(&r);
	fclose(f);
	if (!h.hello && !info->error)
		info->error = g_strdup("no HELLO at its start: not a PerfLens session");
	if (h.target == PL_TARGET_ALL)
		info->process = g_strdup("all processes");
	else if (h.target_comm)
		info->process = g_strdup_printf("%s (%u)", h.target_comm, h.target_pid);
	else if (h.command && *h.command)
		info->process = g_strdup(h.command);
	else if (h.session && h.target_pid)
		info->process = g_strdup_printf("pid %u", h.target_pid);
	g_free(h.command);
	g_free(h.target_comm);
}

/* ─── the sidecar ────────────────────────────────────────────────────── */

static void read_sidecar(PlSessionInfo *info)
{
	g_autofree char *ip = idx_path(info->path);
	g_autoptr(GKeyFile) kf = g_key_file_new();
	if (!g_key_file_load_from_file(kf, ip, G_KEY_FILE_NONE, NULL))
		return;
	g_autofree char *peer = g_key_file_get_string(kf, "session", "peer", NULL);
	if (peer && *peer) {
		g_free(info->peer);
		info->peer = g_steal_pointer(&peer);
	}
	if (g_key_file_has_key(kf, "symbols", "modules", NULL)) {
		info->modules = g_key_file_get_integer(kf, "symbols", "modules", NULL);
		info->symbol_problems = g_key_file_get_integer(kf, "symbols", "problems", NULL);
		info->symbol_advice = g_key_file_get_string(kf, "symbols", "advice", NULL);
	}
	/* figures are for the size the file had: a grown file is rescanned */
	guint64 size = g_key_file_get_uint64(kf, "session", "size", NULL);
	if (size != info->size)
		return;
	info->samples = g_key_file_get_uint64(kf, "session", "samples", NULL);
	info->duration_s = g_key_file_get_double(kf, "session", "duration", NULL);
	g_free(info->end);
	info->end = g_key_file_get_string(kf, "session", "end", NULL);
	info->have_totals = TRUE;
}

void pl_session_index_write(const char *path, guint64 samples, double duration_s,
			    const char *end, const char *peer)
{
	GStatBuf st;
	if (g_stat(path, &st) != 0)
		return;
	g_autofree char *ip = idx_path(path);
	g_autoptr(GKeyFile) kf = g_key_file_new();
	/* keep a peer recorded earlier when the rescan does not know it */
	g_key_file_load_from_file(kf, ip, G_KEY_FILE_NONE, NULL);
	g_key_file_set_uint64(kf, "session", "size", (guint64)st.st_size);
	g_key_file_set_uint64(kf, "session", "samples", samples);
	g_key_file_set_double(kf, "session", "duration", duration_s);
	if (end)
		g_key_file_set_string(kf, "session", "end", end);
	if (peer)
		g_key_file_set_string(kf, "session", "peer", peer);
	g_key_file_save_to_file(kf, ip, NULL);
}

void pl_session_index_write_symbols(const char *path, guint modules, guint problems,
				    const char *advice)
{
	g_autofree char *ip = idx_path(path);
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_key_file_load_from_file(kf, ip, G_KEY_FILE_NONE, NULL);
	g_key_file_remove_group(kf, "symbols", NULL);
	g_key_file_set_integer(kf, "symbols", "modules", (gint)modules);
	g_key_file_set_integer(kf, "symbols", "problems", (gint)problems);
	if (advice)
		g_key_file_set_string(kf, "symbols", "advice", advice);
	g_key_file_save_to_file(kf, ip, NULL);
}

PlSessionInfo *pl_session_info_read(const char *path)
{
	PlSessionInfo *info = g_new0(PlSessionInfo, 1);
	info->modules = -1;
	info->path = g_strdup(path);
	g_autofree char *base = g_path_get_basename(path);
	info->name = g_str_has_suffix(base, ".plens")
			     ? g_strndup(base, strlen(base) - strlen(".plens"))
			     : g_strdup(base);
	GStatBuf st;
	if (g_stat(path, &st) == 0) {
		info->size = (guint64)st.st_size;
		info->date = (gint64)st.st_mtime;
	}
	read_head(info);
	read_sidecar(info);
	return info;
}

/* ─── the full scan ──────────────────────────────────────────────────── */

typedef struct {
	GCancellable *cancel;
	guint64 samples, n;
	guint64 first, last, start, end_time;
	guint64 window; /* a flight recorder's snapshot: where its ring begins */
	guint8 end_reason;
} Scan;

static gboolean scan_one(const struct pl_msg *m, gpointer data)
{
	Scan *s = data;
	if ((++s->n & 4095) == 0 && g_cancellable_is_cancelled(s->cancel))
		return FALSE;
	switch (m->type) {
	case PL_MSG_SESSION:
		s->start = m->u.session.start_ns;
		break;
	case PL_MSG_SAMPLE:
		s->samples++;
		if (!s->first || m->u.sample.time < s->first)
			s->first = m->u.sample.time;
		if (m->u.sample.time > s->last)
			s->last = m->u.sample.time;
		break;
	case PL_MSG_TRIGGER:
		if (m->u.trigger.from && (!s->window || m->u.trigger.from < s->window))
			s->window = m->u.trigger.from;
		break;
	case PL_MSG_END:
		s->end_reason = m->u.end.reason;
		s->end_time = m->u.end.time;
		break;
	}
	return TRUE;
}

static gboolean scan(PlSessionInfo *info, GCancellable *cancel, const char *peer)
{
	Scan s = { .cancel = cancel };
	g_autoptr(GError) error = NULL;
	PlCaptureInfo ci;
	if (!pl_capture_load(info->path, scan_one, &s, &ci, &error) &&
	    (ci.messages == 0 ||
	     g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED)))
		return FALSE;
	/* from the session's start (else the first sample) to its end (else
	 * the last sample); a snapshot's SESSION is the recorder's, begun long
	 * before the window its ring kept */
	guint64 t0 = s.start && s.start <= (s.first ? s.first : s.start) ? s.start : s.first;
	if (s.window > t0)
		t0 = s.window;
	guint64 t1 = MAX(s.end_time, s.last);
	info->samples = s.samples;
	info->duration_s = t1 > t0 && t0 ? (double)(t1 - t0) / 1e9 : 0;
	g_free(info->end);
	info->end = g_strdup(end_text(s.end_reason));
	info->have_totals = TRUE;
	pl_session_index_write(info->path, info->samples, info->duration_s, info->end, peer);
	return TRUE;
}

gboolean pl_session_info_scan(PlSessionInfo *info, GCancellable *cancel)
{
	return scan(info, cancel, NULL);
}

gboolean pl_session_index_add(const char *path, const char *peer, GCancellable *cancel)
{
	g_autoptr(PlSessionInfo) info = g_new0(PlSessionInfo, 1);
	info->path = g_strdup(path);
	return scan(info, cancel, peer);
}

/* ─── the directory ──────────────────────────────────────────────────── */

static gint newest_first(gconstpointer a, gconstpointer b)
{
	const PlSessionInfo *x = *(PlSessionInfo *const *)a, *y = *(PlSessionInfo *const *)b;
	if (x->date != y->date)
		return x->date > y->date ? -1 : 1;
	return g_strcmp0(y->name, x->name);
}

GPtrArray *pl_sessions_list(const char *dir)
{
	GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)pl_session_info_free);
	g_autofree char *d = dir ? g_strdup(dir) : pl_sessions_dir();
	g_autoptr(GDir) gd = g_dir_open(d, 0, NULL);
	if (!gd)
		return out;
	const char *n;
	while ((n = g_dir_read_name(gd))) {
		if (!g_str_has_suffix(n, ".plens"))
			continue;
		g_autofree char *p = g_build_filename(d, n, NULL);
		if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
			g_ptr_array_add(out, pl_session_info_read(p));
	}
	g_ptr_array_sort(out, newest_first);
	return out;
}

gboolean pl_session_rename(const char *path, const char *new_name, char **new_path,
			   GError **error)
{
	g_autofree char *safe = g_strstrip(g_strdup(new_name ? new_name : ""));
	if (g_str_has_suffix(safe, ".plens"))
		safe[strlen(safe) - strlen(".plens")] = 0;
	if (!*safe) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "Give the session a name (letters, digits, - _ .)");
		return FALSE;
	}
	for (char *p = safe; *p; p++)
		if (!g_ascii_isalnum(*p) && *p != '-' && *p != '_' && *p != '.' && *p != ' ')
			*p = '_';
	g_autofree char *dir = g_path_get_dirname(path);
	g_autofree char *base = g_strconcat(safe, ".plens", NULL);
	g_autofree char *np = g_build_filename(dir, base, NULL);
	if (!strcmp(np, path)) {
		if (new_path)
			*new_path = g_strdup(np);
		return TRUE;
	}
	/* Never over an existing name, even one made since the user typed it
	 * or a dangling symlink (a test for existence first would race, and
	 * follows links) */
	int e = 0;
	if (renameat2(AT_FDCWD, path, AT_FDCWD, np, RENAME_NOREPLACE) != 0) {
		e = errno;
		/* a file system without RENAME_NOREPLACE: link() never
		 * replaces either */
		if (e == EINVAL)
			e = link(path, np) == 0 ? (g_unlink(path), 0) : errno;
	}
	if (e == EEXIST) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS,
			    "A session named “%s” already exists: choose another name", safe);
		return FALSE;
	}
	if (e) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "Cannot rename %s: %s",
			    path, g_strerror(e));
		return FALSE;
	}
	g_autofree char *oi = idx_path(path), *ni = idx_path(np);
	g_rename(oi, ni); /* the sidecar is a cache: missing is fine */
	/* and the view state goes with its session (pl-view-state.h) */
	g_autofree char *ov = g_strconcat(path, ".view", NULL), *nv = g_strconcat(np, ".view", NULL);
	g_rename(ov, nv);
	if (new_path)
		*new_path = g_steal_pointer(&np);
	return TRUE;
}

gboolean pl_session_delete(const char *path, GError **error)
{
	if (g_unlink(path) != 0 && errno != ENOENT) {
		int e = errno;
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(e), "Cannot delete %s: %s",
			    path, g_strerror(e));
		return FALSE;
	}
	g_autofree char *ip = idx_path(path);
	g_unlink(ip);
	g_autofree char *vp = g_strconcat(path, ".view", NULL);
	g_unlink(vp);
	return TRUE;
}
