/* pl-flame-draw.h — a flame graph layout (viewer/core/pl-flame-layout.h)
 * drawn with cairo and Pango, no GTK.
 *
 * Goes to any cairo context: the widget records it once per size/data
 * change, a benchmark draws to an image surface, an export could draw to a
 * PNG, PDF or SVG one with no display.  Not in libplviewer.a (the command
 * line links no cairo): viewer/viewer.mk's VIEWER_PAINT_OBJS.  The layout and the style
 * are only read.
 */
#ifndef PL_FLAME_DRAW_H
#define PL_FLAME_DRAW_H

#include <cairo.h>

#include "pl-flame-layout.h"

G_BEGIN_DECLS

/* Draws the layout into a width × height area at (0, 0).  Rows beyond the
 * height are clipped by the caller.  Only what lies inside cr's clip is
 * drawn (a tile of a tall graph costs its own rows, not the graph's). */
void pl_flame_draw(cairo_t *cr, const PlFlameLayout *l, const PlFlameStyle *s, double width,
		   double height);

G_END_DECLS

#endif
