/* viewer-core-test.c — loading captures (torn tails, corruption, not a
 * capture), saving sessions (surviving SIGKILL), and the live client over
 * real loopback sockets against a peer that speaks the protocol with the
 * real common/ encoder and reader. */
#include "viewer-test-util.h"

#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "pl-capture.h"
#include "pl-client.h"
#include "pl-session-writer.h"
#include "reader.h"

typedef struct {
	guint messages, samples, hellos, ends;
} Counts;

static gboolean count(const struct pl_msg *m, gpointer data)
{
	Counts *c = data;
	c->messages++;
	c->samples += m->type == PL_MSG_SAMPLE;
	c->hellos += m->type == PL_MSG_HELLO;
	c->ends += m->type == PL_MSG_END;
	return TRUE;
}

/* 3 blocks: HELLO + 2 samples | 3 samples | 4 samples */
static char *three_blocks(const char *name, GArray **ends)
{
	char *path = vt_tmp(name);
	VtCapture *c = vt_capture_new(path);
	uint64_t chain[] = { T_CTX_USER, 0x1000, 0x2001 };
	int per_block[] = { 2, 3, 4 };
	vt_hello(c);
	for (int b = 0; b < 3; b++) {
		for (int i = 0; i < per_block[b]; i++)
			vt_sample(c, 0, 1, 1, (uint64_t)(b * 10 + i), 1, chain, 3);
		vt_capture_flush(c);
	}
	*ends = g_array_copy(c->block_ends);
	vt_capture_close(c);
	return path;
}

static void torn_tail(void)
{
	GArray *ends;
	g_autofree char *path = three_blocks("torn.plens", &ends);
	long cut = g_array_index(ends, long, 1) + 7; /* 7 bytes into block 3 */
	PL_CHECK(truncate(path, cut) == 0);
	Counts c = { 0 };
	PlCaptureInfo info;
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_capture_load(path, count, &c, &info, &error), "%s", error->message);
	PL_CHECK(info.kind == PL_FILE_PLENS && info.blocks == 2);
	PL_CHECK(c.hellos == 1 && c.samples == 5);
	PL_CHECK(info.ignored_bytes == 7);
	g_autofree char *note = pl_capture_info_dup_note(&info);
	PL_CHECKF(note && strstr(note, "7 bytes after the last complete block ignored"), "%s", note);
	g_array_free(ends, TRUE);
}

static void torn_everywhere(void)
{
	/* every cut point loads without error and delivers whole blocks only */
	GArray *ends;
	g_autofree char *path = three_blocks("every.plens", &ends);
	g_autofree char *data = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(path, &data, &len, NULL));
	g_autofree char *cutp = vt_tmp("cut.plens");
	for (gsize n = PL_STREAM_HEADER_SIZE; n <= len; n++) {
		PL_CHECK(g_file_set_contents(cutp, data, (gssize)n, NULL));
		Counts c = { 0 };
		PlCaptureInfo info;
		g_autoptr(GError) error = NULL;
		PL_CHECKF(pl_capture_load(cutp, count, &c, &info, &error), "cut %zu: %s", n,
			  error->message);
		guint whole = 0;
		for (guint b = 0; b < ends->len; b++)
			whole += (gsize)g_array_index(ends, long, b) <= n;
		PL_CHECKF(info.blocks == whole, "cut %zu: %" G_GUINT64_FORMAT " blocks", n,
			  info.blocks);
		PL_CHECK(info.ignored_bytes ==
			 n - (whole ? (gsize)g_array_index(ends, long, whole - 1) : PL_STREAM_HEADER_SIZE));
	}
	g_array_free(ends, TRUE);
}

static void corrupt_middle(void)
{
	GArray *ends;
	g_autofree char *path = three_blocks("corrupt.plens", &ends);
	g_autofree char *data = NULL;
	gsize len;
	PL_CHECK(g_file_get_contents(path, &data, &len, NULL));
	data[g_array_index(ends, long, 0) + PL_BLOCK_HEADER_SIZE + 3] ^= 0x55; /* block 2 payload */
	PL_CHECK(g_file_set_contents(path, data, (gssize)len, NULL));
	Counts c = { 0 };
	PlCaptureInfo info;
	g_autoptr(GError) error = NULL;
	PL_CHECK(!pl_capture_load(path, count, &c, &info, &error));
	PL_CHECK(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CORRUPT));
	PL_CHECKF(strstr(error->message, "checksum") && strstr(error->message, "1 good blocks"),
		  "%s", error->message);
	PL_CHECK(c.samples == 2); /* block 1 was delivered */
	g_array_free(ends, TRUE);
}

