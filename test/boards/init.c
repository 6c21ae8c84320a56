/* test/boards/init.c — /init of the big-endian emulated boards.
 *
 * Debian has no big-endian ARM port, so there is no busybox for these
 * boards: this static musl program (built by mkinitramfs.sh with
 * toolchains/cc.sh) does what init.sh does on the little-endian ones.
 * It mounts /dev, /proc, /sys, tracefs and a tmpfs /tmp, starts a
 * watchdog that powers off after pl.timeout seconds, lets the emulated
 * kernel sample at any rate (perf_cpu_time_max_percent=0), runs the agent
 * as a user would after scp (--listen --port 9999 --token T) with each of
 * its lines stamped with the guest's uptime, and powers off when the agent
 * exits.  The network needs nothing from here: the kernel configures eth0
 * from its command line (ip=, CONFIG_IP_PNP; boot.sh passes it).
 *
 * Lines the host's boards.sh reads: PL-BOOT, PL-HANDOVER, PL-KCLOCK,
 * PL-PARANOID, PL-AGENT-START, PL-AGENT-EXIT, PL-WATCHDOG, PL-ERROR (any
 * of these last three fails the board).
 * Settings from /proc/cmdline: pl.token=T pl.timeout=S.
 *
 * The fleet row (boards.sh fleet_row) adds pl.server=ADDR:PORT,
 * pl.labels=K=V,K=V…, pl.run=SECONDS and pl.now=EPOCH (the host's clock
 * at qemu's start: these boards have no RTC, and a board in the field sets
 * its clock by NTP before it reports): the agent then reports to that
 * collector as a board in a rack would (--server, the token from a 0600
 * file, the labels from a file, 2 s sessions), profiling /burn-musl,
 * instead of listening.  An agent with a command runs it again when it
 * ends (it reports continuously), so after SECONDS /init stops the agent
 * in order (SIGTERM: it sends the session under way and exits) and the
 * board powers off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t agent_pid;

static void stop_agent(int sig)
{
	(void)sig;
	kill(agent_pid, SIGTERM);
}

static void power_off(void)
{
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	_exit(1); /* panic=-1 turns init's exit into qemu's exit too */
}

/* the guest's uptime as /proc/uptime prints it (seconds, 2 decimals) */
static const char *uptime(char *buf, size_t n)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	snprintf(buf, n, "%ld.%02ld", (long)ts.tv_sec, ts.tv_nsec / 10000000);
	return buf;
}

