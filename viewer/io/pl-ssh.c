/* pl-ssh.c — profiling over SSH: the board's architecture, the agent
 * deployed by content hash, and the agent run with --stdio over ssh's
 * stdin and stdout (contract in pl-ssh.h). */
#include "pl-ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The remote shell's way of saying the agent died of a signal (ssh turns
 * a remote signal into status 255, which is also its own failure). */
#define KILLED_LINE "perflens: the agent ended by signal "
#define EXIT_NO_DIR 111 /* the copy found no writable directory */

typedef struct {
	char **argv;     /* ssh, its options, "--", the host: the command follows */
	char *url;       /* ssh://user@host:port, for messages */
	char *by_hand;   /* "ssh -p PORT user@host", for messages */
	char *known_key; /* known_hosts' name for the host: [host]:port or host */
	char *dir;       /* the remote directory as the user gave it, for messages */
	char *dir_sh;    /* the same as a shell word */
	char *host;      /* for the advice's ssh://root@HOST[:PORT] */
	guint port;
	/* what the board said about itself (pick_agent) */
	char *board_dir;  /* the directory, expanded there ("" when not said) */
	char *agent_path; /* the agent run there: board_dir/perflens-agent-SHA256 */
	char *board_user;
	long board_uid; /* -1: not said */
	long paranoid;  /* perf_event_paranoid there; LONG_MIN: not said */
	/* the running agent's ssh */
	GPid pid;
	int err_fd; /* its stderr (a memfd) */
	gboolean reaped;
	int wait_status;
} PlSsh;

gboolean pl_ssh_is_url(const char *target)
{
	return target && g_str_has_prefix(target, PL_SSH_SCHEME);
}

/* ─── the address ────────────────────────────────────────────────────── */

static gboolean word_ok(const char *s)
{
	/* passed to ssh as arguments: no option look-alikes, no spaces */
	if (!*s || *s == '-')
		return FALSE;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '/' || *p == '\'' || *p == '"')
			return FALSE;
	return TRUE;
}

gboolean pl_ssh_parse_url(const char *url, char **user, char **host, guint *port,
			  GError **error)
{
	*user = *host = NULL;
	*port = 0;
	if (!pl_ssh_is_url(url))
		goto bad;
	const char *s = url + strlen(PL_SSH_SCHEME);
	const char *at = strrchr(s, '@');
	if (at) {
		*user = g_strndup(s, (gsize)(at - s));
		s = at + 1;
	}
	const char *colon;
	if (*s == '[') {
		const char *close = strchr(s, ']');
		if (!close)
			goto bad;
		*host = g_strndup(s + 1, (gsize)(close - s - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon)
			goto bad;
	} else {
		colon = strchr(s, ':');
		*host = colon ? g_strndup(s, (gsize)(colon - s)) : g_strdup(s);
	}
	if (colon) {
		char *end;
		unsigned long p = strtoul(colon + 1, &end, 10);
		if (!colon[1] || *end || p == 0 || p > 65535)
			goto bad;
		*port = (guint)p;
	}
	if (!word_ok(*host) || (*user && !word_ok(*user)))
		goto bad;
	return TRUE;
bad:
	g_clear_pointer(user, g_free);
	g_clear_pointer(host, g_free);
	g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
		    "bad address '%s': use ssh://HOST, ssh://USER@HOST or ssh://USER@HOST:PORT",
		    url);
	return FALSE;
}

/* ─── running ssh ────────────────────────────────────────────────────── */

