/* app.c — `perflens` without a command: load the desktop app's module.
 *
 * The GTK app lives in perflens-ui.so so that the command line does not
 * pay for it: the dynamic linker loads and relocates GTK 4's ~70 shared
 * libraries before main() runs, about 7 ms of CPU on every `perflens
 * report` (docs/PERFORMANCE.md).  The module finds the viewer library's
 * functions in this executable (linked whole and with -rdynamic, see
 * viewer/viewer.mk) and exports pl_ui_run (viewer/ui/pl-ui.h).
 *
 * Where it is looked for, relative to this executable (so an unpacked
 * release tarball and an install under any PREFIX both work):
 *   DIR/perflens-ui.so                  the build dir, the release tarball
 *   DIR/../lib/perflens/perflens-ui.so  make install (PREFIX/bin, PREFIX/lib)
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pl-abi.h"
#include "pl-cli.h"
#include "pl-ui.h"

#define PL_UI_MODULE "perflens-ui.so"

/* The directory of this executable; NULL when /proc is not mounted. */
static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return g_path_get_dirname(buf);
}

int pl_cli_app(int argc, char **argv)
{
	g_autofree char *dir = exe_dir();
	if (!dir)
		return pl_cli_fail("cannot find the desktop app's module (%s): /proc/self/exe is "
				   "unreadable; mount /proc, or use the command line (perflens "
				   "--help)", PL_UI_MODULE);
	g_autofree char *next_to = g_build_filename(dir, PL_UI_MODULE, NULL);
	g_autofree char *up = g_build_filename(dir, "..", "lib", "perflens", PL_UI_MODULE, NULL);
	g_autofree char *in_lib = g_canonicalize_filename(up, NULL); /* the message reads better */
	const char *path = access(next_to, F_OK) == 0 ? next_to
			   : access(in_lib, F_OK) == 0 ? in_lib
						       : NULL;
	if (!path)
		return pl_cli_fail("the desktop app's module %s is missing (looked for %s and %s): "
				   "reinstall perflens (make install puts it in PREFIX/lib/perflens/; "
				   "a release tarball has it next to perflens), or use the command "
				   "line (perflens --help)", PL_UI_MODULE, next_to, in_lib);
	/* RTLD_NOW: a missing library or symbol is found here, with a message,
	 * not in the middle of the app */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		if (why && strstr(why, "cannot open shared object file"))
			return pl_cli_fail("cannot start the desktop app: %s. Install GTK 4 (Debian/"
					   "Ubuntu: apt install libgtk-4-1; Fedora: dnf install gtk4), "
					   "or use the command line (perflens --help)", why);
		return pl_cli_fail("cannot start the desktop app: %s does not load (%s): reinstall "
				   "perflens (the module must come from the same build as the "
				   "perflens executable)", path, why ? why : "?");
	}
	/* a module from another build may disagree on any struct it shares */
	const char *abi = dlsym(h, "pl_ui_abi");
	if (!abi || strcmp(abi, PL_VIEWER_ABI) != 0)
		return pl_cli_fail("cannot start the desktop app: %s is from another build of perflens "
				   "(interface %s, this perflens %s): reinstall perflens, its executable "
				   "and %s together", path, abi ? abi : "unknown", PL_VIEWER_ABI,
				   PL_UI_MODULE);
	/* typeof: the prototype stays pl-ui.h's, with no link-time reference */
	__typeof__(pl_ui_run) *run = (__typeof__(pl_ui_run) *)dlsym(h, "pl_ui_run");
	if (!run)
		return pl_cli_fail("cannot start the desktop app: %s has no pl_ui_run: reinstall "
				   "perflens", path);
	/* never dlclose'd: GTK and GLib's type system cannot be unloaded */
	return run(argc, argv);
}
