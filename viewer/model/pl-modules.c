/* pl-modules.c — the files a recording mapped (PlModule: path, basename,
 * build-id), in order of first mapping, for the exports that name them.
 * The mappings themselves, sorted per process, are the symbolizer's
 * (viewer/symbols/pl-symbols.c). */
#include "pl-profile.h"
#include "pl-profile-private.h"

void pl_profile_module_free(gpointer p)
{
	PlModule *m = p;
	g_free((char *)m->path);
	g_free((char *)m->build_id);
	g_free((char *)m->name);
	g_free(m);
}

/* Modules by file (and build-id) for exports that name them; bounded, as
 * a hostile stream could map endless distinct names. */
void pl_profile_note_module(PlProfile *self, const char *path, const guint8 *id, gsize id_len)
{
	if (!*path || self->modules->len >= 65536)
		return;
	g_autofree char *base = g_path_get_basename(path);
	g_autofree char *hex = NULL;
	if (id_len) {
		hex = g_malloc(id_len * 2 + 1);
		for (gsize i = 0; i < id_len; i++)
			g_snprintf(hex + 2 * i, 3, "%02x", id[i]);
	}
	PlModule *old = g_hash_table_lookup(self->module_names, base);
	if (old && !g_strcmp0(old->path, path) && (!hex || !g_strcmp0(old->build_id, hex)))
		return;
	for (guint i = 0; old && i < self->modules->len; i++) {
		PlModule *m = self->modules->pdata[i];
		if (!g_strcmp0(m->path, path) && !g_strcmp0(m->build_id, hex))
			return;
	}
	PlModule *m = g_new0(PlModule, 1);
	m->path = g_strdup(path);
	m->name = g_steal_pointer(&base);
	m->build_id = g_steal_pointer(&hex);
	g_ptr_array_add(self->modules, m);
	if (!old)
		g_hash_table_insert(self->module_names, (gpointer)m->name, m);
}

GPtrArray *pl_profile_get_modules(PlProfile *self)
{
	return self->modules;
}

const PlModule *pl_profile_lookup_module(PlProfile *self, const char *name)
{
	return name ? g_hash_table_lookup(self->module_names, name) : NULL;
}
