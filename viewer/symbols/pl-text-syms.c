/* pl-text-syms.c — symbol tables read from text the agent sends:
 * /proc/kallsyms ("ffffffff81000000 T _stext [module]") and
 * /tmp/perf-PID.map ("START SIZE name with spaces", hex without 0x).
 *
 * The text is untrusted: lines are parsed with explicit bounds, bad lines
 * are counted and skipped, names are capped, and the whole file is capped
 * by PL_SYM_MAX_TEXT_FILE before it is stored.  The table is a sorted
 * array so that a lookup is a binary search.
 */
#include <string.h>

#include "pl-symbols-private.h"

#define MAX_NAME 1024u

void pl_text_file_append(PlTextFile *f, guint64 offset, const guint8 *data, gsize len)
{
	if (!f->text)
		f->text = g_byte_array_new();
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

void pl_text_file_clear(PlTextFile *f)
{
	if (f->text)
		g_byte_array_unref(f->text);
	g_clear_pointer(&f->table, pl_text_syms_free);
	memset(f, 0, sizeof(*f));
}

void pl_text_syms_free(PlTextSyms *t)
{
	if (!t)
		return;
	g_array_unref(t->syms);
	g_free(t);
}

static gint cmp_sym(gconstpointer a, gconstpointer b)
{
	const PlTextSym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Parses a hex number at *p (bounded by end); at least one digit. */
static gboolean parse_hex(const char **p, const char *end, guint64 *v)
{
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	guint64 x = 0;
	int digits = 0;
	while (s < end && g_ascii_isxdigit(*s)) {
		if (++digits > 16)
			return FALSE;
		x = x << 4 | (guint64)g_ascii_xdigit_value(*s);
		s++;
	}
	if (!digits)
		return FALSE;
	*p = s;
	*v = x;
	return TRUE;
}

static void skip_blanks(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

typedef gboolean (*LineFn)(PlSymbols *self, PlTextSyms *t, const char *p, const char *end,
			   const char *module);

static PlTextSyms *parse_lines(PlSymbols *self, const char *text, gsize len, LineFn fn,
			       const char *module)
{
	PlTextSyms *t = g_new0(PlTextSyms, 1);
	t->syms = g_array_new(FALSE, FALSE, sizeof(PlTextSym));
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le > p && le[-1] == '\r')
			le--;
		if (le > p && !fn(self, t, p, le, module))
			t->lines_bad++;
		p = nl ? nl + 1 : end;
	}
	g_array_sort(t->syms, cmp_sym);
	return t;
}

static const char *intern_n(PlSymbols *self, const char *p, gsize n)
{
	g_autofree char *s = g_strndup(p, MIN(n, MAX_NAME));
	return pl_sym_intern(self, s);
}

static gboolean kallsyms_line(PlSymbols *self, PlTextSyms *t, const char *p, const char *end,
			      const char *module)
{
	guint64 addr;
	if (!parse_hex(&p, end, &addr))
		return FALSE;
	skip_blanks(&p, end);
	if (p >= end)
		return FALSE;
	char type = *p++;
	skip_blanks(&p, end);
	const char *name = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	if (p == name)
		return FALSE;
	gsize nlen = (gsize)(p - name);
	/* only code: data symbols would swallow addresses between functions */
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return TRUE;
	skip_blanks(&p, end);
	const char *mod = "[kernel]";
	g_autofree char *modbuf = NULL;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));
		if (!close)
			return FALSE;
		modbuf = g_strndup(p, MIN((gsize)(close - p + 1), MAX_NAME));
		mod = modbuf;
	}
	PlTextSym s = { addr, 0, intern_n(self, name, nlen), pl_sym_intern(self, mod) };
	g_array_append_val(t->syms, s);
	return TRUE;
}

PlTextSyms *pl_text_syms_parse_kallsyms(PlSymbols *self, const char *text, gsize len)
{
	PlTextSyms *t = parse_lines(self, text, len, kallsyms_line, NULL);
	gboolean zero = t->syms->len > 0;
	for (guint i = 0; i < t->syms->len && zero; i++)
		zero = g_array_index(t->syms, PlTextSym, i).addr == 0;
	t->all_zero = zero;
	if (zero)
		g_array_set_size(t->syms, 0);
	return t;
}

static gboolean perf_map_line(PlSymbols *self, PlTextSyms *t, const char *p, const char *end,
			      const char *module)
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
	PlTextSym s = { addr, size, intern_n(self, p, (gsize)(end - p)), module };
	g_array_append_val(t->syms, s);
	return TRUE;
}

PlTextSyms *pl_text_syms_parse_perf_map(PlSymbols *self, const char *text, gsize len,
					const char *module)
{
	return parse_lines(self, text, len, perf_map_line, pl_sym_intern(self, module));
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
