/* pl-irq-view.h — the Interrupts page: hardirq and softirq time of a
 * `record --irq` recording (pl-irq.h).  A summary (counts, time, share of
 * the CPUs, what could not be paired), the per-CPU lanes (one for
 * hardirqs, one for softirqs under it, each run drawn where it ran; a
 * hardirq that interrupted a softirq in a darker shade; runs narrower than
 * a pixel summed per pixel column as on the timeline), then the table
 * per IRQ handler and softirq vector with counts per CPU.
 *
 * The page hides itself in its GtkStack while the profile holds none of
 * the irq tracepoints.  A live recording's growth and the window's pick
 * (the interrupted thread, the runs entered in the range) are read again
 * while the page is shown, else when it is next shown (pl-lazy-page.h).
 * The profile is borrowed.  Main thread only. */
#ifndef PL_IRQ_VIEW_H
#define PL_IRQ_VIEW_H

#include <gtk/gtk.h>

#include "pl-irq.h"
#include "pl-profile-session.h"

G_BEGIN_DECLS

#define PL_TYPE_IRQ_VIEW (pl_irq_view_get_type())
G_DECLARE_FINAL_TYPE(PlIrqView, pl_irq_view, PL, IRQ_VIEW, GtkWidget)

GtkWidget *pl_irq_view_new(void);
/* Reads the interrupts of profile (NULL clears and hides the page). */
void pl_irq_view_set_profile(PlIrqView *self, PlProfile *profile);
/* What the page shows, borrowed (NULL without a profile). */
const PlIrqStats *pl_irq_view_get_stats(PlIrqView *self);
/* The last draw of CPU cpu's hardirq (hard) or softirq lane: the
 * rectangles drawn (the level of detail's output), its runs and the
 * pixel columns it had. */
guint pl_irq_view_get_n_drawn(PlIrqView *self, guint cpu, gboolean hard, guint *n_runs,
			      guint *n_columns);
/* Follows session: a new profile, one that grew, the window's pick. */
void pl_irq_view_set_session(PlIrqView *self, PlProfileSession *session);

G_END_DECLS

#endif
