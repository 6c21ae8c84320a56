/* pl-ui-timing.c — frame and recompute times on request (see the header).
 *
 * The frame clock's "flush-events" lets the compressed pointer motions and
 * smooth wheel turns through (their handlers run before the paint idle:
 * hit tests, tooltips, a drag's band) and "before-paint" opens the frame
 * when there were none; "after-paint" closes it (layout, snapshot and
 * render lie between): what a user waits for after an input.  A recompute
 * is timed from its action to the close of the first frame after its
 * result reached the widgets. */
#include "pl-ui-timing.h"

#include <stdio.h>
#include <string.h>

static int enabled = -1; /* -1: the environment not read yet */

#define MAX_VIEWS 4

static struct {
	PlUiTimingShown shown;
	gint64 flush_start;  /* µs, monotonic: this frame's input flush; 0: none */
	gint64 frame_start;  /* µs, monotonic; 0: no frame open */
	gint64 open_start;   /* µs: the open being waited for; 0: none */
	const char *what;    /* the pending recompute, NULL: none */
	gint64 begin;        /* µs: its action */
	gboolean ready;      /* its result is in the widgets */
	const char *views[MAX_VIEWS]; /* named on the next frame */
	guint n_views;
} st;

gboolean pl_ui_timing_enabled(void)
{
	if (enabled < 0) {
		const char *v = g_getenv("PERFLENS_TIMING");
		enabled = v && *v && g_strcmp0(v, "0") != 0;
	}
	return enabled;
}

static void line(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void line(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("perflens-timing: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	fflush(stderr);
}

static void on_flush_events(GdkFrameClock *clock, gpointer data)
{
	if (!st.flush_start)
		st.flush_start = g_get_monotonic_time();
}

static void on_before_paint(GdkFrameClock *clock, gpointer data)
{
	st.frame_start = st.flush_start ? st.flush_start : g_get_monotonic_time();
	st.flush_start = 0;
}

static void frame_line(gint64 start, gint64 now)
{
	char views[MAX_VIEWS * 16] = "";
	for (guint i = 0; i < st.n_views; i++) {
		g_strlcat(views, " ", sizeof views);
		g_strlcat(views, st.views[i], sizeof views);
	}
	line("frame %.2f%s", (now - start) / 1000.0, views);
	st.n_views = 0;
}

/* The events the flush let through were handled and nothing was drawn
 * for them (a pointer moving within one frame of a flame graph, over a
 * tooltip's area): a frame of the clock all the same when a watched view
 * had them, timed to here; none for the others. */
static void on_resume_events(GdkFrameClock *clock, gpointer data)
{
	if (!st.flush_start || st.frame_start)
		return;
	if (st.n_views)
		frame_line(st.flush_start, g_get_monotonic_time());
	st.flush_start = 0;
}

static void on_after_paint(GdkFrameClock *clock, GtkWidget *window)
{
	gint64 now = g_get_monotonic_time();
	if (st.frame_start)
		frame_line(st.frame_start, now);
	st.frame_start = 0;
	if (st.open_start && st.shown && st.shown(window)) {
		line("shown %.3f %.1f", g_get_real_time() / 1e6, (now - st.open_start) / 1000.0);
		st.open_start = 0;
	}
	if (st.what && st.ready) {
		line("recompute %s %.2f", st.what, (now - st.begin) / 1000.0);
		st.what = NULL;
	}
}

static void on_realize(GtkWidget *window, gpointer data)
{
	GdkFrameClock *clock = gtk_widget_get_frame_clock(window);
	if (!clock)
		return;
	g_signal_connect_object(clock, "flush-events", G_CALLBACK(on_flush_events), window, 0);
	g_signal_connect_object(clock, "before-paint", G_CALLBACK(on_before_paint), window, 0);
	g_signal_connect_object(clock, "resume-events", G_CALLBACK(on_resume_events), window, 0);
	g_signal_connect_object(clock, "after-paint", G_CALLBACK(on_after_paint), window, 0);
}

void pl_ui_timing_watch(GtkWidget *window, PlUiTimingShown shown)
{
	if (!pl_ui_timing_enabled())
		return;
	st.shown = shown;
	if (gtk_widget_get_realized(window))
		on_realize(window, NULL);
	else
		g_signal_connect(window, "realize", G_CALLBACK(on_realize), NULL);
}

void pl_ui_timing_drew(const char *name)
{
	if (!pl_ui_timing_enabled())
		return;
	for (guint i = 0; i < st.n_views; i++)
		if (!strcmp(st.views[i], name))
			return;
	if (st.n_views < MAX_VIEWS)
		st.views[st.n_views++] = name;
}

static void on_view_motion(GtkEventControllerMotion *c, double x, double y, gpointer name)
{
	pl_ui_timing_drew(name);
}

static gboolean on_view_scroll(GtkEventControllerScroll *c, double dx, double dy, gpointer name)
{
	pl_ui_timing_drew(name);
	return FALSE; /* the view or its scrolled window handles it */
}

static void on_view_scrolled(GtkAdjustment *adj, gpointer name)
{
	pl_ui_timing_drew(name);
}

/* A scrolled window moves a view without drawing it again (and goes on
 * moving it for a while after a wheel turn): its frames are the view's. */
static void on_view_realize(GtkWidget *view, gpointer name)
{
	GtkWidget *sw = gtk_widget_get_ancestor(view, GTK_TYPE_SCROLLED_WINDOW);
	if (!sw || g_object_get_data(G_OBJECT(view), "pl-timing-scrolled"))
		return;
	g_object_set_data(G_OBJECT(view), "pl-timing-scrolled", sw);
	GtkScrolledWindow *s = GTK_SCROLLED_WINDOW(sw);
	/* the handler reads only the static name: no object to outlive */
	g_signal_connect(gtk_scrolled_window_get_vadjustment(s), "value-changed",
			 G_CALLBACK(on_view_scrolled), name);
	g_signal_connect(gtk_scrolled_window_get_hadjustment(s), "value-changed",
			 G_CALLBACK(on_view_scrolled), name);
}

void pl_ui_timing_watch_view(GtkWidget *view, const char *name)
{
	if (!pl_ui_timing_enabled())
		return;
	g_signal_connect(view, "realize", G_CALLBACK(on_view_realize), (gpointer)name);
	/* in the capture phase: before the view's own controllers, which may
	 * claim the events */
	GtkEventController *motion = gtk_event_controller_motion_new();
	gtk_event_controller_set_propagation_phase(motion, GTK_PHASE_CAPTURE);
	g_signal_connect(motion, "motion", G_CALLBACK(on_view_motion), (gpointer)name);
	gtk_widget_add_controller(view, motion);
	GtkEventController *scroll =
		gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
	gtk_event_controller_set_propagation_phase(scroll, GTK_PHASE_CAPTURE);
	g_signal_connect(scroll, "scroll", G_CALLBACK(on_view_scroll), (gpointer)name);
	gtk_widget_add_controller(view, scroll);
}

void pl_ui_timing_open(void)
{
	if (pl_ui_timing_enabled())
		st.open_start = g_get_monotonic_time();
}

void pl_ui_timing_begin(const char *what)
{
	if (!pl_ui_timing_enabled())
		return;
	st.what = what;
	st.begin = g_get_monotonic_time();
	st.ready = FALSE;
}

void pl_ui_timing_ready(void)
{
	if (!pl_ui_timing_enabled() || !st.what)
		return;
	st.ready = TRUE;
}
