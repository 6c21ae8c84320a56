/* snapshot.c — perflens snapshot: asks a flight recorder (perflens-agent
 * --flight ... --port N) to save its ring now, saves the file it sends
 * (pl-flight-snapshot.h) where `perflens record` saves a session (the
 * sessions folder, named as the board named it, pl-flight-save.h) or to
 * -o FILE, and writes its sessions-index sidecar beside it
 * (pl-sessions-index.h), as the app's Save now does. */
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <unistd.h>

#include "pl-cli.h"
#include "pl-client.h"
#include "pl-flight-save.h"
#include "pl-flight-snapshot.h"
#include "pl-sessions-index.h"

int pl_cli_snapshot(int argc, char **argv)
{
	char *token = NULL, *output = NULL;
	gint timeout_s = 60;
	const GOptionEntry entries[] = {
		{ "token", 't', 0, G_OPTION_ARG_STRING, &token,
		  "The agent's token (default $PERFLENS_TOKEN)", "T" },
		{ "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
		  "Save to FILE (default $XDG_DATA_HOME/perflens/sessions/, named as the board named it)",
		  "FILE" },
		{ "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s,
		  "Seconds to wait for the snapshot (default 60)", "S" },
		{ NULL }
	};
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("HOST[:PORT] — save a flight recorder's ring now");
	pl_cli_add_entries(ctx, entries);
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(GError) error = NULL;
	g_autoptr(PlClient) client = NULL;
	g_autofree char *board_path = NULL, *path = NULL, *dir = NULL;
	guint64 size = 0;

	if (!pl_cli_parse(ctx, &argc, &argv, "snapshot"))
		goto out;
	if (argc != 2 || timeout_s <= 0) {
		pl_cli_fail("snapshot needs HOST[:PORT], the board of a perflens-agent started "
			    "with --flight and --port (run perflens snapshot --help)");
		goto out;
	}
	if (!token)
		token = g_strdup(g_getenv("PERFLENS_TOKEN"));
	guint timeout_ms = (guint)timeout_s * 1000;
	client = pl_client_connect(argv[1], MIN(timeout_ms, 10000u), &error);
	if (!client || !pl_client_authenticate(client, token, MIN(timeout_ms, 10000u), &error)) {
		pl_cli_fail("%s", error->message);
		goto out;
	}
	/* without -o: a name of our own in the sessions folder now, the
	 * board's once known (the folder as the app and record make it) */
	if (output) {
		path = g_strdup(output);
	} else {
		static const char part[] = ".flight-snapshot.part";
		dir = pl_sessions_dir();
		if (g_mkdir_with_parents(dir, 0700) < 0) {
			int e = errno;
			pl_cli_fail("cannot make the sessions folder %s: %s (give -o FILE)", dir,
				    g_strerror(e));
			goto out;
		}
		path = g_strdup_printf("%s/%s-%d", dir, part, (int)getpid());
	}
	if (!pl_flight_snapshot_fetch(client, path, timeout_ms, &board_path, &size, &error)) {
		pl_cli_fail("no snapshot from %s: %s", argv[1], error->message);
		goto out;
	}
	struct pl_msg bye = { .type = PL_MSG_BYE };
	pl_client_send(client, &bye, NULL);
	if (!output) {
		char *placed = pl_flight_save_place(path, dir, board_path, &error);
		if (!placed) {
			pl_cli_fail("%s", error->message);
			goto out;
		}
		g_free(path);
		path = placed;
	}
	/* indexed as a recording is when it ends: the app's sessions list
	 * shows its figures and where it came from without reading it again */
	pl_session_index_add(path, pl_client_get_peer(client), NULL);
	printf("saved %s (%" G_GUINT64_FORMAT " bytes; on the board: %s)\n", path, size,
	       board_path && *board_path ? board_path : "?");
	rc = PL_EXIT_OK;
out:
	g_free(token);
	g_free(output);
	return rc;
}
