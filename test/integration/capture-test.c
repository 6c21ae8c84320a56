/* capture-test.c — a capture written with --output holds everything the
 * agent sent, on the real kernel: the whole of /proc/kallsyms (so that
 * `perflens report` names the kernel frames of a kernel-heavy program),
 * and an output that cannot be written (a full device, a file size limit
 * reached at the last writes) makes the agent exit non-zero and say so.
 *
 * PL_AGENT tests another agent binary (the static musl one). */
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "pl-test-agent.h"
#include "pl-test-perf.h"

static char agent[PATH_MAX + 32], perflens[PATH_MAX + 32];
static char tmpdir[256];

static void paths(void)
{
	char dir[PATH_MAX];
	pl_agent_paths(dir, agent, sizeof(agent), tmpdir, sizeof(tmpdir), "pl-capture-test");
	snprintf(perflens, sizeof(perflens), "%s/perflens", dir);
}

static void need_perf(void)
{
	paths();
	/* the kernel is asked, not the agent under test: an agent that
	 * cannot sample where the kernel lets it is the failure */
	pl_need_kernel_perf();
}

/* Reads a whole small file (NUL-terminated) into buf; returns its length. */
/* Runs the agent with argv[1..] (argv[0] is set here), stderr into log;
 * fsize: RLIMIT_FSIZE for the agent (0: none), with SIGXFSZ ignored so
 * that an oversized write fails with EFBIG as on a full disk.  Returns
 * the agent's exit status, or -1 when it did not exit by itself. */
static int run_agent(char **argv, const char *log, rlim_t fsize, int timeout_ms)
{
	argv[0] = agent;
	pl_test_after_case = pl_kill_spawned;
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		if (fsize) {
			struct rlimit r = { fsize, fsize };
			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &r);
		}
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	PL_CHECK(pid > 0);
	pl_spawned[pl_nspawned++] = pid;
	int st = pl_wait(pid, timeout_ms);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ─── the whole kallsyms, kernel frames named ─────────────────────────── */

struct chunks {
	uint64_t next;  /* bytes of kallsyms received in order */
	uint64_t total; /* the total a chunk announced (0: none) */
	int out_of_order, chunks, ends;
	uint64_t lost_oversize;
};

static void scan_chunks(const struct pl_msg *m, void *user)
{
	struct chunks *k = user;
	if (m->type == PL_MSG_END)
		k->ends++;
	if (m->type == PL_MSG_LOST && m->u.lost.kind == PL_LOST_OVERSIZE)
		k->lost_oversize += m->u.lost.count;
	if (m->type != PL_MSG_FILE_CHUNK || m->u.chunk.kind != PL_CHUNK_KALLSYMS)
		return;
	k->chunks++;
	if (m->u.chunk.offset != k->next)
		k->out_of_order++;
	k->next = m->u.chunk.offset + m->u.chunk.len;
	if (m->u.chunk.total)
		k->total = m->u.chunk.total;
}

static void kallsyms_whole_kernel_frames_named(void)
{
	need_perf();
	long kptr = 0;
	char v[32] = "";
	FILE *f = fopen("/proc/sys/kernel/kptr_restrict", "r");
	if (f && fgets(v, sizeof(v), f))
		kptr = strtol(v, NULL, 10);
	if (f)
		fclose(f);
	if (geteuid() != 0 && kptr != 0)
		PL_SKIP("[not-root] kptr_restrict %ld hides kernel addresses", kptr);
	char cap[300], log[300], of[300], ofarg[320], rep[65536];
	snprintf(cap, sizeof(cap), "%s/dd.plens", tmpdir);
	snprintf(log, sizeof(log), "%s/dd.log", tmpdir);
	snprintf(of, sizeof(of), "%s/dd.out", tmpdir);
	snprintf(ofarg, sizeof(ofarg), "of=%s", of);
	/* dd spends its time in the kernel's write path */
	char *argv[] = { NULL, "--output", cap, "--stacks", "both", "--", "dd", "if=/dev/zero",
			 ofarg, "bs=64k", "count=6000", NULL };
	int st = run_agent(argv, log, 0, 120000);
	unlink(of);
	pl_slurp(log, rep, sizeof(rep));
	PL_CHECKF(st == 0, "agent exit status %d: %s", st, rep);
	struct chunks k = { 0 };
	char err[256];
	PL_CHECKF(pl_capture_each(cap, scan_chunks, &k, err, sizeof(err)) > 0, "%s", err);
	PL_CHECKF(k.ends == 1, "%d END frames", k.ends);
	PL_CHECKF(k.lost_oversize == 0, "%llu frames too large for a block",
		  (unsigned long long)k.lost_oversize);
	PL_CHECKF(k.chunks > 1 && k.out_of_order == 0,
		  "%d kallsyms chunks, %d not following the one before", k.chunks, k.out_of_order);
	PL_CHECKF(k.total > 0 && k.total == k.next,
		  "kallsyms incomplete: %llu bytes received, total announced %llu",
		  (unsigned long long)k.next, (unsigned long long)k.total);

	PL_CHECKF(access(perflens, X_OK) == 0, "%s not built (make)", perflens);
	/* the report names the write path and leaves (almost) nothing unknown */
	char *rargv[] = { perflens, "report", cap, "--sort=total", "--top=40",
			  "--fail-if=[unknown]>=2%", "--fail-if=total:vfs_write<20%", NULL };
	st = pl_run_capture(rargv, rep, sizeof(rep), 120000);
	PL_CHECKF(st == 0, "perflens report exit %d:\n%s", st, rep);
	PL_CHECKF(strstr(rep, "ksys_write") && strstr(rep, "vfs_write"), "%s", rep);
}

