/* pl-ldmap.c — GNU ld map file parser; see pl-ldmap.h.
 *
 * The map is line oriented.  Lines of interest in the memory map part:
 *
 *   .text           0x00000000000010e0      0x4c7          output section
 *    .text          0x00000000000011c9      0x3de foo.o    input section
 *                   0x0000000000001234                hot_leaf   symbol
 *    .text.cmp      0x0000000000001300       0x20 foo.o    (function sections)
 *    .text.a_very_long_function_name                       long names wrap:
 *                   0x0000000000001400       0x40 foo.o    address on the next line
 *                   0x0000000000004010                __bss_start = .   (assignment: skipped)
 *
 * Everything else (memory configuration, discarded sections, script
 * commands, LOAD lines) is ignored. */
#include "pl-ldmap.h"

#include <string.h>

typedef struct {
	guint64 addr;
	guint64 end; /* exclusive; G_MAXUINT64 until known */
	const char *name;
} Sym;

typedef struct {
	guint64 start, end;
} Range;

struct _PlLdMap {
	GArray *syms;   /* Sym, sorted by addr, ends settled */
	GArray *ranges; /* Range: input sections with a size, sorted */
	GStringChunk *strings;
	char *output;
};

/* ─── a bounded cursor over one line ─────────────────────────────────── */

typedef struct {
	const char *p, *end;
} Cur;

