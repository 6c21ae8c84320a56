/* pl-text-syms.c — symbol tables read from text the agent sends:
 * /proc/kallsyms ("ffffffff81000000 T _stext [module]") and
 * /tmp/perf-PID.map ("START SIZE name with spaces", hex without 0x).
 *
 * The text is untrusted: lines are parsed with explicit bounds, bad lines
 * are counted and skipped, names are capped, and the whole file is capped
 * by PL_SYM_MAX_TEXT_FILE before it is stored.  The table is a sorted
 * array so that a lookup is a binary search.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pl-text-syms-cache.h"
#include "pl-text-syms.h"

#define MAX_NAME 1024u

/* f's bytes: the mapped file, else the text. */
static const char *file_bytes(const PlTextFile *f, gsize *len)
{
	*len = f->map ? f->map_len : f->text->len;
	return f->map ? (const char *)f->map : (const char *)f->text->data;
}

static void unmap(PlTextFile *f)
{
	if (f->map)
		munmap((void *)f->map, f->map_len);
	f->map = NULL;
	f->map_len = 0;
}

void pl_text_file_append(PlTextFile *f, guint64 offset, const guint8 *data, gsize len)
{
	pl_text_file_join(f, NULL); /* a parse of the old text must not race the append */
	if (!f->text)
		f->text = g_byte_array_new();
	if (f->map) { /* a loaded file goes on as text */
		g_byte_array_append(f->text, f->map, (guint)f->map_len);
		unmap(f);
		f->dirty = TRUE; /* the table named into the mapping: made again */
	}
	if (offset == 0 && f->text->len) {
		/* a new copy of the file: start over */
		g_byte_array_set_size(f->text, 0);
		f->overflow = FALSE;
	}
	if (offset != f->text->len || f->overflow)
		return; /* out of order or a gap: keep what is contiguous */
	if (len > PL_SYM_MAX_TEXT_FILE - f->text->len) {
		f->overflow = TRUE;
		len = PL_SYM_MAX_TEXT_FILE - f->text->len;
	}
	g_byte_array_append(f->text, data, (guint)len);
	f->dirty = TRUE;
}

/* ─── kallsyms parsed on a second thread ─── */

/* Maps the pending file, else reads it into f->text (empty when the read
 * fails).  Mapped, only the pages a parse or a name lookup touches are
 * read, and nothing is copied (a kernel's kallsyms is 5 MB, a report names
 * a few hundred of its symbols).  The file is perf's copy in its build-id
 * cache, which perf writes to a temporary file and renames, never in
 * place (like the ELF files libelf maps): it does not shrink under us. */