static void ssh_free(gpointer data)
{
	PlSsh *s = data;
	if (!s)
		return;
	if (s->pid > 0 && !s->reaped) {
		/* the socket is closed: ssh ends once the board's side has; a
		 * hung network must not hold the viewer */
		for (int i = 0; i < 200 && !s->reaped; i++) {
			if (waitpid(s->pid, &s->wait_status, WNOHANG) == s->pid)
				s->reaped = TRUE;
			else
				g_usleep(10000);
		}
		if (!s->reaped) {
			kill(s->pid, SIGTERM);
			waitpid(s->pid, &s->wait_status, 0);
		}
	}
	if (s->err_fd >= 0)
		close(s->err_fd);
	g_strfreev(s->argv);
	g_free(s->url);
	g_free(s->by_hand);
	g_free(s->known_key);
	g_free(s->dir);
	g_free(s->dir_sh);
	g_free(s->host);
	g_free(s->board_dir);
	g_free(s->agent_path);
	g_free(s->board_user);
	g_free(s);
}

static int new_memfd(GError **error)
{
	int fd = memfd_create("perflens-ssh", MFD_CLOEXEC);
	if (fd < 0)
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "cannot make a buffer for ssh's output: %s", g_strerror(errno));
	return fd;
}

/* The last 64 KiB written to a memfd. */
static char *memfd_text(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return g_strdup("");
	off_t from = st.st_size > 65536 ? st.st_size - 65536 : 0;
	gsize n = (gsize)(st.st_size - from);
	char *buf = g_malloc(n + 1);
	ssize_t got = pread(fd, buf, n, from);
	buf[got > 0 ? got : 0] = 0;
	return buf;
}

static gboolean spawn_ssh(PlSsh *s, const char *remote_cmd, int in_fd, int out_fd, int err_fd,
			  GPid *pid, GError **error)
{
	guint n = g_strv_length(s->argv);
	g_autofree char **argv = g_new0(char *, n + 2);
	memcpy(argv, s->argv, n * sizeof(char *));
	/* sh runs it, whatever the user's login shell (fish, csh) */
	g_autofree char *quoted = g_shell_quote(remote_cmd);
	g_autofree char *line = g_strconcat("exec sh -c ", quoted, NULL);
	argv[n] = line;
	GError *local = NULL;
	if (!g_spawn_async_with_pipes_and_fds(NULL, (const char *const *)argv, NULL,
					      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL,
					      NULL, in_fd, out_fd, err_fd, NULL, NULL, 0, pid, NULL,
					      NULL, NULL, &local)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "cannot run %s: %s — install the OpenSSH client, or name yours in "
			    "PERFLENS_SSH",
			    s->argv[0], local->message);
		g_error_free(local);
		return FALSE;
	}
	return TRUE;
}

/* Waits up to timeout_ms; TRUE when it ended (*status as waitpid's). */
static gboolean wait_for(GPid pid, int timeout_ms, int *status)
{
	gint64 end = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return TRUE;
		if (g_get_monotonic_time() >= end)
			return FALSE;
		g_usleep(5000);
	}
}

/* One remote command to the end: stdin from in_fd (-1: none), its output
 * and error text, and the exit code (255: ssh's own failure). */
static gboolean run_remote(PlSsh *s, const char *cmd, int in_fd, guint timeout_ms, char **out,
			   char **err, int *code, GError **error)
{
	int ofd = new_memfd(error), efd = ofd >= 0 ? new_memfd(error) : -1;
	GPid pid;
	gboolean ok = efd >= 0 && spawn_ssh(s, cmd, in_fd, ofd, efd, &pid, error);
	if (ok) {
		int status = 0;
		if (!wait_for(pid, (int)timeout_ms + 5000, &status)) {
			kill(pid, SIGTERM);
			waitpid(pid, &status, 0);
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
				    "ssh to %s did not finish within %u s: check the network (try "
				    "%s by hand)",
				    s->url, timeout_ms / 1000 + 5, s->by_hand);
			ok = FALSE;
		}
		*code = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
		*out = memfd_text(ofd);
		*err = memfd_text(efd);
	}
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	return ok;
}

static char *last_line(const char *text)
{
	g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
	for (guint i = g_strv_length(lines); i-- > 0;) {
		char *l = g_strstrip(lines[i]);
		if (*l)
			return g_strdup(l);
	}
	return g_strdup("no message");
}