static void skip_ws(Cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

/* A token: up to the next blank.  Returns its length (0 at the end). */
static gsize token(Cur *c, const char **tok)
{
	skip_ws(c);
	*tok = c->p;
	while (c->p < c->end && *c->p != ' ' && *c->p != '\t' && *c->p != '\r')
		c->p++;
	return (gsize)(c->p - *tok);
}

/* "0x" + 1..16 hex digits, nothing else. */
static gboolean parse_hex(const char *t, gsize n, guint64 *v)
{
	if (n < 3 || n > 18 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
		return FALSE;
	guint64 r = 0;
	for (gsize i = 2; i < n; i++) {
		int d = g_ascii_xdigit_value(t[i]);
		if (d < 0)
			return FALSE;
		r = r << 4 | (guint64)d;
	}
	*v = r;
	return TRUE;
}

static gboolean is_symbol_name(const char *t, gsize n)
{
	if (n == 0 || n > 1024)
		return FALSE;
	/* script noise: "[!provide]", "PROVIDE (x = .)", ". = ALIGN (8)" */
	if (t[0] == '[' || t[0] == '.' || t[0] == '*' || t[0] == '(' || t[0] == '0')
		return FALSE;
	for (gsize i = 0; i < n; i++)
		if (t[i] == '=' || t[i] == '(' || t[i] == ')' || (guchar)t[i] < 0x21)
			return FALSE;
	return TRUE;
}

/* ─── parsing ────────────────────────────────────────────────────────── */

typedef struct {
	PlLdMap *m;
	gboolean overflow;
	char pending[256]; /* a wrapped input section's name */
	gboolean have_pending;
	Range cur;          /* the current input section (end 0: none) */
} Parser;

static void add_sym(Parser *ps, guint64 addr, const char *name, gsize n, guint64 end)
{
	if (ps->m->syms->len >= PL_LDMAP_MAX_SYMBOLS) {
		ps->overflow = TRUE;
		return;
	}
	Sym s = { addr, end, g_string_chunk_insert_len(ps->m->strings, name, (gssize)n) };
	g_array_append_val(ps->m->syms, s);
}

/* An input section at addr/size: remembered as a range; a function
 * section (.text.NAME) also names its start. */
static void input_section(Parser *ps, const char *name, gsize n, guint64 addr, guint64 size)
{
	if (size == 0 || addr + size < addr) {
		ps->cur = (Range){ 0, 0 };
		return;
	}
	ps->cur = (Range){ addr, addr + size };
	g_array_append_val(ps->m->ranges, ps->cur);
	static const char *const prefixes[] = { ".text.", ".text.hot.", ".text.unlikely.",
						".text.startup.", ".iram.text.", ".ramfunc." };
	gsize best = 0;
	for (guint i = 0; i < G_N_ELEMENTS(prefixes); i++) {
		gsize pl = strlen(prefixes[i]);
		if (n > pl && !strncmp(name, prefixes[i], pl) && pl > best)
			best = pl;
	}
	if (best && is_symbol_name(name + best, n - best))
		add_sym(ps, addr, name + best, n - best, addr + size);
}

static void parse_line(Parser *ps, const char *line, gsize len)
{
	Cur c = { line, line + len };
	gboolean indented = len && (line[0] == ' ' || line[0] == '\t');
	const char *t1, *t2, *t3;
	gsize n1 = token(&c, &t1);
	if (!n1) {
		ps->have_pending = FALSE;
		return;
	}
	if (!indented) {
		/* an output section or a script line: no input section open */
		ps->cur = (Range){ 0, 0 };
		ps->have_pending = FALSE;
		if (n1 > 7 && !strncmp(t1, "OUTPUT(", 7) && !ps->m->output) {
			const char *e = memchr(t1, ' ', (gsize)(c.end - t1));
			const char *close = memchr(t1, ')', (gsize)(c.end - t1));
			if (!e || (close && close < e))
				e = close;
			if (e && e > t1 + 7)
				ps->m->output = g_strndup(t1 + 7, (gsize)(e - (t1 + 7)));
		}
		return;
	}
	guint64 a, b;
	if (t1[0] == '.') {
		gsize n2 = token(&c, &t2);
		if (!n2) {
			/* a long section name: its numbers follow on the next line */
			if (n1 < sizeof(ps->pending)) {
				memcpy(ps->pending, t1, n1);
				ps->pending[n1] = 0;
				ps->have_pending = TRUE;
			}
			return;
		}
		gsize n3 = token(&c, &t3);
		if (parse_hex(t2, n2, &a) && parse_hex(t3, n3, &b))
			input_section(ps, t1, n1, a, b);
		ps->have_pending = FALSE;
		return;
	}
	if (!parse_hex(t1, n1, &a)) {
		ps->have_pending = FALSE;
		return; /* "*(.text)", "*fill*", "[!provide]"… */
	}
	gsize n2 = token(&c, &t2);
	if (ps->have_pending) {
		ps->have_pending = FALSE;
		gsize n3 = token(&c, &t3);
		if (parse_hex(t2, n2, &b) && n3)
			input_section(ps, ps->pending, strlen(ps->pending), a, b);
		return;
	}
	/* "0xADDR NAME" and nothing after: a symbol (assignments have "= …") */
	const char *t4;
	if (!is_symbol_name(t2, n2) || token(&c, &t4) != 0)
		return;
	if (ps->cur.end && a >= ps->cur.start && a < ps->cur.end)
		add_sym(ps, a, t2, n2, ps->cur.end);
	else
		add_sym(ps, a, t2, n2, G_MAXUINT64);
}

static int cmp_sym(gconstpointer x, gconstpointer y)
{
	const Sym *a = x, *b = y;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* at one address prefer the bounded (section-known) entry first */
	return a->end < b->end ? -1 : a->end > b->end;
}

static int cmp_range(gconstpointer x, gconstpointer y)
{
	const Range *a = x, *b = y;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The end of the input section holding addr, 0 when none. */
static guint64 range_end(const PlLdMap *m, guint64 addr)
{
	guint lo = 0, hi = m->ranges->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (g_array_index(m->ranges, Range, mid).start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	const Range *r = &g_array_index(m->ranges, Range, lo - 1);
	return addr < r->end ? r->end : 0;
}

PlLdMap *pl_ldmap_parse(const char *text, gsize len, GError **error)
{
	PlLdMap *m = g_new0(PlLdMap, 1);
	m->syms = g_array_new(FALSE, FALSE, sizeof(Sym));
	m->ranges = g_array_new(FALSE, FALSE, sizeof(Range));
	m->strings = g_string_chunk_new(64 * 1024);
	Parser ps = { .m = m };
	if (len > PL_LDMAP_MAX_FILE)
		len = PL_LDMAP_MAX_FILE;
	/* Only the memory map has addresses that mean anything (discarded
	 * input sections are listed before it with address 0). */
	const char *start = text, *end = text + len;
	static const char marker[] = "Linker script and memory map";
	const char *mk = g_strstr_len(text, (gssize)len, marker);
	if (mk)
		start = mk;
	for (const char *p = start; p < end && !ps.overflow;) {
		const char *nl = memchr(p, '\n', (gsize)(end - p));
		const char *le = nl ? nl : end;
		if ((gsize)(le - p) <= PL_LDMAP_MAX_LINE)
			parse_line(&ps, p, (gsize)(le - p));
		else
			ps.have_pending = FALSE;
		p = nl ? nl + 1 : end;
	}
	/* OUTPUT() comes after the memory map in ld's output; also look
	 * before the marker in case the map was cut */
	if (!m->output && mk && mk > text)
		for (const char *p = text; p < mk;) {
			const char *nl = memchr(p, '\n', (gsize)(mk - p));
			const char *le = nl ? nl : mk;
			if ((gsize)(le - p) <= PL_LDMAP_MAX_LINE && le - p > 7 && !strncmp(p, "OUTPUT(", 7))
				parse_line(&ps, p, (gsize)(le - p));
			p = nl ? nl + 1 : mk;
		}
	if (m->syms->len == 0) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "no symbols found: is this a GNU ld map file (-Wl,-Map=FILE)?");
		pl_ldmap_free(m);
		return NULL;
	}
	g_array_sort(m->ranges, cmp_range);
	g_array_sort(m->syms, cmp_sym);
	/* one entry per address (the section-bounded one), ends settled */
	Sym *s = (Sym *)m->syms->data;
	guint w = 0;
	for (guint i = 0; i < m->syms->len; i++) {
		if (w && s[w - 1].addr == s[i].addr)
			continue;
		s[w++] = s[i];
	}
	g_array_set_size(m->syms, w);
	s = (Sym *)m->syms->data;
	for (guint i = 0; i < w; i++) {
		if (s[i].end == G_MAXUINT64) {
			guint64 re = range_end(m, s[i].addr);
			s[i].end = re ? re : s[i].addr + 1; /* outside every section: only itself */
		}
		if (i + 1 < w && s[i + 1].addr < s[i].end)
			s[i].end = s[i + 1].addr;
	}
	return m;
}

PlLdMap *pl_ldmap_load(const char *path, GError **error)
{
	g_autoptr(GMappedFile) f = g_mapped_file_new(path, FALSE, error);
	if (!f)
		return NULL;
	gsize len = g_mapped_file_get_length(f);
	if (len > PL_LDMAP_MAX_FILE) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "%s is over %u MiB: not a linker map?", path, PL_LDMAP_MAX_FILE >> 20);
		return NULL;
	}
	const char *text = len ? g_mapped_file_get_contents(f) : "";
	GError *e = NULL;
	PlLdMap *m = pl_ldmap_parse(text, len, &e);
	if (!m) {
		g_set_error(error, e->domain, e->code, "%s: %s", path, e->message);
		g_error_free(e);
	}
	return m;
}

void pl_ldmap_free(PlLdMap *self)
{
	if (!self)
		return;
	g_array_free(self->syms, TRUE);
	g_array_free(self->ranges, TRUE);
	g_string_chunk_free(self->strings);
	g_free(self->output);
	g_free(self);
}

const char *pl_ldmap_get_output(const PlLdMap *self)
{
	return self->output;
}

guint pl_ldmap_get_n_symbols(const PlLdMap *self)
{
	return self->syms->len;
}

const char *pl_ldmap_lookup(const PlLdMap *self, guint64 addr, guint64 *start)
{
	const Sym *s = (const Sym *)self->syms->data;
	guint lo = 0, hi = self->syms->len;
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;
		if (s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= s[lo - 1].end)
		return NULL;
	if (start)
		*start = s[lo - 1].addr;
	return s[lo - 1].name;
}