static void load_pending(PlTextFile *f)
{
	if (!f->load_pending)
		return;
	void *m = f->load_size ? mmap(NULL, f->load_size, PROT_READ, MAP_PRIVATE, f->load_fd, 0)
			       : MAP_FAILED;
	struct stat st;
	if (m != MAP_FAILED && fstat(f->load_fd, &st) == 0 && (gsize)st.st_size == f->load_size) {
		f->map = m;
		f->map_len = f->load_size;
		close(f->load_fd);
		f->load_fd = -1;
		f->load_pending = FALSE;
		return;
	}
	if (m != MAP_FAILED)
		munmap(m, f->load_size);
	g_byte_array_set_size(f->text, (guint)f->load_size);
	gsize got = 0;
	while (got < f->load_size) {
		ssize_t k = pread(f->load_fd, f->text->data + got, f->load_size - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (gsize)k;
	}
	g_byte_array_set_size(f->text, (guint)got); /* a file cut short: what was read */
	close(f->load_fd);
	f->load_fd = -1;
	f->load_pending = FALSE;
}

static gpointer bg_parse(gpointer p)
{
	PlTextFile *f = p;
	/* a file (perf's copy of kallsyms): its table may be on disk already */
	struct stat st;
	gboolean file = f->load_pending && fstat(f->load_fd, &st) == 0 && S_ISREG(st.st_mode);
	load_pending(f);
	gsize len;
	const char *text = file_bytes(f, &len);
	file = file && len == (gsize)st.st_size;
	PlTextSyms *t = file ? pl_text_syms_cache_load(&st, text, len) : NULL;
	if (t)
		return t;
	t = pl_text_syms_parse_kallsyms(NULL, text, len);
	if (file)
		pl_text_syms_cache_store(&st, text, len, t);
	return t;
}

void pl_text_file_parse_async(PlTextFile *f)
{
	pl_text_file_join(f, NULL);
	if (!f->text || !f->dirty)
		return;
	f->parser = g_thread_try_new("pl-kallsyms", bg_parse, f, NULL);
	if (!f->parser)
		load_pending(f); /* parsed at first use, as chunks are */
}

void pl_text_file_load_async(PlTextFile *f, int fd, gsize size)
{
	pl_text_file_clear(f);
	f->text = g_byte_array_new();
	f->load_pending = TRUE;
	f->load_fd = fd;
	f->load_size = size;
	f->dirty = TRUE;
	pl_text_file_parse_async(f);
}

void pl_text_file_join(PlTextFile *f, PlSymbols *self)
{
	if (!f->parser)
		return;
	PlTextSyms *t = g_thread_join(f->parser);
	f->parser = NULL;
	if (!self) { /* the text is about to change: the result is stale */
		pl_text_syms_free(t);
		return;
	}
	/* module names into the PlSymbols' strings, valid as long as it is */
	for (guint i = 0; i < t->modules->len; i++)
		t->modules->pdata[i] = (gpointer)pl_sym_intern(self, t->modules->pdata[i]);
	g_clear_pointer(&t->local, g_string_chunk_free);
	g_clear_pointer(&f->table, pl_text_syms_free);
	f->table = t;
	f->dirty = FALSE;
}

void pl_text_file_clear(PlTextFile *f)
{
	pl_text_file_join(f, NULL);
	if (f->load_pending)
		close(f->load_fd);
	if (f->text)
		g_byte_array_unref(f->text);
	unmap(f);
	g_clear_pointer(&f->table, pl_text_syms_free);
	memset(f, 0, sizeof(*f));
}

void pl_text_syms_free(PlTextSyms *t)
{
	if (!t)
		return;
	g_array_unref(t->syms);
	g_ptr_array_unref(t->modules);
	if (t->local)
		g_string_chunk_free(t->local);
	g_free(t);
}

static gint cmp_sym(gconstpointer a, gconstpointer b)
{
	const PlTextSym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* 0-15 for a hex digit, 16 for anything else */
static guint8 hex_value[256];

static void hex_init(void)
{
	static gsize done;
	if (g_once_init_enter(&done)) {
		for (guint c = 0; c < 256; c++)
			hex_value[c] = c >= '0' && c <= '9'   ? (guint8)(c - '0')
				       : c >= 'a' && c <= 'f' ? (guint8)(c - 'a' + 10)
				       : c >= 'A' && c <= 'F' ? (guint8)(c - 'A' + 10)
							      : 16;
		g_once_init_leave(&done, 1);
	}
}

/* Parses a hex number at *p (bounded by end); at least one digit. */
static gboolean parse_hex(const char **p, const char *end, guint64 *v)
{
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	guint64 x = 0;
	int digits = 0;
	guint d;
	while (s < end && (d = hex_value[(guint8)*s]) < 16) {
		if (++digits > 16)
			return FALSE;
		x = x << 4 | d;
		s++;
	}
	if (!digits)
		return FALSE;
	*p = s;
	*v = x;
	return TRUE;
}

/* parse_hex for the common case, kallsyms's 16 digits not followed by
 * another: no loop-carried checks.  FALSE (and *p untouched) for anything
 * else, which parse_hex then reads. */
static gboolean parse_hex16(const char **p, const char *end, guint64 *v)
{
	const guint8 *s = (const guint8 *)*p;
	if (end - *p < 17 || hex_value[s[16]] < 16)
		return FALSE;
	guint64 x = 0;
	guint bad = 0;
	for (guint i = 0; i < 16; i++) {
		guint d = hex_value[s[i]];
		bad |= d; /* 16 (bit 4) for a non-digit */
		x = x << 4 | (d & 15);
	}
	if (bad & 16)
		return FALSE;
	*p += 16;
	*v = x;
	return TRUE;
}

/* The first ' ' or '\t' in [p, end), else end.  Eight bytes at a time on
 * little-endian hosts (the lowest byte flagged by the zero-byte test is
 * exact, so the first blank is found). */
static const char *find_blank(const char *p, const char *end)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
	const guint64 ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	while (end - p >= 8) {
		guint64 w;
		memcpy(&w, p, 8);
		guint64 sp = w ^ (ones * ' '), tab = w ^ (ones * '\t');
		guint64 hit = ((sp - ones) & ~sp & highs) | ((tab - ones) & ~tab & highs);
		if (hit)
			return p + (__builtin_ctzll(hit) >> 3);
		p += 8;
	}
#endif
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return p;
}

static void skip_blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

typedef struct {
	PlSymbols *self; /* NULL on a background parse: module names go to t->local */
	PlTextSyms *t;
	const char *text;
	gboolean sorted; /* so far; kallsyms mostly is, and sorting is then skipped */
	/* the module of the previous line: lines of one module come together */
	const char *last_mod;
	gsize last_mod_len;
	guint16 last_mod_index;
} Parse;

typedef gboolean (*LineFn)(Parse *ps, const char *p, const char *end);

static const char *intern(PlSymbols *self, PlTextSyms *t, const char *s)
{
	return self ? pl_sym_intern(self, s) : g_string_chunk_insert_const(t->local, s);
}

static PlTextSyms *parse_lines(PlSymbols *self, const char *text, gsize len, LineFn fn,
			       const char *module)
{
	hex_init();
	PlTextSyms *t = g_new0(PlTextSyms, 1);
	/* about one code symbol per 45 bytes of kallsyms: one allocation */
	t->syms = g_array_sized_new(FALSE, FALSE, sizeof(PlTextSym), (guint)MIN(len / 45, 1u << 22));
	t->text = text;
	t->modules = g_ptr_array_new();
	if (!self)
		t->local = g_string_chunk_new(4096);
	g_ptr_array_add(t->modules, (gpointer)intern(self, t, module ? module : "[kernel]"));
	Parse ps = { self, t, text, TRUE, NULL, 0, 0 };
	if (!text || !len) /* an empty payload (the wire allows it) has no lines */
		return t;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le > p && le[-1] == '\r')
			le--;
		if (le > p && !fn(&ps, p, le))
			t->lines_bad++;
		p = nl ? nl + 1 : end;
	}
	if (!ps.sorted)
		g_array_sort(t->syms, cmp_sym);
	return t;
}

