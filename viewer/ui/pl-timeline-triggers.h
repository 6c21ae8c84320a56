/* pl-timeline-triggers.h — a flight recorder's triggers on the thread
 * timeline (pl-thread-timeline.c): each firing (PlTrigger, TRIGGER
 * records) a red line across the lanes with a flag in the axis band, and
 * its text (what fired, when, what matched, the window kept) as the
 * tooltip near it.
 *
 * The scale maps profile time [t0, t1] to x in [x0, x1]; times outside are
 * drawn at the nearer edge (a trigger may come after the last sample:
 * "Save now", an exit).  The profile is borrowed.
 */
#ifndef PL_TIMELINE_TRIGGERS_H
#define PL_TIMELINE_TRIGGERS_H

#include <gtk/gtk.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct {
	guint64 t0, t1;
	double x0, x1;
} PlTimelineScale;

/* Draws the triggers from y = top (the axis band's top) to bottom; the
 * flag's label in the band is [band_h] high.  Returns how many were
 * drawn. */
guint pl_timeline_triggers_draw(PlProfile *p, const PlTimelineScale *s, cairo_t *cr,
				PangoLayout *pl, double top, double band_h, double bottom);
/* The tooltip of the trigger drawn within slack_px of x (the nearest),
 * or NULL.  Owned by the caller. */
char *pl_timeline_triggers_dup_at(PlProfile *p, const PlTimelineScale *s, double x,
				  double slack_px);
/* The text of trigger i (as the tooltip says it), for tests and scripts;
 * NULL when there is none. */
char *pl_timeline_triggers_dup_text(PlProfile *p, guint64 t0, guint i);

G_END_DECLS

#endif
