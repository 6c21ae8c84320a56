/* pl-fleet-boards.c — see pl-fleet-boards.h. */
#include "pl-fleet-boards.h"

#include <gio/gio.h>
#include <string.h>

#include "pl-fleet-query.h"

typedef struct {
	char *name;
	GPtrArray *match; /* PlFleetMatch*, NULL: every agent */
	char *sysroot, *toolchain_prefix, *debuginfod;
	char **debug_dirs;
	gboolean host_files;
} Board;

struct _PlFleetBoards {
	GPtrArray *boards; /* Board*, in the file's order */
};

static void board_free(gpointer p)
{
	Board *b = p;
	g_free(b->name);
	if (b->match)
		g_ptr_array_unref(b->match);
	g_free(b->sysroot);
	g_free(b->toolchain_prefix);
	g_free(b->debuginfod);
	g_strfreev(b->debug_dirs);
	g_free(b);
}

static const char *const known[] = { "match", "sysroot", "toolchain-prefix", "debug-dirs",
				     "debuginfod", "host-files", NULL };

PlFleetBoards *pl_fleet_boards_load(const char *path, GError **error)
{
	g_autoptr(GKeyFile) kf = g_key_file_new();
	g_autoptr(GError) err = NULL;
	if (!g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &err)) {
		g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
			    "cannot read the boards file %s: %s", path, err->message);
		return NULL;
	}
	g_autoptr(GPtrArray) boards = g_ptr_array_new_with_free_func(board_free);
	g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);
	for (guint i = 0; groups[i]; i++) {
		const char *g = groups[i];
		g_auto(GStrv) keys = g_key_file_get_keys(kf, g, NULL, NULL);
		for (guint k = 0; keys && keys[k]; k++)
			if (!g_strv_contains(known, keys[k])) {
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
					    "%s, [%s]: unknown key '%s' (known: match, sysroot, "
					    "toolchain-prefix, debug-dirs, debuginfod, host-files)",
					    path, g, keys[k]);
				return NULL;
			}
		Board *b = g_new0(Board, 1);
		g_ptr_array_add(boards, b);
		b->name = g_strdup(g);
		g_autofree char *match = g_key_file_get_string(kf, g, "match", NULL);
		if (match) {
			g_autoptr(GError) e = NULL;
			if (!(b->match = pl_fleet_where_parse(match, &e))) {
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
					    "%s, [%s]: match: %s", path, g, e->message);
				return NULL;
			}
		}
		b->sysroot = g_key_file_get_string(kf, g, "sysroot", NULL);
		b->toolchain_prefix = g_key_file_get_string(kf, g, "toolchain-prefix", NULL);
		b->debuginfod = g_key_file_get_string(kf, g, "debuginfod", NULL);
		b->debug_dirs = g_key_file_get_string_list(kf, g, "debug-dirs", NULL, NULL);
		b->host_files = !b->sysroot;
		if (g_key_file_has_key(kf, g, "host-files", NULL)) {
			g_autoptr(GError) e = NULL;
			b->host_files = g_key_file_get_boolean(kf, g, "host-files", &e);
			if (e) {
				g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
					    "%s, [%s]: host-files is true or false", path, g);
				return NULL;
			}
		}
	}
	PlFleetBoards *self = g_new0(PlFleetBoards, 1);
	self->boards = g_steal_pointer(&boards);
	return self;
}

void pl_fleet_boards_free(PlFleetBoards *self)
{
	if (!self)
		return;
	g_ptr_array_unref(self->boards);
	g_free(self);
}

/* The value of label key, or NULL. */
static const char *label(char **labels, const char *key)
{
	gsize n = strlen(key);
	for (guint i = 0; labels && labels[i]; i++)
		if (!strncmp(labels[i], key, n) && labels[i][n] == '=')
			return labels[i] + n + 1;
	return NULL;
}

static gboolean matches(const Board *b, char **labels)
{
	for (guint i = 0; b->match && i < b->match->len; i++) {
		const PlFleetMatch *m = b->match->pdata[i];
		const char *v = label(labels, m->key);
		if ((v && !strcmp(v, m->value)) == m->negate)
			return FALSE;
	}
	return TRUE;
}

static GPtrArray *dirs_of(char **dirs)
{
	if (!dirs || !dirs[0])
		return NULL;
	GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
	for (guint i = 0; dirs[i]; i++)
		if (*dirs[i])
			g_ptr_array_add(a, g_strdup(dirs[i]));
	return a;
}

const char *pl_fleet_boards_choose(const PlFleetBoards *self, char **labels, PlSymOptions *o)
{
	o->host_files = TRUE; /* the defaults: this host's files, as perflens report */
	for (guint i = 0; self && i < self->boards->len; i++) {
		const Board *b = self->boards->pdata[i];
		if (!matches(b, labels))
			continue;
		o->host_files = b->host_files;
		o->sysroot = g_strdup(b->sysroot);
		o->toolchain_prefix = g_strdup(b->toolchain_prefix);
		o->debuginfod_urls = g_strdup(b->debuginfod);
		o->debug_dirs = dirs_of(b->debug_dirs);
		return b->name;
	}
	return NULL;
}

void pl_fleet_boards_options_clear(PlSymOptions *o)
{
	g_clear_pointer(&o->sysroot, g_free);
	g_clear_pointer(&o->toolchain_prefix, g_free);
	g_clear_pointer(&o->debuginfod_urls, g_free);
	g_clear_pointer(&o->debug_dirs, g_ptr_array_unref);
}
