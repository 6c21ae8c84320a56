/* pl-lazy-page.c — pages that read a profile only while shown.
 *
 * A view that is not shown (another page of the window's stack) defers
 * what a new profile or aggregate asks of it until it is mapped: at ten
 * million samples each such pass over the samples costs the window
 * hundreds of milliseconds at open and after every filter change.
 *
 * A live recording grows every second; a page whose reading goes over
 * every event (the Interrupts and Block I/O pages pair them all) would
 * redo it each second while hidden.  It keeps the profile it has not read
 * and reads it when mapped; whether its tab is offered follows at once,
 * from the events' counts, which cost nothing. */
#include "pl-lazy-page.h"

typedef struct {
	PlLazyPageSet set;
	const char *const *events;
	PlProfile *pending; /* grew while the page was not shown: read on map */
} LazyPage;

#define KEY "pl-lazy-page"

void pl_lazy_page_show(GtkWidget *page, gboolean visible)
{
	GtkWidget *parent = gtk_widget_get_parent(page);
	if (GTK_IS_STACK(parent))
		gtk_stack_page_set_visible(gtk_stack_get_page(GTK_STACK(parent), page), visible);
}

/* Whether p holds a sample of any of the events. */
static gboolean has_events(PlProfile *p, const char *const *events)
{
	GPtrArray *evs = pl_profile_get_events(p);
	for (guint i = 0; evs && i < evs->len; i++) {
		const PlEvent *e = evs->pdata[i];
		for (guint k = 0; events[k]; k++)
			if (e->samples && !g_strcmp0(e->name, events[k]))
				return TRUE;
	}
	return FALSE;
}

static void on_profile(PlProfileSession *s, GParamSpec *ps, GtkWidget *page)
{
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	lp->pending = NULL;
	lp->set(page, pl_profile_session_get_profile(s));
}

static void on_updated(PlProfileSession *s, GtkWidget *page)
{
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	PlProfile *p = pl_profile_session_get_profile(s);
	if (!p || gtk_widget_get_mapped(page)) {
		on_profile(s, NULL, page);
		return;
	}
	lp->pending = p;
	pl_lazy_page_show(page, has_events(p, lp->events));
}

static void on_map(GtkWidget *page, PlProfileSession *s)
{
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	if (lp->pending && lp->pending == pl_profile_session_get_profile(s))
		on_profile(s, NULL, page);
}

void pl_lazy_page_follow(GtkWidget *page, PlProfileSession *session, PlLazyPageSet set_profile,
			 const char *const *events)
{
	LazyPage *lp = g_new0(LazyPage, 1);
	lp->set = set_profile;
	lp->events = events;
	g_object_set_data_full(G_OBJECT(page), KEY, lp, g_free);
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_profile), page, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_updated), page, 0);
	g_signal_connect_object(page, "map", G_CALLBACK(on_map), session, 0);
}

/* ─── deferred updates ───────────────────────────────────────────────── */

typedef struct {
	PlLazyUpdate update;
	gboolean pending;
} Deferred;

#define DEFER_KEY "pl-lazy-update"

static void run_pending(GtkWidget *view, Deferred *d)
{
	if (!d->pending)
		return;
	d->pending = FALSE;
	d->update(view);
}

static void on_deferred_map(GtkWidget *view, gpointer data)
{
	Deferred *d = g_object_get_data(G_OBJECT(view), DEFER_KEY);
	if (d)
		run_pending(view, d);
}

void pl_lazy_page_update(GtkWidget *view, PlLazyUpdate update)
{
	Deferred *d = g_object_get_data(G_OBJECT(view), DEFER_KEY);
	if (!d) {
		d = g_new0(Deferred, 1);
		g_object_set_data_full(G_OBJECT(view), DEFER_KEY, d, g_free);
		g_signal_connect(view, "map", G_CALLBACK(on_deferred_map), NULL);
	}
	d->update = update;
	d->pending = TRUE;
	if (gtk_widget_get_mapped(view))
		run_pending(view, d);
}

void pl_lazy_page_flush(GtkWidget *view)
{
	Deferred *d = g_object_get_data(G_OBJECT(view), DEFER_KEY);
	if (d)
		run_pending(view, d);
}
