/* boot.c — the agent as init=; see boot.h. */
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* Mounts type on dir unless probe (a path it provides) is there already:
 * the kernel, an initramfs or a container may have done it. */
static void need(const char *probe, const char *src, const char *dir, const char *type,
		 const char *opts)
{
	if (access(probe, F_OK) == 0)
		return;
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, opts) < 0)
		fprintf(stderr, "perflens-agent: --boot: cannot mount %s on %s: %s\n", type, dir,
			strerror(errno));
}

/* PID 1 from here on is the real init; never returns. */
__attribute__((noreturn)) static void become_init(char *const argv[])
{
	static char *const fallback[][2] = { { "/sbin/init", NULL }, { "/bin/sh", NULL } };
	execv(argv[0], argv);
	fprintf(stderr, "perflens-agent: --boot: cannot start %s: %s; trying /sbin/init, then "
			"/bin/sh\n", argv[0], strerror(errno));
	for (size_t i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++)
		execv(fallback[i][0], fallback[i]);
	fprintf(stderr, "perflens-agent: --boot: no init to start: the board stops here\n");
	for (;;)
		pause();
}

int pla_boot_start(char *const init_argv[], char *err, size_t errlen)
{
	if (getpid() != 1) {
		snprintf(err, errlen, "--boot runs as the kernel's init (init=/path/perflens-agent, "
				      "arguments after -- on the kernel command line), as PID 1: "
				      "without it, record with --all");
		return -EPERM;
	}
	need("/dev/null", "dev", "/dev", "devtmpfs", NULL);
	need("/proc/self", "proc", "/proc", "proc", NULL);
	need("/sys/kernel", "sys", "/sys", "sysfs", NULL);
	need("/sys/kernel/tracing/trace_marker", "tracefs", "/sys/kernel/tracing", "tracefs", NULL);
	mkdir("/run", 0755);
	need(PLA_BOOT_DIR "/.", "perflens", PLA_BOOT_DIR, "tmpfs", "mode=0700,size=64m");
	int p[2];
	if (pipe(p) < 0) {
		fprintf(stderr, "perflens-agent: --boot: pipe: %s; starting %s unrecorded\n",
			strerror(errno), init_argv[0]);
		become_init(init_argv);
	}
	pid_t child = pla_fork();
	if (child < 0) {
		fprintf(stderr, "perflens-agent: --boot: cannot start the recorder: %s; starting "
				"%s unrecorded\n", strerror(errno), init_argv[0]);
		become_init(init_argv);
	}
	if (child == 0) {
		close(p[0]);
		setsid(); /* init's terminal and signals are not the recorder's */
		return p[1];
	}
	/* PID 1: the real init once the recorder samples (or could not) */
	close(p[1]);
	struct pollfd pfd = { p[0], POLLIN, 0 };
	char c;
	if (poll(&pfd, 1, PLA_BOOT_WAIT_MS) != 1 || read(p[0], &c, 1) != 1)
		fprintf(stderr, "perflens-agent: --boot: the recorder is not sampling after %d ms; "
				"starting %s without waiting\n", PLA_BOOT_WAIT_MS, init_argv[0]);
	close(p[0]);
	become_init(init_argv);
}
