/* pl-ui-util.h — small presentation helpers shared by the UI widgets.
 *
 * Main thread only.
 */
#ifndef PL_UI_UTIL_H
#define PL_UI_UTIL_H

#include <gtk/gtk.h>

#include "pl-function-names.h" /* every view names functions as reports do */
#include "pl-profile.h"
#include "pl-target-settings.h" /* pl_target_settings_advice */
#include "pl-window-text.h"     /* pl_window_format_weight */

G_BEGIN_DECLS

char *pl_ui_format_pct(guint64 part, guint64 whole);
/* A recording's length as a person reads it: under a minute in seconds
 * with `decimals` decimals ("4.2 s"), then "3 min 05 s", then "2 h 07 min". */
char *pl_ui_format_length(double secs, guint decimals);

/* Pango markup for a call-tree node or a function (node may be 0 for the
 * root; func PL_NO_ID then). */
char *pl_ui_node_tooltip(PlProfile *p, guint32 node, guint32 func, guint64 self,
			 guint64 total, guint64 all);

/* Where a function is defined, from the DWARF (PlFunction.file and
 * .line: DW_AT_decl_file / DW_AT_decl_line of its subprogram, or of the
 * abstract origin of an inlined one): *file as the profile names it
 * (borrowed), *local_path the file readable here (owned, NULL when it is
 * not found: Settings → Source dirs, path maps).  FALSE when the DWARF
 * does not say (no -g, no debug file): nothing is guessed.  Outputs may
 * be NULL. */
gboolean pl_ui_function_source(PlProfile *p, guint32 func, const char **file, char **local_path,
			       guint *line);

/* child in a scrolled window that expands both ways, scrolling vertically
 * (and horizontally when hscroll). */
GtkWidget *pl_ui_scrolled(GtkWidget *child, gboolean hscroll);

/* Sizes and places the popovers among widget's children (a frame menu):
 * what a widget that may hold one calls in its size_allocate. */
void pl_ui_present_popovers(GtkWidget *widget);

/* Renders widget (with its children) into a PNG file. */
gboolean pl_ui_save_png(GtkWidget *widget, const char *path, GError **error);

/* Recent connection targets: "host:port" lines in
 * $XDG_CONFIG_HOME/perflens/recent.ini, newest first, at most 10. */
GStrv pl_ui_recent_load(void);
void pl_ui_recent_add(const char *target);


/* Chart axes: a round step (1, 2 or 5 × 10^k) giving about 8 ticks over span. */
double pl_ui_nice_step(double span);

/* Draws text with its top at y, aligned at x (0 left, 0.5 centre, 1 right). */
void pl_ui_show_text(cairo_t *cr, PangoLayout *pl, const char *text, double x, double y,
		     double align);

/* The widget is drawn on a dark theme (its text colour is light). */
gboolean pl_ui_is_dark(GtkWidget *w);
/* Heat colour for a share 0..1, blended over the background (dark or not). */
void pl_ui_heat_rgba(double share, gboolean dark, GdkRGBA *out);

G_END_DECLS

#endif
