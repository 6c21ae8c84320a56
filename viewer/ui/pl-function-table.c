/* pl-function-table.c — function table with callers/callees (see the header). */
#include "pl-function-table.h"

#include "pl-lazy-page.h"
#include "pl-ui-timing.h"

#include <string.h>

#include "pl-ui-util.h"

/* ─── row item ───────────────────────────────────────────────────────── */

#define PL_TYPE_FUNC_ITEM (pl_func_item_get_type())
G_DECLARE_FINAL_TYPE(PlFuncItem, pl_func_item, PL, FUNC_ITEM, GObject)

struct _PlFuncItem {
	GObject parent_instance;
	guint32 func;
	PlCount self, total;
	guint64 all; /* for percentages */
	const char *name, *module; /* owned by the profile */
	PlFunctionTable *table;    /* borrowed: for the profile */
};
G_DEFINE_FINAL_TYPE(PlFuncItem, pl_func_item, G_TYPE_OBJECT)
static void pl_func_item_class_init(PlFuncItemClass *k)
{
}
static void pl_func_item_init(PlFuncItem *i)
{
}

struct _PlFunctionTable {
	GtkWidget parent_instance;
	PlProfile *profile;
	PlAggregate *agg; /* borrowed, valid until the next set_data */
	GListStore *store, *callers, *callees;
	GtkColumnView *view, *callers_view, *callees_view;
	GtkSingleSelection *selection;
	GtkSortListModel *sorted;
	GtkLabel *callers_title, *callees_title;
	GtkWidget *paned;
	guint32 selected;
	gboolean updating;
	PlProfileSession *session; /* weak: followed, read when shown */
};

G_DEFINE_FINAL_TYPE(PlFunctionTable, pl_function_table, GTK_TYPE_WIDGET)

enum { SIG_SELECTED, SIG_ACTIVATED, SIG_MENU, N_SIGNALS };
static guint signals[N_SIGNALS];

static PlFuncItem *item_new(PlFunctionTable *t, const PlRow *r, guint64 all)
{
	PlFuncItem *it = g_object_new(PL_TYPE_FUNC_ITEM, NULL);
	it->func = r->id;
	it->self = r->self;
	it->total = r->total;
	it->all = all;
	it->table = t;
	it->name = pl_function_names_label(t->profile, r->id);
	const PlFunction *f = pl_profile_get_function(t->profile, r->id);
	it->module = f->module ? f->module : "";
	return it;
}

/* "burn.c:43": where it is defined (two static functions of one name
 * are told apart here).  Owned by the caller. */
static char *item_file(PlFuncItem *it)
{
	const char *file;
	guint line;
	if (it->table->profile && pl_ui_function_source(it->table->profile, it->func, &file, NULL,
							&line)) {
		const char *slash = strrchr(file, '/');
		return g_strdup_printf("%s:%u", slash ? slash + 1 : file, line);
	}
	return g_strdup("");
}

/* ─── columns ────────────────────────────────────────────────────────── */

enum { COL_NAME, COL_SELF, COL_SELF_PCT, COL_TOTAL, COL_TOTAL_PCT, COL_SAMPLES, COL_MODULE, COL_FILE };

/* A right click on any cell of a row (table, callers, callees): the
 * row's function menu, at the click in the table's coordinates. */
static void on_cell_press(GtkGestureClick *g, int n, double x, double y, GtkListItem *li)
{
	PlFuncItem *it = gtk_list_item_get_item(li);
	GtkWidget *cell = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(g));
	if (!it)
		return;
	double tx = x, ty = y;
	gtk_widget_translate_coordinates(cell, GTK_WIDGET(it->table), x, y, &tx, &ty);
	g_signal_emit(it->table, signals[SIG_MENU], 0, it->func, tx, ty);
}

