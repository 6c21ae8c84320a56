/* pl-locks-view.c — the Locks page (see the header). */
#include "pl-locks-view.h"

#include "pl-function-names.h"
#include "pl-lazy-page.h"

#define ROWS_SHOWN 200
#define STACK_FRAMES 16

struct _PlLocksView {
	GtkBox parent_instance;
	GtkLabel *summary;
	GtkListBox *list;
	GtkLabel *details;

	PlProfile *profile;
	guint n_trace; /* the profile's tracepoint events when the locks were read */
	PlLocks *locks;
	PlFilter read_with; /* the window's pick when the locks were read */
	PlFunctionNames *names; /* made when a lock is first shown */
};

G_DEFINE_FINAL_TYPE(PlLocksView, pl_locks_view, GTK_TYPE_BOX)

static const char *thread_name(PlProfile *p, guint32 tid)
{
	PlThread *t = tid ? pl_profile_lookup_thread(p, tid) : NULL;
	return t && t->name ? t->name : "?";
}

static void append_stack(PlLocksView *self, GString *s, guint32 stack)
{
	if (!self->names)
		self->names = pl_function_names_new(self->profile, NULL);
	if (stack == PL_NO_ID) {
		g_string_append(s, "      (no stack)\n");
		return;
	}
	guint32 node = pl_profile_get_stack_node(self->profile, stack);
	for (guint f = 0; f < STACK_FRAMES && node != 0 && node != PL_NO_ID; f++) {
		const PlNode *n = pl_profile_get_node(self->profile, node);
		g_string_append_printf(s, "      %s\n", pl_function_names_get(self->names, n->func));
		node = n->parent;
	}
}

/* ─── the details of one lock ────────────────────────────────────────── */

typedef struct {
	guint32 stack;
	guint64 ns;
} StackNs;

static gint stack_ns_cmp(gconstpointer a, gconstpointer b)
{
	const StackNs *x = a, *y = b;
	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static void show_lock(PlLocksView *self, guint index)
{
	if (!self->locks || index >= self->locks->locks->len) {
		gtk_label_set_text(self->details, "");
		return;
	}
	const PlLock *k = &g_array_index(self->locks->locks, PlLock, index);
	g_autofree char *label = pl_lock_dup_label(k);
	GString *s = g_string_new(NULL);
	g_string_append_printf(s, "%s%s%s, process %u\n%u waits (%u slept), %.3f ms waited, "
			       "max %.3f ms, %u wake calls on it\n\nWaiters\n",
			       label, k->module ? " in " : "", k->module ? k->module : "", k->pid,
			       k->waits, k->slept, k->total_ns / 1e6, k->max_ns / 1e6,
			       k->wake_calls);
	for (guint i = 0; i < k->waiters->len && i < ROWS_SHOWN; i++) {
		const PlLockHolder *h = &g_array_index(k->waiters, PlLockHolder, i);
		g_string_append_printf(s, "  %12.3f ms  %-16s %u\n", h->ns / 1e6,
				       thread_name(self->profile, h->tid), h->tid);
	}
	g_string_append(s, "\nHeld by (the wait time up to each wake call on it, charged to the "
			   "waker; its stack at the wake, innermost first)\n");
	for (guint i = 0; i < k->holders->len && i < ROWS_SHOWN; i++) {
		const PlLockHolder *h = &g_array_index(k->holders, PlLockHolder, i);
		if (!h->tid) {
			g_string_append_printf(s, "  %12.3f ms  no wake call seen in the wait\n",
					       h->ns / 1e6);
			continue;
		}
		g_string_append_printf(s, "  %12.3f ms  %-16s %u, %u wake calls\n", h->ns / 1e6,
				       thread_name(self->profile, h->tid), h->tid, h->wakes);
		append_stack(self, s, h->stack);
	}
	/* the waiters' stacks at entry, by time waited */
	g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(StackNs));
	g_autoptr(GHashTable) row_of = g_hash_table_new(NULL, NULL);
	for (guint i = 0; i < self->locks->waits->len; i++) {
		const PlLockWait *w = &g_array_index(self->locks->waits, PlLockWait, i);
		if (w->lock != index)
			continue;
		gpointer at;
		if (!g_hash_table_lookup_extended(row_of, GUINT_TO_POINTER(w->stack), NULL, &at)) {
			StackNs r = { w->stack, 0 };
			g_array_append_val(rows, r);
			at = GUINT_TO_POINTER(rows->len - 1);
			g_hash_table_insert(row_of, GUINT_TO_POINTER(w->stack), at);
		}
		g_array_index(rows, StackNs, GPOINTER_TO_UINT(at)).ns += w->end - w->start;
	}
	g_array_sort(rows, stack_ns_cmp);
	g_string_append(s, "\nWaiters' stacks at entry\n");
	for (guint i = 0; i < rows->len && i < ROWS_SHOWN; i++) {
		const StackNs *r = &g_array_index(rows, StackNs, i);
		g_string_append_printf(s, "  %12.3f ms\n", r->ns / 1e6);
		append_stack(self, s, r->stack);
	}
	g_string_append(s, "\nWait time (waits per power of two)\n");
	guint most = 0;
	for (guint b = 0; b < PL_LOCK_HIST; b++)
		most = MAX(most, k->hist[b]);
	for (guint b = 0; b < PL_LOCK_HIST && most; b++)
		if (k->hist[b])
			g_string_append_printf(s, "  %10.3f – %10.3f ms %7u  %.*s\n",
					       (double)(1ull << b) / 1e6, (double)(2ull << b) / 1e6,
					       k->hist[b], (int)(k->hist[b] * 40 / most),
					       "########################################");
	gtk_label_set_text(self->details, s->str);
	g_string_free(s, TRUE);
}

