/* pl-target-settings.c — per-target symbol settings (see the header). */
#include "pl-target-settings.h"

#include <gio/gio.h>
#include <string.h>

#include "pl-loader.h"

static char *settings_path(void)
{
	return g_build_filename(g_get_user_config_dir(), "perflens", "targets.ini", NULL);
}

static char *group_of(const char *key)
{
	return g_strdup_printf("target %s", key);
}

static GStrv empty_strv(void)
{
	return g_new0(char *, 1);
}

static GStrv get_list(GKeyFile *kf, const char *group, const char *name)
{
	GStrv v = g_key_file_get_string_list(kf, group, name, NULL, NULL);
	return v ? v : empty_strv();
}

static char *get_str(GKeyFile *kf, const char *group, const char *name)
{
	char *v = g_key_file_get_string(kf, group, name, NULL);
	if (v && !*v)
		g_clear_pointer(&v, g_free);
	return v;
}

PlTargetSettings *pl_target_settings_load(const char *key)
{
	PlTargetSettings *s = g_new0(PlTargetSettings, 1);
	s->key = g_strdup(key ? key : "");
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autofree char *path = settings_path();
	g_autofree char *group = group_of(s->key);
	if (!*s->key || !g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL) ||
	    !g_key_file_has_group(kf, group)) {
		s->binaries = empty_strv();
		s->debug_dirs = empty_strv();
		s->source_dirs = empty_strv();
		s->path_maps = empty_strv();
		return s;
	}
	s->toolchain_prefix = get_str(kf, group, "toolchain-prefix");
	s->sysroot = get_str(kf, group, "sysroot");
	s->map_file = get_str(kf, group, "map-file");
	s->vmlinux = get_str(kf, group, "vmlinux");
	s->debuginfod_urls = get_str(kf, group, "debuginfod-urls");
	s->binaries = get_list(kf, group, "binaries");
	s->debug_dirs = get_list(kf, group, "debug-dirs");
	s->source_dirs = get_list(kf, group, "source-dirs");
	s->path_maps = get_list(kf, group, "path-maps");
	s->no_inline = g_key_file_get_boolean(kf, group, "no-inline", NULL);
	return s;
}

void pl_target_settings_free(PlTargetSettings *s)
{
	if (!s)
		return;
	g_free(s->key);
	g_free(s->toolchain_prefix);
	g_free(s->sysroot);
	g_free(s->map_file);
	g_free(s->vmlinux);
	g_free(s->debuginfod_urls);
	g_strfreev(s->binaries);
	g_strfreev(s->debug_dirs);
	g_strfreev(s->source_dirs);
	g_strfreev(s->path_maps);
	g_free(s);
}

gboolean pl_target_settings_is_empty(const PlTargetSettings *s)
{
	return !s->toolchain_prefix && !s->sysroot && !s->map_file && !s->vmlinux &&
	       !s->debuginfod_urls &&
	       !s->binaries[0] &&
	       !s->debug_dirs[0] && !s->source_dirs[0] && !s->path_maps[0] && !s->no_inline;
}

static void set_str(GKeyFile *kf, const char *group, const char *name, const char *v)
{
	if (v && *v)
		g_key_file_set_string(kf, group, name, v);
}

static void set_list(GKeyFile *kf, const char *group, const char *name, GStrv v)
{
	if (v && v[0])
		g_key_file_set_string_list(kf, group, name, (const char *const *)v, g_strv_length(v));
}

gboolean pl_target_settings_save(const PlTargetSettings *s, GError **error)
{
	if (!s->key || !*s->key) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
			    "No target: connect to a board or open one of its sessions first");
		return FALSE;
	}
	for (guint i = 0; s->path_maps[i]; i++) {
		const char *eq = strchr(s->path_maps[i], '=');
		if (!eq || eq == s->path_maps[i]) {
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
				    "Path map “%s” is not FROM=TO (e.g. /build/src=/home/me/src)",
				    s->path_maps[i]);
			return FALSE;
		}
	}
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autofree char *path = settings_path();
	g_autofree char *group = group_of(s->key);
	g_key_file_load_from_file(kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
	g_key_file_remove_group(kf, group, NULL);
	if (!pl_target_settings_is_empty(s)) {
		set_str(kf, group, "toolchain-prefix", s->toolchain_prefix);
		set_str(kf, group, "sysroot", s->sysroot);
		set_str(kf, group, "map-file", s->map_file);
		set_str(kf, group, "vmlinux", s->vmlinux);
		set_str(kf, group, "debuginfod-urls", s->debuginfod_urls);
		set_list(kf, group, "binaries", s->binaries);
		set_list(kf, group, "debug-dirs", s->debug_dirs);
		set_list(kf, group, "source-dirs", s->source_dirs);
		set_list(kf, group, "path-maps", s->path_maps);
		if (s->no_inline)
			g_key_file_set_boolean(kf, group, "no-inline", TRUE);
	}
	g_autofree char *dir = g_path_get_dirname(path);
	g_mkdir_with_parents(dir, 0700);
	return g_key_file_save_to_file(kf, path, error);
}

