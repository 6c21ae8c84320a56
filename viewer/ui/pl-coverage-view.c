/* pl-coverage-view.c — symbol coverage (see the header). */
#include "pl-coverage-view.h"

#include <string.h>

#include "pl-ui-util.h"

#define PL_TYPE_COV_ITEM (pl_cov_item_get_type())
G_DECLARE_FINAL_TYPE(PlCovItem, pl_cov_item, PL, COV_ITEM, GObject)
struct _PlCovItem {
	GObject parent_instance;
	PlModuleReport *r;
	guint64 stopped;    /* samples whose stack stops short in this module */
	double stopped_pct; /* of the samples with user frames */
	PlUnwindStop stop;  /* the main reason */
};
G_DEFINE_FINAL_TYPE(PlCovItem, pl_cov_item, G_TYPE_OBJECT)
static void pl_cov_item_finalize(GObject *o)
{
	pl_module_report_free(PL_COV_ITEM(o)->r);
	G_OBJECT_CLASS(pl_cov_item_parent_class)->finalize(o);
}
static void pl_cov_item_class_init(PlCovItemClass *k)
{
	G_OBJECT_CLASS(k)->finalize = pl_cov_item_finalize;
}
static void pl_cov_item_init(PlCovItem *i)
{
}

/* A module without symbols where no address resolved costs nothing: only
 * what shows up in stacks, or a file the core has advice about, needs
 * attention.  A pseudo-module ([vdso], [kernel.kallsyms]) no stack went
 * through is not worth a warning even with advice (an agent that sent no
 * vDSO image). */
static gboolean row_good(const PlModuleReport *r)
{
	if (r->samples == 0 && r->module[0] == '[')
		return TRUE;
	return (r->has_symbols || r->samples == 0) && r->build_id_match && !r->problem;
}

struct _PlCoverageView {
	GtkWidget parent_instance;
	GtkWidget *box;
	GtkLabel *title, *summary;
	GtkWidget *settings_btn;
	GtkColumnView *columns;
	GListStore *store;
	char *key;
	guint n_problems;
	char *signature; /* of the rows shown: rebuild only when it changes */
};

G_DEFINE_FINAL_TYPE(PlCoverageView, pl_coverage_view, GTK_TYPE_WIDGET)

enum { SIG_EDIT, N_SIGNALS };
static guint signals[N_SIGNALS];

enum { C_MODULE, C_FOUND, C_SYMBOLS, C_LINES, C_CFI, C_BUILD_ID, C_ADDRS, C_STOPS, C_ADVICE };

static void col_setup(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	int c = GPOINTER_TO_INT(col);
	GtkWidget *l = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(l), c == C_ADDRS || c == C_STOPS ? 1 : 0);
	if (c == C_ADDRS || c == C_STOPS)
		gtk_widget_add_css_class(l, "numeric");
	if (c == C_ADVICE) {
		gtk_label_set_wrap(GTK_LABEL(l), TRUE);
		gtk_label_set_wrap_mode(GTK_LABEL(l), PANGO_WRAP_WORD_CHAR);
	} else {
		gtk_label_set_ellipsize(GTK_LABEL(l), c == C_MODULE || c == C_FOUND
							      ? PANGO_ELLIPSIZE_START
							      : PANGO_ELLIPSIZE_END);
	}
	gtk_list_item_set_child(li, l);
}

static void yes_no(GtkLabel *l, gboolean yes, const char *yes_text, const char *no_text)
{
	gtk_label_set_text(l, yes ? yes_text : no_text);
	if (!yes)
		gtk_widget_add_css_class(GTK_WIDGET(l), "pl-warning");
}

