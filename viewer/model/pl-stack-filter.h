/* pl-stack-filter.h — rewriting call stacks before they are counted:
 * regex allow/deny on symbol and module, each optionally marked "(cut)",
 * regex renames, and collapse of direct recursion.
 *
 * Rules, applied to each frame from the outermost (main) to the leaf:
 *   rename  RE=REPLACEMENT   the function's label is rewritten (every rename
 *                            in order; \1… refer to RE's groups); the
 *                            renamed label is what the other rules see
 *   deny    RE               the frame is removed; its callees attach to its
 *                            caller
 *   deny    RE (cut)         the frame and everything it called are removed:
 *                            their samples count as the caller's self
 *   allow   RE               only samples with a matching frame somewhere on
 *                            the stack are kept (several allows: any)
 *   allow   RE (cut)         as allow, and the frames above the first match
 *                            (its callers) are removed: stacks start there
 * Symbol rules match the function label (pl_profile_get_function_label),
 * or the label shown where a name is shared ("helper (a.c)"), or name it
 * literally as 'NAME (FILE)' as reports print it (pl_function_names_match;
 * a literal rename gives that function REPLACEMENT as it is); module rules
 * the module basename.  Regexes are PCRE (GRegex), unanchored.
 * With collapse_recursion, a frame of a function already on the (kept)
 * stack is merged into the outermost frame of that function: direct
 * recursion and cycles through other frames (A → B → A) both fold, and
 * what the inner call did is counted under the outer one.
 *
 * Then the call-tree transforms (pl-transform.h) run in their order on the
 * result: the rules above are the command line's long-standing filters,
 * the transforms what the app's frame menu and --merge, --focus … add.
 *
 * The rewritten tree is built in the profile's own node table (new nodes
 * appended), so every analysis over a PlAggregate works on it unchanged.
 * One thread at a time, like the profile.  No GTK.
 */
#ifndef PL_STACK_FILTER_H
#define PL_STACK_FILTER_H

#include <glib.h>

#include "pl-profile.h"
#include "pl-transform.h"

G_BEGIN_DECLS

typedef enum {
	PL_RULE_ALLOW_SYMBOL,
	PL_RULE_DENY_SYMBOL,
	PL_RULE_ALLOW_MODULE,
	PL_RULE_DENY_MODULE,
	PL_RULE_RENAME,
} PlRuleKind;

typedef struct _PlStackFilter PlStackFilter;

PlStackFilter *pl_stack_filter_new(void);
void pl_stack_filter_free(PlStackFilter *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PlStackFilter, pl_stack_filter_free)

/* spec: "RE" or "RE (cut)" for allow/deny; "RE=REPLACEMENT" for rename
 * (split at the last '=').  FALSE with error set (a bad regex, a rename
 * without '=', "(cut)" on a rename). */
gboolean pl_stack_filter_add(PlStackFilter *self, PlRuleKind kind, const char *spec,
			     GError **error);
void pl_stack_filter_set_collapse_recursion(PlStackFilter *self, gboolean collapse);
/* The filter's transforms (borrowed, empty at first): push onto it. */
PlTransforms *pl_stack_filter_get_transforms(PlStackFilter *self);
/* TRUE when no rule or transform is set and recursion is not collapsed. */
gboolean pl_stack_filter_is_empty(const PlStackFilter *self);

/* pl_profile_aggregate with the stacks rewritten; sf NULL or empty: the
 * plain aggregate.  agg->node_map tells where each plain node went. */
PlAggregate *pl_profile_aggregate_filtered(PlProfile *profile, const PlFilter *filter,
					   const PlStackFilter *sf);

G_END_DECLS

#endif
