/* pl-fleet-device-job.h — the Fleet page's questions per device, asked off
 * the main loop: the devices ranked by a function's share, one device's
 * sessions, and one session opened as a profile (pl-fleet-devices.h,
 * pl-fleet-profile.h).  The same queries `perflens fleet rank`, `fleet
 * sessions` and `fleet report --session` print, so the page and the
 * command line agree on the same store.
 *
 * Each takes the page's form (PlFleetAsk: store, labels, time range;
 * against is not used) and runs in a worker thread; the callback runs in
 * the caller's thread-default main context with source_object.  Errors are
 * sentences for a window (the field named where the input is wrong).
 * Headless (GLib, GIO, libcurl).
 */
#ifndef PL_FLEET_DEVICE_JOB_H
#define PL_FLEET_DEVICE_JOB_H

#include "pl-fleet-devices.h"
#include "pl-fleet-job.h"

G_BEGIN_DECLS

/* The devices told apart by label `by` (NULL or "": device) ranked by
 * function's share of their samples that ask selects: GPtrArray of
 * PlFleetShare (pl_fleet_query_shares). */
GPtrArray *pl_fleet_rank_run(const PlFleetAsk *ask, const char *function, const char *by,
			     GError **error);
void pl_fleet_rank_async(const PlFleetAsk *ask, const char *function, const char *by,
			 gpointer source_object, GAsyncReadyCallback callback, gpointer user_data);
GPtrArray *pl_fleet_rank_finish(GAsyncResult *res, GError **error);

/* The sessions of the device whose label `by` is value, among what ask
 * selects (its labels, with by=value in place of any match on by):
 * GPtrArray of PlFleetSession, oldest first. */
GPtrArray *pl_fleet_sessions_run(const PlFleetAsk *ask, const char *by, const char *value,
				 GError **error);
void pl_fleet_sessions_async(const PlFleetAsk *ask, const char *by, const char *value,
			     gpointer source_object, GAsyncReadyCallback callback,
			     gpointer user_data);
GPtrArray *pl_fleet_sessions_finish(GAsyncResult *res, GError **error);

/* Session opened as a recording's profile (pl_fleet_session_profile);
 * only ask's store is used. */
PlProfile *pl_fleet_open_run(const PlFleetAsk *ask, const char *session, GError **error);
void pl_fleet_open_async(const PlFleetAsk *ask, const char *session, gpointer source_object,
			 GAsyncReadyCallback callback, gpointer user_data);
PlProfile *pl_fleet_open_finish(GAsyncResult *res, GError **error);

G_END_DECLS

#endif
