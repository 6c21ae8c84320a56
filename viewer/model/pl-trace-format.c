/* pl-trace-format.c — tracefs format files, and raw payloads decoded with
 * them (pl-trace-format.h).  Knows nothing of the profile, which keeps
 * the formats and frees them with pl_trace_format_free. */
#include "pl-trace-format.h"

#include <string.h>

#include "msg.h"

/* ─── format files ──────────────────────────────────────────────────── */

#define COMMON_FIELDS                                                              \
	"format:\n"                                                                \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

PlTraceFormat *pl_trace_format_builtin(const char *event, guint word_size)
{
	g_autofree char *text = NULL;
	if (!event)
		return NULL;
	guint w = word_size == 4 ? 4 : 8;
	gboolean probe = (event[0] == 'u' || event[0] == 'k') && event[1] == ':';
	if (probe && g_str_has_suffix(event, "%return"))
		/* the kernel's uretprobe/kretprobe entry (trace_uprobe.c's
		 * vaddr[0], vaddr[1]; trace_kprobe.c's kretprobe_trace_entry_head):
		 * the probed function and the address it returned to */
		text = g_strdup_printf("name: retprobe\nID: 0\n" COMMON_FIELDS
				       "\tfield:void * func;\toffset:8;\tsize:%u;\tsigned:0;\n"
				       "\tfield:void * ret_ip;\toffset:%u;\tsize:%u;\tsigned:0;\n",
				       w, 8 + w, w);
	else if (probe)
		/* the kernel's uprobe/kprobe entry: the probed address */
		text = g_strdup_printf("name: probe\nID: 0\n" COMMON_FIELDS
				       "\tfield:void * ip;\toffset:8;\tsize:%u;\tsigned:0;\n", w);
	else if (!strcmp(event, PL_SLOW_SYSCALLS_EVENT)) {
		/* msg.h's struct pl_slow_syscall */
		GString *g = g_string_new("name: slow_syscall\nID: 0\nformat:\n"
					  "\tfield:u64 nr;\toffset:0;\tsize:8;\tsigned:0;\n"
					  "\tfield:u64 duration_ns;\toffset:8;\tsize:8;\tsigned:0;\n"
					  "\tfield:s64 ret;\toffset:16;\tsize:8;\tsigned:1;\n");
		for (guint i = 0; i < 6; i++)
			g_string_append_printf(g, "\tfield:void * arg%u;\toffset:%u;\tsize:8;"
					       "\tsigned:0;\n", i, 24 + 8 * i);
		text = g_string_free(g, FALSE);
	}
	return text ? pl_trace_format_parse(text, strlen(text), NULL) : NULL;
}

static void field_free(gpointer p)
{
	PlTraceField *f = p;
	g_free(f->name);
	g_free(f->type);
	g_free(f);
}

void pl_trace_format_free(PlTraceFormat *f)
{
	if (!f)
		return;
	g_free(f->name);
	g_ptr_array_free(f->fields, TRUE);
	g_free(f);
}

static gboolean ident_char(char c)
{
	return g_ascii_isalnum(c) || c == '_';
}

/* "unsigned int prio", "char comm[16]", "__data_loc char[] name" */
static PlTraceField *parse_decl(const char *decl, guint offset, guint size, gboolean is_signed)
{
	g_autofree char *d = g_strstrip(g_strdup(decl));
	g_autofree char *suffix = NULL;
	gsize n = strlen(d);
	if (n && d[n - 1] == ']') {
		char *lb = strrchr(d, '[');
		if (!lb)
			return NULL;
		suffix = g_strdup(lb);
		*lb = 0;
		g_strchomp(d);
		n = strlen(d);
	}
	gsize e = n, b = n;
	while (b > 0 && ident_char(d[b - 1]))
		b--;
	if (b == e)
		return NULL;
	PlTraceField *f = g_new0(PlTraceField, 1);
	f->name = g_strndup(d + b, e - b);
	d[b] = 0;
	g_strchomp(d);
	f->type = g_strconcat(d, suffix ? suffix : "", NULL);
	f->offset = offset;
	f->size = size;
	f->is_signed = is_signed;
	f->is_common = g_str_has_prefix(f->name, "common_");
	f->pointer = strchr(f->type, '*') != NULL;
	if (g_str_has_prefix(f->type, "__data_loc"))
		f->kind = size == 4 ? PL_TF_DATA_LOC : PL_TF_BYTES;
	else if (suffix && strstr(f->type, "char") && !f->pointer)
		f->kind = PL_TF_CHARS;
	else if (!suffix && (size == 1 || size == 2 || size == 4 || size == 8))
		f->kind = PL_TF_INT;
	else
		f->kind = PL_TF_BYTES;
	return f;
}

/* The value after "key:" up to ';' in line, or NULL. */
static char *attr(const char *line, const char *key)
{
	const char *p = strstr(line, key);
	if (!p)
		return NULL;
	p += strlen(key);
	const char *q = strchr(p, ';');
	return q ? g_strndup(p, (gsize)(q - p)) : NULL;
}