static void not_a_capture(void)
{
	g_autofree char *txt = vt_tmp("notes.txt");
	g_autofree char *empty = vt_tmp("empty.plens");
	g_autofree char *hdr = vt_tmp("header-only.plens");
	PL_CHECK(g_file_set_contents(txt, "hello world, not a profile\n", -1, NULL));
	PL_CHECK(g_file_set_contents(empty, "", 0, NULL));
	uint8_t h[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(h, PL_STREAM_CAPTURE);
	PL_CHECK(g_file_set_contents(hdr, (const char *)h, sizeof(h), NULL));
	Counts c = { 0 };
	GError *error = NULL;
	PL_CHECK(!pl_capture_load(txt, count, &c, NULL, &error));
	PL_CHECK(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT));
	g_clear_error(&error);
	PL_CHECK(!pl_capture_load(empty, count, &c, NULL, &error));
	PL_CHECKF(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_FORMAT), "%s",
		  error->message);
	g_clear_error(&error);
	PL_CHECK(!pl_capture_load("/nonexistent/x.plens", count, &c, NULL, &error));
	PL_CHECK(g_error_matches(error, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_IO));
	g_clear_error(&error);
	PL_CHECK(!pl_capture_load("/tmp", count, &c, NULL, &error));
	g_clear_error(&error);
	PlCaptureInfo info;
	PL_CHECK(pl_capture_load(hdr, count, &c, &info, &error));
	PL_CHECK(c.messages == 0 && info.blocks == 0 && info.ignored_bytes == 0);
	PL_CHECK(pl_capture_detect(hdr) == PL_FILE_PLENS && pl_capture_detect(txt) == PL_FILE_UNKNOWN);
}

/* Feeds a capture through a pl_reader and saves each block as the live
 * client does; the child is SIGKILLed after two blocks. */
static void writer_survives_sigkill(void)
{
	GArray *ends;
	g_autofree char *src = three_blocks("src.plens", &ends);
	g_autofree char *dst = vt_tmp("sessions/sub/killed.plens");
	g_array_free(ends, TRUE);
	pid_t pid = fork();
	if (pid == 0) {
		PlSessionWriter *w = pl_session_writer_new(dst, NULL);
		gchar *data;
		gsize len;
		if (!w || !g_file_get_contents(src, &data, &len, NULL))
			_exit(1);
		struct pl_reader r;
		struct pl_msg *m = g_new0(struct pl_msg, 1);
		pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
		pl_reader_feed(&r, data, len);
		uint64_t seen = 0;
		while (pl_reader_next(&r, m) == 1)
			if (r.blocks != seen) {
				seen = r.blocks;
				size_t n;
				const uint8_t *b = pl_reader_block(&r, &n);
				pl_session_writer_append(w, b, n, NULL);
				if (seen == 2)
					raise(SIGKILL); /* no close, no flush of anything */
			}
		_exit(2);
	}
	int status;
	PL_CHECK(waitpid(pid, &status, 0) == pid);
	PL_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	Counts c = { 0 };
	PlCaptureInfo info;
	g_autoptr(GError) error = NULL;
	PL_CHECKF(pl_capture_load(dst, count, &c, &info, &error), "%s", error->message);
	PL_CHECK(info.blocks == 2 && c.samples == 5 && c.hellos == 1 && info.ignored_bytes == 0);
	PL_CHECK(info.stream_flags == (PL_STREAM_CAPTURE | PL_STREAM_FROM_AGENT));
}