/* ssh's own failures (status 255), one line each saying what to do;
 * FALSE when it was not one. */
static gboolean ssh_failed(PlSsh *s, int code, const char *err, GError **error)
{
	if (code != 255)
		return FALSE;
	g_autofree char *last = last_line(err);
	if (strstr(err, "REMOTE HOST IDENTIFICATION HAS CHANGED") ||
	    strstr(err, "has changed and you have requested strict checking"))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "the host key of %s has changed since known_hosts saved it: if the "
			    "board was reinstalled, remove the old key (ssh-keygen -R '%s') and "
			    "accept the new one with %s; otherwise someone may be in between — do "
			    "not connect",
			    s->url, s->known_key, s->by_hand);
	else if (strstr(err, "Host key verification failed") ||
		 strstr(err, "host key is known for"))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "the host key of %s is not known: connect once with %s to check and "
			    "accept it (perflens runs ssh in batch mode, which never asks)",
			    s->url, s->by_hand);
	else if (strstr(err, "Permission denied") ||
		 strstr(err, "Too many authentication failures"))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "SSH authentication to %s failed (%s): put your public key in the "
			    "board's ~/.ssh/authorized_keys (ssh-copy-id), or load it in "
			    "ssh-agent; perflens never asks for a password",
			    s->url, last);
	else if (strstr(err, "Connection refused"))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED,
			    "cannot reach %s: connection refused — check the host and port "
			    "(ssh://HOST:PORT) and that an SSH server runs on the board",
			    s->url);
	else if (strstr(err, "timed out") || strstr(err, "No route to host") ||
		 strstr(err, "Network is unreachable") || strstr(err, "Could not resolve") ||
		 strstr(err, "Name or service not known"))
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE,
			    "cannot reach %s (%s): check the address and the network", s->url,
			    last);
	else
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "ssh to %s failed (%s): try %s by hand", s->url, last, s->by_hand);
	return TRUE;
}

/* ─── the agent for the board ────────────────────────────────────────── */

/* uname -m and the byte order → the name the agents are built under. */
static const char *agent_arch(const char *machine, gboolean big)
{
	if (!strcmp(machine, "x86_64") && !big)
		return "x86_64";
	if (!strcmp(machine, "aarch64") || !strcmp(machine, "arm64") ||
	    !strcmp(machine, "aarch64_be"))
		return big ? "aarch64_be" : "aarch64";
	/* armv8l: a 32-bit userland on a 64-bit ARM */
	if (!strcmp(machine, "armv7l") || !strcmp(machine, "armv8l") ||
	    !strcmp(machine, "armv7b") || !strcmp(machine, "armv8b") || !strcmp(machine, "armeb"))
		return big ? "armeb" : "armv7l";
	if (!strcmp(machine, "riscv64") && !big)
		return "riscv64";
	return NULL;
}

/* Where agents are looked for, in order. */
static GPtrArray *agent_dirs(void)
{
	GPtrArray *dirs = g_ptr_array_new_with_free_func(g_free);
	const char *env = g_getenv("PERFLENS_AGENTS_DIR");
	if (env && *env)
		g_ptr_array_add(dirs, g_strdup(env));
	g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
	if (exe) {
		g_autofree char *bin = g_path_get_dirname(exe);
		/* a build tree (build/perflens, dist/), an install, a tarball */
		g_ptr_array_add(dirs, g_build_filename(bin, "..", "dist", NULL));
		g_ptr_array_add(dirs, g_build_filename(bin, "..", "lib", "perflens", "agents", NULL));
		g_ptr_array_add(dirs, g_build_filename(bin, "agents", NULL));
	}
	return dirs;
}

