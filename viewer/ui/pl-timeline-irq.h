/* pl-timeline-irq.h — interrupt time on the thread timeline: one lane per
 * CPU under an "Interrupts" header row, each hardirq handler run and each
 * softirq run (PlIrqSpan, from pl-irq.h) drawn where and when it ran,
 * hardirqs red over softirqs blue (a hardirq that interrupted a softirq in
 * a darker red).  Collapsed, the header row is the one "IRQ" lane: every
 * CPU's runs drawn together.
 *
 * Level of detail: a run narrower than a pixel is not drawn alone; such
 * runs add up per pixel column and lane, and the column is drawn once in
 * the colour of the kind with more time there, more opaque the more of
 * the column's time they cover.  A lane costs at most one rectangle per
 * pixel column plus one per run a pixel wide or more, whatever the number
 * of runs.
 *
 * Hit testing: the runs drawn within 1 px of x on the lane under y (all
 * CPUs on the collapsed row), the longest of them (what the column shows
 * most of); else the nearest within slack_px.
 *
 * The scale is the timeline's (pl-timeline-triggers.h).  The stats are
 * the object's own; the profile may go after pl_timeline_irq_new. */
#ifndef PL_TIMELINE_IRQ_H
#define PL_TIMELINE_IRQ_H

#include <gtk/gtk.h>

#include "pl-irq.h"
#include "pl-timeline-triggers.h"

G_BEGIN_DECLS

/* Lanes start expanded up to this many CPUs, collapsed above. */
#define PL_TIMELINE_IRQ_EXPANDED_MAX 4u

typedef struct _PlTimelineIrq PlTimelineIrq;

/* The interrupt lanes of profile; NULL when it holds no paired handler
 * run (no irq tracepoints, or none that could be paired). */
PlTimelineIrq *pl_timeline_irq_new(PlProfile *profile);
/* The same for stats already read, borrowed: they must outlive the
 * object (the Interrupts page draws its own stats' lanes this way). */
PlTimelineIrq *pl_timeline_irq_new_for_stats(PlIrqStats *stats);
void pl_timeline_irq_free(PlTimelineIrq *self);

const PlIrqStats *pl_timeline_irq_get_stats(const PlTimelineIrq *self);
gboolean pl_timeline_irq_get_expanded(const PlTimelineIrq *self);
void pl_timeline_irq_set_expanded(PlTimelineIrq *self, gboolean expanded);
/* Places the header row at top (header_h high) and, expanded, a lane of
 * lane_h per CPU under it; returns the y under the last row. */
double pl_timeline_irq_layout(PlTimelineIrq *self, double top, double header_h, double lane_h);
/* The row under y: 0 the header, 1 + cpu a CPU's lane; -1 none. */
int pl_timeline_irq_row_at(const PlTimelineIrq *self, double y);

/* Draws the rows; the labels left of label_w, the runs on the scale;
 * fg is the theme's text colour. */
void pl_timeline_irq_draw(PlTimelineIrq *self, const PlTimelineScale *s, cairo_t *cr,
			  PangoLayout *pl, double w, double label_w, const GdkRGBA *fg,
			  gboolean dark);
/* One lane of the Interrupts page: CPU cpu's hardirq runs (hard) or its
 * softirq runs in the band [y0, y0 + h) on the scale, with the level of
 * detail above; returns the rectangles drawn and the pixel columns. */
guint pl_timeline_irq_draw_lane(const PlTimelineIrq *self, const PlTimelineScale *s, cairo_t *cr,
				guint cpu, gboolean hard, double y0, double h, gboolean dark,
				guint *n_columns);
/* Rectangles drawn for row's runs by the last draw (the LOD's output),
 * and the pixel columns the lanes had then. */
guint pl_timeline_irq_get_n_drawn(const PlTimelineIrq *self, guint row, guint *n_columns);

/* The run under (x, y) (above), NULL when none. */
const PlIrqSpan *pl_timeline_irq_span_at(const PlTimelineIrq *self, const PlTimelineScale *s,
					 double x, double y, double slack_px);
/* What the tooltip says of sp: kind, IRQ number and name or softirq
 * vector, CPU, duration (a softirq's hardirq time inside it), when
 * (from t0).  Owned by the caller. */
char *pl_timeline_irq_dup_text(const PlTimelineIrq *self, const PlIrqSpan *sp, guint64 t0);
/* Where sp is drawn: the middle of its run on its CPU's lane (expanded)
 * or on the header row (collapsed). */
void pl_timeline_irq_get_center(const PlTimelineIrq *self, const PlTimelineScale *s,
				const PlIrqSpan *sp, double *x, double *y);
/* The header row's middle y. */
double pl_timeline_irq_get_header_y(const PlTimelineIrq *self);

/* The runs of CPU cpu's lane, in start order; a softirq run's hardirq
 * time inside it (what its own time leaves out). */
guint pl_timeline_irq_get_n_spans(const PlTimelineIrq *self, guint cpu);
const PlIrqSpan *pl_timeline_irq_get_span(const PlTimelineIrq *self, guint cpu, guint k);
guint64 pl_timeline_irq_get_nested_ns(const PlTimelineIrq *self, const PlIrqSpan *sp);

G_END_DECLS

#endif
