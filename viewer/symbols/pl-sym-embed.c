/* pl-sym-embed.c — the embedded symbolization table (pl-sym-embed.h):
 * its lookups, its serialization and its bounds-checked parser. */
#include <string.h>

#include "cursor.h"
#include "writer.h"
#include "pl-sym-embed.h"

#define MAGIC "PLSYMTAB"
#define MAX_STRING (64u << 10)
#define MAX_STRINGS (16u << 20)
#define MAX_ENTRIES (64u << 20)
#define MAX_FRAMES 32u
#define MAX_PCS 1024u /* PL_MAX_CALLCHAIN */
#define MAX_MODULES 65536u
#define MAX_SOURCES 4096u
#define MAX_DISASM 4096u
#define MAX_DISASM_LINES 65536u

typedef struct {
	guint32 pid;
	guint8 ret;
	guint64 pc;
} FrameKey;

typedef struct {
	guint first; /* in e->frames */
	guint n;
} FrameSpan;

typedef struct {
	guint first; /* in e->pcs */
	guint n;
	gboolean truncated;
} PcSpan;

typedef struct {
	char *module, *symbol;
	GArray *lines; /* PlSymEmbedLine, texts in e->strings */
} Disasm;

struct _PlSymEmbed {
	GStringChunk *strings;
	PlSymEmbedOrigin origin;
	GHashTable *frame_tab; /* FrameKey* -> FrameSpan* */
	GPtrArray *frame_keys; /* FrameKey*, in order of first put (serialization order) */
	GArray *frames;        /* PlFrameInfo */
	GHashTable *unwind_tab; /* guint64* -> PcSpan* */
	GArray *unwind_keys;    /* guint64, in order */
	GArray *pcs;
	GArray *modules; /* PlSymEmbedModule */
	GHashTable *sources; /* path -> GBytes* (text, NUL-terminated beyond len) */
	GPtrArray *source_order; /* char* paths, borrowed from sources' keys */
	gsize sources_bytes;
	GPtrArray *disasm; /* Disasm* */
};

static guint frame_key_hash(gconstpointer p)
{
	const FrameKey *k = p;
	guint64 h = k->pc * 0x9e3779b97f4a7c15ull ^ ((guint64)k->pid << 1 | k->ret);
	return (guint)(h ^ h >> 32);
}

static gboolean frame_key_equal(gconstpointer a, gconstpointer b)
{
	const FrameKey *x = a, *y = b;
	return x->pc == y->pc && x->pid == y->pid && x->ret == y->ret;
}

static void disasm_free(gpointer p)
{
	Disasm *d = p;
	g_array_unref(d->lines);
	g_free(d);
}

PlSymEmbed *pl_sym_embed_new(void)
{
	PlSymEmbed *e = g_new0(PlSymEmbed, 1);
	e->strings = g_string_chunk_new(64 * 1024);
	e->frame_tab = g_hash_table_new_full(frame_key_hash, frame_key_equal, NULL, g_free);
	e->frame_keys = g_ptr_array_new_with_free_func(g_free);
	e->frames = g_array_new(FALSE, FALSE, sizeof(PlFrameInfo));
	e->unwind_tab = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	e->unwind_keys = g_array_new(FALSE, FALSE, sizeof(guint64));
	e->pcs = g_array_new(FALSE, FALSE, sizeof(guint64));
	e->modules = g_array_new(FALSE, TRUE, sizeof(PlSymEmbedModule));
	e->sources = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					   (GDestroyNotify)g_bytes_unref);
	e->source_order = g_ptr_array_new();
	e->disasm = g_ptr_array_new_with_free_func(disasm_free);
	return e;
}

void pl_sym_embed_free(PlSymEmbed *e)
{
	if (!e)
		return;
	g_hash_table_unref(e->frame_tab);
	g_ptr_array_unref(e->frame_keys);
	g_array_unref(e->frames);
	g_hash_table_unref(e->unwind_tab);
	g_array_unref(e->unwind_keys);
	g_array_unref(e->pcs);
	g_array_unref(e->modules);
	g_ptr_array_unref(e->source_order);
	g_hash_table_unref(e->sources);
	g_ptr_array_unref(e->disasm);
	g_string_chunk_free(e->strings);
	g_free(e);
}

