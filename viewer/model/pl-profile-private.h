/* pl-profile-private.h — what the files of viewer/model share beyond
 * pl-profile.h: interning into the profile's function and call-tree tables
 * (the stack filter builds its rewritten tree there) and the aggregation
 * over such a rewritten tree. */
#ifndef PL_PROFILE_PRIVATE_H
#define PL_PROFILE_PRIVATE_H

#include "pl-profile.h"

G_BEGIN_DECLS

/* Existing id, or a new function / node appended to the profile's tables
 * (ids of existing ones never change, so earlier aggregates stay valid). */
guint32 pl_profile_function_intern(PlProfile *self, const char *name, const char *module,
				   gboolean inlined);
guint32 pl_profile_node_intern(PlProfile *self, guint32 parent, guint32 func);

/* As pl_profile_aggregate, but each stack's call-tree leaf n is counted at
 * node_map[n] instead (PL_NO_ID: the sample is left out).  node_map has
 * one entry per node at the time of the call and is taken (freed with the
 * aggregate); NULL: the plain tree. */
PlAggregate *pl_profile_aggregate_mapped(PlProfile *self, const PlFilter *filter,
					 guint32 *node_map);

G_END_DECLS

#endif