static void setup_label(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	GtkWidget *l = gtk_label_new(NULL);
	GtkGesture *menu = gtk_gesture_click_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(menu), GDK_BUTTON_SECONDARY);
	g_signal_connect(menu, "pressed", G_CALLBACK(on_cell_press), li);
	gtk_widget_add_controller(l, GTK_EVENT_CONTROLLER(menu));
	int c = GPOINTER_TO_INT(col);
	gtk_label_set_xalign(GTK_LABEL(l), c == COL_NAME || c == COL_MODULE || c == COL_FILE ? 0 : 1);
	if (c == COL_NAME)
		gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_END);
	gtk_widget_add_css_class(l, c == COL_NAME || c == COL_MODULE || c == COL_FILE ? "plain"
										  : "numeric");
	gtk_list_item_set_child(li, l);
}

static void bind_label(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	PlFuncItem *it = gtk_list_item_get_item(li);
	GtkLabel *l = GTK_LABEL(gtk_list_item_get_child(li));
	PlProfile *p = it->table->profile;
	g_autofree char *s = NULL;
	switch (GPOINTER_TO_INT(col)) {
	case COL_NAME:
		gtk_label_set_text(l, it->name);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), it->name);
		return;
	case COL_SELF:
		s = it->self.weight ? pl_window_format_weight(p, it->self.weight) : g_strdup("–");
		break;
	case COL_SELF_PCT:
		s = it->self.weight ? pl_ui_format_pct(it->self.weight, it->all) : g_strdup("–");
		break;
	case COL_TOTAL:
		s = pl_window_format_weight(p, it->total.weight);
		break;
	case COL_TOTAL_PCT:
		s = pl_ui_format_pct(it->total.weight, it->all);
		break;
	case COL_SAMPLES:
		s = g_strdup_printf("%" G_GUINT64_FORMAT, it->total.samples);
		break;
	case COL_MODULE:
		gtk_label_set_text(l, it->module);
		return;
	case COL_FILE:
		s = item_file(it);
		break;
	}
	gtk_label_set_text(l, s);
}

static int cmp_u64(guint64 a, guint64 b)
{
	return a < b ? -1 : a > b;
}

static int compare_items(gconstpointer a, gconstpointer b, gpointer col)
{
	const PlFuncItem *x = a, *y = b;
	switch (GPOINTER_TO_INT(col)) {
	case COL_NAME:
		return g_strcmp0(x->name, y->name);
	case COL_SELF:
	case COL_SELF_PCT:
		return cmp_u64(x->self.weight, y->self.weight);
	case COL_TOTAL:
	case COL_TOTAL_PCT:
		return cmp_u64(x->total.weight, y->total.weight);
	case COL_SAMPLES:
		return cmp_u64(x->total.samples, y->total.samples);
	case COL_MODULE:
		return g_strcmp0(x->module, y->module);
	case COL_FILE: {
		g_autofree char *fx = item_file((PlFuncItem *)x), *fy = item_file((PlFuncItem *)y);
		return g_strcmp0(fx, fy);
	}
	}
	return 0;
}

static GtkColumnViewColumn *add_column(GtkColumnView *v, const char *title, int col,
				       gboolean sortable, gboolean expand)
{
	GtkListItemFactory *f = gtk_signal_list_item_factory_new();
	g_signal_connect(f, "setup", G_CALLBACK(setup_label), GINT_TO_POINTER(col));
	g_signal_connect(f, "bind", G_CALLBACK(bind_label), GINT_TO_POINTER(col));
	GtkColumnViewColumn *c = gtk_column_view_column_new(title, f);
	gtk_column_view_column_set_resizable(c, TRUE);
	gtk_column_view_column_set_expand(c, expand);
	if (sortable) {
		GtkSorter *s = GTK_SORTER(gtk_custom_sorter_new(compare_items, GINT_TO_POINTER(col),
								NULL));
		gtk_column_view_column_set_sorter(c, s);
		g_object_unref(s);
	}
	gtk_column_view_append_column(v, c);
	g_object_unref(c);
	return c;
}

/* ─── callers / callees ──────────────────────────────────────────────── */

