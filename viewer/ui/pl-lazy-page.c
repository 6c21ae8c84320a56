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
 * from the events' counts, which cost nothing.
 *
 * The window's pick (a thread, a time range) is followed the same way by
 * the pages that read events rather than samples (Interrupts, Block I/O,
 * Locks): one place decides "now or when shown" for the profile and the
 * pick alike, so a page shown after a pick never shows the one before. */
#include "pl-lazy-page.h"

typedef struct {
	PlProfileSession *session; /* weak: the window's, which outlives its pages */
	PlLazyPageSet set;         /* NULL: the page reads profiles itself */
	const char *const *events;
	PlProfile *pending;        /* grew while the page was not shown: read on map */
	PlLazyUpdate refresh;      /* NULL: the page does not follow the pick */
	PlFilter pick;
	gboolean pick_pending;     /* the pick changed while the page was not shown */
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

static void read_profile(LazyPage *lp, GtkWidget *page)
{
	lp->pending = NULL;
	lp->pick_pending = FALSE; /* set reads the pick as it is now */
	lp->set(page, pl_profile_session_get_profile(lp->session));
}

/* Whatever the page deferred while it was not shown. */
static void run_pending_page(LazyPage *lp, GtkWidget *page)
{
	if (!lp->session)
		return;
	if (lp->set && lp->pending && lp->pending == pl_profile_session_get_profile(lp->session))
		read_profile(lp, page);
	if (lp->refresh && lp->pick_pending) {
		lp->pick_pending = FALSE;
		lp->refresh(page);
	}
}

static void on_profile(PlProfileSession *s, GParamSpec *ps, GtkWidget *page)
{
	read_profile(g_object_get_data(G_OBJECT(page), KEY), page);
}

static void on_updated(PlProfileSession *s, GtkWidget *page)
{
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	PlProfile *p = pl_profile_session_get_profile(s);
	if (!p || gtk_widget_get_mapped(page)) {
		read_profile(lp, page);
		return;
	}
	lp->pending = p;
	pl_lazy_page_show(page, has_events(p, lp->events));
}

static void on_aggregate(PlProfileSession *s, GParamSpec *ps, GtkWidget *page)
{
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	PlFilter f = pl_profile_session_get_filter(s);
	if (!pl_filter_take_range(&lp->pick, &f))
		return;
	lp->pick_pending = TRUE;
	if (gtk_widget_get_mapped(page))
		run_pending_page(lp, page);
}

static void on_map(GtkWidget *page, gpointer data)
{
	run_pending_page(g_object_get_data(G_OBJECT(page), KEY), page);
}

static void lazy_free(gpointer data)
{
	LazyPage *lp = data;
	if (lp->session)
		g_object_remove_weak_pointer(G_OBJECT(lp->session), (gpointer *)&lp->session);
	g_free(lp);
}

/* page's LazyPage, made on the first follow (of either kind). */
static LazyPage *lazy_of(GtkWidget *page, PlProfileSession *session)
{
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	if (lp)
		return lp;
	lp = g_new0(LazyPage, 1);
	lp->pick = PL_FILTER_ALL;
	lp->session = session;
	g_object_add_weak_pointer(G_OBJECT(session), (gpointer *)&lp->session);
	g_object_set_data_full(G_OBJECT(page), KEY, lp, lazy_free);
	g_signal_connect(page, "map", G_CALLBACK(on_map), NULL);
	return lp;
}

void pl_lazy_page_follow(GtkWidget *page, PlProfileSession *session, PlLazyPageSet set_profile,
			 const char *const *events)
{
	LazyPage *lp = lazy_of(page, session);
	lp->set = set_profile;
	lp->events = events;
	g_signal_connect_object(session, "notify::profile", G_CALLBACK(on_profile), page, 0);
	g_signal_connect_object(session, "updated", G_CALLBACK(on_updated), page, 0);
}

void pl_lazy_page_follow_pick(GtkWidget *page, PlProfileSession *session, PlLazyUpdate refresh)
{
	LazyPage *lp = lazy_of(page, session);
	lp->refresh = refresh;
	/* the pick as it is now, read by the page's first profile */
	PlFilter f = pl_profile_session_get_filter(session);
	pl_filter_take_range(&lp->pick, &f);
	g_signal_connect_object(session, "notify::aggregate", G_CALLBACK(on_aggregate), page, 0);
}

const PlFilter *pl_lazy_page_get_pick(GtkWidget *page)
{
	static const PlFilter all = PL_FILTER_ALL;
	LazyPage *lp = g_object_get_data(G_OBJECT(page), KEY);
	return lp && lp->refresh ? &lp->pick : &all;
}

gboolean pl_lazy_page_has_pick(GtkWidget *page)
{
	const PlFilter *f = pl_lazy_page_get_pick(page);
	return f->tid || f->t0 || f->t1;
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
	LazyPage *lp = g_object_get_data(G_OBJECT(view), KEY);
	if (lp)
		run_pending_page(lp, view);
	Deferred *d = g_object_get_data(G_OBJECT(view), DEFER_KEY);
	if (d)
		run_pending(view, d);
}
