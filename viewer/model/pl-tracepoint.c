/* pl-tracepoint.c — tracefs format files, raw payloads decoded with them,
 * and the markers with their begin/end intervals (pl-tracepoint.h).  The
 * profile's storage of the events is in pl-profile-samples.c. */
#include "pl-tracepoint.h"
#include "pl-expr.h"

#include <string.h>

#include "pl-profile-private.h"

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

/* ─── markers ────────────────────────────────────────────────────────── */

static void marker_clear(gpointer p)
{
	g_free(((PlMarker *)p)->text);
}

static void interval_clear(gpointer p)
{
	g_free(((PlMarkerInterval *)p)->name);
}

void pl_markers_free(PlMarkers *m)
{
	if (!m)
		return;
	g_array_free(m->markers, TRUE);
	g_array_free(m->intervals, TRUE);
	g_free(m);
}

/* "B|PID|NAME" / "E|PID|NAME" (also "E|PID", "E"): *name borrowed into
 * text, NULL when there is none. */
static char begin_end(const char *text, const char **name)
{
	*name = NULL;
	if ((text[0] != 'B' && text[0] != 'E') || (text[1] && text[1] != '|'))
		return 0;
	if (text[1] == '|') {
		const char *bar = strchr(text + 2, '|');
		if (bar)
			*name = bar + 1;
	}
	return text[0];
}

static gint interval_cmp(gconstpointer a, gconstpointer b)
{
	const PlMarkerInterval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start ? 1 : (gint)x->depth - (gint)y->depth;
}

/* Begins still open (tid -> GArray of them) are unmatched; the intervals
 * go in start order. */
static void finish_intervals(PlMarkers *m, GHashTable *open)
{
	GHashTableIter it;
	gpointer v;
	g_hash_table_iter_init(&it, open);
	while (g_hash_table_iter_next(&it, NULL, &v))
		m->unmatched += ((GArray *)v)->len;
	g_array_sort(m->intervals, interval_cmp);
}

