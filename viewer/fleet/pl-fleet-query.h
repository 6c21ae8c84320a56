/* pl-fleet-query.h — the questions `perflens fleet` asks the fleet store:
 * which samples (labels, time, event) and their stacks.
 *
 * --where is read strictly, in the house style of pl-expr.h: the whole
 * string or an error in PL_EXPR_ERROR whose code is the byte offset where
 * reading stopped, saying what was expected there:
 *
 *   where   := match (',' match)*
 *   match   := key '=' value | key '!=' value
 *   key     := [A-Za-z0-9_.-]+                   (as the agent's --label)
 *   value   := one or more characters other than ',' and control characters
 *
 * Each key may appear once; spaces are part of values, not separators.
 * "fw=2.3.1,board=imx8mp" selects the samples whose labels say both.
 * --since is a count and a unit: 90s, 30m, 2h, 7d.
 */
#ifndef PL_FLEET_QUERY_H
#define PL_FLEET_QUERY_H

#include "pl-clickhouse.h"

G_BEGIN_DECLS

typedef struct {
	char *key;
	char *value;
	gboolean negate; /* != */
} PlFleetMatch;

/* A GPtrArray of PlFleetMatch (owning them), or NULL with error. */
GPtrArray *pl_fleet_where_parse(const char *text, GError **error);
/* Seconds in *out, or FALSE with a PL_EXPR_ERROR. */
gboolean pl_fleet_since_parse(const char *text, guint64 *out, GError **error);

/* The SQL condition on perflens_samples for where (may be NULL), the last
 * since_s seconds (0: all time) and event (NULL: any). */
char *pl_fleet_where_sql(const GPtrArray *where, guint64 since_s, const char *event);

/* One stored stack and how many selected samples have it. */
typedef struct {
	char **frames; /* innermost first, each "function module" */
	guint64 count;
} PlFleetStack;

/* The selected samples grouped by stack (GPtrArray of PlFleetStack), or
 * NULL with error.  *total: their number. */
GPtrArray *pl_fleet_query_stacks(PlClickhouse *ch, const char *where_sql, guint64 *total,
				 GError **error);

G_END_DECLS

#endif
