/* pl-fleet-symcache.c — see pl-fleet-symcache.h.
 *
 * In memory: "HEXID OFFSET R" (R: 1 for a return address) → the frames,
 * their strings in one chunk.  In ClickHouse: one row per key, the frames
 * as parallel arrays (PL_FLEET_SYMBOL_COLUMNS). */
#include "pl-fleet-symcache.h"

#include "pl-build-id.h"
#include "pl-fleet-rowbinary.h"
#include "pl-fleet-schema.h"

#define MAX_FRAMES 32          /* as a self-contained session keeps them */
#define RETRY_US (60 * G_USEC_PER_SEC)
#define MAX_PENDING (1u << 20) /* answers waiting for ClickHouse: past it, not kept there */

typedef struct {
	guint n;
	PlFrameInfo fr[];
} Entry;

struct _PlFleetSymcache {
	PlClickhouse *ch;
	GHashTable *entries; /* key → Entry* */
	GHashTable *ids;     /* hex build-id → gint64*: 0 loaded, else when to ask again */
	GStringChunk *strings;
	GByteArray *pending; /* RowBinary rows not inserted yet */
	guint n_pending;
	PlFleetSymcacheStats last, total;
};

static char *key_of(const char *hex, guint64 offset, gboolean is_return)
{
	return g_strdup_printf("%s %" G_GINT64_MODIFIER "x %d", hex, offset, is_return ? 1 : 0);
}

static const char *keep_str(PlFleetSymcache *self, const char *s)
{
	return s && *s ? g_string_chunk_insert_const(self->strings, s) : NULL;
}

static void put(PlFleetSymcache *self, char *key, const PlFrameInfo *fr, guint n)
{
	n = MIN(n, MAX_FRAMES);
	Entry *e = g_malloc(sizeof *e + n * sizeof e->fr[0]);
	e->n = n;
	for (guint i = 0; i < n; i++) {
		e->fr[i] = fr[i];
		e->fr[i].function = keep_str(self, fr[i].function);
		e->fr[i].module = keep_str(self, fr[i].module);
		e->fr[i].file = keep_str(self, fr[i].file);
		e->fr[i].decl_file = keep_str(self, fr[i].decl_file);
	}
	g_hash_table_replace(self->entries, key, e);
}

/* ─── ClickHouse ──────────────────────────────────────────────────────── */

/* Reads the rows of one build-id (RowBinary of the columns below). */
static gboolean load_rows(PlFleetSymcache *self, const char *hex, const GByteArray *data)
{
	PlRbCursor c = { data->data, data->data + data->len, FALSE };
	while (c.p < c.end && !c.bad) {
		guint64 offset = pl_rb_int(&c, 8);
		gboolean ret = pl_rb_int(&c, 1) != 0;
		PlFrameInfo fr[MAX_FRAMES] = { 0 };
		g_autoptr(GPtrArray) strs = g_ptr_array_new_with_free_func(g_free);
		guint n = 0;
		/* functions, modules, files, lines, rel_addrs, inlined, decl_files, decl_lines */
		for (guint col = 0; col < 8 && !c.bad; col++) {
			guint64 len = pl_rb_len(&c);
			if (col == 0)
				n = (guint)MIN(len, (guint64)MAX_FRAMES + 1);
			if (c.bad || len != n || n == 0 || n > MAX_FRAMES) {
				c.bad = TRUE;
				break;
			}
			for (guint i = 0; i < n && !c.bad; i++) {
				if (col == 3 || col == 7) {
					guint32 v = (guint32)pl_rb_int(&c, 4);
					*(col == 3 ? &fr[i].line : &fr[i].decl_line) = v;
				} else if (col == 4) {
					fr[i].rel_addr = pl_rb_int(&c, 8);
				} else if (col == 5) {
					fr[i].inlined = pl_rb_int(&c, 1) != 0;
				} else {
					gsize sl = 0;
					const char *s = pl_rb_str(&c, &sl);
					if (!s)
						break;
					char *z = g_strndup(s, sl);
					g_ptr_array_add(strs, z);
					const char **slot = col == 0 ? &fr[i].function
							    : col == 1 ? &fr[i].module
							    : col == 2 ? &fr[i].file
									: &fr[i].decl_file;
					*slot = z;
				}
			}
		}
		if (c.bad)
			break;
		put(self, key_of(hex, offset, ret), fr, n);
		self->last.loaded++;
		self->total.loaded++;
	}
	return !c.bad;
}

