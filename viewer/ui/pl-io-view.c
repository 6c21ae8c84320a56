/* pl-io-view.c — the I/O page (see the header). */
#include "pl-io-view.h"
#include "pl-percent.h"

#include <string.h>

#include "pl-ui-util.h"
#include "pl-window-text.h"

#define SLOWEST_SHOWN 100
#define STACK_FRAMES 32

typedef struct {
	char *name;
	PlIoRow row;
} Row;

struct _PlIoView {
	GtkBox parent_instance;
	GtkLabel *summary;
	GtkGrid *table;
	GtkWidget *hist;
	PlFlameGraph *flame;
	GtkListBox *slowest;
	GtkLabel *stack;

	PlProfile *profile;
	GArray *all;      /* PlSlowCall, the profile's, time order */
	PlFilter window; /* the window's filter, as last set */
	PlFilter filter; /* the page's: the window's, less a range that is one call's */
	GArray *calls;    /* PlSlowCall, those the filter lets through, time order */
	GArray *sorted;   /* PlSlowCall, the same, slowest first */
	PlSlowCall shown; /* the call whose stack is shown, when have_shown */
	gboolean have_shown;
	GPtrArray *rows;  /* Row*, by total blocked time */
	PlAggregate *agg; /* the flame graph's, freed after it lets go */
	guint hist_count[64];
	guint hist_lo, hist_hi;
};

G_DEFINE_FINAL_TYPE(PlIoView, pl_io_view, GTK_TYPE_BOX)

enum { SIG_RANGE, N_SIGNALS };
static guint signals[N_SIGNALS];

static void row_free(gpointer p)
{
	Row *r = p;
	g_free(r->name);
	g_free(r);
}

static char *call_name(PlProfile *p, guint64 nr)
{
	const char *n = pl_syscall_name(pl_profile_get_e_machine(p), nr);
	return n ? g_strdup(n) : g_strdup_printf("syscall %" G_GUINT64_FORMAT, nr);
}