static const char *intern(PlSymEmbed *e, const char *s)
{
	return s ? g_string_chunk_insert_const(e->strings, s) : NULL;
}

void pl_sym_embed_set_origin(PlSymEmbed *e, const char *host, gint64 time, const char *version,
			     const char *source)
{
	e->origin.host = intern(e, host ? host : "");
	e->origin.time = time;
	e->origin.version = intern(e, version ? version : "");
	e->origin.source = intern(e, source ? source : "");
}

const PlSymEmbedOrigin *pl_sym_embed_get_origin(PlSymEmbed *e)
{
	return &e->origin;
}

/* ─── frames and unwinds ─────────────────────────────────────────────── */

void pl_sym_embed_put_frames(PlSymEmbed *e, guint32 pid, guint64 pc, gboolean is_return,
			     const PlFrameInfo *fr, guint n)
{
	FrameKey k = { pid, is_return ? 1 : 0, pc };
	n = MIN(n, MAX_FRAMES);
	if (n == 0)
		return;
	FrameSpan *sp = g_hash_table_lookup(e->frame_tab, &k);
	if (!sp) {
		FrameKey *kk = g_memdup2(&k, sizeof k);
		sp = g_new0(FrameSpan, 1);
		g_hash_table_insert(e->frame_tab, kk, sp);
		g_ptr_array_add(e->frame_keys, kk);
	}
	sp->first = e->frames->len; /* a replaced answer's frames stay unused */
	sp->n = n;
	for (guint i = 0; i < n; i++) {
		PlFrameInfo f = fr[i];
		f.function = intern(e, f.function);
		f.module = intern(e, f.module);
		f.file = intern(e, f.file);
		f.decl_file = intern(e, f.decl_file);
		g_array_append_val(e->frames, f);
	}
}

guint pl_sym_embed_get_frames(PlSymEmbed *e, guint32 pid, guint64 pc, gboolean is_return,
			      PlFrameInfo *out, guint max)
{
	FrameKey k = { pid, is_return ? 1 : 0, pc };
	const FrameSpan *sp = g_hash_table_lookup(e->frame_tab, &k);
	if (!sp)
		return 0;
	guint n = MIN(sp->n, max);
	memcpy(out, &g_array_index(e->frames, PlFrameInfo, sp->first), n * sizeof(PlFrameInfo));
	return n;
}

/* Word-wise multiply-xorshift over everything the walk reads: fast on
 * 8 KiB copies, and a 64-bit key makes a collision among a session's
 * million stacks a one in 10^7 chance. */
static guint64 mix(guint64 h, guint64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdull;
	return h ^ h >> 33;
}

guint64 pl_sym_embed_unwind_key(guint32 pid, guint32 tid, guint64 regs_mask,
				const guint64 *regs, guint nregs, const guint8 *stack,
				gsize stack_size)
{
	guint64 h = mix(mix(mix(0x504c53594d544142ull, pid), tid), regs_mask);
	for (guint i = 0; regs && i < nregs; i++)
		h = mix(h, regs[i]);
	h = mix(h, stack_size);
	gsize i = 0;
	for (; stack && i + 8 <= stack_size; i += 8) {
		guint64 w;
		memcpy(&w, stack + i, 8);
		h = mix(h, w);
	}
	guint64 tail = 0;
	for (guint j = 0; stack && i < stack_size; i++, j++)
		tail |= (guint64)stack[i] << (8 * j);
	return mix(h, tail);
}

void pl_sym_embed_put_unwind(PlSymEmbed *e, guint64 key, const guint64 *pcs, guint n,
			     gboolean truncated)
{
	n = MIN(n, MAX_PCS);
	PcSpan *sp = g_hash_table_lookup(e->unwind_tab, &key);
	if (!sp) {
		sp = g_new0(PcSpan, 1);
		g_hash_table_insert(e->unwind_tab, g_memdup2(&key, sizeof key), sp);
		g_array_append_val(e->unwind_keys, key);
	}
	sp->first = e->pcs->len;
	sp->n = n;
	sp->truncated = truncated;
	g_array_append_vals(e->pcs, pcs, n);
}

