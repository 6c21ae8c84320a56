/* detach.c — /detach PROGRAM ARGS...: starts PROGRAM in a new session and
 * exits at once (PROGRAM's output goes to /dev/null).  The boards test's
 * `--all` and `--pid` rows need the workload running while nothing else
 * is targeted: `perflens record --command "/detach /burn-musl 3600 2"`
 * ends as soon as /detach exits (the agent's target is gone), the
 * workload keeps running, orphaned to /init, and `perflens record --all`
 * (or `--pid`) then samples it.
 *
 * /detach --kill PID: sends PID SIGTERM; exits 0 when it was delivered,
 * 1 when not (no such process).  The workload lives until the test ends
 * it so, not for a guessed time: the big-endian boards have no `kill`
 * (no busybox, no shell), and every board uses this one way.
 * Static musl, like the other big-endian user space. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int kill_pid(const char *arg)
{
	char *end;
	long pid = strtol(arg, &end, 10);
	if (*arg == 0 || *end != 0 || pid <= 1) {
		fprintf(stderr, "detach: --kill needs a process id above 1, not '%s'\n", arg);
		return 2;
	}
	if (kill((pid_t)pid, SIGTERM) < 0) {
		fprintf(stderr, "detach: kill %ld: %s\n", pid, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: detach PROGRAM [ARGS...] | detach --kill PID\n");
		return 2;
	}
	if (!strcmp(argv[1], "--kill"))
		return argc == 3 ? kill_pid(argv[2]) : 2;
	pid_t pid = fork();
	if (pid < 0) {
		perror("detach: fork");
		return 1;
	}
	if (pid > 0)
		return 0; /* the parent: the agent's target, gone now */
	setsid();
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	execv(argv[1], argv + 1);
	return 127;
}
