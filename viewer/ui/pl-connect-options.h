/* pl-connect-options.h — the "Record" form of the Connect page: what to
 * start (a command, the whole board, or the process chosen in the list),
 * the event, call graph, frequency, stack copy, slow system calls
 * (`--syscalls LIST --slower-than DUR`), lock contention (`--locks`), and
 * the probe's notes on what the
 * board cannot do.
 *
 * The form turns itself into a START message (pl_connect_options_fill_start);
 * it keeps the strings the message borrows until the next fill.  It never
 * talks to the agent: the Connect view (pl-connect-view.h) feeds it the
 * probe's events and sends what it fills.  Layout in pl-connect-options.ui.
 *
 * Signal: "frequency-changed" (guint: Hz), when the user changes the
 * frequency (the view sends CONFIGURE while recording).
 */
#ifndef PL_CONNECT_OPTIONS_H
#define PL_CONNECT_OPTIONS_H

#include <gtk/gtk.h>

#include "msg.h"
#include "pl-live-session.h" /* PlAgentInfo */
#include "pl-proc-item.h"

G_BEGIN_DECLS

#define PL_TYPE_CONNECT_OPTIONS (pl_connect_options_get_type())
G_DECLARE_FINAL_TYPE(PlConnectOptions, pl_connect_options, PL, CONNECT_OPTIONS, GtkWidget)

GtkWidget *pl_connect_options_new(void);

/* The probe's events (PROBE_EVENT): a name seen again replaces the older
 * one; clear forgets them all (a new board). */
void pl_connect_options_add_probe_event(PlConnectOptions *self, const char *name,
					gint32 status, guint32 flags, const char *message);
void pl_connect_options_clear_probe_events(PlConnectOptions *self);
guint pl_connect_options_get_n_probe_events(PlConnectOptions *self);
/* Offers the events that work, lists those that do not with why, and the
 * call-graph notes of the board (HELLO's flags). */
void pl_connect_options_update(PlConnectOptions *self, guint32 hello_flags);
/* The board's max sample rate (PROBE_SUMMARY), the frequency's upper bound. */
void pl_connect_options_set_max_frequency(PlConnectOptions *self, guint hz);

/* Fills s (zeroed by the caller) from the form: target (whole board, else
 * the command, else `selected`), events, call graph, frequency, stack
 * size, slow system calls translated with the board's table (agent's
 * e_machine), the lock events when that box is ticked.  *what (g_free) names the target for the session's label.
 * FALSE with a sentence for the user when the form is not complete or not
 * right.  s borrows strings owned by self until the next call. */
gboolean pl_connect_options_fill_start(PlConnectOptions *self, const PlAgentInfo *agent,
				       PlProcItem *selected, struct pl_msg_start *s, char **what,
				       GError **error);

void pl_connect_options_set_command(PlConnectOptions *self, const char *command);
void pl_connect_options_set_frequency(PlConnectOptions *self, guint hz);
/* The slow-system-call fields: list ("" or NULL: off) and threshold
 * (NULL: 1ms). */
void pl_connect_options_set_syscalls(PlConnectOptions *self, const char *list,
				     const char *slower_than);
/* The "Lock contention" box (`--locks`: pl_locks_events()). */
void pl_connect_options_set_locks(PlConnectOptions *self, gboolean on);
const char *pl_connect_options_get_probe_notes(PlConnectOptions *self);

G_END_DECLS

#endif
