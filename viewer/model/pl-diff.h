/* pl-diff.h — two recordings compared: per function and per stack, each
 * side normalised by its own total weight, so a 10 s and a 30 s recording
 * of the same program compare as shares.
 *
 * Functions are matched by label and module (addresses differ between
 * builds, names do not); stacks by the chain of labels from the outermost
 * frame.  Where either side has functions of one label defined in several
 * files, that label is qualified on both sides ("helper (a.c)",
 * pl-function-names.h), so each is matched with its own.  The result
 * owns its strings and does not refer to either profile afterwards.  No
 * GTK.
 */
#ifndef PL_DIFF_H
#define PL_DIFF_H

#include <glib.h>

#include "pl-profile.h"

G_BEGIN_DECLS

typedef struct {
	const char *name;   /* label, qualified by file where needed (above) */
	const char *module;
	double self_a, self_b;   /* fraction (0..1) of that side's total weight */
	double total_a, total_b;
	gboolean inlined; /* matched as an inline frame (kept apart from a real
			   * function of the same name: -O0 vs -O2 builds) */
} PlDiffFunction;

typedef struct {
	const char *stack; /* "outer;…;leaf" */
	double a, b;       /* fraction of that side's total weight ending there */
} PlDiffStack;

typedef struct {
	PlCount all_a, all_b;
	GArray *functions; /* PlDiffFunction, by |self_b - self_a| then |total_b - total_a| */
	GArray *stacks;    /* PlDiffStack, by |b - a| */
	GStringChunk *strings;
} PlDiff;

PlDiff *pl_diff_new(PlAggregate *a, PlAggregate *b);
void pl_diff_free(PlDiff *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlDiff, pl_diff_free)

G_END_DECLS

#endif
