/* pl-io-view.h — the I/O page: the slow system calls an agent
 * timed (`--syscalls LIST --slower-than DUR`, pl-syscalls.h) by system
 * call (count, total, max, p50, p99), a flame graph of the time blocked by
 * call site (the stacks at entry, weighed by duration: the flame graph
 * widget drawing pl_slow_calls_aggregate), a latency histogram (powers of
 * two), and the slowest calls; clicking one shows its stack and emits
 * "range-selected" (guint64 t0, guint64 t1: its entry and exit, profile
 * time) so that every view shows its time.
 *
 * The page follows the window's filter as the other views do (set_filter,
 * the rule of pl_profile_aggregate): only the calls of the selected thread
 * whose entry lies in the selected range count, in every part of the page,
 * and its first line says so ("N of M slow system calls began in the
 * selection …").  A click on a slowest call (or on its bar in the
 * timeline) selects its own range: the other views show that time, while
 * the page keeps its calls (of the selected thread) and shows that one
 * picked, its row selected and its stack shown, until the filter leaves
 * it out.
 *
 * The page hides itself in its GtkStack while the profile has no slow
 * calls (whatever the filter).  The profile is borrowed (see
 * PlFlameGraph).  Main thread only.
 */
#ifndef PL_IO_VIEW_H
#define PL_IO_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-flame-graph.h"
#include "pl-syscalls.h"

G_BEGIN_DECLS

#define PL_TYPE_IO_VIEW (pl_io_view_get_type())
G_DECLARE_FINAL_TYPE(PlIoView, pl_io_view, PL, IO_VIEW, GtkBox)

GtkWidget *pl_io_view_new(void);
/* Reads the slow calls of profile (NULL clears); the filter stays. */
void pl_io_view_set_profile(PlIoView *self, PlProfile *profile);
/* The window's filter (tid, t0, t1; the event is not used), copied. */
void pl_io_view_set_filter(PlIoView *self, const PlFilter *filter);
/* The calls the filter lets through, and all the profile's. */
guint pl_io_view_get_n_calls(PlIoView *self);
guint pl_io_view_get_n_all(PlIoView *self);
/* What the page says it shows (its first line), borrowed. */
const char *pl_io_view_get_summary(PlIoView *self);
/* The calls the histogram counts, and the rows the slowest list holds. */
guint pl_io_view_get_n_in_histogram(PlIoView *self);
guint pl_io_view_get_n_listed(PlIoView *self);

/* The table's row of system call name: FALSE when it has none. */
typedef struct {
	guint count;
	guint64 total_ns, max_ns, p50_ns, p99_ns;
} PlIoRow;
gboolean pl_io_view_get_row(PlIoView *self, const char *name, PlIoRow *out);
PlFlameGraph *pl_io_view_get_flame_graph(PlIoView *self);
/* The i-th slowest call shown (0: the slowest), NULL past the end;
 * borrowed until the next set_profile, set_filter or activate_slowest. */
const PlSlowCall *pl_io_view_get_slowest(PlIoView *self, guint i);
/* As a click on the i-th slowest call's row (the window then filters by
 * its range, and the page follows). */
void pl_io_view_activate_slowest(PlIoView *self, guint i);
/* The stack shown for the call clicked last ("" before). */
const char *pl_io_view_get_stack_text(PlIoView *self);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile or one that grew, and every new aggregate (the filter, the transforms). */
void pl_io_view_set_session(PlIoView *self, PlProfileSession *session);

G_END_DECLS

#endif
