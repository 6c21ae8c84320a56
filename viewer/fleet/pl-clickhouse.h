/* pl-clickhouse.h — a ClickHouse server spoken to over its HTTP interface
 * (libcurl), for the fleet store.
 *
 * One PlClickhouse per server URL; not thread-safe (one curl handle, reused
 * so that keep-alive saves a connection per statement): a collector holds
 * one per writer thread.  Credentials come from a file, never from a URL
 * or a command line, where ps and shell histories would show them.
 */
#ifndef PL_CLICKHOUSE_H
#define PL_CLICKHOUSE_H

#include <glib.h>

G_BEGIN_DECLS

#define PL_CLICKHOUSE_ERROR (pl_clickhouse_error_quark())
GQuark pl_clickhouse_error_quark(void);

typedef enum {
	/* No answer: refused, reset, timed out.  The statement may or may not
	 * have taken effect; try again later (an INSERT: see pl-fleet-store). */
	PL_CLICKHOUSE_ERROR_UNREACHABLE,
	/* The server answered that it cannot now (a shard down, too many
	 * queries or parts): the statement did not take effect; try again. */
	PL_CLICKHOUSE_ERROR_BUSY,
	/* The user or password was refused: retrying cannot help. */
	PL_CLICKHOUSE_ERROR_AUTH,
	/* The statement was refused (its text, a type, a missing table). */
	PL_CLICKHOUSE_ERROR_REFUSED,
	/* The credentials file is missing, empty, malformed or readable by others. */
	PL_CLICKHOUSE_ERROR_CREDENTIALS,
} PlClickhouseError;

typedef struct _PlClickhouse PlClickhouse;

/* url: "http://HOST:PORT" (no user or password in it).  credentials_file:
 * one line "USER:PASSWORD", neither empty, the file readable by its owner
 * only.  Connects lazily: a server that is down fails the first statement,
 * not this. */
PlClickhouse *pl_clickhouse_new(const char *url, const char *credentials_file, GError **error);
void pl_clickhouse_free(PlClickhouse *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlClickhouse, pl_clickhouse_free)

const char *pl_clickhouse_get_url(PlClickhouse *self);

/* Runs one statement.  data (len bytes, may be NULL) follows the query as
 * the body of an INSERT … FORMAT ….  The answer's bytes go to *out (a new
 * array) when out is not NULL.  FALSE with error set on any failure, the
 * server's own sentence quoted. */
gboolean pl_clickhouse_run(PlClickhouse *self, const char *query, const void *data, gsize len,
			   GByteArray **out, GError **error);

/* The first line of the answer to query (a SELECT of one value), trimmed,
 * as a new string; NULL with error set on failure. */
char *pl_clickhouse_query_value(PlClickhouse *self, const char *query, GError **error);

/* The string literal of s for a query: quoted, with \ and ' escaped. */
char *pl_clickhouse_quote(const char *s);

G_END_DECLS

#endif
