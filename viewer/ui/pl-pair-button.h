/* pl-pair-button.h — "Pair events…": the user's own intervals on the
 * timeline (as hotspot users asked: #326, #346).  A menu button whose popover
 * takes a begin and an end regex; Add pairs every event of a thread that
 * matches the first with the next that matches the second
 * (pl_thread_timeline_add_pair), drawn as bars like begin/end markers, and a
 * click on one selects its time range.  Markers match by their text,
 * tracepoint hits by "EVENT fields".  A bad regex is said in the popover.
 * Main thread only.
 */
#ifndef PL_PAIR_BUTTON_H
#define PL_PAIR_BUTTON_H

#include <gtk/gtk.h>

#include "pl-thread-timeline.h"

G_BEGIN_DECLS

#define PL_TYPE_PAIR_BUTTON (pl_pair_button_get_type())
G_DECLARE_FINAL_TYPE(PlPairButton, pl_pair_button, PL, PAIR_BUTTON, GtkWidget)

/* timeline is borrowed: it outlives the button (both the window's). */
GtkWidget *pl_pair_button_new(PlThreadTimeline *timeline);
/* The popover's parts, as a user types and clicks them (tests, scripts). */
GtkEditable *pl_pair_button_get_begin_entry(PlPairButton *self);
GtkEditable *pl_pair_button_get_end_entry(PlPairButton *self);
GtkButton *pl_pair_button_get_add_button(PlPairButton *self);
GtkButton *pl_pair_button_get_clear_button(PlPairButton *self);
/* What the popover says under the entries (pairs set, or the error). */
const char *pl_pair_button_get_status(PlPairButton *self);

G_END_DECLS

#endif