gint pl_sym_embed_get_unwind(PlSymEmbed *e, guint64 key, guint64 *pcs, guint max,
			     gboolean *truncated)
{
	const PcSpan *sp = g_hash_table_lookup(e->unwind_tab, &key);
	if (!sp)
		return -1;
	guint n = MIN(sp->n, max);
	memcpy(pcs, &g_array_index(e->pcs, guint64, sp->first), n * sizeof(guint64));
	*truncated = sp->truncated;
	return (gint)n;
}

guint pl_sym_embed_n_frames(PlSymEmbed *e)
{
	return e->frame_keys->len;
}

guint pl_sym_embed_n_unwinds(PlSymEmbed *e)
{
	return e->unwind_keys->len;
}

/* ─── modules, sources, disassembly ──────────────────────────────────── */

void pl_sym_embed_put_module(PlSymEmbed *e, const PlSymEmbedModule *m)
{
	PlSymEmbedModule c = *m;
	c.module = intern(e, m->module);
	c.local_path = intern(e, m->local_path);
	c.debug_path = intern(e, m->debug_path);
	c.problem = intern(e, m->problem);
	c.fetched_from = intern(e, m->fetched_from);
	g_array_append_val(e->modules, c);
}

guint pl_sym_embed_n_modules(PlSymEmbed *e)
{
	return e->modules->len;
}

const PlSymEmbedModule *pl_sym_embed_get_module(PlSymEmbed *e, guint i)
{
	g_return_val_if_fail(i < e->modules->len, NULL);
	return &g_array_index(e->modules, PlSymEmbedModule, i);
}

gboolean pl_sym_embed_put_source(PlSymEmbed *e, const char *path, const char *text, gsize len)
{
	if (!path || g_hash_table_contains(e->sources, path))
		return !!path;
	if (len > PL_SYM_EMBED_MAX_SOURCE || len > PL_SYM_EMBED_MAX_SOURCES_TOTAL - e->sources_bytes)
		return FALSE;
	char *copy = g_malloc(len + 1); /* NUL-terminated: callers may treat it as a string */
	memcpy(copy, text, len);
	copy[len] = 0;
	char *k = g_strdup(path);
	g_hash_table_insert(e->sources, k, g_bytes_new_take(copy, len + 1));
	g_ptr_array_add(e->source_order, k);
	e->sources_bytes += len;
	return TRUE;
}

const char *pl_sym_embed_get_source(PlSymEmbed *e, const char *path, gsize *len)
{
	GBytes *b = path ? g_hash_table_lookup(e->sources, path) : NULL;
	if (!b)
		return NULL;
	gsize n;
	const char *d = g_bytes_get_data(b, &n);
	if (len)
		*len = n - 1;
	return d;
}

guint pl_sym_embed_n_sources(PlSymEmbed *e)
{
	return e->source_order->len;
}

void pl_sym_embed_put_disasm(PlSymEmbed *e, const char *module, const char *symbol,
			     const PlSymEmbedLine *lines, guint n)
{
	guint have;
	if (!module || !symbol || pl_sym_embed_get_disasm(e, module, symbol, &have))
		return;
	Disasm *d = g_new0(Disasm, 1);
	d->module = (char *)intern(e, module);
	d->symbol = (char *)intern(e, symbol);
	d->lines = g_array_sized_new(FALSE, FALSE, sizeof(PlSymEmbedLine), MIN(n, MAX_DISASM_LINES));
	for (guint i = 0; i < n && i < MAX_DISASM_LINES; i++) {
		PlSymEmbedLine l = lines[i];
		l.text = intern(e, l.text ? l.text : "");
		g_array_append_val(d->lines, l);
	}
	g_ptr_array_add(e->disasm, d);
}