/* The remote directory as a shell word: ~ and ~/ are the user's home. */
static char *dir_word(const char *dir)
{
	if (!dir || !*dir)
		return g_strdup("\"${XDG_CACHE_HOME:-$HOME/.cache}/perflens\"");
	if (!strcmp(dir, "~"))
		return g_strdup("\"$HOME\"");
	if (g_str_has_prefix(dir, "~/")) {
		g_autofree char *rest = g_shell_quote(dir + 2);
		return g_strconcat("\"$HOME\"/", rest, NULL);
	}
	return g_shell_quote(dir);
}

static PlSsh *ssh_new(const char *url, const PlSshOptions *o, guint timeout_ms, GError **error)
{
	g_autofree char *user = NULL, *host = NULL;
	guint port;
	if (!pl_ssh_parse_url(url, &user, &host, &port, error))
		return NULL;
	g_auto(GStrv) base = NULL;
	const char *cmd = g_getenv("PERFLENS_SSH");
	GError *local = NULL;
	if (cmd && *cmd && !g_shell_parse_argv(cmd, NULL, &base, &local)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "cannot split PERFLENS_SSH: %s", local->message);
		g_error_free(local);
		return NULL;
	}
	GPtrArray *a = g_ptr_array_new();
	if (base)
		for (guint i = 0; base[i]; i++)
			g_ptr_array_add(a, g_strdup(base[i]));
	else
		g_ptr_array_add(a, g_strdup("ssh"));
	/* no terminal (the stream is binary), no X, never a prompt */
	g_ptr_array_add(a, g_strdup("-T"));
	g_ptr_array_add(a, g_strdup("-x"));
	g_ptr_array_add(a, g_strdup("-o"));
	g_ptr_array_add(a, g_strdup("BatchMode=yes"));
	g_ptr_array_add(a, g_strdup("-o"));
	g_ptr_array_add(a, g_strdup_printf("ConnectTimeout=%u", MAX(timeout_ms / 1000, 1u)));
	if (port) {
		g_ptr_array_add(a, g_strdup("-p"));
		g_ptr_array_add(a, g_strdup_printf("%u", port));
	}
	if (user) {
		g_ptr_array_add(a, g_strdup("-l"));
		g_ptr_array_add(a, g_strdup(user));
	}
	g_ptr_array_add(a, g_strdup("--"));
	g_ptr_array_add(a, g_strdup(host));
	g_ptr_array_add(a, NULL);
	PlSsh *s = g_new0(PlSsh, 1);
	s->argv = (char **)g_ptr_array_free(a, FALSE);
	s->err_fd = -1;
	s->url = g_strdup(url);
	g_autofree char *p_opt = port ? g_strdup_printf("-p %u ", port) : g_strdup("");
	s->by_hand = g_strdup_printf("'ssh %s%s%s%s'", p_opt, user ? user : "", user ? "@" : "",
				     host);
	s->known_key = port && port != 22 ? g_strdup_printf("[%s]:%u", host, port)
					  : g_strdup(host);
	s->dir = g_strdup(o && o->remote_dir ? o->remote_dir
					     : "${XDG_CACHE_HOME:-~/.cache}/perflens");
	s->dir_sh = dir_word(o ? o->remote_dir : NULL);
	s->host = g_strdup(host);
	s->port = port;
	s->board_dir = g_strdup("");
	s->board_uid = -1;
	s->paranoid = LONG_MIN;
	return s;
}

