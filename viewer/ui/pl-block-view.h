/* pl-block-view.h — the Block I/O page: the block requests of a
 * `record --block` recording (pl-block-io.h) per device (requests by
 * kind, bytes, latency percentiles from issue to completion), their
 * latencies over the recording drawn as points (one row per device), and
 * the slowest requests with the stacks that issued them.
 *
 * It counts the whole session, as `perflens report --block` does, whatever
 * the window's pick: a request's thread is the one current at issue (a
 * kworker when the queue ran later), not the one that asked for the I/O.
 * With a pick (a thread, a time range) the summary says so and how many
 * requests were issued in it; the chart shades the range and fades the
 * requests outside the pick; the slowest in it are marked ▶.
 *
 * The page hides itself in its GtkStack while the profile holds no
 * block_rq_issue event.  A live recording's growth and the pick are read
 * again while the page is shown, else when it is next shown
 * (pl-lazy-page.h).  The profile is borrowed.  Main thread only. */
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
/* What the page shows, borrowed (NULL without a profile); the getters
 * read what is pending first. */
const PlBlockIo *pl_block_view_get_io(PlBlockView *self);
/* The summary's text and the table's (per device, then the slowest). */
const char *pl_block_view_get_summary(PlBlockView *self);
const char *pl_block_view_get_table(PlBlockView *self);
/* Follows session: a new profile, one that grew, the window's pick. */
void pl_block_view_set_session(PlBlockView *self, PlProfileSession *session);

G_END_DECLS

#endif
