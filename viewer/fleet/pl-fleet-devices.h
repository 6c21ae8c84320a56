/* pl-fleet-devices.h — the fleet store asked per device: the devices (or
 * boards, or any label) ranked by one function's share of their samples,
 * and the sessions one device reported, to open one (pl-fleet-profile.h).
 *
 * A function is named as the report prints it: its name alone (every
 * module it is found in), or "NAME MODULE" (the store's frame label, one
 * module).  Its share of a device is counted as `perflens report` counts
 * a function in one session: self, the samples whose innermost frame it
 * is; total, the samples with it anywhere on the stack (once per sample,
 * however deep it recurses).  Blocking, any thread; one PlClickhouse per
 * thread.
 */
#ifndef PL_FLEET_DEVICES_H
#define PL_FLEET_DEVICES_H

#include "pl-fleet-query.h"

G_BEGIN_DECLS

/* One device's samples and the function's part of them. */
typedef struct {
	char *value;      /* the label's value ("" : samples without that label) */
	guint64 samples;  /* all the device's selected samples */
	guint64 self;     /* with the function innermost */
	guint64 total;    /* with the function anywhere on the stack */
	guint64 sessions; /* how many sessions they came from */
} PlFleetShare;

/* The devices told apart by label key `by` (e.g. "device", "board"),
 * each with the share of function among its samples selected by
 * where_sql (pl_fleet_where_sql for source), sorted by total share, then
 * self share, highest first, then by value: a GPtrArray of PlFleetShare,
 * devices without the function included (share 0), or NULL with error. */
GPtrArray *pl_fleet_query_shares(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
				 const char *by, const char *function, GError **error);

/* The share as a percentage of the device's samples. */
double pl_fleet_share_total_pct(const PlFleetShare *s);
double pl_fleet_share_self_pct(const PlFleetShare *s);

/* One stored session. */
typedef struct {
	char *session;
	char **labels;    /* "KEY=VALUE", as the agent reported them */
	guint64 samples;
	gint64 first, last; /* wall-clock seconds of its first and last sample
			     * (source MINUTES: of their minutes) */
} PlFleetSession;

/* The sessions with samples selected by where_sql (for source), oldest
 * first: a GPtrArray of PlFleetSession, or NULL with error. */
GPtrArray *pl_fleet_query_sessions(PlClickhouse *ch, PlFleetSource source, const char *where_sql,
				   GError **error);

/* The condition "this session" for a where_sql. */
char *pl_fleet_session_sql(const char *session);

/* The value of label key among labels ("KEY=VALUE", NULL-terminated), or
 * NULL. */
const char *pl_fleet_label_value(char **labels, const char *key);

G_END_DECLS

#endif