/* Appends every block of the capture at src to w; returns how many. */
static guint append_blocks(PlSessionWriter *w, const char *src)
{
	gchar *data;
	gsize len;
	PL_CHECK(g_file_get_contents(src, &data, &len, NULL));
	struct pl_reader r;
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	pl_reader_feed(&r, data, len);
	uint64_t seen = 0;
	gboolean ok = TRUE;
	while (pl_reader_next(&r, m) == 1)
		if (r.blocks != seen) {
			seen = r.blocks;
			size_t n;
			const uint8_t *b = pl_reader_block(&r, &n);
			ok = ok && pl_session_writer_append(w, b, n, NULL);
		}
	pl_reader_free(&r);
	g_free(m);
	g_free(data);
	PL_CHECK(ok);
	return (guint)seen;
}

static off_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Two sessions of one board in the same second: the second gets a name of
 * its own and the first keeps its bytes; a symlink planted at the next
 * name is skipped, never followed. */
static void session_names_unique(void)
{
	GArray *ends;
	g_autofree char *src = three_blocks("uniq-src.plens", &ends);
	g_array_free(ends, TRUE);
	g_autofree char *p = vt_tmp("uniq/20260101-000000-board.plens");
	g_autofree char *away = vt_tmp("uniq-away");
	g_autoptr(GError) error = NULL;
	g_autoptr(PlSessionWriter) w1 = pl_session_writer_new_unique(p, &error);
	PL_CHECKF(w1, "%s", error->message);
	PL_CHECK(append_blocks(w1, src) == 3);
	off_t first = (off_t)pl_session_writer_get_bytes(w1);
	g_autoptr(PlSessionWriter) w2 = pl_session_writer_new_unique(p, &error);
	PL_CHECKF(w2, "%s", error->message);
	const char *p1 = pl_session_writer_get_path(w1), *p2 = pl_session_writer_get_path(w2);
	PL_CHECKF(strcmp(p1, p2) != 0, "both at %s", p1);
	PL_CHECKF(file_size(p1) == first, "%s: %ld bytes, wrote %ld", p1, (long)file_size(p1),
		  (long)first);
	PL_CHECKF(g_str_has_suffix(p2, "-board-2.plens"), "%s", p2);
	g_autofree char *third = vt_tmp("uniq/20260101-000000-board-3.plens");
	PL_CHECK(symlink(away, third) == 0);
	g_autoptr(PlSessionWriter) w3 = pl_session_writer_new_unique(p, &error);
	PL_CHECKF(w3, "%s", error->message);
	PL_CHECKF(g_str_has_suffix(pl_session_writer_get_path(w3), "-board-4.plens"), "%s",
		  pl_session_writer_get_path(w3));
	PL_CHECK(!g_file_test(away, G_FILE_TEST_EXISTS));
	Counts c = { 0 };
	PlCaptureInfo info;
	PL_CHECK(pl_session_writer_close(w1, &error));
	PL_CHECKF(pl_capture_load(p1, count, &c, &info, &error), "%s", error->message);
	PL_CHECK(info.blocks == 3 && c.samples == 9 && info.ignored_bytes == 0);
}

/* Sessions hold raw stack bytes: 0600 files in 0700 directories, even
 * with umask 0, and a file kept from before loses its 0644. */
static void session_files_private(void)
{
	mode_t old = umask(0);
	g_autofree char *top = vt_tmp("priv");
	g_autofree char *p = vt_tmp("priv/sessions/s.plens");
	g_autofree char *kept = vt_tmp("kept.plens");
	g_autoptr(GError) error = NULL;
	g_autoptr(PlSessionWriter) w = pl_session_writer_new_unique(p, &error);
	g_autoptr(PlSessionWriter) w2 = NULL;
	if (w) {
		PL_CHECK(g_file_set_contents(kept, "old", 3, NULL) && chmod(kept, 0644) == 0);
		w2 = pl_session_writer_new(kept, &error);
	}
	umask(old);
	PL_CHECKF(w && w2, "%s", error->message);
	g_autofree char *sessions = g_path_get_dirname(p);
	const char *paths[] = { top, sessions, p, kept };
	const mode_t want[] = { 0700, 0700, 0600, 0600 };
	for (guint i = 0; i < G_N_ELEMENTS(paths); i++) {
		struct stat st;
		PL_CHECK(stat(paths[i], &st) == 0);
		PL_CHECKF((st.st_mode & 07777) == want[i], "%s is %04o, want %04o", paths[i],
			  (unsigned)(st.st_mode & 07777), (unsigned)want[i]);
	}
}