static void add_sym(Parse *ps, guint64 addr, guint64 size, const char *name, gsize nlen,
		    guint16 module)
{
	GArray *a = ps->t->syms;
	if (a->len && g_array_index(a, PlTextSym, a->len - 1).addr > addr)
		ps->sorted = FALSE;
	PlTextSym s = { addr, size, (guint32)(name - ps->text), (guint16)MIN(nlen, MAX_NAME),
			module };
	g_array_append_val(a, s);
}

/* Index of the module named [p, p + n) in t->modules (0: [kernel]). */
static guint16 module_index(Parse *ps, const char *p, gsize n)
{
	if (ps->last_mod && n == ps->last_mod_len && !memcmp(p, ps->last_mod, n))
		return ps->last_mod_index;
	g_autofree char *name = g_strndup(p, MIN(n, MAX_NAME));
	const char *in = intern(ps->self, ps->t, name);
	guint i = 0;
	while (i < ps->t->modules->len && g_ptr_array_index(ps->t->modules, i) != in)
		i++;
	if (i == ps->t->modules->len) {
		if (i > G_MAXUINT16)
			return 0;
		g_ptr_array_add(ps->t->modules, (gpointer)in);
	}
	ps->last_mod = p;
	ps->last_mod_len = n;
	ps->last_mod_index = (guint16)i;
	return (guint16)i;
}

static gboolean kallsyms_line(Parse *ps, const char *p, const char *end)
{
	guint64 addr;
	if (!parse_hex16(&p, end, &addr) && !parse_hex(&p, end, &addr))
		return FALSE;
	skip_blanks(&p, end);
	if (p >= end)
		return FALSE;
	char type = *p++;
	skip_blanks(&p, end);
	const char *name = p;
	p = find_blank(p, end);
	if (p == name)
		return FALSE;
	gsize nlen = (gsize)(p - name);
	/* only code: data symbols would swallow addresses between functions */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return TRUE;
	skip_blanks(&p, end);
	guint16 mod = 0;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));
		if (!close)
			return FALSE;
		mod = module_index(ps, p, (gsize)(close - p + 1));
	}
	add_sym(ps, addr, 0, name, nlen, mod);
	return TRUE;
}

/* A linker-made section boundary, not a function: __sched_text_start,
 * __idmap_text_end, _stext, __start_xxx.  kallsyms lists such markers at
 * the address of the function that begins the section, and a frame in
 * __schedule must not be named __sched_text_start. */