static void on_row_activated(GtkListBox *box, GtkListBoxRow *row, PlLocksView *self)
{
	show_lock(self, (guint)gtk_list_box_row_get_index(row));
}

/* ─── the profile ────────────────────────────────────────────────────── */

/* The waits of profile with the window's thread and range (pl-lazy-page.h). */
static void read_locks(PlLocksView *self, PlProfile *profile)
{
	guint n_trace = 0;
	if (profile)
		pl_profile_get_trace_events(profile, &n_trace);
	self->n_trace = n_trace;
	const PlFilter *pick = pl_lazy_page_get_pick(GTK_WIDGET(self));
	pl_filter_take_range(&self->read_with, pick);
	g_clear_pointer(&self->locks, pl_locks_free);
	g_clear_pointer(&self->names, pl_function_names_free);
	GtkWidget *c;
	while ((c = gtk_widget_get_first_child(GTK_WIDGET(self->list))))
		gtk_list_box_remove(self->list, c);
	gtk_label_set_text(self->details, "");
	self->profile = profile;
	gboolean filtered = pl_lazy_page_has_pick(GTK_WIDGET(self));
	if (profile)
		self->locks = pl_locks_new_filtered(profile, pick);
	guint n = self->locks ? self->locks->locks->len : 0;
	/* a pick of a thread without waits empties the page, never hides
	 * the tab the user is on */
	pl_lazy_page_show(GTK_WIDGET(self), self->locks && (self->locks->waits->len > 0 ||
							    (filtered && self->locks->recorded)));
	if (!self->locks) {
		gtk_label_set_text(self->summary, "");
		return;
	}
	guint64 total = 0;
	for (guint i = 0; i < n; i++) {
		const PlLock *k = &g_array_index(self->locks->locks, PlLock, i);
		total += k->total_ns;
		if (i >= ROWS_SHOWN)
			continue;
		g_autofree char *label = pl_lock_dup_label(k);
		g_autofree char *text = g_strdup_printf("%s  pid %u\n%u waits, %.3f ms, max %.3f ms",
							label, k->pid, k->waits, k->total_ns / 1e6,
							k->max_ns / 1e6);
		GtkWidget *l = gtk_label_new(text);
		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_widget_set_margin_top(l, 3);
		gtk_widget_set_margin_bottom(l, 3);
		gtk_list_box_append(self->list, l);
	}
	g_autofree char *sum = g_strdup_printf(
		"%u locks, %u futex waits, %.3f ms waited in all%s%s%s", n, self->locks->waits->len,
		total / 1e6,
		filtered ? " (the selected thread's and time range's waits)" : "",
		n > ROWS_SHOWN ? " (the first 200 listed)" : "",
		self->locks->recorded ? "" : " — this recording has no futex events: record with "
					     "“Lock contention” ticked");
	gtk_label_set_text(self->summary, sum);
	if (n) {
		gtk_list_box_select_row(self->list, gtk_list_box_get_row_at_index(self->list, 0));
		show_lock(self, 0);
	}
}

