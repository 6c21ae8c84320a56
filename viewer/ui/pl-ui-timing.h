/* pl-ui-timing.h — the app's own frame and recompute times, printed when
 * the environment asks (PERFLENS_TIMING=1), for bench/scale-app.sh.
 *
 * Lines go to stderr, one per event, each starting "perflens-timing: ":
 *   shown REAL_S OPEN_MS   the first frame painted with a loaded profile's
 *                          flame graph laid out and the timeline drawn:
 *                          the wall clock then (seconds since the epoch, to
 *                          set against the launch) and ms since the open
 *   frame MS               one frame of the window's frame clock: its
 *                          layout and paint phases, as GTK ran them
 *   recompute WHAT MS      from an action (a flame-graph click or Escape, a
 *                          time range or thread, a search, a transform) to
 *                          the end of the first frame that shows its result
 * Without the variable every call is a test of one flag.  The state is
 * the process's (one window measured at a time); main thread only. */
#pragma once

#include <gtk/gtk.h>

gboolean pl_ui_timing_enabled(void);

/* Says whether the window shows a loaded profile (flame graph laid out). */
typedef gboolean (*PlUiTimingShown)(GtkWidget *window);

/* Measures the frames of window (from its realization on). */
void pl_ui_timing_watch(GtkWidget *window, PlUiTimingShown shown);

/* A file starts loading: "shown" is reported again for it. */
void pl_ui_timing_open(void);

/* An action starts a recompute named what (a static string). */
void pl_ui_timing_begin(const char *what);

/* The recompute's result is in the widgets: the next frame painted ends
 * it.  Nothing when no recompute is pending. */
void pl_ui_timing_ready(void);