static void must_mount(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	/* EBUSY: there already (sysfs and devtmpfs mount once per place), as
	 * `perflens-agent --boot` as the kernel's init leaves them, and as
	 * systemd takes the API file systems it finds mounted */
	if (mount(src, dir, type, 0, NULL) < 0 && errno != EBUSY)
		printf("PL-ERROR mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* first line of a file, without its newline ("" when unreadable) */
static const char *read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ok;
	if (fd < 0)
		return -errno;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -errno;
	close(fd);
	return ok;
}

/* The kernel's hand-over to init on its printk clock (the "Run X as init
 * process" record of /dev/kmsg), and that clock against CLOCK_MONOTONIC
 * (the agent's samples'): a record written here between two reads of it,
 * read back (boards.sh's boot row).  Prints PL-HANDOVER and PL-KCLOCK. */
static void handover(void)
{
	char rec[1024], t0[32], t1[32];
	int fd = open("/dev/kmsg", O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		printf("PL-ERROR /dev/kmsg: %s\n", strerror(errno));
		return;
	}
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int w = write(fd, "PL-KCLOCK\n", 10) == 10;
	clock_gettime(CLOCK_MONOTONIC, &b);
	snprintf(t0, sizeof t0, "%ld.%06ld", (long)a.tv_sec, a.tv_nsec / 1000);
	snprintf(t1, sizeof t1, "%ld.%06ld", (long)b.tv_sec, b.tv_nsec / 1000);
	/* records "prio,seq,usec,flags;text"; EAGAIN after the last one */
	for (ssize_t n; (n = read(fd, rec, sizeof rec - 1)) > 0 || (n < 0 && errno == EPIPE);) {
		unsigned long long us;
		if (n < 0)
			continue; /* overwritten records: go on with the next */
		rec[n] = 0;
		char *text = strchr(rec, ';');
		if (!text || sscanf(rec, "%*u,%*u,%llu", &us) != 1)
			continue;
		text++;
		text[strcspn(text, "\n")] = 0;
		char init[256];
		if (sscanf(text, "Run %255s as init process", init) == 1)
			printf("PL-HANDOVER printk=%llu.%06llu init=%s\n", us / 1000000, us % 1000000,
			       init);
		else if (w && !strcmp(text, "PL-KCLOCK"))
			printf("PL-KCLOCK printk=%llu.%06llu monotonic=%s..%s\n", us / 1000000,
			       us % 1000000, t0, t1);
	}
	close(fd);
}

int main(void)
{
	char up[32], token[128] = "", cmdline[4096], line[512], a[64], b[64];
	char server[128] = "", labels[512] = "", run[16] = "";
	long timeout = 150;
	struct utsname u;

	mkdir("/dev", 0755);
	mount("dev", "/dev", "devtmpfs", 0, NULL);
	int con = open("/dev/console", O_RDWR);
	if (con >= 0) {
		dup2(con, 0), dup2(con, 1), dup2(con, 2);
		if (con > 2)
			close(con);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	must_mount("proc", "/proc", "proc");
	must_mount("sys", "/sys", "sysfs");
	must_mount("tracefs", "/sys/kernel/tracing", "tracefs");
	must_mount("tmp", "/tmp", "tmpfs");
	setenv("PATH", "/", 1);
	uname(&u);
	printf("PL-BOOT uptime=%s kernel=%s machine=%s\n", uptime(up, sizeof up), u.release, u.machine);
	handover();

	read_line("/proc/cmdline", cmdline, sizeof cmdline);
	for (char *w = strtok(cmdline, " "); w; w = strtok(NULL, " ")) {
		if (!strncmp(w, "pl.token=", 9))
			snprintf(token, sizeof token, "%s", w + 9);
		else if (!strncmp(w, "pl.timeout=", 11))
			timeout = atol(w + 11);
		else if (!strncmp(w, "pl.server=", 10))
			snprintf(server, sizeof server, "%s", w + 10);
		else if (!strncmp(w, "pl.labels=", 10))
			snprintf(labels, sizeof labels, "%s", w + 10);
		else if (!strncmp(w, "pl.run=", 7))
			snprintf(run, sizeof run, "%s", w + 7);
		else if (!strncmp(w, "pl.now=", 7)) {
			struct timespec now = { .tv_sec = atoll(w + 7) };
			if (clock_settime(CLOCK_REALTIME, &now) < 0)
				printf("PL-ERROR clock_settime: %s\n", strerror(errno));
		}
	}
	if (server[0]) {
		/* the token and labels as files, as a board in the field keeps
		 * them (the token never on a command line ps shows) */
		for (char *c = labels; *c; c++)
			if (*c == ',')
				*c = '\n';
		int e1 = 0, e2 = 0, fd = open("/tmp/token", O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, token, strlen(token)) != (ssize_t)strlen(token))
			e1 = errno;
		if (fd >= 0)
			close(fd);
		fd = open("/tmp/labels", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, labels, strlen(labels)) != (ssize_t)strlen(labels) ||
		    write(fd, "\n", 1) != 1)
			e2 = errno;
		if (fd >= 0)
			close(fd);
		if (e1 || e2)
			printf("PL-ERROR writing /tmp/token or /tmp/labels: %s\n", strerror(e1 ? e1 : e2));
	}

	/* the watchdog: qemu always exits, whatever the agent does */
	pid_t dog = fork();
	if (dog == 0) {
		/* A kernel without the system calls musl sleeps with (32-bit
		 * ARM without COMPAT_32BIT_TIME) made sleep() return at once,
		 * silently: that is said here, then the board stops. */
		struct timespec t = { .tv_sec = timeout };
		int r;
		while ((r = clock_nanosleep(CLOCK_MONOTONIC, 0, &t, &t)) == EINTR)
			;
		if (r != 0)
			printf("PL-ERROR watchdog: clock_nanosleep: %s\n", strerror(r));
		printf("PL-WATCHDOG after %lds\n", timeout);
		power_off();
	}

	if (access("/sys/class/net/eth0", F_OK) < 0)
		printf("PL-ERROR no eth0 (is ip= on the kernel command line?)\n");
	/* Otherwise the emulated kernel, seeing slow sampling interrupts,
	 * lowers perf_event_max_sample_rate within seconds and requests
	 * above it fail. */
	int err = write_file("/proc/sys/kernel/perf_cpu_time_max_percent", "0\n");
	if (err < 0)
		printf("PL-ERROR perf_cpu_time_max_percent: %s\n", strerror(-err));
	printf("PL-PARANOID %s max_rate=%s\n",
	       read_line("/proc/sys/kernel/perf_event_paranoid", a, sizeof a),
	       read_line("/proc/sys/kernel/perf_event_max_sample_rate", b, sizeof b));

	printf("PL-AGENT-START uptime=%s\n", uptime(up, sizeof up));
	int p[2];
	if (pipe(p) < 0) {
		printf("PL-ERROR pipe: %s\n", strerror(errno));
		power_off();
	}
	pid_t agent = fork();
	if (agent == 0) {
		dup2(p[1], 1), dup2(p[1], 2);
		close(p[0]), close(p[1]);
		if (server[0])
			execl("/perflens-agent", "perflens-agent", "--server", server, "--token-file",
			      "/tmp/token", "--labels-file", "/tmp/labels", "--session-period", "2",
			      "-F", "499", "-g", "--", "/burn-musl", "3600", "2", (char *)NULL);
		else
			execl("/perflens-agent", "perflens-agent", "--listen", "--port", "9999",
			      "--token", token, (char *)NULL);
		printf("PL-ERROR exec /perflens-agent: %s\n", strerror(errno));
		_exit(127);
	}
	close(p[1]);
	if (server[0]) {
		/* SA_RESTART: the read of the agent's lines below goes on */
		struct sigaction sa = { .sa_handler = stop_agent, .sa_flags = SA_RESTART };
		agent_pid = agent;
		sigaction(SIGALRM, &sa, NULL);
		alarm(run[0] ? (unsigned)atoi(run) : 10);
	}
	/* each agent line prefixed with the guest's uptime: the host measures
	 * "viewer connected -> first sample" on the guest's own clock */
	FILE *in = fdopen(p[0], "r");
	while (in && fgets(line, sizeof line, in))
		printf("[%s] %s%s", uptime(up, sizeof up), line,
		       line[strlen(line) - 1] == '\n' ? "" : "\n");
	/* init reaps every orphan; the agent's status is the one reported */
	int st = 0;
	for (pid_t w; (w = wait(&st)) != -1 || errno == EINTR;) {
		if (w == agent) {
			printf("PL-AGENT-EXIT status=%d\n",
			       WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			break;
		}
	}
	kill(dog, SIGKILL);
	power_off();
}