void pl_locks_view_set_profile(PlLocksView *self, PlProfile *profile)
{
	/* a live profile grows often: read again only when it has new
	 * tracepoint events (the futex ones among them) */
	guint n_trace = 0;
	if (profile)
		pl_profile_get_trace_events(profile, &n_trace);
	PlFilter pick = self->read_with;
	gboolean new_pick = pl_filter_take_range(&pick, pl_lazy_page_get_pick(GTK_WIDGET(self)));
	if (profile && profile == self->profile && self->locks && n_trace == self->n_trace &&
	    !new_pick)
		return;
	read_locks(self, profile);
}

const PlLocks *pl_locks_view_get_locks(PlLocksView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return self->locks;
}

void pl_locks_view_select(PlLocksView *self, guint i)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	GtkListBoxRow *row = gtk_list_box_get_row_at_index(self->list, (int)i);
	if (row)
		gtk_list_box_select_row(self->list, row);
	show_lock(self, i);
}

const char *pl_locks_view_get_summary(PlLocksView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return gtk_label_get_text(self->summary);
}

const char *pl_locks_view_get_details(PlLocksView *self)
{
	pl_lazy_page_flush(GTK_WIDGET(self));
	return gtk_label_get_text(self->details);
}

/* ─── the widget ─────────────────────────────────────────────────────── */

GtkWidget *pl_locks_view_new(void)
{
	return g_object_new(PL_TYPE_LOCKS_VIEW, NULL);
}

static void pl_locks_view_dispose(GObject *obj)
{
	PlLocksView *self = PL_LOCKS_VIEW(obj);
	g_clear_pointer(&self->locks, pl_locks_free);
	g_clear_pointer(&self->names, pl_function_names_free);
	gtk_widget_dispose_template(GTK_WIDGET(obj), PL_TYPE_LOCKS_VIEW);
	G_OBJECT_CLASS(pl_locks_view_parent_class)->dispose(obj);
}

static void pl_locks_view_class_init(PlLocksViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = pl_locks_view_dispose;
	GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
	gtk_widget_class_set_template_from_resource(wc, "/org/perflens/Viewer/pl-locks-view.ui");
	gtk_widget_class_bind_template_child(wc, PlLocksView, summary);
	gtk_widget_class_bind_template_child(wc, PlLocksView, list);
	gtk_widget_class_bind_template_child(wc, PlLocksView, details);
	gtk_widget_class_bind_template_callback(wc, on_row_activated);
}

static void pl_locks_view_init(PlLocksView *self)
{
	self->read_with = PL_FILTER_ALL;
	gtk_widget_init_template(GTK_WIDGET(self));
}

/* ─── the session (pl-profile-session.h) ─────────────────────────────── */

static void set_profile(GtkWidget *page, PlProfile *profile)
{
	pl_locks_view_set_profile(PL_LOCKS_VIEW(page), profile);
}

/* the thread and the range only: the futex waits are not samples of the
 * window's event */
static void refresh(GtkWidget *page)
{
	PlLocksView *self = PL_LOCKS_VIEW(page);
	if (self->profile)
		pl_locks_view_set_profile(self, self->profile);
}

void pl_locks_view_set_session(PlLocksView *self, PlProfileSession *session)
{
	pl_lazy_page_follow(GTK_WIDGET(self), session, set_profile, pl_locks_events());
	pl_lazy_page_follow_pick(GTK_WIDGET(self), session, refresh);
}