PlTraceFormat *pl_trace_format_parse(const char *text, gsize len, GError **error)
{
	g_autoptr(PlTraceFormat) f = g_new0(PlTraceFormat, 1);
	f->fields = g_ptr_array_new_with_free_func(field_free);
	g_autofree char *copy = g_strndup(text, len);
	g_auto(GStrv) lines = g_strsplit(copy, "\n", -1);
	for (guint i = 0; lines[i]; i++) {
		const char *l = lines[i];
		while (*l == ' ' || *l == '\t')
			l++;
		if (g_str_has_prefix(l, "name: ")) {
			g_free(f->name);
			f->name = g_strstrip(g_strdup(l + 6));
		} else if (g_str_has_prefix(l, "ID: ")) {
			f->id = (guint)g_ascii_strtoull(l + 4, NULL, 10);
		} else if (g_str_has_prefix(l, "field:")) {
			g_autofree char *decl = attr(l, "field:");
			g_autofree char *off = attr(l, "offset:");
			g_autofree char *size = attr(l, "size:");
			g_autofree char *sgn = attr(l, "signed:");
			guint64 o, s;
			if (!decl || !off || !size ||
			    !g_ascii_string_to_unsigned(off, 10, 0, G_MAXUINT16, &o, NULL) ||
			    !g_ascii_string_to_unsigned(size, 10, 0, G_MAXUINT16, &s, NULL))
				continue; /* a line from a newer kernel we do not understand */
			PlTraceField *fld = parse_decl(decl, (guint)o, (guint)s,
						       sgn && g_ascii_strtoll(sgn, NULL, 10) != 0);
			if (fld)
				g_ptr_array_add(f->fields, fld);
		}
	}
	if (f->fields->len == 0) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
			    "a tracepoint format with no field line");
		return NULL;
	}
	if (!f->name)
		f->name = g_strdup("?");
	return g_steal_pointer(&f);
}

const PlTraceField *pl_trace_format_find(const PlTraceFormat *f, const char *name)
{
	for (guint i = 0; f && i < f->fields->len; i++) {
		const PlTraceField *x = f->fields->pdata[i];
		if (!strcmp(x->name, name))
			return x;
	}
	return NULL;
}

/* ─── decoding ───────────────────────────────────────────────────────── */

static gboolean fits(guint off, guint size, gsize len)
{
	return (guint64)off + size <= len;
}

static guint64 load(const guint8 *p, guint size, gboolean be)
{
	guint64 v = 0;
	for (guint i = 0; i < size; i++)
		v |= (guint64)p[be ? size - 1 - i : i] << (8 * i);
	return v;
}

gboolean pl_trace_field_int(const PlTraceField *f, const guint8 *raw, gsize len,
			    gboolean big_endian, gint64 *out)
{
	if (f->kind != PL_TF_INT || !fits(f->offset, f->size, len))
		return FALSE;
	guint64 v = load(raw + f->offset, f->size, big_endian);
	if (f->is_signed && f->size < 8 && (v >> (8 * f->size - 1) & 1))
		v |= ~0ull << (8 * f->size);
	*out = (gint64)v;
	return TRUE;
}

/* The string's bytes [*start, *start + *n) within raw, or FALSE. */
static gboolean string_span(const PlTraceField *f, const guint8 *raw, gsize len,
			    gboolean big_endian, gsize *start, gsize *n)
{
	if (f->kind == PL_TF_CHARS) {
		if (f->offset > len || !fits(f->offset, f->size, len))
			return FALSE;
		*start = f->offset;
		*n = f->size ? f->size : len - f->offset; /* char buf[]: to the end */
	} else if (f->kind == PL_TF_DATA_LOC) {
		if (!fits(f->offset, 4, len))
			return FALSE;
		guint32 loc = (guint32)load(raw + f->offset, 4, big_endian);
		if (!fits(loc & 0xffff, loc >> 16, len))
			return FALSE;
		*start = loc & 0xffff;
		*n = loc >> 16;
	} else {
		return FALSE;
	}
	const guint8 *nul = memchr(raw + *start, 0, *n);
	if (nul)
		*n = (gsize)(nul - (raw + *start));
	return TRUE;
}

char *pl_trace_field_dup_string(const PlTraceField *f, const guint8 *raw, gsize len,
				gboolean big_endian)
{
	gsize start, n;
	if (!string_span(f, raw, len, big_endian, &start, &n))
		return NULL;
	return g_strndup((const char *)raw + start, n);
}

gboolean pl_trace_field_append(const PlTraceField *f, const guint8 *raw, gsize len,
			       gboolean big_endian, GString *out)
{
	gint64 v;
	gsize start, n;
	if (pl_trace_field_int(f, raw, len, big_endian, &v)) {
		if (f->pointer)
			g_string_append_printf(out, "0x%" G_GINT64_MODIFIER "x", (guint64)v);
		else if (f->is_signed)
			g_string_append_printf(out, "%" G_GINT64_FORMAT, v);
		else
			g_string_append_printf(out, "%" G_GUINT64_FORMAT, (guint64)v);
		return TRUE;
	}
	if (string_span(f, raw, len, big_endian, &start, &n)) {
		for (gsize i = 0; i < n; i++) {
			guint8 c = raw[start + i];
			if (c >= 0x20 && c < 0x7f && c != '\\')
				g_string_append_c(out, (char)c);
			else if (c == '\n' && i + 1 == n)
				; /* trace_marker's own newline */
			else
				g_string_append_printf(out, "\\x%02x", c);
		}
		return TRUE;
	}
	if (f->kind == PL_TF_BYTES && fits(f->offset, f->size, len)) {
		for (guint i = 0; i < f->size; i++)
			g_string_append_printf(out, "%02x", raw[f->offset + i]);
		return TRUE;
	}
	return FALSE;
}

char *pl_trace_format_dup_fields(const PlTraceFormat *f, const guint8 *raw, gsize len,
				 gboolean big_endian)
{
	GString *s = g_string_new(NULL);
	for (guint i = 0; f && i < f->fields->len; i++) {
		const PlTraceField *x = f->fields->pdata[i];
		if (x->is_common)
			continue;
		gsize mark = s->len;
		g_string_append_printf(s, "%s%s=", s->len ? " " : "", x->name);
		if (!pl_trace_field_append(x, raw, len, big_endian, s))
			g_string_truncate(s, mark);
	}
	return g_string_free(s, FALSE);
}
