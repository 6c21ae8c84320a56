/* pl-cli-clickhouse.h — the options that name the fleet's ClickHouse,
 * defined once for every command that speaks to it (collect, fleet):
 * --clickhouse URL, --clickhouse-credentials FILE, --cluster NAME. */
#ifndef PL_CLI_CLICKHOUSE_H
#define PL_CLI_CLICKHOUSE_H

#include <glib.h>

#include "pl-clickhouse.h"

G_BEGIN_DECLS

typedef struct {
	char *url;
	char *credentials;
	char *cluster;
} PlCliClickhouse;

/* A new table: own (up to its { NULL }), then the three entries writing
 * into o, then { NULL }; cluster_help is --cluster's line for this
 * command.  For pl_cli_add_entries; g_free it after parsing. */
GOptionEntry *pl_cli_clickhouse_entries(const GOptionEntry *own, PlCliClickhouse *o,
					const char *cluster_help);

/* The server o names, or NULL after saying (pl_cli_fail, prefixed with
 * command) what is missing or wrong. */
PlClickhouse *pl_cli_clickhouse_open(const PlCliClickhouse *o, const char *command);

void pl_cli_clickhouse_clear(PlCliClickhouse *o);

G_END_DECLS

#endif
