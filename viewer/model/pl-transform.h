/* pl-transform.h — call-tree transforms: an ordered stack of reshapings of
 * the call tree, as Firefox Profiler offers them from a frame's menu.
 *
 * Each transform rewrites every stack; the next one sees the result, so
 * the order matters ("focus main, then merge helper" differs from "merge
 * helper, then focus main" only where they interact, but the user chose
 * an order and gets it).  Functions are matched by their label
 * (pl_profile_get_function_label) or the label the app shows where a name
 * is shared ("helper (a.c)", pl_function_names_match), or named literally
 * as 'NAME (FILE)'; modules by their basename; patterns are PCRE (GRegex),
 * unanchored — the app anchors and escapes the label it was clicked on,
 * so a frame of one of two helpers takes that one.
 *
 *   merge RE              frames of matching functions vanish; their time
 *                         goes to the caller (self) and their callees
 *                         attach to the caller
 *   merge-module RE       the same for every frame of a matching module
 *   focus RE              every stack is re-rooted at its outermost
 *                         matching frame; stacks without one are dropped
 *   focus-inverted RE     every stack ends at its innermost matching
 *                         frame: what it called counts as its self time,
 *                         so its callers are what remains (the inverted
 *                         tree's focus); stacks without one are dropped
 *   focus-subtree A;B;C   only stacks that begin, from the root, with the
 *                         exact call path A → B → C, re-rooted at C
 *   drop RE               samples with a matching frame anywhere are
 *                         dropped
 *   collapse-module RE    each run of consecutive frames in a matching
 *                         module becomes one frame named after the module
 *   collapse-recursion [RE]
 *                         a frame of a function already on the stack
 *                         (directly or through other frames) folds into
 *                         its outermost frame; RE limits it to matching
 *                         functions, none: every function
 *   collapse-direct-recursion [RE]
 *                         only a function calling itself directly folds
 *
 * The transformed tree lives in the profile's own node table (nodes
 * appended), so every analysis over a PlAggregate works on it unchanged.
 * A stack is described as text ("KIND\tARG" lines) to keep it with a
 * session's view state.  One thread at a time, like the profile.  No GTK.
 */
#ifndef PL_TRANSFORM_H
#define PL_TRANSFORM_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef enum {
	PL_TX_MERGE,
	PL_TX_MERGE_MODULE,
	PL_TX_FOCUS,
	PL_TX_FOCUS_INVERTED,
	PL_TX_FOCUS_SUBTREE,
	PL_TX_DROP,
	PL_TX_COLLAPSE_MODULE,
	PL_TX_COLLAPSE_RECURSION,
	PL_TX_COLLAPSE_DIRECT_RECURSION,
	PL_TX_N_KINDS,
} PlTransformKind;

/* "merge", "merge-module", … as above (also the command line's option
 * names without "--"); NULL for a bad kind. */
const char *pl_transform_kind_name(PlTransformKind kind);
/* The kind of that name; FALSE when there is none. */
gboolean pl_transform_kind_from_name(const char *name, PlTransformKind *kind);
/* TRUE when the kind takes no argument or an optional one. */
gboolean pl_transform_kind_arg_optional(PlTransformKind kind);

typedef struct _PlTransforms PlTransforms;

PlTransforms *pl_transforms_new(void);
void pl_transforms_free(PlTransforms *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlTransforms, pl_transforms_free)
PlTransforms *pl_transforms_copy(const PlTransforms *self);

/* Appends one; arg may be NULL only where the kind allows it.  FALSE with
 * error set (a bad regex, an empty path, a missing argument). */
gboolean pl_transforms_push(PlTransforms *self, PlTransformKind kind, const char *arg,
			    GError **error);
/* Removes the transform at index i; the others keep their order. */
void pl_transforms_remove(PlTransforms *self, guint i);
guint pl_transforms_get_n(const PlTransforms *self);
PlTransformKind pl_transforms_get_kind(const PlTransforms *self, guint i);
const char *pl_transforms_get_arg(const PlTransforms *self, guint i); /* NULL: none */
/* What a breadcrumb says: "Merge: foo", "Focus on subtree: a → b". */
char *pl_transforms_dup_label(const PlTransforms *self, guint i);

/* "KIND\tARG\n" per transform (just "KIND\n" without an argument). */
char *pl_transforms_serialize(const PlTransforms *self);
/* The reverse; an empty string gives an empty stack.  NULL with error set
 * on an unknown kind or a bad argument. */
PlTransforms *pl_transforms_parse(const char *text, GError **error);

/* Applies the stack to a node map: map[n] is where plain call-tree node n
 * goes (PL_NO_ID: dropped), NULL for the identity over every node present
 * now.  Returns the transformed map (map is taken); its length is the
 * number of nodes there were when the map was made (*n_map). */
guint32 *pl_transforms_apply(const PlTransforms *self, PlProfile *p, guint32 *map, guint n_map);

G_END_DECLS

#endif