static void note(const PlSshOptions *o, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void note(const PlSshOptions *o, const char *fmt, ...)
{
	if (!o || !o->note)
		return;
	va_list ap;
	va_start(ap, fmt);
	g_autofree char *text = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	o->note(text, o->note_data);
}

typedef struct {
	char *path; /* here */
	char *arch;
	char *name; /* there: perflens-agent-SHA256 */
	gsize size;
} LocalAgent;

static void local_agent_clear(LocalAgent *l)
{
	g_free(l->path);
	g_free(l->arch);
	g_free(l->name);
}

/* Asks the board what it is and picks the agent; *have: it is there. */
static gboolean pick_agent(PlSsh *s, guint timeout_ms, LocalAgent *l, gboolean *have,
			   GError **error)
{
	g_autofree char *cmd = g_strdup_printf(
		"uname -m; printf '\\001\\000' | od -An -tx2; d=%s; for f in \"$d\"/perflens-agent-*; "
		"do [ -x \"$f\" ] && echo \"have ${f##*/}\"; done; echo \"dir $d\"; "
		"echo \"who $(id -u) $(id -un)\"; "
		"echo \"paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)\"; true",
		s->dir_sh);
	g_autofree char *out = NULL, *err = NULL;
	int code;
	if (!run_remote(s, cmd, -1, timeout_ms, &out, &err, &code, error) ||
	    ssh_failed(s, code, err, error))
		return FALSE;
	g_auto(GStrv) lines = g_strsplit(out, "\n", -1);
	if (code != 0 || g_strv_length(lines) < 2) {
		g_autofree char *last = last_line(err);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED,
			    "cannot learn what %s is: `uname -m` failed there (%s); is it a Linux "
			    "board with a POSIX shell?",
			    s->url, last);
		return FALSE;
	}
	const char *machine = g_strstrip(lines[0]);
	gboolean big = strstr(lines[1], "0100") != NULL;
	const char *arch = agent_arch(machine, big);
	if (!arch) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
			    "%s is %s (%s-endian): no PerfLens agent is built for it (agents: "
			    "x86_64, aarch64, aarch64_be, armv7l, armeb, riscv64)",
			    s->url, machine, big ? "big" : "little");
		return FALSE;
	}
	g_autoptr(GPtrArray) dirs = agent_dirs();
	g_autofree char *file = g_strdup_printf("perflens-agent-%s", arch);
	for (guint i = 0; i < dirs->len && !l->path; i++) {
		g_autofree char *p = g_build_filename(dirs->pdata[i], file, NULL);
		if (g_file_test(p, G_FILE_TEST_IS_REGULAR))
			l->path = g_steal_pointer(&p);
	}
	if (!l->path) {
		g_autofree char *where = g_strjoinv(", ", (char **)dirs->pdata);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
			    "%s is %s: no %s in %s — build it with ci/agents.sh %s (make agents), "
			    "or set PERFLENS_AGENTS_DIR",
			    s->url, machine, file, *where ? where : "(no directory)", arch);
		return FALSE;
	}
	g_autofree char *data = NULL;
	GError *local = NULL;
	if (!g_file_get_contents(l->path, &data, &l->size, &local)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot read the agent %s: %s",
			    l->path, local->message);
		g_error_free(local);
		return FALSE;
	}
	g_autofree char *sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (guchar *)data,
							   l->size);
	l->arch = g_strdup(arch);
	l->name = g_strdup_printf("perflens-agent-%s", sum);
	g_autofree char *want = g_strdup_printf("have %s", l->name);
	*have = FALSE;
	for (guint i = 2; lines[i]; i++) {
		/* "dir" keeps its spaces; the others are single words */
		const char *line = g_strchomp(lines[i]);
		char *end;
		*have |= !strcmp(line, want);
		if (g_str_has_prefix(line, "dir /")) {
			g_free(s->board_dir);
			s->board_dir = g_strdup(line + 4);
		} else if (g_str_has_prefix(line, "who ")) {
			long uid = strtol(line + 4, &end, 10);
			if (end != line + 4 && *end == ' ' && uid >= 0) {
				s->board_uid = uid;
				g_free(s->board_user);
				s->board_user = g_strdup(end + 1);
			}
		} else if (g_str_has_prefix(line, "paranoid ")) {
			long v = strtol(line + 9, &end, 10);
			if (end != line + 9 && !*end)
				s->paranoid = v;
		}
	}
	return TRUE;
}

/* Copies the agent under a temporary name, checks its size, renames:
 * a file of that name there is whole. */