static void col_bind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer col)
{
	PlCovItem *it = gtk_list_item_get_item(li);
	const PlModuleReport *r = it->r;
	GtkLabel *l = GTK_LABEL(gtk_list_item_get_child(li));
	gtk_widget_remove_css_class(GTK_WIDGET(l), "pl-warning");
	gtk_widget_remove_css_class(GTK_WIDGET(l), "dim-label");
	gtk_widget_set_tooltip_text(GTK_WIDGET(l), NULL);
	switch (GPOINTER_TO_INT(col)) {
	case C_MODULE:
		gtk_label_set_text(l, r->module);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), r->module);
		break;
	case C_FOUND: {
		if (!r->local_path) {
			yes_no(l, FALSE, "", "not found here");
			break;
		}
		g_autofree char *s = r->debug_path ? g_strdup_printf("%s + %s", r->local_path,
								       r->debug_path)
						   : g_strdup(r->local_path);
		/* files a debuginfod server gave: which one */
		g_autofree char *shown = r->fetched_from ? g_strdup_printf("%s (debuginfod)", s)
							 : g_strdup(s);
		g_autofree char *tip = r->fetched_from ? g_strdup_printf("%s\nfrom debuginfod: %s", s,
									 r->fetched_from)
						       : g_strdup(s);
		gtk_label_set_text(l, shown);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), tip);
		break;
	}
	case C_SYMBOLS:
		yes_no(l, r->has_symbols, "yes", "no");
		break;
	case C_LINES:
		yes_no(l, r->has_lines, "yes", "no");
		break;
	case C_CFI:
		yes_no(l, r->has_cfi || r->has_ehabi, r->has_cfi ? "yes" : "EHABI", "no");
		break;
	case C_BUILD_ID:
		if (!r->local_path) {
			/* nothing here to compare with */
			gtk_label_set_text(l, "—");
			gtk_widget_add_css_class(GTK_WIDGET(l), "dim-label");
			break;
		}
		yes_no(l, r->build_id_match, "matches", "MISMATCH");
		break;
	case C_ADDRS: {
		char buf[32];
		g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT, r->samples);
		gtk_label_set_text(l, buf);
		break;
	}
	case C_STOPS: {
		if (!it->stopped) {
			gtk_label_set_text(l, "—");
			gtk_widget_add_css_class(GTK_WIDGET(l), "dim-label");
			break;
		}
		char buf[64];
		g_snprintf(buf, sizeof buf, "%" G_GUINT64_FORMAT " (%.1f%%)", it->stopped,
			   it->stopped_pct);
		gtk_label_set_text(l, buf);
		gtk_widget_set_tooltip_text(GTK_WIDGET(l), pl_unwind_stop_describe(it->stop));
		if (it->stopped_pct >= 1.0)
			gtk_widget_add_css_class(GTK_WIDGET(l), "pl-warning");
		break;
	}
	case C_ADVICE: {
		g_autofree char *a = r->problem ? pl_target_settings_advice(r->problem) : NULL;
		/* the file is fine, but stacks stop in it: say why */
		const char *why = !a && it->stopped_pct >= 1.0 ? pl_unwind_stop_describe(it->stop)
							      : NULL;
		gtk_label_set_text(l, a ? a : why ? why : row_good(r) ? "ok" : "");
		if (!r->problem && !why)
			gtk_widget_add_css_class(GTK_WIDGET(l), "dim-label");
		break;
	}
	}
}

GtkWidget *pl_coverage_view_new(void)
{
	return g_object_new(PL_TYPE_COVERAGE_VIEW, NULL);
}

static char *rows_signature(GPtrArray *rows, GArray *stops)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; stops && i < stops->len; i++) {
		const PlUnwindModule *u = &g_array_index(stops, PlUnwindModule, i);
		g_string_append_printf(s, "%s:%" G_GUINT64_FORMAT ":%d\n", u->module, u->stopped,
				       u->main_stop);
	}
	for (guint i = 0; i < rows->len; i++) {
		const PlModuleReport *r = rows->pdata[i];
		g_string_append_printf(s, "%s|%s|%d%d%d%d%d|%" G_GUINT64_FORMAT "|%s\n", r->module,
				       r->local_path ? r->local_path : "", r->has_symbols,
				       r->has_lines, r->has_cfi, r->has_ehabi, r->build_id_match,
				       r->samples, r->problem ? r->problem : "");
	}
	return g_string_free(s, FALSE);
}