static char *full_mount;
static void unmount_full(void)
{
	if (full_mount)
		umount2(full_mount, MNT_DETACH);
	g_clear_pointer(&full_mount, g_free);
}

/* A real full disk (a 64 KiB tmpfs): the block that does not fit is
 * refused with ENOSPC, what part of it went out is cut off again, and the
 * session so far loads whole, no torn tail. */
static void session_writer_full_disk(void)
{
	if (geteuid() != 0)
		PL_SKIP("[not-root] mounting a small tmpfs needs root");
	GArray *ends;
	g_autofree char *src = three_blocks("full-src.plens", &ends);
	g_array_free(ends, TRUE);
	full_mount = vt_tmp("full");
	pl_test_after_case = unmount_full;
	PL_CHECK(g_mkdir_with_parents(full_mount, 0700) == 0);
	PL_CHECKF(mount("tmpfs", full_mount, "tmpfs", 0, "size=64k") == 0, "mount: %s",
		  g_strerror(errno));
	g_autofree char *p = g_build_filename(full_mount, "s.plens", NULL);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlSessionWriter) w = pl_session_writer_new(p, &error);
	PL_CHECKF(w, "%s", error->message);
	PL_CHECK(append_blocks(w, src) == 3);
	guint64 good = pl_session_writer_get_bytes(w);
	gsize big = 256 * 1024;
	g_autofree guint8 *junk = g_malloc0(big);
	PL_CHECK(!pl_session_writer_append(w, junk, big, &error));
	PL_CHECKF(g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOSPC), "%s", error->message);
	g_clear_error(&error);
	PL_CHECK(pl_session_writer_get_bytes(w) == good);
	PL_CHECKF(pl_session_writer_close(w, &error), "%s", error->message);
	PL_CHECKF(file_size(p) == (off_t)good, "%ld bytes on disk, %lu whole",
		  (long)file_size(p), (unsigned long)good);
	Counts c = { 0 };
	PlCaptureInfo info;
	PL_CHECKF(pl_capture_load(p, count, &c, &info, &error), "%s", error->message);
	PL_CHECK(info.blocks == 3 && c.samples == 9 && info.ignored_bytes == 0 && !error);
}

static void default_session_path(void)
{
	g_setenv("XDG_DATA_HOME", "/tmp/xdg-test", TRUE);
	g_autofree char *p = pl_session_default_path("my board/1");
	/* GLib caches the user data dir: only check the shape */
	PL_CHECKF(g_str_has_suffix(p, "-my_board_1.plens") && strstr(p, "/perflens/sessions/"),
		  "%s", p);
}

/* ─── a protocol peer on loopback ────────────────────────────────────── */

typedef struct {
	int lfd, port;
	const char *token; /* expected */
	gboolean dial;     /* --server style: the peer connects to port */
	int result;        /* 0 ok */
	char why[200];
} Peer;

static int listen_any(int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 2) < 0)
		return -1;
	getsockname(fd, (struct sockaddr *)&sa, &len);
	*port = ntohs(sa.sin_port);
	return fd;
}

static void peer_send(int fd, struct pl_block_enc *enc, const struct pl_msg *m)
{
	pl_msg_encode(&enc->w, m);
	const uint8_t *out;
	size_t n;
	pl_block_enc_finish(enc, &out, &n);
	send(fd, out, n, MSG_NOSIGNAL);
}

static void peer_reply(int fd, struct pl_block_enc *enc, uint32_t id, uint16_t cmd, int status,
		       const char *text)
{
	struct pl_msg m = { .type = PL_MSG_REPLY };
	m.u.reply = (struct pl_msg_reply){ id, cmd, status, pl_str_c(text) };
	peer_send(fd, enc, &m);
}