static void fill_store(PlFunctionTable *self, GListStore *store, GArray *rows)
{
	g_list_store_remove_all(store);
	for (guint i = 0; rows && i < rows->len; i++) {
		g_autoptr(PlFuncItem) it =
			item_new(self, &g_array_index(rows, PlRow, i), self->agg->all.weight);
		g_list_store_append(store, it);
	}
}

static void update_relatives(PlFunctionTable *self)
{
	if (!self->agg || self->selected == PL_NO_ID) {
		g_list_store_remove_all(self->callers);
		g_list_store_remove_all(self->callees);
		gtk_label_set_text(self->callers_title, "Callers");
		gtk_label_set_text(self->callees_title, "Callees");
		return;
	}
	g_autoptr(GArray) callers = pl_aggregate_callers(self->agg, self->selected);
	g_autoptr(GArray) callees = pl_aggregate_callees(self->agg, self->selected);
	fill_store(self, self->callers, callers);
	fill_store(self, self->callees, callees);
	const char *name = pl_function_names_label(self->profile, self->selected);
	g_autofree char *a = g_strdup_printf("Callers of %s", name);
	g_autofree char *b = g_strdup_printf("Callees of %s", name);
	gtk_label_set_text(self->callers_title, a);
	gtk_label_set_text(self->callees_title, b);
}

static void on_selection(GtkSingleSelection *sel, guint pos, guint n, PlFunctionTable *self)
{
	if (self->updating)
		return;
	PlFuncItem *it = gtk_single_selection_get_selected_item(sel);
	self->selected = it ? it->func : PL_NO_ID;
	update_relatives(self);
	if (it)
		g_signal_emit(self, signals[SIG_SELECTED], 0, it->func);
}

static void on_activate(GtkColumnView *v, guint pos, PlFunctionTable *self)
{
	g_autoptr(PlFuncItem) it = g_list_model_get_item(G_LIST_MODEL(self->selection), pos);
	if (it)
		g_signal_emit(self, signals[SIG_ACTIVATED], 0, it->func);
}

static void on_relative_activate(GtkColumnView *v, guint pos, PlFunctionTable *self)
{
	GtkSelectionModel *m = gtk_column_view_get_model(v);
	g_autoptr(PlFuncItem) it = g_list_model_get_item(G_LIST_MODEL(m), pos);
	if (it)
		pl_function_table_select(self, it->func);
}

/* A callers or callees list: its model and columns. */
static void relative_setup(GListStore *store, GtkColumnView *v)
{
	GtkSelectionModel *sel =
		GTK_SELECTION_MODEL(gtk_single_selection_new(G_LIST_MODEL(g_object_ref(store))));
	gtk_single_selection_set_autoselect(GTK_SINGLE_SELECTION(sel), FALSE);
	gtk_single_selection_set_can_unselect(GTK_SINGLE_SELECTION(sel), TRUE);
	gtk_column_view_set_model(v, sel);
	g_object_unref(sel);
	add_column(v, "Function", COL_NAME, FALSE, TRUE);
	add_column(v, "Weight", COL_TOTAL, FALSE, FALSE);
	add_column(v, "%", COL_TOTAL_PCT, FALSE, FALSE);
}

/* ─── public ─────────────────────────────────────────────────────────── */

GtkWidget *pl_function_table_new(void)
{
	return g_object_new(PL_TYPE_FUNCTION_TABLE, NULL);
}

void pl_function_table_set_data(PlFunctionTable *self, PlProfile *profile, PlAggregate *agg)
{
	guint32 keep = profile == self->profile ? self->selected : PL_NO_ID;
	self->profile = profile;
	self->agg = agg;
	self->updating = TRUE;
	g_list_store_remove_all(self->store);
	if (profile && agg) {
		g_autoptr(GArray) rows = pl_aggregate_functions(agg, FALSE);
		g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_object_unref);
		for (guint i = 0; i < rows->len; i++)
			g_ptr_array_add(items, item_new(self, &g_array_index(rows, PlRow, i),
							agg->all.weight));
		g_list_store_splice(self->store, 0, 0, items->pdata, items->len);
	}
	self->updating = FALSE;
	self->selected = PL_NO_ID;
	if (keep == PL_NO_ID || !pl_function_table_select(self, keep)) {
		gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
		update_relatives(self);
	}
}