const PlSymEmbedLine *pl_sym_embed_get_disasm(PlSymEmbed *e, const char *module,
					      const char *symbol, guint *n)
{
	for (guint i = 0; module && symbol && i < e->disasm->len; i++) {
		const Disasm *d = g_ptr_array_index(e->disasm, i);
		if (!strcmp(d->module, module) && !strcmp(d->symbol, symbol)) {
			*n = d->lines->len;
			return (const PlSymEmbedLine *)(void *)d->lines->data;
		}
	}
	*n = 0;
	return NULL;
}

guint pl_sym_embed_n_disasm(PlSymEmbed *e)
{
	return e->disasm->len;
}

/* ─── serialization ──────────────────────────────────────────────────── */

static void put_varint(GByteArray *b, guint64 v)
{
	guint8 tmp[10];
	g_byte_array_append(b, tmp, (guint)pl_varint_encode(tmp, v));
}

static void put_bytes(GByteArray *b, const void *p, gsize n)
{
	put_varint(b, n);
	g_byte_array_append(b, p, (guint)n);
}

static void put_str(GByteArray *b, const char *s)
{
	s = s ? s : "";
	put_bytes(b, s, MIN(strlen(s), MAX_STRING));
}

/* The string table: every distinct string of frames, modules and
 * listings, referenced as index + 1 (0: NULL). */
typedef struct {
	GHashTable *idx; /* const char* -> index + 1 */
	GPtrArray *order;
} StrTab;

static guint64 str_ref(StrTab *t, const char *s)
{
	if (!s)
		return 0;
	gpointer v = g_hash_table_lookup(t->idx, s);
	if (v)
		return GPOINTER_TO_UINT(v);
	g_ptr_array_add(t->order, (gpointer)s);
	g_hash_table_insert(t->idx, (gpointer)s, GUINT_TO_POINTER(t->order->len));
	return t->order->len;
}

