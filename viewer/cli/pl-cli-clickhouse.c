/* pl-cli-clickhouse.c — see pl-cli-clickhouse.h. */
#include "pl-cli-clickhouse.h"

#include <string.h>

#include "pl-cli.h"

GOptionEntry *pl_cli_clickhouse_entries(const GOptionEntry *own, PlCliClickhouse *o,
					const char *cluster_help)
{
	const GOptionEntry shared[] = {
		{ "clickhouse", 0, 0, G_OPTION_ARG_STRING, &o->url,
		  "The fleet's ClickHouse server: its HTTP interface, no user or password in it",
		  "http://HOST:PORT" },
		{ "clickhouse-credentials", 0, 0, G_OPTION_ARG_FILENAME, &o->credentials,
		  "A file of one line USER:PASSWORD, readable by its owner only", "FILE" },
		{ "cluster", 0, 0, G_OPTION_ARG_STRING, &o->cluster, cluster_help, "NAME" },
	};
	guint n = 0;
	while (own[n].long_name)
		n++;
	GOptionEntry *all = g_new0(GOptionEntry, n + G_N_ELEMENTS(shared) + 1);
	memcpy(all, own, n * sizeof *own);
	memcpy(all + n, shared, sizeof shared);
	return all;
}

PlClickhouse *pl_cli_clickhouse_open(const PlCliClickhouse *o, const char *command)
{
	if (!o->url || !o->credentials) {
		pl_cli_fail("%s needs --clickhouse URL and --clickhouse-credentials FILE (perflens "
			    "%s --help)",
			    command, command);
		return NULL;
	}
	g_autoptr(GError) error = NULL;
	PlClickhouse *ch = pl_clickhouse_new(o->url, o->credentials, &error);
	if (!ch)
		pl_cli_fail("%s: %s", command, error->message);
	return ch;
}

void pl_cli_clickhouse_clear(PlCliClickhouse *o)
{
	g_clear_pointer(&o->url, g_free);
	g_clear_pointer(&o->credentials, g_free);
	g_clear_pointer(&o->cluster, g_free);
}