/* ─── an output that cannot be written ─────────────────────────────────── */

static void full_device_fails(void)
{
	need_perf();
	char log[300], text[4096], done[300], script[400];
	snprintf(log, sizeof(log), "%s/full.log", tmpdir);
	snprintf(done, sizeof(done), "%s/full.done", tmpdir);
	unlink(done);
	/* a command that says when it has run its course */
	snprintf(script, sizeof(script), "sleep 5; touch '%s'", done);
	char *argv[] = { NULL, "--output", "/dev/full", "--", "/bin/sh", "-c", script, NULL };
	int st = run_agent(argv, log, 0, 60000);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st > 0, "agent exit status %d writing to /dev/full: %s", st, text);
	PL_CHECKF(strstr(text, "/dev/full") && strstr(text, strerror(ENOSPC)), "%s", text);
	/* refused without waiting for the command to run its course (the
	 * command's own word, not a time: a loaded machine is slow to start
	 * the agent, never to refuse) */
	PL_CHECKF(access(done, F_OK) != 0, "the agent ended only after its command had run");
}

/* Offset of the last block of a capture (the stream header is 16 bytes,
 * a block header 20 with the stored length at +8); 0 when none. */
static long last_block(const char *path, long *len)
{
	static uint8_t buf[4 << 20];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	long off = PL_STREAM_HEADER_SIZE, last = 0;
	while ((size_t)off + PL_BLOCK_HEADER_SIZE <= n) {
		uint32_t stored = (uint32_t)buf[off + 8] | (uint32_t)buf[off + 9] << 8 |
				  (uint32_t)buf[off + 10] << 16 | (uint32_t)buf[off + 11] << 24;
		last = off;
		*len = PL_BLOCK_HEADER_SIZE + (long)stored;
		off += *len;
	}
	return (size_t)off == n ? last : 0;
}

static void last_writes_fail(void)
{
	need_perf();
	char cap[300], log[300], text[4096];
	snprintf(cap, sizeof(cap), "%s/short.plens", tmpdir);
	snprintf(log, sizeof(log), "%s/short.log", tmpdir);
	char *argv[] = { NULL, "--output", cap, "--no-counters", "--", "true", NULL };
	int st = run_agent(argv, log, 0, 60000);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st == 0, "agent exit status %d: %s", st, text);
	long len = 0, last = last_block(cap, &len);
	PL_CHECKF(last > 0 && len > 8, "no blocks in %s", cap);
	/* Again, with the file size limited to the middle of that last block
	 * (the one with END): every write before it fits, the last ones do
	 * not. */
	st = run_agent(argv, log, (rlim_t)(last + len / 2), 60000);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st > 0, "agent exit status %d with its END unwritten: %s", st, text);
	PL_CHECKF(strstr(text, cap) && strstr(text, "failed"), "%s", text);
	/* what was written before stays readable: the report reads its
	 * complete blocks, and since `true` left no sample in them, it says
	 * so and refuses (exit 2) rather than report 0 samples as a whole
	 * recording, which a --fail-if gate would pass */
	char *rep[] = { perflens, "report", cap, NULL };
	int rrc = pl_run_capture(rep, text, sizeof(text), 30000);
	PL_CHECKF(rrc == 2 && strstr(text, "holds no samples") && strstr(text, "complete"),
		  "report of the cut capture: exit %d: %s", rrc, text);
}

/* A capture holds raw stack bytes (keys, passwords): the file --output
 * creates is the user's alone, 0600 even under umask 0. */
static void output_owner_only(void)
{
	need_perf();
	char cap[300], log[300], text[4096];
	snprintf(cap, sizeof(cap), "%s/private.plens", tmpdir);
	snprintf(log, sizeof(log), "%s/private.log", tmpdir);
	unlink(cap);
	char *argv[] = { NULL, "--output", cap, "--no-counters", "--", "true", NULL };
	mode_t old = umask(0);
	int st = run_agent(argv, log, 0, 60000);
	umask(old);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st == 0, "agent exit status %d: %s", st, text);
	struct stat sb;
	PL_CHECK(stat(cap, &sb) == 0);
	PL_CHECKF((sb.st_mode & 07777) == 0600, "%s is %04o", cap, (unsigned)(sb.st_mode & 07777));
	/* a file already there, readable by all (an older agent's, or made by
	 * hand): overwritten, it becomes the user's alone too */
	PL_CHECK(chmod(cap, 0644) == 0);
	st = run_agent(argv, log, 0, 60000);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st == 0, "agent exit status %d over an existing file: %s", st, text);
	PL_CHECK(stat(cap, &sb) == 0);
	PL_CHECKF((sb.st_mode & 07777) == 0600, "%s written over a 0644 file is %04o", cap,
		  (unsigned)(sb.st_mode & 07777));
}

PL_TEST_MAIN(PL_CASE(kallsyms_whole_kernel_frames_named), PL_CASE(full_device_fails),
	     PL_CASE(last_writes_fail), PL_CASE(output_owner_only))