/* The first time a build-id is met: what ClickHouse knows of it. */
static void load_id(PlFleetSymcache *self, const char *hex)
{
	gint64 *when = g_hash_table_lookup(self->ids, hex);
	if (when && (*when == 0 || g_get_monotonic_time() < *when))
		return;
	if (!when) {
		when = g_new0(gint64, 1);
		g_hash_table_insert(self->ids, g_strdup(hex), when);
	}
	*when = 0;
	if (!self->ch)
		return;
	g_autofree char *q = g_strdup_printf(
		"SELECT offset, is_return, functions, modules, files, lines, rel_addrs, inlined, "
		"decl_files, decl_lines FROM perflens_symbols WHERE build_id = '%s' FORMAT RowBinary",
		hex);
	g_autoptr(GByteArray) out = NULL;
	g_autoptr(GError) error = NULL;
	if (!pl_clickhouse_run(self->ch, q, NULL, 0, &out, &error)) {
		*when = g_get_monotonic_time() + RETRY_US;
		return;
	}
	if (!load_rows(self, hex, out))
		g_printerr("perflens collect: the symbols ClickHouse keeps for build-id %s are "
			   "malformed (%u bytes): read up to there, the rest symbolized again\n",
			   hex, out->len);
}

static void add_pending(PlFleetSymcache *self, const char *hex, guint64 offset, gboolean ret,
			const PlFrameInfo *fr, guint n)
{
	if (self->n_pending >= MAX_PENDING)
		return;
	GByteArray *b = self->pending;
	pl_rb_put_str(b, hex);
	pl_rb_put_int(b, offset, 8);
	pl_rb_put_int(b, ret ? 1 : 0, 1);
	for (guint col = 0; col < 8; col++) {
		pl_rb_put_len(b, n);
		for (guint i = 0; i < n; i++) {
			switch (col) {
			case 0: pl_rb_put_str(b, fr[i].function); break;
			case 1: pl_rb_put_str(b, fr[i].module); break;
			case 2: pl_rb_put_str(b, fr[i].file); break;
			case 3: pl_rb_put_int(b, fr[i].line, 4); break;
			case 4: pl_rb_put_int(b, fr[i].rel_addr, 8); break;
			case 5: pl_rb_put_int(b, fr[i].inlined ? 1 : 0, 1); break;
			case 6: pl_rb_put_str(b, fr[i].decl_file); break;
			default: pl_rb_put_int(b, fr[i].decl_line, 4); break;
			}
		}
	}
	self->n_pending++;
}

gboolean pl_fleet_symcache_flush(PlFleetSymcache *self, GError **error)
{
	if (!self->ch || !self->n_pending)
		return TRUE;
	if (!pl_clickhouse_run(self->ch,
			       "INSERT INTO perflens_symbols " PL_FLEET_SYMBOL_COLUMNS " FORMAT RowBinary",
			       self->pending->data, self->pending->len, NULL, error))
		return FALSE;
	self->last.inserted += self->n_pending;
	self->total.inserted += self->n_pending;
	g_byte_array_set_size(self->pending, 0);
	self->n_pending = 0;
	return TRUE;
}

/* ─── the symbolizer's side (PlSymCache) ──────────────────────────────── */

static guint cache_lookup(gpointer data, const guint8 *id, gsize id_len, guint64 offset,
			  gboolean ret, PlFrameInfo *out, guint max)
{
	PlFleetSymcache *self = data;
	g_autofree char *hex = pl_build_id_hex(id, id_len);
	load_id(self, hex);
	g_autofree char *key = key_of(hex, offset, ret);
	const Entry *e = g_hash_table_lookup(self->entries, key);
	if (!e) {
		self->last.symbolized++;
		self->total.symbolized++;
		return 0;
	}
	self->last.hits++;
	self->total.hits++;
	guint n = MIN(e->n, max);
	memcpy(out, e->fr, n * sizeof *out);
	return n;
}

static void cache_store(gpointer data, const guint8 *id, gsize id_len, guint64 offset,
			gboolean ret, const PlFrameInfo *fr, guint n)
{
	PlFleetSymcache *self = data;
	g_autofree char *hex = pl_build_id_hex(id, id_len);
	n = MIN(n, MAX_FRAMES);
	put(self, key_of(hex, offset, ret), fr, n);
	add_pending(self, hex, offset, ret, fr, n);
	self->last.kept++;
	self->total.kept++;
}

static const PlSymCache funcs = { cache_lookup, cache_store };

void pl_fleet_symcache_attach(PlFleetSymcache *self, PlSymOptions *o)
{
	o->cache = &funcs;
	o->cache_data = self;
}

/* ─── the cache ───────────────────────────────────────────────────────── */

PlFleetSymcache *pl_fleet_symcache_new(PlClickhouse *ch)
{
	PlFleetSymcache *self = g_new0(PlFleetSymcache, 1);
	self->ch = ch;
	self->entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	self->ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
	self->strings = g_string_chunk_new(64 * 1024);
	self->pending = g_byte_array_new();
	return self;
}

void pl_fleet_symcache_free(PlFleetSymcache *self)
{
	if (!self)
		return;
	g_hash_table_unref(self->entries);
	g_hash_table_unref(self->ids);
	g_string_chunk_free(self->strings);
	g_byte_array_unref(self->pending);
	g_free(self);
}

void pl_fleet_symcache_take_stats(PlFleetSymcache *self, PlFleetSymcacheStats *since_last,
				  PlFleetSymcacheStats *total)
{
	if (since_last)
		*since_last = self->last;
	if (total)
		*total = self->total;
	self->last = (PlFleetSymcacheStats){ 0 };
}
