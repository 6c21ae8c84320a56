/* pl-ui-script.h — drives the app through a scripted sequence, for tests.
 *
 * A script is a text file, one command per line ('#' starts a comment).
 * Commands act through the same widget API the user's clicks reach, wait
 * for the app to settle where needed (each with a deadline), and checks
 * print "ok NAME" or "not ok NAME: why" on stdout.  The app quits after
 * the last line (or "quit"); the exit status is 1 when a check failed.
 *
 *   open FILE                      load a session, wait until shown
 *   connect HOST:PORT [TOKEN]      connect, wait (fails on error)
 *   expect-connect-error HOST:PORT TOKEN WORD NAME   fails, the error names WORD
 *   wait-process COMM              until the board lists COMM
 *   filter TEXT | pick COMM        process list filter / selection
 *   frequency HZ | start | stop    session control (start waits for START's reply)
 *   record SECONDS                 keep recording, views refreshing
 *   expect-recording NAME          the session still records (it must not end by itself)
 *   expect-samples N NAME          the profile holds ≥ N samples
 *   expect-flame FUNC NAME         a frame FUNC is laid out in the flame graph
 *   expect-threads PREFIX N NAME   ≥ N timeline lanes whose thread name starts with PREFIX
 *   expect-callers FUNC NAME       FUNC selected in the table has callers
 *   source FUNC NAME               open FUNC's source; its hot line is in FUNC
 *   search REGEX NAME              flame search matches a positive share
 *   search-clear
 *   zoom FUNC | zoom-out | zoom-reset
 *   range F0 F1                    select the time range [F0, F1] (fractions of the session)
 *   range-busy SECONDS             the window of that length where the filtered thread ran most
 *   thread PREFIX | all            filter by the first thread named PREFIX, or clear
 *   view NAME | connect-view       show a view
 *   export-svg FILE NAME           write the flame graph as SVG
 *   hover FUNC FILE                move the X pointer over FUNC's frame (xdotool), then
 *                                  capture the screen with its tooltip (import)
 *   screenshot FILE                PNG of the window after it settled
 *   sleep SECONDS | quit
 */
#ifndef PL_UI_SCRIPT_H
#define PL_UI_SCRIPT_H

#include "pl-window.h"

void pl_ui_script_start(PlWindow *win, const char *path);
/* The process exit status: rc, or 1 when a scripted check failed. */
int pl_ui_script_exit_status(int rc);

#endif