GStrv pl_target_settings_list(void)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autofree char *path = settings_path();
	g_autoptr(GPtrArray) out = g_ptr_array_new();
	if (g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, NULL)) {
		g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
		for (guint i = 0; groups[i]; i++)
			if (g_str_has_prefix(groups[i], "target "))
				g_ptr_array_add(out, g_strdup(groups[i] + strlen("target ")));
	}
	g_ptr_array_sort(out, (GCompareFunc)g_strcmp0);
	g_ptr_array_add(out, NULL);
	return (GStrv)g_ptr_array_free(g_steal_pointer(&out), FALSE);
}

static GPtrArray *strv_array(GStrv v)
{
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; v && v[i]; i++)
		g_ptr_array_add(a, g_strdup(v[i]));
	return a;
}

void pl_target_settings_to_options(const PlTargetSettings *s, gboolean same_host,
				   PlSymOptions *o)
{
	memset(o, 0, sizeof *o);
	o->sysroot = g_strdup(s->sysroot);
	o->toolchain_prefix = g_strdup(s->toolchain_prefix);
	o->map_file = g_strdup(s->map_file);
	o->vmlinux = g_strdup(s->vmlinux);
	o->debuginfod_urls = g_strdup(s->debuginfod_urls);
	o->binaries = strv_array(s->binaries);
	o->debug_dirs = strv_array(s->debug_dirs);
	o->source_dirs = strv_array(s->source_dirs);
	o->path_maps = strv_array(s->path_maps);
	o->no_inline = s->no_inline;
	o->host_files = same_host && !s->sysroot;
}

void pl_sym_options_clear(PlSymOptions *o)
{
	g_clear_pointer(&o->sysroot, g_free);
	g_clear_pointer(&o->toolchain_prefix, g_free);
	g_clear_pointer(&o->map_file, g_free);
	g_clear_pointer(&o->vmlinux, g_free);
	g_clear_pointer(&o->debuginfod_urls, g_free);
	g_clear_pointer(&o->binaries, g_ptr_array_unref);
	g_clear_pointer(&o->debug_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->source_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->path_maps, g_ptr_array_unref);
}

/* ─── loading a file with its target's settings ─────────────────────── */

/* The settings of the board a file was recorded on, as a file opened
 * here: the board's paths are readable unless a sysroot is set. */
typedef struct {
	PlFetchProgressFunc fn;
	gpointer data;
} Watch;

static void options_for_host(const char *host, PlSymOptions *o, gpointer data)
{
	const Watch *w = data;
	g_autoptr(PlTargetSettings) s = pl_target_settings_load(host);
	pl_target_settings_to_options(s, TRUE, o);
	if (w) {
		o->fetch_progress = w->fn;
		o->fetch_progress_data = w->data;
	}
}

static void options_clear(PlSymOptions *o, gpointer data)
{
	pl_sym_options_clear(o);
}

/* The command line's loader (viewer/io/pl-loader.h: this machine's
 * kernel symbols for a local perf.data, DWARF unwinding on a second core)
 * with the board's settings; what was read of a file corrupt in the
 * middle is kept. */
void pl_target_load_params(PlLoadParams *lp, GCancellable *cancel)
{
	*lp = (PlLoadParams){ .options_for_host = options_for_host,
			      .options_clear = options_clear,
			      .cancel = cancel };
}

PlProfile *pl_target_load_file(const char *path, GCancellable *cancel, gsize *progress,
			       GError **error)
{
	return pl_target_load_file_watched(path, cancel, progress, NULL, NULL, error);
}

PlProfile *pl_target_load_file_watched(const char *path, GCancellable *cancel, gsize *progress,
				       PlFetchProgressFunc fetch, gpointer fetch_data,
				       GError **error)
{
	Watch w = { fetch, fetch_data };
	PlLoadParams lp = { .options_for_host = options_for_host,
			    .options_clear = options_clear,
			    .data = fetch ? &w : NULL,
			    .cancel = cancel,
			    .progress = progress,
			    .keep_partial = TRUE };
	return pl_load_file(path, &lp, NULL, NULL, error);
}

char *pl_target_settings_advice(const char *problem)
{
	static const char *const map[][2] = {
		{ "pass the file with --binary", "add the file to Binaries" },
		{ "with --binary", "in Binaries" },
		{ "set --sysroot", "set Sysroot" },
		{ "--sysroot", "Sysroot" },
		{ "--binary", "Binaries" },
		{ "--debug-dir", "Debug dirs" },
		{ "--source-dir", "Source dirs" },
		{ "--path-map", "Path maps" },
		{ "--map", "Map file" },
	};
	char *s = g_strdup(problem);
	for (guint i = 0; i < G_N_ELEMENTS(map); i++) {
		char *at;
		while ((at = strstr(s, map[i][0]))) {
			*at = 0;
			char *n = g_strconcat(s, map[i][1], at + strlen(map[i][0]), NULL);
			g_free(s);
			s = n;
		}
	}
	return s;
}