static gint by_duration_desc(gconstpointer a, gconstpointer b)
{
	const PlSlowCall *x = a, *y = b;
	if (x->duration_ns != y->duration_ns)
		return x->duration_ns < y->duration_ns ? 1 : -1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static gint row_cmp(gconstpointer a, gconstpointer b)
{
	const Row *x = *(Row *const *)a, *y = *(Row *const *)b;
	if (x->row.total_ns != y->row.total_ns)
		return x->row.total_ns < y->row.total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static char *ms(guint64 ns)
{
	return g_strdup_printf("%.3f", (double)ns / 1e6);
}

/* ─── the table by system call ───────────────────────────────────────── */

static void compute_rows(PlIoView *self)
{
	g_autoptr(GHashTable) by_nr = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
							    (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < self->calls->len; i++) {
		const PlSlowCall *c = &g_array_index(self->calls, PlSlowCall, i);
		GArray *d = g_hash_table_lookup(by_nr, &c->nr);
		if (!d) {
			d = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(by_nr, g_memdup2(&c->nr, sizeof(c->nr)), d);
		}
		g_array_append_val(d, c->duration_ns);
	}
	GHashTableIter it;
	gpointer k, v;
	g_hash_table_iter_init(&it, by_nr);
	while (g_hash_table_iter_next(&it, &k, &v)) {
		GArray *d = v;
		g_array_sort(d, pl_cmp_u64);
		const guint64 *x = (const guint64 *)(gpointer)d->data;
		Row *r = g_new0(Row, 1);
		r->name = call_name(self->profile, *(guint64 *)k);
		r->row.count = d->len;
		for (guint i = 0; i < d->len; i++)
			r->row.total_ns += x[i];
		r->row.max_ns = x[d->len - 1];
		r->row.p50_ns = pl_percentile(x, d->len, 50);
		r->row.p99_ns = pl_percentile(x, d->len, 99);
		g_ptr_array_add(self->rows, r);
	}
	g_ptr_array_sort(self->rows, row_cmp);
}

static void cell(PlIoView *self, int col, int row, const char *text, gboolean head)
{
	GtkWidget *l = gtk_label_new(text);
	gtk_label_set_xalign(GTK_LABEL(l), col == 0 ? 0 : 1);
	if (head)
		gtk_widget_add_css_class(l, "heading");
	else if (col)
		gtk_widget_add_css_class(l, "numeric");
	gtk_grid_attach(self->table, l, col, row, 1, 1);
}

static void fill_table(PlIoView *self)
{
	GtkWidget *c;
	while ((c = gtk_widget_get_first_child(GTK_WIDGET(self->table))))
		gtk_grid_remove(self->table, c);
	static const char *const heads[] = { "System call", "Calls", "Total ms", "Max ms",
					     "p50 ms", "p99 ms" };
	for (guint i = 0; i < G_N_ELEMENTS(heads); i++)
		cell(self, (int)i, 0, heads[i], TRUE);
	for (guint i = 0; i < self->rows->len; i++) {
		const Row *r = self->rows->pdata[i];
		g_autofree char *n = g_strdup_printf("%u", r->row.count);
		g_autofree char *t = ms(r->row.total_ns), *m = ms(r->row.max_ns);
		g_autofree char *p5 = ms(r->row.p50_ns), *p9 = ms(r->row.p99_ns);
		const char *cols[] = { r->name, n, t, m, p5, p9 };
		for (guint k = 0; k < G_N_ELEMENTS(cols); k++)
			cell(self, (int)k, (int)i + 1, cols[k], FALSE);
	}
}

/* ─── latency histogram ──────────────────────────────────────────────── */

static char *bucket_label(guint b)
{
	double lo = (double)(1ull << b);
	return lo >= 1e9 ? g_strdup_printf("%.0f s", lo / 1e9)
	       : lo >= 1e6 ? g_strdup_printf("%.0f ms", lo / 1e6)
	       : lo >= 1e3 ? g_strdup_printf("%.0f µs", lo / 1e3)
			   : g_strdup_printf("%.0f ns", lo);
}

/* One bar per power of two of the duration, its count above it and its
 * lower bound below. */
static void draw_hist(GtkDrawingArea *a, cairo_t *cr, int w, int h, gpointer data)
{
	PlIoView *self = data;
	if (!self->calls || !self->calls->len)
		return;
	guint nb = self->hist_hi - self->hist_lo + 1, most = 1;
	for (guint b = self->hist_lo; b <= self->hist_hi; b++)
		most = MAX(most, self->hist_count[b]);
	gboolean dark = pl_ui_is_dark(GTK_WIDGET(a));
	PangoLayout *pl = gtk_widget_create_pango_layout(GTK_WIDGET(a), NULL);
	/* bars no wider than 64 px: a lone bucket is not a wall */
	double bw = MIN((double)w / nb, 64), top = 16, bottom = h - 18;
	for (guint i = 0; i < nb; i++) {
		guint b = self->hist_lo + i, n = self->hist_count[b];
		double bh = (bottom - top) * n / most;
		cairo_set_source_rgba(cr, 0.85, 0.25, 0.20, 0.85);
		cairo_rectangle(cr, i * bw + 3, bottom - bh, bw - 6, bh);
		cairo_fill(cr);
		double g = dark ? 0.9 : 0.15;
		cairo_set_source_rgb(cr, g, g, g);
		g_autofree char *cnt = g_strdup_printf("%u", n);
		g_autofree char *lbl = bucket_label(b);
		pl_ui_show_text(cr, pl, cnt, (i + 0.5) * bw, bottom - bh - 15, 0.5);
		pl_ui_show_text(cr, pl, lbl, (i + 0.5) * bw, bottom + 2, 0.5);
	}
	g_object_unref(pl);
}

static void compute_hist(PlIoView *self)
{
	memset(self->hist_count, 0, sizeof(self->hist_count));
	self->hist_lo = 63;
	self->hist_hi = 0;
	for (guint i = 0; i < self->calls->len; i++) {
		guint64 d = g_array_index(self->calls, PlSlowCall, i).duration_ns;
		guint b = d ? 63 - (guint)__builtin_clzll(d) : 0;
		self->hist_count[b]++;
		self->hist_lo = MIN(self->hist_lo, b);
		self->hist_hi = MAX(self->hist_hi, b);
	}
}

/* ─── the slowest calls ──────────────────────────────────────────────── */

static char *stack_text(PlIoView *self, const PlSlowCall *c)
{
	GString *s = g_string_new(NULL);
	g_autoptr(GArray) f = pl_profile_dup_stack_functions(self->profile, c->stack, STACK_FRAMES);
	for (guint i = 0; i < f->len; i++)
		g_string_append_printf(s, "%s%s", i ? "\n" : "",
				       pl_function_names_label(self->profile,
								     g_array_index(f, guint32, i)));
	if (!f->len)
		g_string_append(s, "(no stack)");
	return g_string_free(s, FALSE);
}

/* gtk_list_box_remove_all is GTK 4.12's; the rows only, the placeholder
 * stays */
static void empty_list(GtkListBox *b)
{
	GtkListBoxRow *r;
	while ((r = gtk_list_box_get_row_at_index(b, 0)))
		gtk_list_box_remove(b, GTK_WIDGET(r));
}

static void fill_slowest(PlIoView *self)
{
	empty_list(self->slowest);
	if (!self->profile)
		return;
	const PlProfileStats *st = pl_profile_get_stats(self->profile);
	for (guint i = 0; i < self->sorted->len && i < SLOWEST_SHOWN; i++) {
		const PlSlowCall *c = &g_array_index(self->sorted, PlSlowCall, i);
		PlThread *t = pl_profile_lookup_thread(self->profile, c->tid);
		g_autofree char *name = call_name(self->profile, c->nr);
		g_autoptr(GArray) f = pl_profile_dup_stack_functions(self->profile, c->stack, 0);
		/* the first frame of the program's own, past libc and the kernel
		 * entry, is rarely known here: the innermost three say enough */
		GString *where = g_string_new(NULL);
		for (guint k = 0; k < f->len && k < 3; k++)
			g_string_append_printf(where, "%s%s", k ? " < " : "",
					       pl_function_names_label(
						       self->profile, g_array_index(f, guint32, k)));
		g_autofree char *text = g_strdup_printf(
			"%9.3f ms   %-16s  %s %u   at %.3f s   ret %" G_GINT64_FORMAT "   %s",
			(double)c->duration_ns / 1e6, name, t && t->name ? t->name : "?", c->tid,
			c->time >= st->first_time ? (double)(c->time - st->first_time) / 1e9 : 0.0,
			c->ret, where->str);
		g_string_free(where, TRUE);
		GtkWidget *l = gtk_label_new(text);
		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_label_set_ellipsize(GTK_LABEL(l), PANGO_ELLIPSIZE_END);
		gtk_widget_add_css_class(l, "monospace");
		gtk_list_box_append(self->slowest, l);
	}
}

static gboolean same_call(const PlSlowCall *a, const PlSlowCall *b)
{
	return a->time == b->time && a->tid == b->tid && a->nr == b->nr;
}

/* The row of the call whose stack is shown, selected again after the list
 * was filled anew. */
static void select_shown(PlIoView *self)
{
	for (guint i = 0; self->have_shown && i < self->sorted->len && i < SLOWEST_SHOWN; i++)
		if (same_call(&g_array_index(self->sorted, PlSlowCall, i), &self->shown)) {
			gtk_list_box_select_row(self->slowest,
						gtk_list_box_get_row_at_index(self->slowest, (int)i));
			return;
		}
}

void pl_io_view_activate_slowest(PlIoView *self, guint i)
{
	const PlSlowCall *c = pl_io_view_get_slowest(self, i);
	if (!c)
		return;
	/* a copy: the window answers the signal with set_filter, which fills
	 * the arrays and the list anew (the row clicked goes too) */
	self->shown = *c;
	self->have_shown = TRUE;
	g_autofree char *s = stack_text(self, &self->shown);
	gtk_label_set_text(self->stack, s);
	GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->slowest, (int)i);
	if (row && row != gtk_list_box_get_selected_row(self->slowest))
		gtk_list_box_select_row(self->slowest, row);
	guint64 t0 = self->shown.time, t1 = self->shown.time + self->shown.duration_ns;
	g_signal_emit(self, signals[SIG_RANGE], 0, t0, t1);
}

static void on_row_activated(GtkListBox *b, GtkListBoxRow *row, PlIoView *self)
{
	pl_io_view_activate_slowest(self, (guint)gtk_list_box_row_get_index(row));
}

/* ─── the window's filter ────────────────────────────────────────────── */

static gboolean filtering(const PlFilter *f)
{
	return f->tid || f->t0 || f->t1;
}

/* The rule the window's views aggregate samples by (pl-profile-aggregate.c):
 * the thread, and the entry in [t0, t1) (t1 0: no upper bound). */
static gboolean admits(const PlFilter *f, const PlSlowCall *c)
{
	if (f->tid && c->tid != f->tid)
		return FALSE;
	return c->time >= f->t0 && (!f->t1 || c->time < f->t1);
}

/* "N slow system calls, …" or, filtered, "N of M … in the selection": the
 * user sees why the numbers dropped and how to get the others back.  (A
 * picked call's range filters the other views only: said too.) */
static char *summary_text(PlIoView *self)
{
	guint64 total = 0;
	for (guint i = 0; i < self->calls->len; i++)
		total += g_array_index(self->calls, PlSlowCall, i).duration_ns;
	if (!filtering(&self->filter))
		return g_strdup_printf("%u slow system calls, %.3f ms blocked in all (the calls at "
				       "or over the agent's --slower-than threshold, each with its "
				       "stack at entry)%s",
				       self->calls->len, (double)total / 1e6,
				       self->window.t1 ? ".  The other views show the time of the "
							 "call selected below."
						       : "");
	g_autofree char *sel = pl_window_selection_text(self->profile, &self->filter);
	if (!self->calls->len)
		return g_strdup_printf("None of the %u slow system calls began in the selection — "
				       "%s.  Show everything brings them back.",
				       self->all->len, sel ? sel : "");
	return g_strdup_printf("%u of %u slow system calls began in the selection — %s: %.3f ms "
			       "blocked in them.  Only these count below; Show everything brings "
			       "back all %u.",
			       self->calls->len, self->all->len, sel ? sel : "", (double)total / 1e6,
			       self->all->len);
}

/* Every part of the page from the calls the filter lets through. */
static void refill(PlIoView *self)
{
	g_clear_pointer(&self->calls, g_array_unref);
	g_clear_pointer(&self->sorted, g_array_unref);
	g_ptr_array_set_size(self->rows, 0);
	self->calls = g_array_new(FALSE, TRUE, sizeof(PlSlowCall));
	gboolean shown_in = FALSE;
	for (guint i = 0; i < self->all->len; i++) {
		const PlSlowCall *c = &g_array_index(self->all, PlSlowCall, i);
		if (!admits(&self->filter, c))
			continue;
		g_array_append_val(self->calls, *c);
		shown_in |= self->have_shown && same_call(c, &self->shown);
	}
	if (!shown_in) {
		self->have_shown = FALSE;
		gtk_label_set_text(self->stack, "");
	}
	self->sorted = g_array_copy(self->calls);
	g_array_sort(self->sorted, by_duration_desc);
	compute_rows(self);
	compute_hist(self);
	g_autofree char *s = self->all->len ? summary_text(self) : g_strdup("");
	gtk_label_set_text(self->summary, s);
	fill_table(self);
	fill_slowest(self);
	select_shown(self);
	gtk_widget_queue_draw(self->hist);
	PlAggregate *old = self->agg;
	self->agg = self->profile ? pl_slow_calls_aggregate(self->profile, self->calls) : NULL;
	/* the flame graph copies what it lays out: the old one can go */
	pl_flame_graph_set_data(self->flame, self->profile, self->agg);
	if (old)
		pl_aggregate_free(old);
}

/* A range that is exactly one call's [entry, exit) (a click on its row
 * here, or on its bar in the timeline) picks that call: the other views
 * show its time, while the page keeps its list whole, the call selected
 * and its stack shown, as a marker table keeps its rows when one is
 * picked.  A range the user drew is never one call's to the nanosecond. */
static const PlSlowCall *picked(PlIoView *self, const PlFilter *w)
{
	for (guint i = 0; self->all && w->t1 && i < self->all->len; i++) {
		const PlSlowCall *c = &g_array_index(self->all, PlSlowCall, i);
		if (c->time == w->t0 && c->time + c->duration_ns == w->t1 && (!w->tid || c->tid == w->tid))
			return c;
	}
	return NULL;
}

static void apply_filter(PlIoView *self)
{
	const PlSlowCall *c = picked(self, &self->window);
	self->filter = self->window;
	if (c) {
		self->filter.t0 = self->filter.t1 = 0;
		self->shown = *c;
		self->have_shown = TRUE;
		g_autofree char *s = stack_text(self, c);
		gtk_label_set_text(self->stack, s);
	}
	if (self->all)
		refill(self);
}

void pl_io_view_set_filter(PlIoView *self, const PlFilter *filter)
{
	if (self->window.tid == filter->tid && self->window.t0 == filter->t0 &&
	    self->window.t1 == filter->t1)
		return;
	self->window.tid = filter->tid;
	self->window.t0 = filter->t0;
	self->window.t1 = filter->t1;
	apply_filter(self);
}

/* ─── the profile ────────────────────────────────────────────────────── */

static void clear(PlIoView *self)
{
	pl_flame_graph_set_data(self->flame, NULL, NULL);
	g_clear_pointer(&self->agg, pl_aggregate_free);
	g_clear_pointer(&self->all, g_array_unref);
	g_clear_pointer(&self->calls, g_array_unref);
	g_clear_pointer(&self->sorted, g_array_unref);
	g_ptr_array_set_size(self->rows, 0);
	self->have_shown = FALSE;
	self->profile = NULL;
}

/* hidden in its stack (the window's views) while there is nothing to show */
static void show_page(PlIoView *self, gboolean visible)
{
	GtkWidget *parent = gtk_widget_get_parent(GTK_WIDGET(self));
	if (GTK_IS_STACK(parent))
		gtk_stack_page_set_visible(gtk_stack_get_page(GTK_STACK(parent), GTK_WIDGET(self)),
					   visible);
}

void pl_io_view_set_profile(PlIoView *self, PlProfile *profile)
{
	clear(self);
	self->profile = profile;
	self->all = profile ? pl_slow_calls_new(profile)
			    : g_array_new(FALSE, TRUE, sizeof(PlSlowCall));
	gtk_label_set_text(self->stack, "");
	show_page(self, self->all->len > 0);
	apply_filter(self);
}

guint pl_io_view_get_n_calls(PlIoView *self)
{
	return self->calls ? self->calls->len : 0;
}

guint pl_io_view_get_n_all(PlIoView *self)
{
	return self->all ? self->all->len : 0;
}

const char *pl_io_view_get_summary(PlIoView *self)
{
	return gtk_label_get_text(self->summary);
}

guint pl_io_view_get_n_in_histogram(PlIoView *self)
{
	guint n = 0;
	for (guint b = 0; b < G_N_ELEMENTS(self->hist_count); b++)
		n += self->hist_count[b];
	return n;
}

guint pl_io_view_get_n_listed(PlIoView *self)
{
	guint n = 0;
	for (GtkWidget *c = gtk_widget_get_first_child(GTK_WIDGET(self->slowest)); c;
	     c = gtk_widget_get_next_sibling(c))
		n += GTK_IS_LIST_BOX_ROW(c);
	return n;
}

gboolean pl_io_view_get_row(PlIoView *self, const char *name, PlIoRow *out)
{
	for (guint i = 0; i < self->rows->len; i++) {
		const Row *r = self->rows->pdata[i];
		if (!strcmp(r->name, name)) {
			*out = r->row;
			return TRUE;
		}
	}
	return FALSE;
}

PlFlameGraph *pl_io_view_get_flame_graph(PlIoView *self)
{
	return self->flame;
}

const PlSlowCall *pl_io_view_get_slowest(PlIoView *self, guint i)
{
	return self->sorted && i < self->sorted->len && i < SLOWEST_SHOWN
		       ? &g_array_index(self->sorted, PlSlowCall, i)
		       : NULL;
}

const char *pl_io_view_get_stack_text(PlIoView *self)
{
	return gtk_label_get_text(self->stack);
}

/* ─── the widget ─────────────────────────────────────────────────────── */

GtkWidget *pl_io_view_new(void)
{
	return g_object_new(PL_TYPE_IO_VIEW, NULL);
}

static void pl_io_view_dispose(GObject *obj)
{
	PlIoView *self = PL_IO_VIEW(obj);
	if (self->flame)
		clear(self);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_IO_VIEW);
	g_clear_pointer(&self->rows, g_ptr_array_unref);
	G_OBJECT_CLASS(pl_io_view_parent_class)->dispose(obj);
}

