/* pl-view-state.h — what a window shows of its session, apart from the
 * widgets: the call-tree transforms (pl-transform.h), an ordered stack
 * that every view's aggregate is made with.
 *
 * The stack is kept beside the session, in SESSION.view (the transforms'
 * text form, 0600 like the session itself), written at every change and
 * read when the session is opened again, so a session comes back reshaped
 * as it was left.  An empty stack leaves no file.  Renaming or deleting a
 * session (pl-sessions-index.c) takes the file along.
 *
 * "changed" is emitted after every change of the stack (push, remove,
 * reset, a session's stack read).  No widgets; main thread only.
 */
#ifndef PL_VIEW_STATE_H
#define PL_VIEW_STATE_H

#include <glib-object.h>

#include "pl-stack-filter.h"

G_BEGIN_DECLS

#define PL_TYPE_VIEW_STATE (pl_view_state_get_type())
G_DECLARE_FINAL_TYPE(PlViewState, pl_view_state, PL, VIEW_STATE, GObject)

PlViewState *pl_view_state_new(void);

/* The stack filter to aggregate with (pl_profile_aggregate_filtered):
 * borrowed, valid as long as self. */
const PlStackFilter *pl_view_state_get_stack_filter(PlViewState *self);
/* The transforms, borrowed (never NULL). */
const PlTransforms *pl_view_state_get_transforms(PlViewState *self);
guint pl_view_state_get_n(PlViewState *self);

/* Appends a transform; FALSE with error set on a bad argument (nothing
 * changes then). */
gboolean pl_view_state_push(PlViewState *self, PlTransformKind kind, const char *arg,
			    GError **error);
/* "KIND\tARG" (or "KIND"), as a menu item's target carries it. */
gboolean pl_view_state_push_text(PlViewState *self, const char *text, GError **error);
/* Removes transform i (the others keep their order); out of range: no-op. */
void pl_view_state_remove(PlViewState *self, guint i);
void pl_view_state_reset(PlViewState *self);

/* The session whose state this is (NULL: none, nothing kept): the stack
 * becomes the one saved beside it, empty when there is none.  A file that
 * cannot be read or parsed gives an empty stack, and the reason in
 * pl_view_state_get_error. */
void pl_view_state_set_session(PlViewState *self, const char *path);
/* The stack as it is belongs to the session at path from now on (a live
 * session, whose file begins after its views): written there now and at
 * every change. */
void pl_view_state_keep_in(PlViewState *self, const char *path);
/* The last load or save failure, in words for the status line (NULL:
 * none). */
const char *pl_view_state_get_error(PlViewState *self);

/* SESSION.view */
char *pl_view_state_path_for(const char *session_path);

G_END_DECLS

#endif