static gboolean is_marker(const char *n, gsize len)
{
	g_autofree char *s = g_strndup(n, len);
	if (!strcmp(s, "_text") || !strcmp(s, "_stext") || !strcmp(s, "_etext") ||
	    !strcmp(s, "_sinittext") || !strcmp(s, "_einittext"))
		return TRUE;
	if (g_str_has_prefix(s, "__start_") || g_str_has_prefix(s, "__stop_"))
		return TRUE;
	return s[0] == '_' && s[1] == '_' &&
	       (g_str_has_suffix(s, "_start") || g_str_has_suffix(s, "_end"));
}

/* Among symbols at one address the lookup takes the last: make it the last
 * that is not a marker (the file's order otherwise). */
static void prefer_functions(PlTextSyms *t)
{
	PlTextSym *v = (PlTextSym *)(void *)t->syms->data;
	guint n = t->syms->len;
	for (guint i = 0; i < n;) {
		guint j = i + 1;
		while (j < n && v[j].addr == v[i].addr)
			j++;
		if (j - i > 1 && is_marker(t->text + v[j - 1].name_off, v[j - 1].name_len))
			for (guint k = j - 1; k-- > i;)
				if (!is_marker(t->text + v[k].name_off, v[k].name_len)) {
					PlTextSym x = v[k];
					v[k] = v[j - 1];
					v[j - 1] = x;
					break;
				}
		i = j;
	}
}

PlTextSyms *pl_text_syms_parse_kallsyms(PlSymbols *self, const char *text, gsize len)
{
	PlTextSyms *t = parse_lines(self, text, len, kallsyms_line, NULL);
	prefer_functions(t);
	gboolean zero = t->syms->len > 0;
	for (guint i = 0; i < t->syms->len && zero; i++)
		zero = g_array_index(t->syms, PlTextSym, i).addr == 0;
	t->all_zero = zero;
	if (zero)
		g_array_set_size(t->syms, 0);
	return t;
}

static gboolean perf_map_line(Parse *ps, const char *p, const char *end)
{
	guint64 addr, size;
	if (!parse_hex(&p, end, &addr))
		return FALSE;
	skip_blanks(&p, end);
	if (!parse_hex(&p, end, &size))
		return FALSE;
	skip_blanks(&p, end);
	if (p >= end)
		return FALSE;
	add_sym(ps, addr, size, p, (gsize)(end - p), 0);
	return TRUE;
}

PlTextSyms *pl_text_syms_parse_perf_map(PlSymbols *self, const char *text, gsize len,
					const char *module)
{
	return parse_lines(self, text, len, perf_map_line, module);
}

const char *pl_text_sym_name(PlSymbols *self, const PlTextSyms *t, const PlTextSym *s)
{
	g_autofree char *n = g_strndup(t->text + s->name_off, s->name_len);
	return pl_sym_intern(self, n);
}

const char *pl_text_sym_module(const PlTextSyms *t, const PlTextSym *s)
{
	return s->module < t->modules->len ? g_ptr_array_index(t->modules, s->module)
					   : g_ptr_array_index(t->modules, 0);
}

const PlTextSym *pl_text_syms_lookup(const PlTextSyms *t, guint64 addr)
{
	if (!t || t->syms->len == 0)
		return NULL;
	const PlTextSym *v = (const PlTextSym *)(void *)t->syms->data;
	guint lo = 0, hi = t->syms->len; /* first index with v[i].addr > addr */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* later entries at the same address win for JIT maps: code reused */
	const PlTextSym *s = &v[lo - 1];
	if (s->size)
		return addr - s->addr < s->size ? s : NULL;
	if (lo < t->syms->len)
		return s; /* up to the next symbol */
	/* the last kernel symbol: no end known; accept a generous page range */
	return addr - s->addr < (1u << 20) ? s : NULL;
}

const PlTextSyms *pl_text_file_table(PlSymbols *self, PlTextFile *f, guint32 pid)
{
	pl_text_file_join(f, self);
	if (f->dirty && f->text) {
		g_clear_pointer(&f->table, pl_text_syms_free);
		gsize len;
		const char *text = file_bytes(f, &len);
		if (f == &self->kallsyms) {
			f->table = pl_text_syms_parse_kallsyms(self, text, len);
		} else {
			g_autofree char *mod = g_strdup_printf("perf-%u.map", pid);
			f->table = pl_text_syms_parse_perf_map(self, text, len, mod);
		}
		f->dirty = FALSE;
	}
	return f->table;
}
