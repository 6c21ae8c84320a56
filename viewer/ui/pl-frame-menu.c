/* pl-frame-menu.c — the right-click menu of a frame or a function (see the
 * header). */
#include "pl-frame-menu.h"

#include <string.h>

#include "pl-function-names.h"

/* ─── targets ────────────────────────────────────────────────────────── */

static char *anchored(const char *text)
{
	g_autofree char *esc = g_regex_escape_string(text, -1);
	return g_strdup_printf("^%s$", esc);
}

/* "A;B;C": the labels from the root (not itself: "all") down to node */
static char *node_path(PlProfile *p, guint32 node)
{
	g_autoptr(GPtrArray) labels = g_ptr_array_new();
	guint n = pl_profile_get_n_nodes(p);
	for (guint32 nd = node; nd != 0 && nd < n; nd = pl_profile_get_node(p, nd)->parent) {
		guint32 f = pl_profile_get_node(p, nd)->func;
		if (f == PL_NO_ID)
			return NULL;
		g_ptr_array_insert(labels, 0, (gpointer)pl_function_names_label(p, f));
	}
	if (!labels->len)
		return NULL;
	g_ptr_array_add(labels, NULL);
	return g_strjoinv(";", (char **)labels->pdata);
}

char *pl_frame_menu_dup_target(PlProfile *p, PlTransformKind kind, guint32 node, guint32 func)
{
	if (!p || func == PL_NO_ID || func >= pl_profile_get_n_functions(p))
		return NULL;
	const char *module = pl_profile_get_function(p, func)->module;
	g_autofree char *arg = NULL;
	switch (kind) {
	case PL_TX_FOCUS_SUBTREE:
		if (node == PL_NO_ID || node >= pl_profile_get_n_nodes(p) ||
		    pl_profile_get_node(p, node)->func != func)
			return NULL;
		arg = node_path(p, node);
		break;
	case PL_TX_MERGE_MODULE:
	case PL_TX_COLLAPSE_MODULE:
		if (!module || !*module)
			return NULL;
		arg = anchored(module);
		break;
	default:
		arg = anchored(pl_function_names_label(p, func));
		break;
	}
	if (!arg)
		return NULL;
	return g_strdup_printf("%s\t%s", pl_transform_kind_name(kind), arg);
}

/* ─── the menu ───────────────────────────────────────────────────────── */

static void add_item(GMenu *m, PlProfile *p, const char *label, PlTransformKind kind,
		     guint32 node, guint32 func)
{
	g_autofree char *target = pl_frame_menu_dup_target(p, kind, node, func);
	if (!target)
		return;
	g_autoptr(GMenuItem) it = g_menu_item_new(label, NULL);
	g_menu_item_set_action_and_target_value(it, "win.transform", g_variant_new_string(target));
	g_menu_append_item(m, it);
}

GMenuModel *pl_frame_menu_new_model(PlProfile *p, guint32 node, guint32 func)
{
	GMenu *menu = g_menu_new();
	if (!p || func == PL_NO_ID || func >= pl_profile_get_n_functions(p))
		return G_MENU_MODEL(menu);
	const char *module = pl_profile_get_function(p, func)->module;
	g_autoptr(GMenu) head = g_menu_new();
	g_autoptr(GMenuItem) src = g_menu_item_new("Show source", NULL);
	g_menu_item_set_action_and_target_value(src, "win.open-source", g_variant_new_uint32(func));
	g_menu_append_item(head, src);
	g_menu_append_section(menu, pl_function_names_label(p, func), G_MENU_MODEL(head));

	g_autoptr(GMenu) fn = g_menu_new();
	add_item(fn, p, "Merge function", PL_TX_MERGE, node, func);
	add_item(fn, p, "Focus on function", PL_TX_FOCUS, node, func);
	add_item(fn, p, "Focus on function (inverted)", PL_TX_FOCUS_INVERTED, node, func);
	add_item(fn, p, "Focus on subtree", PL_TX_FOCUS_SUBTREE, node, func);
	add_item(fn, p, "Drop samples with function", PL_TX_DROP, node, func);
	add_item(fn, p, "Collapse recursion (this function)", PL_TX_COLLAPSE_RECURSION, node, func);
	add_item(fn, p, "Collapse direct recursion", PL_TX_COLLAPSE_DIRECT_RECURSION, node, func);
	g_menu_append_section(menu, NULL, G_MENU_MODEL(fn));

	if (module && *module) {
		g_autoptr(GMenu) mod = g_menu_new();
		g_autofree char *a = g_strdup_printf("Merge module %s", module);
		g_autofree char *b = g_strdup_printf("Collapse module %s", module);
		add_item(mod, p, a, PL_TX_MERGE_MODULE, node, func);
		add_item(mod, p, b, PL_TX_COLLAPSE_MODULE, node, func);
		g_menu_append_section(menu, NULL, G_MENU_MODEL(mod));
	}
	return G_MENU_MODEL(menu);
}

