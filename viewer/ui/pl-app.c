/* pl-app.c — the GtkApplication: windows, shortcuts, theme (see pl-ui.h). */
#include <dlfcn.h>
#include <gtk/gtk.h>
#include <string.h>

#include "pl-abi.h"
#include "pl-ui-test-hook.h"
#include "pl-ui.h"
#include "pl-window.h"

typedef struct {
	char *connect;
} AppOptions;

static AppOptions opts;

/* Dark or light as the desktop says (the XDG settings portal's
 * color-scheme: 1 prefers dark), PERFLENS_THEME=dark|light overriding. */
static gboolean system_prefers_dark(void)
{
	const char *env = g_getenv("PERFLENS_THEME");
	if (env)
		return !strcmp(env, "dark");
	g_autoptr(GDBusConnection) bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
	if (!bus)
		return FALSE;
	g_autoptr(GVariant) r = g_dbus_connection_call_sync(
		bus, "org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
		"org.freedesktop.portal.Settings", "Read",
		g_variant_new("(ss)", "org.freedesktop.appearance", "color-scheme"), NULL,
		G_DBUS_CALL_FLAGS_NO_AUTO_START, 500, NULL, NULL);
	if (!r)
		return FALSE;
	g_autoptr(GVariant) v = NULL;
	g_variant_get(r, "(v)", &v);
	/* the value arrives wrapped once more in older portals */
	while (v && g_variant_is_of_type(v, G_VARIANT_TYPE_VARIANT)) {
		GVariant *inner = g_variant_get_variant(v);
		g_variant_unref(v);
		v = inner;
	}
	return v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32) && g_variant_get_uint32(v) == 1;
}

static void apply_theme(void)
{
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme",
		     system_prefers_dark(), NULL);
}

static void on_portal_setting(GDBusConnection *c, const char *sender, const char *path,
			      const char *iface, const char *signal, GVariant *params, gpointer data)
{
	const char *ns = NULL, *key = NULL;
	g_variant_get(params, "(&s&sv)", &ns, &key, NULL);
	if (!g_strcmp0(ns, "org.freedesktop.appearance") && !g_strcmp0(key, "color-scheme"))
		apply_theme();
}

/* Follow the desktop when the user flips dark/light while we run. */
static void watch_theme(void)
{
	if (g_getenv("PERFLENS_THEME"))
		return;
	GDBusConnection *bus = g_bus_get_sync(G_BUS_TYPE_SESSION, NULL, NULL);
	if (!bus)
		return;
	g_dbus_connection_signal_subscribe(bus, "org.freedesktop.portal.Desktop",
					   "org.freedesktop.portal.Settings", "SettingChanged",
					   "/org/freedesktop/portal/desktop", NULL,
					   G_DBUS_SIGNAL_FLAGS_NONE, on_portal_setting, NULL, NULL);
	/* the connection stays for the process: the subscription needs it */
}

static void on_startup(GApplication *app, gpointer data)
{
	apply_theme();
	watch_theme();
	static const struct {
		const char *action;
		const char *accels[3];
	} accels[] = {
		{ "win.open", { "<Control>o", NULL } },
		{ "win.find", { "<Control>f", NULL } },
		{ "win.zoom-out", { "Escape", NULL } },
		{ "win.save", { "<Control>s", NULL } },
		{ "win.export-svg", { "<Control>e", NULL } },
		{ "win.connect", { "<Control>k", NULL } },
		{ "win.sessions", { "<Control>l", NULL } },
		{ "win.diff", { "<Control>d", NULL } },
		{ "win.flight-save", { "<Control><Shift>s", NULL } },
		{ "win.fleet", { "<Control><Shift>f", NULL } },
		{ "app.quit", { "<Control>q", NULL } },
	};
	for (guint i = 0; i < G_N_ELEMENTS(accels); i++)
		gtk_application_set_accels_for_action(GTK_APPLICATION(app), accels[i].action,
						      accels[i].accels);
	GtkCssProvider *css = gtk_css_provider_new();
	/* numbers line up in the tables */
	/* numbers line up in the tables; what needs attention stands out in
	 * either theme (the theme's own warning colour) */
	gtk_css_provider_load_from_data(css,
					"label.numeric { font-feature-settings: \"tnum\"; }\n"
					"label.pl-warning { color: @warning_color; }",
					-1);
	gtk_style_context_add_provider_for_display(gdk_display_get_default(),
						   GTK_STYLE_PROVIDER(css),
						   GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
	g_object_unref(css);
}

static void act_quit(GSimpleAction *a, GVariant *p, gpointer app)
{
	g_application_quit(app);
}

static PlWindow *new_window(GApplication *app)
{
	PlWindow *w = pl_window_new(GTK_APPLICATION(app));
	gtk_window_present(GTK_WINDOW(w));
	if (opts.connect) {
		pl_window_show_connect(w);
		PlConnectView *cv = pl_window_get_connect_view(w);
		pl_connect_view_connect(cv, opts.connect, g_getenv("PERFLENS_TOKEN"));
	}
	return w;
}

static void on_activate(GApplication *app, gpointer data)
{
	new_window(app);
}

static void on_open(GApplication *app, GFile **files, gint n, const char *hint, gpointer data)
{
	for (gint i = 0; i < n; i++) {
		PlWindow *w = new_window(app);
		g_autofree char *path = g_file_get_path(files[i]);
		if (path)
			pl_window_open_file(w, path);
	}
}

const char pl_ui_abi[] = PL_VIEWER_ABI;

/* PERFLENS_UI_TEST_MODULE=PATH (pl-ui-test-hook.h): the UI tests load
 * their scripted driver into the app through this hook, so that the
 * driver, its command language and its checks live in a test-only module
 * and what ships holds none of them.  The hook knows no script and runs
 * nothing of its own; without the variable it does nothing, and the code
 * it loads is named by the environment, which LD_PRELOAD already lets
 * whoever sets it run.  False (with the reason on stderr) when the
 * variable is set but the module cannot be attached. */
static gboolean attach_test_module(GtkApplication *app, PlUiTestFinish *finish)
{
	const char *path = g_getenv(PL_UI_TEST_MODULE_ENV);
	*finish = NULL;
	if (!path)
		return TRUE;
	/* never dlclose'd: it registers signal handlers, and GLib types */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		g_printerr("perflens: %s=%s does not load: %s\n", PL_UI_TEST_MODULE_ENV, path,
			   why ? why : "?");
		return FALSE;
	}
	/* typeof: the prototype stays pl-ui-test-hook.h's */
	__typeof__(pl_ui_test_attach) *attach =
		(__typeof__(pl_ui_test_attach) *)dlsym(h, "pl_ui_test_attach");
	if (!attach) {
		g_printerr("perflens: %s=%s has no pl_ui_test_attach\n", PL_UI_TEST_MODULE_ENV, path);
		return FALSE;
	}
	*finish = attach(app);
	return TRUE;
}