static void *peer_main(void *arg)
{
	Peer *p = arg;
	int fd;
	if (p->dial) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons((uint16_t)p->port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		int ok = -1;
		for (int i = 0; i < 100 && ok < 0; i++) {
			ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
			if (ok < 0) {
				close(fd);
				fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
				g_usleep(20000);
			}
		}
	} else {
		fd = accept(p->lfd, NULL, NULL);
	}
	struct pl_block_enc enc;
	struct pl_reader r;
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	pl_block_enc_init(&enc, 65536, 1);
	pl_reader_init(&r, 1 << 20);
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_FROM_AGENT);
	send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL);
	m->type = PL_MSG_HELLO;
	m->u.hello = (struct pl_msg_hello){ .protocol_version = PL_PROTOCOL_VERSION,
					    .agent_version = pl_str_c("peer"),
					    .machine = pl_str_c("x86_64"),
					    .e_machine = 62,
					    .byte_order = PL_LITTLE_ENDIAN,
					    .word_size = 8,
					    .hostname = pl_str_c("loopback"),
					    .flags = PL_HELLO_AUTH_REQUIRED | PL_HELLO_PERF_AVAILABLE };
	peer_send(fd, &enc, m);
	p->result = -1;
	for (;;) {
		uint8_t buf[4096];
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		pl_reader_feed(&r, buf, (size_t)n);
		int rc;
		while ((rc = pl_reader_next(&r, m)) == 1) {
			if (m->type == PL_MSG_AUTH) {
				gboolean ok = m->u.auth.token.len == strlen(p->token) &&
					      !memcmp(m->u.auth.token.p, p->token, strlen(p->token));
				peer_reply(fd, &enc, m->u.auth.request_id, PL_MSG_AUTH,
					   ok ? 0 : -EACCES, ok ? "ok" : "wrong token");
				if (!ok)
					goto out;
			} else if (m->type == PL_MSG_START) {
				uint32_t id = m->u.start.request_id;
				if (m->u.start.target != PL_TARGET_PID || m->u.start.pid != 77) {
					snprintf(p->why, sizeof(p->why), "bad START");
					goto out;
				}
				peer_reply(fd, &enc, id, PL_MSG_START, 0, "started");
				uint64_t chain[] = { T_CTX_USER, 0x401000 };
				for (int i = 0; i < 3; i++) {
					m->type = PL_MSG_SAMPLE;
					memset(&m->u.sample, 0, sizeof(m->u.sample));
					m->u.sample.pid = m->u.sample.tid = 77;
					m->u.sample.time = (uint64_t)i;
					m->u.sample.nr_callchain = 2;
					memcpy(m->u.sample.callchain, chain, sizeof(chain));
					peer_send(fd, &enc, m);
				}
				m->type = PL_MSG_END;
				m->u.end = (struct pl_msg_end){ PL_END_DURATION, 0, 3, pl_str_c("done") };
				peer_send(fd, &enc, m);
			} else if (m->type == PL_MSG_BYE) {
				peer_reply(fd, &enc, m->u.request.request_id, PL_MSG_BYE, 0, "bye");
				p->result = 0;
				goto out;
			}
		}
		if (rc < 0) {
			snprintf(p->why, sizeof(p->why), "peer: %s", pl_reader_error(&r));
			break;
		}
	}
out:
	close(fd);
	pl_reader_free(&r);
	pl_block_enc_free(&enc);
	g_free(m);
	return NULL;
}

static void run_session(PlClient *cl, const char *save)
{
	g_autoptr(GError) error = NULL;
	PL_CHECK(!g_strcmp0(pl_client_get_agent(cl)->hostname, "loopback"));
	PL_CHECKF(pl_client_authenticate(cl, "s3cret", 5000, &error), "%s", error->message);
	g_autoptr(PlSessionWriter) w = pl_session_writer_new(save, &error);
	PL_CHECK(w);
	Counts c = { 0 };
	pl_client_set_handler(cl, count, &c);
	PL_CHECK(pl_client_set_writer(cl, w, &error));
	struct pl_msg *m = g_new0(struct pl_msg, 1);
	m->type = PL_MSG_START;
	m->u.start.target = PL_TARGET_PID;
	m->u.start.pid = 77;
	gboolean ok = pl_client_request(cl, m, 5000, &error);
	g_free(m);
	PL_CHECKF(ok, "%s", error->message);
	for (int i = 0; i < 50 && !pl_client_got_end(cl); i++)
		PL_CHECKF(pl_client_poll(cl, 100, &error), "%s", error->message);
	PL_CHECK(pl_client_got_end(cl) && c.samples == 3);
	struct pl_msg bye = { .type = PL_MSG_BYE };
	PL_CHECK(pl_client_request(cl, &bye, 5000, &error));
	g_clear_pointer(&w, pl_session_writer_free);
	/* the saved session: HELLO, the auth reply, the stream, END */
	Counts f = { 0 };
	PlCaptureInfo info;
	PL_CHECKF(pl_capture_load(save, count, &f, &info, &error), "%s", error->message);
	PL_CHECK(f.hellos == 1 && f.samples == 3 && f.ends == 1 && info.ignored_bytes == 0);
}