static gboolean copy_agent(PlSsh *s, const LocalAgent *l, guint timeout_ms, GError **error)
{
	int in = open(l->path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno),
			    "cannot read the agent %s: %s", l->path, g_strerror(errno));
		return FALSE;
	}
	g_autofree char *cmd = g_strdup_printf(
		"umask 077; d=%s; t=\"$d/.%s.$$\"; mkdir -p \"$d\" && cat >\"$t\" && "
		"[ $(wc -c <\"$t\") -eq %" G_GSIZE_FORMAT " ] && chmod 700 \"$t\" && "
		"mv -f \"$t\" \"$d/%s\" || { rm -f \"$t\"; exit %d; }",
		s->dir_sh, l->name, l->size, l->name, EXIT_NO_DIR);
	g_autofree char *out = NULL, *err = NULL;
	int code;
	gboolean ok = run_remote(s, cmd, in, timeout_ms, &out, &err, &code, error);
	close(in);
	if (!ok || ssh_failed(s, code, err, error))
		return FALSE;
	if (code != 0) {
		g_autofree char *last = last_line(err);
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
			    "cannot write the agent to %s on %s (%s): pass --remote-dir a directory "
			    "you can write there",
			    s->dir, s->url, last);
		return FALSE;
	}
	return TRUE;
}

/* ─── the agent's connection ─────────────────────────────────────────── */

/* Why the connection to the agent ended, from ssh's status and error
 * output (PlClientExplainFunc). */
static char *explain(gpointer data)
{
	PlSsh *s = data;
	if (!s->reaped && wait_for(s->pid, 2000, &s->wait_status))
		s->reaped = TRUE;
	if (!s->reaped)
		return NULL;
	int code = WIFEXITED(s->wait_status) ? WEXITSTATUS(s->wait_status) : 255;
	g_autofree char *err = memfd_text(s->err_fd);
	const char *killed = strstr(err, KILLED_LINE);
	if (killed) {
		int sig = atoi(killed + strlen(KILLED_LINE));
		const char *name = sig == SIGKILL ? " (KILL)" : sig == SIGSEGV ? " (SEGV)"
				   : sig == SIGTERM ? " (TERM)" : "";
		return g_strdup_printf("the agent on %s was killed by signal %d%s (check the "
				       "board's kernel log for the OOM killer, or who else stops "
				       "processes there)",
				       s->url, sig, name);
	}
	GError *e = NULL;
	if (ssh_failed(s, code, err, &e)) {
		char *m = g_strdup(e->message);
		g_error_free(e);
		return m;
	}
	g_autofree char *last = last_line(err);
	if (code == 126)
		return g_strdup_printf("cannot run the agent from %s on %s (%s): the directory is "
				       "probably on a noexec mount; pass --remote-dir a directory "
				       "where programs may run",
				       s->dir, s->url, last);
	if (code == 127)
		return g_strdup_printf("the agent vanished from %s on %s (%s): record again to "
				       "copy it",
				       s->dir, s->url, last);
	if (code != 0)
		return g_strdup_printf("the agent on %s exited with status %d (%s)", s->url, code,
				       last);
	return NULL;
}

/* Runs the agent with --stdio over a socketpair; the client owns s from
 * here on, whatever happens. */
static PlClient *start_agent(PlSsh *s, const LocalAgent *l, guint timeout_ms, GError **error)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "socketpair: %s",
			    g_strerror(errno));
		ssh_free(s);
		return NULL;
	}
	/* The remote shell waits for the agent, so that a signal that ends
	 * it is named (ssh alone reports it as its own failure, 255). */
	g_autofree char *cmd = g_strdup_printf(
		"d=%s; \"$d/%s\" --stdio; s=$?; [ $s -gt 128 ] && echo \"" KILLED_LINE
		"$((s - 128))\" >&2; exit $s",
		s->dir_sh, l->name);
	gboolean ok = (s->err_fd = new_memfd(error)) >= 0 &&
		      spawn_ssh(s, cmd, sv[1], sv[1], s->err_fd, &s->pid, error);
	close(sv[1]);
	if (!ok) {
		close(sv[0]);
		ssh_free(s);
		return NULL;
	}
	return pl_client_new_for_fd(sv[0], s->url, timeout_ms, s, explain, ssh_free, error);
}

