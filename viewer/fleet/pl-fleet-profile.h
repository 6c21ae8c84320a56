/* pl-fleet-profile.h — the fleet's stacks (pl_fleet_query_stacks) as a
 * PlProfile, so that the viewer's exporters (pl-export.h: pprof, the SVG
 * flame graph) write a fleet as they write one session, through their own
 * interface.
 *
 * Each distinct frame ("function module") gets an address of its own, and
 * the profile's symbols answer from a table of those addresses alone
 * (pl_symbols_set_embedded): nothing of this machine is read.  One sample
 * is ingested per stored sample (pprof counts samples, not stacks), so the
 * cost grows with the samples selected; a profile over max_samples is
 * refused with what to do.  Blocking, any thread.
 *
 * A stored session opens the same way, with its samples' own times,
 * processes and threads (pl_fleet_session_profile).
 */
#ifndef PL_FLEET_PROFILE_H
#define PL_FLEET_PROFILE_H

#include "pl-fleet-query.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_FLEET_PROFILE_MAX_SAMPLES (50u * 1000 * 1000)

/* stacks: PlFleetStack*; event: the samples' event name (NULL:
 * "samples"); name: what the profile is called where a recording's board
 * would be (its hostname; NULL: "fleet").  A finished profile, or NULL
 * with error (G_IO_ERROR). */
PlProfile *pl_fleet_profile_new(GPtrArray *stacks, const char *event, const char *name,
				guint64 max_samples, GError **error);

/* The same stacks, each ingested once with its samples as its weight
 * (the sample's period): any number of samples in the time and memory
 * of the distinct stacks.  Its weights (what the flame graph, the
 * function table's shares and an SVG "by weight" draw) are the samples;
 * its sample counts are of distinct stacks, not samples.  For selections
 * over the cap above. */
PlProfile *pl_fleet_profile_new_weighted(GPtrArray *stacks, const char *event, const char *name);

/* One stored session (perflens collect's name for it, as fleet sessions
 * lists it) as the profile of a recording: every stored sample with its
 * time, process, thread, CPU and weight (the stored value), its stacks'
 * frames from the store; the event the stored one.  Its totals are the
 * session's stored samples.  Over max_samples: refused with what to do.
 * NULL with error (G_IO_ERROR: none stored, too many; PL_CLICKHOUSE_ERROR
 * from the server). */
PlProfile *pl_fleet_session_profile(PlClickhouse *ch, const char *session, guint64 max_samples,
				    GError **error);

G_END_DECLS

#endif
