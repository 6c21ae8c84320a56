/* pl-ui-test-hook.h — how a test module attaches to the app (pl-app.c).
 *
 * With PERFLENS_UI_TEST_MODULE=PATH in the environment, pl_ui_run() loads
 * PATH (dlopen, RTLD_NOW | RTLD_LOCAL) before the application runs and
 * calls its pl_ui_test_attach() with the application, on the main thread.
 * The module acts through GTK's own signals (window-added) and the
 * functions this module exports, as the tests' other programs do.  What
 * it returns, when not NULL, is called with the application's exit status
 * once g_application_run() has returned, and its result is the process's.
 * A module that does not load, or has no pl_ui_test_attach, makes
 * pl_ui_run() fail (exit 2) without opening a window: a test never falls
 * back to an app that no one drives.  The module stays loaded for the
 * process (GLib types cannot be unloaded).
 *
 * The one such module is the UI tests' scripted driver,
 * viewer/ui/tests/pl-ui-script.c, built as BUILD/test/perflens-ui-script.so
 * and never installed nor shipped.
 */
#ifndef PL_UI_TEST_HOOK_H
#define PL_UI_TEST_HOOK_H

#include <gtk/gtk.h>

#define PL_UI_TEST_MODULE_ENV "PERFLENS_UI_TEST_MODULE"

/* Called with the exit status of the application; returns the process's. */
typedef int (*PlUiTestFinish)(int status);

/* The module's entry (looked up by name, with this prototype). */
PlUiTestFinish pl_ui_test_attach(GtkApplication *app);

#endif