static void live_client(void)
{
	Peer p = { .token = "s3cret" };
	p.lfd = listen_any(&p.port);
	PL_CHECK(p.lfd >= 0);
	pthread_t th;
	pthread_create(&th, NULL, peer_main, &p);
	g_autofree char *addr = g_strdup_printf("127.0.0.1:%d", p.port);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) cl = pl_client_connect(addr, 5000, &error);
	PL_CHECKF(cl, "%s", error->message);
	g_autofree char *save = vt_tmp("live.plens");
	run_session(cl, save);
	pthread_join(th, NULL);
	close(p.lfd);
	PL_CHECKF(p.result == 0, "%s", p.why);
}

static void listen_mode(void)
{
	Peer p = { .token = "s3cret", .dial = TRUE };
	int probe = listen_any(&p.port); /* find a free port, then free it */
	PL_CHECK(probe >= 0);
	close(probe);
	pthread_t th;
	pthread_create(&th, NULL, peer_main, &p);
	g_autofree char *spec = g_strdup_printf("127.0.0.1:%d", p.port);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) cl = pl_client_accept(spec, 5000, &error);
	PL_CHECKF(cl, "%s", error->message);
	g_autofree char *save = vt_tmp("dialled.plens");
	run_session(cl, save);
	pthread_join(th, NULL);
	PL_CHECKF(p.result == 0, "%s", p.why);
}

static void wrong_token(void)
{
	Peer p = { .token = "right" };
	p.lfd = listen_any(&p.port);
	pthread_t th;
	pthread_create(&th, NULL, peer_main, &p);
	g_autofree char *addr = g_strdup_printf("127.0.0.1:%d", p.port);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) cl = pl_client_connect(addr, 5000, &error);
	PL_CHECKF(cl, "%s", error->message);
	PL_CHECK(!pl_client_authenticate(cl, "wrong", 5000, &error));
	PL_CHECK(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED));
	PL_CHECKF(strstr(error->message, "--token"), "%s", error->message);
	g_clear_error(&error);
	PL_CHECK(!pl_client_authenticate(cl, NULL, 5000, &error)); /* required, none given */
	pthread_join(th, NULL);
	close(p.lfd);
}

static void unreachable(void)
{
	int port;
	int fd = listen_any(&port);
	close(fd); /* nobody listens there now */
	g_autofree char *addr = g_strdup_printf("127.0.0.1:%d", port);
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) cl = pl_client_connect(addr, 2000, &error);
	PL_CHECK(!cl);
	PL_CHECKF(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) &&
			  strstr(error->message, "cannot connect") &&
			  strstr(error->message, "--listen"),
		  "%s", error->message);
	g_clear_error(&error);
	PL_CHECK(!pl_client_connect("127.0.0.1:99999", 100, &error));
	PL_CHECK(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT));
}

PL_TEST_MAIN(PL_CASE(torn_tail), PL_CASE(torn_everywhere), PL_CASE(corrupt_middle),
	     PL_CASE(not_a_capture), PL_CASE(writer_survives_sigkill),
	     PL_CASE(session_names_unique), PL_CASE(session_files_private),
	     PL_CASE(session_writer_full_disk), PL_CASE(default_session_path), PL_CASE(live_client), PL_CASE(listen_mode),
	     PL_CASE(wrong_token), PL_CASE(unreachable))
