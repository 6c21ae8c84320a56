/* pl-thread-timeline.h — one lane per thread, grouped by process.
 *
 * Lanes show on-CPU and off-CPU intervals (from SWITCH records) in two
 * colours, or, without switch data, where samples fell.  Dragging across
 * the lanes selects a time range ("range-changed", t0 and t1 in profile
 * time; 0, 0 clears); clicking a thread's name filters by that thread
 * ("thread-selected", tid; 0 clears); right click shows the thread's
 * details: runtime (first to last seen), on/off-CPU time from switches,
 * sampled on-CPU time, its parent and fork time (TASK records).
 *
 * Sample counts (the density of a lane without switches, the samples in a
 * thread's details) leave out the samples the window's call-tree
 * transforms drop (set_aggregate).
 *
 * The profile is borrowed (see PlFlameGraph), and the aggregate until the
 * next set_aggregate or set_profile.
 */
#ifndef PL_THREAD_TIMELINE_H
#define PL_THREAD_TIMELINE_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"
#include "pl-timeline-irq.h"

G_BEGIN_DECLS

#define PL_TYPE_THREAD_TIMELINE (pl_thread_timeline_get_type())
G_DECLARE_FINAL_TYPE(PlThreadTimeline, pl_thread_timeline, PL, THREAD_TIMELINE, GtkWidget)

GtkWidget *pl_thread_timeline_new(void);
void pl_thread_timeline_set_profile(PlThreadTimeline *self, PlProfile *profile);
/* The window's aggregate (NULL: every sample counts); set_profile forgets
 * it. */
void pl_thread_timeline_set_aggregate(PlThreadTimeline *self, const PlAggregate *agg);
/* Reflects the window's filter (draws the selection, highlights the lane). */
void pl_thread_timeline_set_filter(PlThreadTimeline *self, guint32 tid, guint64 t0, guint64 t1);
/* Lanes drawn, and their labels ("name tid"), for scripts and tests. */
guint pl_thread_timeline_get_n_lanes(PlThreadTimeline *self);
char *pl_thread_timeline_dup_lane_label(PlThreadTimeline *self, guint i);
/* The right-click details of thread tid as plain text (NULL when it has no
 * lane); show_thread_details() pops them up as the right click does and
 * returns the popover (owned by the timeline), NULL when no lane. */
char *pl_thread_timeline_dup_thread_details(PlThreadTimeline *self, guint32 tid);
GtkWidget *pl_thread_timeline_show_thread_details(PlThreadTimeline *self, guint32 tid);
/* Markers and tracepoint hits are ticks on their thread's lane,
 * begin/end intervals bars; hovering one shows what this returns for the
 * event of thread tid nearest time (within slack ns), else the innermost
 * interval around time; NULL when none.  Owned by the caller. */
char *pl_thread_timeline_dup_event_at(PlThreadTimeline *self, guint32 tid, guint64 time,
				      guint64 slack);
/* Intervals between two kinds of event the user pairs (pl_markers_add_pairs:
 * "BEGIN_RE;END_RE", on each thread), drawn and clickable like begin/end
 * markers, kept across profiles until cleared.  FALSE with error set for a
 * spec that is not two regexes. */
gboolean pl_thread_timeline_add_pair(PlThreadTimeline *self, const char *spec, GError **error);
void pl_thread_timeline_clear_pairs(PlThreadTimeline *self);
/* Intervals of the profile shown that come from those pairs. */
guint pl_thread_timeline_get_n_pair_intervals(PlThreadTimeline *self);
/* What a click (no drag) at (x, y) in the lanes does: on a begin/end
 * interval's bar, selects its time range for every view ("range-changed"
 * with its start and end); elsewhere clears the range. */
void pl_thread_timeline_click(PlThreadTimeline *self, double x, double y);
/* Where the bar of thread tid's interval [start, end] at nesting depth is
 * drawn (its middle), for tests and scripts; FALSE when the thread has no
 * lane or the widget no size yet. */
gboolean pl_thread_timeline_get_bar_center(PlThreadTimeline *self, guint32 tid, guint64 start,
					   guint64 end, guint depth, double *x, double *y);
/* Ticks (and bars) drawn by the last snapshot. */
guint pl_thread_timeline_get_n_ticks(PlThreadTimeline *self, guint *n_bars);

/* The interrupt lanes above the threads (pl-timeline-irq.h; `record
 * --irq`): one per CPU under an "IRQ" header row, expanded up to
 * PL_TIMELINE_IRQ_EXPANDED_MAX CPUs, else collapsed into that row; a
 * click on the header's name expands or collapses them, a click on a run
 * selects its time range ("range-changed").  NULL when the profile has
 * no paired handler run; borrowed until the next set_profile. */
const PlTimelineIrq *pl_thread_timeline_get_irq(PlThreadTimeline *self);
/* As a click on the header does; kept while the profile stays (a live
 * one grows). */
void pl_thread_timeline_set_irq_expanded(PlThreadTimeline *self, gboolean expanded);
/* Where run sp (of get_irq's stats) is drawn; FALSE without interrupt
 * lanes or a size yet. */
gboolean pl_thread_timeline_get_irq_center(PlThreadTimeline *self, const PlIrqSpan *sp,
					   double *x, double *y);
/* What the tooltip says with the pointer at (x, y), NULL when it shows
 * none (for tests and scripts).  Owned by the caller. */
char *pl_thread_timeline_dup_tooltip_at(PlThreadTimeline *self, double x, double y);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile or one that grew, and every new aggregate (the filter, the transforms). */
void pl_thread_timeline_set_session(PlThreadTimeline *self, PlProfileSession *session);

G_END_DECLS

#endif