gboolean pl_function_table_select(PlFunctionTable *self, guint32 func)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	GListModel *m = G_LIST_MODEL(self->selection);
	guint n = g_list_model_get_n_items(m);
	for (guint i = 0; i < n; i++) {
		g_autoptr(PlFuncItem) it = g_list_model_get_item(m, i);
		if (it->func == func) {
			gtk_single_selection_set_selected(self->selection, i);
			self->selected = func;
			update_relatives(self);
			/* scroll: focus the row (GTK 4.8 has no scroll_to) */
			for (GtkWidget *c = gtk_widget_get_first_child(GTK_WIDGET(self->view)); c;
			     c = gtk_widget_get_next_sibling(c))
				if (GTK_IS_LIST_VIEW(c))
					gtk_widget_activate_action(c, "list.scroll-to-item", "u", i);
			return TRUE;
		}
	}
	return FALSE;
}

gboolean pl_function_table_get_row(PlFunctionTable *self, guint32 func, PlCount *self_count,
				   PlCount *total)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	GListModel *m = G_LIST_MODEL(self->store);
	for (guint i = 0; i < g_list_model_get_n_items(m); i++) {
		g_autoptr(PlFuncItem) it = g_list_model_get_item(m, i);
		if (it->func == func) {
			*self_count = it->self;
			*total = it->total;
			return TRUE;
		}
	}
	return FALSE;
}

guint pl_function_table_get_n_rows(PlFunctionTable *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return g_list_model_get_n_items(G_LIST_MODEL(self->store));
}

gboolean pl_function_table_get_row_at(PlFunctionTable *self, guint i, guint32 *func,
				      const char **name, PlCount *self_count, PlCount *total)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	g_autoptr(PlFuncItem) it = g_list_model_get_item(G_LIST_MODEL(self->store), i);
	if (!it)
		return FALSE;
	*func = it->func;
	*name = it->name;
	*self_count = it->self;
	*total = it->total;
	return TRUE;
}

guint32 pl_function_table_get_selected(PlFunctionTable *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->selected;
}

guint pl_function_table_get_n_callers(PlFunctionTable *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return g_list_model_get_n_items(G_LIST_MODEL(self->callers));
}

guint pl_function_table_get_n_callees(PlFunctionTable *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return g_list_model_get_n_items(G_LIST_MODEL(self->callees));
}

static void pl_function_table_dispose(GObject *obj)
{
	PlFunctionTable *self = PL_FUNCTION_TABLE(obj);
	if (self->session)
		g_object_remove_weak_pointer(G_OBJECT(self->session), (gpointer *)&self->session);
	self->session = NULL;
	/* the template's paned is this widget's child, not a box's */
	g_clear_pointer(&self->paned, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_FUNCTION_TABLE);
	g_clear_object(&self->store);
	g_clear_object(&self->callers);
	g_clear_object(&self->callees);
	G_OBJECT_CLASS(pl_function_table_parent_class)->dispose(obj);
}

static void pl_function_table_class_init(PlFunctionTableClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_function_table_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-function-table.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlFunctionTable, name)
	CHILD(paned);
	CHILD(view);
	CHILD(callers_view);
	CHILD(callers_title);
	CHILD(callees_view);
	CHILD(callees_title);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_activate);
	gtk_widget_class_bind_template_callback(wc, on_relative_activate);
	signals[SIG_SELECTED] = g_signal_new("function-selected", G_TYPE_FROM_CLASS(klass),
					     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
					     1, G_TYPE_UINT);
	signals[SIG_MENU] = g_signal_new("function-menu", G_TYPE_FROM_CLASS(klass),
					 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 3,
					 G_TYPE_UINT, G_TYPE_DOUBLE, G_TYPE_DOUBLE);
	signals[SIG_ACTIVATED] = g_signal_new("function-activated", G_TYPE_FROM_CLASS(klass),
					      G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
					      1, G_TYPE_UINT);
}

