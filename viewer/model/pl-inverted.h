/* pl-inverted.h — the inverted (bottom-up) call tree of an aggregate.
 *
 * Its roots are the functions where samples ended (their self time); the
 * children of a node are the callers of the path above it.  A node's count
 * is the samples whose stack ends with that path, leaf first, so a root's
 * count is its function's self count and children never sum to more than
 * their parent.  Recursion is not folded (each path is kept as sampled),
 * as in Firefox Profiler's and hotspot's bottom-up views.  No GTK.
 */
#ifndef PL_INVERTED_H
#define PL_INVERTED_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct {
	guint32 func;   /* PlFunction id; PL_NO_ID at node 0, the root */
	guint32 parent; /* towards the leaf function; PL_NO_ID at the root */
	PlCount count;
} PlInvertedNode;

typedef struct _PlInverted PlInverted;

PlInverted *pl_inverted_new(PlAggregate *agg);
void pl_inverted_free(PlInverted *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlInverted, pl_inverted_free)

guint pl_inverted_get_n_nodes(const PlInverted *self);
const PlInvertedNode *pl_inverted_get_node(const PlInverted *self, guint32 id);
/* The children of node id, heaviest first (then by function id): a new
 * GArray of guint32 node ids. */
GArray *pl_inverted_dup_children(const PlInverted *self, guint32 id);

G_END_DECLS

#endif
