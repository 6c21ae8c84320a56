/* faults-test.c — PerfLens under bad input, faults and attack: the agent
 * and the viewer's command line keep serving, say what happened, and never
 * lose what was already recorded.
 *
 * PL_AGENT tests another agent binary (the static musl one). */
#include <limits.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/socket.h>

#include "pl-test-agent.h"

static char agent[PATH_MAX + 32], viewer[PATH_MAX + 32], burn[PATH_MAX + 32];
static char tmpdir[128];

static void setup(void)
{
	char dir[PATH_MAX];
	pl_agent_paths(dir, agent, sizeof(agent), tmpdir, sizeof(tmpdir), "pl-faults");
	snprintf(viewer, sizeof(viewer), "%s/perflens", dir);
	snprintf(burn, sizeof(burn), "%s/workloads/burn", dir);
}

static void need_viewer(void)
{
	setup();
	PL_CHECKF(access(viewer, X_OK) == 0, "%s not built (make)", viewer);
}

#define run_out pl_run_capture

/* Where the listener on port logs. */
static void log_path(char *buf, size_t size, int port)
{
	snprintf(buf, size, "%s/agent-%d.log", tmpdir, port);
}

static pid_t start_listener(int port, char *const extra[])
{
	char portarg[16], log[256];
	snprintf(portarg, sizeof(portarg), "%d", port);
	log_path(log, sizeof(log), port);
	char *argv[20] = { agent, "--listen", "--bind", "127.0.0.1", "--port", portarg };
	int n = 6;
	for (int i = 0; extra && extra[i] && n < 19; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	pid_t pid = pl_spawn(argv, log);
	/* a viewer's refused connection is final: return once it listens */
	char text[4096];
	for (int i = 0; i < 200; i++) {
		FILE *f = fopen(log, "r");
		size_t got = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
		text[got] = 0;
		if (f)
			fclose(f);
		if (strstr(text, "listening on"))
			break;
		usleep(50000);
	}
	return pid;
}

/* The log of the listener on port (start_listener), as text. */
static void agent_log(int port, char *text, size_t size)
{
	char log[256];
	log_path(log, sizeof(log), port);
	FILE *f = fopen(log, "r");
	size_t n = f ? fread(text, 1, size - 1, f) : 0;
	text[n] = 0;
	if (f)
		fclose(f);
}

/* Connects to the listener on port and reads its HELLO. */
static void hello(struct pl_conn *c, int port)
{
	PL_CHECK(pl_conn_open(c, port, 5000) == 0);
	PL_CHECK(pl_conn_wait(c, PL_MSG_HELLO, 5000) == 1);
}

/* A fresh listener with extra options, and a connection that has its HELLO. */
static pid_t listener_hello(struct pl_conn *c, int *port, char *const extra[])
{
	setup();
	*port = pl_free_port();
	pid_t ag = start_listener(*port, extra);
	hello(c, *port);
	return ag;
}

static long vm_hwm_kb(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = atol(line + 6);
	if (f)
		fclose(f);
	return kb;
}

/* ─── access ────────────────────────────────────────────────────────── */

static void test_wrong_token_answered_late_and_logged(void)
{
	char *extra[] = { "--token", "right", NULL };
	int port;
	struct pl_conn c;
	pid_t ag = listener_hello(&c, &port, extra);
	uint64_t t0 = pl_ms_now();
	PL_CHECK(pl_conn_auth(&c, "wrong") == -EACCES);
	uint64_t took = pl_ms_now() - t0;
	PL_CHECKF(took >= 900, "refused after %llu ms: guessing is not slowed",
		  (unsigned long long)took);
	PL_CHECK(pl_conn_next(&c, 3000) == -1);
	pl_conn_close(&c);
	/* the agent is still serving, and the right token works */
	hello(&c, port);
	PL_CHECK(pl_conn_auth(&c, "right") == 0);
	pl_conn_close(&c);
	pl_kill(ag);
	char text[8192];
	agent_log(port, text, sizeof(text));
	PL_CHECKF(strstr(text, "wrong token from 127.0.0.1:"), "log: %s", text);
}

static void test_token_written_owner_only(void)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/token", tmpdir);
	char *extra[] = { "--write-token", path, NULL };
	int port;
	struct pl_conn c;
	pid_t ag = listener_hello(&c, &port, extra);
	PL_CHECK(c.m.u.hello.flags & PL_HELLO_AUTH_REQUIRED); /* a token by default */
	struct stat st;
	PL_CHECK(stat(path, &st) == 0);
	PL_CHECKF((st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	char tok[128] = "";
	FILE *f = fopen(path, "r");
	PL_CHECK(f && fgets(tok, sizeof(tok), f));
	fclose(f);
	tok[strcspn(tok, "\n")] = 0;
	PL_CHECK(strlen(tok) == 32);
	PL_CHECK(pl_conn_auth(&c, tok) == 0);
	pl_conn_close(&c);
	pl_kill(ag);
}

static void test_no_auth_warns(void)
{
	char *extra[] = { "--no-auth", NULL };
	int port;
	struct pl_conn c;
	pid_t ag = listener_hello(&c, &port, extra);
	PL_CHECK(!(c.m.u.hello.flags & PL_HELLO_AUTH_REQUIRED));
	PL_CHECK(pl_conn_request(&c, PL_MSG_LIST) == 0);
	pl_conn_close(&c);
	pl_kill(ag);
	char text[4096];
	agent_log(port, text, sizeof(text));
	PL_CHECK(strstr(text, "WARNING") && strstr(text, "--no-auth"));
}

/* ─── resource caps ─────────────────────────────────────────────────── */

static void test_oversized_block_refused(void)
{
	char *extra[] = { "--token", "t", NULL };
	int port;
	struct pl_conn c;
	pid_t ag = listener_hello(&c, &port, extra);
	/* a block header announcing 4 MiB: refused before any of it is buffered */
	uint8_t h[PL_BLOCK_HEADER_SIZE];
	struct pl_block_header bh = { PL_CODEC_RAW, 4u << 20, 4u << 20, 0 };
	pl_block_header_put(h, &bh);
	PL_CHECK(send(c.fd, h, sizeof(h), MSG_NOSIGNAL) == (ssize_t)sizeof(h));
	int rc;
	while ((rc = pl_conn_next(&c, 3000)) == 1)
		; /* (nothing follows the HELLO before AUTH) */
	PL_CHECK(rc == -1); /* hung up on */
	pl_conn_close(&c);
	PL_CHECK(kill(ag, 0) == 0); /* still alive */
	hello(&c, port);
	pl_conn_close(&c);
	pl_kill(ag);
}

static void test_silent_peer_dropped(void)
{
	char *extra[] = { "--token", "t", NULL };
	int port;
	struct pl_conn c;
	pid_t ag = listener_hello(&c, &port, extra);
	/* says nothing: dropped after the authentication deadline (5 s,
	 * PLA_GATE_DEADLINE_MS; it never held the controller slot meanwhile:
	 * access-test) */
	uint64_t t0 = pl_ms_now();
	int rc;
	while ((rc = pl_conn_next(&c, 15000)) == 1)
		;
	PL_CHECK(rc == -1);
	uint64_t took = pl_ms_now() - t0;
	/* not before the deadline (the upper bound is the 15 s wait above) */
	PL_CHECKF(took >= 4000, "dropped after %llu ms", (unsigned long long)took);
	pl_conn_close(&c);
	pl_kill(ag);
}

static void test_command_flood_bounded(void)
{
	char *extra[] = { "--token", "t", NULL };
	int port;
	struct pl_conn c;
	pid_t ag = listener_hello(&c, &port, extra);
	PL_CHECK(pl_conn_auth(&c, "t") == 0);
	long before = vm_hwm_kb(ag);
	/* 200,000 PAUSE commands (each answered "no session") without reading
	 * a byte of the answers: the agent must not buffer without bound */
	struct pl_block_enc e;
	pl_block_enc_init(&e, 60000, 0);
	fcntl(c.fd, F_SETFL, O_NONBLOCK);
	uint64_t sent = 0, deadline = pl_ms_now() + 20000;
	for (uint32_t i = 0; i < 200000 && pl_ms_now() < deadline;) {
		struct pl_msg m = { .type = PL_MSG_PAUSE };
		while (i < 200000) {
			m.u.request.request_id = ++i;
			if (pl_msg_encode(&e.w, &m) < 0)
				break;
		}
		const uint8_t *b;
		size_t n;
		pl_block_enc_finish(&e, &b, &n);
		size_t off = 0;
		while (off < n && pl_ms_now() < deadline) {
			ssize_t w = send(c.fd, b + off, n - off, MSG_NOSIGNAL);
			if (w > 0)
				off += (size_t)w;
			else if (errno == EAGAIN)
				usleep(1000);
			else
				break;
		}
		sent += off;
	}
	pl_block_enc_free(&e);
	long after = vm_hwm_kb(ag);
	PL_CHECKF(after > 0 && after - before < 8192, "agent grew from %ld to %ld kB", before, after);
	PL_CHECK(sent > 1000000);
	pl_conn_close(&c);
	/* still serving */
	hello(&c, port);
	pl_conn_close(&c);
	pl_kill(ag);
}

/* ─── faults while recording ────────────────────────────────────────── */

/* v[0] kernel losses in LOST records so far, v[1] samples, v[2] the last
 * HEALTH's count of kernel losses, v[3] HEALTH reports, v[4] those whose
 * count differs from the LOST records before them (the agent counts a loss
 * as it writes its LOST record: the two must agree at every report). */
static void count_lost(const struct pl_msg *m, void *user)
{
	uint64_t *v = user;
	if (m->type == PL_MSG_LOST && (m->u.lost.kind == PL_LOST_RING || m->u.lost.kind == PL_LOST_SAMPLES))
		v[0] += m->u.lost.count;
	if (m->type == PL_MSG_SAMPLE)
		v[1]++;
	if (m->type == PL_MSG_HEALTH) {
		v[2] = m->u.health.lost;
		v[3]++;
		v[4] += m->u.health.lost != v[0];
	}
}

static void test_ring_overflow_counted_and_shown(void)
{
	setup();
	char file[256], out[16384];
	snprintf(file, sizeof(file), "%s/overflow.plens", tmpdir);
	/* one page of ring per CPU, 16 KiB stacks at 20 kHz: the kernel must
	 * lose records, and every loss must be accounted for */
	char *argv[] = { agent, "--output", file, "--ring-pages", "1", "--frequency", "20000",
			 "--callgraph", "dwarf", "--stack-size", "16384", "--", burn, "1", "3", NULL };
	pl_need_kernel_perf();
	int rc = run_out(argv, out, sizeof(out), 30000);
	PL_CHECKF(rc == 0, "agent: %s", out);
	uint64_t v[5] = { 0 };
	char err[200];
	PL_CHECK(pl_capture_each(file, count_lost, v, err, sizeof(err)) > 0);
	PL_CHECKF(v[0] > 0, "no loss recorded with a 1-page ring (%llu samples)",
		  (unsigned long long)v[1]);
	/* the agent's own count travels too, and agrees with its LOST records */
	PL_CHECKF(v[3] > 0 && v[4] == 0 && v[2] > 0,
		  "%llu HEALTH reports, %llu disagreeing with the LOST records; last says %llu "
		  "lost, LOST records %llu",
		  (unsigned long long)v[3], (unsigned long long)v[4], (unsigned long long)v[2],
		  (unsigned long long)v[0]);
	need_viewer();
	char *rep[] = { viewer, "report", file, NULL };
	PL_CHECK(run_out(rep, out, sizeof(out), 30000) == 0);
	PL_CHECKF(strstr(out, "LOST"), "report does not show the loss:\n%s", out);
}

static void test_output_disk_full(void)
{
	setup();
	char out[4096];
	char *argv[] = { agent, "--output", "/dev/full", "--", burn, "1", "1", NULL };
	int rc = run_out(argv, out, sizeof(out), 20000);
	PL_CHECKF(rc == 1 && strstr(out, "/dev/full") && strstr(out, "No space"), "exit %d: %s",
		  rc, out);
}

/* perflens record of burn (dwarf, 999 Hz, secs seconds) from a listener
 * on loopback into file; the viewer's exit status, its output in out.
 * The listener is stopped before it returns. */
static int record_burn_to(const char *file, const char *secs, char *out, size_t size)
{
	int port = pl_free_port();
	char *extra[] = { "--token", "t", NULL };
	pid_t ag = start_listener(port, extra);
	char hp[64];
	snprintf(hp, sizeof(hp), "127.0.0.1:%d", port);
	char *rec[] = { viewer, "record", hp, "--token", "t", "--command", burn, "--callgraph",
			"dwarf", "--frequency", "999", "--duration", (char *)secs, "-o", (char *)file,
			"--timeout", "10", NULL };
	int rc = run_out(rec, out, size, 40000);
	pl_kill(ag);
	return rc;
}

static void test_viewer_save_disk_full_keeps_earlier_data(void)
{
	need_viewer();
	char mnt[256];
	snprintf(mnt, sizeof(mnt), "%s/small", tmpdir);
	mkdir(mnt, 0755);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=96k") < 0) {
		int e = errno;
		if (geteuid() != 0 || e == EPERM)
			PL_SKIP("[not-root] mounting a small tmpfs needs root (CAP_SYS_ADMIN): %s",
				strerror(e));
		PL_CHECKF(0, "cannot mount a small tmpfs on %s: %s", mnt, strerror(e));
	}
	char file[300], out[8192];
	snprintf(file, sizeof(file), "%s/s.plens", mnt);
	int rc = record_burn_to(file, "20", out, sizeof(out));
	/* a clear error naming the problem, not a crash */
	PL_CHECKF(rc == 2 && (strstr(out, "No space") || strstr(out, "space")), "exit %d: %s", rc,
		  out);
	/* and what was written opens */
	char *rep[] = { viewer, "report", file, NULL };
	int rrc = run_out(rep, out, sizeof(out), 30000);
	umount(mnt);
	PL_CHECKF(rrc == 0 && strstr(out, "samples"), "report of the partial file: exit %d: %s",
		  rrc, out);
}

static void test_agent_killed_while_recording(void)
{
	need_viewer();
	int port = pl_free_port();
	char *extra[] = { "--token", "t", NULL };
	pid_t ag = start_listener(port, extra);
	char hp[64], file[256], out[8192], cmd[PATH_MAX + 64];
	snprintf(hp, sizeof(hp), "127.0.0.1:%d", port);
	snprintf(file, sizeof(file), "%s/killed.plens", tmpdir);
	/* an unusual duration names this test's workload, for the clean-up */
	snprintf(cmd, sizeof(cmd), "%s 30.0417 2", burn);
	char *rec[] = { viewer, "record", hp, "--token", "t", "--command", cmd, "--duration", "30",
			"-o", file, "--timeout", "10", NULL };
	int p[2];
	PL_CHECK(pipe(p) == 0);
	pid_t v = fork();
	if (v == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(rec[0], rec);
		_exit(127);
	}
	close(p[1]);
	sleep(2);
	kill(ag, SIGKILL); /* the board dies */
	waitpid(ag, NULL, 0);
	uint64_t t0 = pl_ms_now();
	int st = pl_wait(v, 10000);
	uint64_t took = pl_ms_now() - t0;
	size_t n = 0;
	ssize_t r;
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (n + 1 < sizeof(out) && (r = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(p[0]);
	if (st < 0)
		pl_kill(v);
	PL_CHECKF(st >= 0 && took < 3000, "viewer noticed after %llu ms", (unsigned long long)took);
	/* it says so, keeps what arrived, and exits 2: the recording is
	 * incomplete, which a script must see */
	PL_CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
			  (strstr(out, "closed the connection") || strstr(out, "lost the connection")) &&
			  strstr(out, "saved"),
		  "viewer exit %d said: %s", WIFEXITED(st) ? WEXITSTATUS(st) : -1, out);
	char *rep[] = { viewer, "report", file, NULL };
	PL_CHECKF(run_out(rep, out, sizeof(out), 30000) == 0 && strstr(out, "hot_leaf"),
		  "the session up to the kill does not open: %s", out);
	/* the spawned workload is not left running on the board: the agent
	 * died, so it is orphaned; clean up this test's one, no other */
	char *pk[] = { "/usr/bin/pkill", "-f", "burn 30.0417 2", NULL };
	run_out(pk, out, sizeof(out), 5000);
}

/* A fake "agent" that sends the given bytes, then waits. */
static void serve_bytes(int port, const uint8_t *bytes, size_t n, pid_t *pid)
{
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	PL_CHECK(bind(lfd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(lfd, 1) == 0);
	*pid = fork();
	if (*pid == 0) {
		int fd = accept(lfd, NULL, NULL);
		if (fd >= 0 && n)
			if (write(fd, bytes, n) < 0)
				_exit(1);
		sleep(5);
		_exit(0);
	}
	close(lfd);
}

static void test_hostile_agent_gets_clear_error(void)
{
	need_viewer();
	static uint8_t junk[200000];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	/* 1: garbage; 2: a valid stream header then a block claiming 2 GiB;
	 * 3: a valid header and nothing more (silence) */
	uint8_t big[PL_STREAM_HEADER_SIZE + PL_BLOCK_HEADER_SIZE];
	pl_stream_header_put(big, PL_STREAM_FROM_AGENT);
	struct pl_block_header bh = { PL_CODEC_ZSTD, 0x7fffffffu, 0x7fffffffu, 0 };
	pl_block_header_put(big + PL_STREAM_HEADER_SIZE, &bh);
	struct {
		const uint8_t *b;
		size_t n;
	} cases[] = { { junk, sizeof(junk) }, { big, sizeof(big) }, { big, PL_STREAM_HEADER_SIZE } };
	for (size_t k = 0; k < 3; k++) {
		int port = pl_free_port();
		pid_t srv;
		serve_bytes(port, cases[k].b, cases[k].n, &srv);
		char hp[64], out[4096];
		snprintf(hp, sizeof(hp), "127.0.0.1:%d", port);
		char *ps[] = { viewer, "ps", hp, "--token", "x", "--timeout", "3", NULL };
		int rc = run_out(ps, out, sizeof(out), 20000);
		kill(srv, SIGKILL);
		waitpid(srv, NULL, 0);
		/* one line, exit 2, no crash */
		int lines = 0;
		for (char *q = out; *q; q++)
			lines += *q == '\n';
		PL_CHECKF(rc == 2 && lines <= 2 && strlen(out) > 10, "case %zu: exit %d: %s", k, rc,
			  out);
	}
}

/* A FIFO at the path of a code mapping never hangs the agent: it reads
 * build-ids from regular files only, opened without blocking.  The target
 * maps a real file in a mount namespace of its own (as in a container),
 * where the agent sees a FIFO at the same path. */
static void test_fifo_at_mapped_path_no_hang(void)
{
	setup();
	pl_need_kernel_perf();
	if (geteuid() != 0)
		PL_SKIP("[not-root] the target's own mount namespace needs root");
	char shown[256], real[256], lib[300], fifo[300], cap[300], out[4096];
	snprintf(shown, sizeof(shown), "%s/fifo-shown", tmpdir);
	snprintf(real, sizeof(real), "%s/fifo-real", tmpdir);
	snprintf(lib, sizeof(lib), "%s/lib.so", real);
	snprintf(fifo, sizeof(fifo), "%s/lib.so", shown);
	snprintf(cap, sizeof(cap), "%s/fifo.plens", tmpdir);
	mkdir(shown, 0700);
	mkdir(real, 0700);
	unlink(fifo);
	PL_CHECK(mkfifo(fifo, 0600) == 0);
	static char elf[1 << 16];
	int in = open(burn, O_RDONLY), lfd = open(lib, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	ssize_t n = in >= 0 ? read(in, elf, sizeof(elf)) : -1;
	PL_CHECK(n > 0 && lfd >= 0 && write(lfd, elf, (size_t)n) == n);
	close(in);
	close(lfd);
	int ready[2];
	PL_CHECK(pipe(ready) == 0);
	pl_test_after_case = pl_kill_spawned;
	pid_t t = fork();
	if (t == 0) {
		if (unshare(CLONE_NEWNS) < 0)
			_exit(1);
		/* The bind mount must not reach the test's namespace: the
		 * mount holding tmpdir is made private, found by walking up
		 * from tmpdir (in a chroot whose root is no mount point, such
		 * as make check-fresh's, "/" itself cannot be). */
		char dir[256];
		snprintf(dir, sizeof(dir), "%s", tmpdir);
		while (mount(NULL, dir, NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			char *slash = strrchr(dir, '/');
			if (!slash || dir[0] != '/' || !dir[1])
				_exit(4);
			slash == dir ? (void)(dir[1] = 0) : (void)(*slash = 0);
		}
		if (mount(real, shown, NULL, MS_BIND, NULL) < 0)
			_exit(1);
		int fd = open(fifo, O_RDONLY); /* the real file, here */
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			_exit(2);
		if (write(ready[1], "x", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	PL_CHECK(t > 0);
	pl_spawned[pl_nspawned++] = t;
	close(ready[1]);
	char c;
	if (read(ready[0], &c, 1) != 1) {
		int st = 0;
		waitpid(t, &st, 0);
		PL_CHECKF(0, "the target could not map %s in its namespace (its step %d failed: "
			  "1 unshare/bind, 2 open/mmap, 4 no mount to make private)",
			  lib, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	close(ready[0]);
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)t);
	char *argv[] = { agent, "--output", cap, "--pid", pid, "--duration", "1", NULL };
	uint64_t t0 = pl_ms_now();
	int rc = run_out(argv, out, sizeof(out), 15000);
	PL_CHECKF(rc == 0, "exit %d after %llu ms (blocked opening the FIFO %s?): %s", rc,
		  (unsigned long long)(pl_ms_now() - t0), fifo, out);
}

static char sync_dir[256];
static void unmount_sync_dir(void)
{
	pl_kill_spawned();
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "umount %s/mnt %s/back 2>/dev/null", sync_dir, sync_dir);
	if (sync_dir[0] && system(cmd) != 0)
		sync_dir[0] = 0; /* nothing was mounted */
}

/* A disk that accepts every write and fails at fsync (ext4 on a loop file
 * whose own file system, a 512 KiB tmpfs, fills as the pages go out): the
 * viewer says so and exits 2, instead of calling the session saved. */
static void test_viewer_save_fsync_fails_reported(void)
{
	need_viewer();
	if (geteuid() != 0)
		PL_SKIP("[not-root] mounting a loop file system needs root");
	if (access("/dev/loop-control", F_OK) != 0)
		PL_SKIP("[no-kernel-feature:loop devices] no /dev/loop-control");
	snprintf(sync_dir, sizeof(sync_dir), "%s/sync", tmpdir);
	pl_test_after_case = unmount_sync_dir;
	char cmd[1200];
	snprintf(cmd, sizeof(cmd),
		 "set -e; d=%s; mkdir -p $d/back $d/mnt; mount -t tmpfs -o size=512k tmpfs $d/back;"
		 " truncate -s 64M $d/back/img; mkfs.ext4 -q -F -O ^has_journal $d/back/img;"
		 " mount -o loop $d/back/img $d/mnt",
		 sync_dir);
	PL_CHECKF(system(cmd) == 0, "could not make the loop file system: %s", cmd);
	char file[300], out[8192];
	snprintf(file, sizeof(file), "%s/mnt/s.plens", sync_dir);
	int rc = record_burn_to(file, "3", out, sizeof(out));
	pl_test_after_case = unmount_sync_dir; /* (pl_spawn set its own) */
	PL_CHECKF(rc == 2 && strstr(out, "cannot save the session") && strstr(out, file),
		  "exit %d: %s", rc, out);
}

PL_TEST_MAIN(PL_CASE(test_wrong_token_answered_late_and_logged),
	     PL_CASE(test_token_written_owner_only), PL_CASE(test_no_auth_warns),
	     PL_CASE(test_oversized_block_refused), PL_CASE(test_silent_peer_dropped),
	     PL_CASE(test_command_flood_bounded), PL_CASE(test_ring_overflow_counted_and_shown),
	     PL_CASE(test_output_disk_full), PL_CASE(test_viewer_save_disk_full_keeps_earlier_data),
	     PL_CASE(test_agent_killed_while_recording), PL_CASE(test_hostile_agent_gets_clear_error),
	     PL_CASE(test_fifo_at_mapped_path_no_hang),
	     PL_CASE(test_viewer_save_fsync_fails_reported))
