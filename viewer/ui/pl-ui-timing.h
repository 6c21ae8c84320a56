/* pl-ui-timing.h — the app's own frame and recompute times, printed when
 * the environment asks (PERFLENS_TIMING=1), for bench/scale-app.sh and
 * bench/scale-app-interact.sh.
 *
 * Lines go to stderr, one per event, each starting "perflens-timing: ":
 *   shown REAL_S OPEN_MS   the first frame painted with a loaded profile's
 *                          flame graph laid out and the timeline drawn:
 *                          the wall clock then (seconds since the epoch, to
 *                          set against the launch) and ms since the open
 *   frame MS [VIEW…]       one frame of the window's frame clock: from the
 *                          flush of its input events (the pointer motions
 *                          and wheel turns it answers, delivered then) or,
 *                          with none, its before-paint phase, to the end
 *                          of its paint, as GTK ran them; then the watched
 *                          views (pl_ui_timing_watch_view) that had input
 *                          since the last frame or drew in this one.  Input
 *                          a watched view handled with nothing to draw
 *                          (the pointer within one flame-graph frame) is a
 *                          frame too, timed to the events' resumption
 *   recompute WHAT MS      from an action to the end of the first frame
 *                          that shows its result; WHAT is one of
 *                            click, escape   a flame-graph zoom in, out
 *                            range           a time range dragged (timeline,
 *                                            heatmap, I/O page)
 *                            thread          a thread picked or unpicked
 *                            filter          the pick cleared or set otherwise
 *                            search          the flame graph's search
 *                            transform       a call-tree transform pushed,
 *                                            removed or all reset
 *                            functions       the Functions table sorted again
 *                            source          a function's source opened
 * Without the variable every call is a test of one flag.  The state is
 * the process's (one window measured at a time); main thread only. */
#pragma once

#include <gtk/gtk.h>

gboolean pl_ui_timing_enabled(void);

/* Says whether the window shows a loaded profile (flame graph laid out). */
typedef gboolean (*PlUiTimingShown)(GtkWidget *window);

/* Measures the frames of window (from its realization on). */
void pl_ui_timing_watch(GtkWidget *window, PlUiTimingShown shown);

/* Names view (a static string) on the frames that answer its pointer
 * motions, wheel turns and drags, and the scrolling of the scrolled window
 * it sits in (event controllers and handlers added only when timing is
 * on).  A view's drawing calls pl_ui_timing_drew as well. */
void pl_ui_timing_watch_view(GtkWidget *view, const char *name);

/* A watched view named name (a static string) drew in this frame. */
void pl_ui_timing_drew(const char *name);

/* A file starts loading: "shown" is reported again for it. */
void pl_ui_timing_open(void);

/* An action starts a recompute named what (a static string). */
void pl_ui_timing_begin(const char *what);

/* The recompute's result is in the widgets: the next frame painted ends
 * it.  Nothing when no recompute is pending. */
void pl_ui_timing_ready(void);
