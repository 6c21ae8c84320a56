/* pl-io-view.h — the I/O page (issue 19): the slow system calls an agent
 * timed (`--syscalls LIST --slower-than DUR`, pl-syscalls.h) by system
 * call (count, total, max, p50, p99), a flame graph of the time blocked by
 * call site (the stacks at entry, weighed by duration: the flame graph
 * widget drawing pl_slow_calls_aggregate), a latency histogram (powers of
 * two), and the slowest calls; clicking one shows its stack and emits
 * "range-selected" (guint64 t0, guint64 t1: its entry and exit, profile
 * time) so that every view shows its time.
 *
 * The page hides itself in its GtkStack while the profile has no slow
 * calls.  The profile is borrowed (see PlFlameGraph).  Main thread only.
 */
#ifndef PL_IO_VIEW_H
#define PL_IO_VIEW_H

#include <gtk/gtk.h>

#include "pl-flame-graph.h"
#include "pl-syscalls.h"

G_BEGIN_DECLS

#define PL_TYPE_IO_VIEW (pl_io_view_get_type())
G_DECLARE_FINAL_TYPE(PlIoView, pl_io_view, PL, IO_VIEW, GtkBox)

GtkWidget *pl_io_view_new(void);
/* Reads the slow calls of profile (NULL clears). */
void pl_io_view_set_profile(PlIoView *self, PlProfile *profile);
guint pl_io_view_get_n_calls(PlIoView *self);

/* The table's row of system call name: FALSE when it has none. */
typedef struct {
	guint count;
	guint64 total_ns, max_ns, p50_ns, p99_ns;
} PlIoRow;
gboolean pl_io_view_get_row(PlIoView *self, const char *name, PlIoRow *out);
PlFlameGraph *pl_io_view_get_flame_graph(PlIoView *self);
/* The i-th slowest call (0: the slowest), NULL past the end; borrowed. */
const PlSlowCall *pl_io_view_get_slowest(PlIoView *self, guint i);
/* As a click on the i-th slowest call's row. */
void pl_io_view_activate_slowest(PlIoView *self, guint i);
/* The stack shown for the call clicked last ("" before). */
const char *pl_io_view_get_stack_text(PlIoView *self);

G_END_DECLS

#endif