PlMarkers *pl_markers_new(PlProfile *profile)
{
	PlMarkers *m = g_new0(PlMarkers, 1);
	m->markers = g_array_new(FALSE, FALSE, sizeof(PlMarker));
	g_array_set_clear_func(m->markers, marker_clear);
	m->intervals = g_array_new(FALSE, FALSE, sizeof(PlMarkerInterval));
	g_array_set_clear_func(m->intervals, interval_clear);
	gboolean be = pl_profile_is_big_endian(profile);
	guint n;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	/* per thread: its open begins, innermost last (indices into markers) */
	g_autoptr(GHashTable) open = g_hash_table_new_full(NULL, NULL, NULL,
							  (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < n; i++) {
		const PlEvent *e = pl_profile_lookup_event(profile, ev[i].event);
		const guint8 *raw = pl_profile_get_trace_raw(profile, &ev[i]);
		char *text = NULL;
		if (ev[i].marker) {
			text = g_strndup((const char *)raw, ev[i].raw_len);
		} else if (e && !g_strcmp0(e->name, "ftrace:print")) {
			const PlTraceFormat *fmt = pl_profile_get_trace_format(profile, ev[i].event);
			const PlTraceField *buf = pl_trace_format_find(fmt, "buf");
			text = buf ? pl_trace_field_dup_string(buf, raw, ev[i].raw_len, be) : NULL;
		}
		if (!text)
			continue; /* no format, or a payload that does not hold it */
		gsize tl = strlen(text);
		if (tl && text[tl - 1] == '\n')
			text[tl - 1] = 0;
		PlMarker mk = { ev[i].time, ev[i].pid, ev[i].tid, ev[i].stack, text };
		g_array_append_val(m->markers, mk);
		const char *name;
		char be_kind = begin_end(text, &name);
		if (!be_kind)
			continue;
		GArray *stack = g_hash_table_lookup(open, GUINT_TO_POINTER(ev[i].tid));
		if (be_kind == 'B') {
			if (!stack) {
				stack = g_array_new(FALSE, FALSE, sizeof(guint));
				g_hash_table_insert(open, GUINT_TO_POINTER(ev[i].tid), stack);
			}
			guint idx = m->markers->len - 1;
			g_array_append_val(stack, idx);
			continue;
		}
		/* an end closes the innermost open begin of that name (of any
		 * name when it has none) */
		gint j = stack ? (gint)stack->len - 1 : -1;
		for (; j >= 0 && name; j--) {
			const PlMarker *b = &g_array_index(m->markers, PlMarker,
							   g_array_index(stack, guint, j));
			const char *bn;
			begin_end(b->text, &bn);
			if (bn && !strcmp(bn, name))
				break;
		}
		if (j < 0) {
			m->unmatched++;
			continue;
		}
		const PlMarker *b = &g_array_index(m->markers, PlMarker,
						   g_array_index(stack, guint, (guint)j));
		const char *bn;
		begin_end(b->text, &bn);
		PlMarkerInterval iv = { b->time, mk.time, mk.pid, mk.tid, (guint)j,
					g_strdup(bn ? bn : "") };
		g_array_append_val(m->intervals, iv);
		g_array_remove_index(stack, (guint)j);
	}
	finish_intervals(m, open);
	return m;
}

/* What a pair's regexes are matched against: the marker's text, or the
 * tracepoint's name and decoded fields. */
static char *event_text(PlProfile *profile, const PlTraceEvent *ev, gboolean be)
{
	const guint8 *raw = pl_profile_get_trace_raw(profile, ev);
	if (ev->marker) {
		char *t = g_strndup((const char *)raw, ev->raw_len);
		gsize n = strlen(t);
		if (n && t[n - 1] == '\n')
			t[n - 1] = 0;
		return t;
	}
	const PlEvent *e = pl_profile_lookup_event(profile, ev->event);
	const PlTraceFormat *f = pl_profile_get_trace_format(profile, ev->event);
	g_autofree char *fields = f ? pl_trace_format_dup_fields(f, raw, ev->raw_len, be) : NULL;
	return g_strdup_printf("%s %s", e ? e->name : "?", fields ? fields : "");
}

guint pl_markers_add_pairs(PlMarkers *m, PlProfile *profile, const GRegex *begin,
			   const GRegex *end, const char *name)
{
	gboolean be = pl_profile_is_big_endian(profile);
	guint n, added = 0;
	const PlTraceEvent *ev = pl_profile_get_trace_events(profile, &n);
	/* per thread: the start times of its open begins, innermost last */
	g_autoptr(GHashTable) open = g_hash_table_new_full(NULL, NULL, NULL,
							  (GDestroyNotify)g_array_unref);
	for (guint i = 0; i < n; i++) {
		g_autofree char *text = event_text(profile, &ev[i], be);
		gboolean is_end = g_regex_match(end, text, 0, NULL);
		gboolean is_begin = g_regex_match(begin, text, 0, NULL);
		if (!is_end && !is_begin)
			continue;
		GArray *stack = g_hash_table_lookup(open, GUINT_TO_POINTER(ev[i].tid));
		if (is_end && stack && stack->len) {
			guint depth = stack->len - 1;
			guint64 t0 = g_array_index(stack, guint64, depth);
			PlMarkerInterval iv = { t0, ev[i].time, ev[i].pid, ev[i].tid, depth,
						g_strdup(name) };
			g_array_append_val(m->intervals, iv);
			g_array_remove_index(stack, depth);
			added++;
			continue;
		}
		if (!is_begin) {
			m->unmatched++; /* an end with nothing open */
			continue;
		}
		if (!stack) {
			stack = g_array_new(FALSE, FALSE, sizeof(guint64));
			g_hash_table_insert(open, GUINT_TO_POINTER(ev[i].tid), stack);
		}
		g_array_append_val(stack, ev[i].time);
	}
	finish_intervals(m, open);
	return added;
}

gboolean pl_markers_parse_pair(const char *spec, GRegex **begin, GRegex **end, GError **error)
{
	*begin = *end = NULL;
	const char *semi = strchr(spec, ';');
	if (!semi || semi == spec || !semi[1]) {
		pl_expr_set_error(error, !semi ? strlen(spec) : semi == spec ? 0 : strlen(spec),
				  "not BEGIN_REGEX;END_REGEX: two regexes split by ';', e.g. "
				  "'^frame start;^frame end'");
		return FALSE;
	}
	g_autofree char *b = g_strndup(spec, (gsize)(semi - spec));
	*begin = pl_expr_regex_new(b, 0, error);
	if (*begin)
		*end = pl_expr_regex_new(semi + 1, (gsize)(semi + 1 - spec), error);
	if (!*end) {
		g_clear_pointer(begin, g_regex_unref);
		return FALSE;
	}
	return TRUE;
}
