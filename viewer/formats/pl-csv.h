/* pl-csv.h — the two pieces every CSV exporter writes with: a field quoted
 * as RFC 4180 asks, and a buffered line written out with its error. */
#ifndef PL_CSV_H
#define PL_CSV_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

/* v appended to s, in quotes (inner quotes doubled) when it holds a comma,
 * a quote or a line break */
static inline void pl_csv_field(GString *s, const char *v)
{
	if (!strpbrk(v, ",\"\n\r")) {
		g_string_append(s, v);
		return;
	}
	g_string_append_c(s, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"')
			g_string_append_c(s, '"');
		g_string_append_c(s, *p);
	}
	g_string_append_c(s, '"');
}

/* s written to out and emptied; FALSE with error set when the write failed */
static inline gboolean pl_csv_put(FILE *out, GString *s, GError **error)
{
	if (s->len && fwrite(s->str, 1, s->len, out) != s->len) {
		int e = errno;
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "%s", g_strerror(e));
		return FALSE;
	}
	g_string_truncate(s, 0);
	return TRUE;
}

#endif
