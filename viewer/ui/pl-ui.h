/* pl-ui.h — the PerfLens desktop viewer (GTK 4), as one entry point.
 *
 * pl_ui_run() runs the GtkApplication org.perflens.Viewer and returns its
 * exit status.  Arguments: nothing (the start page), FILE or "open FILE"
 * (load a .plens / perf.data), "--connect HOST[:PORT]" (the connect view,
 * filled in), "--script FILE" (drive the app through a scripted sequence
 * and print "ok NAME" / "not ok NAME: why" lines: the UI tests use it; see
 * pl-ui-script.h).  Everything else goes to GApplication.
 */
#ifndef PL_UI_H
#define PL_UI_H

int pl_ui_run(int argc, char **argv);

#endif