PlClient *pl_ssh_connect(const char *url, const PlSshOptions *opts, guint timeout_ms,
			 GError **error)
{
	if (!timeout_ms)
		timeout_ms = 10000;
	PlSsh *s = ssh_new(url, opts, timeout_ms, error);
	if (!s)
		return NULL;
	LocalAgent l = { 0 };
	gboolean have = FALSE;
	PlClient *client = NULL;
	if (!pick_agent(s, timeout_ms, &l, &have, error))
		goto out;
	if (have) {
		note(opts, "the %s agent is on %s already (%s/%s)", l.arch, url, s->dir, l.name);
	} else {
		if (!copy_agent(s, &l, timeout_ms, error))
			goto out;
		note(opts, "copied the %s agent (%" G_GSIZE_FORMAT " bytes) to %s/%s on %s", l.arch,
		     l.size, s->dir, l.name, url);
	}
	if (*s->board_dir)
		s->agent_path = g_strconcat(s->board_dir, "/", l.name, NULL);
	client = start_agent(g_steal_pointer(&s), &l, timeout_ms, error);
out:
	local_agent_clear(&l);
	ssh_free(s);
	return client;
}

gboolean pl_ssh_note_session(PlClient *client, PlSessionWriter *writer, GError **error)
{
	const char *peer = pl_client_get_peer(client);
	if (!pl_ssh_is_url(peer))
		return TRUE;
	g_autofree char *how = g_strdup_printf("viewer: connected over %s (the agent run by ssh "
					       "with --stdio, no token)",
					       peer);
	return pl_session_writer_append_note(writer, how, error);
}

/* ─── perf refused to a user ─────────────────────────────────────────── */

char *pl_ssh_perf_advice(PlClient *client, int status, gboolean all)
{
	PlSsh *s = pl_client_get_transport(client, explain);
	if (!s || (status != -EACCES && status != -EPERM) || s->board_uid <= 0 ||
	    s->paranoid == LONG_MIN)
		return NULL;
	/* Without CAP_PERFMON, the kernel lets a user sample their own
	 * processes up to paranoid 2 (user space; 1 adds the kernel stacks
	 * perflens asks for), and the whole system up to 0.  At or below
	 * that the refusal has another cause (another user's process: no
	 * ptrace right), and the agent's own words stand. */
	long limit = all ? 0 : 2, want = all ? 0 : 1;
	if (s->paranoid <= limit)
		return NULL;
	const char *who = s->board_user && *s->board_user ? s->board_user : "this user";
	g_autofree char *root = s->port ? g_strdup_printf(strchr(s->host, ':') ? "ssh://root@[%s]:%u"
									 : "ssh://root@%s:%u",
							  s->host, s->port)
					: g_strdup_printf(strchr(s->host, ':') ? "ssh://root@[%s]"
									 : "ssh://root@%s",
							  s->host);
	return g_strdup_printf(
		"perf events are refused to %s (uid %ld) on %s: its perf_event_paranoid is %ld, and "
		"profiling %s takes %ld or less — record as root (%s), or on the board run `sudo "
		"sysctl kernel.perf_event_paranoid=%ld`, or let this agent sample as %s: `sudo "
		"setcap cap_perfmon,cap_sys_ptrace+ep %s` (the file stays: an unchanged agent is "
		"not copied again)",
		who, s->board_uid, s->url, s->paranoid, all ? "the whole board" : "one's own processes",
		want, root, want, who, s->agent_path ? s->agent_path : "~/.cache/perflens/perflens-agent-*");
}