void pl_coverage_view_set_profile(PlCoverageView *self, PlProfile *p)
{
	g_autoptr(GPtrArray) rows = p ? pl_symbols_coverage(pl_profile_get_symbols(p))
				      : g_ptr_array_new();
	const PlProfileStats *st = p ? pl_profile_get_stats(p) : NULL;
	g_free(self->key);
	self->key = g_strdup(st && st->hostname ? st->hostname : NULL);
	g_autoptr(GArray) stops = p ? pl_profile_dup_unwind_stops(p) : NULL;
	g_autofree char *sig = rows_signature(rows, stops);
	if (!g_strcmp0(sig, self->signature))
		return;
	g_free(self->signature);
	self->signature = g_steal_pointer(&sig);

	/* modules with problems first, then by addresses resolved */
	g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func(g_object_unref);
	guint no_syms = 0, mismatch = 0, advice = 0;
	self->n_problems = 0;
	for (int pass = 0; pass < 2; pass++)
		for (guint i = 0; i < rows->len; i++) {
			PlModuleReport *r = rows->pdata[i];
			if (!r || row_good(r) == !pass)
				continue;
			PlCovItem *it = g_object_new(PL_TYPE_COV_ITEM, NULL);
			it->r = r;
			const char *base = strrchr(r->module, '/');
			base = base ? base + 1 : r->module;
			for (guint k = 0; stops && k < stops->len; k++) {
				const PlUnwindModule *u = &g_array_index(stops, PlUnwindModule, k);
				if (strcmp(u->module, base) != 0)
					continue;
				it->stopped = u->stopped;
				it->stopped_pct = st->unwind_user_samples
							  ? 100.0 * (double)u->stopped /
								    (double)st->unwind_user_samples
							  : 0;
				it->stop = u->main_stop;
			}
			rows->pdata[i] = NULL; /* the item owns it now */
			g_ptr_array_add(items, it);
			if (!row_good(r)) {
				self->n_problems++;
				no_syms += !r->has_symbols || !r->local_path;
				mismatch += r->local_path && !r->build_id_match;
				advice += r->problem != NULL;
			}
		}
	g_list_store_splice(self->store, 0, g_list_model_get_n_items(G_LIST_MODEL(self->store)),
			    items->pdata, items->len);

	g_autofree char *title = g_strdup_printf("Symbols of %s", self->key ? self->key : "this session");
	gtk_label_set_text(self->title, title);
	g_autofree char *sum = NULL;
	if (!items->len)
		sum = g_strdup("No modules mapped yet: they appear as the recording maps them.");
	else if (!self->n_problems)
		sum = g_strdup_printf("All %u modules found here with symbols and matching build-ids.",
				      items->len);
	else {
		GString *w = g_string_new(NULL);
		g_string_append_printf(w, "⚠ %u of %u modules need attention", self->n_problems,
				       items->len);
		if (no_syms)
			g_string_append_printf(w, ", %u not found or without symbols", no_syms);
		if (mismatch)
			g_string_append_printf(w, ", %u with another build-id than the board's",
					       mismatch);
		g_string_append(w, ". Their frames show as [module] or raw addresses until the "
				   "right files are found: follow the advice per module in this "
				   "board's symbol settings (sysroot, binaries, debug dirs).");
		sum = g_string_free(w, FALSE);
	}
	if (st && st->unwind_user_samples) {
		char *u = g_strdup_printf("%s %.2f%% of %" G_GUINT64_FORMAT " stacks reach the start "
					  "of their program or thread%s",
					  sum, pl_profile_get_unwound_share(p),
					  st->unwind_user_samples,
					  st->unwind_rooted < st->unwind_user_samples
						  ? "; “Stacks stop here” says where the others end."
						  : ".");
		g_free(sum);
		sum = u;
	}
	gtk_label_set_text(self->summary, sum);
	if (self->n_problems)
		gtk_widget_add_css_class(GTK_WIDGET(self->summary), "pl-warning");
	else
		gtk_widget_remove_css_class(GTK_WIDGET(self->summary), "pl-warning");
	gtk_widget_set_sensitive(self->settings_btn, self->key != NULL);
}

guint pl_coverage_view_get_n_modules(PlCoverageView *self)
{
	return g_list_model_get_n_items(G_LIST_MODEL(self->store));
}

guint pl_coverage_view_get_n_problems(PlCoverageView *self)
{
	return self->n_problems;
}