GBytes *pl_sym_embed_serialize(PlSymEmbed *e)
{
	StrTab st = { g_hash_table_new(g_str_hash, g_str_equal), g_ptr_array_new() };
	/* the body first (it fills the string table), then the head */
	GByteArray *body = g_byte_array_new();
	put_varint(body, e->frame_keys->len);
	for (guint i = 0; i < e->frame_keys->len; i++) {
		const FrameKey *k = g_ptr_array_index(e->frame_keys, i);
		const FrameSpan *sp = g_hash_table_lookup(e->frame_tab, k);
		put_varint(body, k->pid);
		put_varint(body, k->pc);
		put_varint(body, k->ret);
		put_varint(body, sp->n);
		for (guint j = 0; j < sp->n; j++) {
			const PlFrameInfo *f = &g_array_index(e->frames, PlFrameInfo, sp->first + j);
			put_varint(body, str_ref(&st, f->function));
			put_varint(body, str_ref(&st, f->module));
			put_varint(body, str_ref(&st, f->file));
			put_varint(body, f->line);
			put_varint(body, f->rel_addr);
			guint8 inl = f->inlined ? 1 : 0;
			g_byte_array_append(body, &inl, 1);
			/* where the function is defined: its identity and the
			 * Source tab's place (PlFunction.file / line) */
			put_varint(body, str_ref(&st, f->decl_file));
			put_varint(body, f->decl_line);
		}
	}
	put_varint(body, e->unwind_keys->len);
	for (guint i = 0; i < e->unwind_keys->len; i++) {
		guint64 key = g_array_index(e->unwind_keys, guint64, i);
		const PcSpan *sp = g_hash_table_lookup(e->unwind_tab, &key);
		guint8 kb[9];
		for (guint j = 0; j < 8; j++)
			kb[j] = (guint8)(key >> (8 * j));
		kb[8] = sp->truncated ? 1 : 0;
		g_byte_array_append(body, kb, 9);
		put_varint(body, sp->n);
		guint64 prev = 0;
		for (guint j = 0; j < sp->n; j++) {
			guint64 pc = g_array_index(e->pcs, guint64, sp->first + j);
			gint64 d = (gint64)(pc - prev);
			put_varint(body, ((guint64)d << 1) ^ (guint64)(d >> 63));
			prev = pc;
		}
	}
	put_varint(body, e->modules->len);
	for (guint i = 0; i < e->modules->len; i++) {
		const PlSymEmbedModule *m = &g_array_index(e->modules, PlSymEmbedModule, i);
		put_varint(body, str_ref(&st, m->module));
		put_varint(body, str_ref(&st, m->local_path));
		put_varint(body, str_ref(&st, m->debug_path));
		put_varint(body, str_ref(&st, m->problem));
		put_varint(body, str_ref(&st, m->fetched_from));
		put_varint(body, (m->has_symbols ? 1u : 0) | (m->has_lines ? 2u : 0) |
					 (m->has_cfi ? 4u : 0) | (m->has_ehabi ? 8u : 0) |
					 (m->build_id_match ? 16u : 0));
		put_varint(body, m->samples);
	}
	put_varint(body, e->source_order->len);
	for (guint i = 0; i < e->source_order->len; i++) {
		const char *path = g_ptr_array_index(e->source_order, i);
		gsize len = 0;
		const char *text = pl_sym_embed_get_source(e, path, &len);
		put_str(body, path);
		put_bytes(body, text, len);
	}
	put_varint(body, e->disasm->len);
	for (guint i = 0; i < e->disasm->len; i++) {
		const Disasm *d = g_ptr_array_index(e->disasm, i);
		put_varint(body, str_ref(&st, d->module));
		put_varint(body, str_ref(&st, d->symbol));
		put_varint(body, d->lines->len);
		for (guint j = 0; j < d->lines->len; j++) {
			const PlSymEmbedLine *l = &g_array_index(d->lines, PlSymEmbedLine, j);
			put_varint(body, str_ref(&st, l->text));
			guint8 ins = l->is_insn ? 1 : 0;
			g_byte_array_append(body, &ins, 1);
			put_varint(body, l->addr);
		}
	}

	GByteArray *b = g_byte_array_new();
	g_byte_array_append(b, (const guint8 *)MAGIC, 8);
	put_varint(b, PL_SYM_EMBED_VERSION);
	put_varint(b, 0); /* flags */
	put_str(b, e->origin.host);
	put_varint(b, (guint64)MAX(e->origin.time, 0));
	put_str(b, e->origin.version);
	put_str(b, e->origin.source);
	put_varint(b, st.order->len);
	for (guint i = 0; i < st.order->len; i++)
		put_str(b, g_ptr_array_index(st.order, i));
	g_byte_array_append(b, body->data, body->len);
	g_byte_array_unref(body);
	g_hash_table_unref(st.idx);
	g_ptr_array_unref(st.order);
	return g_byte_array_free_to_bytes(b);
}

/* ─── parsing ────────────────────────────────────────────────────────── */

GQuark pl_sym_embed_error_quark(void)
{
	return g_quark_from_static_string("pl-sym-embed-error");
}

typedef struct {
	struct pl_cursor c;
	const char **strs; /* the string table, interned in e */
	guint32 nstrs;
	const char *what;  /* the section being read, for the error */
} Parse;

/* A count of entries that each take at least min_bytes: over the cap or
 * over what the bytes left could hold is an error before any allocation. */
static guint32 count(Parse *p, guint32 cap, gsize min_bytes)
{
	guint64 n = pl_cur_varint(&p->c);
	if (n > cap || n > pl_cur_left(&p->c) / min_bytes) {
		pl_cur_fail(&p->c, n > cap ? -E2BIG : -EBADMSG);
		return 0;
	}
	return (guint32)n;
}

/* A string-table reference: NULL for 0, else an interned string. */
static const char *str_at(Parse *p)
{
	guint64 i = pl_cur_varint(&p->c);
	if (i == 0 || !pl_cur_ok(&p->c))
		return NULL;
	if (i > p->nstrs) {
		pl_cur_fail(&p->c, -EBADMSG);
		return NULL;
	}
	return p->strs[i - 1];
}