gboolean pl_frame_menu_find_item(GMenuModel *model, PlTransformKind kind, char **action,
				 GVariant **target)
{
	const char *want = pl_transform_kind_name(kind);
	for (int i = 0; i < g_menu_model_get_n_items(model); i++) {
		g_autoptr(GMenuModel) sec = g_menu_model_get_item_link(model, i, G_MENU_LINK_SECTION);
		if (sec && pl_frame_menu_find_item(sec, kind, action, target))
			return TRUE;
		g_autofree char *act = NULL;
		g_autoptr(GVariant) t = g_menu_model_get_item_attribute_value(
			model, i, G_MENU_ATTRIBUTE_TARGET, NULL);
		if (!t || !g_menu_model_get_item_attribute(model, i, G_MENU_ATTRIBUTE_ACTION, "s", &act) ||
		    !g_variant_is_of_type(t, G_VARIANT_TYPE_STRING))
			continue;
		const char *s = g_variant_get_string(t, NULL);
		gsize n = strlen(want);
		if (!strncmp(s, want, n) && (s[n] == '\t' || !s[n])) {
			*action = g_steal_pointer(&act);
			*target = g_steal_pointer(&t);
			return TRUE;
		}
	}
	return FALSE;
}

/* ─── popping up ─────────────────────────────────────────────────────── */

static gboolean unparent_later(gpointer data)
{
	GtkWidget *pop = data;
	if (gtk_widget_get_parent(pop) && !gtk_widget_get_visible(pop))
		gtk_widget_unparent(pop);
	g_object_unref(pop);
	return G_SOURCE_REMOVE;
}

/* A menu item's action runs after the menu closed: it must still find the
 * window's actions through the popover's parent, so the popover leaves
 * its parent only from the main loop. */
static void on_closed(GtkPopover *pop, gpointer data)
{
	g_idle_add(unparent_later, g_object_ref(pop));
}

void pl_frame_menu_popup(GtkWidget *widget, double x, double y, PlProfile *p, guint32 node,
			 guint32 func, GtkWidget **slot)
{
	if (*slot) {
		if (gtk_widget_get_parent(*slot))
			gtk_widget_unparent(*slot);
		g_clear_object(slot);
	}
	if (!p || func == PL_NO_ID)
		return;
	g_autoptr(GMenuModel) model = pl_frame_menu_new_model(p, node, func);
	GtkWidget *pop = gtk_popover_menu_new_from_model(model);
	gtk_popover_set_has_arrow(GTK_POPOVER(pop), FALSE);
	/* frames sit low in a flame graph: the menu opens upwards (GTK flips
	 * it where there is no room) */
	gtk_popover_set_position(GTK_POPOVER(pop), GTK_POS_TOP);
	gtk_widget_set_parent(pop, widget);
	gtk_popover_set_pointing_to(GTK_POPOVER(pop), &(GdkRectangle){ (int)x, (int)y, 1, 1 });
	g_signal_connect(pop, "closed", G_CALLBACK(on_closed), NULL);
	*slot = g_object_ref(pop);
	gtk_popover_popup(GTK_POPOVER(pop));
}
