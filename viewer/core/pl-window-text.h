/* pl-window-text.h — the window's two lines of words about what is shown
 * (pl-window-text.c): the filter line above the timeline and the status
 * line at the bottom, and the weights every view writes.  No widgets: text
 * only, for the window and its views to set.
 */
#ifndef PL_WINDOW_TEXT_H
#define PL_WINDOW_TEXT_H

#include "pl-profile.h"

G_BEGIN_DECLS

/* "12.3 ms", "1.20 s" for time weights; "12.3 M" for counts. */
char *pl_window_format_weight(PlProfile *p, guint64 w);
/* The weight unit of the profile's main event is nanoseconds. */
gboolean pl_window_weight_is_time(PlProfile *p);

/* What the filter selects: "Thread NAME (TID), A s – B s (D)" (either
 * part alone), NULL when it selects everything.  Times are from the
 * session's start; profile may be NULL (then no times).  g_free. */
char *pl_window_selection_text(PlProfile *profile, const PlFilter *filter);
/* "Showing: Thread NAME (TID), A s – B s (D s, ms or µs)", the times to the
 * µs for short ranges, or what to do to filter
 * when nothing is (profile may be NULL).  g_free. */
char *pl_window_filter_text(PlProfile *profile, const PlFilter *filter);
/* "[● live] PATH   HOST · N samples of all events · D s · in view: W (N
 * EVENT samples)[ · samples were lost]"; "" without a profile.  agg: what
 * the views show (may be NULL).  g_free. */
char *pl_window_status_text(PlProfile *profile, const PlAggregate *agg, const char *path,
			    gboolean live);

G_END_DECLS

#endif
