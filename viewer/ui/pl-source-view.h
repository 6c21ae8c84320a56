/* pl-source-view.h — a source file with per-line heat.
 *
 * Each line shows its self weight (samples whose innermost frame, inline
 * frames expanded, is on that line) and total weight (any frame on that
 * line), as a percentage of the selection and a heat-coloured background.
 * show_function() opens the file defining a function (its DWARF
 * decl_file, PlFunction.file), scrolls to its hottest line (where most of
 * its own frame's samples are), or else to its definition, and selects it;
 * the scroll is done once the text is laid out and the view shown.
 *
 * A Source / Disassembly switch at the top shows the same function as its
 * instructions instead (the toolchain's objdump, pl_disasm_annotate): each
 * with the samples taken there, heat-coloured, objdump -l's source line
 * markers followed by that line's text, the hottest instruction selected.
 *
 * The profile is borrowed (see PlFlameGraph).
 */
#ifndef PL_SOURCE_VIEW_H
#define PL_SOURCE_VIEW_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-disasm.h"
#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_SOURCE_VIEW (pl_source_view_get_type())
G_DECLARE_FINAL_TYPE(PlSourceView, pl_source_view, PL, SOURCE_VIEW, GtkWidget)

GtkWidget *pl_source_view_new(void);
/* Returns FALSE with *error (what to do) when the source cannot be shown. */
gboolean pl_source_view_show_function(PlSourceView *self, PlProfile *profile, PlAggregate *agg,
				      guint32 func, GError **error);
/* Re-reads heat for a new aggregate (same function); clears when NULL. */
void pl_source_view_set_data(PlSourceView *self, PlProfile *profile, PlAggregate *agg);
/* The line selected as hottest (1-based), 0 when none; the file shown. */
guint pl_source_view_get_hot_line(PlSourceView *self);
const char *pl_source_view_get_file(PlSourceView *self);
/* The text of a shown source line (without the heat columns). */
char *pl_source_view_dup_line(PlSourceView *self, guint line);

/* The function shown (PL_NO_ID: none).  With none chosen, the view shows
 * the hottest function (by self weight, of those whose source is here)
 * when it is first shown or gets data while shown. */
guint32 pl_source_view_get_function(PlSourceView *self);

/* What a click on a line does.  In the source: line is a source line
 * (1-based); the view switches to the disassembly with the instructions
 * objdump -l places on that line marked, the first selected.  In the
 * disassembly: line is a listing line (0-based, as PlAnnotation.lines);
 * the view switches to the source with that instruction's line selected.
 * FALSE (the title says why) when the line leads nowhere. */
gboolean pl_source_view_activate_line(PlSourceView *self, guint line);
/* The selected line (source: 1-based source line; disassembly: listing
 * line), 0 when none; the lines marked by the last jump (disassembly:
 * listing lines; source: the source line), new GArray of guint. */
guint pl_source_view_get_selected_line(PlSourceView *self);
GArray *pl_source_view_dup_marked(PlSourceView *self);
/* Whether a line (numbered as above) is wholly in the visible part; a
 * scroll to the selected line is still pending (the text not laid out or
 * not shown yet). */
gboolean pl_source_view_line_is_visible(PlSourceView *self, guint line);
gboolean pl_source_view_is_scrolling(PlSourceView *self);
/* A point on a line (numbered as above), in the view's coordinates: where
 * a click on it lands (tests click there through X). */
gboolean pl_source_view_get_line_point(PlSourceView *self, guint line, double *x, double *y);

/* Shows the disassembly (TRUE) or the source (FALSE) of the function last
 * given to show_function(); the switch at the top does the same.  Runs
 * objdump (blocking, tens of ms) when switching to or refreshing it. */
void pl_source_view_set_disassembly(PlSourceView *self, gboolean disassembly);
gboolean pl_source_view_get_disassembly(PlSourceView *self);
/* The selected (hottest) instruction's address as objdump prints it (the
 * module's ELF address), 0 when no disassembly is shown; the annotation
 * behind the view (NULL when none), owned by the view. */
guint64 pl_source_view_get_hot_address(PlSourceView *self);
const PlAnnotation *pl_source_view_get_annotation(PlSourceView *self);
/* Why the disassembly could not be shown, NULL when it is. */
const char *pl_source_view_get_disassembly_error(PlSourceView *self);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile, and every new aggregate (the filter, the transforms). */
void pl_source_view_set_session(PlSourceView *self, PlProfileSession *session);

G_END_DECLS

#endif
