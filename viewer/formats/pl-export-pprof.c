/* pl-export-pprof.c — profile.proto (github.com/google/pprof, proto/
 * profile.proto), gzipped.  The protobuf wire format is written by hand:
 * the message is small (varints, length-delimited fields) and a generated
 * codec would add a build step for five message types.
 *
 * Layout choices:
 *   - one Mapping per module, addresses module-relative (the ELF virtual
 *     address nm and addr2line use), so memory_start = file_offset = 0 and
 *     a profile of several processes (ASLR) still shares locations;
 *     has_functions etc. are set, so pprof does not try to symbolize again;
 *   - one Location per (module, address, return-address-or-not): its Line
 *     list holds the inline frames innermost first, the real function last
 *     (what profile.proto asks for);
 *   - one Sample per distinct address stack, values [samples, weight].
 * With a stack filter the stacks are function paths: one Location per
 * function (address 0). */
#include <string.h>

#include <gio/gio.h>

#include "pl-export.h"
#include "writer.h"

/* ─── protobuf wire format ───────────────────────────────────────────── */

enum { WT_VARINT = 0, WT_LEN = 2 };

static void pb_varint(GByteArray *b, guint64 v)
{
	guint8 tmp[10];
	g_byte_array_append(b, tmp, (guint)pl_varint_encode(tmp, v));
}

static void pb_key(GByteArray *b, guint field, guint wt)
{
	pb_varint(b, (guint64)field << 3 | wt);
}

static void pb_uint(GByteArray *b, guint field, guint64 v)
{
	if (!v)
		return; /* proto3: zero is the default, not written */
	pb_key(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(GByteArray *b, guint field, const void *p, gsize n)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, n);
	g_byte_array_append(b, p, (guint)n);
}

static void pb_msg(GByteArray *b, guint field, GByteArray *sub)
{
	pb_bytes(b, field, sub->data, sub->len);
	g_byte_array_set_size(sub, 0);
}

