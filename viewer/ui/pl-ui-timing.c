/* pl-ui-timing.c — frame and recompute times on request (see the header).
 *
 * The frame clock's "before-paint" opens a frame and "after-paint" closes
 * it (layout, snapshot and render lie between): what a user waits for
 * after an input.  A recompute is timed from its action to the close of
 * the first frame after its result reached the widgets. */
#include "pl-ui-timing.h"

#include <stdio.h>

static int enabled = -1; /* -1: the environment not read yet */

static struct {
	PlUiTimingShown shown;
	gint64 frame_start;  /* µs, monotonic; 0: no frame open */
	gint64 open_start;   /* µs: the open being waited for; 0: none */
	const char *what;    /* the pending recompute, NULL: none */
	gint64 begin;        /* µs: its action */
	gboolean ready;      /* its result is in the widgets */
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

static void on_before_paint(GdkFrameClock *clock, gpointer data)
{
	st.frame_start = g_get_monotonic_time();
}

static void on_after_paint(GdkFrameClock *clock, GtkWidget *window)
{
	gint64 now = g_get_monotonic_time();
	if (st.frame_start)
		line("frame %.2f", (now - st.frame_start) / 1000.0);
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
	g_signal_connect_object(clock, "before-paint", G_CALLBACK(on_before_paint), window, 0);
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