const char *pl_coverage_view_get_first_advice(PlCoverageView *self)
{
	if (!g_list_model_get_n_items(G_LIST_MODEL(self->store)))
		return NULL;
	g_autoptr(PlCovItem) it = g_list_model_get_item(G_LIST_MODEL(self->store), 0);
	return row_good(it->r) ? NULL : it->r->problem; /* problems are sorted first */
}

gboolean pl_coverage_view_lookup(PlCoverageView *self, const char *name, gboolean *good,
				 const char **advice)
{
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->store));
	for (guint i = 0; i < n; i++) {
		g_autoptr(PlCovItem) it = g_list_model_get_item(G_LIST_MODEL(self->store), i);
		if (!g_str_has_suffix(it->r->module, name))
			continue;
		if (good)
			*good = row_good(it->r);
		if (advice)
			*advice = it->r->problem; /* owned by the item, kept by the store */
		return TRUE;
	}
	return FALSE;
}

static void on_settings(GtkButton *b, PlCoverageView *self)
{
	if (self->key)
		g_signal_emit(self, signals[SIG_EDIT], 0, self->key);
}

static void pl_coverage_view_dispose(GObject *obj)
{
	PlCoverageView *self = PL_COVERAGE_VIEW(obj);
	/* the template's box is this widget's child, not a box's */
	g_clear_pointer(&self->box, gtk_widget_unparent);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_COVERAGE_VIEW);
	g_clear_object(&self->store);
	g_clear_pointer(&self->key, g_free);
	g_clear_pointer(&self->signature, g_free);
	G_OBJECT_CLASS(pl_coverage_view_parent_class)->dispose(obj);
}

static void pl_coverage_view_class_init(PlCoverageViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_coverage_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(wc,
						    "/org/perflens/Viewer/pl-coverage-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlCoverageView, name)
	CHILD(box);
	CHILD(title);
	CHILD(settings_btn);
	CHILD(summary);
	CHILD(columns);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_settings);
	signals[SIG_EDIT] = g_signal_new("edit-settings", G_TYPE_FROM_CLASS(klass),
					 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
					 G_TYPE_STRING);
}

static void add_column(GtkColumnView *v, const char *title, int col, gboolean expand, int width)
{
	GtkListItemFactory *f = gtk_signal_list_item_factory_new();
	g_signal_connect(f, "setup", G_CALLBACK(col_setup), GINT_TO_POINTER(col));
	g_signal_connect(f, "bind", G_CALLBACK(col_bind), GINT_TO_POINTER(col));
	GtkColumnViewColumn *c = gtk_column_view_column_new(title, f);
	gtk_column_view_column_set_expand(c, expand);
	gtk_column_view_column_set_resizable(c, TRUE);
	if (width > 0)
		gtk_column_view_column_set_fixed_width(c, width);
	gtk_column_view_append_column(v, c);
	g_object_unref(c);
}

static void pl_coverage_view_init(PlCoverageView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	self->store = g_list_store_new(PL_TYPE_COV_ITEM);
	/* the column view takes the selection model */
	GtkNoSelection *sel = gtk_no_selection_new(G_LIST_MODEL(g_object_ref(self->store)));
	gtk_column_view_set_model(self->columns, GTK_SELECTION_MODEL(sel));
	g_object_unref(sel);
	GtkColumnView *v = self->columns;
	add_column(v, "Module (on the board)", C_MODULE, FALSE, 260);
	add_column(v, "File used here", C_FOUND, FALSE, 260);
	add_column(v, "Symbols", C_SYMBOLS, FALSE, 70);
	add_column(v, "Lines", C_LINES, FALSE, 60);
	add_column(v, "CFI", C_CFI, FALSE, 60);
	add_column(v, "Build-id", C_BUILD_ID, FALSE, 90);
	add_column(v, "Addresses", C_ADDRS, FALSE, 90);
	add_column(v, "Stacks stop here", C_STOPS, FALSE, 145);
	add_column(v, "What to do", C_ADVICE, TRUE, -1);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlCoverageView *self)
{
	pl_coverage_view_set_profile(self, pl_profile_session_get_profile(s));
}

static void on_session_updated(PlProfileSession *s, PlCoverageView *self)
{
	on_session_profile(s, NULL, self);
}

void pl_coverage_view_set_session(PlCoverageView *self, PlProfileSession *session)
{
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
}