/* packed repeated varints */
static void pb_packed(GByteArray *b, guint field, const guint64 *v, guint n, GByteArray *tmp)
{
	g_byte_array_set_size(tmp, 0);
	for (guint i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(b, field, tmp);
}

/* ─── tables ─────────────────────────────────────────────────────────── */

typedef struct {
	PlProfile *p;
	GByteArray *out; /* Profile, being built */
	GByteArray *m, *m2, *tmp; /* scratch: m for mappings and locations, m2 for lines and
				   * samples, fm for functions (built while a location is) */
	GByteArray *fm;
	GHashTable *strings; /* char* → index+1 */
	GPtrArray *string_list;
	GHashTable *mappings; /* module name → id */
	GHashTable *functions; /* "name\x01file" → id */
	GHashTable *locations; /* Key* → id */
	GArray *mapping_limit; /* per mapping id: highest address + 1 */
	GByteArray *mapping_msgs, *function_msgs, *location_msgs; /* encoded, in id order */
} Pb;

typedef struct {
	guint64 mapping, addr, flags;
} Key;

static guint key_hash(gconstpointer k)
{
	const Key *x = k;
	return g_int64_hash(&x->addr) ^ (guint)(x->mapping * 31 + x->flags);
}

static gboolean key_equal(gconstpointer a, gconstpointer b)
{
	return memcmp(a, b, sizeof(Key)) == 0;
}

static guint64 str_id(Pb *pb, const char *s)
{
	if (!s)
		s = "";
	gpointer v = g_hash_table_lookup(pb->strings, s);
	if (v)
		return GPOINTER_TO_UINT(v) - 1;
	char *c = g_strdup(s);
	g_ptr_array_add(pb->string_list, c);
	g_hash_table_insert(pb->strings, c, GUINT_TO_POINTER(pb->string_list->len));
	return pb->string_list->len - 1;
}

static guint64 mapping_id(Pb *pb, const char *module)
{
	if (!module)
		module = "[unknown]";
	gpointer v = g_hash_table_lookup(pb->mappings, module);
	if (v)
		return GPOINTER_TO_UINT(v);
	guint64 id = g_hash_table_size(pb->mappings) + 1;
	g_hash_table_insert(pb->mappings, g_strdup(module), GUINT_TO_POINTER(id));
	guint64 zero = 0;
	g_array_append_val(pb->mapping_limit, zero);
	return id;
}

static guint64 function_id(Pb *pb, const char *name, const char *file)
{
	g_autofree char *k = g_strdup_printf("%s\x01%s", name, file ? file : "");
	gpointer v = g_hash_table_lookup(pb->functions, k);
	if (v)
		return GPOINTER_TO_UINT(v);
	guint64 id = g_hash_table_size(pb->functions) + 1;
	g_hash_table_insert(pb->functions, g_steal_pointer(&k), GUINT_TO_POINTER(id));
	GByteArray *m = pb->fm;
	pb_uint(m, 1, id);
	pb_uint(m, 2, str_id(pb, name));
	pb_uint(m, 3, str_id(pb, name));
	pb_uint(m, 4, str_id(pb, file));
	pb_msg(pb->function_msgs, 5, m);
	return id;
}

typedef struct {
	const char *name, *file;
	guint line;
} LineInfo;

static guint64 location_id(Pb *pb, const char *module, guint64 addr, guint64 flags,
			   const LineInfo *lines, guint n)
{
	guint64 map = mapping_id(pb, module);
	Key k = { map, addr, flags };
	gpointer v = g_hash_table_lookup(pb->locations, &k);
	if (v)
		return GPOINTER_TO_UINT(v);
	guint64 id = g_hash_table_size(pb->locations) + 1;
	g_hash_table_insert(pb->locations, g_memdup2(&k, sizeof(k)), GUINT_TO_POINTER(id));
	guint64 *limit = &g_array_index(pb->mapping_limit, guint64, map - 1);
	if (addr + 1 > *limit)
		*limit = addr + 1;
	GByteArray *m = pb->m;
	pb_uint(m, 1, id);
	pb_uint(m, 2, map);
	pb_uint(m, 3, addr);
	for (guint i = 0; i < n; i++) {
		GByteArray *l = pb->m2;
		pb_uint(l, 1, function_id(pb, lines[i].name, lines[i].file));
		pb_uint(l, 2, lines[i].line);
		pb_msg(m, 4, l);
	}
	pb_msg(pb->location_msgs, 4, m);
	return id;
}

static void value_type(Pb *pb, guint field, const char *type, const char *unit)
{
	GByteArray *m = pb->m;
	pb_uint(m, 1, str_id(pb, type));
	pb_uint(m, 2, str_id(pb, unit));
	pb_msg(pb->out, field, m);
}

/* ─── stacks ─────────────────────────────────────────────────────────── */

#define MAX_FRAMES 32

/* The location of one address-trie node (innermost inline frame first). */
static guint64 addr_location(Pb *pb, const PlStackFrame *sf)
{
	PlFrameInfo fr[MAX_FRAMES];
	guint n = pl_symbols_resolve(pl_profile_get_symbols(pb->p), sf->pid, sf->pc,
				     sf->is_return, fr, MAX_FRAMES);
	LineInfo li[MAX_FRAMES] = { { 0 } };
	char *hex[MAX_FRAMES] = { 0 }; /* freed below */
	for (guint i = 0; i < n; i++) {
		li[i].name = fr[i].function;
		if (!li[i].name)
			li[i].name = hex[i] = g_strdup_printf("0x%" G_GINT64_MODIFIER "x",
							      fr[i].rel_addr);
		/* Function.filename is the line's file (pprof files a Line under its
		 * function's file): two static helpers of a.c and b.c are two
		 * functions, which pprof -filefunctions shows apart */
		li[i].file = fr[i].file;
		li[i].line = fr[i].line;
	}
	const char *module = n ? fr[0].module : NULL;
	if (!module)
		module = sf->kernel ? "[kernel]" : "[unknown]";
	guint64 addr = n ? fr[0].rel_addr : sf->pc;
	guint64 id = location_id(pb, module, addr, sf->is_return, li, n);
	for (guint i = 0; i < n; i++)
		g_free(hex[i]);
	return id;
}

typedef struct {
	Pb *pb;
	GArray *locs;
} FuncStacks;

static void func_stack(const guint32 *funcs, guint depth, const PlCount *self, gpointer data)
{
	FuncStacks *fs = data;
	Pb *pb = fs->pb;
	g_array_set_size(fs->locs, 0);
	for (guint i = depth; i-- > 0;) {
		const PlFunction *f = pl_profile_get_function(pb->p, funcs[i]);
		/* the defining file keeps functions of one name apart, as above */
		LineInfo li = { pl_profile_get_function_label(pb->p, funcs[i]), f->file, 0 };
		guint64 id = location_id(pb, f->module, 0, funcs[i], &li, 1);
		g_array_append_val(fs->locs, id);
	}
	GByteArray *s = pb->m2;
	pb_packed(s, 1, (const guint64 *)fs->locs->data, fs->locs->len, pb->tmp);
	guint64 vals[2] = { self->samples, self->weight };
	pb_packed(s, 2, vals, 2, pb->tmp);
	pb_msg(pb->out, 2, s);
}

/* ─── the profile ────────────────────────────────────────────────────── */

static void pb_free(Pb *pb)
{
	g_byte_array_unref(pb->out);
	g_byte_array_unref(pb->m);
	g_byte_array_unref(pb->m2);
	g_byte_array_unref(pb->tmp);
	g_byte_array_unref(pb->fm);
	g_hash_table_destroy(pb->strings);
	g_ptr_array_unref(pb->string_list);
	g_hash_table_destroy(pb->mappings);
	g_hash_table_destroy(pb->functions);
	g_hash_table_destroy(pb->locations);
	g_array_free(pb->mapping_limit, TRUE);
	g_byte_array_unref(pb->mapping_msgs);
	g_byte_array_unref(pb->function_msgs);
	g_byte_array_unref(pb->location_msgs);
}

static gboolean write_gzip(const char *path, const guint8 *data, gsize len, GError **error)
{
	g_autoptr(GFile) f = g_file_new_for_path(path);
	g_autoptr(GFileOutputStream) fo =
		g_file_replace(f, NULL, FALSE, G_FILE_CREATE_NONE, NULL, error);
	if (!fo)
		return FALSE;
	g_autoptr(GZlibCompressor) z = g_zlib_compressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
	g_autoptr(GOutputStream) out =
		g_converter_output_stream_new(G_OUTPUT_STREAM(fo), G_CONVERTER(z));
	gsize written;
	if (!g_output_stream_write_all(out, data, len, &written, NULL, error))
		return FALSE;
	return g_output_stream_close(out, NULL, error);
}

gboolean pl_export_pprof(PlAggregate *agg, const char *path, GError **error)
{
	PlProfile *p = agg->profile;
	Pb pb = {
		.p = p,
		.out = g_byte_array_new(),
		.m = g_byte_array_new(),
		.m2 = g_byte_array_new(),
		.tmp = g_byte_array_new(),
		.fm = g_byte_array_new(),
		.strings = g_hash_table_new(g_str_hash, g_str_equal),
		.string_list = g_ptr_array_new_with_free_func(g_free),
		.mappings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.functions = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
		.locations = g_hash_table_new_full(key_hash, key_equal, g_free, NULL),
		.mapping_limit = g_array_new(FALSE, FALSE, sizeof(guint64)),
		.mapping_msgs = g_byte_array_new(),
		.function_msgs = g_byte_array_new(),
		.location_msgs = g_byte_array_new(),
	};
	str_id(&pb, ""); /* string_table[0] must be "" */

	const PlEvent *ev = agg->filter.event != PL_NO_ID
				    ? pl_profile_lookup_event(p, agg->filter.event)
				    : NULL;
	gboolean off_cpu = ev && ev->role == PL_ROLE_SWITCH;
	gboolean ns = off_cpu || (ev && (!strcmp(ev->name, "cpu-clock") ||
					 !strcmp(ev->name, "task-clock")));
	const char *kind = off_cpu ? "off-cpu" : ev ? ev->name : "events";
	value_type(&pb, 1, "samples", "count");
	value_type(&pb, 1, ns ? (off_cpu ? "off-cpu" : "cpu") : kind, ns ? "nanoseconds" : "count");

	if (agg->node_map) {
		FuncStacks fs = { &pb, g_array_new(FALSE, FALSE, sizeof(guint64)) };
		pl_aggregate_foreach_stack(agg, func_stack, &fs);
		g_array_free(fs.locs, TRUE);
	} else {
		/* leaf to root per distinct address stack; locations cached by
		 * stack id as most stacks share their callers */
		guint n = agg->n_stacks;
		g_autofree guint64 *loc_of = g_new0(guint64, n);
		g_autoptr(GArray) locs = g_array_new(FALSE, FALSE, sizeof(guint64));
		for (guint32 a = 0; a < n; a++) {
			const PlCount *c = &agg->stack_self[a];
			if (!c->samples)
				continue;
			g_array_set_size(locs, 0);
			PlStackFrame sf;
			for (guint32 x = a; x != PL_NO_ID && pl_profile_get_stack_frame(p, x, &sf);
			     x = sf.parent) {
				if (sf.root)
					break;
				if (!loc_of[x])
					loc_of[x] = addr_location(&pb, &sf);
				g_array_append_val(locs, loc_of[x]);
			}
			GByteArray *s = pb.m2;
			pb_packed(s, 1, (const guint64 *)locs->data, locs->len, pb.tmp);
			guint64 vals[2] = { c->samples, c->weight };
			pb_packed(s, 2, vals, 2, pb.tmp);
			pb_msg(pb.out, 2, s);
		}
	}

	/* mappings: file name and build-id of each module */
	GHashTableIter it;
	gpointer k, v;
	g_autofree const char **names = g_new0(const char *, g_hash_table_size(pb.mappings) + 1);
	g_hash_table_iter_init(&it, pb.mappings);
	while (g_hash_table_iter_next(&it, &k, &v))
		names[GPOINTER_TO_UINT(v) - 1] = k;
	for (guint i = 0; i < g_hash_table_size(pb.mappings); i++) {
		const PlModule *mod = pl_profile_lookup_module(p, names[i]);
		gboolean special = names[i][0] == '[';
		GByteArray *m = pb.m;
		pb_uint(m, 1, i + 1);
		pb_uint(m, 2, 0);
		pb_uint(m, 3, g_array_index(pb.mapping_limit, guint64, i));
		pb_uint(m, 5, str_id(&pb, mod ? mod->path : names[i]));
		if (mod && mod->build_id)
			pb_uint(m, 6, str_id(&pb, mod->build_id));
		pb_uint(m, 7, 1); /* has_functions */
		pb_uint(m, 8, !special);
		pb_uint(m, 9, !special && !agg->node_map);
		pb_uint(m, 10, !agg->node_map);
		pb_msg(pb.mapping_msgs, 3, m);
	}
	g_byte_array_append(pb.out, pb.mapping_msgs->data, pb.mapping_msgs->len);
	g_byte_array_append(pb.out, pb.location_msgs->data, pb.location_msgs->len);
	g_byte_array_append(pb.out, pb.function_msgs->data, pb.function_msgs->len);

	const PlProfileStats *st = pl_profile_get_stats(p);
	GByteArray *strs = g_byte_array_new();
	for (guint i = 0; i < pb.string_list->len; i++) {
		const char *s = pb.string_list->pdata[i];
		pb_bytes(strs, 6, s, strlen(s));
	}
	g_byte_array_append(pb.out, strs->data, strs->len);
	g_byte_array_unref(strs);
	if (st->last_time > st->first_time)
		pb_uint(pb.out, 10, st->last_time - st->first_time);
	if (ns) {
		GByteArray *m = pb.m;
		pb_uint(m, 1, str_id(&pb, off_cpu ? "off-cpu" : "cpu"));
		pb_uint(m, 2, str_id(&pb, "nanoseconds"));
		/* the string table is already out: these two were interned
		 * above for the sample types, so their ids are known */
		pb_msg(pb.out, 11, m);
		if (!off_cpu && st->frequency)
			pb_uint(pb.out, 12, 1000000000ull / st->frequency);
	}
	gboolean ok = write_gzip(path, pb.out->data, pb.out->len, error);
	pb_free(&pb);
	return ok;
}
