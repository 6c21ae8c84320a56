/* ps.c — perflens ps: the board's processes (LIST), to pick a --pid. */
#include <stdio.h>
#include <stdlib.h>

#include "pl-cli.h"
#include "pl-client.h"

typedef struct {
	guint32 pid, ppid, threads;
	guint64 rss_kb, cpu_ms;
	char *comm, *cmdline;
} Proc;

static void proc_clear(gpointer p)
{
	Proc *x = p;
	g_free(x->comm);
	g_free(x->cmdline);
}

static gboolean on_msg(const struct pl_msg *m, gpointer data)
{
	GArray *procs = data;
	if (m->type != PL_MSG_PROC || procs->len >= 100000)
		return TRUE;
	const struct pl_msg_proc *p = &m->u.proc;
	Proc x = { p->pid, p->ppid, p->threads, p->rss_kb, p->cpu_ms,
		   g_strndup(p->comm.p, p->comm.len), g_strndup(p->cmdline.p, p->cmdline.len) };
	g_array_append_val(procs, x);
	return TRUE;
}

static int by_cpu(gconstpointer a, gconstpointer b)
{
	const Proc *x = a, *y = b;
	if (x->cpu_ms != y->cpu_ms)
		return x->cpu_ms > y->cpu_ms ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int pl_cli_ps(int argc, char **argv)
{
	char *token = NULL, *remote_dir = NULL;
	gint timeout_s = 10;
	const GOptionEntry entries[] = {
		{ "token", 't', 0, G_OPTION_ARG_STRING, &token,
		  "The agent's token (default $PERFLENS_TOKEN)", "T" },
		{ "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s, "Seconds to wait (default 10)",
		  "S" },
		{ "remote-dir", 0, 0, G_OPTION_ARG_STRING, &remote_dir,
		  "ssh:// only: the board's directory for the agent (default "
		  "~/.cache/perflens)", "DIR" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx = g_option_context_new("HOST[:PORT]|ssh://[USER@]HOST[:PORT] — list the board's processes");
	pl_cli_add_entries(ctx, entries);
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) client = NULL;
	g_autoptr(GArray) procs = g_array_new(FALSE, FALSE, sizeof(Proc));
	g_array_set_clear_func(procs, proc_clear);

	if (!pl_cli_parse(ctx, &argc, &argv, "ps"))
		goto out;
	if (argc != 2 || timeout_s <= 0) {
		pl_cli_fail("ps needs HOST[:PORT] or ssh://[USER@]HOST[:PORT] (run perflens ps --help)");
		goto out;
	}
	if (!token)
		token = g_strdup(g_getenv("PERFLENS_TOKEN"));
	guint timeout_ms = (guint)timeout_s * 1000;
	client = pl_cli_connect(argv[1], remote_dir, FALSE, timeout_ms, &error);
	if (!client || !pl_client_authenticate(client, token, timeout_ms, &error)) {
		pl_cli_fail("%s", error->message);
		goto out;
	}
	pl_client_set_handler(client, on_msg, procs);
	struct pl_msg m = { .type = PL_MSG_LIST };
	if (!pl_client_request(client, &m, timeout_ms, &error)) {
		pl_cli_fail("%s", error->message);
		goto out;
	}
	struct pl_msg bye = { .type = PL_MSG_BYE };
	pl_client_send(client, &bye, NULL);
	g_array_sort(procs, by_cpu);
	printf("%8s %8s %5s %10s %10s  %-16s %s\n", "PID", "PPID", "THR", "RSS KiB", "CPU ms",
	       "COMM", "COMMAND");
	for (guint i = 0; i < procs->len; i++) {
		const Proc *p = &g_array_index(procs, Proc, i);
		printf("%8u %8u %5u %10" G_GUINT64_FORMAT " %10" G_GUINT64_FORMAT "  %-16s %s\n",
		       p->pid, p->ppid, p->threads, p->rss_kb, p->cpu_ms, p->comm, p->cmdline);
	}
	rc = PL_EXIT_OK;
out:
	g_free(token);
	g_free(remote_dir);
	return rc;
}
