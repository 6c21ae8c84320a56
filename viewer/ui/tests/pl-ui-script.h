/* pl-ui-script.h — drives the app through a scripted sequence, for tests.
 *
 * Test code only: built as the module BUILD/test/perflens-ui-script.so,
 * never linked into the app nor installed.  The UI tests run the app with
 * PERFLENS_UI_TEST_MODULE=that module and PERFLENS_UI_SCRIPT=FILE; the app
 * attaches the module (pl_ui_test_attach, viewer/ui/pl-ui-test-hook.h),
 * which runs FILE in every main window the app opens.  The module calls
 * the app module's exported functions (pl_window_…, the views'): it names
 * perflens-ui.so as a needed library, which the dynamic linker finds
 * already loaded by its soname.
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
 *   connect-timeout MS             how long connects may take (retries included)
 *   expect-second-connect-error HOST:PORT TOKEN WORD NAME
 *                                  a second viewer's connect fails (agent busy), naming WORD
 *   expect-symbols-note WORD NAME  the board page's line on the last session's symbols
 *   expect-facts WORD NAME         the board's facts (after connecting) say WORD
 *   expect-start-refused WORD NAME Start ends without recording, its error names WORD
 *   wait-process COMM              until the board lists COMM
 *   filter TEXT | pick COMM [PID]  process list filter / selection
 *   command ARGS…                  the command the board starts and records instead
 *   syscalls LIST [DUR]            the Record form's slow system calls (--syscalls, --slower-than)
 *   frequency HZ | start | stop    session control (start waits for START's reply)
 *   record SECONDS                 keep recording, views refreshing
 *   expect-recording NAME          the session still records (it must not end by itself)
 *   expect-samples N NAME          the profile holds ≥ N samples
 *   expect-flame FUNC NAME         a frame FUNC is laid out in the flame graph
 *   expect-threads PREFIX N NAME   ≥ N timeline lanes whose thread name starts with PREFIX
 *   thread-details PREFIX NEEDLE PNG NAME
 *                                  the right-click details of the last thread named
 *                                  PREFIX* with a creation stack contain NEEDLE; the
 *                                  popover is saved to PNG
 *   expect-callers FUNC NAME       FUNC selected in the table has callers
 *   source FUNC[@FILE] NAME        open FUNC's source (the one defined in a file FILE); once
 *                                  laid out, its hottest line is selected and in view
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
 *   sessions                       show the saved sessions, wait until listed and scanned
 *   expect-sessions N NAME         ≥ N sessions with target, process, date, duration, samples
 *   session-select TEXT            select the first session whose file name contains TEXT
 *   session-open TEXT NAME         open it (replayed into the views)
 *   session-rename TEXT NEW NAME | session-delete TEXT NAME
 *   expect-session-kept TEXT NAME  deleting it is refused (it is still recording)
 *   session-export TEXT FORMAT FILE NAME   as the Export… button (collapsed, pprof, svg,
 *                                  speedscope, perf-data, plens-symbolized)
 *   target-set FIELD VALUE         the open session's board settings: toolchain-prefix,
 *                                  sysroot, map-file, vmlinux, binary, debug-dir, source-dir,
 *                                  path-map (these four append), inline on|off
 *   target-clear | resymbolize     forget them / reload the session with the current ones
 *   target-dialog FILE             PNG of the board's symbol settings dialog
 *   expect-function FUNC yes|no NAME       FUNC is (not) in the profile
 *   expect-coverage MODULE good|problem NAME   the Symbols page's row for MODULE
 *   diff TEXT NAME                 compare the open session with the saved one named *TEXT*
 *                                  (TEXT$: ending so); the diff has rows
 *   expect-health N NAME           the Health page draws ≥ N graphs
 *   sleep SECONDS | quit
 * The call-tree transforms (pl-ui-script-transforms.c):
 *   transform KIND FUNC            the frame menu's item of KIND (merge, focus, …) for
 *                                  FUNC (its widest frame in the flame graph, for a
 *                                  subtree), activated as a click on it does
 *   menu-shot flame|functions FUNC FILE NAME
 *                                  right click on FUNC's frame (xdotool; the pointer then
 *                                  onto the menu) or its table row (the row's signal); the
 *                                  window with the menu open to FILE (each as GTK draws
 *                                  it, laid together by composite), the menu closed again
 *   expect-flame-root FUNC NAME    every frame right above "all" is FUNC
 *   expect-flame-top FUNC NAME     the widest frame right above "all" is FUNC
 *   expect-flame-absent FUNC NAME  no frame FUNC in the flame graph
 *   expect-table FUNC present|absent NAME  FUNC's row in the function table
 *   note-self FUNC | expect-self-grew FUNC NAME   its self weight, then more than noted
 *   expect-chart FUNC present|absent NAME  a span of FUNC in the flame chart
 *   expect-thread-samples PREFIX zero|some NAME   the samples the timeline's details
 *                                  count for the first thread named PREFIX*
 *   expect-crumbs N NAME           N breadcrumbs above the views
 *   expect-crumb I NAME TEXT…      breadcrumb I says exactly TEXT
 *   remove-crumb I | reset-crumbs  click crumb I's × / Reset
 *   inverted on|off                the flame page's Inverted toggle
 * What the window says (pl-ui-script-labels.c):
 *   expect-label NAME TEXT…        a label drawn in the window holds TEXT
 * The Source tab (pl-ui-script-source.c; addr2line is the oracle):
 *   expect-source-hottest NAME     the tab shown with nothing chosen shows the hottest
 *                                  function with source, its hot line in view
 *   source-click-line NAME         click (xdotool) the hot source line: the disassembly
 *                                  marks exactly the instructions on that line
 *   source-click-insn NAME         click the hottest instruction: the source shows its
 *                                  line selected, in view
 * Slow system calls (pl-ui-script-io.c; "# io-…" lines say what was seen):
 *   start-wait-end NAME            Start, then wait for the session to end by itself
 *   expect-io SYSCALL NAME         the I/O page is shown; its row for SYSCALL counts every
 *                                  call, the flame graph's root weighs its total, the
 *                                  timeline draws one bar per call
 *   expect-io-hidden NAME          the I/O page is hidden (no slow calls)
 *   io-click-slowest NEEDLE NAME   a click (X) on the slowest call's row selects its
 *                                  [entry, exit] in every view; its stack shown holds
 *                                  NEEDLE; the page then shows that call, its row selected
 *   io-click-bar NAME              a click on the slowest call's bar in the timeline does
 *                                  the same; the page checked as io-sel (below)
 * The page under the window's filter, each through X (xdotool) and then
 * checked as io-sel: "# io-sel NAME TID T0 T1 SHOWN ALL" for the test's
 * oracle, and the page's row, flame graph root, histogram and list agree
 * with SHOWN, its first line "N of M slow system calls …" when filtered:
 *   io-drag F0 F1 NAME             drag across the main thread's lane, F0 to F1 of the session
 *   io-click-thread main|other NAME   click that thread's name (again: all threads)
 *   io-clear NAME                  click "Show everything"
 * Functions of one name (pl-ui-script-names.c; LABEL is the rest of the
 * line, "helper (a.c)"; "transform KIND LABEL…" takes such a label too):
 *   expect-rows-distinct NAME      no two rows of the Functions table read the same
 *   expect-row NAME SAMPLES|absent LABEL…   one row shows LABEL, with SAMPLES self
 *                                  samples ("# row …" says what it has); or none
 *   expect-flame-label NAME present|absent LABEL…   a flame graph frame so labelled
 * Save now (pl-ui-script-flight.c; "# flight saved PATH" once open):
 *   flight-save HOST:PORT TOKEN DIR NAME   the header's Save now…, the form filled
 *                                  (TOKEN "-": none), its Save now clicked: the
 *                                  snapshot saved in DIR opens in the window
 *   flight-shortcut NAME           Ctrl+Shift+S's action (checked bound): the same
 *                                  recorder saves again at once, the new file opens
 *   expect-flight-error HOST:PORT TOKEN WORD NAME   Save now fails, the dialog says WORD
 *   flight-dialog-shot FILE        PNG of the Save now dialog
 * The Fleet page (pl-ui-script-fleet.c; "-" for an empty field):
 *   fleet-show URL CRED WHERE AGAINST SINCE NAME   the form filled ("=": a field kept),
 *                                  Show clicked, the answer shown ("# fleet total NAME A B",
 *                                  "# fleet labels KEY=VALUE…")
 *   fleet-pick KEY=VALUE NAME      a click on that label's link: Labels holds it
 *   expect-fleet-error URL CRED WHERE WORD NAME    Show fails, the page says WORD
 *   fleet-dump NAME                "# fleet-row SELF TOTAL<TAB>FUNCTION<TAB>MODULE"
 *   fleet-diff-dump NAME           "# fleet-diff DELTA<TAB>LABEL", the diff shown
 *   fleet-page flame|functions|boards|diff   bring that page of the Fleet page forward
 *   fleet-rank FUNC NAME           FUNC's row of the Functions page activated: the Boards
 *                                  page ranks the boards ("# fleet-rank-row SAMPLES TOTAL
 *                                  SELF SESSIONS VALUE", and "# fleet-rank-shown TEXT"
 *                                  per row as the page shows it)
 *   fleet-open VALUE NAME          board VALUE's row activated, its first session opened:
 *                                  "# fleet-session S N" per session listed, "# fleet-opened
 *                                  S SAMPLES SHOWN" and "# fleet-opened-fn SELF<TAB>FUNCTION
 *                                  <TAB>MODULE" from the new window (closed after)
 *   fleet-sessions-of BOARD NAME   BOARD (LABEL=VALUE) typed into Sessions of, List
 *                                  sessions clicked: "# fleet-sessions-of S N FIRST LAST"
 * The Locks page (pl-ui-script-locks.c):
 *   locks NAME [ADDRESS]           the page is shown with a lock (that of ADDRESS, picked);
 *                                  its summary and details go to stdout as
 *                                  "# locks-summary" / "# locks-details"
 *   locks-filter NAME TID F0 F1 ADDR   the window's thread and range set; the page's
 *                                  "# NAME-filter/-summary/-details" lines
 * The counter tracks under the timeline (pl-ui-script-tracks.c):
 *   tracks N NAME                  at least N rows are drawn; each row's text (name, latest
 *                                  value, summary, source) goes to stdout as "# track-row"
 * The timeline's interrupt lanes and lock waits (pl-ui-script-irq.c; "# irq-…"
 * lines say what the lanes hold, for the test's oracle):
 *   irq-lanes NAME                 the lanes are drawn; per CPU "# irq-cpu CPU HARDIRQS
 *                                  HARD_NS SOFTIRQS SOFT_OWN_NS drawn RECTS", per source
 *                                  "# irq-source KIND<TAB>NUMBER<TAB>NAME<TAB>RUNS"; fails
 *                                  when a lane draws more rectangles than runs, or as many
 *                                  with more runs than pixel columns (no level of detail)
 *   irq-page NAME                  the Interrupts page (after "view irq") drew its lanes;
 *                                  per CPU "# irq-page-cpu CPU hardirq RUNS drawn RECTS
 *                                  softirq RUNS drawn RECTS columns N"; fails as irq-lanes
 *                                  does, or when the lanes miss a run of the page's stats
 *   irq-filter NAME TID F0 F1      the window's thread TID (0: all) and range [F0, F1]
 *                                  (session fractions); the Interrupts page shown follows:
 *                                  "# NAME-filter: TID FROM TO", "# NAME-source KIND NUMBER
 *                                  COUNT" per handler and vector (pl-ui-script-irq.c)
 *   irq-toggle NAME                click (X) the "IRQ" header's name: the lanes expand or
 *                                  collapse (collapsed, the header row draws the runs)
 *   irq-click NAME                 click (X) the longest run: the window's range is its
 *                                  [entry, exit]; the tooltip there names it and its CPU
 *   irq-hover FILE NAME            the pointer on the longest run, the screen (with its
 *                                  tooltip) to FILE
 *   lock-wait-tip NAME [TID]       the tooltip of the longest lock wait's bar (of those
 *                                  thread TID released) names the lock's address and
 *                                  its holder ("# lock-tip …")
 * The Block I/O page (pl-ui-script-block.c):
 *   block-pick NAME TID F0 F1      with the page hidden, the window's thread TID (0: all)
 *                                  and range [F0, F1] (session fractions; 0 0: none); then
 *                                  the page is shown: "# NAME-filter: TID FROM TO T0 T1",
 *                                  "# NAME-hidden: 1", its "# NAME-summary" and
 *                                  "# NAME-table" lines
 * The Findings page (pl-ui-script-findings.c; "# findings-…" lines say
 * the view shown and the window's filter):
 *   expect-view VIEW NAME          the views stack shows VIEW (findings, flame, …)
 *   expect-finding RULE yes|no NAME   a finding of RULE is (not) on the page
 *   findings-click RULE VIEW NAME  its button shows VIEW
 *   findings-columns CELL NAME     the finding's table holding CELL is a grid whose
 *                                  columns line up as drawn ("# findings-columns")
 *   periods-click-worst TASK NAME  task TASK's worst activation's Select: the flame
 *                                  graph, with that thread and a time range
 * What PERFLENS_TIMING=1 times, reached as input does (pl-ui-script-timing.c):
 *   pick-thread PREFIX|all         the timeline's thread-selected signal, as a click on
 *                                  the thread's name emits it
 *   sort-functions COL asc|desc    the Functions table sorted by column COL, as a click
 *                                  on its title does
 */