static void on_sort_begin(GtkSorter *s, GtkSorterChange change, PlFunctionTable *self)
{
	if (gtk_widget_get_mapped(GTK_WIDGET(self)))
		pl_ui_timing_begin("functions");
}

static void on_sort_done(GtkSorter *s, GtkSorterChange change, PlFunctionTable *self)
{
	if (gtk_widget_get_mapped(GTK_WIDGET(self)))
		pl_ui_timing_ready();
}

static void pl_function_table_init(PlFunctionTable *self)
{
	self->selected = PL_NO_ID;
	self->store = g_list_store_new(PL_TYPE_FUNC_ITEM);
	self->callers = g_list_store_new(PL_TYPE_FUNC_ITEM);
	self->callees = g_list_store_new(PL_TYPE_FUNC_ITEM);
	gtk_widget_init_template(GTK_WIDGET(self));

	GtkColumnViewColumn *name = add_column(self->view, "Function", COL_NAME, TRUE, TRUE);
	GtkColumnViewColumn *selfc = add_column(self->view, "Self", COL_SELF, TRUE, FALSE);
	add_column(self->view, "Self %", COL_SELF_PCT, TRUE, FALSE);
	add_column(self->view, "Total", COL_TOTAL, TRUE, FALSE);
	add_column(self->view, "Total %", COL_TOTAL_PCT, TRUE, FALSE);
	add_column(self->view, "Samples", COL_SAMPLES, TRUE, FALSE);
	add_column(self->view, "Module", COL_MODULE, TRUE, FALSE);
	GtkColumnViewColumn *file = add_column(self->view, "File", COL_FILE, TRUE, FALSE);
	gtk_column_view_column_set_fixed_width(file, 160);
	gtk_column_view_column_set_fixed_width(name, 320);

	GtkSorter *sorter = gtk_column_view_get_sorter(self->view);
	if (pl_ui_timing_enabled()) {
		/* a header clicked: timed from before the model sorts again (its
		 * handler comes later) to the frame after it did (after them all) */
		g_signal_connect(sorter, "changed", G_CALLBACK(on_sort_begin), self);
		g_signal_connect_after(sorter, "changed", G_CALLBACK(on_sort_done), self);
	}
	self->sorted = gtk_sort_list_model_new(G_LIST_MODEL(g_object_ref(self->store)),
					       g_object_ref(sorter));
	self->selection = gtk_single_selection_new(G_LIST_MODEL(self->sorted));
	gtk_single_selection_set_autoselect(self->selection, FALSE);
	gtk_single_selection_set_can_unselect(self->selection, TRUE);
	gtk_column_view_set_model(self->view, GTK_SELECTION_MODEL(self->selection));
	g_object_unref(self->selection);
	g_signal_connect(self->selection, "selection-changed", G_CALLBACK(on_selection), self);
	/* heaviest self first, as a report would show */
	gtk_column_view_sort_by_column(self->view, selfc, GTK_SORT_DESCENDING);

	relative_setup(self->callers, self->callers_view);
	relative_setup(self->callees, self->callees_view);
	update_relatives(self);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlFunctionTable *self)
{
	pl_function_table_set_data(self, NULL, NULL);
}

/* a row per function, sorted: made only while the table is shown */
static void update_from_session(GtkWidget *w)
{
	PlFunctionTable *self = PL_FUNCTION_TABLE(w);
	if (self->session)
		pl_function_table_set_data(self, pl_profile_session_get_profile(self->session),
					   pl_profile_session_get_aggregate(self->session));
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlFunctionTable *self)
{
	/* the rows hold their counts; the callers and callees of a selection
	 * made before the update read the aggregate there is */
	if (self->profile == pl_profile_session_get_profile(s))
		self->agg = pl_profile_session_get_aggregate(s);
	pl_lazy_page_update(GTK_WIDGET(self), update_from_session);
}

void pl_function_table_set_session(PlFunctionTable *self, PlProfileSession *session)
{
	self->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&self->session);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