static void pl_io_view_class_init(PlIoViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_io_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	g_type_ensure(PL_TYPE_FLAME_GRAPH);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-io-view.ui");
#define CHILD(name) gtk_widget_class_bind_template_child(wc, PlIoView, name)
	CHILD(summary);
	CHILD(table);
	CHILD(hist);
	CHILD(flame);
	CHILD(slowest);
	CHILD(stack);
#undef CHILD
	gtk_widget_class_bind_template_callback(wc, on_row_activated);
	signals[SIG_RANGE] = g_signal_new("range-selected", G_TYPE_FROM_CLASS(klass),
					  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
					  G_TYPE_UINT64, G_TYPE_UINT64);
}

static void pl_io_view_init(PlIoView *self)
{
	self->rows = g_ptr_array_new_with_free_func(row_free);
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(self->hist), draw_hist, self, NULL);
	GtkWidget *none = gtk_label_new("No slow call began in the selection");
	gtk_widget_add_css_class(none, "dim-label");
	gtk_list_box_set_placeholder(self->slowest, none);
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void on_session_profile(PlProfileSession *s, GParamSpec *ps, PlIoView *self)
{
	pl_io_view_set_profile(self, pl_profile_session_get_profile(s));
}

static void on_session_updated(PlProfileSession *s, PlIoView *self)
{
	on_session_profile(s, NULL, self);
}

static void on_session_aggregate(PlProfileSession *s, GParamSpec *ps, PlIoView *self)
{
	/* the page picks its own event: the thread and the range only */
	PlFilter f = pl_profile_session_get_filter(s);
	f.event = PL_NO_ID;
	pl_io_view_set_filter(self, &f);
}

void pl_io_view_set_session(PlIoView *self, PlProfileSession *session)
{
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_session_profile), self, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_session_updated), self, 0);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_session_aggregate), self,
				0);
}
