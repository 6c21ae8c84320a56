/* detach.c — /detach PROGRAM ARGS...: starts PROGRAM in a new session and
 * exits at once (PROGRAM's output goes to /dev/null).  The boards test's
 * `--all` row needs the workload running while nothing else is targeted:
 * `perflens record --command "/detach /burn-musl 6 2"` ends as soon as
 * /detach exits (the agent's target is gone), the workload keeps running,
 * orphaned to /init, and `perflens record --all` then samples the board.
 * Static musl, like the other big-endian user space (there is no shell
 * there). */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: detach PROGRAM [ARGS...]\n");
		return 2;
	}
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
