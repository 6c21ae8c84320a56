/* pl-frame-menu.h — the right-click menu of a frame (flame graph, flame
 * chart) or a function row (function table, callers, callees): show its
 * source, and the call-tree transforms (pl-transform.h) for it.
 *
 * Items name window actions, so the menu holds no state:
 *   win.open-source (u)  the function's source
 *   win.transform (s)    "KIND\tARG" pushed onto the window's transforms
 * A function is named by its label, escaped (g_regex_escape_string) and
 * anchored ^…$, for the kinds that take a regex; a module by its basename
 * the same way; "Focus on subtree" by the frame's call path from the root
 * ("A;B;C", labels matched exactly), offered only where there is a frame
 * of the (shown) call tree, not on a table row.  Main thread only.
 */
#ifndef PL_FRAME_MENU_H
#define PL_FRAME_MENU_H

#include <gtk/gtk.h>

#include "pl-transform.h"

G_BEGIN_DECLS

/* What the item of kind asks for, "KIND\tARG"; NULL where it does not
 * apply (no node for a subtree, no module for the module kinds).  node is
 * a call-tree node of the profile, or PL_NO_ID. */
char *pl_frame_menu_dup_target(PlProfile *p, PlTransformKind kind, guint32 node, guint32 func);
/* The menu for function func, shown at node (PL_NO_ID: a table row, or a
 * frame of a tree that is not the profile's, as the inverted one). */
GMenuModel *pl_frame_menu_new_model(PlProfile *p, guint32 node, guint32 func);
/* The item of model whose target has that kind: its action name and
 * target (owned by the caller); FALSE when the menu has none. */
gboolean pl_frame_menu_find_item(GMenuModel *model, PlTransformKind kind, char **action,
				 GVariant **target);

/* Pops the menu up at (x, y) of widget (inside the window whose actions
 * it names).  The popover replaces the one in *slot (which holds a
 * reference): the caller unparents and drops *slot when it goes away
 * first; a closed menu unparents itself from the main loop. */
void pl_frame_menu_popup(GtkWidget *widget, double x, double y, PlProfile *p, guint32 node,
			 guint32 func, GtkWidget **slot);

G_END_DECLS

#endif