/* Without a GPU render node, GTK 4's GL renderer runs on Mesa's software
 * rasterizer (llvmpipe), which composites the whole window at every frame:
 * 40-45 ms frames (p95) with a 10 M-sample session at 1600x1000 on a 2-core
 * VM, a hover costing as much as a redraw.  GTK's cairo renderer redraws
 * only what changed there: 4-5 ms frames, clicks in 5 ms instead of 37,
 * 70 MiB less (bench/results/scale-app-renderer.md).  A GSK_RENDERER the
 * user set is kept; a machine with a GPU keeps GTK's choice. */
static void choose_renderer(void)
{
	if (g_getenv("GSK_RENDERER"))
		return;
	g_autoptr(GDir) dri = g_dir_open("/dev/dri", 0, NULL);
	for (const char *n; dri && (n = g_dir_read_name(dri));)
		if (g_str_has_prefix(n, "renderD"))
			return;
	/* before GTK starts, or any thread reads the environment */
	g_setenv("GSK_RENDERER", "cairo", FALSE);
}

int pl_ui_run(int argc, char **argv)
{
	choose_renderer();

	/* Our own options first; the rest (files, GApplication's) pass on. */
	g_autoptr(GPtrArray) rest = g_ptr_array_new();
	g_ptr_array_add(rest, argc > 0 ? argv[0] : "perflens");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--connect") && i + 1 < argc)
			opts.connect = g_strdup(argv[++i]);
		else if (i == 1 && !strcmp(argv[i], "open"))
			continue; /* "perflens open FILE" */
		else
			g_ptr_array_add(rest, argv[i]);
	}
	g_ptr_array_add(rest, NULL);

	g_set_application_name("PerfLens");
	/* non-unique: a second `perflens FILE` is its own process, so a script
	 * or a test never talks to a running instance */
	GtkApplication *app = gtk_application_new("org.perflens.Viewer",
						  G_APPLICATION_HANDLES_OPEN |
							  G_APPLICATION_NON_UNIQUE);
	static const GActionEntry app_actions[] = { { "quit", act_quit, NULL, NULL, NULL, { 0 } } };
	g_action_map_add_action_entries(G_ACTION_MAP(app), app_actions, 1, app);
	g_signal_connect(app, "startup", G_CALLBACK(on_startup), NULL);
	g_signal_connect(app, "activate", G_CALLBACK(on_activate), NULL);
	g_signal_connect(app, "open", G_CALLBACK(on_open), NULL);
	PlUiTestFinish test_finish = NULL;
	int rc = 2; /* as perflens's other failures to start the app (viewer/cli/app.c) */
	if (attach_test_module(app, &test_finish)) {
		rc = g_application_run(G_APPLICATION(app), (int)rest->len - 1, (char **)rest->pdata);
		if (test_finish)
			rc = test_finish(rc);
	}
	g_object_unref(app);
	g_clear_pointer(&opts.connect, g_free);
	return rc;
}
