/* pl-ssh.h — profiling over SSH: ssh://[user@]host[:port].
 *
 * The system ssh client makes the connection, so the user's
 * ~/.ssh/config, keys, agent, jump hosts and known_hosts all apply; it
 * runs with BatchMode (never a prompt) and no terminal.  PERFLENS_SSH
 * names another ssh command line (e.g. "ssh -F /path/config"), split as
 * a shell would.
 *
 * pl_ssh_connect() asks the board for `uname -m` and its byte order,
 * picks the matching static agent (perflens-agent-ARCH) from
 * $PERFLENS_AGENTS_DIR, else ../dist, ../lib/perflens/agents or agents/
 * beside this executable (a build tree, an install, a release tarball), and copies it to a per-user directory on the board
 * (default ${XDG_CACHE_HOME:-~/.cache}/perflens) as
 * perflens-agent-SHA256: named by its content, so a file there is the
 * same agent and is never copied again (written under a temporary name,
 * its size checked, then renamed).  It then runs it with --stdio: the
 * connection to the agent is ssh's stdin and stdout (a socketpair), and
 * the agent exits when it closes.  Every failure is one line saying what
 * to do: unreachable, authentication, host key unknown or changed, no
 * agent for the board's architecture, no writable or executable
 * directory, and (when the connection is lost later) the agent killed.
 *
 * Blocking; one thread per connection.  The client owns the ssh process:
 * pl_client_free() closes the socket and reaps ssh (terminated after 2 s).
 */
#ifndef PL_SSH_H
#define PL_SSH_H

#include "pl-client.h"

G_BEGIN_DECLS

#define PL_SSH_SCHEME "ssh://"

gboolean pl_ssh_is_url(const char *target);

/* "ssh://[user@]host[:port]" (host may be "[v6]"); *user NULL when not
 * given, *port 0 (ssh's own default) when not given. */
gboolean pl_ssh_parse_url(const char *url, char **user, char **host, guint *port,
			  GError **error);

typedef struct {
	const char *remote_dir; /* NULL: ${XDG_CACHE_HOME:-$HOME/.cache}/perflens there */
	/* told what is done (the agent copied, or found there), one line each */
	void (*note)(const char *line, gpointer data);
	gpointer note_data;
} PlSshOptions;

/* Deploys when needed and connects; returns the client after the agent's
 * HELLO (the agent needs no token: pl_client_authenticate with NULL). */
PlClient *pl_ssh_connect(const char *url, const PlSshOptions *opts, guint timeout_ms,
			 GError **error);

/* When client came over SSH, says so in the session file (a LOG note
 * naming the ssh:// target; there is no token to leave out); TRUE and
 * nothing written for other clients. */
gboolean pl_ssh_note_session(PlClient *client, PlSessionWriter *writer, GError **error);

/* When client came over SSH as a user other than root, and status (a
 * START refused, or HELLO's perf_errno: -EACCES or -EPERM) is
 * perf_event_paranoid's doing for that target (all: the whole board),
 * one line saying what to do: the board's level and the ways out — root
 * (ssh://root@…), `sudo sysctl kernel.perf_event_paranoid=N`, or `sudo
 * setcap cap_perfmon,cap_sys_ptrace+ep` on the deployed agent's path.
 * NULL otherwise (the agent's own words stand).  Owned by the caller. */
char *pl_ssh_perf_advice(PlClient *client, int status, gboolean all);

G_END_DECLS

#endif
