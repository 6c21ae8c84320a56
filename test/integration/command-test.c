/* command-test.c — a command the agent starts (`-- COMMAND`) runs in the
 * environment it would have without the agent: default signal
 * dispositions and an empty signal mask (the agent ignores SIGPIPE and
 * catches SIGTERM), and with `--output -` its standard output goes to the
 * agent's standard error, never into the capture.  Real agent, real
 * kernel.
 *
 * PL_AGENT tests another agent binary (the static musl one). */
#include <limits.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "pl-test-agent.h"
#include "pl-test-perf.h"

static char agent[PATH_MAX + 32];
static char tmpdir[256];

static void need_perf(void)
{
	char dir[PATH_MAX];
	pl_agent_paths(dir, agent, sizeof(agent), tmpdir, sizeof(tmpdir), "pl-command-test");
	/* the kernel is asked, not the agent under test: an agent that
	 * cannot sample where the kernel lets it is the failure */
	pl_need_kernel_perf();
}

/* Runs the agent with argv (argv[0] set here), stdout into out, stderr into
 * log.  The agent itself starts with SIGHUP ignored and SIGUSR1 blocked,
 * as under nohup or a job control shell, and with signal 33 ignored (one
 * libc reserves and so will not reset through signal(); a harness here
 * left 32 and 33 ignored): none of it may reach the command either.  Returns the exit status, -1 when it did not exit. */
static int run_agent(char **argv, const char *out, const char *log)
{
	argv[0] = agent;
	pl_test_after_case = pl_kill_spawned;
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(o, 1);
		dup2(e, 2);
		signal(SIGHUP, SIG_IGN);
		static const uint64_t ign[4] = { (uint64_t)(uintptr_t)SIG_IGN };
		syscall(SYS_rt_sigaction, 33, ign, NULL, 8);
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	PL_CHECK(pid > 0);
	pl_spawned[pl_nspawned++] = pid;
	int st = pl_wait(pid, 60000);
	return st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* `yes | head -1`: yes is killed by SIGPIPE, silently, as in a shell */
static void broken_pipe_kills_quietly(void)
{
	need_perf();
	char cap[300], out[300], log[300], text[8192];
	snprintf(cap, sizeof(cap), "%s/pipe.plens", tmpdir);
	snprintf(out, sizeof(out), "%s/pipe.out", tmpdir);
	snprintf(log, sizeof(log), "%s/pipe.log", tmpdir);
	char *argv[] = { NULL, "--output", cap, "--", "sh", "-c", "yes | head -1", NULL };
	int st = run_agent(argv, out, log);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st == 0, "agent exit status %d: %s", st, text);
	PL_CHECKF(!strstr(text, "Broken pipe"), "%s", text);
	pl_slurp(out, text, sizeof(text));
	PL_CHECKF(!strcmp(text, "y\n"), "the command wrote '%s'", text);
}

/* The command's own view: /proc/self/status of the exec'd program */
static void signals_reset_before_exec(void)
{
	need_perf();
	char cap[300], out[300], log[300], text[8192];
	snprintf(cap, sizeof(cap), "%s/sig.plens", tmpdir);
	snprintf(out, sizeof(out), "%s/sig.out", tmpdir);
	snprintf(log, sizeof(log), "%s/sig.log", tmpdir);
	char *argv[] = { NULL, "--output", cap, "--", "grep", "-E", "^Sig(Ign|Blk):",
			 "/proc/self/status", NULL };
	int st = run_agent(argv, out, log);
	pl_slurp(out, text, sizeof(text));
	PL_CHECKF(st == 0, "agent exit status %d: %s", st, text);
	PL_CHECKF(strstr(text, "SigBlk:\t0000000000000000\n"), "signals blocked: %s", text);
	PL_CHECKF(strstr(text, "SigIgn:\t0000000000000000\n"), "signals ignored: %s", text);
}

struct ends {
	int ends;
};
static void count_ends(const struct pl_msg *m, void *user)
{
	((struct ends *)user)->ends += m->type == PL_MSG_END;
}

/* --output -: the capture is the agent's stdout, the command's output is
 * shown on the agent's stderr */
static void stdout_capture_stays_clean(void)
{
	need_perf();
	char cap[300], log[300], text[8192], err[256];
	snprintf(cap, sizeof(cap), "%s/stdout.plens", tmpdir);
	snprintf(log, sizeof(log), "%s/stdout.log", tmpdir);
	char *argv[] = { NULL, "--output", "-", "--", "echo", "hello-from-the-command", NULL };
	int st = run_agent(argv, cap, log);
	pl_slurp(log, text, sizeof(text));
	PL_CHECKF(st == 0, "agent exit status %d: %s", st, text);
	PL_CHECKF(strstr(text, "hello-from-the-command\n"), "not on stderr: %s", text);
	struct ends e = { 0 };
	PL_CHECKF(pl_capture_each(cap, count_ends, &e, err, sizeof(err)) > 0, "%s", err);
	PL_CHECKF(e.ends == 1, "%d END frames", e.ends);
	static char whole[4 << 20];
	size_t n = pl_slurp(cap, whole, sizeof(whole));
	PL_CHECKF(n > 16 && !memmem(whole, n, "hello-from", 10), "the command wrote into the capture");
}

PL_TEST_MAIN(PL_CASE(broken_pipe_kills_quietly), PL_CASE(signals_reset_before_exec),
	     PL_CASE(stdout_capture_stays_clean))