static char *take_str(PlSymEmbed *e, Parse *p, guint32 max)
{
	struct pl_str s = pl_cur_str(&p->c, max);
	if (!pl_cur_ok(&p->c))
		return NULL;
	g_autofree char *z = g_strndup(s.p, s.len);
	return (char *)g_string_chunk_insert_const(e->strings, z);
}

static gboolean parse_body(PlSymEmbed *e, Parse *p)
{
	struct pl_cursor *c = &p->c;
	p->what = "frames";
	guint32 n = count(p, MAX_ENTRIES, 4);
	for (guint32 i = 0; i < n && pl_cur_ok(c); i++) {
		guint32 pid = pl_cur_u32v(c);
		guint64 pc = pl_cur_varint(c);
		guint8 ret = (guint8)pl_cur_varint_max(c, 1);
		guint32 nf = (guint32)pl_cur_varint_max(c, MAX_FRAMES);
		PlFrameInfo fr[MAX_FRAMES];
		if (nf == 0)
			pl_cur_fail(c, -EBADMSG);
		for (guint32 j = 0; j < nf && pl_cur_ok(c); j++) {
			fr[j].function = str_at(p);
			fr[j].module = str_at(p);
			fr[j].file = str_at(p);
			fr[j].line = pl_cur_u32v(c);
			fr[j].rel_addr = pl_cur_varint(c);
			fr[j].inlined = pl_cur_varint_max(c, 1) != 0;
			fr[j].decl_file = str_at(p);
			fr[j].decl_line = pl_cur_u32v(c);
		}
		if (pl_cur_ok(c))
			pl_sym_embed_put_frames(e, pid, pc, ret, fr, nf);
	}
	p->what = "unwinds";
	n = pl_cur_ok(c) ? count(p, MAX_ENTRIES, 10) : 0;
	guint64 pcs[MAX_PCS];
	for (guint32 i = 0; i < n && pl_cur_ok(c); i++) {
		guint64 key = pl_cur_le64(c);
		gboolean trunc = pl_cur_u8(c) != 0;
		guint32 np = (guint32)pl_cur_varint_max(c, MAX_PCS);
		guint64 prev = 0;
		for (guint32 j = 0; j < np && pl_cur_ok(c); j++)
			pcs[j] = prev = prev + (guint64)pl_cur_svarint(c);
		if (pl_cur_ok(c))
			pl_sym_embed_put_unwind(e, key, pcs, np, trunc);
	}
	p->what = "modules";
	n = pl_cur_ok(c) ? count(p, MAX_MODULES, 7) : 0;
	for (guint32 i = 0; i < n && pl_cur_ok(c); i++) {
		PlSymEmbedModule m = { 0 };
		m.module = str_at(p);
		m.local_path = str_at(p);
		m.debug_path = str_at(p);
		m.problem = str_at(p);
		m.fetched_from = str_at(p);
		guint64 fl = pl_cur_varint(c);
		m.has_symbols = (fl & 1) != 0;
		m.has_lines = (fl & 2) != 0;
		m.has_cfi = (fl & 4) != 0;
		m.has_ehabi = (fl & 8) != 0;
		m.build_id_match = (fl & 16) != 0;
		m.samples = pl_cur_varint(c);
		if (pl_cur_ok(c))
			g_array_append_val(e->modules, m); /* strings already e's */
	}
	p->what = "sources";
	n = pl_cur_ok(c) ? count(p, MAX_SOURCES, 2) : 0;
	for (guint32 i = 0; i < n && pl_cur_ok(c); i++) {
		struct pl_str path = pl_cur_str(c, MAX_STRING);
		uint32_t len = 0;
		const uint8_t *text = pl_cur_blob(c, PL_SYM_EMBED_MAX_SOURCE, &len);
		if (!pl_cur_ok(c))
			break;
		g_autofree char *z = g_strndup(path.p, path.len);
		if (!pl_sym_embed_put_source(e, z, (const char *)text, len))
			pl_cur_fail(c, -E2BIG); /* over the total bound */
	}
	p->what = "disassembly";
	n = pl_cur_ok(c) ? count(p, MAX_DISASM, 3) : 0;
	for (guint32 i = 0; i < n && pl_cur_ok(c); i++) {
		const char *module = str_at(p), *symbol = str_at(p);
		guint32 nl = count(p, MAX_DISASM_LINES, 3);
		g_autoptr(GArray) lines = g_array_sized_new(FALSE, FALSE, sizeof(PlSymEmbedLine), nl);
		for (guint32 j = 0; j < nl && pl_cur_ok(c); j++) {
			PlSymEmbedLine l;
			l.text = str_at(p);
			l.is_insn = pl_cur_varint_max(c, 1) != 0;
			l.addr = pl_cur_varint(c);
			g_array_append_val(lines, l);
		}
		if (pl_cur_ok(c) && (!module || !symbol))
			pl_cur_fail(c, -EBADMSG);
		if (pl_cur_ok(c))
			pl_sym_embed_put_disasm(e, module, symbol,
						(const PlSymEmbedLine *)(void *)lines->data, lines->len);
	}
	/* bytes after the last known section: a newer writer's, ignored */
	return pl_cur_ok(c);
}

