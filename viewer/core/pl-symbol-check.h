/* pl-symbol-check.h — before recording from a board: how the symbols of the
 * last session recorded from it fared (its sidecar, pl-sessions-index.h),
 * so that what will be missing is known before the next recording starts.
 *
 * No widgets: the check lists the saved sessions in a worker thread and
 * returns that board's newest session info; pl_symbol_check_describe turns
 * it into the sentence the connect view shows.  Call from the main thread.
 */
#ifndef PL_SYMBOL_CHECK_H
#define PL_SYMBOL_CHECK_H

#include <gio/gio.h>

#include "pl-sessions-index.h"

G_BEGIN_DECLS

/* Looks for the newest session from hostname (with a symbol report) in a
 * worker; callback runs in the main context with source_object (held until
 * then). */
void pl_symbol_check_async(const char *hostname, gpointer source_object,
			   GAsyncReadyCallback callback, gpointer user_data);
/* That session's info (owned), or NULL when there is none. */
PlSessionInfo *pl_symbol_check_finish(GAsyncResult *res);
/* The sentence for the user about in (NULL: no earlier session); *warning
 * is TRUE when modules needed attention. */
char *pl_symbol_check_describe(const PlSessionInfo *in, gboolean *warning);

G_END_DECLS

#endif
