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

PlFleetMatch *pl_fleet_match_new(const char *key, const char *value, gboolean negate);
void pl_fleet_match_free(gpointer match);

/* A GPtrArray of PlFleetMatch (owning them), or NULL with error. */
GPtrArray *pl_fleet_where_parse(const char *text, GError **error);
/* Seconds in *out, or FALSE with a PL_EXPR_ERROR. */
gboolean pl_fleet_since_parse(const char *text, guint64 *out, GError **error);

/* Where the samples are counted from: every sample (perflens_samples), or
 * the per-minute rollup (perflens_minutes: a materialized view summing
 * them per minute, session and stack as they are inserted), which
 * a long range reads instead of every sample.  Both give the same
 * answers: --since counts from the start of the minute it falls in, in
 * both. */
typedef enum {
	PL_FLEET_RAW,
	PL_FLEET_MINUTES,
} PlFleetSource;

/* Ranges from this long (and all time) are read from the rollup. */
#define PL_FLEET_ROLLUP_FROM_S (6 * 3600)

/* The SQL condition on source's table for where (may be NULL), the last
 * since_s seconds (0: all time) and event (NULL: any): the labels and the
 * event select sessions in perflens_sessions, the rows are those of their
 * ids. */
char *pl_fleet_where_sql(PlFleetSource source, const GPtrArray *where, guint64 since_s,
			 const char *event);

/* One stored stack and how many selected samples have it. */
typedef struct {
	char **frames; /* innermost first, each "function module" */
	guint64 count;
} PlFleetStack;

/* The selected samples grouped by stack (GPtrArray of PlFleetStack), or
 * NULL with error.  *total: their number. */
GPtrArray *pl_fleet_query_stacks(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
				 guint64 *total, GError **error);

/* The labels the stored samples carry, "KEY=VALUE", sorted, at most max
 * (a GStrv), or NULL with error: what a user can pick from. */
char **pl_fleet_query_labels(PlClickhouse *ch, guint max, GError **error);

G_END_DECLS

#endif
