/* pl-block-view.h — the Block I/O page: the block requests of a
 * `record --block` recording (pl-block-io.h) per device (requests by
 * kind, bytes, latency percentiles from issue to completion), their
 * latencies over the recording drawn as points (one row per device), and
 * the slowest requests with the stacks that issued them.
 *
 * The page hides itself in its GtkStack while the profile holds no
 * block_rq_issue event.  A live recording's growth is read again while
 * the page is shown, else when it is next shown.  The profile is
 * borrowed.  Main thread only. */
#ifndef PL_BLOCK_VIEW_H
#define PL_BLOCK_VIEW_H

#include <gtk/gtk.h>

#include "pl-block-io.h"
#include "pl-profile-session.h"

G_BEGIN_DECLS

#define PL_TYPE_BLOCK_VIEW (pl_block_view_get_type())
G_DECLARE_FINAL_TYPE(PlBlockView, pl_block_view, PL, BLOCK_VIEW, GtkWidget)

GtkWidget *pl_block_view_new(void);
/* Reads the block requests of profile (NULL clears and hides the page). */
void pl_block_view_set_profile(PlBlockView *self, PlProfile *profile);
/* What the page shows, borrowed (NULL without a profile). */
const PlBlockIo *pl_block_view_get_io(PlBlockView *self);
/* Follows session: a new profile or one that grew. */
void pl_block_view_set_session(PlBlockView *self, PlProfileSession *session);

G_END_DECLS

#endif
