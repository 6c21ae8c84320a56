/* pl-function-table.h — the function table and the callers/callees of the
 * selected function.
 *
 * A GtkColumnView over the functions of an aggregate, sortable by self,
 * total, samples, name, module and file; below it, who called the selected
 * function and what it called, with the weight of the paths through them.
 * Activating a caller or callee selects that function.
 *
 * Signals: "function-selected" (guint func), "function-activated" (guint
 * func: Enter / double click, the window opens its source),
 * "function-menu" (guint func, double x, double y: a right click on a row
 * of any of the three lists, at x, y of the table).
 *
 * The profile is borrowed (as for PlFlameGraph); rows copy their numbers.
 */
#ifndef PL_FUNCTION_TABLE_H
#define PL_FUNCTION_TABLE_H

#include <gtk/gtk.h>

#include "pl-profile-session.h"

#include "pl-profile.h"

G_BEGIN_DECLS

#define PL_TYPE_FUNCTION_TABLE (pl_function_table_get_type())
G_DECLARE_FINAL_TYPE(PlFunctionTable, pl_function_table, PL, FUNCTION_TABLE, GtkWidget)

GtkWidget *pl_function_table_new(void);
void pl_function_table_set_data(PlFunctionTable *self, PlProfile *profile, PlAggregate *agg);
/* The row of func in the table: its self and total; FALSE when absent. */
gboolean pl_function_table_get_row(PlFunctionTable *self, guint32 func, PlCount *self_count,
				   PlCount *total);
/* The rows (for scripts and tests): how many, and row i's function, the
 * name its Function column shows (owned by the profile) and its counts;
 * FALSE past the end. */
guint pl_function_table_get_n_rows(PlFunctionTable *self);
gboolean pl_function_table_get_row_at(PlFunctionTable *self, guint i, guint32 *func,
				      const char **name, PlCount *self_count, PlCount *total);
/* Selects (and scrolls to) a function; FALSE when it has no samples here. */
gboolean pl_function_table_select(PlFunctionTable *self, guint32 func);
/* The selected function or PL_NO_ID. */
guint32 pl_function_table_get_selected(PlFunctionTable *self);
/* Rows shown in the callers / callees lists (for scripts and tests). */
guint pl_function_table_get_n_callers(PlFunctionTable *self);
guint pl_function_table_get_n_callees(PlFunctionTable *self);

/* Follows session (its profile, aggregate and filter; the handlers end
 * with the widget): a new profile, and every new aggregate (the filter, the transforms).
 * Read while the widget is shown: a change meanwhile is read at its next
 * map, or by a getter first (pl-lazy-page.h). */
void pl_function_table_set_session(PlFunctionTable *self, PlProfileSession *session);

G_END_DECLS

#endif
