/* pl-test-agent.h — helpers for tests that drive the real agent binary:
 * start it, talk the wire protocol to it over loopback, read its captures.
 * Header-only, included by one test program each. */
#ifndef PL_TEST_AGENT_H
#define PL_TEST_AGENT_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "block.h"
#include "msg.h"
#include "pl-test-perf.h"
#include "pl-test.h"
#include "reader.h"

static inline const char *pl_build_dir(void)
{
	const char *b = getenv("PL_BUILD");
	return b ? b : "build";
}

/* Paths of a test that runs the agent: dir the build directory made
 * absolute (the kernel reports mappings by absolute path), agent the
 * agent under test (PL_AGENT: another build of it, e.g. the static musl
 * one; else dir/perflens-agent), and, the first time, a fresh directory
 * /tmp/NAME-XXXXXX in tmpdir.  Fails the case when one is missing: the
 * build makes them, so their absence is never a reason to skip. */
static inline void pl_agent_paths(char *dir, char *agent, size_t agent_len, char *tmpdir,
				  size_t tmpdir_len, const char *name)
{
	PL_CHECKF(realpath(pl_build_dir(), dir) != NULL, "no build directory %s (make)",
		  pl_build_dir());
	const char *other = getenv("PL_AGENT");
	PL_CHECKF(!other || realpath(other, agent) != NULL, "PL_AGENT=%s: %s", other,
		  strerror(errno));
	if (!other)
		snprintf(agent, agent_len, "%s/perflens-agent", dir);
	if (!tmpdir[0]) {
		snprintf(tmpdir, tmpdir_len, "/tmp/%s-XXXXXX", name);
		if (!mkdtemp(tmpdir))
			PL_CHECK(0);
	}
}

/* How many threads pid has now (/proc/PID/task; 0 when it is gone). */
static inline int pl_count_tasks(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static inline uint64_t pl_ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A free TCP port on loopback (bind to 0, read it back, release). */
static inline int pl_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	bind(fd, (struct sockaddr *)&a, sizeof(a));
	getsockname(fd, (struct sockaddr *)&a, &l);
	close(fd);
	return ntohs(a.sin_port);
}

/* Every process a case starts is killed when the case ends, even when a
 * failed check skipped the case's own clean-up. */
static pid_t pl_spawned[64];
static int pl_nspawned;

static void pl_kill_spawned(void)
{
	for (int i = 0; i < pl_nspawned; i++) {
		if (pl_spawned[i] > 0 && kill(pl_spawned[i], 0) == 0) {
			kill(pl_spawned[i], SIGKILL);
			waitpid(pl_spawned[i], NULL, 0);
		}
	}
	pl_nspawned = 0;
}

/* Starts a program with argv (NULL-terminated); its stderr goes to log
 * (may be NULL).  Returns the pid. */
static inline pid_t pl_spawn(char *const argv[], const char *log)
{
	pl_test_after_case = pl_kill_spawned;
	pid_t pid = fork();
	if (pid == 0) {
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(fd, 2);
			dup2(fd, 1);
		}
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0 && pl_nspawned < 64)
		pl_spawned[pl_nspawned++] = pid;
	return pid;
}

/* Waits up to ms for pid; returns its wait status or -1 on timeout. */
static inline int pl_wait(pid_t pid, int ms)
{
	int st;
	uint64_t end = pl_ms_now() + (uint64_t)ms;
	do {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(10000);
	} while (pl_ms_now() < end);
	return -1;
}

static inline void pl_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	if (pl_wait(pid, 3000) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* The file at path into buf as a string (at most len - 1 bytes; "" when it
 * cannot be read); its length. */
static inline size_t pl_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	return n;
}

/* Runs argv with stdout+stderr captured into out (NUL-terminated, the rest
 * drained and dropped so the child never blocks on a full pipe).  Returns
 * the exit status, or -1 if it did not exit within timeout_ms (killed). */