#ifndef PL_UI_SCRIPT_H
#define PL_UI_SCRIPT_H

#include "pl-window.h"

/* For the command files beside the driver: a step's outcome, and its
 * "ok NAME" / "not ok NAME: why" line (a failure fails the run). */
typedef enum { PL_UI_STEP_DONE, PL_UI_STEP_WAIT, PL_UI_STEP_UNKNOWN } PlUiStep;
void pl_ui_script_report(const char *name, gboolean ok, const char *fmt, ...)
	G_GNUC_PRINTF(3, 4);
/* The range [f0, f1], fractions of w's session, each rounded to the
 * millisecond after its first record (*ms0, *ms1; "0" "0": none); with
 * apply, the window's thread set to tid (0: all) and its range to that, as
 * a pick in another view sets them. */
void pl_ui_script_pick(PlWindow *w, guint32 tid, const char *f0, const char *f1, gboolean apply,
		       guint64 *ms0, guint64 *ms1);
/* The first widget under root (root included, depth first) that match
 * accepts, or NULL. */
GtkWidget *pl_ui_script_find_widget(GtkWidget *root,
				    gboolean (*match)(GtkWidget *w, gconstpointer data),
				    gconstpointer data);
/* argv: the command, split; ticks: 0 at its first call; timed_out: its
 * deadline passed (a WAIT then fails it). */
PlUiStep pl_ui_script_transforms_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_labels_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_sessions_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_source_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_io_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_names_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_flight_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_fleet_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_locks_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_tracks_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_irq_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_block_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_findings_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
PlUiStep pl_ui_script_timing_step(PlWindow *w, char **argv, guint ticks, gboolean timed_out);
/* "NAME" or "NAME@FILE" (defined in a file whose path ends with /FILE):
 * the first function so named, PL_NO_ID when none. */
guint32 pl_ui_script_find_function(PlWindow *w, const char *spec);

/* Runs the script at path (NULL: none given, a failure) in win. */
void pl_ui_script_start(PlWindow *win, const char *path);
/* The process exit status: rc, or 1 when a scripted check failed. */
int pl_ui_script_exit_status(int rc);

#endif
