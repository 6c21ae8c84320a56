/* pl-target-settings.c — per-target symbol settings (see the header). */
#include "pl-target-settings.h"

#include <gio/gio.h>

#include "pl-capture.h"
#include <string.h>

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
	g_strfreev(s->binaries);
	g_strfreev(s->debug_dirs);
	g_strfreev(s->source_dirs);
	g_strfreev(s->path_maps);
	g_free(s);
}

gboolean pl_target_settings_is_empty(const PlTargetSettings *s)
{
	return !s->toolchain_prefix && !s->sysroot && !s->map_file && !s->binaries[0] &&
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
	g_clear_pointer(&o->binaries, g_ptr_array_unref);
	g_clear_pointer(&o->debug_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->source_dirs, g_ptr_array_unref);
	g_clear_pointer(&o->path_maps, g_ptr_array_unref);
}

/* ─── loading a file with its target's settings ─────────────────────── */

typedef struct {
	PlProfile *profile;
	GCancellable *cancel;
	gsize *progress;
	gsize n;
} LoadCtx;

static gboolean load_one(const struct pl_msg *m, gpointer data)
{
	LoadCtx *c = data;
	if ((++c->n & 1023) == 0) {
		if (c->progress)
			__atomic_store_n(c->progress, c->n, __ATOMIC_RELAXED);
		if (g_cancellable_is_cancelled(c->cancel))
			return FALSE;
	}
	if (!c->profile) {
		/* HELLO comes first and names the board */
		g_autofree char *host = m->type == PL_MSG_HELLO
						? g_strndup(m->u.hello.hostname.p, m->u.hello.hostname.len)
						: NULL;
		g_autoptr(PlTargetSettings) s = pl_target_settings_load(host);
		PlSymOptions o;
		pl_target_settings_to_options(s, TRUE, &o);
		c->profile = pl_profile_new(&o);
		pl_sym_options_clear(&o);
	}
	return pl_profile_ingest(m, c->profile);
}

PlProfile *pl_target_load_file(const char *path, GCancellable *cancel, gsize *progress,
			       GError **error)
{
	LoadCtx c = { NULL, cancel, progress, 0 };
	GError *local = NULL;
	PlCaptureInfo info;
	gboolean ok = pl_capture_load(path, load_one, &c, &info, &local);
	if (!ok && (info.messages == 0 || !c.profile ||
		    g_error_matches(local, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED))) {
		if (c.profile)
			pl_profile_free(c.profile);
		if (g_error_matches(local, PL_CAPTURE_ERROR, PL_CAPTURE_ERROR_CANCELLED)) {
			g_clear_error(&local);
			g_set_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
		} else {
			g_propagate_error(error, local);
		}
		return NULL;
	}
	g_clear_error(&local); /* corruption mid-file: keep what was read */
	if (!c.profile)
		c.profile = pl_profile_new(NULL);
	pl_profile_finish(c.profile);
	return c.profile;
}