static inline int pl_run_capture(char *const argv[], char *out, size_t len, int timeout_ms)
{
	int p[2];
	if (pipe(p) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	size_t n = 0;
	char sink[4096];
	int st = -1, done = 0;
	uint64_t end = pl_ms_now() + (uint64_t)timeout_ms;
	for (;;) {
		ssize_t r = read(p[0], n + 1 < len ? out + n : sink,
				 n + 1 < len ? len - 1 - n : sizeof(sink));
		if (r > 0) {
			if (n + 1 < len)
				n += (size_t)r;
			continue;
		}
		if (done)
			break; /* exited and drained (a grandchild may keep the pipe open) */
		if (waitpid(pid, &st, WNOHANG) == pid)
			done = 1;
		else if (pl_ms_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			st = -1;
			done = 1;
		} else {
			usleep(5000);
		}
	}
	out[n] = 0;
	close(p[0]);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ─── a protocol client ──────────────────────────────────────────────── */

struct pl_conn {
	int fd;
	struct pl_reader r;
	struct pl_block_enc enc;
	struct pl_msg m; /* the last message received */
	uint32_t next_req;
};

static inline int pl_conn_open(struct pl_conn *c, int port, int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	uint64_t end = pl_ms_now() + (uint64_t)timeout_ms;
	for (;;) {
		c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		if (connect(c->fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		close(c->fd);
		c->fd = -1;
		if (pl_ms_now() > end)
			return -1;
		usleep(20000);
	}
	pl_reader_init(&c->r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	pl_block_enc_init(&c->enc, 65536, 0); /* viewers send raw blocks */
	uint8_t hdr[PL_STREAM_HEADER_SIZE];
	pl_stream_header_put(hdr, PL_STREAM_FROM_VIEWER);
	if (write(c->fd, hdr, sizeof(hdr)) != (ssize_t)sizeof(hdr))
		return -1;
	c->next_req = 1;
	return 0;
}

static inline void pl_conn_close(struct pl_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	pl_reader_free(&c->r);
	pl_block_enc_free(&c->enc);
}

/* Sends one message in its own block. */
static inline int pl_conn_send(struct pl_conn *c, struct pl_msg *m)
{
	if (pl_msg_encode(&c->enc.w, m) < 0)
		return -1;
	const uint8_t *b;
	size_t n;
	pl_block_enc_finish(&c->enc, &b, &n);
	return send(c->fd, b, n, MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* Next message within timeout_ms: 1 got one (in c->m), 0 timeout,
 * -1 connection closed or stream error. */
static inline int pl_conn_next(struct pl_conn *c, int timeout_ms)
{
	uint64_t end = pl_ms_now() + (uint64_t)timeout_ms;
	for (;;) {
		int rc = pl_reader_next(&c->r, &c->m);
		if (rc != 0)
			return rc > 0 ? 1 : -1;
		int left = (int)(end - pl_ms_now());
		if ((int64_t)(end - pl_ms_now()) <= 0)
			return 0;
		struct pollfd p = { c->fd, POLLIN, 0 };
		if (poll(&p, 1, left) <= 0)
			return 0;
		uint8_t buf[65536];
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return -1;
		pl_reader_feed(&c->r, buf, (size_t)n);
	}
}

/* Waits for a message of a type; returns 1, 0 timeout, -1 closed. */
static inline int pl_conn_wait(struct pl_conn *c, uint16_t type, int timeout_ms)
{
	uint64_t end = pl_ms_now() + (uint64_t)timeout_ms;
	for (;;) {
		int left = (int)(end - pl_ms_now());
		if (left <= 0)
			return 0;
		int rc = pl_conn_next(c, left);
		if (rc <= 0)
			return rc;
		if (c->m.type == type)
			return 1;
	}
}

/* Sends a request-only command and waits for its REPLY; returns status
 * (or 1000 on timeout / -1000 on close). */
static inline int pl_conn_request(struct pl_conn *c, uint16_t type)
{
	struct pl_msg m = { .type = type };
	m.u.request.request_id = c->next_req++;
	if (pl_conn_send(c, &m) < 0)
		return -1000;
	for (;;) {
		int rc = pl_conn_wait(c, PL_MSG_REPLY, 5000);
		if (rc <= 0)
			return rc == 0 ? 1000 : -1000;
		if (c->m.u.reply.request_id == m.u.request.request_id)
			return c->m.u.reply.status;
	}
}

static inline int pl_conn_auth(struct pl_conn *c, const char *token)
{
	struct pl_msg m = { .type = PL_MSG_AUTH };
	m.u.auth.request_id = c->next_req++;
	m.u.auth.token = pl_str_c(token);
	if (pl_conn_send(c, &m) < 0)
		return -1000;
	int rc = pl_conn_wait(c, PL_MSG_REPLY, 5000);
	return rc == 1 ? c->m.u.reply.status : rc == 0 ? 1000 : -1000;
}

/* ─── captures ───────────────────────────────────────────────────────── */

/* Calls fn for every message of a capture file; returns messages read, or
 * -1 if the file is malformed (err filled). */
static inline long pl_capture_each(const char *path, void (*fn)(const struct pl_msg *, void *),
				   void *user, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct pl_reader r;
	static struct pl_msg m;
	pl_reader_init(&r, PL_BLOCK_HEADER_SIZE + PL_BLOCK_MAX_STORED);
	uint8_t buf[65536];
	size_t n;
	long count = 0;
	int rc = 0;
	while (rc >= 0 && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
		pl_reader_feed(&r, buf, n);
		while ((rc = pl_reader_next(&r, &m)) == 1) {
			fn(&m, user);
			count++;
		}
	}
	fclose(f);
	if (rc < 0)
		snprintf(err, errlen, "%s", pl_reader_error(&r));
	pl_reader_free(&r);
	return rc < 0 ? -1 : count;
}

#endif
