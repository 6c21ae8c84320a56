/* pl-flame-page.h — the window's Flame graph page: the PlFlameGraph under
 * its toolbar (the breadcrumbs of the zoom, the search and the share it
 * matches, Off-CPU, Icicle, Inverted, Reset zoom, Export SVG) and the hint
 * below.
 *
 * The page drives the graph's zoom, search and orientation itself.  What
 * concerns the window is left to it: "offcpu-toggled" (gboolean active),
 * the Off-CPU button changed (the window aggregates by another event);
 * "short-names-toggled" (gboolean active), the Short names button changed
 * (the window folds C++ names in the profile's labels, every view);
 * Export SVG activates the window's action win.export-svg, which asks the
 * page to export (pl_flame_page_export_svg: a file chooser, then the
 * outcome in the page's message line); the graph's own
 * signals (frame-menu) are the window's to connect.  Main thread only.
 */
#ifndef PL_FLAME_PAGE_H
#define PL_FLAME_PAGE_H

#include <gtk/gtk.h>

#include "pl-flame-graph.h"

G_BEGIN_DECLS

#define PL_TYPE_FLAME_PAGE (pl_flame_page_get_type())
G_DECLARE_FINAL_TYPE(PlFlamePage, pl_flame_page, PL, FLAME_PAGE, GtkBox)

GtkWidget *pl_flame_page_new(void);
PlFlameGraph *pl_flame_page_get_graph(PlFlamePage *self);
GtkSearchEntry *pl_flame_page_get_search_entry(PlFlamePage *self);
/* Asks where, then writes the graph as SVG; says how it went. */
void pl_flame_page_export_svg(PlFlamePage *self);
/* "Inverted": the graph shows the bottom-up tree while active. */
GtkToggleButton *pl_flame_page_get_inverted_toggle(PlFlamePage *self);
/* Shows text where the search tells its matches (until the next search). */
void pl_flame_page_set_message(PlFlamePage *self, const char *text);

G_END_DECLS

#endif
