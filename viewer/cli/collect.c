/* collect.c — perflens collect: the fleet's collector as a command: many
 * agents reporting (perflens-agent --server … --label …), their sessions
 * written into ClickHouse.  The service is PlFleetCollector
 * (viewer/fleet/); this file is its command line: options, the store,
 * signals, the closing counts. */
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "pl-cli-clickhouse.h"
#include "pl-cli.h"
#include "pl-fleet-boards.h"
#include "pl-fleet-collector.h"
#include "pl-fleet-schema.h"
#include "pl-fleet-store.h"

#define SPOOL_MAX_BYTES (4ull << 30)

/* The first line of a token file, which must not be readable by others. */
static char *read_token(const char *path, GError **error)
{
	g_autofree char *text = NULL;
	if (!g_file_get_contents(path, &text, NULL, error))
		return NULL;
	text[strcspn(text, "\r\n")] = 0;
	if (!*text) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "the token file %s is empty: put the agents' token on its first line", path);
		return NULL;
	}
	return g_steal_pointer(&text);
}

static gboolean on_signal(gpointer data)
{
	g_main_loop_quit(data);
	return G_SOURCE_CONTINUE;
}

int pl_cli_collect(int argc, char **argv)
{
	char *listen = NULL, *token_file = NULL, *spool = NULL, *keep = NULL, *boards_file = NULL;
	PlCliClickhouse cho = { 0 };
	const GOptionEntry own[] = {
		{ "listen", 0, 0, G_OPTION_ARG_STRING, &listen,
		  "Wait for agents (perflens-agent --server HOST:PORT --label …) on [ADDR:]PORT",
		  "[ADDR:]PORT" },
		{ "boards", 0, 0, G_OPTION_ARG_FILENAME, &boards_file,
		  "Symbol settings per board (sysroot, toolchain prefix, debug dirs, debuginfod), "
		  "chosen by the agents' labels (docs/fleet.md)", "FILE" },
		{ "token-file", 0, 0, G_OPTION_ARG_FILENAME, &token_file,
		  "The token agents must present (its first line)", "FILE" },
		{ "spool", 0, 0, G_OPTION_ARG_FILENAME, &spool,
		  "Where blocks wait while ClickHouse is down (default "
		  "$XDG_CACHE_HOME/perflens/collect)", "DIR" },
		{ "keep-sessions", 0, 0, G_OPTION_ARG_FILENAME, &keep,
		  "Also keep every session as a .plens file in DIR", "DIR" },
		{ NULL }
	};
	g_autofree GOptionEntry *entries = pl_cli_clickhouse_entries(
		own, &cho,
		"Create the schema as Distributed tables over this cluster of the servers' "
		"remote_servers");
	g_autoptr(GOptionContext) ctx =
		g_option_context_new("— serve reporting agents and store their sessions in ClickHouse");
	pl_cli_add_entries(ctx, entries);
	int rc = PL_EXIT_BAD_INPUT;
	g_autoptr(GError) error = NULL;
	g_autofree char *token = NULL, *spool_dir = NULL, *work_dir = NULL, *blocks_dir = NULL;
	g_autoptr(GMainLoop) loop = NULL;
	PlClickhouse *ch = NULL, *ch_symbols = NULL;
	PlFleetCollector *col = NULL;
	PlFleetBoards *boards = NULL;
	const char *url = NULL;

	if (!pl_cli_parse(ctx, &argc, &argv, "collect"))
		goto out;
	url = cho.url;
	if (argc != 1 || !listen || !cho.url || !cho.credentials || !token_file) {
		pl_cli_fail("collect needs --listen [ADDR:]PORT, --clickhouse URL, "
			    "--clickhouse-credentials FILE and --token-file FILE (perflens collect "
			    "--help)");
		goto out;
	}
	if (!(token = read_token(token_file, &error)) ||
	    (boards_file && !(boards = pl_fleet_boards_load(boards_file, &error)))) {
		pl_cli_fail("collect: %s", error->message);
		goto out;
	}
	if (!(ch = pl_cli_clickhouse_open(&cho, "collect")))
		goto out;
	/* ClickHouse may be down now: the spool holds the blocks meanwhile */
	if (!pl_fleet_schema_apply(ch, cho.cluster, &error) &&
	    g_error_matches(error, PL_FLEET_SCHEMA_ERROR, PL_FLEET_SCHEMA_ERROR_OLD)) {
		/* its blocks would be refused for good: nothing to wait for */
		pl_cli_fail("collect: %s", error->message);
		goto out;
	}
	if (error) {
		fprintf(stderr, "perflens collect: the schema could not be made on %s now (%s); "
				"sessions are spooled until it can\n",
			url, error->message);
		g_clear_error(&error);
	}
	spool_dir = spool ? g_strdup(spool)
			  : g_build_filename(g_get_user_cache_dir(), "perflens", "collect", NULL);
	blocks_dir = g_build_filename(spool_dir, "blocks", NULL);
	work_dir = g_build_filename(spool_dir, "sessions", NULL);
	PlFleetStore *store = pl_fleet_store_new(ch, blocks_dir, SPOOL_MAX_BYTES, &error);
	if (!store) {
		pl_cli_fail("collect: %s", error->message);
		goto out;
	}
	/* the symbol cache asks from the thread that loads sessions, the
	 * store from the one that sends them: a handle each */
	if (!(ch_symbols = pl_cli_clickhouse_open(&cho, "collect"))) {
		pl_fleet_store_free(store);
		goto out;
	}
	col = pl_fleet_collector_new(token, store, pl_fleet_symcache_new(ch_symbols),
				     g_steal_pointer(&boards), keep, work_dir, &error);
	if (!col) {
		pl_cli_fail("collect: %s", error->message);
		goto out;
	}
	guint16 port = 0;
	if (!pl_fleet_collector_listen(col, listen, &port, &error)) {
		pl_cli_fail("collect: cannot listen on %s: %s", listen, error->message);
		goto out;
	}
	fprintf(stderr, "perflens collect: listening on port %u, storing into %s\n", port, url);
	loop = g_main_loop_new(NULL, FALSE);
	guint s1 = g_unix_signal_add(SIGINT, on_signal, loop);
	guint s2 = g_unix_signal_add(SIGTERM, on_signal, loop);
	g_main_loop_run(loop);
	g_source_remove(s1);
	g_source_remove(s2);
	fprintf(stderr, "perflens collect: stopping: ending the agents' sessions\n");
	gboolean all_stored = pl_fleet_collector_shutdown(col, 10000);
	PlFleetCollectorStats st;
	pl_fleet_collector_get_stats(col, &st);
	fprintf(stderr,
		"perflens collect: %" G_GUINT64_FORMAT " agents, %" G_GUINT64_FORMAT
		" peers refused, %" G_GUINT64_FORMAT " sessions ended, %" G_GUINT64_FORMAT
		" stored (%" G_GUINT64_FORMAT " samples), %" G_GUINT64_FORMAT " failed\n",
		st.agents_accepted, st.peers_refused, st.sessions_ended, st.sessions_stored,
		st.samples_stored, st.sessions_failed);
	const PlFleetStoreStats *ss = pl_fleet_collector_get_store_stats(col);
	fprintf(stderr,
		"perflens collect: ClickHouse: %" G_GUINT64_FORMAT " blocks inserted, %" G_GUINT64_FORMAT
		" spooled while it could not take them, %" G_GUINT64_FORMAT
		" found already stored (%" G_GUINT64_FORMAT " of them without their per-minute "
		"rollup: made again), %" G_GUINT64_FORMAT " dropped (%" G_GUINT64_FORMAT
		" samples lost)\n",
		ss->blocks_inserted, ss->blocks_spooled, ss->blocks_already_stored,
		ss->rollups_mended, ss->blocks_dropped, ss->samples_dropped);
	rc = all_stored && !st.sessions_failed && !ss->blocks_dropped ? PL_EXIT_OK : PL_EXIT_BAD_INPUT;
out:
	pl_fleet_collector_free(col);
	if (ch)
		pl_clickhouse_free(ch);
	if (ch_symbols)
		pl_clickhouse_free(ch_symbols);
	pl_fleet_boards_free(boards);
	pl_cli_clickhouse_clear(&cho);
	g_free(listen);
	g_free(token_file);
	g_free(spool);
	g_free(keep);
	g_free(boards_file);
	if (token)
		explicit_bzero(token, strlen(token));
	return rc;
}