PlSymEmbed *pl_sym_embed_parse(const guint8 *data, gsize len, GError **error)
{
	if (len < 8 || memcmp(data, MAGIC, 8) != 0) {
		g_set_error_literal(error, PL_SYM_EMBED_ERROR, 0,
				    "the embedded symbol table is not one PerfLens knows "
				    "(bad magic): the file is damaged; export it again from the original");
		return NULL;
	}
	if (len > PL_SYM_EMBED_MAX) {
		g_set_error(error, PL_SYM_EMBED_ERROR, 0,
			    "the embedded symbol table is over %u MiB: the file is damaged",
			    PL_SYM_EMBED_MAX >> 20);
		return NULL;
	}
	Parse p = { 0 };
	pl_cur_init(&p.c, data + 8, len - 8);
	guint64 version = pl_cur_varint(&p.c);
	if (pl_cur_ok(&p.c) && version > PL_SYM_EMBED_VERSION) {
		g_set_error(error, PL_SYM_EMBED_ERROR, 0,
			    "the embedded symbols are of version %" G_GUINT64_FORMAT
			    " (this PerfLens reads up to %u): open it with a newer PerfLens, "
			    "or export the original again with this one",
			    version, PL_SYM_EMBED_VERSION);
		return NULL;
	}
	PlSymEmbed *e = pl_sym_embed_new();
	(void)pl_cur_varint(&p.c); /* flags: none defined yet */
	p.what = "origin";
	const char *host = take_str(e, &p, MAX_STRING);
	gint64 t = (gint64)pl_cur_varint_max(&p.c, G_MAXINT64);
	const char *ver = take_str(e, &p, MAX_STRING);
	const char *src = take_str(e, &p, MAX_STRING);
	if (pl_cur_ok(&p.c))
		pl_sym_embed_set_origin(e, host, t, ver, src);
	p.what = "strings";
	p.nstrs = pl_cur_ok(&p.c) ? count(&p, MAX_STRINGS, 1) : 0;
	p.strs = g_new0(const char *, p.nstrs + 1);
	for (guint32 i = 0; i < p.nstrs && pl_cur_ok(&p.c); i++)
		p.strs[i] = take_str(e, &p, MAX_STRING);
	gboolean ok = pl_cur_ok(&p.c) && parse_body(e, &p);
	g_free(p.strs);
	if (!ok) {
		g_set_error(error, PL_SYM_EMBED_ERROR, 0,
			    "the embedded symbol table is %s in its %s section (%" G_GSIZE_FORMAT
			    " bytes): the file is damaged; export it again from the original, "
			    "or open the original with its binaries",
			    p.c.err == -E2BIG ? "over a limit" : "cut short or malformed", p.what,
			    len);
		pl_sym_embed_free(e);
		return NULL;
	}
	return e;
}
