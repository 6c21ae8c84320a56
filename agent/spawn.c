/* spawn.c — the command a session starts (PL_TARGET_COMMAND): forked and
 * held before its exec until the session's events exist, with the signal
 * dispositions, mask, descriptor limit and priority it would have had
 * without the agent.  See spawn.h. */
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The descriptor limit the agent was started with: raised to the hard
 * limit for the events (one per thread, CPU and event, as perf does), and
 * given back to a command the agent starts. */
static struct rlimit nofile_found; /* rlim_max 0: not raised */

void pla_raise_nofile(void)
{
	/* prlimit: musl's setrlimit brings a 1.5 KB all-threads machinery
	 * the single-threaded agent does not need */
	struct rlimit r;
	if (nofile_found.rlim_max || prlimit(0, RLIMIT_NOFILE, NULL, &r) < 0)
		return;
	nofile_found = r;
	r.rlim_cur = r.rlim_max;
	prlimit(0, RLIMIT_NOFILE, &r, NULL);
}

/* Starts argv held before exec until *go_fd is written.  stdout_taken:
 * the agent's stdout is the stream (--output -), so the command writes
 * its own to the agent's stderr instead. */
pid_t pla_spawn_held(char *const *argv, int stdout_taken, int *go_fd, int *err_fd)
{
	int go[2], ep[2];
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid_t pid = pla_fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char b;
		close(go[1]);
		close(ep[0]);
		/* The command runs as it would without the agent: the agent
		 * ignores SIGPIPE (a viewer hanging up must not kill it) and
		 * catches SIGTERM, and an ignored signal or the mask survive
		 * exec; so `yes | head -1` would complain of a broken pipe.
		 * The raw call: libc refuses the signals it reserves for
		 * itself (32-34), which a parent may have left ignored too
		 * (seen: 32 and 33 under a test harness).  An all-zero kernel
		 * sigaction is SIG_DFL with no flags on every target; 32
		 * bytes cover its largest layout. */
		static uint64_t dfl[4]; /* .bss: no bytes in the file */
		for (int sig = 1; sig <= 64; sig++)
			syscall(SYS_rt_sigaction, sig, dfl, NULL, 8);
		uint64_t none = 0; /* the raw call: libc's costs the size budget 100 bytes */
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &none, NULL, sizeof(none));
		if (stdout_taken)
			syscall(SYS_dup3, 2, 1, 0); /* (libc's dup2: 80 bytes more) */
		/* A command the agent started ends with it, as at a session's
		 * stop: killed, the agent leaves no orphan on the board (nor an
		 * ssh session held open by the command's stderr, --stdio). */
		syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGTERM);
		if (nofile_found.rlim_max)
			prlimit(0, RLIMIT_NOFILE, &nofile_found, NULL);
		/* the agent may run at a raised priority: the command must not */
		setpriority(PRIO_PROCESS, 0, 0);
		/* wait until the parent's events exist: nothing is missed */
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	*go_fd = go[1];
	*err_fd = ep[0];
	return pid;
}
