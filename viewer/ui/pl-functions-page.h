/* pl-functions-page.h — the window's Functions page: the PlFunctionTable
 * under its bar ("Show source" and the hint).
 *
 * "show-source" (guint: the selected function, PL_NO_ID when none) when
 * the button is clicked; the table's own signals (function-activated,
 * function-menu) are the window's to connect.  Main thread only.
 */
#ifndef PL_FUNCTIONS_PAGE_H
#define PL_FUNCTIONS_PAGE_H

#include <gtk/gtk.h>

#include "pl-function-table.h"

G_BEGIN_DECLS

#define PL_TYPE_FUNCTIONS_PAGE (pl_functions_page_get_type())
G_DECLARE_FINAL_TYPE(PlFunctionsPage, pl_functions_page, PL, FUNCTIONS_PAGE, GtkBox)

GtkWidget *pl_functions_page_new(void);
PlFunctionTable *pl_functions_page_get_table(PlFunctionsPage *self);

G_END_DECLS

#endif
